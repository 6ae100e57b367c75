"""Dense linear solves in pure JAX, shared by every host's constrained dynamics.

:func:`spd_solve` (the Schur complement S = J M⁻¹ Jᵀ of a mechanism's joints) and
:func:`eliminate_solve` (a general matrix, e.g. a friction loop's Newton matrix) are Gaussian
elimination written as two ``fori_loop`` s: a compiled run holds no LAPACK call (on the CPU
that spares a new process the SciPy import jaxlib's LAPACK binding does, 0.2 s), and a
singular matrix meets a zero pivot and gives inf/NaN at once, never a silent value.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

__all__ = ["spd_solve", "eliminate_solve"]


def spd_solve(S, b):
    """x of ``S x = b`` for a symmetric positive definite S (m, m), b (m,) or (m, k).

    :func:`eliminate_solve` without pivoting — backward stable for a positive definite S
    (Golub & Van Loan, *Matrix Computations*, 4th ed., §4.2). Pure JAX, so a compiled run
    holds no LAPACK call: on the CPU that spares a new process the import of SciPy that
    jaxlib's LAPACK binding does (0.2 s), and for the m ≤ 12 of a planar mechanism it runs
    as fast as LAPACK's LU (`benchmarks/results/planar_startup.md`). A zero pivot gives
    inf/NaN, never a silent value.
    """
    return eliminate_solve(S, b, pivoting=False)


def eliminate_solve(A, b, *, pivoting: bool):
    """x of ``A x = b`` (A (m, m), b (m,) or (m, k)) by Gaussian elimination as two
    ``fori_loop`` s of whole-matrix updates: forward elimination of ``[A | b]`` (with
    `pivoting`, the largest remaining entry of each column is swapped into the pivot row —
    partial pivoting, for a general A such as the friction loop's Newton matrix), rows
    scaled to a unit diagonal, then back substitution by columns. A singular A meets a zero
    pivot: inf/NaN."""
    m = A.shape[0]
    B = b[:, None] if b.ndim == 1 else b
    M = jnp.concatenate([A, B.astype(A.dtype)], axis=1)
    rows = jnp.arange(m)

    def eliminate(k, M):
        if pivoting:
            p = jnp.argmax(jnp.where(rows >= k, jnp.abs(M[:, k]), -1.0))
            M = M[jnp.where(rows == k, p, jnp.where(rows == p, k, rows))]   # swap rows k, p
        factors = jnp.where(rows > k, M[:, k] / M[k, k], 0.0)
        return M - factors[:, None] * M[k][None, :]

    M = jax.lax.fori_loop(0, m, eliminate, M)
    M = M / jnp.diagonal(M)[:, None]

    def substitute(i, X):
        k = m - 1 - i
        above = jnp.where(rows < k, M[:, k], 0.0)
        return X - above[:, None] * X[k][None, :]

    X = jax.lax.fori_loop(0, m, substitute, M[:, m:])
    return X[:, 0] if b.ndim == 1 else X
