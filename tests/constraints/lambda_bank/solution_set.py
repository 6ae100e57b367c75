"""How many solutions a piecewise-linear λ-problem has: every mode combination as a linear
program (SPEC §6), independent of stickslip's solvers.

Used by ``make_bank.py`` (not by the suite) to store, with each planar instance, whether its
solution is unique, several (Painlevé) or absent. For the law w = Aλ − b ∈ −lim N_F^{U_ε}(λ)
(``"kikuuwe"``) or w ∈ −N_F(λ) (``"anitescu"``) each block is in one of a few modes, in each
of which the law is a set of linear equalities and inequalities in λ (SPEC §6, the seed's
table; rows (t, n) of a planar contact):

===============  ===========================================================================
block            modes (kikuuwe; anitescu differs only where it says so)
===============  ===========================================================================
bilateral        w = 0, λ free
unilateral       λ = 0, w ≥ 0  |  w = 0, λ ≥ 0
coulomb [−F, F]  w = 0, |λ| ≤ F  |  λ = −F, w ≥ 0  |  λ = F, w ≤ 0
planar contact   separate λ = 0, w_n ≥ 0 (anitescu: w_n ≥ μ|w_t|)  |  stick w = 0, |λ_t| ≤ μλ_n
                 |  slide± λ_t = ∓μλ_n, λ_n ≥ 0, ±w_t ≥ 0, w_n = 0 (anitescu: w_n = μ|w_t|)
===============  ===========================================================================

For each combination HiGHS decides feasibility; over a feasible one it finds the range of
each w_i and λ_i (two LPs each). The solution set is the union of these polyhedra: w is
unique when every range is a point and the points coincide (relative 1e-6, as
``solve_lambda``'s own distinctness test); λ is unique when its ranges are points too
(statically indeterminate contacts — four corners — give a λ segment with one w).
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy.optimize import linprog

__all__ = ["solution_set"]

# the modes of each block kind (the table above)
MODES = {"bilateral": ("bilateral",), "unilateral": ("apart", "press"),
         "coulomb": ("stick", "lower", "upper"),
         "planar_contact": ("separate", "stick", "slide+", "slide-")}


def _mode_rows(kind, mode, param, rows, A, b, formulation):
    """(equalities, inequalities) of one block's mode as lists of (g, h): g·λ = h or g·λ ≤ h."""
    m = A.shape[0]
    eq, ineq = [], []

    def unit(i):
        e = np.zeros(m)
        e[i] = 1.0
        return e

    def w_row(i):                                  # w_i = A_i λ − b_i
        return A[i], b[i]

    if kind == "bilateral":
        eq += [w_row(i) for i in rows]
    elif kind == "unilateral":
        (i,) = rows
        if mode == "apart":
            eq.append((unit(i), 0.0))
            ineq.append((-A[i], -b[i]))            # w ≥ 0
        else:
            eq.append(w_row(i))
            ineq.append((-unit(i), 0.0))
    elif kind == "coulomb":
        (i,) = rows
        F = param
        if mode == "stick":
            eq.append(w_row(i))
            ineq += [(unit(i), F), (-unit(i), F)]
        elif mode == "lower":
            eq.append((unit(i), -F))
            ineq.append((-A[i], -b[i]))            # w ≥ 0
        else:
            eq.append((unit(i), F))
            ineq.append((A[i], b[i]))              # w ≤ 0
    else:
        t, n = rows
        mu = param
        if mode == "separate":
            eq += [(unit(t), 0.0), (unit(n), 0.0)]
            if formulation == "anitescu":          # w_n ≥ μ|w_t|: two half-planes
                ineq += [(-(A[n] - mu * A[t]), -(b[n] - mu * b[t])),
                         (-(A[n] + mu * A[t]), -(b[n] + mu * b[t]))]
            else:
                ineq.append((-A[n], -b[n]))
        elif mode == "stick":
            eq += [w_row(t), w_row(n)]
            ineq += [(unit(t) - mu * unit(n), 0.0), (-unit(t) - mu * unit(n), 0.0)]
        else:
            s = 1.0 if mode == "slide+" else -1.0
            eq.append((unit(t) + s * mu * unit(n), 0.0))           # λ_t = −sμλ_n
            ineq.append((-unit(n), 0.0))                            # λ_n ≥ 0
            ineq.append((-s * A[t], -s * b[t]))                    # s w_t ≥ 0
            if formulation == "anitescu":                           # w_n = μ s w_t
                eq.append((A[n] - s * mu * A[t], b[n] - s * mu * b[t]))
            else:
                eq.append(w_row(n))
    return eq, ineq


