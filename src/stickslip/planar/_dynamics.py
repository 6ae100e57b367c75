"""The constrained equations of motion and their one solver (SPEC §9, eq. 3-5).

Every analysis that needs accelerations, multipliers, a projection or an impulse goes
through this seam:

* :class:`ConstrainedEquations` — ``M q̈ = Q − Jᵀ λ`` with ``J q̈ = γ``: the inverse of the
  diagonal mass matrix ``minv`` (shape (n,)), the applied generalised forces ``Q`` (n,),
  the constraint Jacobian rows ``J`` (m, n) and the right-hand side ``gamma`` (m,)
  (γ − 2αΦ̇ − β²Φ with Baumgarte terms). :meth:`PlanarSystem.equations` assembles them.
* :func:`schur_solve` — the only place the saddle-point system
  ``[[M, Jᵀ], [J, 0]] [q̈; λ] = [Q; γ]`` is solved, through the Schur complement
  ``S = J M⁻¹ Jᵀ`` (M diagonal, so S is m × m and cheap): ``λ = S⁻¹(J M⁻¹ Q − γ)``,
  ``q̈ = M⁻¹(Q − Jᵀ λ)``. ``Q`` and ``gamma`` may carry extra columns (one factorisation
  solves several right-hand sides: the friction loop's λ = λ₀ + L f).

Uses: forward dynamics (``Q``, γ); the position and velocity projections (``Q = 0``,
γ = −Φ, resp. −(Φ_q q̇ − ν): the correction is the returned q̈); impact impulses
(``J = [Φ_q; g_q]``, ``Q = 0``, γ = the velocity jump asked of each row: q̈ is Δq̇).

**For contact solvers**: a unilateral contact generalises this solve — bilateral
rows have λ ∈ ℝ, contact normal rows λ ≥ 0 with complementarity, friction rows a cone. Take
:meth:`PlanarSystem.equations` (``minv, Q, J, gamma``), append the contact rows to J and
γ, and hand them to a solver for that admissible set; with only bilateral rows it must
reproduce :func:`schur_solve`. :class:`Dynamics` is what ``PlanarSystem.dynamics`` returns.
"""

from __future__ import annotations

from typing import NamedTuple

import jax.numpy as jnp

from ..constraints import eliminate_solve, spd_solve

__all__ = ["ConstrainedEquations", "Dynamics", "eliminate_solve", "schur_solve", "spd_solve"]


class ConstrainedEquations(NamedTuple):
    """``M q̈ = Q − Jᵀ λ``, ``J q̈ = γ`` (M diagonal; see the module docstring)."""

    minv: jnp.ndarray      # (n,) inverse masses and inertias
    Q: jnp.ndarray         # (n,) applied generalised forces
    J: jnp.ndarray         # (m, n) constraint Jacobian rows
    gamma: jnp.ndarray     # (m,) right-hand side of J q̈ = γ (Baumgarte terms included)


class Dynamics(NamedTuple):
    """Everything one evaluation of the DAE gives (arrays of shape (0,) where absent)."""

    qdd: jnp.ndarray        # (n,) accelerations
    lam: jnp.ndarray        # (m,) multipliers (reactions: F = −Jᵀλ)
    phi: jnp.ndarray        # (m,) constraint residual Φ
    rate: jnp.ndarray       # (m,) Φ̇
    J: jnp.ndarray          # (m, n) Φ_q
    s_rate: jnp.ndarray     # law state rates (frictions, then contact-law stops)
    friction: jnp.ndarray   # (n_f,) friction forces on body j along each slide
    normal: jnp.ndarray     # (n_f,) normal force each friction law sees
    velocity: jnp.ndarray   # (n_f,) slide rates ṡ
    residual: jnp.ndarray   # (n_f,) r(f) = f − g(f) of the reaction–friction loop
    contact: jnp.ndarray    # contact-law stop forces


def schur_solve(minv, J, Q, gamma, *, robust: bool = False, cholesky: bool = False):
    """(q̈, λ) of ``[[M, Jᵀ], [J, 0]] [q̈; λ] = [Q; γ]`` with ``M = diag(1/minv)``.

    `Q` (n,) or (n, k) and `gamma` (m,) or (m, k). The Schur system ``S λ = J M⁻¹ Q − γ`` is
    solved by :func:`spd_solve`, Gaussian elimination without pivoting, which is stable for
    the symmetric positive definite S and needs no LAPACK: a singular S (a mechanism at a
    lock-up, where Φ_q loses rank) meets a zero pivot and turns the result into inf/NaN at
    once, so the run stops there with the lock-up diagnosis. ``robust=True`` solves it by
    least squares instead (a rank-deficient J, as in an impact through redundant rows).
    ``cholesky`` is accepted for the callers of earlier versions, where it chose LAPACK's
    Cholesky over its LU; both are now the one elimination.
    """
    del cholesky
    if J.shape[0] == 0:
        return (minv * Q.T).T, jnp.zeros((0,) + Q.shape[1:], Q.dtype)
    JM = J * minv[None, :]
    S = JM @ J.T
    rhs = JM @ Q - gamma
    lam = jnp.linalg.lstsq(S, rhs)[0] if robust else spd_solve(S, rhs)
    qdd = (minv * (Q - J.T @ lam).T).T
    return qdd, lam
