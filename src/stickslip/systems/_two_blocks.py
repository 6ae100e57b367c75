"""Two blocks between a wall and a conveyor: interacting frictional contacts (SPEC §5, ex. 2)."""

from __future__ import annotations

import itertools
from typing import ClassVar

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from .._parameters import GRAVITY, MASS, AbstractParametrised, Rule
from .._validation import check_finite_matrix, check_shape, concrete
from ..errors import ParameterError
from ..integrate._moreau_jean_host import (
    TIME_STEPPING_METHODS,
    AbstractTimeSteppingHost,
)
from ..laws import (
    AbstractContactLaw,
    AbstractFrictionLaw,
    CoulombODE,
    NewtonImpact,
    UnilateralODE,
)
from ..laws._base import as_parameter
from ._base import AbstractSystem, check_law_scalars, finite_modes
from ._time_stepping import friction_route_refusal

__all__ = ["TwoBlocksConveyor"]

_STATE_NAMES = ("p1x", "p1y", "p2x", "p2y", "v1x", "v1y", "v2x", "v2y")


def _default_contacts():
    return tuple(UnilateralODE(K=1e5, beta=2e-3, alpha=1e-3) for _ in range(3))


def _default_frictions():
    return (CoulombODE(mu=0.3, K=1e4, beta=2e-2), CoulombODE(mu=0.3, K=1e4, beta=2e-2),
            CoulombODE(mu=0.5, K=1e4, beta=2e-2))


# --- the time-stepping step (method="moreau_jean") ------------------------------------------
#
# The step splits into two problems of two velocities and three contact rows each, coupled
# only through the friction bounds (μ times a normal impulse of the *other* problem):
#
#   x: velocities (v1x, v2x), rows wall normal U1 = v1x, blocks normal U2 = v2x − v1x,
#      belt friction W3 = v2x + u (bound from the belt's normal impulse P3, problem y);
#   y: velocities (v1y, v2y), rows wall friction W1 = v1y, blocks friction W2 = v1y − v2y
#      (bounds from P1, P2, problem x), belt normal U3 = v2y.
#
# Each row j has a relative velocity r_j = G_j·v + c_j (c_j = −target for a normal row, so
# that a closed normal row and a stuck friction row both mean r_j = 0).

_NORMAL, _FRICTION = "normal", "friction"
_X_ROWS = np.array([[1.0, 0.0], [-1.0, 1.0], [0.0, 1.0]])
_X_KINDS = (_NORMAL, _NORMAL, _FRICTION)
_Y_ROWS = np.array([[1.0, 0.0], [1.0, -1.0], [0.0, 1.0]])
_Y_KINDS = (_FRICTION, _FRICTION, _NORMAL)
_TOL = 1e-12                # relative tolerance of the Coulomb/Signorini checks of a case
_MAX_ROUNDS = 500           # fixed-point rounds; 0.9**500 ~ 1e-23 (check_time_step)
_MAX_COUPLING = 0.9


def _cases(kinds):
    """Every stick/slip (friction: 0, +1, −1) and closed/open (normal: 0, +1) combination of
    the three rows, the most closed rows first (and stick before slip in each row): the
    order in which :func:`_solve_rows` takes the first admissible one."""
    options = [(0, 1) if kind == _NORMAL else (0, 1, -1) for kind in kinds]
    return sorted(itertools.product(*options), key=lambda case: sum(m != 0 for m in case))


def _integer_inverse(rows):
    """The inverse of a 2×2 matrix of 0/±1 entries with determinant ±1 (exact)."""
    inverse = np.linalg.inv(rows)
    assert np.allclose(inverse, np.round(inverse))
    return np.round(inverse)


def _combine(matrix, vector):
    """``matrix @ vector`` for a small static matrix of small integers, as sums of the
    entries (no multiplication by 1, so exact values such as 0 or −u stay exact)."""
    out = []
    for row in np.asarray(matrix):
        terms = [vector[k] if a == 1 else -vector[k] if a == -1 else a * vector[k]
                 for k, a in enumerate(row) if a != 0]
        out.append(sum(terms[1:], terms[0]) if terms else 0.0 * vector[0])
    return jnp.stack(out)


