"""Pure-JAX friction tests and corrections of SPEC §7 steps 4–5 (Wakisaka & Sugihara), the
counterparts of the numba kernels in `_friction` for the jitted volume-contact run.

Wrenches are in the contact frame (n, e1, e2): ``(f_n, f_1, f_2, tau_n, tau_1, tau_2)`` about
p_g; the polygon S is a padded buffer ``r`` (Lmax, 2) [m] in (e1, e2) with ``count`` real
vertices (the others are zero and are masked out). Same tolerances and tie-breaking as the
numba kernels (see `_friction`): the static LP (eq. 28–31) is decided by NNLS feasibility
(residual ≤ 1e-9 relative), the kinetic LP (eq. 33–34) by enumerating supports of 3, 2 and
1 columns — here all at once (vectorised), with the numba kernel's order of preference.
"""

from __future__ import annotations

from itertools import combinations
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from ._volume_jax_qp import lstsq_columns, nnls

__all__ = [
    "KineticLP",
    "StaticLP",
    "kinetic_correction",
    "kinetic_problem",
    "kinetic_wrench",
    "pyramid_matrix",
    "small_lp_choose",
    "small_lp_max",
    "small_lp_supports",
    "static_lp_feasible",
    "static_lp_problem",
    "static_lp_verdict",
]


def pyramid_matrix(r, valid, mu, P: int):
    """The 6 × (Lmax·P) matrix of eq. 28–31: column l·P + p is the wrench of the unit pyramid
    edge n + μ t_p (eq. 26–27) at vertex l; zero columns for padding vertices. Rows 0–2 in N,
    rows 3–5 in N m per unit ε."""
    ang = 2 * np.pi * np.arange(P) / P
    cp, sp = jnp.asarray(np.cos(ang)), jnp.asarray(np.sin(ang))
    r1, r2 = r[:, 0][:, None], r[:, 1][:, None]
    one = jnp.ones_like(r1 * cp)
    rows = [one,                                   # (28)
            mu * cp + 0.0 * r1,                    # (29)
            mu * sp + 0.0 * r1,
            mu * (r1 * sp - r2 * cp),              # (30), the arm of vertex l
            r2 * one,                              # (31)
            -r1 * one]
    M = jnp.stack([jnp.where(valid[:, None], row, 0.0) for row in rows])   # (6, Lmax, P)
    return M.reshape(6, -1)


class StaticLP(NamedTuple):
    """The static LP (eq. 28–31) as an NNLS feasibility problem min_{ε ≥ 0} ‖Mε − y‖ and
    what its verdict needs (:func:`static_lp_problem`, :func:`static_lp_verdict`)."""

    M: jnp.ndarray           # (6, Lmax·P)
    y: jnp.ndarray           # (6,)
    max_iter: jnp.ndarray    # the NNLS's bound on least-squares solves
    tol: jnp.ndarray         # feasible when the residual is at most this
    positive: jnp.ndarray    # f_n > 0
    zero: jnp.ndarray        # the wrench is zero (|·| ≤ 1e-12)
    finite: jnp.ndarray


def static_lp_problem(wrench, r, count, mu_s, P: int, rtol: float = 1e-9) -> StaticLP:
    """The NNLS problem of eq. 28–31 for `wrench`, set up as the numba `lp_feasible`: moment
    rows divided by max|r|, everything by f_n; feasible when NNLS's residual is
    ≤ rtol·max(‖y‖, 1)."""
    Lmax = r.shape[0]
    valid = jnp.arange(Lmax) < count
    finite = jnp.all(jnp.isfinite(wrench)) & jnp.all(jnp.isfinite(r))
    fn = wrench[0]
    R = jnp.maximum(jnp.max(jnp.where(valid[:, None], jnp.abs(r), 0.0)), 1e-300)
    s = jnp.where(jnp.arange(6) < 3, 1.0, 1.0 / R)
    M = pyramid_matrix(r, valid, mu_s, P) * s[:, None]
    fn_safe = jnp.where(fn > 0, fn, 1.0)
    y = wrench * s / fn_safe
    y = jnp.where(finite, y, 0.0)
    tol = rtol * jnp.maximum(jnp.sqrt(jnp.sum(y * y)), 1.0)
    zero = jnp.all(jnp.abs(wrench) <= 1e-12)
    return StaticLP(M, y, 50 * count * P, tol, fn > 0, zero, finite)


