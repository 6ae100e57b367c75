"""Joints and drivers: the kinematic and driving constraints Φ(q, t) = 0 (SPEC §9).

Contract for a constraint element (one class, a re-export, an entry in the tests' list):

* ``n_equations`` (class variable): rows it adds to Φ.  ``is_driver``: a driving constraint
  (its multiplier is reported as ``<name>.effort``) or a kinematic one (reported as the
  reaction ``<name>.Fx``, ``<name>.Fy``, ``<name>.T``).
* ``residual(qi, qj, t)``: pure ``jax.numpy``; Φ of this element for the poses
  ``qi`` = (x_i, y_i, φ_i) of body i and ``qj`` of body j (the ground's pose is (0, 0, 0)).
  Φ_q, ν and γ come from JAX's forward-mode derivatives of this one function.
* ``freeze(pose_i, pose_j)``: fill reference constants (a translational joint's relative
  angle, a gear's phase) from the poses at :meth:`Model.add` time.
* ``point_i`` and ``frame_i`` (angle of the joint frame in body i): where and in which frame
  the reaction on body i is reported (SPEC §9: F = −Cᵀ Aᵀ Φ_rᵀ λ, T = (s'ᵀ Bᵀ Φ_rᵀ − Φ_φᵀ) λ).

Elements are host-side descriptions: parameters are baked into the traced functions as
constants and the bodies are resolved by :class:`Model` when it validates.
"""

from __future__ import annotations

import copy
import math
from typing import Callable, ClassVar

import jax.numpy as jnp
import numpy as np

from ..errors import ParameterError
from ._body import Body, cross2, global_point, perp, rotation
from ._friction import check_friction_slot

__all__ = [
    "AbstractConstraint", "RevoluteJoint", "TranslationalJoint", "RevoluteRevoluteJoint",
    "RevoluteTranslationalJoint", "GearJoint", "AbsoluteX", "AbsoluteY", "AbsoluteAngle",
    "AbsoluteDistance", "RotationalDriver", "TranslationalDriver", "AbsoluteDriver",
    "RelativeDriver", "DistanceDriver", "constant_speed", "smooth_ramp",
]


def _positive(owner: str, name: str, value: float, unit: str) -> float:
    v = float(value)
    if not (math.isfinite(v) and v > 0):
        raise ParameterError(f"`{owner}.{name}` must be a finite number > 0 [{unit}]; got "
                             f"{name}={value!r}.")
    return v


def _unit_axis(owner: str, axis) -> np.ndarray:
    arr = np.asarray(axis, dtype=float)
    if arr.shape != (2,) or not np.all(np.isfinite(arr)) or np.linalg.norm(arr) == 0:
        raise ParameterError(f"`{owner}.axis_i` must be a non-zero direction (ux, uy) in body "
                             f"i's frame; got {axis!r}. Pass e.g. axis_i=(1, 0).")
    return arr / np.linalg.norm(arr)


def _time_function(owner: str, name: str, fn) -> Callable:
    from ..systems._base import check_time_function

    if not callable(fn):
        value = float(fn)
        return lambda t: jnp.asarray(value) + 0.0 * t
    check_time_function(owner, name, fn, ())
    return fn


