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

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from .._rules import Rule, run_checks
from ..errors import ParameterError
from ._contact_pair import STATIC_SPEED, ContactPair
from ._element_base import (
    AXIS,
    POINT,
    _friction,
    _joint_name,
    _number,
    _SpatialElement,
    body_name,
    check_time_value,
    time_value,
    vector3,
)

__all__ = ["AXIS", "JOINT_ROW_COUNTS", "POINT", "STATIC_SPEED", "AbstractJoint", "BodyTorque",
           "ContactPair", "FixedJoint", "FreeJoint", "JointDriver", "PointForce",
           "PrismaticJoint", "RevoluteJoint", "SphericalJoint", "SpringDamper", "body_name",
           "check_time_value", "time_value"]


class AbstractJoint(_SpatialElement):
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

    def __check_init__(self) -> None:
        self._check_bodies()
        _joint_name(self.kind, self.name)

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
        set_(self, "point", vector3(point))
        set_(self, "axis", vector3(axis, unit=True))
        set_(self, "name", _joint_name(k, name))
        set_(self, "friction", friction)


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
    parameter_rules: ClassVar[dict[str, Rule]] = {
        "point": POINT, "axis": AXIS,
        "pin_radius": Rule("nonnegative", "Pass the pin radius a in metres (>= 0; > 0 with "
                           "a load-dependent friction law).", scalar=True, unit="m",
                           optional=False)}

    def __init__(self, body_i, body_j, *, point, axis, name=None, friction=None,
                 pin_radius: float = 0.0):
        self._set_axis_joint(body_i, body_j, point, axis, name, friction)
        object.__setattr__(self, "pin_radius", _number(pin_radius))
        run_checks(self)

    def __check_init__(self) -> None:
        k = self.kind
        _friction(k, self.friction)
        if self.friction is not None and getattr(self.friction, "mu", None) is not None \
                and isinstance(self.pin_radius, float) and self.pin_radius == 0.0:
            raise ParameterError(f"`{k}.pin_radius` must be > 0 [m] with a load-dependent "
                                 f"friction law (mu=...): the friction torque is μ·a·N. Pass "
                                 "pin_radius=..., or a law with a fixed level F= [N·m].")

    @classmethod
    def example(cls) -> RevoluteJoint:
        """A hinge of body ``"link"`` about the world z axis, with Coulomb friction
        (a = 5 mm)."""
        from ..laws import CoulombODE

        return cls("ground", "link", point=(0.0, 0.0, 0.5), axis=(0.0, 0.0, 1.0),
                   friction=CoulombODE(mu=0.2, K=1e4, beta=1e-3), pin_radius=5e-3)


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
    parameter_rules: ClassVar[dict[str, Rule]] = {"point": POINT, "axis": AXIS}

    def __init__(self, body_i, body_j, *, point, axis, name=None, friction=None):
        self._set_axis_joint(body_i, body_j, point, axis, name, friction)
        run_checks(self)

    def __check_init__(self) -> None:
        _friction(self.kind, self.friction)

    @classmethod
    def example(cls) -> PrismaticJoint:
        """Body ``"link"`` sliding along the world x axis."""
        return cls("ground", "link", point=(0.0, 0.0, 0.1), axis=(1.0, 0.0, 0.0))


@dataclass(frozen=True, init=False)
class SphericalJoint(AbstractJoint):
    """A ball joint at `point` [m] (world, initial pose): 3 rows."""

    body_i: str
    body_j: str
    point: np.ndarray
    name: str | None
    rows: ClassVar[int] = 3
    kind: ClassVar[str] = "SphericalJoint"
    parameter_rules: ClassVar[dict[str, Rule]] = {"point": POINT}

    def __init__(self, body_i, body_j, *, point, name=None):
        k = self.kind
        object.__setattr__(self, "body_i", body_name(k, "body_i", body_i))
        object.__setattr__(self, "body_j", body_name(k, "body_j", body_j))
        object.__setattr__(self, "point", vector3(point))
        object.__setattr__(self, "name", _joint_name(k, name))
        run_checks(self)

    @classmethod
    def example(cls) -> SphericalJoint:
        """A ball joint of body ``"link"`` at (0, 0, 0.5) m."""
        return cls("ground", "link", point=(0.0, 0.0, 0.5))


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
    parameter_rules: ClassVar[dict[str, Rule]] = {"point": POINT}

    def __init__(self, body_i, body_j, *, name=None, point=None):
        k = self.kind
        object.__setattr__(self, "body_i", body_name(k, "body_i", body_i))
        object.__setattr__(self, "body_j", body_name(k, "body_j", body_j))
        object.__setattr__(self, "name", _joint_name(k, name))
        object.__setattr__(self, "point", vector3(point))
        run_checks(self)

    @classmethod
    def example(cls) -> FixedJoint:
        """Body ``"link"`` welded to the ground, reactions about (0, 0, 0.5) m."""
        return cls("ground", "link", point=(0.0, 0.0, 0.5))


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
        run_checks(self)

    @classmethod
    def example(cls) -> FreeJoint:
        """Body ``"link"`` free in space."""
        return cls("link")


