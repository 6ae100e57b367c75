"""Read a MuJoCo MJCF file into a `SpatialModel` (issue 20, item 7): `from_mjcf`.

The file is parsed with the standard library (`xml.etree.ElementTree` tree builder over
`xml.parsers.expat`, which keeps line numbers for the messages); ``mujoco`` is not needed.
Reading happens in two stages, so that each can be tested on its own:

1. `read_mjcf` walks the XML and returns an `MjcfScene`: plain data in stickslip's terms
   (bodies with mass, inertia about the centre of mass and world pose; joints with world point
   and axis; the ground; actuators). Every problem found on the way is collected and raised
   once as a `ModelError`, one line per element and attribute, each saying what to do.
2. `build_model` turns a scene into a `SpatialModel` with the public elements
   (`RevoluteJoint`, `PrismaticJoint`, `SphericalJoint`, `FixedJoint`, `JointDriver`,
   `add_ground`).

`from_mjcf` does both.
"""

from __future__ import annotations

import math
import os
import xml.etree.ElementTree as ET
import xml.parsers.expat
from dataclasses import dataclass, field
from typing import Callable, Mapping

import numpy as np

from ..errors import ModelError, ParameterError

__all__ = ["from_mjcf", "read_mjcf", "build_model", "MjcfScene", "MjcfBody", "MjcfJoint",
           "MjcfActuator", "MjcfShape"]


# --- what each element may carry (rules as data) ------------------------------------------
#
# mapped:   read and translated.
# ignored:  no effect on the motion stickslip computes (appearance, grouping, user data, or
#           settings of MuJoCo's own constraint solver); dropped without a word.
# neutral:  physics-changing attributes stickslip does not model; accepted only at MuJoCo's
#           default value (written out or inherited from a <default> class), else a problem.
# Anything else on the element is a problem ("not supported").

@dataclass(frozen=True)
class _Rule:
    mapped: frozenset = frozenset()
    ignored: frozenset = frozenset()
    neutral: Mapping[str, str] = field(default_factory=dict)


def _rule(mapped="", ignored="", **neutral) -> _Rule:
    return _Rule(frozenset(mapped.split()), frozenset(ignored.split()), neutral)


_ORIENT = "quat axisangle xyaxes zaxis euler"
_RULES: dict[str, _Rule] = {
    "mujoco": _rule("model"),
    "compiler": _rule(
        "angle eulerseq inertiafromgeom autolimits",
        "strippath meshdir texturedir assetdir usethread fusestatic saveinertial alignfree "
        "convexhull exactmeshinertia fitaabb",
        boundmass="0", boundinertia="0", settotalmass="-1", balanceinertia="false",
        discardvisual="false", coordinate="local", inertiagrouprange="0 5"),
    "option": _rule(
        "timestep gravity",
        "apirate impratio tolerance ls_tolerance noslip_tolerance ccd_tolerance mpr_tolerance "
        "integrator collision cone jacobian solver iterations ls_iterations "
        "noslip_iterations ccd_iterations mpr_iterations sdf_iterations sdf_initpoints "
        "o_margin o_solref o_solimp o_friction magnetic actuatorgroupdisable sleep_tolerance",
        wind="0 0 0", density="0", viscosity="0"),
    "flag": _rule(
        "gravity filterparent",
        "warmstart refsafe sensor energy fwdinv invdiscrete sensornoise multiccd island "
        "nativeccd eulerdamp autoreset midphase sleep",
        constraint="enable", equality="enable", frictionloss="enable", limit="enable",
        contact="enable", passive="enable", spring="enable", damper="enable",
        clampctrl="enable", actuation="enable", override="disable"),
    "body": _rule("name childclass pos " + _ORIENT, "user", mocap="false", gravcomp="0"),
    "worldbody": _rule("", "name childclass"),
    "frame": _rule("name childclass pos " + _ORIENT),
    "inertial": _rule("pos mass diaginertia fullinertia " + _ORIENT),
    "joint": _rule(
        "name class type pos axis limited range actuatorfrclimited actuatorfrcrange",
        "group user solreflimit solimplimit solreffriction solimpfriction margin",
        springdamper="0 0", stiffness="0", armature="0", damping="0", frictionloss="0",
        ref="0", springref="0", actuatorgravcomp="false"),
    "freejoint": _rule("name", "group align"),
    "geom": _rule(
        "name class type size pos fromto mass density friction mesh contype conaffinity "
        "condim " + _ORIENT,
        "group material rgba user fluidcoef",
        priority="0", solmix="1", solref="0.02 1", solimp="0.9 0.95 0.001 0.5 2",
        margin="0", gap="0", shellinertia="false", fluidshape="none"),
    "mesh": _rule("name class vertex face scale file inertia",
                  "normal texcoord smoothnormal maxhullvert content_type material",
                  refpos="0 0 0", refquat="1 0 0 0"),
    "motor": _rule(
        "name class joint gear ctrlrange ctrllimited forcerange forcelimited",
        "group user lengthrange cranklength actlimited actrange actdim actearly",
        delay="0"),
}

# geom, joint and actuator attributes whose value is a number list with MuJoCo's defaults
_GEOM_DEFAULTS = {"type": "sphere", "size": "0 0 0", "friction": "1 0.005 0.0001",
                  "density": "1000", "contype": "1", "conaffinity": "1", "condim": "3"}
_JOINT_DEFAULTS = {"type": "hinge", "pos": "0 0 0", "axis": "0 0 1", "limited": "auto",
                   "actuatorfrclimited": "auto"}
_MOTOR_DEFAULTS = {"gear": "1 0 0 0 0 0", "ctrllimited": "auto", "forcelimited": "auto"}

# elements with no effect on the motion: skipped with their whole subtree
_IGNORED_TAGS = frozenset({"visual", "statistic", "size", "custom", "keyframe", "site",
                           "camera", "light", "texture", "material", "skin"})

_FIX = {
    "include": "Paste the included file's content into this file.",
    "equality": "Replace the equality constraint by a joint, or add the constraint with "
                "stickslip elements after loading.",
    "tendon": "Tendons are not modelled; remove them, or model the coupling with stickslip "
              "elements after loading.",
    "sensor": "stickslip results carry body and joint channels instead; remove <sensor>.",
    "contact": "stickslip has no contact pairs or exclusions (every body touches the ground "
               "and the other bodies); remove <contact>.",
    "hfield": "Height fields are not supported; use a plane or convex meshes.",
    "composite": "Expand the composite into bodies, joints and geoms.",
    "flexcomp": "Flexible bodies are not supported.",
    "deformable": "Deformable bodies are not supported.",
    "plugin": "Plugins are not supported.",
    "extension": "Plugins are not supported.",
    "attach": "Paste the attached model's bodies into this file.",
    "replicate": "Write the replicated bodies out.",
    "model": "Paste the attached model's bodies into this file.",
}

_ACTUATOR_FIX = {
    "position": "a <position> actuator is a spring servo (force kp·(ctrl − q)), not a "
                "prescribed motion. Replace it by a <motor>, or remove it and add "
                "`ss.spatial.JointDriver(joint, position=...)` (an exact prescribed angle) "
                "after loading.",
    "velocity": "a <velocity> actuator is a damper servo (force kv·(ctrl − q̇)), not a "
                "prescribed speed. Replace it by a <motor>, or remove it and add "
                "`ss.spatial.JointDriver(joint, velocity=...)` after loading.",
}

_BOX_FACES = [[0, 3, 2, 1], [4, 5, 6, 7], [0, 1, 5, 4], [2, 3, 7, 6], [1, 2, 6, 5],
              [0, 4, 7, 3]]


# --- the intermediate representation ---------------------------------------------------

@dataclass
class MjcfShape:
    """A body's collision shape in its centre-of-mass frame.

    kind: "box" (`size` = half extents [m]), "sphere" (`size` = (radius,) [m]) or "hull"
    (`points` = (N, 3) [m]). `rotation` (3×3) and `offset` (3,) [m] place a box or sphere
    in the centre-of-mass frame (x_com = rotation @ x_geom + offset); a hull's points are
    already in that frame. `geom` is the MJCF geom's name (or a description).
    """

    kind: str
    geom: str
    size: tuple = ()
    rotation: np.ndarray = field(default_factory=lambda: np.eye(3))
    offset: np.ndarray = field(default_factory=lambda: np.zeros(3))
    points: np.ndarray | None = None


