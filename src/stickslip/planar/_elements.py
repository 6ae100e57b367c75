"""Joints and drivers: the kinematic and driving constraints Φ(q, t) = 0 (SPEC §9).

Contract for a constraint element (one final class, a re-export, an entry in the tests'
list — the conformance suite in tests/planar/test_conformance.py then checks it):

* ``n_equations`` (class variable): rows it adds to Φ.  ``is_driver``: a driving constraint
  (its multiplier is reported as ``<name>.effort``) or a kinematic one (reported as the
  reaction ``<name>.Fx``, ``<name>.Fy``, ``<name>.T``).
* ``residual(qi, qj, t)``: pure ``jax.numpy``; Φ of this element for the poses
  ``qi`` = (x_i, y_i, φ_i) of body i and ``qj`` of body j (the ground's pose is (0, 0, 0)).
  Φ_q, ν and γ come from JAX's forward-mode derivatives of this one function.
* ``slide(qi, qj)`` (joints with ``slide_unit``): the joint's one free relative coordinate —
  what joint friction acts along and what joint stops limit. Written once, here.
* ``_frozen(pose_i, pose_j)``: reference constants (a translational joint's relative angle,
  a gear's phase) from the poses at :meth:`Model.add` time.
* ``point_i`` and ``frame_i`` (angle of the joint frame in body i): where and in which frame
  the reaction on body i is reported (SPEC §9: F = −Cᵀ Aᵀ Φ_rᵀ λ, T = (s'ᵀ Bᵀ Φ_rᵀ − Φ_φᵀ) λ).

Elements are immutable ``equinox`` modules (see :mod:`._base`): their array fields are the
traced parameters, bodies and names are static.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Any, ClassVar

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from ..errors import ParameterError
from ._base import AbstractElement, evolve, host_array
from ._body import cross2, global_point, perp, rotation
from ._friction_slot import check_friction_slot

__all__ = [
    "AbsoluteAngle",
    "AbsoluteDistance",
    "AbsoluteDriver",
    "AbsoluteX",
    "AbsoluteY",
    "AbstractConstraint",
    "DistanceDriver",
    "GearJoint",
    "RelativeDriver",
    "RevoluteJoint",
    "RevoluteRevoluteJoint",
    "RevoluteTranslationalJoint",
    "RotationalDriver",
    "TranslationalDriver",
    "TranslationalJoint",
    "constant_speed",
    "smooth_ramp",
]


def _positive(owner: str, name: str, value: float, unit: str) -> jnp.ndarray:
    v = float(value)
    if not (math.isfinite(v) and v > 0):
        raise ParameterError(f"`{owner}.{name}` must be a finite number > 0 [{unit}]; got "
                             f"{name}={value!r}.")
    return host_array(v)


def _finite(owner: str, name: str, value, unit: str) -> jnp.ndarray:
    try:
        v = float(value)
    except (TypeError, ValueError):
        v = float("nan")
    if not math.isfinite(v):
        raise ParameterError(f"`{owner}.{name}` must be a finite number [{unit}]; got "
                             f"{name}={value!r}.")
    return host_array(v)


def _unit_axis(owner: str, axis) -> jnp.ndarray:
    try:
        arr = np.asarray(axis, dtype=float)
    except (TypeError, ValueError):
        arr = np.full(3, np.nan)
    if arr.shape != (2,) or not np.all(np.isfinite(arr)) or np.linalg.norm(arr) == 0:
        raise ParameterError(f"`{owner}.axis_i` must be a non-zero direction (ux, uy) in body "
                             f"i's frame; got {axis!r}. Pass e.g. axis_i=(1, 0).")
    arr = arr / np.max(np.abs(arr))        # first: the norm of (1e308, 1e308) overflows
    return host_array(arr / np.linalg.norm(arr))


def _time_function(owner: str, name: str, fn) -> Callable:
    from ..systems._base import check_time_function

    if not callable(fn):
        return _ConstantSpeed(0.0, float(_finite(owner, name, fn, "constant value")))
    check_time_function(owner, name, fn, ())        # traces it too (no Python `if` on t)
    return fn


def _name(owner: str, name):
    if name is not None and (not isinstance(name, str) or not name or "." in name):
        raise ParameterError(f"`{owner}.name` must be a non-empty string without '.'; got "
                             f"{name!r}.")
    return name


class AbstractConstraint(AbstractElement):
    """Base of joints and drivers; see the module docstring for the contract."""

    n_equations: ClassVar[int]
    is_driver: ClassVar[bool] = False
    prefix: ClassVar[str] = "joint"
    supports_friction: ClassVar[bool] = False     # takes friction= and LuGreFriction
    slide_unit: ClassVar[str | None] = None       # "rad" or "m" when it has a slide(qi, qj)
    effort_unit: ClassVar[str] = "N"

    body_i: eqx.AbstractVar[Any]
    body_j: eqx.AbstractVar[Any]
    point_i: eqx.AbstractVar[Any]
    point_j: eqx.AbstractVar[Any]

    # host side -----------------------------------------------------------------------
    def bodies(self) -> tuple:
        return (self.body_i, self.body_j)

    @property
    def frame_i(self):
        """Angle of the joint frame in body i [rad] (where reactions are reported)."""
        return 0.0

    def bind(self, body_i, body_j, name: str):
        """The element bound to resolved bodies: points as arrays, reference constants from
        the current poses, its name (raises ParameterError for an unknown point)."""
        point_i = body_i.resolve_point(self.owner, "point_i", self.point_i)
        point_j = body_j.resolve_point(self.owner, "point_j", self.point_j)
        bound = evolve(self, body_i=body_i, body_j=body_j, point_i=host_array(point_i),
                       point_j=host_array(point_j), name=name)
        # poses as NumPy: the reference constants are host arithmetic, not small compiles
        frozen = bound._frozen(np.asarray(body_i.pose, dtype=float),
                               np.asarray(body_j.pose, dtype=float))
        return evolve(bound, **{k: host_array(v) for k, v in frozen.items()})

    def _frozen(self, pose_i, pose_j) -> dict:
        """Reference constants from the poses at `Model.add` time (default: none)."""
        return {}

    def describe(self) -> str:
        return (f"{type(self).__name__} {self.name!r} between "
                f"{getattr(self.body_i, 'name', self.body_i)!r} and "
                f"{getattr(self.body_j, 'name', self.body_j)!r}")

    def __repr__(self) -> str:
        bodies = [getattr(b, "name", b) for b in (self.body_i, self.body_j) if b is not None]
        return f"{type(self).__name__}({self.name!r}: {' – '.join(map(str, bodies))})"

    # traced side ---------------------------------------------------------------------
    def residual(self, qi: jnp.ndarray, qj: jnp.ndarray, t: jnp.ndarray) -> jnp.ndarray:
        raise NotImplementedError

    def slide(self, qi: jnp.ndarray, qj: jnp.ndarray) -> jnp.ndarray:
        raise NotImplementedError(f"{type(self).__name__} has no slide coordinate.")

    # derivatives of `residual` (local: 3 + 3 coordinates and t). Forward-mode autodiff
    # here; the commonest joints override them with hand-written forms (fewer traced ops).
    def jacobians(self, qi, qj, t):
        """(∂Φ/∂q_i, ∂Φ/∂q_j), each (n_equations × 3)."""
        return jax.jacfwd(self.residual, argnums=(0, 1))(qi, qj, t)

    def time_derivative(self, qi, qj, t):
        """Φ_t (n_equations,)."""
        return jax.jvp(lambda s: self.residual(qi, qj, s), (t,), (jnp.ones_like(t),))[1]

    def gamma(self, qi, qj, qdi, qdj, t):
        """γ = −(Φ_q q̇)_q q̇ − 2Φ_qt q̇ − Φ_tt = −d²/ds² Φ(q + s q̇, t + s) at s = 0."""
        def along(s):
            return self.residual(qi + s * qdi, qj + s * qdj, t + s)

        def rate(s):
            return jax.jvp(along, (s,), (jnp.ones_like(s),))[1]

        zero = jnp.zeros_like(t)
        return -jax.jvp(rate, (zero,), (jnp.ones_like(zero),))[1]

    def kinematic_terms(self, qi, qj, qdi, qdj, t):
        """(Φ, ∂Φ/∂q_i, ∂Φ/∂q_j, Φ_t, γ) in one call — what the equations of motion need
        per step (the commonest joints override it to share their rotations)."""
        Ji, Jj = self.jacobians(qi, qj, t)
        return (self.residual(qi, qj, t), Ji, Jj, self.time_derivative(qi, qj, t),
                self.gamma(qi, qj, qdi, qdj, t))

    def slide_jacobians(self, qi, qj):
        """(∂s/∂q_i, ∂s/∂q_j) of the joint's ``slide``, each (3,)."""
        return jax.jacfwd(self.slide, argnums=(0, 1))(qi, qj)

    def _d(self, qi, qj):
        """d_ij = r_jᴾ − r_iᴾ in the ground frame."""
        return global_point(qj, self.point_j) - global_point(qi, self.point_i)


