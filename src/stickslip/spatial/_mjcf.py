"""Read a MuJoCo MJCF file into a `SpatialModel` `from_mjcf`.

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

The reader is layered, each module importing only the ones before it: `_mjcf_scene` (the
data classes), `_mjcf_rules` (what each element may carry), `_mjcf_rotations`,
`_mjcf_attrs` (parsing, messages, attributes and poses), `_mjcf_mass` (geoms, mass and
inertia), `_mjcf_bodies` (the body tree, joints and contacts), `_mjcf_read` (the walk over
the file) and `_mjcf_build` (the scene into a `SpatialModel`).
"""

from __future__ import annotations

import os
from typing import Callable, Mapping

from ..errors import ParameterError
from ._mjcf_attrs import _parse
from ._mjcf_build import build_model
from ._mjcf_read import _Reader
from ._mjcf_scene import MjcfActuator, MjcfBody, MjcfJoint, MjcfScene, MjcfShape

__all__ = ["from_mjcf", "read_mjcf", "build_model", "MjcfScene", "MjcfBody", "MjcfJoint",
           "MjcfActuator", "MjcfShape"]


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
    - ``<geom type="plane">`` in the world body, horizontal → ``add_ground(mu_s=μ, mu_k=μ,
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
