"""Two blocks between a wall and a conveyor: interacting frictional contacts (SPEC §5, ex. 2)."""

from __future__ import annotations

from typing import ClassVar

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from .._parameter_arrays import as_parameter
from .._parameters import GRAVITY, MASS, AbstractParametrised, Rule
from .._validation import check_finite_matrix, check_shape, concrete
from ..errors import ParameterError
from ..integrate import TIME_STEPPING_METHODS, AbstractTimeSteppingHost
from ..laws import (
    AbstractContactLaw,
    AbstractFrictionLaw,
    CoulombODE,
    NewtonImpact,
    UnilateralODE,
)
from ._base import AbstractSystem, check_law_scalars, finite_modes
from ._time_stepping import check_friction_step, friction_route_refusal
from ._two_blocks_step import (
    X_KINDS,
    X_ROWS,
    Y_KINDS,
    Y_ROWS,
    FrictionRow,
    approach,
    solve_rows,
)

__all__ = ["TwoBlocksConveyor"]

_STATE_NAMES = ("p1x", "p1y", "p2x", "p2y", "v1x", "v1y", "v2x", "v2y")


def _default_contacts():
    return tuple(UnilateralODE(K=1e5, beta=2e-3, alpha=1e-3) for _ in range(3))


def _default_frictions():
    return (CoulombODE(mu=0.3, K=1e4, beta=2e-2), CoulombODE(mu=0.3, K=1e4, beta=2e-2),
            CoulombODE(mu=0.5, K=1e4, beta=2e-2))


_MAX_ROUNDS = 500           # fixed-point rounds; 0.9**500 ~ 1e-23 (check_time_step)
_MAX_COUPLING = 0.9


def _coupling_slope(law):
    """d(friction level)/d(normal impulse): the larger of mu and mu_s for a load-dependent
    law (a Stribeck curve lies between the two), 0 for fixed levels F, F_s."""
    slopes = [concrete(v) for v in (law.mu, law.mu_s) if v is not None]
    if any(v is None for v in slopes):
        return None
    return 0.0 if not slopes else np.max(np.stack([np.asarray(v) for v in slopes]), axis=0)


