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
def _kkt_solve(K: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """K⁻¹ rhs; the least-squares solution (NumPy's default cut-off, eps·size) when K is
    singular, i.e. when the working rows are linearly dependent. numba's ``np.linalg.solve``
    raises ``LinAlgError`` for an exactly singular matrix, as NumPy's does, and that
    exception is caught inside compiled code."""
    try:
        return np.linalg.solve(K, rhs)
    except Exception:
        rcond = 2.220446049250313e-16 * K.shape[0]        # NumPy's rcond=None
        return np.linalg.lstsq(K, rhs, rcond)[0]


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
    if not (_all_finite(H) and _all_finite(g) and _all_finite(G) and _all_finite(x0)):
        return np.full(n, np.nan)
    x = -np.linalg.solve(H, g)                            # unconstrained minimiser
    if m_all == 0:
        return x
    Gx = G @ x
    absGx = np.abs(G) @ np.abs(x)
    inside = True
    for i in range(m_all):
        if not Gx[i] <= 1e-12 * (absGx[i] + 1e-300):
            inside = False
            break
    if inside:
        return x
    x = np.empty(n)
    x[:] = x0
    work = np.empty(m_all, dtype=np.int64)                # working set, in order of entry
    in_work = np.zeros(m_all, dtype=np.bool_)
    nw = 0
    for _ in range(max_iter):
        if not _all_finite(x):
            return x
        grad = H @ x + g
        if nw > 0:
            K = np.zeros((n + nw, n + nw))
            K[:n, :n] = H
            for k in range(nw):
                K[:n, n + k] = G[work[k]]
                K[n + k, :n] = G[work[k]]
            rhs = np.zeros(n + nw)
            rhs[:n] = -grad
            sol = _kkt_solve(K, rhs)
            p = sol[:n].copy()
            lam = sol[n:].copy()
        else:
            p = np.linalg.solve(H, -grad)
            lam = np.zeros(0)
        if np.linalg.norm(p) <= 1e-13 * (np.linalg.norm(x) + 1e-300):
            if nw == 0:
                return x
            kmin = int(np.argmin(lam))
            if lam[kmin] >= -1e-12 * (np.abs(lam).max() + 1e-300):
                return x
            in_work[work[kmin]] = False                   # drop the most negative multiplier
            for k in range(kmin, nw - 1):
                work[k] = work[k + 1]
            nw -= 1
            continue
        Gp = G @ p
        Gx = G @ x
        alpha, block = 1.0, -1
        for i in range(m_all):
            if Gp[i] > 0 and not in_work[i]:
                a = max(-Gx[i], 0.0) / Gp[i]
                if a < alpha:
                    alpha, block = a, i
        x = x + alpha * p
        if block >= 0:
            work[nw] = block
            in_work[block] = True
            nw += 1
    return x
