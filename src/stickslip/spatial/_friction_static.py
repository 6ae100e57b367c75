"""The static friction test of a contact's 6-axis force (SPEC §7 step 4; Wakisaka & Sugihara):
the pyramid matrix of eq. 28–31 and whether some ε ≥ 0 solves it, decided by the compiled
NNLS (min ‖Mε − y‖ over ε ≥ 0, :mod:`._nnls`) or, from Python, by SciPy's HiGHS.

Forces are in the contact frame (n, e1, e2): ``f = (f_n, f_1, f_2)`` and
``tau = (tau_n, tau_1, tau_2)`` about p_g; the polygon vertices ``r`` (L, 2) are in (e1, e2).
Compiled (numba, float64 arrays, callable from a compiled contact kernel): `pyramid_matrix`,
`lp_feasible`, and the input checks `_finite`, `_is_zero` that the kinetic and previous
methods share. Python: `static_lp_feasible`. Non-finite input is never feasible.
"""

from __future__ import annotations

import numpy as np

from ..errors import ParameterError
from ._lazy_njit import njit
from ._nnls import nnls


@njit(cache=True)
def _finite(a: np.ndarray) -> bool:
    for v in a.flat:
        if not np.isfinite(v):
            return False
    return True


@njit(cache=True)
def _is_zero(wrench: np.ndarray) -> bool:
    """Every component within 1e-12 of zero: the only wrench a contact without normal force
    can carry."""
    for v in wrench:
        if abs(v) > 1e-12:
            return False
    return True


@njit(cache=True)
def pyramid_matrix(r: np.ndarray, mu: float, P: int) -> np.ndarray:
    """The 6 × (L·P) matrix of eq. 28–31: column (l, p), index l·P + p, is the 6-axis force
    (f_n, f_1, f_2, tau_n, tau_1, tau_2) of the unit pyramid edge n + μ t_p at vertex l.

    r (L, 2) polygon vertices [m]; mu friction coefficient [-]; P pyramid sides.
    Rows 0–2 are in N per unit ε, rows 3–5 in N m per unit ε."""
    L = r.shape[0]
    M = np.empty((6, L * P))
    for p in range(P):
        ang = 2 * np.pi * p / P
        cp, sp = np.cos(ang), np.sin(ang)                      # eq. 27
        for l in range(L):
            r1, r2 = r[l, 0], r[l, 1]
            j = l * P + p
            M[0, j] = 1.0                                      # (28)
            M[1, j] = mu * cp                                  # (29)
            M[2, j] = mu * sp
            M[3, j] = mu * (r1 * sp - r2 * cp)                 # (30), r of vertex l
            M[4, j] = r2                                       # (31)
            M[5, j] = -r1
    return M


@njit(cache=True)
def _lp_system(wrench: np.ndarray, r: np.ndarray, mu_s: float, P: int,
               rtol: float) -> tuple[int, np.ndarray, np.ndarray, float]:
    """`lp_feasible` up to its NNLS solve: (verdict, M, y, tol) with verdict 1 (feasible)
    or 0 (not) when it is decided without NNLS, else −1: then the wrench is feasible when
    NNLS's residual min ‖Mε − y‖ (ε ≥ 0) is at most `tol`."""
    M = np.empty((6, 0))
    y = np.zeros(6)
    if not (_finite(wrench) and _finite(r)):
        return 0, M, y, 0.0
    fn = wrench[0]
    if fn <= 0:
        return 1 if _is_zero(wrench) else 0, M, y, 0.0
    M = pyramid_matrix(r, mu_s, P)
    R = 0.0
    for v in r.flat:
        R = max(R, abs(v))
    R = max(R, 1e-300)
    for i in range(6):
        s = 1.0 if i < 3 else 1 / R
        y[i] = wrench[i] * s / fn
        if i >= 3:
            for j in range(M.shape[1]):
                M[i, j] *= s
    yy = 0.0                                   # a loop: array expressions cost compile time
    for i in range(6):
        yy += y[i] * y[i]
    return -1, M, y, rtol * max(np.sqrt(yy), 1.0)


@njit(cache=True)
def lp_feasible(wrench: np.ndarray, r: np.ndarray, mu_s: float, P: int,
                rtol: float) -> bool:
    """Whether eq. 28–31 have a solution ε ≥ 0 (static friction can hold the wrench).

    wrench (6,) = (f_n, f_1, f_2, tau_n, tau_1, tau_2) [N, N m] in the contact frame;
    r (L, 2) polygon vertices [m]; mu_s [-]; P pyramid sides. The moment rows are divided
    by the polygon size max|r| and the whole system by f_n; feasible when NNLS's residual
    min ‖Mε − y‖ (ε ≥ 0) is at most rtol·max(‖y‖, 1). f_n ≤ 0: feasible only for the zero
    wrench (|components| ≤ 1e-12). Non-finite input: False.

    For compiled callers; `static_lp_feasible` gives the same answer from Python with the
    two halves called one after the other (NNLS is then compiled once, not a second time
    inside this kernel).
    """
    verdict, M, y, tol = _lp_system(wrench, r, mu_s, P, rtol)
    if verdict >= 0:
        return verdict == 1
    return nnls(M, y, 50 * M.shape[1])[1] <= tol


def _scaled(M: np.ndarray, y: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    R = max(float(np.max(np.abs(r))), 1e-300)
    s = np.array([1.0, 1.0, 1.0, 1 / R, 1 / R, 1 / R])
    return M * s[:, None], y * s


def static_lp_feasible(wrench: np.ndarray, r: np.ndarray, mu_s: float, P: int = 8,
                       solver: str = "nnls", rtol: float = 1e-9) -> bool:
    """Whether eq. 28–31 have a solution ε ≥ 0 (static friction can hold the wrench).

    `wrench` = (f_n, f_1, f_2, tau_n, tau_1, tau_2) in the contact frame.
    ``solver="nnls"`` decides feasibility by min ‖Mε − y‖ over ε ≥ 0 (the compiled
    Lawson–Hanson NNLS, `lp_feasible`; residual ≤ rtol·‖y‖ means feasible); ``"highs"``
    solves the LP with SciPy/HiGHS.
    """
    if solver not in ("nnls", "highs"):
        raise ParameterError(f"`solver` must be 'nnls' or 'highs'; got {solver!r}.")
    wrench = np.ascontiguousarray(wrench, dtype=float)
    r = np.ascontiguousarray(r, dtype=float)
    if solver == "nnls":                 # lp_feasible's two halves, called from here
        verdict, M, y, tol = _lp_system(wrench, r, float(mu_s), int(P), float(rtol))
        if verdict >= 0:
            return verdict == 1
        return bool(nnls(M, y, 50 * M.shape[1])[1] <= tol)
    fn = wrench[0]
    if fn <= 0:
        return bool(np.all(np.abs(wrench) <= 1e-12))
    from scipy.optimize import (
        linprog,  # only here: SciPy's optimizer takes ~0.3 s to import
    )

    M, y = _scaled(pyramid_matrix(r, float(mu_s), int(P)), wrench, r)
    y = y / fn
    out = linprog(np.zeros(M.shape[1]), A_eq=M, b_eq=y, bounds=(0, None), method="highs")
    return bool(out.status == 0)
