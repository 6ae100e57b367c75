"""Joints: the kinematic constraints between two bodies (SPEC §9) — revolute, translational,
revolute–revolute (a massless coupler), revolute–translational and gear pairs.

The revolute and translational joints carry the friction slot (``friction=``, see
docs/joint_friction.md) and hand-written derivatives of Φ, each written once in their
``kinematic_terms`` and ``slide_terms`` (:class:`~._constraint_base.AbstractHandConstraint`);
the others write Φ only and use the forward-mode derivatives of
:class:`~._constraint_base.AbstractConstraint`, whose docstring holds the contract.
"""

from __future__ import annotations

from typing import Any, ClassVar

import equinox as eqx
import jax.numpy as jnp

from .._rules import Rule
from ._base import host_array, parameter_array, unit_direction
from ._body import cross2, perp, rotation
from ._constraint_base import (
    AXIS,
    POINT,
    AbstractConstraint,
    AbstractHandConstraint,
    _name,
    angle_rule,
    length_rule,
)
from ._friction_slot import PIN_RADIUS, SLIDER_LENGTH, SLOT_RULES, check_friction_slot

__all__ = ["GearJoint", "RevoluteJoint", "RevoluteRevoluteJoint",
           "RevoluteTranslationalJoint", "TranslationalJoint"]


class RevoluteJoint(AbstractHandConstraint):
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
    parameter_rules: ClassVar[dict[str, Rule]] = {
        "point_i": POINT, "point_j": POINT, "pin_radius": PIN_RADIUS, **SLOT_RULES}

    def __init__(self, body_i, body_j, point_i=(0.0, 0.0), point_j=(0.0, 0.0), *,
                 name: str | None = None, friction=None, pin_radius: float | None = None,
                 viscous: float = 0.0, preload: float = 0.0):
        self.body_i, self.body_j, self.point_i, self.point_j = body_i, body_j, point_i, point_j
        self.name = _name(type(self).__name__, name)
        self.friction, self.pin_radius = friction, parameter_array(pin_radius)
        self.viscous, self.preload = parameter_array(viscous), parameter_array(preload)

    def __check_init__(self) -> None:
        check_friction_slot(self.owner, self.friction, self.pin_radius, rotational=True)

    @classmethod
    def example(cls) -> RevoluteJoint:
        """A pin between the ground and body ``"link"`` with Coulomb friction (a = 5 mm)."""
        from ..laws import CoulombODE

        return cls("ground", "link", (0.0, 0.0), (-0.3, 0.05), pin_radius=5e-3,
                   friction=CoulombODE(mu=0.2, K=1e4, beta=1e-3), viscous=0.01)

    @property
    def slider_length(self):
        return None

    # hand-written (SPEC §9): with the arms s_i = A_i s_i', s_j = A_j s_j',
    # Φ = r_i + s_i − r_j − s_j, Φ_qi = [I, R s_i], Φ_qj = −[I, R s_j] (R the +90° turn,
    # so R s_i = B_i s_i' with B = dA/dφ), Φ_t = 0 and γ = s_i φ̇_i² − s_j φ̇_j²
    def kinematic_terms(self, qi, qj, qdi, qdj, t):
        si, sj = rotation(qi[2]) @ self.point_i, rotation(qj[2]) @ self.point_j
        eye = jnp.eye(2, dtype=qi.dtype)
        Ji = jnp.concatenate([eye, perp(si)[:, None]], axis=1)
        Jj = -jnp.concatenate([eye, perp(sj)[:, None]], axis=1)
        phi = qi[:2] + si - qj[:2] - sj
        gamma = si * qdi[2] ** 2 - sj * qdj[2] ** 2
        return phi, Ji, Jj, jnp.zeros(2, dtype=qi.dtype), gamma

    def slide_terms(self, qi, qj):
        # s = φ_j − φ_i
        e = jnp.array([0.0, 0.0, 1.0], dtype=qi.dtype)
        return qj[2] - qi[2], -e, e