def _friction_slot(owner, law, pin_radius, viscous, preload, slider_length, rotational):
    """Checked friction arguments of a revolute or translational joint."""
    return check_friction_slot(owner, law, pin_radius, viscous, preload, slider_length,
                               rotational)


# --- joints ------------------------------------------------------------------------------

class RevoluteJoint(AbstractConstraint):
    """Pin joint: point_i of body i and point_j of body j coincide (removes 2 DOF).

    Φ = r_i + A_i s_i'ᴾ − r_j − A_j s_j'ᴾ = 0 (SPEC §9). Points are in the body frames [m].
    Reaction ``Fx, Fy`` [N] on body i in body i's frame, ``T`` [N·m] (zero for a pin) about
    the pin. Its slide is the relative rotation φ_j − φ_i [rad]; ``friction=`` (a friction
    law, with ``pin_radius`` a [m]) acts along it (see docs/joint_friction.md).

    Examples
    --------
    >>> import stickslip as ss
    >>> m = ss.planar.Model()
    >>> crank = m.add_body("crank", mass=1.0, inertia=1e-3, x=0.05)
    >>> j = m.add(ss.planar.RevoluteJoint(m.ground, crank, point_j=(-0.05, 0.0)))
    >>> m.dof()
    1
    """

    n_equations: ClassVar[int] = 2
    prefix: ClassVar[str] = "revolute"
    supports_friction: ClassVar[bool] = True
    slide_unit: ClassVar[str] = "rad"
    body_i: Any = eqx.field(static=True)
    body_j: Any = eqx.field(static=True)
    point_i: Any
    point_j: Any
    name: str | None = eqx.field(static=True)
    friction: Any
    pin_radius: Any
    viscous: Any
    preload: Any

    def __init__(self, body_i, body_j, point_i=(0.0, 0.0), point_j=(0.0, 0.0), *,
                 name: str | None = None, friction=None, pin_radius: float | None = None,
                 viscous: float = 0.0, preload: float = 0.0):
        self.body_i, self.body_j, self.point_i, self.point_j = body_i, body_j, point_i, point_j
        self.name = _name(type(self).__name__, name)
        self.friction, self.pin_radius, self.viscous, self.preload, _ = _friction_slot(
            self.owner, friction, pin_radius, viscous, preload, None, rotational=True)

    @property
    def slider_length(self):
        return None

    def residual(self, qi, qj, t):
        return -self._d(qi, qj)

    def slide(self, qi, qj):
        return qj[2] - qi[2]

    # hand-written derivatives (SPEC §9): Φ = r_i + A_i s_i' − r_j − A_j s_j', so
    # Φ_qi = [I, B_i s_i'], Φ_qj = −[I, B_j s_j'] with B = dA/dφ = A R, and
    # γ = A_i s_i' φ̇_i² − A_j s_j' φ̇_j²
    def jacobians(self, qi, qj, t):
        eye = jnp.eye(2, dtype=qi.dtype)
        bi = rotation(qi[2]) @ perp(self.point_i)
        bj = rotation(qj[2]) @ perp(self.point_j)
        return (jnp.concatenate([eye, bi[:, None]], axis=1),
                -jnp.concatenate([eye, bj[:, None]], axis=1))

    def time_derivative(self, qi, qj, t):
        return jnp.zeros(2, dtype=qi.dtype)

    def gamma(self, qi, qj, qdi, qdj, t):
        return ((rotation(qi[2]) @ self.point_i) * qdi[2] ** 2
                - (rotation(qj[2]) @ self.point_j) * qdj[2] ** 2)

    def kinematic_terms(self, qi, qj, qdi, qdj, t):
        # the same formulas as above, with the arms s_i = A_i s_i', s_j = A_j s_j' shared
        si, sj = rotation(qi[2]) @ self.point_i, rotation(qj[2]) @ self.point_j
        eye = jnp.eye(2, dtype=qi.dtype)
        Ji = jnp.concatenate([eye, perp(si)[:, None]], axis=1)
        Jj = -jnp.concatenate([eye, perp(sj)[:, None]], axis=1)
        phi = qi[:2] + si - qj[:2] - sj
        gamma = si * qdi[2] ** 2 - sj * qdj[2] ** 2
        return phi, Ji, Jj, jnp.zeros(2, dtype=qi.dtype), gamma

    def slide_jacobians(self, qi, qj):
        e = jnp.array([0.0, 0.0, 1.0], dtype=qi.dtype)
        return -e, e