class TwoBlocksConveyor(AbstractSystem, AbstractParametrised, AbstractTimeSteppingHost):
    """Two blocks pressed against a wall by a conveyor (SPEC §5 example 2, eq. 23-33).

    Geometry (x horizontal, y vertical): a wall at x = 0; block 1 (mass M1) touches it (gap
    p1x) and hangs on a vertical spring Ks (p1y from the spring's rest length); block 2 (M2)
    touches block 1 (gap p2x − p1x) and stands on a conveyor (gap p2y) whose surface moves
    at −u in x, so the belt drags block 2 against block 1 and block 1 against the wall.
    Three contacts ψ1 = p1x, ψ2 = p2x − p1x, ψ3 = p2y (eq. 27-29) and three friction
    forces (eq. 30-32): wall–block 1 along y (μ1), block 1–block 2 along y (μ2), block 2–belt
    along x (μ3), each bounded by μ times the contact force it lives on::

        M1 p̈1x = f1 − f2                     M1 p̈1y = −θ1 − θ2 − Ks p1y
        M2 p̈2x = −θ3 + f2                    M2 p̈2y = θ2 + f3 − M2 g           (eq. 23, [fix])

    with ``f_i`` the contact forces (eq. 15b) and ``θ_j`` the friction forces (eq. 30-32,
    θ_j = K sat(μ_j f_j / K, a_j + β θ-argument)); the ODE is eq. 33.

    Parameters (defaults chosen so that the run shows an impact, sliding, then sticking:
    the belt presses with about μ3·M2·g = 9.8 N, so the wall and block 2 can hold block 1's
    spring up to (μ1 + μ2)·9.8 ≈ 5.9 N, less than Ks·|p1y(0)| = 10 N at the start)
    ----------
    M1, M2: masses [kg] (1, 2).   Ks: spring stiffness [N/m] (100).   g: gravity [m/s²] (9.81).
    u: belt speed [m/s] (0.1).
    contacts: three contact laws for ψ1, ψ2, ψ3 (default UnilateralODE(K=1e5, β=2e-3, α=1e-3)).
    frictions: three friction laws with ``mu=`` for θ1, θ2, θ3 (default CoulombODE with
        μ = 0.3, 0.3, 0.5, K = 1e4 N/m, β = 2e-2 s: stick modes near critical damping).
    x0: initial [p1x, p1y, p2x, p2y, v1x, v1y, v2x, v2y] (default block 1 at the wall lifted
        0.1 m, block 2 on the belt 0.02 m from block 1, all at rest).

    Channels: the eight positions/velocities, ``e1, e2, e3``, ``a1, a2, a3``, contact forces
    ``f_wall, f_blocks, f_belt`` [N] and friction forces on block 1 from the wall
    ``fr_wall``, on block 1 from block 2 ``fr_blocks`` (both along y) and on block 2 from
    the belt ``fr_belt`` (along x) [N].

    Under ``simulate(..., method="moreau_jean", dt=...)`` the contacts are rigid and the
    friction set-valued: pass three ``ss.laws.NewtonImpact(e=...)`` contacts (compliant
    contact laws are refused there, as ContactMass does) and three `CoulombODE` frictions,
    which act as the set-valued Coulomb law of their levels — kinetic μ_j·(normal force) (or
    F_j), static μ_s,j·N (or F_s,j) above it, a Stribeck drop and a viscous term (SPEC §6);
    their K and β are not used. A Stribeck drop steeper than M/dt is refused
    (:meth:`check_time_step`).
    Each step solves the coupled contact problem exactly (:meth:`moreau_jean_step`): a
    contact that sticks has its relative velocity exactly 0 at the end of the step. The
    channels are the ODE route's: contact and friction forces are the mean forces of the
    step that ended at the sample (of the first step at t0); ``a1, a2, a3`` are 0 (there is
    no proxy) and there are no ``e`` states (NewtonImpact has none).

    Examples
    --------
    >>> import stickslip as ss
    >>> rigid = tuple(ss.laws.NewtonImpact(e=0.0) for _ in range(3))
    >>> blocks = ss.systems.TwoBlocksConveyor(contacts=rigid, x0=(0, 0.03, 0, 0, 0, 0, 0, 0))
    >>> res = ss.simulate(blocks, 1.0, method="moreau_jean", dt=1e-3)
    >>> float(res["p1y"][-1]), float(res["v1y"][-1])   # 3 N of spring held by friction
    (0.03, 0.0)
    """

    M1: jnp.ndarray = eqx.field(converter=as_parameter, default=1.0)
    M2: jnp.ndarray = eqx.field(converter=as_parameter, default=2.0)
    Ks: jnp.ndarray = eqx.field(converter=as_parameter, default=100.0)
    g: jnp.ndarray = eqx.field(converter=as_parameter, default=9.81)
    u: jnp.ndarray = eqx.field(converter=as_parameter, default=0.1)
    contacts: tuple = eqx.field(default_factory=_default_contacts)
    frictions: tuple = eqx.field(default_factory=_default_frictions)
    x0: jnp.ndarray = eqx.field(converter=as_parameter,
                                default=(0.0, 0.1, 0.02, 0.0, 0.0, 0.0, 0.0, 0.0))

    parameter_rules: ClassVar[dict[str, Rule]] = {
        "M1": MASS, "M2": MASS,
        "Ks": Rule("nonnegative", "Pass the spring stiffness in N/m (>= 0).", scalar=True),
        "g": GRAVITY, "u": Rule("finite", "Pass the belt speed in m/s.", scalar=True),
        "x0": Rule("finite", "Pass a finite initial state (8 numbers).")}

    def __check_init__(self):
        check_shape("TwoBlocksConveyor", "x0", self.x0, (8,))
        for field, kind, n in (("contacts", AbstractContactLaw, 3),
                               ("frictions", AbstractFrictionLaw, 3)):
            laws = getattr(self, field)
            if len(laws) != n or not all(isinstance(law, kind) for law in laws):
                raise ParameterError(f"`TwoBlocksConveyor.{field}` must be a tuple of {n} "
                                     f"{kind.__name__[8:]}s; got {laws!r}.")
            for i, law in enumerate(laws):
                check_law_scalars("TwoBlocksConveyor", f"{field}[{i}]", law)

    @property
    def state_names(self):
        names = _STATE_NAMES
        for i, law in enumerate(self.contacts, start=1):
            names += tuple(f"{s}{i}" for s in law.state_names)
        for j, law in enumerate(self.frictions, start=1):
            names += tuple(f"{s}{j}" for s in law.state_names)
        return names

    @property
    def units(self):
        u = {n: "m" for n in _STATE_NAMES[:4]}
        u.update({n: "m/s" for n in _STATE_NAMES[4:]})
        u.update({f"{s}{i}": "m" for s in "ea" for i in (1, 2, 3)})
        u.update({n: "N" for n in ("f_wall", "f_blocks", "f_belt", "fr_wall", "fr_blocks",
                                   "fr_belt")})
        return u

    def initial_state(self):
        law_states = [jnp.zeros(law.n_states) for law in (*self.contacts, *self.frictions)]
        return jnp.concatenate([self.x0, *law_states])

    def _forces(self, x):
        p, v = x[0:4], x[4:8]
        offset = 8
        states = []
        for law in (*self.contacts, *self.frictions):
            states.append(x[offset:offset + law.n_states])
            offset += law.n_states
        gaps = (p[0], p[2] - p[0], p[3])                                  # eq. 27-29
        gap_rates = (v[0], v[2] - v[0], v[3])
        contact = [law.force_and_rate(s, gap, rate) for law, s, gap, rate
                   in zip(self.contacts, states[:3], gaps, gap_rates)]
        f = [c[0] for c in contact]
        slips = (v[1], v[1] - v[3], v[2] + self.u)                        # sgn arguments
        friction = [law.force_and_rate(s, slip, fn) for law, s, slip, fn
                    in zip(self.frictions, states[3:], slips, f)]         # eq. 30-32
        theta = [fr[0] for fr in friction]    # friction force on the first-named body
        rates = [c[1] for c in contact] + [fr[1] for fr in friction]
        return f, theta, rates

    def vector_field(self, t, x):
        p, v = x[0:4], x[4:8]
        (f1, f2, f3), (th1, th2, th3), rates = self._forces(x)
        acc = jnp.stack([
            (f1 - f2) / self.M1,                                          # eq. 23 [fix]
            (th1 + th2 - self.Ks * p[1]) / self.M1,
            (th3 + f2) / self.M2,
            (-th2 + f3) / self.M2 - self.g,
        ])
        return jnp.concatenate([v, acc, *rates])

    def outputs(self, t, x):
        (f1, f2, f3), (th1, th2, th3), _ = self._forces(x)
        return {"f_wall": f1, "f_blocks": f2, "f_belt": f3,
                "fr_wall": th1, "fr_blocks": th2, "fr_belt": th3}

    # --- method="moreau_jean" (stickslip.integrate._moreau_jean) -------------------------

    def route_refusal(self, method):
        why = []
        rigid = [isinstance(law, NewtonImpact) for law in self.contacts]
        if method in TIME_STEPPING_METHODS:
            for j, law in enumerate(self.frictions):
                refusal = friction_route_refusal(law, method)
                if refusal is not None:
                    why.append(f"frictions[{j}]: {refusal}")
            compliant = [j for j, ok in enumerate(rigid) if not ok]
            if compliant:
                why.append(f"contacts {compliant} are compliant (ODE laws); time stepping "
                           "needs rigid contacts, ss.laws.NewtonImpact(e=...)")
        elif any(rigid):
            why.append("NewtonImpact is a rigid impact law without a force as a function of "
                       "the gap: it runs only under method='moreau_jean'; for an ODE method "
                       "use UnilateralODE or a penalty law")
        return "; ".join(why) or None

    def check_time_step(self, dt):
        """The coupled step's fixed point contracts by μ3·max(μ1, μ2) per round
        (:meth:`moreau_jean_step`; μ_j the larger of μ and μ_s): refuse a coupling of 0.9 or
        more. A Stribeck drop must be less steep than M/dt + viscous, M the smallest
        effective mass along its row (M1 at the wall, M1·M2/(M1 + M2) between the blocks,
        M2 on the belt; :func:`._time_stepping.check_friction_step`, levels μ·N at the
        normal force (M1 + M2)·g), else a slip speed of the step is not unique."""
        masses = self._row_masses()
        if masses is not None:
            normal = (masses[0] + masses[2]) * np.asarray(concrete(self.g), dtype=float) \
                if concrete(self.g) is not None else None
            for j, (law, mass) in enumerate(zip(self.frictions, masses)):
                if isinstance(law, CoulombODE) and normal is not None:
                    check_friction_step(f"TwoBlocksConveyor.frictions[{j}]", law, mass,
                                        normal, dt)
        s1, s2, s3 = (_coupling_slope(law) for law in self.frictions)   # three: checked
        if s1 is None or s2 is None or s3 is None:
            return
        coupling = float(np.max(np.asarray(s3) * np.maximum(s1, s2)))
        if coupling >= _MAX_COUPLING:
            raise ParameterError(
                f"`TwoBlocksConveyor.frictions`: under method='moreau_jean' the coupling "
                f"μ3·max(μ1, μ2) = {coupling:.4g} must be below {_MAX_COUPLING} (the step's "
                "fixed point between the belt's normal impulse and the blocks' friction "
                "bounds contracts by that factor per round; at 1 or more the step may have "
                "several solutions). Lower a friction coefficient, or use an ODE method.")

    def _row_masses(self):
        """(M1, M1·M2/(M1 + M2), M2) [kg] as numbers, or None while traced."""
        m1, m2 = concrete(self.M1), concrete(self.M2)
        if m1 is None or m2 is None:
            return None
        m1, m2 = np.asarray(m1, dtype=float), np.asarray(m2, dtype=float)
        return m1, m1 * m2 / (m1 + m2), m2

    def moreau_jean_step(self, t, x, h, theta):
        """One Moreau–Jean step: eq. 23-26 with the three contacts rigid (Newton's law at the
        velocity level, theorem (5)) and the three frictions set-valued (theorem (4)),
        all impulses solved together and exactly.

        Smooth forces by the θ-method, linearised at the start (exact for the spring):
        ``Ŵ1·(v1y_free − v1y) = −h·Ks·p1y − h²θ·Ks·v1y`` with ``Ŵ1 = M1 + (hθ)²·Ks``,
        ``v2y_free = v2y − g·h``; x has no smooth force. A contact j is active when its free
        end-of-step gap ``ψ_j + h·(θ·ψ̇_j,free + (1 − θ)·ψ̇_j)`` is ≤ 0 (eq. 27-29); then
        ``0 ≤ ψ̇⁺_j + e_j·min(ψ̇_j, 0) ⊥ P_j ≥ 0``. Friction j, with w_j the slips of eq.
        24-26 and N_j = P_j/h the normal force of its contact: stuck (w⁺_j = 0) with
        ``|T_j| ≤ h·F_s,j(N_j)``, or sliding with ``T_j = −h·F_j(|w⁺_j|)·sgn(w⁺_j)`` — the
        static level and the kinetic curve (Stribeck drop, viscous term) of its CoulombODE,
        SPEC §6 (:mod:`._two_blocks_step`). The momentum balances::

            M1·(v1x⁺ − v1x) = P1 − P2           Ŵ1·(v1y⁺ − v1y_free) = T1 + T2
            M2·(v2x⁺ − v2x) = P2 + T3           M2·(v2y⁺ − v2y_free) = −T2 + P3

        split into an x problem (P1, P2, T3: needs B3, i.e. P3) and a y problem (T1, T2,
        P3: needs B1, B2, i.e. P1, P2). For fixed levels each is solved exactly by its
        stick/slip and open/closed cases (:func:`._two_blocks_step.solve_rows`: the
        velocities of a closed row are set, not computed, so a stuck contact's relative
        velocity is exactly 0).
        The bounds are then a fixed point P3 ↦ P3: each problem's impulses move by at most
        the change of the bounds it is given, so one round contracts by
        L = μ3·max(μ1, μ2) < 1 (:meth:`check_time_step`); the rounds run until P3 stops
        changing (to round-off; at most 500). A step where all three rows of a problem are
        closed (e.g. block 1 stuck between the wall and block 2, block 2 on the belt) is
        statically indeterminate: its velocities are fixed and its impulses are taken as
        the admissible ones of least friction (min ΣT_j²). Then
        ``p⁺ = p + h·(θ·v⁺ + (1 − θ)·v)``.
        """
        p, v = x[0:4], x[4:8]
        ks, m1, m2 = self.Ks, self.M1, self.M2
        w1 = m1 + (h * theta) ** 2 * ks                 # block 1's effective mass along y
        v1y_free = v[1] + (-h * ks * p[1] - h * h * theta * ks * v[1]) / w1
        v2y_free = v[3] - self.g * h
        gaps = (p[0], p[2] - p[0], p[3])                                  # eq. 27-29
        rates = (v[0], v[2] - v[0], v[3])
        free_rates = (v[0], v[2] - v[0], v2y_free)
        active = [gap + h * (theta * free + (1.0 - theta) * rate) <= 0.0
                  for gap, free, rate in zip(gaps, free_rates, rates)]
        target = [approach(law, rate) for law, rate in zip(self.contacts, rates)]
        fr1, fr2, fr3 = self.frictions
        zero = 0.0 * h

        def x_problem(p3):
            return solve_rows(X_ROWS, X_KINDS, jnp.stack([m1 + zero, m2 + zero]),
                              jnp.stack([v[0], v[2]]),
                              jnp.stack([-target[0], -target[1], self.u + zero]),
                              (None, None, FrictionRow(fr3, p3 / h, h)),
                              (active[0], active[1], True))

        def y_problem(p1, p2):
            return solve_rows(Y_ROWS, Y_KINDS, jnp.stack([w1, m2 + zero]),
                              jnp.stack([v1y_free, v2y_free]),
                              jnp.stack([zero, zero, -target[2]]),
                              (FrictionRow(fr1, p1 / h, h), FrictionRow(fr2, p2 / h, h), None),
                              (True, True, active[2]))

        def unsettled(carry):
            old, new, rounds = carry[0], carry[1], carry[-1]
            return (rounds == 0) | ((jnp.abs(new - old) > 1e-15 * jnp.abs(new))
                                    & (rounds < _MAX_ROUNDS))

        def round_(carry):                  # one round of the fixed point P3 ↦ P3
            p3 = carry[1]
            vx, lam_x = x_problem(p3)
            vy, lam_y = y_problem(lam_x[0], lam_x[1])
            return p3, lam_y[2], vx, lam_x, vy, lam_y, carry[-1] + 1

        pair, triple = jnp.zeros(2) + zero, jnp.zeros(3) + zero
        _, _, vx, (p1, p2, t3), vy, (t1, t2, p3), _ = jax.lax.while_loop(
            unsettled, round_, (zero, zero, pair, triple, pair, triple, 0))
        v_new = jnp.stack([vx[0], vy[0], vx[1], vy[1]])
        p_new = p + h * (theta * v_new + (1.0 - theta) * v)
        x_new = jnp.concatenate([p_new, v_new, jnp.zeros_like(x[8:])])
        forces = {"f_wall": p1 / h, "f_blocks": p2 / h, "f_belt": p3 / h,
                  "fr_wall": t1 / h, "fr_blocks": t2 / h, "fr_belt": t3 / h}
        return x_new, forces

    def moreau_jean_outputs(self, t, x, forces):
        return dict(forces)

    def linear_modes(self):
        M1 = check_finite_matrix("TwoBlocksConveyor", "M1", np.asarray(self.M1))
        M2 = check_finite_matrix("TwoBlocksConveyor", "M2", np.asarray(self.M2))
        reduced = M1 * M2 / (M1 + M2)
        masses = (M1, reduced, M2)
        normal = (M1 + M2) * np.asarray(self.g)   # order of the contact forces
        modes = []
        for i, (law, m) in enumerate(zip(self.contacts, masses), start=1):
            modes += [(f"contact {i} {type(law).__name__} {lab}", eig)
                      for lab, eig in law.linear_modes(m)]
        for j, (law, m) in enumerate(zip(self.frictions, (M1, reduced, M2)), start=1):
            modes += [(f"friction {j} {type(law).__name__} {lab}", eig)
                      for lab, eig in law.linear_modes(m, normal)]
        return finite_modes("TwoBlocksConveyor", modes)