@dataclass
class MjcfBody:
    """One stickslip body: `name` (the MJCF name, or ``body<id>`` with MuJoCo's body index
    when the body has none), mass [kg], inertia (3×3) [kg m^2] about the centre of mass in
    the body frame, world `position` [m] of the centre of mass and `orientation` (w, x, y,
    z) of the centre-of-mass frame (the MJCF body frame rotated by its <inertial> frame),
    the collision `shape` (None without one), and the friction of its collision geom."""

    name: str
    mass: float
    inertia: np.ndarray
    position: np.ndarray
    orientation: np.ndarray
    shape: MjcfShape | None
    friction: float = 1.0
    condim: int = 3
    frame_position: np.ndarray = field(default_factory=lambda: np.zeros(3))
    frame_rotation: np.ndarray = field(default_factory=lambda: np.eye(3))


@dataclass
class MjcfJoint:
    """One stickslip joint: kind "revolute" (hinge), "prismatic" (slide), "spherical"
    (ball), "fixed" (a body without joint, welded to its parent) or "free" (a free joint:
    no stickslip element); body_i is the parent (``"ground"`` for the world), body_j the
    child; `point` [m] and unit `axis` in world coordinates at the initial pose (None where
    the kind has none). `name` is None only for an unnamed free joint."""

    kind: str
    name: str | None
    body_i: str
    body_j: str
    point: np.ndarray | None = None
    axis: np.ndarray | None = None


@dataclass
class MjcfActuator:
    """A <motor>: joint torque/force = gear · clip(ctrl, ctrlrange) clipped to forcerange
    (each range None when not limited)."""

    name: str
    joint: str
    gear: float
    ctrlrange: tuple | None = None
    forcerange: tuple | None = None


@dataclass
class MjcfScene:
    """What `read_mjcf` found: everything `build_model` needs, in stickslip's terms.

    ground: None or {"height": [m], "mu": friction coefficient (the most common of the
        ground pairs'), "geom": the plane's name}.
    contacts: the pairs MuJoCo lets touch, (body_a, body_b, μ), ``"ground"`` first for the
        ground's; μ the pair's friction coefficient as MuJoCo combines it.
    timestep: <option timestep> [s] (MuJoCo's step, a suggestion for ``simulate(dt=)``).
    """

    path: str
    gravity: np.ndarray
    timestep: float
    bodies: list[MjcfBody]
    joints: list[MjcfJoint]
    actuators: list[MjcfActuator]
    ground: dict | None = None
    contacts: list = field(default_factory=list)


# --- entry points ------------------------------------------------------------------------

def from_mjcf(path, *, controls: Mapping[str, float | Callable] | None = None,
              curved_segments: int | None = None):
    """Build a `SpatialModel` from a MuJoCo MJCF file (the subset that maps onto stickslip).

    Parameters
    ----------
    path : str or path-like
        The ``.xml`` file. Parsed with the standard library; ``mujoco`` is not needed.
    controls : mapping, optional
        Control input u of each ``<motor>`` by actuator name: a number or a function of time
        t [s] (written with ``jax.numpy``: it is traced). The joint gets
        ``JointDriver(joint, effort=gear·u, name=<actuator>)``, a torque [N·m] on a hinge or
        a force [N] on a slide, with MuJoCo's clipping (see Notes). Motors not named here
        get u = 0: a driver of zero effort.
    curved_segments : int, optional
        None (default): capsule, cylinder and ellipsoid collision geoms are an error.
        An integer n >= 6: they are approximated for contact by the convex hull of n points
        around each circle (inscribed), while their mass and inertia keep MuJoCo's exact
        formulas, so free motion matches MuJoCo and only the contact shape is approximate.

    Returns
    -------
    SpatialModel
        Bodies named as in the file (``body<id>`` for an unnamed body, id = MuJoCo's body
        index), joints named as in the file (``joint<id>`` for an unnamed one), the
        welds ``<child>.weld``, the drivers, the ground and gravity.

    Raises
    ------
    ModelError
        When the file cannot be read, or uses anything stickslip does not map. All problems
        are collected and raised together, one line each: ``line N: <tag name='…'>: …``
        followed by what to do.
    ParameterError
        For a `controls` key that is not a motor's name, or a bad `curved_segments`.

    Notes
    -----
    Mapping (MuJoCo's conventions: angles in degrees unless ``<compiler angle="radian">``,
    ``eulerseq`` honoured, lower-case axes rotating, upper-case fixed):

    - ``<body pos quat|axisangle|xyaxes|zaxis|euler>`` nested, and ``<frame>``, are composed
      into world poses. The stickslip body frame is the centre-of-mass frame: its position
      and orientation are the MJCF body frame composed with its ``<inertial pos quat>``
      (or the geoms' centre of mass, axes parallel to the body frame); collision shapes are
      re-expressed in it. MuJoCo's ``xipos`` is the body's position; its world inertia
      ``ximat diag(body_inertia) ximatᵀ`` equals ours rotated to the world.
    - ``<inertial mass diaginertia|fullinertia>`` → mass and inertia about the centre of
      mass. Without it (``inertiafromgeom="auto"``, MuJoCo's default) or with
      ``inertiafromgeom="true"``: from all the body's geoms (density 1000 kg/m³ unless
      ``density`` or ``mass`` is given; box, sphere, capsule, cylinder, ellipsoid, convex
      mesh; MuJoCo's formulas).
    - ``<joint type="hinge">`` (the default type) → `RevoluteJoint`, ``"slide"`` →
      `PrismaticJoint`, ``"ball"`` → `SphericalJoint`, each between the parent body
      (``"ground"`` for the world) and the body, ``pos``/``axis`` taken to world coordinates
      at the initial pose. ``"free"`` / ``<freejoint>`` → no joint (a free body). A body
      without a joint → `FixedJoint` to its parent; a jointless body welded to the world
      without a collision geom is static and left out (its children attach to
      ``"ground"``).
    - ``<geom type="box" size>`` → `Box` (full sides = 2·size), ``"sphere"`` → `Sphere`,
      ``"mesh"`` with an inline ``<mesh vertex>`` (scaled by ``scale``) → `ConvexHull`;
      capsule/cylinder/ellipsoid → see `curved_segments`. A geom with
      ``contype="0" conaffinity="0"`` is visual: it adds mass, not a collision shape. A body
      carries at most one collision geom (split the others into child bodies without joint).
    - ``<geom type="plane">`` in the world body, horizontal → ``add_ground(mu_s=μ, mu_d=μ,
      height=z)``. Each pair's μ is the one MuJoCo uses: the larger ``friction[0]`` of the
      two geoms (0 when the larger ``condim`` is 1). On the link-system route (any joint,
      driver, sphere or shapeless body) the pairs MuJoCo lets touch become
      ``ContactPair(a, b, mu=μ)`` — its filter: not two bodies welded together, not a body
      and its parent (``<flag filterparent>``), ``contype``/``conaffinity`` matching; the
      ground takes the most common ground-pair μ and a ``ContactPair("ground", body, mu=)``
      for each body that differs. Free polyhedral bodies run on the volume route (SPEC §7):
      there every pair touches, with one μ for the ground and one between bodies, so a file
      that needs more is an error.
    - ``<option gravity timestep>`` (``<flag gravity="disable">`` → zero gravity);
      ``timestep`` is kept as ``MjcfScene.timestep`` (stickslip's ``simulate`` takes its own
      ``dt``).
    - ``<actuator><motor joint gear ctrlrange forcerange>`` on a hinge or slide →
      ``JointDriver(joint, effort=...)``: effort = gear[0] · clip(clip(u, ctrlrange),
      forcerange), each range applied where MuJoCo applies it (``ctrllimited`` /
      ``forcelimited`` true, or "auto" with the range given and ``autolimits`` on).
      ``<position>``, ``<velocity>`` and the other actuator types are errors (a servo is a
      spring, not a prescribed motion: add a ``JointDriver`` after loading instead).
    - ``<default>`` classes (nested, ``class=``, ``childclass=``) for geom, joint, mesh and
      motor attributes.

    Ignored (no effect on the motion): ``<visual>``, ``<statistic>``, ``<size>``,
    ``<custom>``, ``<keyframe>`` (stored states, not the initial state), ``<site>``,
    ``<camera>``, ``<light>``, ``<asset>`` textures, materials and skins; the attributes
    ``rgba``, ``material``, ``group``, ``user``; MuJoCo's solver settings (``integrator``,
    ``cone``, ``impratio``, ``solver``, ``iterations``, tolerances, ``o_*``); the
    ``solreflimit``/``solimplimit``/``margin`` of joints (they act only with limits, which
    are errors). A ``<freejoint>`` adds no element (a body without joint is free).

    Not supported (a `ModelError` naming each use): joint limits (``range`` with
    ``limited``), ``damping``, ``stiffness``, ``armature``, ``frictionloss``, ``ref``,
    ``springref``; contact softness and margins (``solref``, ``solimp``, ``margin``,
    ``gap``, ``priority``, ``solmix`` away from their defaults; ``condim`` 4 or 6);
    ``<equality>``, ``<tendon>``, ``<sensor>``, ``<contact>``, ``<include>``,
    ``<composite>``, ``<flexcomp>``, ``<plugin>``, ``<attach>``, mesh files, height
    fields, box ``fromto``, several joints or several collision geoms in one body, moving
    bodies without mass, ``mocap``, ``gravcomp``, wind, medium density and viscosity.

    Examples
    --------
    A rod of 1 kg hanging from a hinge about y (its centre of mass 0.25 m below the hinge):

    >>> import os, tempfile
    >>> from stickslip.spatial import from_mjcf
    >>> xml = '''<mujoco><worldbody><body name="rod" pos="0 0 1">
    ...   <joint name="hinge" axis="0 1 0"/>
    ...   <geom type="box" size="0.01 0.01 0.25" pos="0 0 -0.25" mass="1"/>
    ... </body></worldbody></mujoco>'''
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "pendulum.xml")
    ...     with open(path, "w") as f:
    ...         _ = f.write(xml)
    ...     model = from_mjcf(path)
    >>> rod = model.bodies[0]
    >>> rod.name, rod.mass, rod.state[:3].tolist()
    ('rod', 1.0, [0.0, 0.0, 0.75])
    >>> (hinge,) = model.elements
    >>> type(hinge).__name__, hinge.name, hinge.body_i, hinge.point.tolist(), hinge.axis.tolist()
    ('RevoluteJoint', 'hinge', 'ground', [0.0, 0.0, 1.0], [0.0, 1.0, 0.0])
    """
    scene = read_mjcf(path, curved_segments=curved_segments)
    return build_model(scene, controls=controls)