class TranslationalJoint(AbstractConstraint):
    """Prismatic joint: body j slides along the axis through point_i of body i (2 DOF removed).

    Φ = [n_iᵀ d_ij, φ_j − φ_i − θ₀] with n_i = R A_i u_i the normal of the axis u_i
    (``axis_i``, body i's frame) and d_ij = r_jᴾ − r_iᴾ (SPEC §9). θ₀ is the relative angle
    at :meth:`Model.add` time unless ``angle=`` is given. Its slide is s = u_iᵀ d_ij [m];
    ``friction=`` acts along it (``slider_length`` L spreads the reaction moment over two
    edges, SPEC §9 9-2).
    Reaction on body i in the joint frame (x' along the axis): ``Fx`` (zero without
    friction), ``Fy`` the normal force [N], ``T`` the moment about point_i [N·m].
    """

    n_equations: ClassVar[int] = 2
    prefix: ClassVar[str] = "translational"
    supports_friction: ClassVar[bool] = True
    slide_unit: ClassVar[str] = "m"
    body_i: Any = eqx.field(static=True)
    body_j: Any = eqx.field(static=True)
    point_i: Any
    point_j: Any
    axis_i: Any
    angle: Any
    name: str | None = eqx.field(static=True)
    friction: Any
    slider_length: Any
    viscous: Any
    preload: Any

    def __init__(self, body_i, body_j, point_i=(0.0, 0.0), point_j=(0.0, 0.0),
                 axis_i=(1.0, 0.0), *, angle: float | None = None, name: str | None = None,
                 friction=None, slider_length: float | None = None, viscous: float = 0.0,
                 preload: float = 0.0):
        self.body_i, self.body_j, self.point_i, self.point_j = body_i, body_j, point_i, point_j
        self.name = _name(type(self).__name__, name)
        self.axis_i = _unit_axis(self.owner, axis_i)
        self.angle = None if angle is None else _finite(self.owner, "angle", angle, "rad")
        self.friction, _, self.viscous, self.preload, self.slider_length = _friction_slot(
            self.owner, friction, None, viscous, preload, slider_length, rotational=False)

    @property
    def pin_radius(self):
        return None

    @property
    def frame_i(self):
        return jnp.arctan2(self.axis_i[1], self.axis_i[0])

    def _frozen(self, pose_i, pose_j):
        return {} if self.angle is not None else {"angle": pose_j[2] - pose_i[2]}

    def residual(self, qi, qj, t):
        n = perp(rotation(qi[2]) @ self.axis_i)
        return jnp.stack([n @ self._d(qi, qj), qj[2] - qi[2] - self.angle])

    def slide(self, qi, qj):
        return (rotation(qi[2]) @ self.axis_i) @ self._d(qi, qj)

    # hand-written derivatives: with n = A_i R u (the axis normal) and d = d_ij,
    # ∂(nᵀd)/∂q_i = [−nᵀ, −(A_i u)ᵀd − uᵀs_i'], ∂(nᵀd)/∂q_j = [nᵀ, nᵀA_j R s_j'];
    # γ₁ = φ̇_i² nᵀd + 2φ̇_i (A_i u)ᵀḋ − nᵀ(A_i s_i' φ̇_i² − A_j s_j' φ̇_j²), γ₂ = 0
    def jacobians(self, qi, qj, t):
        Ai, Aj = rotation(qi[2]), rotation(qj[2])
        n, ui, d = Ai @ perp(self.axis_i), Ai @ self.axis_i, self._d(qi, qj)
        zero = jnp.zeros((), qi.dtype)
        one = jnp.ones((), qi.dtype)
        row_i = jnp.stack([-n[0], -n[1], -(ui @ d) - self.axis_i @ self.point_i])
        row_j = jnp.stack([n[0], n[1], n @ (Aj @ perp(self.point_j))])
        return (jnp.stack([row_i, jnp.stack([zero, zero, -one])]),
                jnp.stack([row_j, jnp.stack([zero, zero, one])]))

    def time_derivative(self, qi, qj, t):
        return jnp.zeros(2, dtype=qi.dtype)

    def gamma(self, qi, qj, qdi, qdj, t):
        Ai, Aj = rotation(qi[2]), rotation(qj[2])
        n, ui, d = Ai @ perp(self.axis_i), Ai @ self.axis_i, self._d(qi, qj)
        wi, wj = qdi[2], qdj[2]
        si, sj = Ai @ self.point_i, Aj @ self.point_j
        d_dot = qdj[:2] + perp(sj) * wj - qdi[:2] - perp(si) * wi
        g1 = wi ** 2 * (n @ d) + 2 * wi * (ui @ d_dot) - n @ (si * wi ** 2 - sj * wj ** 2)
        return jnp.stack([g1, jnp.zeros((), qi.dtype)])

    def kinematic_terms(self, qi, qj, qdi, qdj, t):
        # the formulas of `residual`, `jacobians` and `gamma` with A_i, A_j, n, u_i, d and
        # the arms s_i = A_i s_i', s_j = A_j s_j' computed once
        Ai, Aj = rotation(qi[2]), rotation(qj[2])
        ui = Ai @ self.axis_i
        n = perp(ui)
        si, sj = Ai @ self.point_i, Aj @ self.point_j
        d = qj[:2] + sj - qi[:2] - si
        wi, wj = qdi[2], qdj[2]
        nd = n @ d
        zero, one = jnp.zeros((), qi.dtype), jnp.ones((), qi.dtype)
        Ji = jnp.stack([jnp.concatenate([-n, (-(ui @ d) - self.axis_i @ self.point_i)[None]]),
                        jnp.stack([zero, zero, -one])])
        Jj = jnp.stack([jnp.concatenate([n, (n @ perp(sj))[None]]),
                        jnp.stack([zero, zero, one])])
        phi = jnp.stack([nd, qj[2] - qi[2] - self.angle])
        d_dot = qdj[:2] + perp(sj) * wj - qdi[:2] - perp(si) * wi
        g1 = wi ** 2 * nd + 2 * wi * (ui @ d_dot) - n @ (si * wi ** 2 - sj * wj ** 2)
        return phi, Ji, Jj, jnp.zeros(2, dtype=qi.dtype), jnp.stack([g1, zero])

    def slide_jacobians(self, qi, qj):
        # s = uᵀd with u = A_i u_i': ∂s/∂r_i = −u, ∂s/∂φ_i = (R u)ᵀd − uᵀR s_i,
        # ∂s/∂r_j = u, ∂s/∂φ_j = uᵀR s_j (s_i = A_i s_i', R the +90° turn)
        Ai, Aj = rotation(qi[2]), rotation(qj[2])
        u = Ai @ self.axis_i
        si, sj = Ai @ self.point_i, Aj @ self.point_j
        d = qj[:2] + sj - qi[:2] - si
        return (jnp.concatenate([-u, (perp(u) @ d - u @ perp(si))[None]]),
                jnp.concatenate([u, (u @ perp(sj))[None]]))