def solution_set(blocks, A, b, formulation="kikuuwe", rtol=1e-6):
    """The solutions of the λ-problem, combination by combination.

    Parameters
    ----------
    blocks : list of dict
        The bank's block records (``kind`` and ``size``, ``mu`` or ``bound``).
    A : numpy.ndarray
        The Delassus matrix J M⁻¹ Jᵀ, shape (m, m).
    b : numpy.ndarray
        The free term, shape (m,).
    formulation : str, optional
        ``"kikuuwe"`` or ``"anitescu"``.
    rtol : float, optional
        Relative size below which two w (or a range) count as one point.

    Returns
    -------
    dict
        ``status`` ("unique", "several" or "none"), ``w_unique``, ``lam_unique``,
        ``feasible_combinations`` and ``combinations``.
    """
    A, b = np.asarray(A, float), np.asarray(b, float)
    m = A.shape[0]
    # scale λ by s = max|b| / max|A| so that every LP is of order 1
    a_max = float(np.max(np.abs(A)))
    b_max = max(float(np.max(np.abs(b))), 1e-12 * a_max)
    s = b_max / a_max
    A1, b1 = A / a_max, b / b_max                 # w/b_max = A1 λ' − b1, λ = s λ'
    offsets = np.cumsum([0] + [blk["size"] for blk in blocks])
    per_block = [MODES[blk["kind"]] for blk in blocks]
    points, w_unique, lam_unique, feasible, total = [], True, True, 0, 0
    for combo in itertools.product(*per_block):
        total += 1
        eq, ineq = [], []
        for blk, mode, o in zip(blocks, combo, offsets):
            param = blk.get("mu", blk.get("bound"))
            if blk["kind"] == "coulomb":
                param = param / s
            e, i = _mode_rows(blk["kind"], mode, param, list(range(o, o + blk["size"])),
                              A1, b1, formulation)
            eq += e
            ineq += i
        A_eq = np.array([g for g, _ in eq]) if eq else None
        b_eq = np.array([h for _, h in eq]) if eq else None
        A_ub = np.array([g for g, _ in ineq]) if ineq else None
        b_ub = np.array([h for _, h in ineq]) if ineq else None

        def extreme(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq):
            return linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq,
                           bounds=[(None, None)] * m, method="highs")
        first = extreme(np.zeros(m))
        if first.status != 0:
            continue
        feasible += 1
        lo_hi = []
        for c in list(A1) + list(np.eye(m)):
            lo, hi = extreme(c), extreme(-c)
            lo_v = lo.fun if lo.status == 0 else -np.inf
            hi_v = -hi.fun if hi.status == 0 else np.inf
            lo_hi.append((lo_v, hi_v))
        lo_hi = np.array(lo_hi)
        w_span = lo_hi[:m, 1] - lo_hi[:m, 0]
        lam_span = lo_hi[m:, 1] - lo_hi[m:, 0]
        if np.max(w_span) > rtol:
            w_unique = False
        if np.max(lam_span) > rtol:
            lam_unique = False
        points.append(np.where(np.isfinite(lo_hi[:, 0]), 0.5 * (lo_hi[:, 0] + lo_hi[:, 1]), 0.0))
    if points:
        P = np.array(points)
        if np.max(np.ptp(P[:, :m], axis=0)) > rtol:
            w_unique = False
        if np.max(np.ptp(P[:, m:], axis=0)) > rtol:
            lam_unique = False
    status = "none" if not points else ("unique" if w_unique else "several")
    return {"status": status, "w_unique": bool(points) and w_unique,
            "lam_unique": bool(points) and w_unique and lam_unique,
            "feasible_combinations": feasible, "combinations": total}
