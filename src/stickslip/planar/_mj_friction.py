"""The impulse problem of one Moreau–Jean step of a planar mechanism with joint friction,
frictional contacts and rigid stops (``method="moreau_jean"`` on a
:class:`~._system.PlanarSystem`, its frictional contacts included; the step is in
:mod:`._mj_step`), and its reaction ↔ friction-bound fixed point.

With the bounds B_k of the joint frictions held fixed, the step's impulses P = [P_b; P_f;
P_c; P_s] along the rows J = [Φ_q; W; J_c; G] (joints and drivers, the frictions' slides
s_k(q) with W = ∂s/∂q, the contact pairs' tangential and normal rows (t₁, n₁, t₂, n₂, …),
the stops' gap rows g_r(q) with G = ∂g/∂q) solve the λ-problem of SPEC §6 at the velocity
level,

    w = A P − b,   A = J M̂⁻¹ Jᵀ,   b = target − J v_free,
    P_b ∈ ℝ (w_b = 0: Φ_q v⁺ = ν),   P_f,k ∈ [−B_k, B_k] with w_f,k ∈ −N_[−B_k, B_k](P_f,k)
    (SPEC §1 theorem (4): the slide rate ṡ_k⁺ = w_f,k is 0 while |P_f,k| < B_k — exact
    stick — and opposes P_f,k at the bound),   (P_t, P_n)_p ∈ {|P_t| ≤ μ_p P_n} with the
    exact Coulomb law of SPEC §6 for an active contact pair (``PlanarContact``; its
    w_n = J_n v⁺ + e J_n v),   0 ≤ P_s,r ⊥ w_s,r ≥ 0 for an active stop
    (velocity-level Signorini with Newton's restitution: w_s,r = G_r v⁺ + e_r G_r v),

solved exactly by :func:`stickslip.constraints.solve_lambda` (blocks ``Bilateral``,
``CoulombBound``, ``PlanarContact``, ``Unilateral``; ``"kikuuwe"``). Inactive contact pairs
and stop rows are decoupled with impulse 0. The contacts' bound μ_p P_n is set by the
λ-problem itself (the normal impulse is one of its unknowns), so only the joint frictions
need the fixed point below. Without contacts the sets are monotone and A is positive
semi-definite, so v⁺ is unique; where a 1-DOF chain holds several stuck frictions the split of
their impulses is statically indeterminate and the solver returns the minimum-norm one. With
contacts the problem may have no solution or several (Painlevé, SPEC §6): the status says so.

**The bound depends on the reaction** (SPEC §9, joint friction): B_k = h·F_k(N_k), with
N_k the normal force the joint's law sees — ``a·√(F_x² + F_y²)`` of a pin of radius a, the
normal reaction (or the two edge loads of a ``slider_length``) of a translational joint, plus
the preload — computed from the mean joint reactions P_b/h exactly as the ODE route's
``normal`` (:meth:`PlanarSystem.friction_normals`). The step therefore solves the fixed point
N = 𝒩(P_b(B(N))) by iteration (Picard), started from the reactions with the frictions at
rest held and no stops (the stuck solution: where it holds, it is the one kept). F_k is the
law's static level (``level``: μ_s·N) for a joint at rest at the step's start, its curve
at the start's slide rate (``friction_curve``: μ·N, with a Stribeck drop where the law has
one) for a sliding joint, and — the classical rule of the 1-D hosts — the
kinetic level once a joint at rest breaks loose within the step (a joint whose stick would need
more than the static level slides at the kinetic one).

**Convergence condition.** Near the solution the iteration is linear with the matrix
D = ∂N/∂P_f · ∂P_f/∂B · ∂B/∂N: only sliding joints contribute (a stuck joint's impulse does
not depend on its bound), each with ∂B_k/∂N_k = h·μ_k, and ∂N/∂P_f is how much the
reactions change per unit friction impulse — for a pin of radius a on a link of mass m with
its centre at l from the pin and inertia I_p about it, ρ ≈ μ·a·m·l/I_p. The iteration
converges (linearly, at the rate ρ = spectral radius of D) when ρ < 1, which holds with margin
for real joints (ρ ≈ 1.5·μ·a/L for a slender link of length L: 10⁻² for a = 1 cm, L = 0.3 m,
μ = 0.3). A geometry with ρ ≥ 1 is a self-locking (wedging) one, where the set-valued step may
have no solution or several; there the iteration does not converge within
``MAX_ROUNDS`` and the step reports it (``status`` ``NOT_CONVERGED``, the joint whose normal
force moved most): the run stops with a SimulationError naming the joint and the time — never
an unconverged answer. An impulse problem without a solution (``NO_SOLUTION``: e.g. stops that
contradict the joints) is reported the same way.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from ..constraints import (
    STATUS_NONE,
    STATUS_SEVERAL,
    Bilateral,
    CoulombBound,
    PlanarContact,
    ProductSet,
    Unilateral,
    solve_lambda,
)
from ..errors import ParameterError
from ..laws import friction_curve

__all__ = ["MAX_ROUNDS", "NOT_CONVERGED", "NO_SOLUTION", "OK", "SEVERAL", "STATUS_TEXT",
           "StepImpulses", "solve_impulses"]

MAX_ROUNDS = 60
"""The most rounds of the reaction ↔ bound fixed point in one step (module docstring): at a
contraction rate ρ ≤ 0.5 sixty rounds reach round-off from any start."""
TOLERANCE = 1e-13
"""A round converges when no normal force moves by more than this × the largest one."""
# a joint counts as at rest at the step's start when its slide rate is round-off of the
# velocities it is made of (a stuck joint's rate after the projection: ~1e-17 of them)
_REST = 1e-12
# a joint at rest has broken loose when its end-of-step slide rate exceeds this × the
# velocity scale of the problem (max|b| over the active rows); a stuck row's rate is
# round-off (~1e-16) of it
_SLIDING = 1e-9

OK, NO_SOLUTION, SEVERAL, NOT_CONVERGED = 0, 1, 2, 3
STATUS_TEXT = {
    NO_SOLUTION: ("the step's impulse problem has no solution (joints, drivers and stops that "
                  "contradict each other)"),
    SEVERAL: "the step's impulse problem has several solutions with different velocities",
    NOT_CONVERGED: ("the fixed point between its reaction and its friction bound did not "
                    f"converge in {MAX_ROUNDS} rounds: the joint is self-locking (contraction "
                    "number μ·a·∂|R|/∂(friction) >= 1, see planar._mj_friction)"),
}


class StepImpulses(NamedTuple):
    """What :func:`solve_impulses` returns (impulses [N·s], or [N·m·s] for rotations)."""

    P: jnp.ndarray           # (n_b + n_f + 2 n_p + n_s,) impulses along J's rows (JᵀP)
    w: jnp.ndarray           # the rows' end-of-step rates minus their targets (A P − b)
    normal: jnp.ndarray      # (n_f,) normal force each friction law sees [N or N·m]
    status: jnp.ndarray      # OK, NO_SOLUTION, SEVERAL or NOT_CONVERGED
    culprit: jnp.ndarray     # friction index of a NOT_CONVERGED step (else −1)
    rounds: jnp.ndarray      # fixed-point rounds taken


def _levels(laws, N, speed, rest, broke):
    """Each friction's level F_k(N_k) for the step (module docstring): static at rest,
    kinetic once broken loose, the curve at the start's slide rate when sliding."""
    out = []
    for k, law in enumerate(laws):
        n = N[k]
        static, kinetic = law.level(n), law.kinetic_level(n)
        exponent = 2 if law.stribeck_exponent is None else law.stribeck_exponent
        moving = friction_curve(speed[k], kinetic, static, law.v_stribeck, exponent)
        loose = kinetic if law.v_stribeck is None else static
        out.append(jnp.where(rest[k] & ~broke[k], static, jnp.where(rest[k], loose, moving)))
    return jnp.stack(out) if out else jnp.zeros(0)