class RevoluteRevoluteJoint(AbstractConstraint):
    """Massless coupler of length C between point_i and point_j (removes 1 DOF).

    Φ = (d_ijᵀ d_ij − C²) / (2C) (SPEC §9, scaled so that its multiplier is the coupler's
    compression force [N]).
    """

    n_equations: ClassVar[int] = 1
    prefix: ClassVar[str] = "coupler"
    body_i: Any = eqx.field(static=True)
    body_j: Any = eqx.field(static=True)
    point_i: Any
    point_j: Any
    length: Any
    name: str | None = eqx.field(static=True)

    def __init__(self, body_i, body_j, point_i=(0.0, 0.0), point_j=(0.0, 0.0), *,
                 length: float, name: str | None = None):
        self.body_i, self.body_j, self.point_i, self.point_j = body_i, body_j, point_i, point_j
        self.name = _name(type(self).__name__, name)
        self.length = _positive(self.owner, "length", length, "m")

    def residual(self, qi, qj, t):
        d = self._d(qi, qj)
        return jnp.atleast_1d((d @ d - self.length ** 2) / (2 * self.length))


class RevoluteTranslationalJoint(AbstractConstraint):
    """Point_j of body j stays at distance C from the line through point_i along axis_i of
    body i (removes 1 DOF): Φ = n_iᵀ d_ij − C (SPEC §9)."""

    n_equations: ClassVar[int] = 1
    prefix: ClassVar[str] = "revolute_translational"
    body_i: Any = eqx.field(static=True)
    body_j: Any = eqx.field(static=True)
    point_i: Any
    point_j: Any
    axis_i: Any
    distance: Any
    name: str | None = eqx.field(static=True)

    def __init__(self, body_i, body_j, point_i=(0.0, 0.0), point_j=(0.0, 0.0),
                 axis_i=(1.0, 0.0), *, distance: float = 0.0, name: str | None = None):
        self.body_i, self.body_j, self.point_i, self.point_j = body_i, body_j, point_i, point_j
        self.name = _name(type(self).__name__, name)
        self.axis_i = _unit_axis(self.owner, axis_i)
        self.distance = _finite(self.owner, "distance", distance, "m")

    @property
    def frame_i(self):
        return jnp.arctan2(self.axis_i[1], self.axis_i[0])

    def residual(self, qi, qj, t):
        n = perp(rotation(qi[2]) @ self.axis_i)
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

    n_equations: ClassVar[int] = 1
    prefix: ClassVar[str] = "gear"
    config_fields: ClassVar[tuple[str, ...]] = ("internal",)
    body_i: Any = eqx.field(static=True)
    body_j: Any = eqx.field(static=True)
    point_i: Any
    point_j: Any
    radius_i: Any
    radius_j: Any
    internal: bool = eqx.field(static=True)
    phase: Any
    theta0: Any
    name: str | None = eqx.field(static=True)

    def __init__(self, body_i, body_j, point_i=(0.0, 0.0), point_j=(0.0, 0.0), *,
                 radius_i: float, radius_j: float, internal: bool = False,
                 name: str | None = None):
        self.body_i, self.body_j, self.point_i, self.point_j = body_i, body_j, point_i, point_j
        self.name = _name(type(self).__name__, name)
        self.radius_i = _positive(self.owner, "radius_i", radius_i, "m")
        self.radius_j = _positive(self.owner, "radius_j", radius_j, "m")
        self.internal = bool(internal)
        self.phase = host_array(0.0)
        self.theta0 = host_array(0.0)

    def _raw(self, qi, qj, theta0):
        d = self._d(qi, qj)
        e0 = jnp.stack([jnp.cos(theta0), jnp.sin(theta0)])
        theta = theta0 + jnp.arctan2(cross2(e0, d), e0 @ d)
        sign = -1.0 if self.internal else 1.0
        return self.radius_i * (qi[2] - theta) + sign * self.radius_j * (qj[2] - theta)

    def _frozen(self, pose_i, pose_j):
        d = self._d(pose_i, pose_j)
        theta0 = jnp.arctan2(d[1], d[0])
        return {"theta0": theta0, "phase": self._raw(pose_i, pose_j, theta0)}

    def residual(self, qi, qj, t):
        return jnp.atleast_1d(self._raw(qi, qj, self.theta0) - self.phase)