def read_mjcf(path, *, curved_segments: int | None = None) -> MjcfScene:
    """Parse an MJCF file into an `MjcfScene` (see `from_mjcf` for the mapping).

    Raises
    ------
    ModelError
        Listing every unsupported element or attribute, one line each.
    """
    if curved_segments is not None and (
            isinstance(curved_segments, bool) or not isinstance(curved_segments, int)
            or curved_segments < 6):
        raise ParameterError(f"`from_mjcf.curved_segments` must be None or an integer >= 6; "
                             f"got {curved_segments!r}.")
    path = os.fspath(path)
    root, lines = _parse(path)
    return _Reader(path, root, lines, curved_segments).read()


def build_model(scene: MjcfScene, *, controls: Mapping[str, float | Callable] | None = None):
    """Build a `SpatialModel` from an `MjcfScene` (see `from_mjcf`)."""
    from . import _elements as el
    from . import _model, _shapes

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
            model.add(el.RevoluteJoint(j.body_i, j.body_j, point=tuple(j.point),
                                       axis=tuple(j.axis), name=j.name))
        elif j.kind == "prismatic":
            model.add(el.PrismaticJoint(j.body_i, j.body_j, point=tuple(j.point),
                                        axis=tuple(j.axis), name=j.name))
        elif j.kind == "spherical":
            model.add(el.SphericalJoint(j.body_i, j.body_j, point=tuple(j.point), name=j.name))
        elif j.kind == "fixed":
            model.add(el.FixedJoint(j.body_i, j.body_j, name=j.name))
        # "free": a body without joint element is free (a FreeJoint element would force the
        # link-system route on a model the volume route can take)
    for act, effort in zip(scene.actuators, efforts):
        model.add(el.JointDriver(act.joint, effort=effort, name=act.name))
    if scene.ground is not None:
        mu = scene.ground["mu"]
        model.add_ground(mu_s=mu, mu_d=mu, height=scene.ground["height"])
    if link:
        for a, b, mu in scene.contacts:
            if a == "ground" and mu == scene.ground["mu"]:
                continue                  # the ground's own coefficient applies
            model.add(el.ContactPair(a, b, mu=mu))
    return model


def _volume_friction(scene: MjcfScene, body_pairs) -> dict:
    """The model's body-body coefficients for the volume route, where every body touches
    the ground and every other body with one coefficient each; a `ModelError` when the file
    needs more."""
    problems = []
    ground_mu = {b: mu for a, b, mu in scene.contacts if a == "ground"}
    if len(set(ground_mu.values())) > 1:
        problems.append("the friction with the ground differs between bodies ("
                        + ", ".join(f"{b}: {m:g}" for b, m in ground_mu.items()) + ")")
    mus = sorted({mu for _, _, mu in body_pairs})
    if len(mus) > 1:
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
    return {"mu_s": mus[0], "mu_d": mus[0]} if mus else {}


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


# --- parsing with line numbers -------------------------------------------------------------