@dataclass(frozen=True, init=False)
class JointDriver(_SpatialElement):
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
        object.__setattr__(self, "value", time_value(value))
        object.__setattr__(self, "name", _joint_name("JointDriver", name))
        run_checks(self)

    def __check_init__(self) -> None:
        if self.mode not in ("position", "velocity", "effort"):
            raise ParameterError(f"`JointDriver.mode` must be 'position', 'velocity' or "
                                 f"'effort'; got {self.mode!r}.")
        check_time_value("JointDriver", self.mode, self.value)
        _joint_name("JointDriver", self.name)

    @classmethod
    def example(cls) -> JointDriver:
        """A torque of 0.5 N·m on the joint named ``"hinge"``."""
        return cls("hinge", effort=0.5)


@dataclass(frozen=True, init=False)
class PointForce(_SpatialElement):
    """A force [N] (world frame; a 3-vector or a function of t returning one) on `body` at
    the body-fixed `point` [m] (body frame; default the centre of mass)."""

    body: str
    force: Any
    point: np.ndarray
    name: str | None

    parameter_rules: ClassVar[dict[str, Rule]] = {
        "point": POINT.but(hint="Pass 3 finite numbers (x, y, z) in metres, body frame.")}

    def __init__(self, body, *, force, point=(0.0, 0.0, 0.0), name=None):
        object.__setattr__(self, "body", body_name("PointForce", "body", body))
        object.__setattr__(self, "force", time_value(force))
        object.__setattr__(self, "point", vector3(point))
        object.__setattr__(self, "name", _joint_name("PointForce", name))
        run_checks(self)

    def __check_init__(self) -> None:
        check_time_value("PointForce", "force", self.force, (3,))
        if self.body == "ground":
            raise ParameterError("`PointForce.body` must be a body, not 'ground'.")

    @classmethod
    def example(cls) -> PointForce:
        """A force (1, 0, −2) N on body ``"link"`` at (0.1, 0, 0) m."""
        return cls("link", force=(1.0, 0.0, -2.0), point=(0.1, 0.0, 0.0))


@dataclass(frozen=True, init=False)
class BodyTorque(_SpatialElement):
    """A torque [N·m] (world frame; a 3-vector or a function of t) on `body`."""

    body: str
    torque: Any
    name: str | None

    def __init__(self, body, *, torque, name=None):
        object.__setattr__(self, "body", body_name("BodyTorque", "body", body))
        object.__setattr__(self, "torque", time_value(torque))
        object.__setattr__(self, "name", _joint_name("BodyTorque", name))
        run_checks(self)

    def __check_init__(self) -> None:
        check_time_value("BodyTorque", "torque", self.torque, (3,))
        if self.body == "ground":
            raise ParameterError("`BodyTorque.body` must be a body, not 'ground'.")

    @classmethod
    def example(cls) -> BodyTorque:
        """A torque (0, 0, 0.3) N·m on body ``"link"``."""
        return cls("link", torque=(0.0, 0.0, 0.3))


@dataclass(frozen=True, init=False)
class SpringDamper(_SpatialElement):
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
    parameter_rules: ClassVar[dict[str, Rule]] = {
        "point_i": POINT, "point_j": POINT,
        "stiffness": Rule("nonnegative", "Pass a stiffness k >= 0 in N/m.", scalar=True,
                          unit="N/m", optional=False),
        "damping": Rule("nonnegative", "Pass a damping c >= 0 in N·s/m.", scalar=True,
                        unit="N·s/m", optional=False),
        "rest_length": Rule("nonnegative", "Pass a rest length l0 >= 0 in metres (None: the "
                            "initial distance).", scalar=True, unit="m")}

    def __init__(self, body_i, body_j, *, point_i, point_j, stiffness, damping=0.0,
                 rest_length=None, name=None):
        k = "SpringDamper"
        set_ = object.__setattr__
        set_(self, "body_i", body_name(k, "body_i", body_i))
        set_(self, "body_j", body_name(k, "body_j", body_j))
        set_(self, "point_i", vector3(point_i))
        set_(self, "point_j", vector3(point_j))
        set_(self, "stiffness", _number(stiffness))
        set_(self, "damping", _number(damping))
        set_(self, "rest_length", _number(rest_length))
        set_(self, "name", _joint_name(k, name))
        run_checks(self)

    def __check_init__(self) -> None:
        k = "SpringDamper"
        _joint_name(k, self.name)
        if self.body_i == self.body_j:
            raise ParameterError(f"`{k}` joins body {self.body_i!r} to itself.")
        points = [p for p in (self.point_i, self.point_j)
                  if isinstance(p, np.ndarray) and p.shape == (3,)]
        if self.rest_length is None and len(points) == 2 \
                and np.linalg.norm(points[1] - points[0]) < 1e-12:
            raise ParameterError(f"`{k}` between {self.body_i!r} and {self.body_j!r} starts "
                                 "with zero length: its direction is undefined. Separate the "
                                 "points.")

    @classmethod
    def example(cls) -> SpringDamper:
        """A spring–damper (k = 100 N/m, c = 2 N·s/m, l0 = 0.4 m) from the ground to body
        ``"link"``."""
        return cls("ground", "link", point_i=(0.0, 0.0, 1.0), point_j=(0.0, 0.0, 0.5),
                   stiffness=100.0, damping=2.0, rest_length=0.4)



# constraint rows each joint type adds, by its `kind`
JOINT_ROW_COUNTS = {cls.kind: cls.rows for cls in (RevoluteJoint, PrismaticJoint,
                                                   SphericalJoint, FixedJoint, FreeJoint)}

del field, Callable