class AbsoluteX(AbstractConstraint):
    """x of a body point fixed: x_iᴾ − x₀ = 0 (x₀ from the pose at `add` time by default)."""

    n_equations: ClassVar[int] = 1
    prefix: ClassVar[str] = "absolute_x"
    axis: ClassVar[int] = 0          # which world coordinate of the point is fixed
    body_i: Any = eqx.field(static=True)
    body_j: Any = eqx.field(static=True)
    point_i: Any
    point_j: Any
    value: Any
    name: str | None = eqx.field(static=True)

    def __init__(self, body, point=(0.0, 0.0), *, x: float | None = None, name=None):
        self.body_i, self.body_j, self.point_i, self.point_j = body, "ground", point, (0.0, 0.0)
        self.name = _name(type(self).__name__, name)
        self.value = None if x is None else _finite(self.owner, "xy"[self.axis], x, "m")

    def describe(self) -> str:
        return f"{type(self).__name__} {self.name!r} on {self.body_i.name!r}"

    def _frozen(self, pose_i, pose_j):
        if self.value is not None:
            return {}
        return {"value": global_point(pose_i, self.point_i)[self.axis]}

    def residual(self, qi, qj, t):
        return jnp.atleast_1d(global_point(qi, self.point_i)[self.axis] - self.value)


