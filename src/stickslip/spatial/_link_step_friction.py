"""Joint friction in one Moreau–Jean step of a spatial link system (:mod:`._link_step`): the
frictions' impulses beside the point contacts', with their bounds from the joints' reaction
impulses by a fixed point (SPEC §9 9-2 in 3-D at the velocity level; the planar route's rule,
:mod:`stickslip.planar._mj_friction`, for revolute and prismatic joints in 3-D).

With the joints eliminated (the projected inverse mass W of :mod:`._link_step`), each
friction k adds one row — the joint's slide rate ṡ_k = W_k ν (a revolute joint's
u·(ω_j − ω_i), a prismatic joint's rate along its axis; ``LinkSystem.slide_rows`` at the
step's predicted end pose) — with the block :class:`~stickslip.constraints.CoulombBound` of
bound B_k: w_k = ṡ_k⁺ ∈ −N_[−B_k, B_k](P_k) (SPEC §1 theorem (4)): a joint that sticks ends
the step with ṡ_k⁺ = 0 to the solver's round-off (no drift, no proxy spring), a sliding one
with P_k = ∓B_k opposite to ṡ_k⁺. The contacts' blocks follow in the same λ-problem.

**The bound depends on the reaction**: B_k = h·F_k(N_k), N_k the normal force the law sees —
a·|F_radial| of a revolute joint of pin radius a, |F_normal| of a prismatic one, F the joint's
reaction force on its body j (``_link_dynamics.normal_forces``, as the ODE route) — from the
step's mean reaction impulse, which depends on the friction and contact impulses. The step
solves N = 𝒩(P(B(N))) by Picard iteration from the reactions without friction and contacts,
each round one λ-solve, until no N_k moves by more than ``TOLERANCE`` of the largest (at most
``MAX_ROUNDS`` rounds). F_k is the law's static level (μ_s·N, or F_s) for a joint at rest at
the step's start, its curve at the start's slide rate (``CoulombODE.curve``: kinetic level, a
Stribeck drop, the viscous term at that rate) for a sliding one, and the kinetic level once a
joint at rest breaks loose within the step (a joint whose stick needs more than the static
level slides at the kinetic one). The iteration contracts at ρ ≈ μ·a·m·l/I_p (a link of mass
m, centre at l from its pin, inertia I_p about it): ≪ 1 for real pins. A self-locking
geometry (ρ ≥ 1) does not converge; the step then returns NaN and the run stops there (the
core's divergence guard, naming the time).

Under this route a ``CoulombODE`` acts as the set-valued Coulomb law of its levels; its K and
β are not used and its state rows stay as they were. Other laws (LuGre, TanhCoulomb, …) have
no set-valued form and are refused by name (:func:`friction_refusal`).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from ..constraints import CoulombBound, ProductSet
from ..laws import CoulombODE

__all__ = ["MAX_ROUNDS", "REST", "TOLERANCE", "friction_refusal", "joint_levels",
           "solve_with_friction"]

MAX_ROUNDS = 60
"""The most rounds of the reaction ↔ bound fixed point in one step."""
TOLERANCE = 1e-13
"""A round converges when no normal force moves by more than this × the largest one."""
# a joint counts as at rest at the step's start when its slide rate is round-off (this
# fraction) of the velocities it is made of and of what the step's loads add to them
REST = 1e-12
# a joint at rest has broken loose when its end-of-step slide rate exceeds this × the
# velocity scale of the problem (max|b|)
_SLIDING = 1e-9


def friction_refusal(system) -> str | None:
    """Why the joint frictions of `system` cannot run on ``moreau_jean``, or None: each law
    must be a ``CoulombODE`` (the set-valued Coulomb law of its levels)."""
    layout = system.layout
    for (jk, _), law in zip(layout.frictions, system.laws):
        if not isinstance(law, CoulombODE):
            return (f"joint {layout.joints[jk][0]!r} has the friction law "
                    f"{type(law).__name__}, which has no set-valued form for time stepping; "
                    "give it friction=CoulombODE(...) (its levels mu/F, mu_s/F_s, Stribeck and "
                    "viscous terms are used, K and beta are not), or run an ODE method")
    return None


def joint_levels(laws, N, speed, rest, broke):
    """Each friction's level F_k(N_k) [N or N·m] for the step (module docstring): static at
    rest, kinetic once broken loose, the curve at the start's slide rate when sliding."""
    out = []
    for k, law in enumerate(laws):
        static, kinetic = law.level(N[k]), law.kinetic_level(N[k])
        moving = law.curve(speed[k], N[k])
        loose = kinetic if law.v_stribeck is None else static
        out.append(jnp.where(rest[k] & ~broke[k], static, jnp.where(rest[k], loose, moving)))
    return jnp.stack(out)


def solve_with_friction(solve, laws, contact_blocks, A, b, normals, h, rates, rest):
    """The impulses of the friction rows (first) and the contacts' (after) with the bounds'
    fixed point (module docstring).

    Parameters
    ----------
    solve : callable
        ``solve(fset, A, b) -> (P, residual)``: the step's λ-solve.
    laws : tuple
        The frictions' CoulombODE laws.
    contact_blocks : list
        The contacts' SpatialContact blocks (rows after the frictions').
    A : Array
        R W Rᵀ of the rows R = [frictions; contacts], shape (n, n).
    b : Array
        The right-hand side of the rows, shape (n,).
    normals : callable
        ``normals(P) -> N``: the normal force each law sees [N or N·m] for the impulses P.
    h : Array
        The step [s].
    rates : Array
        Each friction's slide rate at the step's start.
    rest : Array
        Whether each friction is at rest at the step's start.

    Returns
    -------
    tuple
        ``(P, residual, N, converged)``: the impulses, the last solve's residual, the normal
        forces of P and whether the fixed point converged.
    """
    n_f = len(laws)
    speed = jnp.abs(rates)
    scale = jnp.max(jnp.abs(b)) + 1e-300

    def one_round(carry):
        N, broke, _, _, rounds, _ = carry
        bounds = h * joint_levels(laws, N, speed, rest, broke)
        blocks = [CoulombBound(bound=bounds[k]) for k in range(n_f)] + contact_blocks
        P, residual = solve(ProductSet(blocks), A, b)
        N_new = normals(P)
        loose = rest & (jnp.abs((A @ P - b)[:n_f]) > _SLIDING * scale)
        broke_new = broke | loose
        change = jnp.max(jnp.abs(N_new - N))
        moved = jnp.any(broke_new != broke) | ~(change <= TOLERANCE
                                                 * (jnp.max(jnp.abs(N_new)) + 1e-300))
        return N_new, broke_new, P, residual, rounds + 1, moved

    def unconverged(carry):
        return carry[-1] & (carry[4] < MAX_ROUNDS)

    start = (normals(jnp.zeros_like(b)), jnp.zeros(n_f, dtype=bool), jnp.zeros_like(b),
             jnp.zeros((), b.dtype), jnp.asarray(0), jnp.asarray(True))
    N, _, P, residual, _, moved = jax.lax.while_loop(unconverged, one_round, start)
    return P, residual, N, ~moved
