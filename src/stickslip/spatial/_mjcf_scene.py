"""What `read_mjcf` returns (see `_mjcf`): plain data in stickslip's terms, the bodies,
joints, actuators, ground and contact pairs of an MJCF file."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

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