class AbsoluteY(AbsoluteX):
    """y of a body point fixed: y_iᴾ − y₀ = 0."""

    prefix: ClassVar[str] = "absolute_y"
    axis: ClassVar[int] = 1

    def __init__(self, body, point=(0.0, 0.0), *, y: float | None = None, name=None):
        self.body_i, self.body_j, self.point_i, self.point_j = body, "ground", point, (0.0, 0.0)
        self.name = _name(type(self).__name__, name)
        self.value = None if y is None else _finite(self.owner, "y", y, "m")


class AbsoluteAngle(AbstractConstraint):
    """Rotation of a body fixed: φ_i − φ₀ = 0."""

    n_equations: ClassVar[int] = 1
    prefix: ClassVar[str] = "absolute_phi"
    body_i: Any = eqx.field(static=True)
    body_j: Any = eqx.field(static=True)
    point_i: Any
    point_j: Any
    value: Any
    name: str | None = eqx.field(static=True)

    def __init__(self, body, *, phi: float | None = None, name=None):
        self.body_i, self.body_j = body, "ground"
        self.point_i, self.point_j = (0.0, 0.0), (0.0, 0.0)
        self.name = _name(type(self).__name__, name)
        self.value = None if phi is None else _finite(self.owner, "phi", phi, "rad")

    def describe(self) -> str:
        return f"{type(self).__name__} {self.name!r} on {self.body_i.name!r}"

    def _frozen(self, pose_i, pose_j):
        return {} if self.value is not None else {"value": pose_i[2]}

    def residual(self, qi, qj, t):
        return jnp.atleast_1d(qi[2] - self.value)


class AbsoluteDistance(AbstractConstraint):
    """A body point keeps distance C from a ground point: (dᵀd − C²)/(2C) = 0."""

    n_equations: ClassVar[int] = 1
    prefix: ClassVar[str] = "absolute_distance"
    body_i: Any = eqx.field(static=True)
    body_j: Any = eqx.field(static=True)
    point_i: Any
    point_j: Any
    ground_point: Any
    distance: Any
    name: str | None = eqx.field(static=True)

    def __init__(self, body, point=(0.0, 0.0), *, ground_point=(0.0, 0.0), distance: float,
                 name=None):
        from ._body import _vector

        self.body_i, self.body_j, self.point_i, self.point_j = body, "ground", point, (0.0, 0.0)
        self.name = _name(type(self).__name__, name)
        self.ground_point = host_array(_vector(self.owner, "ground_point", ground_point))
        self.distance = _positive(self.owner, "distance", distance, "m")

    def describe(self) -> str:
        return f"{type(self).__name__} {self.name!r} on {self.body_i.name!r}"

    def residual(self, qi, qj, t):
        d = global_point(qi, self.point_i) - self.ground_point
        return jnp.atleast_1d((d @ d - self.distance ** 2) / (2 * self.distance))