def static_lp_verdict(lp: StaticLP, residual):
    """Whether static friction holds, from the NNLS `residual` of `lp`: f_n ≤ 0 holds only
    the zero wrench; non-finite input: False."""
    return lp.finite & jnp.where(lp.positive, residual <= lp.tol, lp.zero)


def static_lp_feasible(wrench, r, count, mu_s, P: int, rtol: float = 1e-9):
    """Whether eq. 28–31 have a solution ε ≥ 0 (static friction holds the wrench), decided as
    the numba `lp_feasible`: moment rows divided by max|r|, everything by f_n, feasible when
    NNLS's residual is ≤ rtol·max(‖y‖, 1); f_n ≤ 0: only the zero wrench (|·| ≤ 1e-12);
    non-finite input: False."""
    lp = static_lp_problem(wrench, r, count, mu_s, P, rtol)
    return static_lp_verdict(lp, nnls(lp.M, lp.y, lp.max_iter)[1])


def _lu_solve3(B, b):
    """sol = B⁻¹ b for (..., 3, 3) by Gaussian elimination with partial pivoting (the numba
    `_lu_solve3`: the first largest pivot, det 0 as soon as a pivot is 0). Returns (det, sol)."""
    rows = [B[..., q, :] for q in range(3)]
    sol = [b[..., q] for q in range(3)]
    det = jnp.ones(B.shape[:-2], B.dtype)
    zero_piv = jnp.zeros(B.shape[:-2], bool)
    for c in range(3):
        p = jnp.full(B.shape[:-2], c)
        best = jnp.abs(rows[c][..., c])
        for q in range(c + 1, 3):
            bigger = jnp.abs(rows[q][..., c]) > best
            p = jnp.where(bigger, q, p)
            best = jnp.where(bigger, jnp.abs(rows[q][..., c]), best)
        det = jnp.where(p != c, -det, det)
        row_p, sol_p = rows[c], sol[c]
        for q in range(c + 1, 3):
            row_p = jnp.where((p == q)[..., None], rows[q], row_p)
            sol_p = jnp.where(p == q, sol[q], sol_p)
        for q in range(c + 1, 3):
            rows[q] = jnp.where((p == q)[..., None], rows[c], rows[q])
            sol[q] = jnp.where(p == q, sol[c], sol[q])
        rows[c], sol[c] = row_p, sol_p
        piv = rows[c][..., c]
        det = det * piv
        zero_piv = zero_piv | (piv == 0.0)
        piv_s = jnp.where(piv == 0.0, 1.0, piv)
        for q in range(c + 1, 3):
            f = rows[q][..., c] / piv_s
            rows[q] = rows[q] - f[..., None] * jnp.where(jnp.arange(3) > c, rows[c], 0.0)
            sol[q] = sol[q] - f * sol[c]
    for c in range(2, -1, -1):
        t = sol[c]
        for e in range(c + 1, 3):
            t = t - rows[c][..., e] * sol[e]
        d = rows[c][..., c]
        sol[c] = t / jnp.where(d == 0.0, 1.0, d)
    return jnp.where(zero_piv, 0.0, det), jnp.stack(sol, axis=-1)


def _supports(Lmax: int):
    """Static index tables: 3-column bases, then 2- and 1-column supports, in the numba
    kernel's order."""
    tri = np.array(list(combinations(range(Lmax), 3)), dtype=int).reshape(-1, 3)
    pairs = np.array(list(combinations(range(Lmax), 2)), dtype=int).reshape(-1, 2)
    singles = np.stack([np.arange(Lmax), np.full(Lmax, Lmax)], axis=1)
    return tri, np.concatenate([pairs, singles]), np.concatenate(
        [np.full(len(pairs), 2), np.ones(Lmax, dtype=int)])


