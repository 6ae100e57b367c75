"""An `MjcfScene` into a `SpatialModel`: `build_model`, with the motors' efforts and the
shapes (see `_mjcf`)."""

from __future__ import annotations

from typing import Callable, Mapping

import numpy as np

from ..errors import ModelError, ParameterError
from ._mjcf_scene import MjcfJoint, MjcfScene, MjcfShape

_BOX_FACES = [[0, 3, 2, 1], [4, 5, 6, 7], [0, 1, 5, 4], [2, 3, 7, 6], [1, 2, 6, 5],
              [0, 4, 7, 3]]


def build_model(scene: MjcfScene, *, controls: Mapping[str, float | Callable] | None = None):
    """Build a `SpatialModel` from an `MjcfScene` (see `from_mjcf`)."""
    from . import _elements as el
    from . import _model

    efforts = _efforts(scene, controls)
    # the volume route (SPEC §7) takes free polyhedral bodies only; anything else runs as a
    # link system with point contacts (see SpatialModel.simulate)
    link = (any(j.kind != "free" for j in scene.joints) or bool(scene.actuators)
            or any(b.shape is None or b.shape.kind == "sphere" for b in scene.bodies))
    body_pairs = [c for c in scene.contacts if c[0] != "ground"]
    kw = {}
    if not link:
        kw = _volume_friction(scene, body_pairs)
    model = _model.SpatialModel(gravity=tuple(scene.gravity), **kw)
    for b in scene.bodies:
        model.add_body(b.name, mass=b.mass, inertia=b.inertia, shape=_shape(b.shape),
                       position=tuple(b.position), orientation=tuple(b.orientation))
    for j in scene.joints:
        if j.kind == "revolute":
            model.add(el.RevoluteJoint(j.body_i, j.body_j, point=_vec(scene, j, "point"),
                                       axis=_vec(scene, j, "axis"), name=j.name))
        elif j.kind == "prismatic":
            model.add(el.PrismaticJoint(j.body_i, j.body_j, point=_vec(scene, j, "point"),
                                        axis=_vec(scene, j, "axis"), name=j.name))
        elif j.kind == "spherical":
            model.add(el.SphericalJoint(j.body_i, j.body_j, point=_vec(scene, j, "point"),
                                        name=j.name))
        elif j.kind == "fixed":
            model.add(el.FixedJoint(j.body_i, j.body_j, name=j.name))
        # "free": a body without joint element is free (a FreeJoint element would force the
        # link-system route on a model the volume route can take)
    for act, effort in zip(scene.actuators, efforts):
        model.add(el.JointDriver(act.joint, effort=effort, name=act.name))
    if scene.ground is not None:
        mu = scene.ground["mu"]
        model.add_ground(mu_s=mu, mu_k=mu, height=scene.ground["height"])
    if link:
        for a, b, mu in scene.contacts:
            if a == "ground":
                if scene.ground is None:
                    raise ModelError(f"{scene.path}: a contact pair ground-{b} but the scene "
                                     "has no ground plane; add the plane (MjcfScene.ground) "
                                     "or remove the pair.")
                if mu == scene.ground["mu"]:
                    continue              # the ground's own coefficient applies
            model.add(el.ContactPair(a, b, mu=mu))
    return model


def _vec(scene: MjcfScene, j: MjcfJoint, what: str) -> tuple:
    """`j.point` or `j.axis` (`what`) as a tuple; a `ModelError` when the scene left it out."""
    value = getattr(j, what)
    if value is None:
        raise ModelError(f"{scene.path}: {j.kind} joint {j.name!r} ({j.body_i} to {j.body_j}) "
                         f"has no {what}; a {j.kind} joint needs one (set MjcfJoint.{what}).")
    return tuple(value)


