"""Friction constraints on a contact's 6-axis force (SPEC §7 steps 4–5; Wakisaka & Sugihara).

Forces are written in the contact frame (n, e1, e2): ``f = (f_n, f_1, f_2)`` and
``tau = (tau_n, tau_1, tau_2)`` about p_g. The polygon vertices ``r`` (L, 2) are in (e1, e2).

The per-step solvers are compiled with numba (``@njit``) on float64 arrays, so that a compiled
contact kernel can call them with no Python in between; from Python they are called the same
way. Compiled: `pyramid_matrix`, `lp_feasible`, `small_lp_max`, `kinetic_correction`,
`previous_torque_limit`, `previous_static`, `previous_kinetic`. Python, with argument checks:
`static_lp_feasible` (which also offers SciPy's HiGHS) and `static_friction_holds`.
Non-finite input is never hidden: the feasibility tests answer False for it and the
corrections return NaN, so that the caller's finiteness check reports it.
"""

from __future__ import annotations

import numba
import numpy as np

from ..errors import ParameterError
from ._dense import dot
from ._nnls import _lstsq_columns, nnls

__all__ = [
    "kinetic_correction",
    "lp_feasible",
    "previous_kinetic",
    "previous_static",
    "previous_torque_limit",
    "pyramid_matrix",
    "small_lp_max",
    "static_friction_holds",
    "static_lp_feasible",
]

@numba.njit(cache=True)
def _finite(a: np.ndarray) -> bool:
    for v in a.flat:
        if not np.isfinite(v):
            return False
    return True


@numba.njit(cache=True)
def _is_zero(wrench: np.ndarray) -> bool:
    """Every component within 1e-12 of zero: the only wrench a contact without normal force
    can carry."""
    for v in wrench:
        if abs(v) > 1e-12:
            return False
    return True


@numba.njit(cache=True)
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


@numba.njit(cache=True)
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


@numba.njit(cache=True)
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
    from scipy.optimize import linprog     # only here: SciPy's optimizer takes ~0.3 s to import

    M, y = _scaled(pyramid_matrix(r, float(mu_s), int(P)), wrench, r)
    y = y / fn
    out = linprog(np.zeros(M.shape[1]), A_eq=M, b_eq=y, bounds=(0, None), method="highs")
    return bool(out.status == 0)


@numba.njit(cache=True)
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


@numba.njit(cache=True)
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


@numba.njit(cache=True)
def _normal_rows(r: np.ndarray) -> np.ndarray:
    """Eq. 34's rows: (Σ ε, Σ r_2 ε, −Σ r_1 ε) = (f_n, tau_1, tau_2)."""
    L = r.shape[0]
    A = np.empty((3, L))
    for l in range(L):
        A[0, l] = 1.0
        A[1, l] = r[l, 1]
        A[2, l] = -r[l, 0]
    return A


@numba.njit(cache=True)
def _normal_part(wrench: np.ndarray) -> np.ndarray:
    """(f_n, tau_1, tau_2) of a wrench: eq. 34's right-hand side."""
    out = np.empty(3)
    out[0], out[1], out[2] = wrench[0], wrench[4], wrench[5]
    return out


@numba.njit(cache=True)
def _inv_or_zero(x: float, s: float) -> float:
    return (1.0 / x) if abs(x) > 1e-6 * s else 0.0


@numba.njit(cache=True)
def kinetic_correction(wrench: np.ndarray, r: np.ndarray, slip_dir: np.ndarray,
                       mu_d: float) -> np.ndarray:
    """Kinetic friction replacing a wrench static friction cannot hold (eq. 32–34).

    Each vertex l carries ε'_l (n + μ_d d_l), ε' ≥ 0, where d_l (L, 2) is the unit friction
    direction (opposite the slip at the vertex; zero where it does not slip). ε' keeps
    (f_n, tau_1, tau_2) of `wrench` (eq. 34) and maximises eq. 33's alignment of the friction
    components with those of `wrench`; a component whose magnitude is below 1e-6 of its
    scale gets weight 0 there instead of the paper's division by a near-zero number.
    Returns the corrected wrench (f_n, f_1, f_2, tau_n, tau_1, tau_2) [N, N m]; all NaN
    when an input is not finite.
    """
    ok, w, A, b, tnl = _kinetic_lp(wrench, r, slip_dir, mu_d)
    if not ok:
        out = np.empty(6)
        for i in range(6):
            out[i] = np.nan
        return out
    return _kinetic_wrench(small_lp_max(w, A, b), r, slip_dir, tnl, mu_d)