class AbstractConstraint:
    """Base of joints and drivers; see the module docstring for the contract."""

    n_equations: ClassVar[int]
    is_driver: ClassVar[bool] = False
    prefix: ClassVar[str] = "joint"
    # the numeric attributes `residual` reads: elements of one class (and one
    # `group_key`) are evaluated together, vmapped over these (None: never grouped)
    traced_parameters: ClassVar[tuple[str, ...] | None] = None

    def group_key(self):
        """Elements with equal keys share one vmapped residual (STYLE: group by type)."""
        return (type(self),) if self.traced_parameters is not None else (type(self), id(self))

    def with_parameters(self, params: dict) -> "AbstractConstraint":
        """A shallow copy whose traced parameters are replaced (for the vmapped group)."""
        clone = copy.copy(self)
        clone.__dict__.update(params)
        return clone

    def __init__(self, body_i, body_j, point_i=(0.0, 0.0), point_j=(0.0, 0.0),
                 name: str | None = None):
        self.body_i = body_i
        self.body_j = body_j
        self._point_i_raw = point_i
        self._point_j_raw = point_j
        self.point_i = np.zeros(2)
        self.point_j = np.zeros(2)
        self.name = name
        self.frame_i = 0.0
        self.friction = None

    # host side -----------------------------------------------------------------------
    @property
    def owner(self) -> str:
        return self.name or type(self).__name__

    def bodies(self) -> tuple:
        return (self.body_i, self.body_j)

    def bind(self, body_i: Body, body_j: Body) -> None:
        """Resolve the points once the bodies are known (raises ParameterError)."""
        self.body_i, self.body_j = body_i, body_j
        self.point_i = body_i.resolve_point(self.owner, "point_i", self._point_i_raw)
        self.point_j = body_j.resolve_point(self.owner, "point_j", self._point_j_raw)

    def freeze(self, pose_i: np.ndarray, pose_j: np.ndarray) -> None:
        """Fill reference constants from the poses at `Model.add` time (default: none)."""

    def describe(self) -> str:
        return (f"{type(self).__name__} {self.name!r} between {self.body_i.name!r} and "
                f"{self.body_j.name!r}")

    def __repr__(self) -> str:
        bodies = [getattr(b, "name", b) for b in (self.body_i, self.body_j) if b is not None]
        return f"{type(self).__name__}({self.name!r}: {' – '.join(map(str, bodies))})"

    # traced side ---------------------------------------------------------------------
    def residual(self, qi: jnp.ndarray, qj: jnp.ndarray, t: jnp.ndarray) -> jnp.ndarray:
        raise NotImplementedError

    def _d(self, qi, qj):
        """d_ij = r_jᴾ − r_iᴾ in the ground frame."""
        return global_point(qj, self.point_j) - global_point(qi, self.point_i)


# --- joints ------------------------------------------------------------------------------

class RevoluteJoint(AbstractConstraint):
    """Pin joint: point_i of body i and point_j of body j coincide (removes 2 DOF).

    Φ = r_i + A_i s_i'ᴾ − r_j − A_j s_j'ᴾ = 0 (SPEC §9). Points are in the body frames [m].
    Reaction ``Fx, Fy`` [N] on body i in body i's frame, ``T`` [N·m] (zero for a pin) about
    the pin.

    Examples
    --------
    >>> import stickslip as ss
    >>> m = ss.planar.Model()
    >>> crank = m.add_body("crank", mass=1.0, inertia=1e-3, x=0.05)
    >>> j = m.add(ss.planar.RevoluteJoint(m.ground, crank, point_j=(-0.05, 0.0)))
    >>> m.dof()
    1
    """

    n_equations = 2
    prefix = "revolute"
    traced_parameters = ("point_i", "point_j")

    def __init__(self, body_i, body_j, point_i=(0.0, 0.0), point_j=(0.0, 0.0), *,
                 name: str | None = None, friction=None, pin_radius: float | None = None,
                 viscous: float = 0.0, preload: float = 0.0):
        super().__init__(body_i, body_j, point_i, point_j, name)
        check_friction_slot(self, friction, pin_radius, viscous, preload, None)
        self.friction = friction
        self.pin_radius = None if pin_radius is None else float(pin_radius)
        self.viscous, self.preload = float(viscous), float(preload)

    def residual(self, qi, qj, t):
        return -self._d(qi, qj)


class TranslationalJoint(AbstractConstraint):
    """Prismatic joint: body j slides along the axis through point_i of body i (2 DOF removed).

    Φ = [n_iᵀ d_ij, φ_j − φ_i − θ₀] with n_i = R A_i u_i the normal of the axis u_i
    (``axis_i``, body i's frame) and d_ij = r_jᴾ − r_iᴾ (SPEC §9). θ₀ is the relative angle
    at :meth:`Model.add` time unless ``angle=`` is given.
    Reaction on body i in the joint frame (x' along the axis): ``Fx`` (zero without
    friction), ``Fy`` the normal force [N], ``T`` the moment about point_i [N·m].
    """

    n_equations = 2
    prefix = "translational"
    traced_parameters = ("point_i", "point_j", "axis_i", "angle")

    def __init__(self, body_i, body_j, point_i=(0.0, 0.0), point_j=(0.0, 0.0),
                 axis_i=(1.0, 0.0), *, angle: float | None = None, name: str | None = None,
                 friction=None, slider_length: float | None = None, viscous: float = 0.0,
                 preload: float = 0.0):
        super().__init__(body_i, body_j, point_i, point_j, name)
        self.axis_i = _unit_axis(self.owner, axis_i)
        self.frame_i = float(np.arctan2(self.axis_i[1], self.axis_i[0]))
        self.angle = None if angle is None else float(angle)
        check_friction_slot(self, friction, None, viscous, preload, slider_length)
        self.friction = friction
        self.slider_length = None if slider_length is None else float(slider_length)
        self.viscous, self.preload = float(viscous), float(preload)

    def freeze(self, pose_i, pose_j):
        if self.angle is None:
            self.angle = float(pose_j[2] - pose_i[2])

    def residual(self, qi, qj, t):
        n = perp(rotation(qi[2]) @ jnp.asarray(self.axis_i))
        return jnp.stack([n @ self._d(qi, qj), qj[2] - qi[2] - self.angle])


