"""A small dense primal active-set QP solver for the contact-force problem (SPEC §7, eq. 16
with eq. 25).

    minimise ½ xᵀ H x + gᵀ x  subject to  G x ≤ 0

H is symmetric positive definite (λ > 0 makes it so) and the constraints are homogeneous
cones (f_n ≥ 0, centre of pressure inside S), so a strictly feasible start is known (pure
normal force at p_g). No maintained QP solver was installable here (quadprog, daqp, qpsolvers
were not on the package index); the problem has 6 unknowns per contact and L + 1
constraints, for which a textbook active-set method (Nocedal & Wright, Alg. 16.3) takes one
or two linear solves.
"""

from __future__ import annotations

import numpy as np

__all__ = ["solve_cone_qp"]


def solve_cone_qp(H: np.ndarray, g: np.ndarray, G: np.ndarray, x0: np.ndarray,
                  max_iter: int = 200) -> np.ndarray:
    """Minimise ½xᵀHx + gᵀx subject to Gx ≤ 0, from a strictly feasible `x0`."""
    x = -np.linalg.solve(H, g)
    if G.shape[0] == 0 or np.all(G @ x <= 1e-12 * (np.abs(G) @ np.abs(x) + 1e-300)):
        return x
    x = np.array(x0, dtype=float)
    work: list[int] = []
    n = len(x)
    for _ in range(max_iter):
        grad = H @ x + g
        if work:
            Gw = G[work]
            m = len(work)
            K = np.zeros((n + m, n + m))
            K[:n, :n] = H
            K[:n, n:] = Gw.T
            K[n:, :n] = Gw
            rhs = np.concatenate([-grad, np.zeros(m)])
            try:
                sol = np.linalg.solve(K, rhs)
            except np.linalg.LinAlgError:          # dependent working rows: least squares
                sol = np.linalg.lstsq(K, rhs, rcond=None)[0]
            p, lam = sol[:n], sol[n:]
        else:
            p, lam = np.linalg.solve(H, -grad), np.zeros(0)
        if np.linalg.norm(p) <= 1e-13 * (np.linalg.norm(x) + 1e-300):
            if lam.size == 0 or lam.min() >= -1e-12 * (np.abs(lam).max() + 1e-300):
                return x
            work.pop(int(np.argmin(lam)))
            continue
        Gp = G @ p
        Gx = G @ x
        alpha, block = 1.0, -1
        for i in np.flatnonzero(Gp > 0):
            if i in work:
                continue
            a = max(-Gx[i], 0.0) / Gp[i]
            if a < alpha:
                alpha, block = a, int(i)
        x = x + alpha * p
        if block >= 0:
            work.append(block)
    return x
