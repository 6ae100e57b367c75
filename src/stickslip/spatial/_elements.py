"""Elements of a spatial link system: joints, joint drivers, applied loads, spring–dampers
and point-contact pairs (the host-side descriptions a user adds with ``SpatialModel.add``).

Every element names its bodies by the names given to ``SpatialModel.add_body`` (``"ground"``
is the world) and gives points and axes **in world coordinates at the initial pose**; the
model turns them into body-fixed anchors when it freezes (``SpatialModel.link_system``).
A value that may vary in time is a number (constant; traced, so a new value does not
recompile) or a function of t [s] written with ``jax.numpy`` (static: part of the compiled
program).

Joints and the rows they remove (SPEC §9 in 3-D; r^P = r + R s' the world position of a
body point s' of the body frame, u the joint axis, e₁, e₂ ⟂ u fixed on body i):

* :class:`RevoluteJoint` — 5 rows: r_j^P − r_i^P = 0 and (R_i e_k)·(R_j u_j) = 0, k = 1, 2;
  coordinate: the angle of j about u relative to i [rad].
* :class:`PrismaticJoint` — 5 rows: (R_i e_k)·(r_j^P − r_i^P) = 0 and the relative rotation
  locked; coordinate: the slide (r_j^P − r_i^P)·u [m].
* :class:`SphericalJoint` — 3 rows: r_j^P − r_i^P = 0.
* :class:`FixedJoint` — 6 rows: the point rows and the relative rotation locked.
* :class:`FreeJoint` — no row (a body with no joint is free; this element only documents it,
  e.g. for an imported model).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar

import numpy as np

from .._rules import check_friction_pair
from .._validation import check_nonnegative, check_positive, keyword_alias
from ..errors import ParameterError

__all__ = ["RevoluteJoint", "PrismaticJoint", "SphericalJoint", "FixedJoint", "FreeJoint", "STATIC_SPEED",
           "JointDriver", "PointForce", "BodyTorque", "SpringDamper", "ContactPair",
           "AbstractJoint", "body_name", "time_value", "JOINT_ROW_COUNTS"]


def body_name(owner: str, name: str, value: Any) -> str:
    """A body reference as its name: a string, or anything with a ``name`` string."""
    value = getattr(value, "name", value)
    if not isinstance(value, str) or not value:
        raise ParameterError(f"`{owner}.{name}` must be a body name (a string; 'ground' for "
                             f"the world); got {value!r}.")
    return value


def vector3(owner: str, name: str, value: Any, *, unit: bool = False) -> np.ndarray:
    """`value` as 3 finite floats (normalised with `unit`)."""
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ParameterError(f"`{owner}.{name}` must be 3 finite numbers; got {value!r}."
                             ) from None
    if arr.shape != (3,) or not np.all(np.isfinite(arr)):
        raise ParameterError(f"`{owner}.{name}` must be 3 finite numbers (x, y, z); got "
                             f"{value!r}.")
    if unit:
        n = np.linalg.norm(arr)
        if n < 1e-12:
            raise ParameterError(f"`{owner}.{name}` must be a non-zero direction; got "
                                 f"{value!r}. Give the axis as a vector such as (0, 0, 1).")
        arr = arr / n
    return arr


def time_value(owner: str, name: str, value: Any, shape: tuple = ()) -> Any:
    """A number/vector (returned as a float array) or a callable of t (returned as is)."""
    if callable(value) and not hasattr(value, "shape"):
        return value
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ParameterError(f"`{owner}.{name}` must be a number, {shape or 'a scalar'} "
                             f"array or a function of t; got {value!r}.") from None
    if arr.shape != shape or not np.all(np.isfinite(arr)):
        what = "a finite number" if shape == () else f"{shape[0]} finite numbers"
        raise ParameterError(f"`{owner}.{name}` must be {what} or a function of t [s]; got "
                             f"{value!r}.")
    return arr


def _joint_name(kind: str, name: Any) -> str | None:
    if name is None:
        return None
    if not isinstance(name, str) or not name:
        raise ParameterError(f"`{kind}.name` must be a non-empty string; got {name!r}.")
    return name


class AbstractJoint:
    """A joint between body i and body j (``"ground"`` allowed for either, not both).

    ``rows`` (class variable): the number of constraint rows it adds; ``coordinate``: the
    name of its channel (``"angle"`` [rad], ``"position"`` [m]) or None.
    """

    rows: ClassVar[int]
    coordinate: ClassVar[str | None] = None
    kind: ClassVar[str]
    body_i: str
    body_j: str
    name: str | None

    def _check_bodies(self):
        if self.body_i == self.body_j:
            raise ParameterError(f"`{self.kind}` {self.name or ''} joins body {self.body_i!r} "
                                 "to itself. Name two different bodies (or 'ground').")

    @property
    def friction_law(self):
        return getattr(self, "friction", None)

    def _set_axis_joint(self, body_i, body_j, point, axis, name, friction):
        """The fields every joint with an axis has, checked (revolute, prismatic)."""
        k = self.kind
        set_ = object.__setattr__
        set_(self, "body_i", body_name(k, "body_i", body_i))
        set_(self, "body_j", body_name(k, "body_j", body_j))
        set_(self, "point", vector3(k, "point", point))
        set_(self, "axis", vector3(k, "axis", axis, unit=True))
        set_(self, "name", _joint_name(k, name))
        set_(self, "friction", _friction(k, friction))
        self._check_bodies()


def _friction(kind: str, friction: Any):
    if friction is None:
        return None
    from ..laws._base import AbstractFrictionLaw

    if not isinstance(friction, AbstractFrictionLaw):
        raise ParameterError(f"`{kind}.friction` must be a friction law such as "
                             f"ss.laws.CoulombODE(mu=0.1, K=..., beta=...) or ss.laws.LuGre(...); "
                             f"got {type(friction).__name__}.")
    return friction


@dataclass(frozen=True, init=False)
class RevoluteJoint(AbstractJoint):
    """A hinge: body j turns about `axis` through `point` relative to body i (5 rows).

    Parameters
    ----------
    body_i, body_j
        body names (``"ground"``: the world).
    point
        a point on the axis [m], world coordinates at the initial pose.
    axis
        the axis direction (world, initial pose); its sign sets the angle's sign.
    name
        channel prefix (default ``"<body_i>-<body_j>"``): ``<name>.angle`` [rad],
        ``<name>.rate`` [rad/s], reactions ``<name>.fx`` … ``<name>.tz`` (on body j, world
        frame, about the joint point) and, with friction, ``<name>.friction`` [N·m] and
        ``<name>.normal``.
    friction
        a friction law (``ss.laws.CoulombODE`` with ``F=`` a torque level [N·m], or
        ``mu=``: then its level is μ·a·N, SPEC §9 9-2 in 3-D, N the pin's radial load).
    pin_radius : float, optional
        a [m], the pin radius that turns the radial load into the normal force
        a·N the law sees (needed with a load-dependent law).
    """

    body_i: str
    body_j: str
    point: np.ndarray
    axis: np.ndarray
    name: str | None
    friction: Any
    pin_radius: float
    rows: ClassVar[int] = 5
    coordinate: ClassVar[str] = "angle"
    kind: ClassVar[str] = "RevoluteJoint"

    def __init__(self, body_i, body_j, *, point, axis, name=None, friction=None,
                 pin_radius: float = 0.0):
        k = self.kind
        self._set_axis_joint(body_i, body_j, point, axis, name, friction)
        check_nonnegative(k, "pin_radius", pin_radius)
        object.__setattr__(self, "pin_radius", float(pin_radius))
        if self.friction is not None and getattr(self.friction, "mu", None) is not None \
                and self.pin_radius == 0.0:
            raise ParameterError(f"`{k}.pin_radius` must be > 0 [m] with a load-dependent "
                                 f"friction law (mu=...): the friction torque is μ·a·N. Pass "
                                 "pin_radius=..., or a law with a fixed level F= [N·m].")
        self._check_bodies()


@dataclass(frozen=True, init=False)
class PrismaticJoint(AbstractJoint):
    """A slider: body j translates along `axis` relative to body i, relative rotation
    locked (5 rows).

    point: a point on the line [m] (world, initial pose); axis: its direction. Channels
    ``<name>.position`` [m], ``<name>.rate`` [m/s], reactions and, with friction,
    ``<name>.friction`` [N] (the law sees N = the reaction's magnitude normal to the axis).
    """

    body_i: str
    body_j: str
    point: np.ndarray
    axis: np.ndarray
    name: str | None
    friction: Any
    rows: ClassVar[int] = 5
    coordinate: ClassVar[str] = "position"
    kind: ClassVar[str] = "PrismaticJoint"

    def __init__(self, body_i, body_j, *, point, axis, name=None, friction=None):
        self._set_axis_joint(body_i, body_j, point, axis, name, friction)


@dataclass(frozen=True, init=False)
class SphericalJoint(AbstractJoint):
    """A ball joint at `point` [m] (world, initial pose): 3 rows."""

    body_i: str
    body_j: str
    point: np.ndarray
    name: str | None
    rows: ClassVar[int] = 3
    kind: ClassVar[str] = "SphericalJoint"

    def __init__(self, body_i, body_j, *, point, name=None):
        k = self.kind
        object.__setattr__(self, "body_i", body_name(k, "body_i", body_i))
        object.__setattr__(self, "body_j", body_name(k, "body_j", body_j))
        object.__setattr__(self, "point", vector3(k, "point", point))
        object.__setattr__(self, "name", _joint_name(k, name))
        self._check_bodies()


@dataclass(frozen=True, init=False)
class FixedJoint(AbstractJoint):
    """A weld: body j keeps its initial pose relative to body i (6 rows). The reaction is
    reported about `point` (default: body j's centre of mass)."""

    body_i: str
    body_j: str
    name: str | None
    point: np.ndarray | None
    rows: ClassVar[int] = 6
    kind: ClassVar[str] = "FixedJoint"

    def __init__(self, body_i, body_j, *, name=None, point=None):
        k = self.kind
        object.__setattr__(self, "body_i", body_name(k, "body_i", body_i))
        object.__setattr__(self, "body_j", body_name(k, "body_j", body_j))
        object.__setattr__(self, "name", _joint_name(k, name))
        object.__setattr__(self, "point", None if point is None else vector3(k, "point", point))
        self._check_bodies()


@dataclass(frozen=True, init=False)
class FreeJoint(AbstractJoint):
    """A free body (6 DOF): no constraint row. A body without a joint is already free; the
    element records it (an imported model's ``<freejoint>``)."""

    body_i: str
    body_j: str
    name: str | None
    rows: ClassVar[int] = 0
    kind: ClassVar[str] = "FreeJoint"

    def __init__(self, body, *, name=None):
        object.__setattr__(self, "body_i", "ground")
        object.__setattr__(self, "body_j", body_name(self.kind, "body", body))
        object.__setattr__(self, "name", _joint_name(self.kind, name))
        self._check_bodies()


@dataclass(frozen=True, init=False)
class JointDriver:
    """Drives a revolute or prismatic joint's coordinate: exactly one of

    position: the angle [rad] / slide [m] as a number or function of t (a constraint row);
    velocity: its rate [rad/s] / [m/s] (a constraint row on the rate; the coordinate follows
        the integral from its initial value);
    effort: a torque [N·m] / force [N] on body j about/along the axis (−effort on body i).

    Functions of t must be written with ``jax.numpy`` (they are traced; a position driver
    differentiates its function twice with ``jax.jvp``).
    """

    joint: str
    mode: str
    value: Any
    name: str | None

    def __init__(self, joint, *, position=None, velocity=None, effort=None, name=None):
        if isinstance(joint, AbstractJoint):      # the joint itself: its (default) name
            joint = joint.name or f"{joint.body_i}-{joint.body_j}"
        if not isinstance(joint, str) or not joint:
            raise ParameterError(f"`JointDriver.joint` must be a joint's name (give the joint "
                                 f"a name=...); got {joint!r}.")
        given = [(m, v) for m, v in (("position", position), ("velocity", velocity),
                                     ("effort", effort)) if v is not None]
        if len(given) != 1:
            raise ParameterError(f"`JointDriver` on joint {joint!r} needs exactly one of "
                                 "position=, velocity=, effort=; got "
                                 f"{[m for m, _ in given] or 'none'}.")
        mode, value = given[0]
        object.__setattr__(self, "joint", joint)
        object.__setattr__(self, "mode", mode)
        object.__setattr__(self, "value", time_value("JointDriver", mode, value))
        object.__setattr__(self, "name", _joint_name("JointDriver", name))


@dataclass(frozen=True, init=False)
class PointForce:
    """A force [N] (world frame; a 3-vector or a function of t returning one) on `body` at
    the body-fixed `point` [m] (body frame; default the centre of mass)."""

    body: str
    force: Any
    point: np.ndarray
    name: str | None

    def __init__(self, body, *, force, point=(0.0, 0.0, 0.0), name=None):
        object.__setattr__(self, "body", body_name("PointForce", "body", body))
        object.__setattr__(self, "force", time_value("PointForce", "force", force, (3,)))
        object.__setattr__(self, "point", vector3("PointForce", "point", point))
        object.__setattr__(self, "name", _joint_name("PointForce", name))
        if self.body == "ground":
            raise ParameterError("`PointForce.body` must be a body, not 'ground'.")


@dataclass(frozen=True, init=False)
class BodyTorque:
    """A torque [N·m] (world frame; a 3-vector or a function of t) on `body`."""

    body: str
    torque: Any
    name: str | None

    def __init__(self, body, *, torque, name=None):
        object.__setattr__(self, "body", body_name("BodyTorque", "body", body))
        object.__setattr__(self, "torque", time_value("BodyTorque", "torque", torque, (3,)))
        object.__setattr__(self, "name", _joint_name("BodyTorque", name))
        if self.body == "ground":
            raise ParameterError("`BodyTorque.body` must be a body, not 'ground'.")


@dataclass(frozen=True, init=False)
class SpringDamper:
    """A translational spring–damper between `point_i` on body i and `point_j` on body j
    (world coordinates at the initial pose [m]): tension k (l − l0) + c l̇ along the line.

    stiffness k [N/m] ≥ 0, damping c [N·s/m] ≥ 0, rest_length l0 [m] (default: the initial
    distance). Channels ``<name>.length`` [m] and ``<name>.tension`` [N].
    """

    body_i: str
    body_j: str
    point_i: np.ndarray
    point_j: np.ndarray
    stiffness: float
    damping: float
    rest_length: float | None
    name: str | None

    def __init__(self, body_i, body_j, *, point_i, point_j, stiffness, damping=0.0,
                 rest_length=None, name=None):
        k = "SpringDamper"
        set_ = object.__setattr__
        set_(self, "body_i", body_name(k, "body_i", body_i))
        set_(self, "body_j", body_name(k, "body_j", body_j))
        set_(self, "point_i", vector3(k, "point_i", point_i))
        set_(self, "point_j", vector3(k, "point_j", point_j))
        check_nonnegative(k, "stiffness", stiffness)
        check_nonnegative(k, "damping", damping)
        set_(self, "stiffness", float(stiffness))
        set_(self, "damping", float(damping))
        if rest_length is not None:
            check_nonnegative(k, "rest_length", rest_length)
            rest_length = float(rest_length)
        elif np.linalg.norm(self.point_j - self.point_i) < 1e-12:
            raise ParameterError(f"`{k}` between {self.body_i!r} and {self.body_j!r} starts "
                                 "with zero length: its direction is undefined. Separate the "
                                 "points.")
        set_(self, "rest_length", rest_length)
        set_(self, "name", _joint_name(k, name))
        if self.body_i == self.body_j:
            raise ParameterError(f"`{k}` joins body {self.body_i!r} to itself.")


@dataclass(frozen=True, init=False)
class ContactPair:
    """Frictional point contacts between two bodies (or a body and ``"ground"``), solved
    with the joints as one λ-problem (SPEC §6): a sphere touches at its nearest point, a
    polyhedron at its vertices (against the ground plane, a sphere or a box's faces).

    mu, mu_k: the kinetic friction coefficient [-] ≥ 0, under either name (``mu_k`` matches
        ``mu_s`` and the other elements; give one; stored as ``mu``, ``pair.mu_k`` reads it;
        default: the ground's ``mu_k`` for a ground pair, else required).
    mu_s: static coefficient [-] ≥ mu (default: the ground's ``mu_s`` for a ground pair
        without ``mu``, else mu). The λ-problem relaxes sticking (tangential velocities decay
        over δ rather than vanish), so the bound is the curve μ + (μ_s − μ)·exp(−(|v_t|/
        v_stribeck)²) of the contact's sliding speed |v_t| (``ss.laws.friction_curve``):
        μ_s while it sticks, μ once it slides.
    v_stribeck: the sliding speed [m/s] > 0 over which the bound falls from μ_s to μ
        (default :data:`STATIC_SPEED`, 1 mm/s).
    vertices_of: for two boxes, whose vertices touch the other's faces: ``"both"``
        (default), ``"a"`` or ``"b"`` (e.g. the small fingertips of a gripper against the
        held box: fewer contacts to solve). Edge–edge contact is not modelled.
    name: prefix of the channels ``<name>.<k>.gap/.fn/.ft`` (default ``"<a>-<b>"``).
    """

    body_a: str
    body_b: str
    mu: float | None
    name: str | None
    vertices_of: str
    mu_s: float | None = None
    v_stribeck: float | None = None

    def __init__(self, body_a, body_b, *, mu=None, name=None, vertices_of: str = "both",
                 mu_s=None, v_stribeck=None, mu_k=None):
        if vertices_of not in ("both", "a", "b"):
            raise ParameterError(f"`ContactPair.vertices_of` must be 'both', 'a' or 'b'; got "
                                 f"{vertices_of!r}.")
        object.__setattr__(self, "vertices_of", vertices_of)
        set_ = object.__setattr__
        set_(self, "body_a", body_name("ContactPair", "body_a", body_a))
        set_(self, "body_b", body_name("ContactPair", "body_b", body_b))
        mu = keyword_alias("ContactPair", "mu", mu, "mu_k", mu_k)
        check_friction_pair("ContactPair", mu_s, mu, names=("mu_s", "mu"))
        set_(self, "mu", None if mu is None else float(mu))
        set_(self, "mu_s", None if mu_s is None else float(mu_s))
        if v_stribeck is not None:
            check_positive("ContactPair", "v_stribeck", v_stribeck)
            v_stribeck = float(v_stribeck)
        set_(self, "v_stribeck", v_stribeck)
        set_(self, "name", _joint_name("ContactPair", name))
        if self.body_a == self.body_b:
            raise ParameterError(f"`ContactPair` pairs body {self.body_a!r} with itself.")
        if self.body_b == "ground":
            raise ParameterError("`ContactPair.body_b` must be a body; put 'ground' first "
                                 "(body_a).")

    @property
    def mu_k(self) -> float | None:
        """The kinetic coefficient (the field ``mu``; None: the ground's)."""
        return self.mu


STATIC_SPEED = 1e-3
"""Default Stribeck velocity of point contacts [m/s]: the sliding speed below which a contact
counts as sticking and gets its static coefficient (``ContactPair.v_stribeck``)."""

# constraint rows each joint type adds, by its `kind`
JOINT_ROW_COUNTS = {cls.kind: cls.rows for cls in (RevoluteJoint, PrismaticJoint,
                                                   SphericalJoint, FixedJoint, FreeJoint)}

del field, Callable