def _solve_case(G, kinds, case, W, v0, c, bound):
    """Velocities and row impulses of one case (rows closed where ``case`` is 0). Returns
    ``(v, lam, extra)``: `extra` the violations of the hyperstatic case's own conditions
    (an empty τ interval [N·s], a disagreeing third row [m/s]), None for the others."""
    Gj = jnp.asarray(G)
    closed = [j for j, m in enumerate(case) if m == 0]
    lam_known = jnp.stack([jnp.zeros_like(bound[j]) if m == 0 or kinds[j] == _NORMAL
                           else -m * bound[j] for j, m in enumerate(case)])
    v_known = v0 + (Gj.T @ lam_known) / W
    extra = None
    if not closed:
        return v_known, lam_known, extra
    if len(closed) == 1:
        # one closed row: its impulse from the row's equation, then the row put exactly on 0
        (j,) = closed
        g = G[j]
        lam_j = -(jnp.asarray(g) @ v_known + c[j]) / jnp.sum(g * g / W)
        v = v_known + jnp.asarray(g) * lam_j / W
        dofs = np.nonzero(g)[0]
        b = dofs[-1]
        rest = sum((g[a] * v[a] for a in dofs[:-1]), 0.0 * v[0])
        v = v.at[b].set((0.0 - c[j] - rest) / g[b])       # 0.0 − c: no −0.0
        return v, lam_known.at[j].set(lam_j), extra
    # two (or three) closed rows fix both velocities: v exactly from the first two
    pair = closed[:2]
    v = _combine(_integer_inverse(G[pair]), 0.0 - c[np.array(pair)])
    if len(closed) == 2:
        # their impulses from the momentum balance W·(v − v_known) = G_cᵀ·λ_c
        lam_c = _combine(_integer_inverse(G[pair].T), W * (v - v_known))
        return v, lam_known.at[np.array(pair)].set(lam_c), extra
    # all three closed: statically indeterminate. λ = λ_p + τ·n (n spans the null space of
    # Gᵀ); among the admissible τ the one of least friction, min Σ_friction λ_j²
    residual = Gj[2] @ v + c[2]                         # the third row must agree
    momentum = W * (v - v0)
    lam_p = jnp.asarray(np.linalg.pinv(G.T)) @ momentum
    n = np.cross(G.T[0], G.T[1])
    friction = np.array([kind == _FRICTION for kind in kinds])
    tau = -jnp.sum(jnp.where(friction, lam_p * n, 0.0)) / np.sum(n[friction] ** 2)
    lo, hi = -jnp.inf, jnp.inf
    for j in range(3):
        if kinds[j] == _NORMAL:                                    # λ_j ≥ 0
            edges = (-lam_p[j] / n[j], jnp.inf) if n[j] > 0 else (-jnp.inf, -lam_p[j] / n[j])
        else:                                                      # |λ_j| ≤ B_j
            a, b = (-bound[j] - lam_p[j]) / n[j], (bound[j] - lam_p[j]) / n[j]
            edges = (jnp.minimum(a, b), jnp.maximum(a, b))
        lo, hi = jnp.maximum(lo, edges[0]), jnp.minimum(hi, edges[1])
    tau = jnp.clip(tau, lo, jnp.maximum(lo, hi))
    extra = (jnp.maximum(lo - hi, 0.0) * np.max(np.abs(n)), jnp.abs(residual))
    return v, lam_p + tau * n, extra


def _solve_rows(G, kinds, W, v0, c, bound, active):
    """The exact solution of one 2-velocity, 3-row step for given friction bounds: the
    first case of :func:`_cases` whose solution satisfies every row's law (closed normal:
    λ ≥ 0; open normal: r ≥ 0; stick: |λ| ≤ B; slip in sense m: λ = −m·B and m·r ≥ 0; a
    normal row closes only when `active`), each within a relative round-off tolerance.

    With the bounds fixed the velocities are the unique minimiser of the strictly convex
    ``½(v − v0)ᵀ W (v − v0) + Σ B_j·|r_j|`` under the active normal rows, so every
    admissible case gives the same velocities; the impulses are unique except when all
    three rows are closed (then the least friction, :func:`_solve_case`). Returns
    ``(v, lam)``."""
    v_scale = jnp.max(jnp.abs(v0)) + jnp.max(jnp.abs(c)) + jnp.max(bound) / jnp.min(W)
    v_scale = jnp.maximum(v_scale, 1e-300)
    lam_scale = jnp.max(W) * v_scale
    candidates, violations = [], []
    for case in _cases(kinds):
        v, lam, extra = _solve_case(G, kinds, case, W, v0, c, bound)
        r = jnp.asarray(G) @ v + c
        worst = []
        for j, (kind, m) in enumerate(zip(kinds, case)):
            if kind == _NORMAL and m == 0:
                worst.append(jnp.maximum(-lam[j], 0.0) / lam_scale)
                worst.append(jnp.where(active[j], 0.0, jnp.inf))
            elif kind == _NORMAL:
                worst.append(jnp.where(active[j], jnp.maximum(-r[j], 0.0), 0.0) / v_scale)
            elif m == 0:
                worst.append(jnp.maximum(jnp.abs(lam[j]) - bound[j], 0.0) / lam_scale)
            else:
                worst.append(jnp.maximum(-m * r[j], 0.0) / v_scale)
        if extra is not None:                             # the hyperstatic case
            worst += [extra[0] / lam_scale, extra[1] / v_scale]
        candidates.append((v, lam))
        violations.append(jnp.max(jnp.stack(worst)))
    violations = jnp.stack(violations)
    ok = violations <= _TOL
    pick = jnp.where(jnp.any(ok), jnp.argmax(ok), jnp.argmin(violations))
    vs = jnp.stack([v for v, _ in candidates])
    lams = jnp.stack([lam for _, lam in candidates])
    return vs[pick], lams[pick]