@numba.njit(cache=True)
def _kinetic_lp(wrench: np.ndarray, r: np.ndarray, slip_dir: np.ndarray, mu_d: float):
    """`kinetic_correction` up to its LP: (ok, w, A, b, tnl) with eq. 33's weights w, eq.
    34's rows A and right-hand side b, and the normal torque arm per unit friction of each
    vertex tnl; ok is False when an input is not finite."""
    L = r.shape[0]
    tnl = np.empty(L)
    w = np.empty(L)
    if not (_finite(wrench) and _finite(r) and _finite(slip_dir) and np.isfinite(mu_d)):
        return False, w, np.empty((3, L)), np.empty(3), tnl
    fn, f1, f2, tn = wrench[0], wrench[1], wrench[2], wrench[3]
    R = 1e-300
    for l in range(L):
        R = max(R, np.hypot(r[l, 0], r[l, 1]))
    scale_f = max(abs(fn), abs(f1), abs(f2), 1e-300)
    i1, i2, i3 = _inv_or_zero(f1, scale_f), _inv_or_zero(f2, scale_f), \
        _inv_or_zero(tn, scale_f * R)
    for l in range(L):
        tnl[l] = r[l, 0] * slip_dir[l, 1] - r[l, 1] * slip_dir[l, 0]
        w[l] = mu_d * (slip_dir[l, 0] * i1 + slip_dir[l, 1] * i2 + tnl[l] * i3)   # eq. 33
    return True, w, _normal_rows(r), _normal_part(wrench), tnl


@numba.njit(cache=True)
def _kinetic_wrench(eps: np.ndarray, r: np.ndarray, slip_dir: np.ndarray, tnl: np.ndarray,
                    mu_d: float) -> np.ndarray:
    """The wrench of the vertex forces ε'_l (n + μ_d d_l) (eq. 32)."""
    out = np.zeros(6)
    for l in range(r.shape[0]):
        e = eps[l]
        out[0] += e
        out[1] += mu_d * e * slip_dir[l, 0]
        out[2] += mu_d * e * slip_dir[l, 1]
        out[3] += mu_d * e * tnl[l]
        out[4] += e * r[l, 1]
        out[5] -= e * r[l, 0]
    return out


def kinetic_correction_host(wrench: np.ndarray, r: np.ndarray, slip_dir: np.ndarray,
                            mu_d: float) -> np.ndarray:
    """`kinetic_correction` called from Python: the same numbers, with its three steps (the
    LP's set-up, `small_lp_max`, the wrench) called one after the other from here, so that
    `small_lp_max` and the NNLS inside it are compiled once and not again inside a second
    kernel (first-run compile time). Arrays float64, C order."""
    mu_d = float(mu_d)
    ok, w, A, b, tnl = _kinetic_lp(wrench, r, slip_dir, mu_d)
    if not ok:
        return np.full(6, np.nan)
    return _kinetic_wrench(small_lp_max(w, A, b), r, slip_dir, tnl, mu_d)


@numba.njit(cache=True)
def previous_torque_limit(wrench: np.ndarray, r: np.ndarray, mu: float) -> float:
    """The previous method's normal-torque limit (Wakisaka & Sugihara 2016; SPEC §7 end of
    2.4): max μ Σ_l |r_l| ε_l over normal distributions ε ≥ 0 compatible with
    (f_n, tau_1, tau_2), i.e. friction at every vertex at its limit and circumferential.
    Returns the limit [N m]."""
    c, A, b = _torque_lp(wrench, r, mu)
    return dot(c, small_lp_max(c, A, b))


@numba.njit(cache=True)
def _torque_lp(wrench: np.ndarray, r: np.ndarray, mu: float):
    """`previous_torque_limit`'s LP: the weights μ|r_l| and eq. 34's rows and right-hand
    side."""
    L = r.shape[0]
    c = np.empty(L)
    for l in range(L):
        c[l] = mu * np.hypot(r[l, 0], r[l, 1])
    return c, _normal_rows(r), _normal_part(wrench)