def solve_impulses(A, b, n_b, laws, names, normals, h, speed, rest, active, *,
                   contact_mu=None, contact_active=None, certify="auto"):
    """Solve the step's impulse problem (module docstring) with the bounds' fixed point.

    Parameters
    ----------
    A : Array
        J M̂⁻¹ Jᵀ, shape (m, m), rows ordered joints (n_b), frictions (n_f), contact pairs
        (2 n_p: tangential, normal of each), stop rows (n_s).
    b : Array
        target − J v_free, shape (m,).
    n_b : int
        The number of joint and driver rows.
    laws : tuple
        The frictions' CoulombODE laws (their levels; K and beta are not used).
    names : tuple of str
        Block labels: the frictions', then the contact pairs', then the stop rows'.
    normals : callable
        ``normals(P_b)``: the normal force of each friction law [N or N·m] at the joint
        impulses P_b (the mean reactions P_b/h).
    h : Array
        The step [s].
    speed, rest : Array
        Each friction's slide rate |ṡ_k| at the step's start and whether it is at rest.
    active : Array
        Which stop rows are active (inactive rows are decoupled, impulse 0).
    contact_mu, contact_active : Array, optional
        Each contact pair's friction coefficient for the step and whether it touches
        (None: no contact pairs).
    certify : str
        ``solve_lambda``'s uniqueness check (``"auto"``, ``"full"``, ``"none"``).

    Returns
    -------
    StepImpulses
        The impulses, rates, normal forces, status and rounds.
    """
    n_f, n_s = len(laws), active.shape[0]
    pair_mu = jnp.zeros(0) if contact_mu is None else contact_mu    # no pairs: none used
    n_p = pair_mu.shape[0]
    if not n_p:
        pairs_on = jnp.zeros(0, dtype=bool)
    elif contact_active is None:
        raise ParameterError(f"`solve_impulses.contact_active` is missing: `contact_mu` has "
                             f"{n_p} entries (one per contact pair); pass with it whether "
                             f"each pair touches (booleans, shape ({n_p},)).")
    else:
        pairs_on = jnp.repeat(contact_active, 2)
    rows_on = jnp.concatenate([jnp.ones(n_b + n_f, dtype=bool), pairs_on, active])
    scale = jnp.max(jnp.where(rows_on, jnp.abs(b), 0.0), initial=0.0) + 1e-300
    A = jnp.where(rows_on[:, None] & rows_on[None, :], A, jnp.eye(A.shape[0]))
    b = jnp.where(rows_on, b, -1.0)                     # separated, impulse 0
    unilateral = [Unilateral() for _ in range(n_s)]
    head = [Bilateral(n_b)] if n_b else []
    labels = (["joints"] if n_b else []) + list(names)

    def solve(bounds):
        blocks = (head + [CoulombBound(bound=bounds[k]) for k in range(n_f)]
                  + [PlanarContact(mu=pair_mu[k]) for k in range(n_p)] + unilateral)
        sol = solve_lambda(ProductSet(blocks, labels), A, b, "kikuuwe", certify=certify)
        P = jnp.where(rows_on, sol.lam, 0.0)
        return P, sol.w, sol.status

    if n_f == 0:
        P, w, status = solve(jnp.zeros(0))
        return StepImpulses(P, w, jnp.zeros(0), _status(status), jnp.asarray(-1),
                            jnp.asarray(1))
    # the start: the reactions of the joints with the frictions at rest held (no stop), the
    # stuck solution: from the reactions of the joints alone, a pin whose static level holds
    # its rod (the stuck reaction m g) saw the swinging rod's smaller reaction, its first
    # round broke it loose, and the sliding solution, consistent too, was kept (a rod swung
    # 1.02 rad that the ODE route holds). Least squares: held frictions may be redundant
    # with the joints (a 1-DOF chain with several stuck frictions)
    if n_b:
        held = jnp.concatenate([jnp.ones(n_b, dtype=bool), rest])
        A_h = jnp.where(held[:, None] & held[None, :], A[:n_b + n_f, :n_b + n_f],
                        jnp.eye(n_b + n_f))
        P_b0 = jnp.linalg.lstsq(A_h, jnp.where(held, b[:n_b + n_f], 0.0))[0][:n_b]
    else:
        P_b0 = jnp.zeros(0)
    N0 = normals(P_b0)

    def one_round(carry):
        N, broke, _, _, _, rounds, _, _ = carry
        bounds = h * _levels(laws, N, speed, rest, broke)
        P, w, status = solve(bounds)
        N_new = normals(P[:n_b])
        loose = rest & (jnp.abs(w[n_b:n_b + n_f]) > _SLIDING * scale)
        broke_new = broke | loose
        change = jnp.abs(N_new - N)
        moved = jnp.any(broke_new != broke) | ~(jnp.max(change) <= TOLERANCE
                                                 * (jnp.max(jnp.abs(N_new)) + 1e-300))
        return N_new, broke_new, P, w, status, rounds + 1, change, moved

    def unconverged(carry):
        return carry[-1] & (carry[5] < MAX_ROUNDS)

    m = A.shape[0]
    start = (N0, jnp.zeros(n_f, dtype=bool), jnp.zeros(m), jnp.zeros(m),
             jnp.asarray(0), jnp.asarray(0), jnp.zeros(n_f), jnp.asarray(True))
    N, _, P, w, status, rounds, change, moved = jax.lax.while_loop(unconverged, one_round,
                                                                   start)
    # the last round's N is the normal force of the returned impulses; the bounds it used
    # came from the round before, equal to it within TOLERANCE when converged
    code = jnp.where(moved, NOT_CONVERGED, _status(status))
    culprit = jnp.where(moved, jnp.argmax(change), -1)
    return StepImpulses(P, w, N, code, culprit, rounds)


def _status(status):
    return jnp.where(status == STATUS_NONE, NO_SOLUTION,
                     jnp.where(status == STATUS_SEVERAL, SEVERAL, OK))
