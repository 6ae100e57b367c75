"""The contact-force QP of SPEC §7 (eq. 16 with the cone constraints of eq. 25), solved
through its dual, compiled with numba.

    minimise ½ xᵀ H x + gᵀ x  subject to  G x ≤ 0

H is symmetric positive definite (λ and a small Tikhonov term make it so) and the constraints
are homogeneous (f_n ≥ 0, centre of pressure inside S). With H = L Lᵀ the Lagrange dual is a
non-negative least-squares problem,

    μ* = argmin_{μ ≥ 0} ‖L⁻¹ (g + Gᵀ μ)‖,      x* = −H⁻¹ (g + Gᵀ μ*),

(e.g. Boyd & Vandenberghe, *Convex Optimization*, §5.2; the NNLS form is Lawson & Hanson's
LSI → LDP reduction, ch. 23), solved by the Lawson–Hanson active-set method in `_nnls`. The
dual stays exact when H is badly conditioned: a sliver contact between tumbling polyhedra
gives eigenvalues of H spread over seven decades, where the primal active-set method this
replaced returned forces of 1e11 N (a body thrown 17 m up, or NaN); the dual method is also
finite (no cycling) and needs no feasible start. H is scaled to unit diagonal first.
No maintained QP solver was installable here (quadprog, daqp, qpsolvers are not on the
package index).
"""

from __future__ import annotations

import numpy as np

from ._lazy_njit import njit
from ._nnls import nnls

__all__ = ["cone_qp", "solve_cone_qp", "solve_cone_qp_with_multipliers"]


@njit(cache=True)
def _cholesky(A: np.ndarray) -> tuple[np.ndarray, bool]:
    """Lower-triangular L with L Lᵀ = A; the flag is False when a pivot is not positive."""
    n = A.shape[0]
    L = np.zeros((n, n))
    for j in range(n):
        s = A[j, j]
        for k in range(j):
            s -= L[j, k] * L[j, k]
        if not s > 0.0:
            return L, False
        d = np.sqrt(s)
        L[j, j] = d
        for i in range(j + 1, n):
            s = A[i, j]
            for k in range(j):
                s -= L[i, k] * L[j, k]
            L[i, j] = s / d
    return L, True


@njit(cache=True)
def _dual_problem(H: np.ndarray, g: np.ndarray, G: np.ndarray):
    """The NNLS form of the dual: (ok, d, L, M, b) with the diagonal scaling d, the Cholesky
    factor L of the scaled H, M = L⁻¹ G_sᵀ (n, m) and b = −L⁻¹ g_s; ok is False for
    non-finite input or an H that is not positive definite (to round-off).

    Element loops throughout, no array expressions, slices, `.flat` or `np.full`, and the
    triangular solves written out: each of those, like each helper kernel, compiles on its
    own on first use (compile time, not run time)."""
    n, m = g.shape[0], G.shape[0]
    finite = True
    for i in range(n):
        if not np.isfinite(g[i]):
            finite = False
        for j in range(n):
            if not np.isfinite(H[i, j]):
                finite = False
    d = np.empty(n)
    for i in range(n):
        d[i] = 1.0 / np.sqrt(H[i, i]) if H[i, i] > 0.0 else 1.0
    Hs = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            Hs[i, j] = H[i, j] * d[i] * d[j]
    L, ok = _cholesky(Hs)
    jitter = 1e-14
    while finite and not ok and jitter < 1e-6:  # semi-definite to round-off: regularise a hair
        for i in range(n):
            Hs[i, i] += jitter
        L, ok = _cholesky(Hs)
        jitter *= 100.0
    B = np.empty((n, m + 1))                   # [d∘Gᵀ, d∘g]
    for i in range(n):
        for r in range(m):
            B[i, r] = G[r, i] * d[i]
        B[i, m] = g[i] * d[i]
    M = np.empty((n, m))
    b = np.empty(n)
    if finite and ok:
        LB = np.empty((n, m + 1))              # L⁻¹ B, forward substitution column by column
        for c in range(m + 1):
            for i in range(n):
                s = B[i, c]
                for j in range(i):
                    s -= L[i, j] * LB[j, c]
                LB[i, c] = s / L[i, i]
        for i in range(n):
            b[i] = -LB[i, m]
            for r in range(m):
                M[i, r] = LB[i, r]
    return finite and ok, d, L, M, b


@njit(cache=True)
def _primal(d: np.ndarray, L: np.ndarray, M: np.ndarray, b: np.ndarray,
            mu: np.ndarray) -> np.ndarray:
    """x = −H⁻¹(g + Gᵀμ) from the dual's (d, L, M, b) of `_dual_problem` and μ."""
    n, m = b.shape[0], mu.shape[0]
    v = np.empty(n)
    for i in range(n):
        v[i] = -b[i]
    for r in range(m):
        for i in range(n):
            v[i] += M[i, r] * mu[r]
    y = np.empty(n)                            # L⁻ᵀ v, backward substitution
    for i in range(n - 1, -1, -1):
        s = v[i]
        for j in range(i + 1, n):
            s -= L[j, i] * y[j]
        y[i] = s / L[i, i]
    x = np.empty(n)
    for i in range(n):
        x[i] = -d[i] * y[i]
    return x


@njit(cache=True)
def solve_cone_qp_with_multipliers(H: np.ndarray, g: np.ndarray,
                                   G: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The minimiser x of ½xᵀHx + gᵀx subject to Gx ≤ 0 and the constraints' multipliers
    μ ≥ 0 (Hx + g + Gᵀμ = 0, μ·Gx = 0 at the optimum). Non-finite input gives NaN."""
    n, m = g.shape[0], G.shape[0]
    ok, d, L, M, b = _dual_problem(H, g, G)
    mu = np.zeros(m)
    if not ok:
        x = np.empty(n)
        for i in range(n):
            x[i] = np.nan
        for r in range(m):
            mu[r] = np.nan
        return x, mu
    if m > 0:
        mu = nnls(M, b, 10 * (m + n))[0]
    return _primal(d, L, M, b, mu), mu


@njit(cache=True)
def solve_cone_qp(H: np.ndarray, g: np.ndarray, G: np.ndarray) -> np.ndarray:
    """Minimise ½xᵀHx + gᵀx subject to Gx ≤ 0 (H symmetric positive definite)."""
    return solve_cone_qp_with_multipliers(H, g, G)[0]


def cone_qp(H: np.ndarray, g: np.ndarray, G: np.ndarray) -> np.ndarray:
    """`solve_cone_qp` called from Python: the same numbers, with its three steps (the dual's
    set-up, NNLS, the primal) called one after the other from here, so that NNLS is compiled
    once and not again inside a second kernel (a compiled kernel carries a copy of every
    kernel it calls: first-run compile time). H, g, G float64, C order."""
    n, m = g.shape[0], G.shape[0]
    ok, d, L, M, b = _dual_problem(H, g, G)
    if not ok:
        return np.full(n, np.nan)
    mu = nnls(M, b, 10 * (m + n))[0] if m > 0 else np.zeros(0)
    return _primal(d, L, M, b, mu)