def small_lp_supports(w, A, b, count):
    """The enumeration of :func:`small_lp_max` without its NNLS fallback: (x, found), found
    False when no support is feasible."""
    Lmax = A.shape[1]
    tri, sup, size = _supports(Lmax)
    tri_j, sup_j = jnp.asarray(tri), jnp.asarray(sup)
    amax = jnp.max(jnp.abs(A))
    tol = 1e-9 * jnp.maximum(jnp.abs(b[0]), 1e-300)
    x = jnp.zeros(Lmax, A.dtype)
    best, found = -jnp.inf, jnp.asarray(False)
    covered = jnp.zeros((Lmax + 1, Lmax + 1), bool)
    if len(tri):
        B = jnp.transpose(A[:, tri], (1, 0, 2))                       # (T, 3, 3)
        det, sol = _lu_solve3(B, jnp.broadcast_to(b, (len(tri), 3)))
        vt = jnp.all(tri < count, axis=1)
        nonsing = vt & (jnp.abs(det) > 1e-12 * amax ** 3)
        for a_, b_ in ((0, 1), (0, 2), (1, 2), (0, 0), (1, 1), (2, 2)):
            covered = covered.at[tri[:, a_], tri[:, b_]].max(nonsing)
        wt = w[tri]
        val = wt[:, 0] * sol[:, 0] + wt[:, 1] * sol[:, 1] + wt[:, 2] * sol[:, 2]
        feas = nonsing & jnp.all(sol >= -tol, axis=1)
        val = jnp.where(feas, val, -jnp.inf)
        ib = jnp.argmax(val)
        found = jnp.any(feas)
        best = jnp.where(found, val[ib], -jnp.inf)
        x = jnp.where(found, x.at[tri_j[ib]].set(jnp.maximum(sol[ib], 0.0)), x)
    # 2- and 1-column supports, least squares on the row-scaled system
    smax = jnp.max(jnp.abs(A), axis=1)
    srow = jnp.where(smax > 0, 1.0 / jnp.where(smax > 0, smax, 1.0), 1.0)
    As = A * srow[:, None]
    bs = b * srow
    rtol = 1e-9 * jnp.maximum(jnp.sqrt(jnp.sum(bs * bs)), 1e-300)
    z, ratio, res = jax.vmap(lambda S, k: lstsq_columns(As, bs, S, k))(
        jnp.asarray(sup), jnp.asarray(size))
    is_pair = jnp.asarray(size == 2)
    vs = jnp.where(is_pair, jnp.all(sup < count, axis=1), sup[:, 0] < count)
    cov = covered[sup[:, 0], jnp.where(is_pair, sup[:, 1], sup[:, 0])]
    zmask = jnp.stack([jnp.ones(len(sup), bool), is_pair], axis=1)
    ok = (vs & ~cov & (ratio > 1e-12) & (res <= rtol)
          & jnp.all(jnp.where(zmask, z >= -tol, True), axis=1))
    wz = jnp.where(zmask, w[jnp.minimum(sup, Lmax - 1)] * z, 0.0)
    val = wz[:, 0] + wz[:, 1]
    v2 = jnp.where(ok, val, -jnp.inf)
    top = jnp.max(v2)
    beats = ok & jnp.where(found, val > best + 1e-12 * jnp.abs(best), True)
    first = jnp.argmax(beats & (val >= top - 1e-12 * jnp.abs(top)))
    take = jnp.any(beats)
    x2 = jnp.zeros(Lmax, A.dtype).at[sup_j[first]].set(
        jnp.where(zmask[first], jnp.maximum(z[first], 0.0), 0.0), mode="drop")
    x = jnp.where(take, x2, x)
    found = found | take
    return x, found


def small_lp_max(w, A, b, count):
    """max wᵀx s.t. A x = b, x ≥ 0 (A: 3 × Lmax, first row ones on the `count` real columns),
    the numba `small_lp_max`: the best feasible 3-column basis with |det| > 1e-12·max|A|³
    (the first in lexicographic order on ties), then the 2- and 1-column supports in no such
    basis (least squares on the row-scaled system, residual ≤ 1e-9‖b‖), each of which must
    beat the best by a relative 1e-12; NNLS when no support is feasible. (The numba kernel
    takes the 2- and 1-column supports one after the other; here the first of those within
    1e-12 of the best of them wins — the same choice except for chains of near-ties.)"""
    x, found = small_lp_supports(w, A, b, count)
    return small_lp_choose(x, found, nnls(A, b, 3 * count)[0], count)


def small_lp_choose(x, found, fallback, count):
    """`small_lp_max`'s answer: the best support's x, else the NNLS fallback on the real
    columns."""
    valid_col = jnp.arange(x.shape[0]) < count
    return jnp.where(found, x, jnp.where(valid_col, fallback, 0.0))