def _volume_friction(scene: MjcfScene, body_pairs) -> dict:
    """The model's body-body coefficients for the volume route, where every body touches
    the ground and every other body with one coefficient each; a `ModelError` when the file
    needs more."""
    problems = []
    ground_mu = {b: mu for a, b, mu in scene.contacts if a == "ground"}
    if len(set(ground_mu.values())) > 1:
        problems.append("the friction with the ground differs between bodies ("
                        + ", ".join(f"{b}: {m:g}" for b, m in ground_mu.items()) + ")")
    mu_values = sorted({mu for _, _, mu in body_pairs})
    if len(mu_values) > 1:
        problems.append("the friction between bodies differs between pairs ("
                        + ", ".join(f"{a}-{b}: {m:g}" for a, b, m in body_pairs) + ")")
    n = sum(b.shape is not None for b in scene.bodies)
    if len(body_pairs) < n * (n - 1) // 2:
        problems.append(f"contype/conaffinity keep {n * (n - 1) // 2 - len(body_pairs)} "
                        "pair(s) of bodies from touching")
    if problems:
        raise ModelError(
            f"{scene.path}: free polyhedral bodies run on the volume route (SPEC §7), where "
            "every body touches the ground and every other body with one friction "
            "coefficient each, but " + "; ".join(problems) + ". Give the geoms the same "
            "friction and default contype/conaffinity.")
    return {"mu_s": mu_values[0], "mu_k": mu_values[0]} if mu_values else {}


def _shape(shape: MjcfShape | None):
    """The stickslip shape of an `MjcfShape` (None stays None)."""
    from . import _shapes
    if shape is None:
        return None
    if shape.kind == "hull":
        return _shapes.ConvexHull(shape.points)
    exact = (np.allclose(shape.rotation, np.eye(3), rtol=0, atol=1e-12)
             and np.allclose(shape.offset, 0.0, rtol=0, atol=1e-12))
    if shape.kind == "sphere":
        if not np.allclose(shape.offset, 0.0, rtol=0, atol=1e-12):
            raise ModelError(f"sphere geom '{shape.geom}' is off its body's centre of mass by "
                             f"{shape.offset.tolist()} m; stickslip spheres are centred on "
                             "the body origin. Remove the <inertial> offset or move the "
                             "sphere into a child body without joint.")
        return _shapes.Sphere(shape.size[0])
    full = [2.0 * h for h in shape.size]
    if exact:
        return _shapes.Box(*full)
    box = _shapes.Box(*full)
    return _shapes.Polyhedron(box.vertices @ shape.rotation.T + shape.offset, _BOX_FACES,
                         name="Box")


def _efforts(scene: MjcfScene, controls) -> list:
    """Each motor's effort: gear · clip(clip(u, ctrlrange), forcerange), a number or a
    function of t."""
    controls = {} if controls is None else dict(controls)
    known = {a.name for a in scene.actuators}
    unknown = sorted(set(controls) - known)
    if unknown:
        raise ParameterError(f"`from_mjcf.controls` names {unknown}, which are not motors of "
                             f"{scene.path!r}; its motors are {sorted(known)}.")
    out = []
    for act in scene.actuators:
        u = controls.get(act.name, 0.0)
        if callable(u):
            out.append(_MotorEffort(u, act.gear, act.ctrlrange, act.forcerange, act.name))
            continue
        if isinstance(u, (str, bytes, bool)) or np.ndim(u) != 0 or not np.isfinite(u):
            raise ParameterError(f"`from_mjcf.controls[{act.name!r}]` must be a finite number "
                                 f"or a function of t; got {u!r}.")
        out.append(float(_clip_effort(float(u), act.gear, act.ctrlrange, act.forcerange,
                                      np.clip)))
    return out


def _clip_effort(u, gear, ctrlrange, forcerange, clip):
    if ctrlrange is not None:
        u = clip(u, ctrlrange[0], ctrlrange[1])
    if forcerange is not None:
        u = clip(u, forcerange[0], forcerange[1])      # the actuator force (gain 1)
    return gear * u


class _MotorEffort:
    """gear · clip(clip(u(t), ctrlrange), forcerange) [N·m or N]: a motor's effort as a
    function of time t [s] (traceable: the clips are `jnp.clip`)."""

    def __init__(self, control, gear, ctrlrange, forcerange, name):
        self.control = control
        self.gear = gear
        self.ctrlrange = ctrlrange
        self.forcerange = forcerange
        self.name = name

    def __call__(self, t):
        import jax.numpy as jnp

        return _clip_effort(self.control(t), self.gear, self.ctrlrange, self.forcerange,
                            jnp.clip)

    def __repr__(self) -> str:
        return (f"MotorEffort({self.name!r}, gear={self.gear}, ctrlrange={self.ctrlrange}, "
                f"forcerange={self.forcerange})")