@numba.njit(cache=True)
def _previous_static_force(wrench: np.ndarray, r: np.ndarray, mu_s: float) -> int:
    """`previous_static` without the torque test: 0 (not static), 1 (static) or −1 (static
    when |tau_n| is within the torque limit)."""
    if not (_finite(wrench) and _finite(r)):
        return 0
    fn = wrench[0]
    if fn <= 0:
        return 1 if _is_zero(wrench) else 0
    if not np.hypot(wrench[1], wrench[2]) <= mu_s * fn * (1 + 1e-12):
        return 0
    return -1


@numba.njit(cache=True)
def _torque_within(wrench: np.ndarray, limit: float) -> bool:
    return abs(wrench[3]) <= limit * (1 + 1e-12)


@numba.njit(cache=True)
def previous_static(wrench: np.ndarray, r: np.ndarray, mu_s: float) -> bool:
    """The previous method's test: |f_t| ≤ μ_s f_n and |tau_n| ≤ the torque limit,
    separately. Non-finite input: False."""
    verdict = _previous_static_force(wrench, r, mu_s)
    if verdict >= 0:
        return verdict == 1
    return _torque_within(wrench, previous_torque_limit(wrench, r, mu_s))


@numba.njit(cache=True)
def _previous_kinetic_force(wrench: np.ndarray, r: np.ndarray,
                            mu_d: float) -> tuple[bool, np.ndarray]:
    """`previous_kinetic` up to the torque: (ok, the wrench with its friction force limited);
    all NaN and ok False when an input is not finite."""
    out = np.empty(6)
    for i in range(6):
        out[i] = wrench[i]
    if not (_finite(wrench) and _finite(r) and np.isfinite(mu_d)):
        for i in range(6):
            out[i] = np.nan
        return False, out
    ft = np.hypot(out[1], out[2])
    lim = mu_d * out[0]
    if ft > lim:
        out[1] *= lim / ft
        out[2] *= lim / ft
    return True, out


@numba.njit(cache=True)
def _clamp_torque(out: np.ndarray, limit: float) -> np.ndarray:
    out[3] = min(max(out[3], -limit), limit)
    return out


@numba.njit(cache=True)
def previous_kinetic(wrench: np.ndarray, r: np.ndarray, mu_d: float) -> np.ndarray:
    """The previous method's kinetic correction: the friction force limited to μ_d f_n (its
    direction kept) and the normal torque to the μ_d torque limit, separately. Returns the
    corrected wrench [N, N m]; all NaN when an input is not finite."""
    ok, out = _previous_kinetic_force(wrench, r, mu_d)
    if not ok:
        return out
    return _clamp_torque(out, previous_torque_limit(out, r, mu_d))


# --- the same tests called from Python, step by step -------------------------------------
# A compiled kernel carries a compiled copy of every kernel it calls; called one after the
# other from here, small_lp_max and its NNLS are compiled once instead of again inside each
# of previous_torque_limit, previous_static and previous_kinetic (first-run compile time).
# Same numbers (tested bit for bit); arrays float64, C order.

def previous_torque_limit_host(wrench: np.ndarray, r: np.ndarray, mu: float) -> float:
    """`previous_torque_limit` from Python."""
    c, A, b = _torque_lp(wrench, r, float(mu))
    return dot(c, small_lp_max(c, A, b))


def previous_static_host(wrench: np.ndarray, r: np.ndarray, mu_s: float) -> bool:
    """`previous_static` from Python."""
    verdict = _previous_static_force(wrench, r, float(mu_s))
    if verdict >= 0:
        return verdict == 1
    return bool(_torque_within(wrench, previous_torque_limit_host(wrench, r, mu_s)))


def previous_kinetic_host(wrench: np.ndarray, r: np.ndarray, mu_d: float) -> np.ndarray:
    """`previous_kinetic` from Python."""
    ok, out = _previous_kinetic_force(wrench, r, float(mu_d))
    if not ok:
        return out
    return _clamp_torque(out, previous_torque_limit_host(out, r, mu_d))