class RevoluteRevoluteJoint(AbstractConstraint):
    """Massless coupler of length C between point_i and point_j (removes 1 DOF).

    Φ = (d_ijᵀ d_ij − C²) / (2C) (SPEC §9, scaled so that its multiplier is the coupler's
    compression force [N]).
    """

    n_equations = 1
    prefix = "coupler"
    traced_parameters = ("point_i", "point_j", "length")

    def __init__(self, body_i, body_j, point_i=(0.0, 0.0), point_j=(0.0, 0.0), *,
                 length: float, name: str | None = None):
        super().__init__(body_i, body_j, point_i, point_j, name)
        self.length = _positive(self.owner, "length", length, "m")

    def residual(self, qi, qj, t):
        d = self._d(qi, qj)
        return jnp.atleast_1d((d @ d - self.length ** 2) / (2 * self.length))


class RevoluteTranslationalJoint(AbstractConstraint):
    """Point_j of body j stays at distance C from the line through point_i along axis_i of
    body i (removes 1 DOF): Φ = n_iᵀ d_ij − C (SPEC §9)."""

    n_equations = 1
    prefix = "revolute_translational"
    traced_parameters = ("point_i", "point_j", "axis_i", "distance")

    def __init__(self, body_i, body_j, point_i=(0.0, 0.0), point_j=(0.0, 0.0),
                 axis_i=(1.0, 0.0), *, distance: float = 0.0, name: str | None = None):
        super().__init__(body_i, body_j, point_i, point_j, name)
        self.axis_i = _unit_axis(self.owner, axis_i)
        self.frame_i = float(np.arctan2(self.axis_i[1], self.axis_i[0]))
        self.distance = float(distance)

    def residual(self, qi, qj, t):
        n = perp(rotation(qi[2]) @ jnp.asarray(self.axis_i))
        return jnp.atleast_1d(n @ self._d(qi, qj) - self.distance)


class GearJoint(AbstractConstraint):
    """Pitch circles of radii ``radius_i``, ``radius_j`` centred at point_i, point_j roll
    without slip (removes 1 DOF; SPEC §9 gear).

    External gears: ρ_i(φ_i − θ) + ρ_j(φ_j − θ) = c; internal (body j the ring, ``internal=
    True``): ρ_i(φ_i − θ) − ρ_j(φ_j − θ) = c, with θ the direction of the line of centres
    and c frozen at :meth:`Model.add` time. The centre distance must be held by other joints
    (a carrier or the ground). θ is an ``atan2``: a carrier may not turn by more than ±180°
    from its initial position.
    """

    n_equations = 1
    prefix = "gear"
    traced_parameters = ("point_i", "point_j", "radius_i", "radius_j", "phase", "theta0")

    def group_key(self):
        return (type(self), self.internal)

    def __init__(self, body_i, body_j, point_i=(0.0, 0.0), point_j=(0.0, 0.0), *,
                 radius_i: float, radius_j: float, internal: bool = False,
                 name: str | None = None):
        super().__init__(body_i, body_j, point_i, point_j, name)
        self.radius_i = _positive(self.owner, "radius_i", radius_i, "m")
        self.radius_j = _positive(self.owner, "radius_j", radius_j, "m")
        self.internal = bool(internal)
        self.phase = 0.0
        self.theta0 = 0.0

    def _raw(self, qi, qj):
        d = self._d(qi, qj)
        e0 = jnp.stack([jnp.cos(self.theta0), jnp.sin(self.theta0)])
        theta = self.theta0 + jnp.arctan2(cross2(e0, d), e0 @ d)
        sign = -1.0 if self.internal else 1.0
        return self.radius_i * (qi[2] - theta) + sign * self.radius_j * (qj[2] - theta)

    def freeze(self, pose_i, pose_j):
        d = (pose_j[:2] + np.asarray(rotation(pose_j[2])) @ self.point_j
             - pose_i[:2] - np.asarray(rotation(pose_i[2])) @ self.point_i)
        self.theta0 = float(np.arctan2(d[1], d[0]))
        self.phase = float(self._raw(jnp.asarray(pose_i), jnp.asarray(pose_j)))

    def residual(self, qi, qj, t):
        return jnp.atleast_1d(self._raw(qi, qj) - self.phase)