class TranslationalJoint(AbstractHandConstraint):
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
    parameter_rules: ClassVar[dict[str, Rule]] = {
        "point_i": POINT, "point_j": POINT, "axis_i": AXIS,
        "angle": angle_rule("the relative angle θ₀ (or None: frozen at Model.add)"),
        "slider_length": SLIDER_LENGTH, **SLOT_RULES}

    def __init__(self, body_i, body_j, point_i=(0.0, 0.0), point_j=(0.0, 0.0),
                 axis_i=(1.0, 0.0), *, angle: float | None = None, name: str | None = None,
                 friction=None, slider_length: float | None = None, viscous: float = 0.0,
                 preload: float = 0.0):
        self.body_i, self.body_j, self.point_i, self.point_j = body_i, body_j, point_i, point_j
        self.name = _name(type(self).__name__, name)
        self.axis_i = unit_direction(axis_i)
        self.angle = parameter_array(angle)
        self.friction, self.slider_length = friction, parameter_array(slider_length)
        self.viscous, self.preload = parameter_array(viscous), parameter_array(preload)

    def __check_init__(self) -> None:
        check_friction_slot(self.owner, self.friction, None, rotational=False)

    @classmethod
    def example(cls) -> TranslationalJoint:
        """Body ``"link"`` sliding along a tilted ground axis, with Coulomb friction over a
        slider of length 0.1 m."""
        from ..laws import CoulombODE

        return cls("ground", "link", (0.1, 0.0), (0.0, 0.2), axis_i=(0.6, 0.8),
                   friction=CoulombODE(mu=0.2, K=1e4, beta=1e-3), slider_length=0.1)

    @property
    def pin_radius(self):
        return None

    @property
    def frame_i(self):
        return jnp.arctan2(self.axis_i[1], self.axis_i[0])

    def _frozen(self, pose_i, pose_j):
        return {} if self.angle is not None else {"angle": pose_j[2] - pose_i[2]}

    # hand-written (SPEC §9): with u = A_i u_i' (the axis), n = R u (its normal), the arms
    # s_i = A_i s_i', s_j = A_j s_j' and d = d_ij: Φ = [nᵀd, φ_j − φ_i − θ₀],
    # ∂(nᵀd)/∂q_i = [−nᵀ, −uᵀd − u_i'ᵀs_i'], ∂(nᵀd)/∂q_j = [nᵀ, nᵀR s_j], Φ_t = 0,
    # γ₁ = φ̇_i² nᵀd + 2φ̇_i uᵀḋ − nᵀ(s_i φ̇_i² − s_j φ̇_j²) with ḋ = ṙ_j + R s_j φ̇_j − ṙ_i
    # − R s_i φ̇_i, and γ₂ = 0
    def kinematic_terms(self, qi, qj, qdi, qdj, t):
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

    def slide_terms(self, qi, qj):
        # s = uᵀd: ∂s/∂r_i = −u, ∂s/∂φ_i = (R u)ᵀd − uᵀR s_i, ∂s/∂r_j = u,
        # ∂s/∂φ_j = uᵀR s_j
        Ai, Aj = rotation(qi[2]), rotation(qj[2])
        u = Ai @ self.axis_i
        si, sj = Ai @ self.point_i, Aj @ self.point_j
        d = qj[:2] + sj - qi[:2] - si
        return (u @ d, jnp.concatenate([-u, (perp(u) @ d - u @ perp(si))[None]]),
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
    parameter_rules: ClassVar[dict[str, Rule]] = {
        "point_i": POINT, "point_j": POINT,
        "length": length_rule("the coupler length C (> 0)", optional=False)}

    def __init__(self, body_i, body_j, point_i=(0.0, 0.0), point_j=(0.0, 0.0), *,
                 length: float, name: str | None = None):
        self.body_i, self.body_j, self.point_i, self.point_j = body_i, body_j, point_i, point_j
        self.name = _name(type(self).__name__, name)
        self.length = parameter_array(length)

    @classmethod
    def example(cls) -> RevoluteRevoluteJoint:
        """A 0.7 m coupler between the ground and body ``"link"``."""
        return cls("ground", "link", (0.0, 0.0), (0.1, 0.0), length=0.7)

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
    parameter_rules: ClassVar[dict[str, Rule]] = {
        "point_i": POINT, "point_j": POINT, "axis_i": AXIS,
        "distance": length_rule("the distance C from the line", kind="finite")}

    def __init__(self, body_i, body_j, point_i=(0.0, 0.0), point_j=(0.0, 0.0),
                 axis_i=(1.0, 0.0), *, distance: float = 0.0, name: str | None = None):
        self.body_i, self.body_j, self.point_i, self.point_j = body_i, body_j, point_i, point_j
        self.name = _name(type(self).__name__, name)
        self.axis_i = unit_direction(axis_i)
        self.distance = parameter_array(distance)

    @classmethod
    def example(cls) -> RevoluteTranslationalJoint:
        """A point of body ``"link"`` kept 0.3 m from a tilted ground line."""
        return cls("ground", "link", axis_i=(1.0, 0.2), distance=0.3)

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
    parameter_rules: ClassVar[dict[str, Rule]] = {
        "point_i": POINT, "point_j": POINT,
        "radius_i": length_rule("the pitch radius ρ_i (> 0)", optional=False),
        "radius_j": length_rule("the pitch radius ρ_j (> 0)", optional=False),
        "phase": length_rule("the phase c (frozen at Model.add)", kind="finite"),
        "theta0": angle_rule("the initial direction θ₀ of the line of centres")}

    def __init__(self, body_i, body_j, point_i=(0.0, 0.0), point_j=(0.0, 0.0), *,
                 radius_i: float, radius_j: float, internal: bool = False,
                 name: str | None = None):
        self.body_i, self.body_j, self.point_i, self.point_j = body_i, body_j, point_i, point_j
        self.name = _name(type(self).__name__, name)
        self.radius_i = parameter_array(radius_i)
        self.radius_j = parameter_array(radius_j)
        self.internal = bool(internal)
        self.phase = host_array(0.0)
        self.theta0 = host_array(0.0)

    @classmethod
    def example(cls) -> GearJoint:
        """External gears of radii 0.2 m and 0.3 m on the ground and body ``"link"``."""
        return cls("ground", "link", radius_i=0.2, radius_j=0.3)

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