def _approach(law: NewtonImpact, rate):
    """Newton's target for the end-of-step normal velocity, ``−e·min(rate, 0)`` (the
    admissible set of :meth:`NewtonImpact.velocity_after`)."""
    return jnp.where(rate < 0.0, -law.e * rate, 0.0)


def _coupling_slope(law):
    """d(friction bound)/d(normal impulse): mu for a load-dependent law, 0 for a fixed F."""
    return 0.0 if law.mu is None else concrete(law.mu)


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
    contact laws are refused there, as ContactMass does) and three one-level `CoulombODE`
    frictions, which act as the set-valued Coulomb law μ_j·(normal force) (or F_j); their K
    and β are not used, and a static level, a Stribeck drop or a viscous term is refused.
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
                elif law.has_curve:
                    why.append(f"frictions[{j}] has a static level, a Stribeck drop or a "
                               "viscous term; its coupled time-stepping step is solved for "
                               "one-level Coulomb laws only (pass F or mu alone)")
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
        (:meth:`moreau_jean_step`); refuse a coupling of 0.9 or more."""
        slopes = [_coupling_slope(law) for law in self.frictions]
        if any(s is None for s in slopes):
            return
        coupling = float(np.max(np.asarray(slopes[2]) * np.maximum(slopes[0], slopes[1])))
        if coupling >= _MAX_COUPLING:
            raise ParameterError(
                f"`TwoBlocksConveyor.frictions`: under method='moreau_jean' the coupling "
                f"μ3·max(μ1, μ2) = {coupling:.4g} must be below {_MAX_COUPLING} (the step's "
                "fixed point between the belt's normal impulse and the blocks' friction "
                "bounds contracts by that factor per round; at 1 or more the step may have "
                "several solutions). Lower a friction coefficient, or use an ODE method.")

    def moreau_jean_step(self, t, x, h, theta):
        """One Moreau–Jean step: eq. 23-26 with the three contacts rigid (Newton's law at the
        velocity level, theorem (5)) and the three frictions set-valued (theorem (4)),
        all impulses solved together and exactly.

        Smooth forces by the θ-method, linearised at the start (exact for the spring):
        ``Ŵ1·(v1y_free − v1y) = −h·Ks·p1y − h²θ·Ks·v1y`` with ``Ŵ1 = M1 + (hθ)²·Ks``,
        ``v2y_free = v2y − g·h``; x has no smooth force. A contact j is active when its free
        end-of-step gap ``ψ_j + h·(θ·ψ̇_j,free + (1 − θ)·ψ̇_j)`` is ≤ 0 (eq. 27-29); then
        ``0 ≤ ψ̇⁺_j + e_j·min(ψ̇_j, 0) ⊥ P_j ≥ 0``. Friction j: ``T_j ∈ −B_j·sgn(w⁺_j)`` with
        ``B_j = h·μ_j·P_j/h`` (or h·F_j) and w_j the slips of eq. 24-26. The momentum
        balances::

            M1·(v1x⁺ − v1x) = P1 − P2           Ŵ1·(v1y⁺ − v1y_free) = T1 + T2
            M2·(v2x⁺ − v2x) = P2 + T3           M2·(v2y⁺ − v2y_free) = −T2 + P3

        split into an x problem (P1, P2, T3: needs B3, i.e. P3) and a y problem (T1, T2,
        P3: needs B1, B2, i.e. P1, P2). For fixed bounds each is solved exactly by its
        stick/slip and open/closed cases (:func:`_solve_rows`: the velocities of a closed
        row are set, not computed, so a stuck contact's relative velocity is exactly 0).
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
        target = [_approach(law, rate) for law, rate in zip(self.contacts, rates)]
        fr1, fr2, fr3 = self.frictions
        zero = 0.0 * h

        def bound(law, normal_impulse):
            return h * law.kinetic_level(normal_impulse / h)

        def x_problem(p3):
            return _solve_rows(_X_ROWS, _X_KINDS, jnp.stack([m1 + zero, m2 + zero]),
                               jnp.stack([v[0], v[2]]),
                               jnp.stack([-target[0], -target[1], self.u + zero]),
                               jnp.stack([zero, zero, bound(fr3, p3)]),
                               (active[0], active[1], True))

        def y_problem(p1, p2):
            return _solve_rows(_Y_ROWS, _Y_KINDS, jnp.stack([w1, m2 + zero]),
                               jnp.stack([v1y_free, v2y_free]),
                               jnp.stack([zero, zero, -target[2]]),
                               jnp.stack([bound(fr1, p1), bound(fr2, p2), zero]),
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