class _SingleBody(AbstractConstraint):
    """An element on one body (stored as body i; body j is the ground)."""

    def __init__(self, body, point=(0.0, 0.0), name=None):
        super().__init__(body, None, point, (0.0, 0.0), name)

    def describe(self) -> str:
        return f"{type(self).__name__} {self.name!r} on {self.body_i.name!r}"


class AbsoluteX(_SingleBody):
    """x of a body point fixed: x_iᴾ − x₀ = 0 (x₀ from the pose at `add` time by default)."""

    n_equations = 1
    prefix = "absolute_x"
    axis = 0          # which world coordinate of the point is fixed
    traced_parameters = ("point_i", "value")

    def __init__(self, body, point=(0.0, 0.0), *, x: float | None = None, name=None):
        super().__init__(body, point, name)
        self.value = None if x is None else float(x)

    def freeze(self, pose_i, pose_j):
        if self.value is None:
            point = global_point(jnp.asarray(pose_i), jnp.asarray(self.point_i))
            self.value = float(point[self.axis])

    def residual(self, qi, qj, t):
        return jnp.atleast_1d(global_point(qi, self.point_i)[self.axis] - self.value)


class AbsoluteY(AbsoluteX):
    """y of a body point fixed: y_iᴾ − y₀ = 0."""

    prefix = "absolute_y"
    axis = 1

    def __init__(self, body, point=(0.0, 0.0), *, y: float | None = None, name=None):
        super().__init__(body, point, x=y, name=name)



class AbsoluteAngle(_SingleBody):
    """Rotation of a body fixed: φ_i − φ₀ = 0."""

    n_equations = 1
    prefix = "absolute_phi"
    traced_parameters = ("value",)

    def __init__(self, body, *, phi: float | None = None, name=None):
        super().__init__(body, (0.0, 0.0), name)
        self.value = None if phi is None else float(phi)

    def freeze(self, pose_i, pose_j):
        if self.value is None:
            self.value = float(pose_i[2])

    def residual(self, qi, qj, t):
        return jnp.atleast_1d(qi[2] - self.value)


class AbsoluteDistance(_SingleBody):
    """A body point keeps distance C from a ground point: (dᵀd − C²)/(2C) = 0."""

    n_equations = 1
    prefix = "absolute_distance"
    traced_parameters = ("point_i", "ground_point", "distance")

    def __init__(self, body, point=(0.0, 0.0), *, ground_point=(0.0, 0.0), distance: float,
                 name=None):
        super().__init__(body, point, name)
        self.ground_point = np.asarray(ground_point, dtype=float)
        self.distance = _positive(self.owner, "distance", distance, "m")

    def residual(self, qi, qj, t):
        d = global_point(qi, self.point_i) - jnp.asarray(self.ground_point)
        return jnp.atleast_1d((d @ d - self.distance ** 2) / (2 * self.distance))


# --- drivers -----------------------------------------------------------------------------

def constant_speed(rate: float, start: float = 0.0) -> Callable:
    """C(t) = start + rate·t: a driver at constant speed (rad/s or m/s)."""
    rate, start = float(rate), float(start)

    def motion(t):
        return start + rate * t
    motion.__name__ = f"constant_speed({rate:g}, start={start:g})"
    return motion


def smooth_ramp(start: float, end: float, t0: float, t1: float) -> Callable:
    """C(t) going from `start` (t ≤ t0) to `end` (t ≥ t1) along a quintic
    10s³ − 15s⁴ + 6s⁵ (zero velocity and acceleration at both ends)."""
    start, end, t0, t1 = float(start), float(end), float(t0), float(t1)
    if not t1 > t0:
        raise ParameterError(f"`smooth_ramp` needs t1 > t0; got t0={t0}, t1={t1}.")

    def motion(t):
        s = jnp.clip((t - t0) / (t1 - t0), 0.0, 1.0)
        return start + (end - start) * s ** 3 * (10 - 15 * s + 6 * s ** 2)
    motion.__name__ = f"smooth_ramp({start:g}→{end:g}, {t0:g}–{t1:g} s)"
    return motion


class _Driver(AbstractConstraint):
    n_equations = 1
    is_driver = True
    prefix = "driver"

    def describe(self) -> str:
        j = (f" and {self.body_j.name!r}"
             if self.body_j is not None and not self.body_j.is_ground else "")
        return f"{type(self).__name__} {self.name!r} on {self.body_i.name!r}{j}"