# --- drivers -----------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class _ConstantSpeed:
    """C(t) = start + rate·t (a value object: equal motions compare equal, so models built
    twice share their compiled programs)."""

    rate: float
    start: float

    def __call__(self, t):
        return self.start + self.rate * t

    @property
    def __name__(self) -> str:
        return f"constant_speed({self.rate:g}, start={self.start:g})"


@dataclasses.dataclass(frozen=True)
class _SmoothRamp:
    """C(t) from `start` to `end` between t0 and t1 along 10s³ − 15s⁴ + 6s⁵."""

    start: float
    end: float
    t0: float
    t1: float

    def __call__(self, t):
        s = jnp.clip((t - self.t0) / (self.t1 - self.t0), 0.0, 1.0)
        return self.start + (self.end - self.start) * s ** 3 * (10 - 15 * s + 6 * s ** 2)

    @property
    def __name__(self) -> str:
        return f"smooth_ramp({self.start:g}→{self.end:g}, {self.t0:g}–{self.t1:g} s)"


def constant_speed(rate: float, start: float = 0.0) -> Callable:
    """C(t) = start + rate·t: a driver at constant speed (rad/s or m/s)."""
    rate, start = float(rate), float(start)
    if not (math.isfinite(rate) and math.isfinite(start)):
        raise ParameterError(f"`constant_speed` needs finite rate and start; got "
                             f"rate={rate}, start={start}.")
    return _ConstantSpeed(rate, start)


def smooth_ramp(start: float, end: float, t0: float, t1: float) -> Callable:
    """C(t) going from `start` (t ≤ t0) to `end` (t ≥ t1) along a quintic
    10s³ − 15s⁴ + 6s⁵ (zero velocity and acceleration at both ends)."""
    start, end, t0, t1 = float(start), float(end), float(t0), float(t1)
    if not t1 > t0:
        raise ParameterError(f"`smooth_ramp` needs t1 > t0; got t0={t0}, t1={t1}.")
    return _SmoothRamp(start, end, t0, t1)


class _AbstractDriver(AbstractConstraint):
    """A driving constraint: one row, its multiplier reported as ``<name>.effort``."""

    n_equations: ClassVar[int] = 1
    is_driver: ClassVar[bool] = True
    prefix: ClassVar[str] = "driver"
    config_fields: ClassVar[tuple[str, ...]] = ("motion",)

    def describe(self) -> str:
        j = (f" and {self.body_j.name!r}"
             if not isinstance(self.body_j, str) and not self.body_j.is_ground else "")
        return f"{type(self).__name__} {self.name!r} on {self.body_i.name!r}{j}"


class RotationalDriver(_AbstractDriver):
    """Prescribed relative rotation: φ_j − φ_i − C(t) = 0 (SPEC §9).

    ``angle``: C(t) [rad], a ``jax.numpy`` callable of time (or a constant); see
    :func:`constant_speed` and :func:`smooth_ramp`. ``<name>.effort`` is the torque [N·m] the
    driver applies to body j (and −effort to body i).
    """

    prefix: ClassVar[str] = "rotational_driver"
    effort_unit: ClassVar[str] = "N·m"
    body_i: Any = eqx.field(static=True)
    body_j: Any = eqx.field(static=True)
    point_i: Any
    point_j: Any
    motion: Callable = eqx.field(static=True)
    name: str | None = eqx.field(static=True)

    def __init__(self, body_i, body_j, angle: Callable, *, name: str | None = None):
        self.body_i, self.body_j = body_i, body_j
        self.point_i, self.point_j = (0.0, 0.0), (0.0, 0.0)
        self.name = _name(type(self).__name__, name)
        self.motion = _time_function(self.owner, "angle", angle)

    def residual(self, qi, qj, t):
        return jnp.atleast_1d(qj[2] - qi[2] - self.motion(t))


class TranslationalDriver(_AbstractDriver):
    """Prescribed slide along the axis of a translational pair: u_iᵀ d_ij − C(t) = 0 with
    u_i = A_i axis_i. ``distance``: C(t) [m]. ``effort``: force [N] on body j along u_i."""

    prefix: ClassVar[str] = "translational_driver"
    body_i: Any = eqx.field(static=True)
    body_j: Any = eqx.field(static=True)
    point_i: Any
    point_j: Any
    axis_i: Any
    motion: Callable = eqx.field(static=True)
    name: str | None = eqx.field(static=True)

    def __init__(self, body_i, body_j, point_i=(0.0, 0.0), point_j=(0.0, 0.0),
                 axis_i=(1.0, 0.0), *, distance: Callable, name: str | None = None):
        self.body_i, self.body_j, self.point_i, self.point_j = body_i, body_j, point_i, point_j
        self.name = _name(type(self).__name__, name)
        self.axis_i = _unit_axis(self.owner, axis_i)
        self.motion = _time_function(self.owner, "distance", distance)

    @property
    def frame_i(self):
        return jnp.arctan2(self.axis_i[1], self.axis_i[0])

    def residual(self, qi, qj, t):
        u = rotation(qi[2]) @ self.axis_i
        return jnp.atleast_1d(u @ self._d(qi, qj) - self.motion(t))


