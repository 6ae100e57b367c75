"""The λ-stage (SPEC §6): the step of a host's vector field that turns its applied forces into
accelerations through the forces λ of its constraint rows.

Every host with joints or contacts on the acceleration level — a planar model with
frictional contacts, the 3-D point contacts, a spatial link system in touch — writes

    M q̈ = Q + Jᵀλ,      w = J q̈ − c ∈ −lim_{ε→+0} N_F^{U_ε}(λ),

rows J (joints', then contacts'), their right-hand side c (the Baumgarte-like terms of the
relaxation, SPEC §6), the admissible set F as a :class:`ProductSet` of blocks (the block
groups: :class:`Bilateral` joint rows, then one contact block per pair). With A = J M⁻¹ Jᵀ
and b = c − J M⁻¹ Q this is the λ-problem that :func:`solve_lambda` solves, and

    q̈ = M⁻¹ (Q + Jᵀλ).

The host says what M⁻¹ is (a diagonal, a dense matrix, a body-by-body operator) by giving
the rows J M⁻¹ and a function that applies M⁻¹ to a vector; A may be given where the host
builds it more cheaply than J (J M⁻¹)ᵀ (the link systems' body-by-body sum). The stage is
prepared once per evaluation and solved for each Q the host needs (a link system with joint
friction solves it inside its Newton loop on the friction forces).
"""

from __future__ import annotations

from collections.abc import Callable

import jax.numpy as jnp
from jax.typing import ArrayLike

from ._lambda_problem import LambdaSolution, solve_lambda
from ._sets import ProductSet

__all__ = ["lambda_stage"]


def lambda_stage(fset: ProductSet, J: ArrayLike, JM: ArrayLike, c: ArrayLike,
                 apply_minv: Callable[[jnp.ndarray], jnp.ndarray], formulation: str,
                 *, A: ArrayLike | None = None, **options
                 ) -> Callable[[ArrayLike], tuple[LambdaSolution, jnp.ndarray]]:
    """Prepare the λ-stage of one evaluation (module docstring); returns ``solve(Q)`` →
    (the λ-problem's :class:`LambdaSolution`, the accelerations M⁻¹(Q + Jᵀλ)).

    Parameters
    ----------
    fset : ProductSet
        The admissible set of the rows, block by block (static topology; traced bounds).
    J : Array
        The constraint rows, shape (m, n).
    JM : Array
        J M⁻¹, shape (m, n).
    c : Array
        The rows' right-hand side, shape (m,): J q̈ = c where the rows hold.
    apply_minv : callable
        v ↦ M⁻¹ v for a vector v of shape (n,).
    formulation : str
        ``"kikuuwe"``, ``"anitescu"`` or ``"nakaoka"`` (:func:`solve_lambda`).
    A : Array, optional
        J M⁻¹ Jᵀ where the host has it already; by default ``JM @ J.T``.
    **options
        Passed on to :func:`solve_lambda` (``certify``, ``fallback``, ``init``, ``warm``,
        ``refine``, ``tolerance``).
    """
    J, JM, c = jnp.asarray(J), jnp.asarray(JM), jnp.asarray(c)
    A = JM @ J.T if A is None else jnp.asarray(A)

    def solve(Q):
        Q = jnp.asarray(Q)
        sol = solve_lambda(fset, A, c - JM @ Q, formulation, **options)
        return sol, apply_minv(Q + J.T @ sol.lam)

    return solve
