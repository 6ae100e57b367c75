"""Stage functions of a :class:`~._system.PlanarSystem` that solve its constrained equations
(SPEC §9, eq. 3-5): the Baumgarte-stabilised equations, the accelerations and multipliers
(with the reaction ↔ friction Newton loop when joints have friction), and the projection
of [q; q̇] back onto the constraints — all through :func:`~._dynamics.schur_solve`.

Each is a pure function of the system and the state, ``f(system, t, q, qd, …)``;
``PlanarSystem`` exposes them as methods of the same name.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from ._dynamics import ConstrainedEquations, Dynamics, schur_solve
from ._friction import NEWTON_ITERATIONS, newton_solve
from ._stage_friction import friction_geometry, friction_laws, friction_wrenches

__all__ = ["accelerations", "dynamics", "equations", "project"]


def equations(system, t, q, qd, s=None, stabilise=True):
    """(ConstrainedEquations, Φ, Φ̇, contact-law forces, their state rates): M q̈ = Q − Jᵀλ,
    J q̈ = γ − 2αΦ̇ − β²Φ with the contact-law stops' forces in Q."""
    s = jnp.zeros(system.layout.n_law_states) if s is None else s
    Q, _ = system.applied(q, qd, t)
    Qc, c_forces, c_rates = system.contact_terms(q, qd, s)
    phi, J, nu, gamma = system.kinematics_terms(q, t, qd)
    rate = J @ qd - nu
    if stabilise:
        gamma = gamma - 2.0 * system.alpha * rate - system.beta ** 2 * phi
    return ConstrainedEquations(1.0 / system.masses, Q + Qc, J, gamma), phi, rate, \
        c_forces, c_rates


def dynamics(system, t, q, qd, s=None, stabilise=True, *, cholesky=False) -> Dynamics:
    """Accelerations, multipliers, friction and contact forces at one instant (SPEC §9,
    eq. 3-5). With joint friction the reaction ↔ friction loop is solved by Newton's
    method on r(f) = f − g(f) (λ is affine in f: λ = λ₀ + L f; see _friction.py)."""
    s = jnp.zeros(system.layout.n_law_states) if s is None else s
    eq, phi, rate, c_forces, c_rates = system.equations(t, q, qd, s, stabilise)
    if not system.frictions:
        qdd, lam = schur_solve(eq.minv, eq.J, eq.Q, eq.gamma, cholesky=cholesky)
        empty = jnp.zeros(0)
        return Dynamics(qdd, lam, phi, rate, eq.J, c_rates, empty, empty, empty, empty,
                        c_forces)
    parts = friction_geometry(system, q)
    W = jnp.concatenate([p["W"] for p in parts])     # ∂s/∂q in group order (n_f × n_c)
    v = W @ qd
    n_f = v.shape[0]
    # one factorisation: columns [Q, Wᵀ] give λ₀ and L (λ = λ₀ + L f)
    rhs_gamma = jnp.concatenate([eq.gamma[:, None], jnp.zeros((eq.J.shape[0], n_f))],
                                axis=1)
    _, lams = schur_solve(eq.minv, eq.J, jnp.concatenate([eq.Q[:, None], W.T], axis=1),
                          rhs_gamma, cholesky=cholesky)
    wrenches = friction_wrenches(system, q, eq.J, lams)        # (n_f, 3, 1 + n_f)
    evaluate = friction_laws(system, parts, s, v, wrenches)
    eye = jnp.eye(n_f)

    def newton(_, carry):
        f = carry[0]
        value, jac, normals, s_rate = evaluate(f)
        step = newton_solve(eye - jac, f - value)
        # a singular Jacobian (a self-locking, jammed joint) leaves f where it is
        return (jnp.where(jnp.all(jnp.isfinite(step)), f - step, f), f, value, normals,
                s_rate)

    # NEWTON_ITERATIONS steps, then one more pass only for the laws at the last iterate
    # (its step is not used): the laws are traced once, in the loop
    zero = jnp.zeros_like(v)
    start = (zero, zero, zero, zero, jnp.zeros(system.layout.n_friction_states))
    _, f, g, normals, s_rate = jax.lax.fori_loop(0, NEWTON_ITERATIONS + 1, newton, start)
    residual = f - g
    lam = lams[:, 0] + lams[:, 1:] @ g
    qdd = eq.minv * (eq.Q + W.T @ g - eq.J.T @ lam)
    order = system.layout.friction_order
    return Dynamics(qdd, lam, phi, rate, eq.J,
                    jnp.concatenate([s_rate[system.layout.law_state_order], c_rates]),
                    g[order], normals[order], v[order], residual[order], c_forces)


def accelerations(system, t, q, qd, stabilise=True, s=None):
    """(q̈, λ, Φ, Φ̇): a shorthand of :func:`dynamics`."""
    d = system.dynamics(t, q, qd, s, stabilise)
    return d.qdd, d.lam, d.phi, d.rate


def project(system, t, x):
    """Project [q; q̇] back onto Φ = 0 and Φ_q q̇ = ν: one mass-weighted Newton step
    for each (q ← q − M⁻¹Φ_qᵀ(Φ_q M⁻¹Φ_qᵀ)⁻¹Φ, then the same for the velocity), both
    through :func:`schur_solve` (Cholesky: the vector field's LU already stops a run
    at a lock-up)."""
    n = system.layout.n_coordinates
    if system.layout.n_rows == 0:
        return x
    q, qd, s = x[:n], x[n:2 * n], x[2 * n:]
    minv = 1.0 / system.masses
    zero = jnp.zeros(n)
    phi, J, _, _ = system.kinematics_terms(q, t)
    q = q + schur_solve(minv, J, zero, -phi, cholesky=True)[0]
    _, J, nu, _ = system.kinematics_terms(q, t)
    qd = qd + schur_solve(minv, J, zero, nu - J @ qd, cholesky=True)[0]
    return jnp.concatenate([q, qd, s])