class RotationalDriver(_Driver):
    """Prescribed relative rotation: φ_j − φ_i − C(t) = 0 (SPEC §9).

    ``angle``: C(t) [rad], a ``jax.numpy`` callable of time (or a constant); see
    :func:`constant_speed` and :func:`smooth_ramp`. ``<name>.effort`` is the torque [N·m] the
    driver applies to body j (and −effort to body i).
    """

    prefix = "rotational_driver"

    def __init__(self, body_i, body_j, angle: Callable, *, name: str | None = None):
        super().__init__(body_i, body_j, (0.0, 0.0), (0.0, 0.0), name)
        self.motion = _time_function(self.owner, "angle", angle)

    def residual(self, qi, qj, t):
        return jnp.atleast_1d(qj[2] - qi[2] - self.motion(t))


class TranslationalDriver(_Driver):
    """Prescribed slide along the axis of a translational pair: u_iᵀ d_ij − C(t) = 0 with
    u_i = A_i axis_i. ``distance``: C(t) [m]. ``effort``: force [N] on body j along u_i."""

    prefix = "translational_driver"

    def __init__(self, body_i, body_j, point_i=(0.0, 0.0), point_j=(0.0, 0.0),
                 axis_i=(1.0, 0.0), *, distance: Callable, name: str | None = None):
        super().__init__(body_i, body_j, point_i, point_j, name)
        self.axis_i = _unit_axis(self.owner, axis_i)
        self.frame_i = float(np.arctan2(self.axis_i[1], self.axis_i[0]))
        self.motion = _time_function(self.owner, "distance", distance)

    def residual(self, qi, qj, t):
        u = rotation(qi[2]) @ jnp.asarray(self.axis_i)
        return jnp.atleast_1d(u @ self._d(qi, qj) - self.motion(t))


def _check_coordinate(owner: str, coordinate: str) -> str:
    """A driver's coordinate name, checked: "x", "y" or "phi"."""
    if coordinate not in ("x", "y", "phi"):
        raise ParameterError(f"`{owner}.coordinate` must be 'x', 'y' or 'phi'; got "
                             f"{coordinate!r}.")
    return coordinate


class AbsoluteDriver(_Driver):
    """Prescribed absolute coordinate of a body point: ``coordinate`` "x", "y" (of the point,
    [m]) or "phi" (of the body, [rad]) equals C(t). ``effort``: the force [N] or torque
    [N·m] the driver applies to the body in that coordinate's direction."""

    prefix = "absolute_driver"

    def __init__(self, body, coordinate: str, value: Callable, point=(0.0, 0.0), *,
                 name: str | None = None):
        super().__init__(body, None, point, (0.0, 0.0), name)
        self.coordinate = _check_coordinate(self.owner, coordinate)
        self.motion = _time_function(self.owner, "value", value)

    def residual(self, qi, qj, t):
        if self.coordinate == "phi":
            value = qi[2]
        else:
            value = global_point(qi, self.point_i)["xy".index(self.coordinate)]
        return jnp.atleast_1d(value - self.motion(t))


class RelativeDriver(_Driver):
    """Prescribed relative coordinate in the ground frame: (r_jᴾ − r_iᴾ)_x or _y = C(t) [m],
    or φ_j − φ_i = C(t) [rad] for ``coordinate="phi"``."""

    prefix = "relative_driver"

    def __init__(self, body_i, body_j, coordinate: str, value: Callable, point_i=(0.0, 0.0),
                 point_j=(0.0, 0.0), *, name: str | None = None):
        super().__init__(body_i, body_j, point_i, point_j, name)
        self.coordinate = _check_coordinate(self.owner, coordinate)
        self.motion = _time_function(self.owner, "value", value)

    def residual(self, qi, qj, t):
        if self.coordinate == "phi":
            value = qj[2] - qi[2]
        else:
            value = self._d(qi, qj)["xy".index(self.coordinate)]
        return jnp.atleast_1d(value - self.motion(t))


class DistanceDriver(_Driver):
    """Prescribed distance between point_i and point_j: ‖d_ij‖ − C(t) = 0 (C > 0, [m]).
    ``effort``: the force [N] pushing the points apart."""

    prefix = "distance_driver"

    def __init__(self, body_i, body_j, point_i=(0.0, 0.0), point_j=(0.0, 0.0), *,
                 distance: Callable, name: str | None = None):
        super().__init__(body_i, body_j, point_i, point_j, name)
        self.motion = _time_function(self.owner, "distance", distance)

    def residual(self, qi, qj, t):
        d = self._d(qi, qj)
        return jnp.atleast_1d(jnp.sqrt(d @ d) - self.motion(t))
