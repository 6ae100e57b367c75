"""Non-negative least squares, compiled with numba: the static-friction LP (eq. 28–31 of
SPEC §7) is decided by it, and the contact QP (eq. 16 with 25) is solved as its dual.
"""

from __future__ import annotations

import numpy as np

from ._lazy_njit import njit

__all__ = ["nnls"]

_EPS = 2.220446049250313e-16        # float64 machine epsilon


@njit(cache=True)
def _lstsq_columns(M: np.ndarray, y: np.ndarray, cols: np.ndarray,
                   k: int | np.integer) -> tuple[np.ndarray, float, float]:
    """min ‖M[:, cols[:k]] z − y‖ by Householder QR.

    Returns z (k,), the independence measure min_j |R_jj| / ‖M[:, cols[j]]‖ (1 for
    orthogonal columns, 0 for dependent ones or k > rows; z is then not meaningful) and the
    residual norm."""
    m = M.shape[0]
    A = np.empty((m, k))
    cn = np.empty(k)
    for c in range(k):
        s = 0.0
        for i in range(m):
            A[i, c] = M[i, cols[c]]
            s += A[i, c] * A[i, c]
        cn[c] = np.sqrt(s)
    b = y.copy()
    z = np.zeros(k)
    if k > m:
        return z, 0.0, np.inf
    ratio = 1.0
    v = np.empty(m)
    for j in range(k):
        s = 0.0
        for i in range(j, m):
            s += A[i, j] * A[i, j]
        normx = np.sqrt(s)
        if cn[j] == 0.0 or normx == 0.0:
            return z, 0.0, np.inf
        ratio = min(ratio, normx / cn[j])
        alpha = -normx if A[j, j] >= 0 else normx
        for i in range(j, m):
            v[i] = A[i, j]
        v[j] -= alpha
        vv = 0.0
        for i in range(j, m):
            vv += v[i] * v[i]
        for c in range(j + 1, k):
            d = 0.0
            for i in range(j, m):
                d += v[i] * A[i, c]
            d *= 2.0 / vv
            for i in range(j, m):
                A[i, c] -= d * v[i]
        d = 0.0
        for i in range(j, m):
            d += v[i] * b[i]
        d *= 2.0 / vv
        for i in range(j, m):
            b[i] -= d * v[i]
        A[j, j] = alpha
    for j in range(k - 1, -1, -1):
        s = b[j]
        for c in range(j + 1, k):
            s -= A[j, c] * z[c]
        z[j] = s / A[j, j]
    res = 0.0
    for i in range(k, m):
        res += b[i] * b[i]
    return z, ratio, np.sqrt(res)


@njit(cache=True)
def nnls(M: np.ndarray, y: np.ndarray, max_iter: int) -> tuple[np.ndarray, float]:
    """Non-negative least squares: x = argmin ‖Mx − y‖ subject to x ≥ 0, and ‖Mx − y‖.

    The active-set algorithm NNLS of Lawson & Hanson (1974), "Solving Least Squares
    Problems", ch. 23: move the column with the largest positive dual w = Mᵀ(y − Mx) into the
    passive set, solve the unconstrained least-squares problem on the passive columns
    (Householder QR), and step back to the boundary while any passive coefficient is not
    positive. As in their Fortran code, a candidate column that is numerically dependent on
    the passive ones, or whose new coefficient would not be positive, is passed over for
    that step (this is what keeps round-off from cycling).

    M (m, n), y (m,) float64; `max_iter` bounds the number of least-squares solves (the
    current x, feasible, is returned when it is reached). Units: x in y's units per M's.
    """
    m, n = M.shape
    x = np.zeros(n)
    w = np.empty(n)
    passive = np.zeros(n, dtype=np.bool_)
    skipped = np.zeros(n, dtype=np.bool_)
    S = np.empty(n + 1, dtype=np.int64)          # passive columns, in order of entry
    k = 0
    cmax = 0.0
    for j in range(n):
        s = 0.0
        for i in range(m):
            s += M[i, j] * M[i, j]
        cmax = max(cmax, np.sqrt(s))
    ynorm = 0.0
    for i in range(m):
        ynorm += y[i] * y[i]
    tol = 16 * _EPS * cmax * np.sqrt(ynorm)      # round-off level of w at the optimum
    res = np.empty(m)
    res_norm = 0.0
    stale = True                                 # x changed since w was computed
    it = 0
    while True:
        if stale:
            # w ← Mᵀ(y − Mx), the negative gradient of ½‖Mx − y‖², and ‖y − Mx‖ (written
            # out here, not a helper kernel: each kernel compiles on its own)
            for i in range(m):
                res[i] = y[i]
            for j in range(n):
                if x[j] != 0.0:
                    for i in range(m):
                        res[i] -= M[i, j] * x[j]
            for j in range(n):
                s = 0.0
                for i in range(m):
                    s += M[i, j] * res[i]
                w[j] = s
            s = 0.0
            for i in range(m):
                s += res[i] * res[i]
            res_norm = np.sqrt(s)
            stale = False
        if it >= max_iter:
            break
        t, best = -1, tol
        for j in range(n):
            if not passive[j] and not skipped[j] and w[j] > best:
                t, best = j, w[j]
        if t < 0:
            break                                # Kuhn–Tucker conditions hold
        S[k] = t
        z, ratio, _ = _lstsq_columns(M, y, S, k + 1)
        it += 1
        if ratio <= 1e-12 or not z[k] > 0.0:
            skipped[t] = True
            continue
        passive[t] = True
        k += 1
        while True:                              # LH steps 6–11
            done = True
            for q in range(k):
                if not z[q] > 0.0:
                    done = False
                    break
            if done:
                for q in range(k):
                    x[S[q]] = z[q]
                break
            if it >= max_iter:
                break
            alpha, qmin = np.inf, -1
            for q in range(k):
                if not z[q] > 0.0:
                    xq = x[S[q]]
                    a = xq / (xq - z[q]) if xq - z[q] > 0.0 else 0.0
                    if a < alpha:
                        alpha, qmin = a, q
            for q in range(k):
                x[S[q]] += alpha * (z[q] - x[S[q]])
            x[S[qmin]] = 0.0
            kk = np.int64(0)     # not the literal 0: numba would compile _lstsq_columns for it
            for q in range(k):
                j = S[q]
                if x[j] > 0.0:
                    S[kk] = j
                    kk += 1
                else:
                    x[j] = 0.0
                    passive[j] = False
            k = kk
            z, ratio, _ = _lstsq_columns(M, y, S, k)
            it += 1
        for j in range(n):      # a loop: a slice assignment compiles its own kernel
            skipped[j] = False
        stale = True
    return x, res_norm
