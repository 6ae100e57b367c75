"""A point mass on a frictional plane in 3-D (SPEC §5, example 1, eq. 19-22)."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

import equinox as eqx
import jax.numpy as jnp
import numpy as np

from .._parameters import GRAVITY, MASS, AbstractParametrised, Rule
from .._validation import check_finite_matrix, check_shape, concrete
from ..errors import ParameterError
from ..integrate import (
    TIME_STEPPING_METHODS,
    AbstractTimeSteppingHost,
    impulse,
)
from ..laws import (
    AbstractContactLaw,
    AbstractFrictionLaw,
    CoulombODE,
    NewtonImpact,
    UnilateralODE,
    curve_slip_speed,
)
from .._parameter_arrays import as_parameter
from ..nonsmooth import safe_norm
from ._base import AbstractSystem, check_law_scalars, check_time_function, finite_modes
from ._time_stepping import check_friction_step, friction_route_refusal, time_stepping_law

__all__ = ["PointOnPlane"]


def _no_force(t):
    return jnp.zeros(3) * t


def disc_friction(law: CoulombODE, w_free, damping, normal_force):
    """Isotropic Coulomb friction of one implicit step, solved exactly (SPEC §1 theorem (4)
    with r = 2; the seed 001 backward-Euler step of SPEC §6 on the plane).

    With ``damping`` = Ŵ/h [N·s/m] (the step's effective mass over its length) and
    ``w_free`` the 2-D sliding velocity the step would end with without friction [m/s],
    the end-of-step sliding velocity w⁺ and the mean friction force f of the step solve::

        (Ŵ/h)·(w⁺ − w_free) = f,     f ∈ −F(‖w⁺‖)·sgn(w⁺),   F(0) = F_s

    With ``c = (Ŵ/h)·w_free``: **stick** (w⁺ = 0 exactly, f = −c) when ‖c‖ ≤ F_s; else
    **slip** along c at the speed s with ``F(s) + (Ŵ/h)·s = ‖c‖`` (closed form
    ``s = (‖c‖ − F)/(Ŵ/h + σ)`` without a Stribeck drop), f = −F(s)·c/‖c‖. For one level
    (F_s = F, no curve) this is ``f = −sat(F, c)`` (eq. 2, 4): the projection of c onto the
    friction disc. The 1-D step of :mod:`._time_stepping` on the disc (a friction force
    along the sliding direction only: the effective mass is isotropic).

    Returns ``(w_plus, f)``, both 2-vectors.
    """
    static = law.level(normal_force)
    kinetic = law.kinetic_level(normal_force)
    stop = damping * w_free                  # the force that stops the sliding in this step
    drive = safe_norm(stop)
    exponent = 2 if law.stribeck_exponent is None else law.stribeck_exponent
    s = curve_slip_speed(drive, kinetic, static, damping, law.v_stribeck, exponent,
                         law.viscous)
    stick = drive <= static
    sense = stop / jnp.where(drive > 0.0, drive, 1.0)
    w_plus = jnp.where(stick, 0.0, s * sense)
    force = jnp.where(stick, -stop, -law.curve(s, normal_force) * sense)
    return w_plus, force


class PointOnPlane(AbstractSystem, AbstractParametrised, AbstractTimeSteppingHost):
    """A point mass on the plane z = 0 with Coulomb friction and rigid contact (eq. 20-22).

    With p = [x, y, z] and the contact force ``f_z`` from `contact` (eq. 22), the friction
    law gets the tangential velocity ``[ẋ, ẏ]`` and the normal force ``f_z``, so its level is
    ``μ·f_z`` (eq. 21 with the [fix] that friction opposes motion)::

        M p̈ = force(t) + [f_x, f_y, f_z] − [0, 0, M g]

    Parameters
    ----------
    M : float
        Mass [kg] > 0.
    friction : AbstractFrictionLaw, optional
        A friction law with ``mu=`` (default ``CoulombODE(mu=0.5, K=1e4, beta=2e-2)``,
        K2, β2 of eq. 21: the stick mode is critically damped for M = 1 kg, see
        :meth:`CoulombODE.tuned`).
    contact : AbstractContactLaw, optional
        A contact law (default ``UnilateralODE(K=1e5, beta=2e-3, alpha=1e-3)``;
        K1, β1, α of eq. 22).
    g : float, optional
        Gravity [m/s²] along −z (default 9.81).
    force : callable, optional
        Applied force [N] as a callable of t returning a 3-vector (default none).
    p0, v0 : array_like, optional
        Initial position [m] and velocity [m/s], 3-vectors (default at rest on the
        plane at its static penetration).

    Notes
    -----
    Channels: ``x, y, z`` [m], ``vx, vy, vz`` [m/s], ``e`` [m] (contact proxy), ``ax, ay``
    [m] (friction proxy), ``fx, fy`` friction force on the mass [N], ``fz`` contact force [N],
    ``fex, fey, fez`` applied force [N]. State order is eq. 20's: [p; ṗ; e; a].

    Under ``simulate(..., method="moreau_jean", dt=...)`` the plane is rigid and the friction
    set-valued: pass ``contact=ss.laws.NewtonImpact(e=...)`` (a compliant contact law such
    as UnilateralODE is refused there, as ContactMass does) and a `CoulombODE` friction law,
    which acts as the set-valued Coulomb law of its levels (μ·N, μ_s·N or F, F_s, with its
    Stribeck and viscous terms; its K and β are not used). Each step (:meth:`moreau_jean_step`)
    solves the normal impulse by Newton's law at the velocity level and then the friction by
    the projection onto the friction disc of radius μ·(mean normal force) — exact, so the
    point does not move at all under a tangential load inside the cone (``vx = vy = 0``
    exactly in every stuck step). The channels are the ODE route's: ``fx, fy, fz`` are the
    mean forces of the step that ended at the sample (of the first step at t0); the friction
    law's states ``ax, ay`` are 0 (there is no proxy) and there is no ``e`` (NewtonImpact
    has no state).

    Examples
    --------
    >>> import stickslip as ss, jax.numpy as jnp
    >>> point = ss.systems.PointOnPlane(M=1.0, contact=ss.laws.NewtonImpact(e=0.0),
    ...                                 force=lambda t: jnp.array([4.0, 0.0, 0.0]) + 0 * t)
    >>> res = ss.simulate(point, 1.0, method="moreau_jean", dt=1e-2)
    >>> float(res["x"][-1])                  # 4 N < μ·M·g = 4.905 N: it does not move
    0.0
    """

    M: jnp.ndarray = eqx.field(converter=as_parameter)
    friction: AbstractFrictionLaw = eqx.field(
        default_factory=lambda: CoulombODE(mu=0.5, K=1e4, beta=2e-2))
    contact: AbstractContactLaw = eqx.field(
        default_factory=lambda: UnilateralODE(K=1e5, beta=2e-3, alpha=1e-3))
    g: jnp.ndarray = eqx.field(converter=as_parameter, default=9.81)
    force: Callable = _no_force
    p0: jnp.ndarray | None = eqx.field(converter=as_parameter, default=None)
    v0: jnp.ndarray = eqx.field(converter=as_parameter, default=(0.0, 0.0, 0.0))

    parameter_rules: ClassVar[dict[str, Rule]] = {
        "M": MASS, "g": GRAVITY,
        "p0": Rule("finite", "Pass a finite initial position [x, y, z] in metres."),
        "v0": Rule("finite", "Pass a finite initial velocity [vx, vy, vz] in m/s.")}

    def __check_init__(self):
        if self.p0 is not None:
            check_shape("PointOnPlane", "p0", self.p0, (3,))
        check_shape("PointOnPlane", "v0", self.v0, (3,))
        if not isinstance(self.friction, AbstractFrictionLaw):
            raise ParameterError(f"`PointOnPlane.friction` must be a friction law; got "
                                 f"{type(self.friction).__name__}.")
        if not isinstance(self.contact, AbstractContactLaw):
            raise ParameterError(f"`PointOnPlane.contact` must be a contact law; got "
                                 f"{type(self.contact).__name__}.")
        check_law_scalars("PointOnPlane", "friction", self.friction)
        # a level that does not scale with the normal force acts in free flight too: a
        # point launched 10 m above the plane with CoulombODE(F=3) stopped in mid-air
        free_flight = concrete(self.friction.level(0.0))
        if free_flight is not None and np.any(free_flight != 0.0):
            raise ParameterError(
                f"`PointOnPlane.friction` must scale with the normal force (a friction "
                f"coefficient, mu=...); {type(self.friction).__name__} has the level "
                f"{free_flight.tolist()} N at zero normal force, so it would brake the "
                "point in free flight. Pass e.g. CoulombODE(mu=0.5, K=..., beta=...).")
        check_law_scalars("PointOnPlane", "contact", self.contact)
        check_time_function("PointOnPlane", "force", self.force, (3,))

    @property
    def state_names(self):
        names = ("x", "y", "z", "vx", "vy", "vz")
        names += tuple(self.contact.state_names)
        names += tuple(f"{s}{axis}" for s in self.friction.state_names for axis in "xy")
        return names

    @property
    def units(self):
        u = {n: "m" for n in ("x", "y", "z", "e", "ax", "ay", "zx", "zy")}
        u.update({n: "m/s" for n in ("vx", "vy", "vz")})
        u.update({n: "N" for n in ("fx", "fy", "fz", "fex", "fey", "fez")})
        return u

    def initial_state(self):
        if self.p0 is None:   # resting on the plane under its weight
            gap, contact_state = self.contact.resting_state(self.M * self.g)
            p0 = jnp.stack([jnp.zeros_like(gap), jnp.zeros_like(gap), gap])
        else:
            p0, contact_state = self.p0, jnp.zeros(self.contact.n_states)
        return jnp.concatenate([p0, self.v0, contact_state,
                                jnp.zeros(2 * self.friction.n_states)])

    def _split(self, x):
        nc = self.contact.n_states
        p, v = x[0:3], x[3:6]
        e = x[6:6 + nc]
        a = x[6 + nc:].reshape(self.friction.n_states, 2)
        return p, v, e, a

    def _forces(self, x):
        p, v, e, a = self._split(x)
        fz, e_rate = self.contact.force_and_rate(e, p[2], v[2])            # eq. 22, 20
        fxy, a_rate = self.friction.force_and_rate(a, v[:2], fz)          # eq. 21, 20
        return fxy, fz, e_rate, a_rate

    def vector_field(self, t, x):
        _, v, _, _ = self._split(x)
        fxy, fz, e_rate, a_rate = self._forces(x)
        total = self.force(t) + jnp.concatenate([fxy, fz[None]])
        acc = total / self.M - jnp.stack([0.0, 0.0, self.g])
        return jnp.concatenate([v, acc, e_rate, a_rate.reshape(-1)])

    def outputs(self, t, x):
        fxy, fz, _, _ = self._forces(x)
        fe = self.force(t)
        return {"fx": fxy[0], "fy": fxy[1], "fz": fz,
                "fex": fe[0], "fey": fe[1], "fez": fe[2]}

    # --- method="moreau_jean" (stickslip.integrate._moreau_jean) -------------------------

    def route_refusal(self, method):
        why = []
        rigid = isinstance(self.contact, NewtonImpact)
        if method in TIME_STEPPING_METHODS:
            friction = friction_route_refusal(self.friction, method)
            if friction is not None:
                why.append(friction)
            if not rigid:
                why.append(f"its contact law {type(self.contact).__name__} is compliant (an "
                           "ODE law); time stepping needs the rigid plane "
                           "contact=ss.laws.NewtonImpact(e=...)")
        elif rigid:
            why.append("NewtonImpact is a rigid impact law without a force as a function of "
                       "the gap: it runs only under method='moreau_jean'; for an ODE method "
                       "use UnilateralODE or a penalty law")
        return "; and ".join(why) or None

    def check_time_step(self, dt):
        # the Stribeck drop's uniqueness check at the weight M·g (a load pressing the point
        # onto the plane raises μ·N and with it the drop's slope; see disc_friction)
        check_friction_step("PointOnPlane", self.friction, self.M, self.M * self.g, dt)

    def moreau_jean_step(self, t, x, h, theta):
        """One Moreau–Jean step (:mod:`stickslip.integrate._moreau_jean`).

        The applied load's impulse by quadrature and gravity give the free velocity
        ``v_free = v + (∫force dτ − [0, 0, M g h])/M``. The plane's normal (eq. 19's dio,
        rigid): active when the free end-of-step height ``z + h·(θ·v_free,z + (1 − θ)·v_z)``
        is ≤ 0, then ``v⁺_z = max(v_free,z, −e·min(v_z, 0))`` (NewtonImpact, theorem (5) at
        the velocity level) with the normal impulse ``P_n = M·(v⁺_z − v_free,z) ≥ 0``. The
        mass matrix is M·I, so the tangential step does not change P_n: the friction
        (eq. 19/21 with the [fix]) is :func:`disc_friction` with Ŵ = M and the normal force
        P_n/h — for one level ``f_xy = −sat(μ·P_n/h, (M/h)·v_free,xy)``, theorem (4) — and
        ``p⁺ = p + h·(θ·v⁺ + (1 − θ)·v)``.
        """
        p, v = x[0:3], x[3:6]
        gravity = jnp.stack([0.0 * h, 0.0 * h, self.M * self.g * h])
        v_free = v + (impulse(self.force, t, h) - gravity) / self.M
        height = p[2] + h * (theta * v_free[2] + (1.0 - theta) * v[2])
        vz = jnp.where(height <= 0.0, self.contact.velocity_after(v_free[2], v[2]), v_free[2])
        fz = self.M * (vz - v_free[2]) / h                   # mean normal force of the step
        w_plus, fxy = disc_friction(time_stepping_law(self.friction), v_free[:2], self.M / h, fz)
        v_new = jnp.concatenate([w_plus, vz[None]])
        p_new = p + h * (theta * v_new + (1.0 - theta) * v)
        x_new = jnp.concatenate([p_new, v_new, jnp.zeros_like(x[6:])])
        return x_new, {"fx": fxy[0], "fy": fxy[1], "fz": fz}

    def moreau_jean_outputs(self, t, x, forces):
        fe = self.force(t)
        return {**forces, "fex": fe[0], "fey": fe[1], "fez": fe[2]}

    def linear_modes(self):
        M = check_finite_matrix("PointOnPlane", "M", np.asarray(self.M))
        normal = M * np.asarray(self.g)
        modes = [(f"contact {type(self.contact).__name__} {label}", eig)
                 for label, eig in self.contact.linear_modes(M)]
        modes += [(f"friction {type(self.friction).__name__} {label}", eig)
                  for label, eig in self.friction.linear_modes(M, normal)]
        return finite_modes("PointOnPlane", modes)
