"""The small LP of the kinetic correction (eq. 33–34) and of the previous method's torque limit:
max wᵀx subject to A x = b (3 rows, the first all ones) and x ≥ 0, solved exactly by
enumerating the supports of 3, 2 and 1 columns (a line contact has rank 2), compiled with
numba; the NNLS least-squares solution when no support is feasible.
"""

from __future__ import annotations

import numpy as np

from ._lazy_njit import njit
from ._nnls import _lstsq_columns, nnls


@njit(cache=True)
def _lu_solve3(A: np.ndarray, i: int, j: int, k: int, b: np.ndarray, B: np.ndarray,
               sol: np.ndarray) -> float:
    """sol ← B⁻¹ b for B = A[:, (i, j, k)] (3 × 3) by Gaussian elimination with partial
    pivoting; returns det B (sol is not meaningful when it is 0). B is scratch space."""
    for q in range(3):
        B[q, 0], B[q, 1], B[q, 2] = A[q, i], A[q, j], A[q, k]
        sol[q] = b[q]
    det = 1.0
    for c in range(3):
        p = c
        for q in range(c + 1, 3):
            if abs(B[q, c]) > abs(B[p, c]):
                p = q
        if p != c:
            det = -det
            for e in range(3):
                B[c, e], B[p, e] = B[p, e], B[c, e]
            sol[c], sol[p] = sol[p], sol[c]
        piv = B[c, c]
        det *= piv
        if piv == 0.0:
            return 0.0
        for q in range(c + 1, 3):
            f = B[q, c] / piv
            for e in range(c + 1, 3):
                B[q, e] -= f * B[c, e]
            sol[q] -= f * sol[c]
    for c in range(2, -1, -1):
        t = sol[c]
        for e in range(c + 1, 3):
            t -= B[c, e] * sol[e]
        sol[c] = t / B[c, c]
    return det


@njit(cache=True)
def small_lp_max(w: np.ndarray, A: np.ndarray, b: np.ndarray) -> np.ndarray:
    """max wᵀx s.t. A x = b (A: 3 × L, first row all ones so the feasible set is bounded),
    x ≥ 0; returns x (L,).

    The optimum is attained at a basic feasible solution, whose support columns are
    linearly independent, so it is one of the solutions on supports of 3, 2 or 1 columns:
    3-column bases with |det| > 1e-12·max|A|³ (solved by LU), then the 2- and 1-column
    supports that are in no such basis (least squares on the row-scaled system, accepted
    when the residual is at most 1e-9·‖b‖; these find the optimum when A is rank deficient,
    e.g. collinear contact points of a box resting on an edge; a support that is in a
    nonsingular basis gives no new vertex, and its least-squares fit could violate A x = b
    by up to the tolerance). A support is feasible when x ≥ −1e-9·|b_0|; the
    best objective wins (among 3-bases the first in lexicographic order on ties; a smaller
    support must beat the best by a relative 1e-12). When no support is feasible the
    NNLS least-squares solution min ‖Ax − b‖, x ≥ 0 is returned.
    """
    L = A.shape[1]
    best = -np.inf
    x = np.zeros(L)
    found = False
    amax = 0.0
    for v in A.flat:
        amax = max(amax, abs(v))
    scale = amax ** 3
    tol = 1e-9 * max(abs(b[0]), 1e-300)
    # --- 3-column bases (LU with partial pivoting: backward stable, like LAPACK's)
    B = np.empty((3, 3))
    sol = np.empty(3)
    covered = np.zeros((L, L), dtype=np.bool_)     # [i, j] / [i, i]: in a nonsingular basis
    for i in range(L):
        for j in range(i + 1, L):
            for k in range(j + 1, L):
                det = _lu_solve3(A, i, j, k, b, B, sol)
                if not abs(det) > 1e-12 * scale:
                    continue
                covered[i, j] = covered[i, k] = covered[j, k] = True
                covered[i, i] = covered[j, j] = covered[k, k] = True
                if sol[0] >= -tol and sol[1] >= -tol and sol[2] >= -tol:
                    val = w[i] * sol[0] + w[j] * sol[1] + w[k] * sol[2]
                    if val > best:
                        best = val
                        found = True
                        x[:] = 0.0
                        x[i], x[j], x[k] = max(sol[0], 0.0), max(sol[1], 0.0), max(sol[2], 0.0)
    # --- 2- and 1-column supports, least squares on the row-scaled system
    As = np.empty((3, L))
    bs = np.empty(3)
    for q in range(3):
        s = 0.0
        for l in range(L):
            s = max(s, abs(A[q, l]))
        s = 1.0 / s if s > 0 else 1.0
        for l in range(L):
            As[q, l] = A[q, l] * s
        bs[q] = b[q] * s
    rtol = 1e-9 * max(np.sqrt(bs[0] ** 2 + bs[1] ** 2 + bs[2] ** 2), 1e-300)
    cols = np.empty(2, dtype=np.int64)
    for size in (2, 1):
        for i in range(L):
            for j in range(i + 1 if size == 2 else L - 1, L):
                if covered[i, j if size == 2 else i]:
                    continue                       # that vertex is among the 3-bases
                cols[0] = i
                cols[1] = j
                z, ratio, res = _lstsq_columns(As, bs, cols, size)
                if ratio <= 1e-12 or not res <= rtol:
                    continue
                ok = True
                val = 0.0
                for q in range(size):
                    if not z[q] >= -tol:
                        ok = False
                    val += w[cols[q]] * z[q]
                if ok and (not found or val > best + 1e-12 * abs(best)):
                    best = val
                    found = True
                    x[:] = 0.0
                    for q in range(size):
                        x[cols[q]] = max(z[q], 0.0)
    if found:
        return x
    # A compatible normal distribution always exists under eq. 25; fall back to least squares
    return nnls(A, b, 3 * L)[0]