class KineticLP(NamedTuple):
    """The kinetic LP (eq. 33–34) of a wrench: max wᵀε s.t. Aε = b, ε ≥ 0, and what eq. 32
    needs (:func:`kinetic_problem`, :func:`kinetic_wrench`)."""

    w: jnp.ndarray           # (Lmax,) eq. 33's weights
    A: jnp.ndarray           # (3, Lmax) eq. 34
    b: jnp.ndarray           # (3,) (f_n, tau_1, tau_2) kept
    r: jnp.ndarray           # (Lmax, 2)
    d: jnp.ndarray           # (Lmax, 2) slip directions
    count: jnp.ndarray
    mu_d: jnp.ndarray
    finite: jnp.ndarray


def kinetic_problem(wrench, r, count, slip_dir, mu_d) -> KineticLP:
    """The LP of :func:`kinetic_correction` for `wrench` (the numba `kinetic_correction`'s
    set-up; its inputs zeroed when one is not finite)."""
    Lmax = r.shape[0]
    valid = jnp.arange(Lmax) < count
    finite = (jnp.all(jnp.isfinite(wrench)) & jnp.all(jnp.isfinite(r))
              & jnp.all(jnp.isfinite(slip_dir)) & jnp.isfinite(mu_d))
    fn, f1, f2, tn = wrench[0], wrench[1], wrench[2], wrench[3]
    R = jnp.maximum(jnp.max(jnp.where(valid, jnp.hypot(r[:, 0], r[:, 1]), 0.0)), 1e-300)
    scale_f = jnp.maximum(jnp.maximum(jnp.maximum(jnp.abs(fn), jnp.abs(f1)), jnp.abs(f2)),
                          1e-300)

    def inv_or_zero(v, s):
        big = jnp.abs(v) > 1e-6 * s
        return jnp.where(big, 1.0 / jnp.where(big, v, 1.0), 0.0)

    i1, i2, i3 = inv_or_zero(f1, scale_f), inv_or_zero(f2, scale_f), inv_or_zero(tn, scale_f * R)
    d0, d1 = slip_dir[:, 0], slip_dir[:, 1]
    tnl = r[:, 0] * d1 - r[:, 1] * d0
    w = mu_d * (d0 * i1 + d1 * i2 + tnl * i3)                                       # eq. 33
    A = jnp.stack([jnp.where(valid, 1.0, 0.0), jnp.where(valid, r[:, 1], 0.0),
                   jnp.where(valid, -r[:, 0], 0.0)])                                 # eq. 34
    b = jnp.stack([wrench[0], wrench[4], wrench[5]])
    return KineticLP(jnp.where(finite, w, 0.0), jnp.where(finite, A, 0.0),
                     jnp.where(finite, b, 0.0), r, slip_dir, count, mu_d, finite)


def kinetic_wrench(lp: KineticLP, eps):
    """The corrected wrench of eq. 32 from the LP's solution ε' [N, N m]; NaN when an input
    of the LP was not finite."""
    r, d0, d1 = lp.r, lp.d[:, 0], lp.d[:, 1]
    e = jnp.where(jnp.arange(r.shape[0]) < lp.count, eps, 0.0)
    me = lp.mu_d * e
    tnl = r[:, 0] * d1 - r[:, 1] * d0
    out = jnp.stack([jnp.sum(e), jnp.sum(me * d0), jnp.sum(me * d1), jnp.sum(me * tnl),
                     jnp.sum(e * r[:, 1]), -jnp.sum(e * r[:, 0])])                  # eq. 32
    return jnp.where(lp.finite, out, jnp.nan)


def kinetic_correction(wrench, r, count, slip_dir, mu_d):
    """Kinetic friction replacing a wrench static friction cannot hold (eq. 32–34), as the
    numba `kinetic_correction`: vertex l carries ε'_l (n + μ_d d_l), ε' ≥ 0 keeps
    (f_n, tau_1, tau_2) (eq. 34) and maximises eq. 33's alignment of the friction components
    with those of `wrench` (a component below 1e-6 of its scale gets weight 0). Returns the
    corrected wrench [N, N m]; NaN when an input is not finite."""
    lp = kinetic_problem(wrench, r, count, slip_dir, mu_d)
    return kinetic_wrench(lp, small_lp_max(lp.w, lp.A, lp.b, count))