def _check_coordinate(owner: str, coordinate: str) -> str:
    """A driver's coordinate name, checked: "x", "y" or "phi"."""
    if coordinate not in ("x", "y", "phi"):
        raise ParameterError(f"`{owner}.coordinate` must be 'x', 'y' or 'phi'; got "
                             f"{coordinate!r}.")
    return coordinate


class AbsoluteDriver(_AbstractDriver):
    """Prescribed absolute coordinate of a body point: ``coordinate`` "x", "y" (of the point,
    [m]) or "phi" (of the body, [rad]) equals C(t). ``effort``: the force [N] or torque
    [N·m] the driver applies to the body in that coordinate's direction."""

    prefix: ClassVar[str] = "absolute_driver"
    config_fields: ClassVar[tuple[str, ...]] = ("motion", "coordinate")
    body_i: Any = eqx.field(static=True)
    body_j: Any = eqx.field(static=True)
    point_i: Any
    point_j: Any
    coordinate: str = eqx.field(static=True)
    motion: Callable = eqx.field(static=True)
    name: str | None = eqx.field(static=True)

    def __init__(self, body, coordinate: str, value: Callable, point=(0.0, 0.0), *,
                 name: str | None = None):
        self.body_i, self.body_j, self.point_i, self.point_j = body, "ground", point, (0.0, 0.0)
        self.name = _name(type(self).__name__, name)
        self.coordinate = _check_coordinate(self.owner, coordinate)
        self.motion = _time_function(self.owner, "value", value)

    @property
    def effort_unit(self) -> str:  # type: ignore[override]
        return "N·m" if self.coordinate == "phi" else "N"

    def residual(self, qi, qj, t):
        if self.coordinate == "phi":
            value = qi[2]
        else:
            value = global_point(qi, self.point_i)["xy".index(self.coordinate)]
        return jnp.atleast_1d(value - self.motion(t))


class RelativeDriver(_AbstractDriver):
    """Prescribed relative coordinate in the ground frame: (r_jᴾ − r_iᴾ)_x or _y = C(t) [m],
    or φ_j − φ_i = C(t) [rad] for ``coordinate="phi"``."""

    prefix: ClassVar[str] = "relative_driver"
    config_fields: ClassVar[tuple[str, ...]] = ("motion", "coordinate")
    body_i: Any = eqx.field(static=True)
    body_j: Any = eqx.field(static=True)
    point_i: Any
    point_j: Any
    coordinate: str = eqx.field(static=True)
    motion: Callable = eqx.field(static=True)
    name: str | None = eqx.field(static=True)

    def __init__(self, body_i, body_j, coordinate: str, value: Callable, point_i=(0.0, 0.0),
                 point_j=(0.0, 0.0), *, name: str | None = None):
        self.body_i, self.body_j, self.point_i, self.point_j = body_i, body_j, point_i, point_j
        self.name = _name(type(self).__name__, name)
        self.coordinate = _check_coordinate(self.owner, coordinate)
        self.motion = _time_function(self.owner, "value", value)

    @property
    def effort_unit(self) -> str:  # type: ignore[override]
        return "N·m" if self.coordinate == "phi" else "N"

    def residual(self, qi, qj, t):
        if self.coordinate == "phi":
            value = qj[2] - qi[2]
        else:
            value = self._d(qi, qj)["xy".index(self.coordinate)]
        return jnp.atleast_1d(value - self.motion(t))


class DistanceDriver(_AbstractDriver):
    """Prescribed distance between point_i and point_j: ‖d_ij‖ − C(t) = 0 (C > 0, [m]).
    ``effort``: the force [N] pushing the points apart."""

    prefix: ClassVar[str] = "distance_driver"
    body_i: Any = eqx.field(static=True)
    body_j: Any = eqx.field(static=True)
    point_i: Any
    point_j: Any
    motion: Callable = eqx.field(static=True)
    name: str | None = eqx.field(static=True)

    def __init__(self, body_i, body_j, point_i=(0.0, 0.0), point_j=(0.0, 0.0), *,
                 distance: Callable, name: str | None = None):
        self.body_i, self.body_j, self.point_i, self.point_j = body_i, body_j, point_i, point_j
        self.name = _name(type(self).__name__, name)
        self.motion = _time_function(self.owner, "distance", distance)

    def residual(self, qi, qj, t):
        d = self._d(qi, qj)
        return jnp.atleast_1d(jnp.sqrt(d @ d) - self.motion(t))
