"""A small dense primal active-set QP solver for the contact-force problem (SPEC §7, eq. 16
with eq. 25).

    minimise ½ xᵀ H x + gᵀ x  subject to  G x ≤ 0

H is symmetric positive definite (λ > 0 makes it so) and the constraints are homogeneous
cones (f_n ≥ 0, centre of pressure inside S), so a strictly feasible start is known (pure
normal force at p_g). No maintained QP solver was installable here (quadprog, daqp, qpsolvers
were not on the package index); the problem has 6 unknowns per contact and L + 1
constraints, for which a textbook active-set method (Nocedal & Wright, Alg. 16.3) takes one
or two linear solves.

The solver is compiled with numba (``@njit``) so that the per-step contact kernel can call it
without returning to Python; it is equally callable from Python with float64 arrays.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["solve_cone_qp"]


@numba.njit(cache=True)
def _all_finite(a: np.ndarray) -> bool:
    for v in a.flat:
        if not np.isfinite(v):
            return False
    return True


@numba.njit(cache=True)
def _lu_solve(K: np.ndarray, rhs: np.ndarray) -> tuple[np.ndarray, bool]:
    """K⁻¹ rhs by Gaussian elimination with partial pivoting (LAPACK's dgesv algorithm, on
    a copy of K); the flag is False when a pivot is exactly zero (where dgesv reports a
    singular matrix) and the solution is then not meaningful."""
    n = K.shape[0]
    A = K.copy()
    x = rhs.copy()
    for c in range(n):
        p = c
        big = abs(A[c, c])
        for q in range(c + 1, n):
            if abs(A[q, c]) > big:
                p, big = q, abs(A[q, c])
        if big == 0.0:
            return x, False
        if p != c:
            for e in range(c, n):
                A[c, e], A[p, e] = A[p, e], A[c, e]
            x[c], x[p] = x[p], x[c]
        inv = 1.0 / A[c, c]
        for q in range(c + 1, n):
            f = A[q, c] * inv
            if f != 0.0:
                for e in range(c + 1, n):
                    A[q, e] -= f * A[c, e]
                x[q] -= f * x[c]
    for c in range(n - 1, -1, -1):
        t = x[c]
        for e in range(c + 1, n):
            t -= A[c, e] * x[e]
        x[c] = t / A[c, c]
    return x, True


@numba.njit(cache=True)
def _kkt_solve(K: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """K⁻¹ rhs; the least-squares solution (SVD, NumPy's default cut-off eps·size) when K
    is singular, i.e. when the working rows are linearly dependent."""
    x, ok = _lu_solve(K, rhs)
    if ok:
        return x
    rcond = 2.220446049250313e-16 * K.shape[0]        # NumPy's rcond=None
    return np.linalg.lstsq(K, rhs, rcond)[0]


@numba.njit(cache=True)
def _matvec(A: np.ndarray, x: np.ndarray) -> np.ndarray:
    out = np.zeros(A.shape[0])
    for i in range(A.shape[0]):
        s = 0.0
        for j in range(A.shape[1]):
            s += A[i, j] * x[j]
        out[i] = s
    return out


@numba.njit(cache=True)
def _norm(x: np.ndarray) -> float:
    s = 0.0
    for v in x:
        s += v * v
    return np.sqrt(s)


@numba.njit(cache=True)
def solve_cone_qp(H: np.ndarray, g: np.ndarray, G: np.ndarray, x0: np.ndarray,
                  max_iter: int = 200) -> np.ndarray:
    """Minimise ½xᵀHx + gᵀx subject to Gx ≤ 0, from a strictly feasible `x0` (eq. 16, 25).

    H (n, n) symmetric positive definite, g (n,), G (m, n), x0 (n,): float64 arrays.
    Returns x (n,). Non-finite input gives an all-NaN result (the caller's finiteness check
    then reports it); a non-finite iterate is returned as it is.
    """
    n = H.shape[0]
    m_all = G.shape[0]
    x = np.empty(n)
    if not (_all_finite(H) and _all_finite(g) and _all_finite(G) and _all_finite(x0)):
        x[:] = np.nan
        return x
    neg = np.empty(n)                                     # right-hand sides −g, −∇
    for i in range(n):
        neg[i] = -g[i]
    x, ok = _lu_solve(H, neg)                             # unconstrained minimiser
    if not ok:
        raise np.linalg.LinAlgError("solve_cone_qp: H is singular")
    if m_all == 0:
        return x
    inside = True
    for i in range(m_all):
        gx, agx = 0.0, 0.0
        for j in range(n):
            gx += G[i, j] * x[j]
            agx += abs(G[i, j]) * abs(x[j])
        if not gx <= 1e-12 * (agx + 1e-300):
            inside = False
            break
    if inside:
        return x
    for i in range(n):
        x[i] = x0[i]
    work = np.empty(m_all, dtype=np.int64)                # working set, in order of entry
    in_work = np.zeros(m_all, dtype=np.bool_)
    nw = 0
    for _ in range(max_iter):
        if not _all_finite(x):
            return x
        Hx = _matvec(H, x)
        for i in range(n):
            neg[i] = -(Hx[i] + g[i])                      # −∇ = −(Hx + g)
        if nw > 0:
            K = np.zeros((n + nw, n + nw))
            rhs = np.zeros(n + nw)
            for i in range(n):
                for j in range(n):
                    K[i, j] = H[i, j]
                for k in range(nw):
                    K[i, n + k] = G[work[k], i]
                    K[n + k, i] = G[work[k], i]
                rhs[i] = neg[i]
            sol = _kkt_solve(K, rhs)
            p = sol[:n]
            lam = sol[n:]
        else:
            p, ok = _lu_solve(H, neg)
            lam = np.zeros(0)
        if _norm(p) <= 1e-13 * (_norm(x) + 1e-300):
            if nw == 0:
                return x
            kmin, lmax = 0, 0.0
            for k in range(nw):
                if lam[k] < lam[kmin]:
                    kmin = k
                lmax = max(lmax, abs(lam[k]))
            if lam[kmin] >= -1e-12 * (lmax + 1e-300):
                return x
            in_work[work[kmin]] = False                   # drop the most negative multiplier
            for k in range(kmin, nw - 1):
                work[k] = work[k + 1]
            nw -= 1
            continue
        Gp = _matvec(G, p)
        Gx = _matvec(G, x)
        alpha, block = 1.0, -1
        for i in range(m_all):
            if Gp[i] > 0 and not in_work[i]:
                a = max(-Gx[i], 0.0) / Gp[i]
                if a < alpha:
                    alpha, block = a, i
        for i in range(n):
            x[i] += alpha * p[i]
        if block >= 0:
            work[nw] = block
            in_work[block] = True
            nw += 1
    return x