def _parse(path: str):
    """The XML tree of `path` and each element's line number."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise ModelError(f"cannot read the MJCF file {path!r}: {exc.strerror}. Check the "
                         "path.") from None
    builder = ET.TreeBuilder()
    expat = xml.parsers.expat.ParserCreate()
    lines: dict = {}

    def start(tag, attrs):
        lines[builder.start(tag, attrs)] = expat.CurrentLineNumber

    expat.StartElementHandler = start
    expat.EndElementHandler = builder.end
    try:
        expat.Parse(data, True)
    except xml.parsers.expat.ExpatError as exc:
        raise ModelError(f"{path}: not well-formed XML: {exc}. Fix the file.") from None
    root = builder.close()
    if root.tag != "mujoco":
        raise ModelError(f"{path}: the root element is <{root.tag}>, not <mujoco>; this is "
                         "not an MJCF file (URDF: convert it with MuJoCo's compiler).")
    return root, lines


# --- rotations ---------------------------------------------------------------------------

def _quat_mul(a, b):
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return np.array([aw * bw - ax * bx - ay * by - az * bz,
                     aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw])


def _quat_matrix(q):
    w, x, y, z = np.asarray(q, dtype=float) / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def _matrix_quat(r):
    """The unit quaternion (w, x, y, z), w >= 0, of a rotation matrix (Shepperd's method)."""
    r = np.asarray(r, dtype=float)
    tr = np.trace(r)
    k = int(np.argmax([tr, r[0, 0], r[1, 1], r[2, 2]]))
    if k == 0:
        s = 2.0 * math.sqrt(1.0 + tr)
        q = [0.25 * s, (r[2, 1] - r[1, 2]) / s, (r[0, 2] - r[2, 0]) / s, (r[1, 0] - r[0, 1]) / s]
    elif k == 1:
        s = 2.0 * math.sqrt(1.0 + r[0, 0] - r[1, 1] - r[2, 2])
        q = [(r[2, 1] - r[1, 2]) / s, 0.25 * s, (r[0, 1] + r[1, 0]) / s, (r[0, 2] + r[2, 0]) / s]
    elif k == 2:
        s = 2.0 * math.sqrt(1.0 - r[0, 0] + r[1, 1] - r[2, 2])
        q = [(r[0, 2] - r[2, 0]) / s, (r[0, 1] + r[1, 0]) / s, 0.25 * s, (r[1, 2] + r[2, 1]) / s]
    else:
        s = 2.0 * math.sqrt(1.0 - r[0, 0] - r[1, 1] + r[2, 2])
        q = [(r[1, 0] - r[0, 1]) / s, (r[0, 2] + r[2, 0]) / s, (r[1, 2] + r[2, 1]) / s, 0.25 * s]
    q = np.array(q)
    q /= np.linalg.norm(q)
    return -q if q[0] < 0 else q


def _axis_angle_quat(axis, angle):
    axis = np.asarray(axis, dtype=float)
    axis = axis / np.linalg.norm(axis)
    return np.concatenate([[math.cos(angle / 2)], math.sin(angle / 2) * axis])


def _z_to(v):
    """The quaternion of the smallest rotation taking the z axis to the unit vector v."""
    v = np.asarray(v, dtype=float) / np.linalg.norm(v)
    c = float(v[2])
    if c < -1 + 1e-14:
        return np.array([0.0, 1.0, 0.0, 0.0])
    axis = np.array([-v[1], v[0], 0.0])
    n = np.linalg.norm(axis)
    if n < 1e-14:
        return np.array([1.0, 0.0, 0.0, 0.0])
    return _axis_angle_quat(axis / n, math.atan2(n, c))


class _QhullError(Exception):
    """Degenerate mesh vertices (raised in place of scipy's QhullError)."""


def _hull_volume_inertia(points):
    """Volume [m^3], centroid [m] and inertia per unit density about the centroid [m^5] of
    the convex hull of `points`, by a fan of tetrahedra over the hull's triangles."""
    from scipy.spatial import ConvexHull as _Hull

    from scipy.spatial import QhullError

    try:
        hull = _Hull(points)
    except QhullError as exc:
        raise _QhullError(str(exc)) from None
    c0 = points[hull.vertices].mean(axis=0)
    vol = 0.0
    first = np.zeros(3)
    second = np.zeros((3, 3))
    for simplex, eq in zip(hull.simplices, hull.equations):
        a, b, c = points[simplex] - c0
        v = float(np.dot(a, np.cross(b, c))) / 6.0
        if np.dot(np.cross(b - a, c - a), eq[:3]) < 0:    # orient outward
            v = -v
        s = a + b + c
        vol += v
        first += v * s / 4.0
        second += v / 20.0 * (np.outer(a, a) + np.outer(b, b) + np.outer(c, c) + np.outer(s, s))
    centroid_rel = first / vol
    second_c = second - vol * np.outer(centroid_rel, centroid_rel)
    inertia = np.trace(second_c) * np.eye(3) - second_c
    return vol, c0 + centroid_rel, inertia


# --- the reader ----------------------------------------------------------------------------

class _Problems:
    """Every problem found, raised together as one `ModelError`."""

    def __init__(self, path):
        self.path = path
        self.lines: list[str] = []

    def add(self, where: str, message: str) -> None:
        line = f"{where}: {message}"
        if line not in self.lines:
            self.lines.append(line)

    def raise_if_any(self) -> None:
        if self.lines:
            n = len(self.lines)
            # in file order (lines without a number, about the whole file, last)
            self.lines.sort(key=lambda s: int(s.split()[1].rstrip(":"))
                            if s.startswith("line ") else math.inf)
            raise ModelError(
                f"{self.path}: {n} problem{'s' if n > 1 else ''} stickslip cannot import "
                "(stickslip.spatial.from_mjcf maps a subset of MJCF; see its docstring):\n"
                + "\n".join("  " + s for s in self.lines))


@dataclass
class _Frame:
    pos: np.ndarray
    rot: np.ndarray

    def compose(self, pos, rot) -> "_Frame":
        return _Frame(self.pos + self.rot @ pos, self.rot @ rot)


@dataclass
class _Geom:
    where: str
    name: str
    kind: str                  # box, sphere, capsule, cylinder, ellipsoid, mesh, plane
    pos: np.ndarray            # in the body frame (plane: world)
    rot: np.ndarray
    size: np.ndarray
    mass: float
    com: np.ndarray            # centre of mass in the body frame
    inertia: np.ndarray        # about com, body-frame axes
    friction: float
    condim: int
    contype: int
    conaffinity: int
    points: np.ndarray | None = None   # mesh vertices in the geom frame

    @property
    def collides(self) -> bool:
        return self.contype != 0 or self.conaffinity != 0


class _Reader:
    def __init__(self, path, root, lines, curved_segments):
        self.path = path
        self.root = root
        self.lines = lines
        self.curved_segments = curved_segments
        self.problems = _Problems(path)
        self.degree = True
        self.eulerseq = "xyz"
        self.inertiafromgeom = "auto"
        self.autolimits = True
        self.defaults: dict[str, dict[str, dict[str, str]]] = {}
        self.meshes: dict[str, np.ndarray] = {}
        self.bodies: list[MjcfBody] = []
        self.joints: list[MjcfJoint] = []
        self.joint_kinds: dict[str, str] = {}
        self.actuators: list[MjcfActuator] = []
        self.planes: list[_Geom] = []
        self.collision_geoms: list[tuple[str, _Geom]] = []
        self.names: set[str] = set()
        self.static: set[str] = {"ground"}     # bodies welded to the world
        self.weld: dict[str, str] = {"ground": "ground"}   # the body each is welded to
        self.parent: dict[str, str] = {"ground": "ground"}
        self.filterparent = True
        self.body_count = 0
        self.geom_failures = 0
        self.joint_count = 0

    # -- messages
    def where(self, el, context: str = "") -> str:
        name = el.get("name")
        tag = f"<{el.tag} name='{name}'>" if name else f"<{el.tag}>"
        line = self.lines.get(el)
        s = f"line {line}: {tag}" if line else tag
        return s + (f" ({context})" if context else "")

    def problem(self, el, message: str, context: str = "") -> None:
        self.problems.add(self.where(el, context), message)

    # -- attributes
    def attrs(self, el, cls: str | None = None, slot: str | None = None,
              keep=None) -> dict[str, str]:
        """`el`'s attributes over those of its default class (slot: geom, joint, mesh or
        actuator; `keep`: the default attributes that apply, None for all); checks them
        against `_RULES`."""
        merged: dict[str, str] = {}
        if slot is not None:
            name = el.get("class") or cls or "main"
            if name not in self.defaults:
                self.problem(el, f"class '{name}' is not defined in <default>. Define it or "
                                 "remove the class.")
                name = "main"
            inherited = self.defaults.get(name, {}).get(slot, {})
            merged.update({k: v for k, v in inherited.items() if keep is None or k in keep})
        merged.update(el.attrib)
        self.check_attrs(el, merged)
        return merged

    def check_attrs(self, el, attrs: Mapping[str, str]) -> None:
        rule = _RULES.get(el.tag, _Rule())
        for key, value in attrs.items():
            if key in rule.mapped or key in rule.ignored or key == "class":
                continue
            if key in rule.neutral:
                if not _same_value(value, rule.neutral[key]):
                    self.problem(el, f"attribute {key}=\"{value}\" is not supported "
                                     f"({_WHAT.get(key, 'changes the physics')}). "
                                     f"Remove it (stickslip assumes {key}=\"{rule.neutral[key]}\")"
                                     + _LATER.get(key, "."))
                continue
            self.problem(el, f"attribute {key}=\"{value}\" is not supported. Remove it.")

    def floats(self, el, attrs, key, n: int | tuple | str,
               default=None) -> np.ndarray | None:
        """The numbers of attribute `key` (or `default`): `n` a count, a tuple of allowed
        counts, or "points" (a positive multiple of 3, at least 12)."""
        text = attrs.get(key, default)
        if text is None:
            return None
        try:
            arr = np.array([float(s) for s in text.split()])
        except ValueError:
            self.problem(el, f"attribute {key}=\"{text}\" must be numbers.")
            return None
        if n == "points":
            ok = len(arr) >= 12 and len(arr) % 3 == 0
            want = "a multiple of 3 (at least 12)"
        else:
            counts = (n,) if isinstance(n, int) else n
            ok = len(arr) in counts
            want = " or ".join(str(c) for c in counts)
        if not ok or not np.all(np.isfinite(arr)):
            self.problem(el, f"attribute {key}=\"{text}\" must be {want} finite numbers.")
            return None
        return arr

    def angle(self, value: float) -> float:
        return math.radians(value) if self.degree else value

    def orientation(self, el, attrs) -> np.ndarray:
        """The rotation matrix of an element's orientation attributes (identity if none)."""
        given = [k for k in _ORIENT.split() if k in attrs]
        if len(given) > 1:
            self.problem(el, f"has several orientations ({', '.join(given)}); MuJoCo "
                             "rejects this. Keep one.")
            return np.eye(3)
        if not given:
            return np.eye(3)
        key = given[0]
        if key == "quat":
            q = self.floats(el, attrs, key, 4)
            if q is None or np.linalg.norm(q) == 0:
                return np.eye(3)
            return _quat_matrix(q)
        if key == "axisangle":
            a = self.floats(el, attrs, key, 4)
            if a is None or np.linalg.norm(a[:3]) == 0:
                return np.eye(3)
            return _quat_matrix(_axis_angle_quat(a[:3], self.angle(a[3])))
        if key == "xyaxes":
            a = self.floats(el, attrs, key, 6)
            if a is None:
                return np.eye(3)
            y = a[3:] - (a[3:] @ a[:3]) / max(a[:3] @ a[:3], 1e-300) * a[:3]
            if np.linalg.norm(a[:3]) < 1e-12 or np.linalg.norm(y) < 1e-12:
                self.problem(el, f"xyaxes=\"{attrs[key]}\" must be two non-parallel, "
                                 "non-zero axes.")
                return np.eye(3)
            x = a[:3] / np.linalg.norm(a[:3])
            y = y / np.linalg.norm(y)
            return np.column_stack([x, y, np.cross(x, y)])
        if key == "zaxis":
            a = self.floats(el, attrs, key, 3)
            if a is None or np.linalg.norm(a) == 0:
                return np.eye(3)
            return _quat_matrix(_z_to(a))
        a = self.floats(el, attrs, key, 3)        # euler
        if a is None:
            return np.eye(3)
        q = np.array([1.0, 0.0, 0.0, 0.0])
        for ch, ang in zip(self.eulerseq, a):
            axis = np.eye(3)["xyz".index(ch.lower())]
            rot = _axis_angle_quat(axis, self.angle(ang))
            # lower case: axes that rotate with the frame (post-multiply); upper: fixed
            q = _quat_mul(q, rot) if ch.islower() else _quat_mul(rot, q)
        return _quat_matrix(q)

    def pose(self, el, attrs) -> tuple[np.ndarray, np.ndarray]:
        pos = self.floats(el, attrs, "pos", 3, "0 0 0")
        return (np.zeros(3) if pos is None else pos), self.orientation(el, attrs)

    # -- top level
    def read(self) -> MjcfScene:
        root = self.root
        self.check_attrs(root, root.attrib)
        gravity = np.array([0.0, 0.0, -9.81])
        timestep = 0.002
        for el in root:
            if el.tag == "compiler":
                self.read_compiler(el)
        for el in root:
            if el.tag == "default":
                self.read_defaults(el, None)
        if "main" not in self.defaults:
            self.defaults["main"] = {}
        for el in root:
            tag = el.tag
            if tag in ("compiler", "default", "worldbody", "actuator"):
                continue
            if tag == "option":
                g, timestep = self.read_option(el, gravity, timestep)
                gravity = g
            elif tag == "asset":
                self.read_assets(el)
            elif tag in _IGNORED_TAGS:
                continue
            elif tag in _FIX:
                self.problem(el, f"<{tag}> is not supported. {_FIX[tag]}")
            else:
                self.problem(el, f"unknown element <{tag}>. Remove it.")
        for el in root:
            if el.tag == "worldbody":
                self.check_attrs(el, el.attrib)
                origin = _Frame(np.zeros(3), np.eye(3))
                self.read_children(el, origin, origin, "ground", el.get("childclass"),
                                   world=True, geoms=None)
        for el in root:
            if el.tag == "actuator":
                self.read_actuators(el)
        ground, contacts = self.contacts()
        self.problems.raise_if_any()
        return MjcfScene(self.path, gravity, timestep, self.bodies, self.joints,
                         self.actuators, ground, contacts)

    def read_compiler(self, el) -> None:
        a = self.attrs(el)
        angle = a.get("angle", "degree")
        if angle not in ("degree", "radian"):
            self.problem(el, f"angle=\"{angle}\" must be 'degree' or 'radian'.")
        self.degree = angle != "radian"
        seq = a.get("eulerseq", "xyz")
        if len(seq) != 3 or any(c not in "xyzXYZ" for c in seq):
            self.problem(el, f"eulerseq=\"{seq}\" must be three letters from xyzXYZ.")
        else:
            self.eulerseq = seq
        ifg = a.get("inertiafromgeom", "auto")
        if ifg not in ("auto", "true", "false"):
            self.problem(el, f"inertiafromgeom=\"{ifg}\" must be auto, true or false.")
        else:
            self.inertiafromgeom = ifg
        self.autolimits = a.get("autolimits", "true") == "true"
        for child in el:
            if child.tag != "lengthrange":
                self.problem(child, "is not a <compiler> child stickslip knows. Remove it.")

    def read_defaults(self, el, parent: str | None) -> None:
        name = el.get("class", "main" if parent is None else None)
        if name is None:
            self.problem(el, "a nested <default> needs a class name. Add class=\"...\".")
            return
        inherited = self.defaults.get(parent, {}) if parent else {}
        table = {slot: dict(values) for slot, values in inherited.items()}
        for child in el:
            if child.tag == "default":
                continue
            slot = "actuator" if child.tag in _ACTUATOR_TAGS else child.tag
            table.setdefault(slot, {}).update(child.attrib)
        self.defaults[name] = table
        for child in el:
            if child.tag == "default":
                self.read_defaults(child, name)

    def read_option(self, el, gravity, timestep):
        a = self.attrs(el)
        g = self.floats(el, a, "gravity", 3)
        if g is not None:
            gravity = g
        ts = self.floats(el, a, "timestep", 1)
        if ts is not None:
            timestep = float(ts[0])
        for child in el:
            if child.tag != "flag":
                self.problem(child, "is not an <option> child stickslip knows. Remove it.")
                continue
            f = self.attrs(child)
            if f.get("gravity", "enable") == "disable":
                gravity = np.zeros(3)
            self.filterparent = f.get("filterparent", "enable") != "disable"
        return gravity, timestep

    def read_assets(self, el) -> None:
        for child in el:
            if child.tag in _IGNORED_TAGS:
                continue
            if child.tag != "mesh":
                self.problem(child, f"<{child.tag}> is not supported. "
                             + _FIX.get(child.tag, "Remove it."))
                continue
            a = self.attrs(child, slot="mesh")
            name = a.get("name")
            if "file" in a:
                self.problem(child, f"mesh file \"{a['file']}\" is not read: stickslip takes "
                                    "meshes given inline. Give the vertices as vertex=\"...\".")
                continue
            if name is None:
                self.problem(child, "an inline mesh needs a name. Add name=\"...\".")
                continue
            v = self.floats(child, a, "vertex", "points")
            if v is None:
                if "vertex" not in a:
                    self.problem(child, "has no vertex=\"...\". Give at least four points.")
                continue
            if a.get("inertia", "legacy") not in ("legacy", "convex", "exact"):
                self.problem(child, f"inertia=\"{a['inertia']}\" is not supported (a hollow "
                                    "shell). Remove it: for the convex meshes stickslip takes, "
                                    "legacy, convex and exact agree.")
            scale = self.floats(child, a, "scale", 3, "1 1 1")
            pts = v.reshape(-1, 3) * (np.ones(3) if scale is None else scale)
            if "face" in a and not self.mesh_is_convex(child, a, pts):
                continue
            self.meshes[name] = pts

    def mesh_is_convex(self, el, a, pts) -> bool:
        text = a["face"].split()
        try:
            faces = np.array([int(t) for t in text])
        except ValueError:
            faces = None
        if faces is None or len(faces) < 12 or len(faces) % 3:
            self.problem(el, f"face=\"{a['face']}\" must be vertex indices, three per "
                             "triangle (at least 4 triangles).")
            return False
        tri = faces.astype(int).reshape(-1, 3)
        if tri.min() < 0 or tri.max() >= len(pts):
            self.problem(el, "face refers to a vertex that does not exist. Fix face.")
            return False
        p = pts[tri]
        vol = float(np.einsum("ij,ij->i", p[:, 0], np.cross(p[:, 1], p[:, 2])).sum()) / 6.0
        try:
            hull_vol = _hull_volume_inertia(pts)[0]
        except _QhullError:
            self.problem(el, "its vertices are degenerate (coplanar or coincident). Give "
                             "points that span a volume.")
            return False
        if abs(abs(vol) - hull_vol) > 1e-9 * hull_vol:
            self.problem(el, f"is not convex (volume {abs(vol):.6g} m^3, its convex hull "
                             f"{hull_vol:.6g} m^3); stickslip bodies are convex. Split it "
                             "into convex meshes in child bodies.")
            return False
        return True

    # -- bodies
    def new_name(self, el, kind: str, index: int) -> str:
        name = el.get("name") or f"{kind}{index}"
        if name == "ground" or name in self.names:
            self.problem(el, f"the name '{name}' is taken ('ground' is stickslip's world; "
                             "bodies, joints and welds share one namespace). Rename it.")
        self.names.add(name)
        return name

    def read_children(self, el, rel: _Frame, body_frame: _Frame, body: str,
                      cls: str | None, *, world: bool, geoms: list | None) -> None:
        """Read the children of a body or <frame> `el`. `rel` is `el`'s frame relative to
        its body, `body_frame` the body's frame in the world, `body` the stickslip name new
        child bodies attach to. In a body, two passes: `geoms` a list (collect the geoms,
        report stray elements), then `geoms` None (read the child bodies)."""
        collect = world or geoms is not None
        for child in el:
            tag = child.tag
            if tag == "frame":
                a = self.attrs(child) if collect else child.attrib
                pos, rot = self.pose(child, a) if collect else self.pose_quiet(child)
                self.read_children(child, rel.compose(pos, rot), body_frame, body,
                                   a.get("childclass", cls), world=world, geoms=geoms)
            elif tag == "body":
                if world or geoms is None:
                    self.read_body(child, body_frame.compose(rel.pos, rel.rot), body, cls)
            elif not collect:
                continue
            elif tag == "geom":
                g = self.read_geom(child, cls, rel)
                if g is None:
                    continue
                if world:
                    self.world_geom(child, g)
                else:
                    geoms.append(g)
            elif tag in _IGNORED_TAGS:
                continue
            elif tag in ("inertial", "joint", "freejoint"):
                if world:
                    self.problem(child, f"<{tag}> in the world body. Move it into a <body>.")
                elif el.tag == "frame":
                    self.problem(child, f"<{tag}> inside a <frame>. Move it to the body.")
            elif tag in _FIX:
                self.problem(child, f"<{tag}> is not supported. {_FIX[tag]}")
            else:
                self.problem(child, f"unknown element <{tag}>. Remove it.")

    def pose_quiet(self, el):
        """A <frame>'s pose on the second pass (its problems were reported on the first)."""
        saved = self.problems.lines[:]
        out = self.pose(el, el.attrib)
        self.problems.lines = saved
        return out

    def world_geom(self, el, g: _Geom) -> None:
        if g.kind != "plane":
            self.problem(el, f"a {g.kind} geom in the world body: stickslip's only static "
                             "shape is the ground plane. Put it in a <body> (a body without "
                             "joint is welded to the world).")
            return
        if not g.collides:
            return
        if np.linalg.norm(g.rot[:, 2] - np.array([0.0, 0.0, 1.0])) > 1e-9:
            self.problem(el, f"the plane's normal {np.round(g.rot[:, 2], 6).tolist()} is not "
                             "(0, 0, 1): stickslip's ground is horizontal (z up). Rotate the "
                             "model so that the plane is horizontal.")
            return
        self.planes.append(g)
        if len(self.planes) == 2:
            self.problem(el, "a second plane: stickslip has one ground. Keep one plane.")

    def read_body(self, el, parent_frame: _Frame, parent: str, cls: str | None) -> None:
        a = self.attrs(el)
        self.body_count += 1
        name = self.new_name(el, "body", self.body_count)
        cls = a.get("childclass", cls)
        pos, rot = self.pose(el, a)
        frame = parent_frame.compose(pos, rot)
        joints = [c for c in el if c.tag in ("joint", "freejoint")]
        inertials = [c for c in el if c.tag == "inertial"]
        geoms: list[_Geom] = []
        identity = _Frame(np.zeros(3), np.eye(3))
        failures = self.geom_failures
        self.read_children(el, identity, frame, name, cls, world=False, geoms=geoms)
        geoms_ok = self.geom_failures == failures
        kinds = [self.joint_kind(j, cls) for j in joints]
        if len(joints) > 1:
            self.problem(el, f"has {len(joints)} joints; a stickslip joint joins two bodies "
                             "with one joint. Split the body into a chain of child bodies "
                             "with one joint each (each with mass), or use one ball joint.")
        static = not joints and parent in self.static
        mass, inertia, com, com_rot = self.mass_properties(el, inertials, geoms)
        collide = [g for g in geoms if g.collides and g.kind != "plane"]
        if len(collide) > 1:
            self.problem(el, f"has {len(collide)} collision geoms "
                             f"({', '.join(g.name for g in collide)}); a stickslip body "
                             "carries one convex shape. Put each extra geom in a child body "
                             "without joint (welded), or make it visual "
                             "(contype=\"0\" conaffinity=\"0\").")
        shape = self.shape(collide[0], com, com_rot) if collide else None
        if static and shape is None:
            # welded to the world and nothing can touch it: not a stickslip body; its
            # children attach to what it is welded to
            self.read_children(el, identity, frame, parent, cls, world=False, geoms=None)
            return
        if mass <= 0 and geoms_ok:
            self.problem(el, "has no mass (no <inertial>, no geom with volume, or "
                             "inertiafromgeom=\"false\"). Give it an <inertial> or a geom.")
        if mass <= 0:
            mass, inertia = 1.0, np.eye(3)
        self.bodies.append(MjcfBody(
            name=name, mass=float(mass), inertia=inertia,
            position=frame.pos + frame.rot @ com,
            orientation=_matrix_quat(frame.rot @ com_rot), shape=shape,
            friction=collide[0].friction if collide else 1.0,
            condim=collide[0].condim if collide else 3,
            frame_position=frame.pos, frame_rotation=frame.rot))
        if collide:
            self.collision_geoms.append((name, collide[0]))
        self.parent[name] = parent
        self.weld[name] = self.weld[parent] if not joints else name
        if not joints:
            weld = f"{name}.weld"
            if weld in self.names:
                self.problem(el, f"the name '{weld}' (its weld to the parent) is taken. "
                                 "Rename the body or the other element.")
            self.names.add(weld)
            self.joints.append(MjcfJoint("fixed", weld, parent, name))
            if static:
                self.static.add(name)
        elif len(joints) == 1 and kinds[0] != "free":
            self.read_joint(joints[0], cls, frame, parent, name)
        elif len(joints) == 1:
            self.joint_count += 1
            self.check_attrs(joints[0], joints[0].attrib)
            if joints[0].get("name"):
                self.new_name(joints[0], "joint", self.joint_count)
            self.joints.append(MjcfJoint("free", joints[0].get("name"), "ground", name))
        self.read_children(el, identity, frame, name, cls, world=False, geoms=None)

    def joint_kind(self, el, cls) -> str:
        if el.tag == "freejoint":
            return "free"
        name = el.get("class") or cls or "main"
        return el.get("type", self.defaults.get(name, {}).get("joint", {}).get("type", "hinge"))

    def read_joint(self, el, cls, frame: _Frame, parent: str, body: str) -> None:
        a = {**_JOINT_DEFAULTS, **self.attrs(el, cls, slot="joint")}
        self.joint_count += 1
        name = self.new_name(el, "joint", self.joint_count)
        kind = {"hinge": "revolute", "slide": "prismatic", "ball": "spherical"}.get(a["type"])
        if kind is None:
            self.problem(el, f"type=\"{a['type']}\" is not hinge, slide, ball or free.")
            return
        for lim, rng in (("limited", "range"), ("actuatorfrclimited", "actuatorfrcrange")):
            if _limited(a, lim, rng, self.autolimits):
                what = "joint limits" if lim == "limited" else "joint actuator-force limits"
                self.problem(el, f"{rng}=\"{a.get(rng, '')}\" with {lim}=\"{a[lim]}\": "
                                 f"{what} are not supported. Remove {rng} (or set "
                                 f"{lim}=\"false\").")
        pos = self.floats(el, a, "pos", 3)
        axis = self.floats(el, a, "axis", 3)
        if pos is None or axis is None:
            return
        if np.linalg.norm(axis) < 1e-12:
            self.problem(el, "axis is zero. Give a direction.")
            return
        point = frame.pos + frame.rot @ pos
        w_axis = frame.rot @ (axis / np.linalg.norm(axis))
        self.joints.append(MjcfJoint(kind, name, parent, body, point,
                                     None if kind == "spherical" else w_axis))
        self.joint_kinds[name] = kind

    # -- geoms and mass
    def read_geom(self, el, cls, rel: _Frame) -> _Geom | None:
        """A geom, posed in its body's frame (`rel`: the frame it is written in, relative to
        the body; for the world body, the world); None (counted) when it cannot be read."""
        g = self._read_geom(el, cls, rel)
        if g is None:
            self.geom_failures += 1
        return g

    def _read_geom(self, el, cls, rel: _Frame) -> _Geom | None:
        a = {**_GEOM_DEFAULTS, **self.attrs(el, cls, slot="geom")}
        kind = a["type"]
        name = a.get("name") or f"geom at line {self.lines.get(el)}"
        if kind in ("hfield", "sdf"):
            self.problem(el, f"type=\"{kind}\" is not supported. Use a plane, box, sphere "
                             "or convex mesh.")
            return None
        if kind not in ("plane", "box", "sphere", "capsule", "cylinder", "ellipsoid", "mesh"):
            self.problem(el, f"type=\"{kind}\" is not a geom type stickslip knows.")
            return None
        size = self.floats(el, a, "size", (1, 2, 3))
        friction = self.floats(el, a, "friction", (1, 2, 3))
        condim = a["condim"]
        try:
            condim_i, contype, conaff = int(condim), int(a["contype"]), int(a["conaffinity"])
        except ValueError:
            self.problem(el, "condim, contype and conaffinity must be integers.")
            return None
        if size is None or friction is None:
            return None
        if condim_i not in (1, 3):
            self.problem(el, f"condim=\"{condim}\": torsional and rolling friction are not "
                             "modelled. Use condim=\"3\" (or \"1\", frictionless).")
        if "fromto" in a:
            if kind not in ("capsule", "cylinder"):
                self.problem(el, f"fromto on a {kind} geom is not supported. Give pos, quat "
                                 "and size instead.")
                return None
            ft = self.floats(el, a, "fromto", 6)
            if ft is None:
                return None
            d = ft[3:] - ft[:3]
            if np.linalg.norm(d) < 1e-12:
                self.problem(el, "fromto has zero length.")
                return None
            pos, rot = (ft[:3] + ft[3:]) / 2, _quat_matrix(_z_to(d))
            size = np.array([size[0], np.linalg.norm(d) / 2])
        else:
            pos, rot = self.pose(el, a)
        pos, rot = rel.pos + rel.rot @ pos, rel.rot @ rot
        need = {"box": 3, "sphere": 1, "capsule": 2, "cylinder": 2, "ellipsoid": 3,
                "mesh": 0, "plane": 0}[kind]
        if len(size) < need or np.any(size[:need] <= 0):
            self.problem(el, f"a {kind} needs {need} positive size values; got "
                             f"size=\"{a['size']}\".")
            return None
        g = _Geom(self.where(el), name, kind, pos, rot, size, 0.0, pos.copy(), np.zeros((3, 3)),
                  float(friction[0]), condim_i, contype, conaff)
        if kind == "plane":
            return g
        points = None
        if kind == "mesh":
            mesh = a.get("mesh")
            if mesh is None or mesh not in self.meshes:
                if mesh is None or not any(m.get("name") == mesh for m in
                                           self.root.iter("mesh")):
                    self.problem(el, f"refers to mesh '{mesh}', which <asset> does not "
                                     "define. Define it with vertex=\"...\".")
                return None
            points = self.meshes[mesh]
            try:
                volume, centroid, unit_inertia = _hull_volume_inertia(points)
            except _QhullError:
                self.problem(el, f"mesh '{mesh}' is degenerate (coplanar or coincident "
                                 "vertices). Give points that span a volume.")
                return None
        else:
            volume, unit_inertia = _primitive(kind, size)
            centroid = np.zeros(3)
        g.points = points
        if "mass" in a:
            m = self.floats(el, a, "mass", 1)
            mass = 0.0 if m is None else float(m[0])
            density = mass / volume
        else:
            d = self.floats(el, a, "density", 1)
            density = 1000.0 if d is None else float(d[0])
            mass = density * volume
        g.mass = mass
        g.com = pos + rot @ centroid
        g.inertia = density * rot @ unit_inertia @ rot.T
        return g

    def mass_properties(self, el, inertials, geoms):
        """Mass, inertia about the centre of mass (in the centre-of-mass frame), the centre
        of mass and the rotation of the centre-of-mass frame, both in the body frame."""
        use_inertial = inertials and self.inertiafromgeom != "true"
        if len(inertials) > 1:
            self.problem(inertials[1], "a second <inertial>. Keep one.")
        if use_inertial:
            iel = inertials[0]
            ia = self.attrs(iel)
            if "pos" not in ia or "mass" not in ia:
                self.problem(iel, "needs pos and mass (MuJoCo requires them).")
                return 0.0, np.eye(3), np.zeros(3), np.eye(3)
            pos, rot = self.pose(iel, ia)
            m = self.floats(iel, ia, "mass", 1)
            mass = 0.0 if m is None else float(m[0])
            if "diaginertia" in ia and "fullinertia" in ia:
                self.problem(iel, "has both diaginertia and fullinertia. Keep one.")
            if "fullinertia" in ia:
                f = self.floats(iel, ia, "fullinertia", 6)
                if any(k in ia for k in _ORIENT.split()):
                    self.problem(iel, "fullinertia with an orientation; MuJoCo rejects this. "
                                      "Remove the orientation (fullinertia is in the body "
                                      "frame).")
                inertia = np.eye(3) if f is None else np.array(
                    [[f[0], f[3], f[4]], [f[3], f[1], f[5]], [f[4], f[5], f[2]]])
            elif "diaginertia" in ia:
                d = self.floats(iel, ia, "diaginertia", 3)
                inertia = np.eye(3) if d is None else np.diag(d)
            else:
                self.problem(iel, "needs diaginertia or fullinertia.")
                inertia = np.eye(3)
            return mass, inertia, pos, rot
        if inertials and self.inertiafromgeom == "true":
            self.check_attrs(inertials[0], inertials[0].attrib)
        for g in geoms:
            if g.kind == "plane":
                self.problems.add(g.where, "a plane inside a body: the ground plane belongs "
                                           "to the world body. Move it there.")
        if self.inertiafromgeom == "false" or not geoms:
            return 0.0, np.eye(3), np.zeros(3), np.eye(3)
        massive = [g for g in geoms if g.kind != "plane"]
        mass = float(sum(g.mass for g in massive))
        if mass <= 0:
            return 0.0, np.eye(3), np.zeros(3), np.eye(3)
        com = sum(g.mass * g.com for g in massive) / mass
        inertia = np.zeros((3, 3))
        for g in massive:
            d = g.com - com
            inertia += g.inertia + g.mass * (d @ d * np.eye(3) - np.outer(d, d))
        return mass, inertia, com, np.eye(3)

    def shape(self, g: _Geom, com: np.ndarray, com_rot: np.ndarray) -> MjcfShape | None:
        """The collision shape of geom `g` in the centre-of-mass frame (com, com_rot)."""
        rot = com_rot.T @ g.rot
        off = com_rot.T @ (g.pos - com)
        if g.kind == "box":
            return MjcfShape("box", g.name, tuple(float(s) for s in g.size[:3]), rot, off)
        if g.kind == "sphere":
            return MjcfShape("sphere", g.name, (float(g.size[0]),), np.eye(3), off)
        if g.kind == "mesh":
            return MjcfShape("hull", g.name, points=g.points @ rot.T + off)
        if self.curved_segments is None:
            self.problem_geom(g, f"a {g.kind} collision geom: stickslip shapes are convex "
                                 "polyhedra and spheres. Pass curved_segments=n to "
                                 "approximate it by a convex hull, make it visual "
                                 "(contype=\"0\" conaffinity=\"0\"), or replace it by a box "
                                 "or mesh.")
            return None
        pts = _curved_points(g.kind, g.size, self.curved_segments)
        return MjcfShape("hull", g.name, points=pts @ rot.T + off)

    def problem_geom(self, g: _Geom, message: str) -> None:
        self.problems.add(g.where, message)

    # -- actuators
    def read_actuators(self, el) -> None:
        self.check_attrs(el, el.attrib)
        for i, child in enumerate(el):
            tag = child.tag
            if tag != "motor":
                fix = _ACTUATOR_FIX.get(tag, "only <motor> maps onto stickslip (a "
                                             "JointDriver with an effort). Replace it by a "
                                             "<motor>, or remove it.")
                self.problem(child, f"<{tag}> actuators are not supported: {fix}")
                continue
            a = {**_MOTOR_DEFAULTS, **self.attrs(child, None, slot="actuator",
                                                 keep=_RULES["motor"].mapped
                                                 | _RULES["motor"].ignored | {"delay"})}
            for t in ("tendon", "site", "body", "cranksite", "slidersite", "refsite",
                      "jointinparent"):
                if t in child.attrib:
                    self.problem(child, f"the {t} transmission is not supported; stickslip "
                                        "motors act on a joint. Use joint=\"...\".")
            joint = a.get("joint")
            if joint is None:
                if not any(t in child.attrib for t in ("tendon", "site", "body")):
                    self.problem(child, "has no joint=\"...\".")
                continue
            if joint not in self.joint_kinds:
                self.problem(child, f"joint '{joint}' is not a hinge or slide joint of this "
                                    "model (motors on ball, free or unknown joints are not "
                                    "supported).")
                continue
            # a hinge or slide uses gear[0] only (MuJoCo ignores the rest)
            gear = self.floats(child, a, "gear", tuple(range(1, 7)))
            name = a.get("name") or f"actuator{i}"
            ranges = []
            for lim, rng in (("ctrllimited", "ctrlrange"), ("forcelimited", "forcerange")):
                if not _limited(a, lim, rng, self.autolimits):
                    ranges.append(None)
                    continue
                r = self.floats(child, a, rng, 2)
                if r is None or r[0] > r[1]:
                    if r is not None:
                        self.problem(child, f"{rng}=\"{a[rng]}\" must be low <= high.")
                    ranges.append(None)
                else:
                    ranges.append((float(r[0]), float(r[1])))
            if self.joint_kinds[joint] == "spherical":
                continue
            self.actuators.append(MjcfActuator(name, joint, 1.0 if gear is None else
                                               float(gear[0]), ranges[0], ranges[1]))

    # -- contacts
    def contacts(self):
        """The ground and the contact pairs MuJoCo would collide, with their friction: the
        larger sliding coefficient of the two geoms (0 when the larger condim is 1).

        MuJoCo's filter: geoms of bodies welded together (the same weld group; all static
        bodies are one group with the world) never touch; with <flag filterparent> on (the
        default) a body does not touch its parent (weld groups, the world excepted); and
        contype/conaffinity must match."""
        ground = None
        pairs: list[tuple[str, str, float]] = []
        if self.planes:
            plane = self.planes[0]
            for body, g in self.collision_geoms:
                if self.weld[body] == "ground":
                    continue                    # static: MuJoCo never collides it
                if not _collide(plane, g):
                    self.problems.add(g.where, f"its contype/conaffinity exclude contact with "
                                               f"the plane '{plane.name}', but stickslip's "
                                               "ground touches every body with a shape. "
                                               "Make the masks match, or make it visual.")
                pairs.append(("ground", body, _pair_mu(plane, g)))
            mus = [mu for _, _, mu in pairs]
            mu = (max(sorted(set(mus)), key=mus.count) if mus      # ties: the smallest
                  else (plane.friction if plane.condim != 1 else 0.0))
            ground = {"height": float(plane.pos[2]), "mu": float(mu), "geom": plane.name}
        geoms = self.collision_geoms
        for i in range(len(geoms)):
            for j in range(i + 1, len(geoms)):
                (a, ga), (b, gb) = geoms[i], geoms[j]
                if _collide(ga, gb) and not self.filtered(a, b):
                    pairs.append((a, b, _pair_mu(ga, gb)))
        return ground, pairs

    def filtered(self, a: str, b: str) -> bool:
        """Whether MuJoCo's body filter keeps bodies a and b from touching."""
        wa, wb = self.weld[a], self.weld[b]
        if wa == wb:
            return True
        if not self.filterparent or "ground" in (wa, wb):
            return False
        return wa == self.weld[self.parent[wb]] or wb == self.weld[self.parent[wa]]


def _collide(a: _Geom, b: _Geom) -> bool:
    """MuJoCo's collision filter: contype of one against conaffinity of the other."""
    return bool((a.contype & b.conaffinity) or (b.contype & a.conaffinity))


def _pair_mu(a: _Geom, b: _Geom) -> float:
    return 0.0 if max(a.condim, b.condim) == 1 else max(a.friction, b.friction)


def _limited(a: Mapping[str, str], lim: str, rng: str, autolimits: bool) -> bool:
    """Whether a range applies: limited="true", or "auto" with the range given and
    <compiler autolimits> on (MuJoCo's rule)."""
    value = a.get(lim, "auto")
    return value == "true" or (value == "auto" and autolimits and rng in a)


_ACTUATOR_TAGS = frozenset({"general", "motor", "position", "velocity", "intvelocity",
                            "damper", "cylinder", "muscle", "adhesion", "dcmotor", "pid",
                            "plugin"})

_WHAT = {
    "springdamper": "a joint spring-damper", "stiffness": "a joint spring",
    "armature": "rotor inertia added to the joint", "damping": "joint damping",
    "frictionloss": "constant joint friction", "ref": "a joint reference angle",
    "springref": "a joint spring's rest position",
    "actuatorgravcomp": "gravity compensation by the actuators",
    "priority": "which geom's contact parameters win", "solmix": "mixing of contact softness",
    "solref": "contact softness", "solimp": "contact softness", "margin": "contact margin",
    "gap": "contact gap", "shellinertia": "a hollow shell's inertia",
    "fluidshape": "fluid forces", "mocap": "a body moved by the user",
    "gravcomp": "gravity compensation", "wind": "wind", "density": "a medium's density",
    "viscosity": "a medium's viscosity", "boundmass": "a lower bound on masses",
    "boundinertia": "a lower bound on inertias", "settotalmass": "mass rescaling",
    "balanceinertia": "inertia repair", "discardvisual": "dropping visual geoms' mass",
    "coordinate": "global coordinates", "inertiagrouprange": "geoms left out of the mass",
    "refpos": "a mesh reference frame", "refquat": "a mesh reference frame",
    "inertia": "a mesh inertia mode", "delay": "an actuator delay",
    "constraint": "constraints on/off", "equality": "equality constraints on/off",
"limit": "limits on/off", "contact": "contacts on/off",
    "passive": "passive forces on/off", "spring": "springs on/off",
    "damper": "dampers on/off", "clampctrl": "control clamping on/off",
    "filterparent": "parent-child collision filtering",
    "actuation": "actuators on/off", "override": "contact parameter override",
}

_LATER = {
    "damping": ", or add a rotational damper after loading.",
    "frictionloss": ", or give the stickslip joint a friction law (friction=) after "
                    "loading.",
    "stiffness": ", or add a spring after loading.",
}


def _same_value(value: str, default: str) -> bool:
    try:
        a = np.array([float(s) for s in value.split()])
        b = np.array([float(s) for s in default.split()])
        n = len(a)
        return 0 < n <= len(b) and bool(np.all(a == b[:n]))
    except ValueError:
        return value.strip().lower() == default.strip().lower()


def _primitive(kind: str, size) -> tuple[float, np.ndarray]:
    """Volume [m^3] and inertia per unit density [m^5] about the centre, geom axes, of a
    primitive (MuJoCo's formulas; size as in MJCF: half extents, radius, half length)."""
    if kind == "box":
        x, y, z = size[:3]
        v = 8 * x * y * z
        return v, v / 3 * np.diag([y * y + z * z, x * x + z * z, x * x + y * y])
    if kind == "sphere":
        r = size[0]
        v = 4 / 3 * math.pi * r ** 3
        return v, 0.4 * v * r * r * np.eye(3)
    if kind == "ellipsoid":
        a, b, c = size[:3]
        v = 4 / 3 * math.pi * a * b * c
        return v, v / 5 * np.diag([b * b + c * c, a * a + c * c, a * a + b * b])
    r, h = size[0], size[1]
    length = 2 * h
    vc = math.pi * r * r * length
    if kind == "cylinder":
        return vc, np.diag([vc * (3 * r * r + length * length) / 12] * 2 + [vc * r * r / 2])
    vs = 4 / 3 * math.pi * r ** 3                         # capsule: cylinder + two caps
    ixx = vc * (length ** 2 / 12 + r * r / 4) + vs * (0.4 * r * r + length ** 2 / 4
                                                     + 3 * length * r / 8)
    return vc + vs, np.diag([ixx, ixx, vc * r * r / 2 + vs * 0.4 * r * r])


def _curved_points(kind: str, size, n: int) -> np.ndarray:
    """Points on a capsule, cylinder or ellipsoid (geom frame) whose convex hull
    approximates it: `n` points around each circle, inscribed."""
    phi = 2 * math.pi * np.arange(n) / n
    ring = np.column_stack([np.cos(phi), np.sin(phi), np.zeros(n)])
    if kind == "cylinder":
        r, h = size[0], size[1]
        return np.vstack([ring * r + [0, 0, -h], ring * r + [0, 0, h]])
    rings = max(2, n // 4)
    theta = np.linspace(0, math.pi / 2, rings + 1)[1:-1]   # latitudes strictly between
    if kind == "capsule":
        r, h = size[0], size[1]
        pts = [ring * r + [0, 0, -h], ring * r + [0, 0, h], [[0, 0, h + r]], [[0, 0, -h - r]]]
        for t in theta:
            circle = ring * (r * math.cos(t))
            pts += [circle + [0, 0, h + r * math.sin(t)], circle + [0, 0, -h - r * math.sin(t)]]
        return np.vstack(pts)
    a, b, c = size[:3]                                    # ellipsoid
    pts = [ring, [[0, 0, 1]], [[0, 0, -1]]]
    for t in theta:
        pts += [ring * math.cos(t) + [0, 0, math.sin(t)], ring * math.cos(t) - [0, 0,
                                                                               math.sin(t)]]
    return np.vstack(pts) * [a, b, c]