def static_friction_holds(force, torque, footprint, mu_s: float, normal_force: float,
                          P: int = 8, *, solver: str = "nnls") -> bool:
    """Whether static friction can hold a tangential force and a normal-axis torque on a
    flat contact: the LP of eq. 28–31 alone (SPEC §7 step 4).

    Parameters
    ----------
    force: (f_x, f_y) tangential force [N] at the footprint's origin.
    torque: tau_z, torque about the normal (+z) [N m] at the footprint's origin.
    footprint: (L, 2) vertices of the convex contact polygon [m], in the same frame.
    mu_s: static friction coefficient μ_s [-].
    normal_force: f_n > 0 [N]; its centre of pressure is the origin (tau_x = tau_y = 0).
    P: sides of the pyramid inscribed in the friction cone (>= 3); its first edge is along +x.
    solver: "nnls" (default: the compiled NNLS feasibility test, min ‖Mε − y‖ over ε ≥ 0)
        or "highs" (SciPy's HiGHS LP). They agree (tested on a grid of loads); NNLS is
        80–150× faster per call.

    Returns
    -------
    True when some distribution of forces at the footprint's vertices, each inside the
    P-sided pyramid, adds up to (f_n, f_x, f_y, tau_z, 0, 0).

    Examples
    --------
    >>> import stickslip as ss
    >>> sq = [(-0.05, -0.05), (0.05, -0.05), (0.05, 0.05), (-0.05, 0.05)]
    >>> ss.spatial.static_friction_holds((4.0, 0.0), 0.0, sq, mu_s=0.5, normal_force=9.81)
    True
    >>> ss.spatial.static_friction_holds((5.0, 0.0), 0.0, sq, mu_s=0.5, normal_force=9.81)
    False
    """
    P = check_pyramid_sides(P)
    mu_s = _number("mu_s", mu_s)
    if not (np.isfinite(mu_s) and mu_s >= 0):
        raise ParameterError(f"`static_friction_holds.mu_s` must be >= 0; got mu_s={mu_s!r}.")
    fn = _number("normal_force", normal_force)
    if not (np.isfinite(fn) and fn > 0):
        raise ParameterError(f"`static_friction_holds.normal_force` must be > 0; got "
                             f"normal_force={normal_force!r}. Pass the normal force in N.")
    f = _array("force", force).reshape(-1)
    if f.shape != (2,):
        raise ParameterError(f"`static_friction_holds.force` must be (f_x, f_y); got shape "
                             f"{f.shape}.")
    r = _array("footprint", footprint)
    if r.ndim != 2 or r.shape[1] != 2 or len(r) < 1:
        raise ParameterError(f"`static_friction_holds.footprint` must be an (L, 2) array; got "
                             f"shape {r.shape}.")
    if not np.all(np.isfinite(f)):
        raise ParameterError(f"`static_friction_holds.force` must be finite; got {f.tolist()}.")
    if not np.all(np.isfinite(r)):
        raise ParameterError("`static_friction_holds.footprint` must be finite; got "
                             f"{r.tolist()}.")
    try:
        tau = float(torque)
    except (TypeError, ValueError):
        raise ParameterError("`static_friction_holds.torque` must be a number (tau_z [N m]); "
                             f"got {torque!r}.") from None
    if not np.isfinite(tau):
        raise ParameterError(f"`static_friction_holds.torque` must be finite; got {tau!r}.")
    if solver not in ("nnls", "highs"):
        raise ParameterError(f"`static_friction_holds.solver` must be 'nnls' or 'highs'; got "
                             f"{solver!r}.")
    wrench = np.array([fn, f[0], f[1], tau, 0.0, 0.0])
    return static_lp_feasible(wrench, r, mu_s, P, solver=solver)


def _number(name: str, value) -> float:
    if isinstance(value, (str, bytes, bool)):
        raise ParameterError(f"`static_friction_holds.{name}` must be a number; got {value!r}.")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ParameterError(f"`static_friction_holds.{name}` must be a number; got "
                             f"{value!r}.") from None


def _array(name: str, value) -> np.ndarray:
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ParameterError(f"`static_friction_holds.{name}` must be numbers; got "
                             f"{value!r}.") from None


def check_pyramid_sides(P) -> int:
    """P as an int >= 3, or a ParameterError."""
    if isinstance(P, bool) or not isinstance(P, (int, float, np.integer, np.floating)) \
            or not np.isfinite(P) or int(P) != P or P < 3:
        raise ParameterError(f"`P` (sides of the friction pyramid) must be an integer >= 3; got "
                             f"P={P!r}. The paper uses P=8.")
    return int(P)
