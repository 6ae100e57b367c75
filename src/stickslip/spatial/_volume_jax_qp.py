"""Pure-JAX non-negative least squares and the contact-force QP of SPEC §7 (eq. 16 with the
constraints of eq. 25), the counterparts of the numba kernels `_nnls.nnls` and
`_qp.cone_qp` for the jitted volume-contact run (`_volume_jax`).

Everything here has static shapes (padded buffers, MJX style) and no Python branch on a
traced value: the Lawson–Hanson active set is one `lax.while_loop` (its two nested loops
flattened: one traced least-squares solve, not two) whose iteration limit is the numba
kernel's; the Householder least-squares solves are unrolled over the (static) number of
columns (a loop over them compiles smaller but ran 1.3× slower under `vmap`), each step
updating the whole buffer under masks (updating the sub-block in place made XLA copy the
buffer at each step: 70 of the 1131 kernels of a link system's volume-contact run); the
Cholesky factor and the triangular solves are `fori_loop`s (one traced row,
not one per row: compile time); columns that do not exist (padding of a polygon with fewer
vertices than the buffer, or of a smaller problem sharing the solver) are zero columns,
which NNLS never selects. The arithmetic follows the
numba kernels step by step (same pivoting, sign choices and tolerances), so the two paths
agree to round-off.

    QP:   minimise ½ xᵀ H x + gᵀ x   subject to  G x ≤ 0          (eq. 16, 25)
    dual: μ* = argmin_{μ ≥ 0} ‖L⁻¹(g + Gᵀμ)‖,  x* = −H⁻¹(g + Gᵀμ*),  H = LLᵀ

(Boyd & Vandenberghe, *Convex Optimization*, §5.2; Lawson & Hanson, *Solving Least Squares
Problems*, ch. 23.)
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

__all__ = ["QPDual", "cone_qp", "lstsq_columns", "lstsq_columns_qr", "nnls", "qp_dual",
           "qp_primal"]

_EPS = 2.220446049250313e-16        # float64 machine epsilon
# NNLS problems with at most this many columns in a solve use the unrolled Householder steps
# (step by step the numba kernel's); larger ones LAPACK's QR. All through QR was tried
# (2026-11-27): the two-box stack's XLA compile 30.7 → 25.8 s, the Table 1 box's first call
# 11 → 7–8 s and its runs no slower, but at a head-on meeting of two boxes one sample's stick
# flag differed from the numba loop's, which the engines' step-by-step agreement (the JAX
# engine's validation) does not allow.
UNROLLED_MAX = 6


def lstsq_columns(M, y, S, k):
    """min ‖M[:, S[:k]] z − y‖ by Householder QR (mirrors _nnls._lstsq_columns step by step).

    M (m, n), y (m,); S (kmax,) int column indices in order of entry (entries at and after
    `k` are ignored; out-of-range indices read as zero columns); k traced count ≤ kmax ≤ m.
    Returns z (kmax,) (zeros from k on), the independence measure min_j |R_jj| / ‖column j‖
    (0 for dependent columns) and the residual norm (inf for dependent columns)."""
    m = M.shape[0]
    kmax = S.shape[0]
    A = jnp.take(M, S, axis=1, mode="fill", fill_value=0.0)
    cn = jnp.sqrt(jnp.sum(A * A, axis=0))
    b = y
    ratio = jnp.asarray(1.0, M.dtype)
    bad = jnp.asarray(False)
    rows, cols = np.arange(m), np.arange(kmax)
    for j in range(kmax):                       # unrolled: kmax ≤ 6
        # step j on the whole (m, kmax) buffer, rows above j and columns left of it masked
        # (selects, not sub-block updates: those made XLA copy the buffer at every step)
        act = j < k
        below = rows >= j
        col = jnp.where(below, A[:, j], 0.0)
        normx = jnp.sqrt(jnp.sum(col * col))
        bad = bad | (act & ((cn[j] == 0.0) | (normx == 0.0)))
        ratio = jnp.where(act, jnp.minimum(ratio, normx / jnp.where(cn[j] == 0.0, 1.0, cn[j])),
                          ratio)
        alpha = jnp.where(A[j, j] >= 0, -normx, normx)
        v = jnp.where(rows == j, col + (-alpha), col)
        vv = jnp.sum(v * v)
        use = act & (vv > 0)
        scale = 2.0 / jnp.where(use, vv, 1.0)
        if j + 1 < kmax:
            d = (v @ A) * scale
            A = jnp.where(use & below[:, None] & (cols > j)[None, :],
                          A - v[:, None] * d[None, :], A)
        db = (v @ b) * scale
        b = jnp.where(use & below, b - db * v, b)
        A = jnp.where(act & (rows == j)[:, None] & (cols == j)[None, :], alpha, A)
    z = jnp.zeros(kmax, M.dtype)
    for j in range(kmax - 1, -1, -1):           # back substitution
        s = b[j] - jnp.sum(A[j, j + 1:] * z[j + 1:]) if j + 1 < kmax else b[j]
        diag = A[j, j]
        z = z.at[j].set(jnp.where(j < k, s / jnp.where(diag == 0.0, 1.0, diag), 0.0))
    res = jnp.sqrt(jnp.sum(jnp.where(jnp.arange(m) >= k, b * b, 0.0)))
    ratio = jnp.where(bad, 0.0, ratio)
    res = jnp.where(bad, jnp.inf, res)
    z = jnp.where(bad, 0.0, z)
    return z, ratio, res


def lstsq_columns_qr(M, y, S, k):
    """:func:`lstsq_columns` by one Householder QR (LAPACK) of the entered columns and y
    side by side, the columns from k on zero (their reflections are the identity): the same
    R up to signs, so the same independence measure, solution and residual to round-off —
    for the joint QP's many columns (`_volume_jax_joint`: unrolled, 36 columns compiled for
    a minute; a loop over the columns inside the NNLS loop ran 10× slower)."""
    kmax = S.shape[0]
    cols = jnp.arange(kmax)
    A = jnp.take(M, S, axis=1, mode="fill", fill_value=0.0)
    A = jnp.where(cols[None, :] < k, A, 0.0)
    cn = jnp.sqrt(jnp.sum(A * A, axis=0))
    R = jnp.linalg.qr(jnp.concatenate([A, y[:, None]], axis=1), mode="r")
    used = cols < k
    inside = used[:, None] & used[None, :]
    diag = jnp.abs(jnp.diagonal(R[:kmax, :kmax]))
    bad = jnp.any(used & ((cn == 0.0) | (diag == 0.0)))
    ratio = jnp.min(jnp.where(used, diag / jnp.where(cn == 0.0, 1.0, cn), 1.0))
    Rk = jnp.where(inside, R[:kmax, :kmax], jnp.eye(kmax, dtype=M.dtype))
    z = jax.scipy.linalg.solve_triangular(Rk, jnp.where(used, R[:kmax, kmax], 0.0))
    rows = jnp.arange(R.shape[0])
    res = jnp.sqrt(jnp.sum(jnp.where(rows >= k, R[:, kmax] ** 2, 0.0)))
    return jnp.where(bad, 0.0, z), jnp.where(bad, 0.0, ratio), jnp.where(bad, jnp.inf, res)


class _NNLSState(NamedTuple):
    x: jnp.ndarray
    passive: jnp.ndarray
    skipped: jnp.ndarray
    S: jnp.ndarray
    k: jnp.ndarray
    z: jnp.ndarray
    it: jnp.ndarray
    inner: jnp.ndarray          # in LH steps 6–11 (back to the boundary)
    done: jnp.ndarray


def nnls(M, y, max_iter):
    """x = argmin ‖Mx − y‖ subject to x ≥ 0, and ‖Mx − y‖ (Lawson & Hanson's NNLS, the
    numba `_nnls.nnls` step by step: the candidate with the largest dual w = Mᵀ(y − Mx)
    enters unless it is numerically dependent on the passive columns or its coefficient
    would not be positive — then it is passed over for that step; `max_iter` (traced)
    bounds the least-squares solves). M (m, n), y (m,).

    The numba kernel's two nested loops (a column enters; steps back to the boundary while a
    passive coefficient is not positive) are one `lax.while_loop` here, each pass one
    least-squares solve of the one phase or the other (``inner``): one traced copy of
    `lstsq_columns`, not two, and no loop inside a loop (compile time)."""
    m, n = M.shape
    kmax = min(m, n)
    cmax = jnp.max(jnp.sqrt(jnp.sum(M * M, axis=0)))
    tol = 16 * _EPS * cmax * jnp.sqrt(jnp.sum(y * y))
    q_idx = jnp.arange(kmax)
    solve = lstsq_columns if kmax <= UNROLLED_MAX else lstsq_columns_qr

    def all_positive(z, k):
        return jnp.all(jnp.where(q_idx < k, z > 0.0, True))

    cols = jnp.arange(n)

    def body(st: _NNLSState) -> _NNLSState:
        x, passive, skipped, S, k, z, it, inner, _ = st
        # a column enters (LH steps 2–5): the candidate t with the largest dual
        w = jnp.sum(M * (y - jnp.sum(M * x[None, :], axis=1))[:, None], axis=0)
        cand = ~passive & ~skipped & (w > tol)
        t = jnp.argmax(jnp.where(cand, w, -jnp.inf))
        is_t = cols == t
        stop = (it >= max_iter) | ~jnp.any(cand)
        room = k < kmax
        kk = jnp.minimum(k, kmax - 1)
        S_out = jnp.where(room & (q_idx == kk), t, S)
        # back to the boundary (LH steps 6–11): x moves towards z until a coefficient is 0
        inS = q_idx < k
        xs = jnp.take(x, S, mode="fill", fill_value=0.0)
        neg = inS & ~(z > 0.0)
        denom = xs - z
        a = jnp.where(denom > 0.0, xs / jnp.where(denom > 0.0, denom, 1.0), 0.0)
        a = jnp.where(neg, a, jnp.inf)
        qmin = jnp.argmin(a)
        alpha = a[qmin]
        x_in = x.at[S].set(jnp.where(inS, xs + alpha * (z - xs), xs), mode="drop")
        x_in = x_in.at[S[qmin]].set(0.0, mode="drop")
        xs = jnp.take(x_in, S, mode="fill", fill_value=0.0)
        keep = inS & (xs > 0.0)
        drop = inS & ~keep
        x_in = x_in.at[jnp.where(drop, S, n)].set(0.0, mode="drop")
        passive_in = passive.at[jnp.where(drop, S, n)].set(False, mode="drop")
        k_in = jnp.sum(keep)
        S_in = jnp.where(q_idx < k_in, S[jnp.argsort(~keep, stable=True)], n)
        # the one least-squares solve of this pass
        z1, ratio, _ = solve(M, y, jnp.where(inner, S_in, S_out),
                             jnp.where(inner, k_in, k + 1))
        skip = ~room | (ratio <= 1e-12) | ~(z1[kk] > 0.0)
        add = ~stop & ~skip
        x = jnp.where(inner, x_in, x)
        passive = jnp.where(inner, passive_in, passive | (add & is_t))
        skipped = jnp.where(inner | ~(~stop & skip), skipped, skipped | is_t)
        S = jnp.where(inner, S_in, jnp.where(add, S_out, S))
        k = jnp.where(inner, k_in, jnp.where(add, k + 1, k))
        it = jnp.where(inner | ~stop, it + 1, it)
        active = inner | add
        more = active & ~all_positive(z1, k) & (it < max_iter)
        finish = active & ~more
        x = jnp.where(finish & all_positive(z1, k),
                      x.at[S].set(jnp.where(q_idx < k, z1, 0.0), mode="drop"), x)
        skipped = jnp.where(finish, jnp.zeros_like(skipped), skipped)
        return _NNLSState(x, passive, skipped, S, k, z1, it, more, ~inner & stop)

    st0 = _NNLSState(jnp.zeros(n, M.dtype), jnp.zeros(n, bool), jnp.zeros(n, bool),
                     jnp.full(kmax, n), jnp.asarray(0), jnp.zeros(kmax, M.dtype),
                     jnp.asarray(0), jnp.asarray(False), jnp.asarray(False))
    st = lax.while_loop(lambda s: ~s.done, body, st0)
    r = y - jnp.sum(M * st.x[None, :], axis=1)
    return st.x, jnp.sqrt(jnp.sum(r * r))


def _cholesky(A):
    """Lower-triangular L with L Lᵀ = A and a flag (False when a pivot is not positive); one
    `fori_loop` over the columns (row j of L is zero from column j on while column j is
    computed, so full-length dot products give the partial sums)."""
    n = A.shape[0]
    rows = jnp.arange(n)

    def column(j, st):
        L, ok = st
        s = A[j, j] - L[j] @ L[j]
        ok = ok & (s > 0.0)
        d = jnp.sqrt(jnp.where(s > 0.0, s, 1.0))
        col = (A[:, j] - L @ L[j]) / d
        L = L.at[:, j].set(jnp.where(rows > j, col, jnp.where(rows == j, d, 0.0)))
        return L, ok

    return lax.fori_loop(0, n, column, (jnp.zeros_like(A), jnp.asarray(True)))


def _forward(L, B):
    """L⁻¹ B by forward substitution (L lower triangular)."""
    def row(i, out):
        return out.at[i].set((B[i] - L[i] @ out) / L[i, i])
    return lax.fori_loop(0, L.shape[0], row, jnp.zeros_like(B))


def _backward_t(L, v):
    """L⁻ᵀ v by backward substitution."""
    n = L.shape[0]

    def row(k, y):
        i = n - 1 - k
        return y.at[i].set((v[i] - L[:, i] @ y) / L[i, i])
    return lax.fori_loop(0, n, row, jnp.zeros_like(v))


class QPDual(NamedTuple):
    """The dual of ½xᵀHx + gᵀx, Gx ≤ 0 as an NNLS problem min_{μ ≥ 0} ‖Mμ − b‖ (M = L⁻¹G_sᵀ,
    b = −L⁻¹g_s with the scaled H_s = LLᵀ = D H D) and what the primal needs."""

    good: jnp.ndarray        # finite input and H positive definite (to round-off)
    d: jnp.ndarray           # (n,) the diagonal scaling D
    L: jnp.ndarray           # (n, n) Cholesky factor of D H D (+ jitter)
    M: jnp.ndarray           # (n, rows)
    b: jnp.ndarray           # (n,)


def qp_dual(H, g, G) -> QPDual:
    """The dual NNLS problem of the QP (the numba `_qp._dual_problem`): H scaled to unit
    diagonal, its Cholesky factor (a jitter of 1e-14…1e-8 when it is semi-definite to
    round-off), M = L⁻¹ G_sᵀ, b = −L⁻¹ g_s."""
    n = g.shape[0]
    finite = jnp.all(jnp.isfinite(g)) & jnp.all(jnp.isfinite(H))
    dg = jnp.diagonal(H)
    d = jnp.where(dg > 0.0, 1.0 / jnp.sqrt(jnp.where(dg > 0.0, dg, 1.0)), 1.0)
    Hs = H * d[:, None] * d[None, :]

    def jitter_cond(st):
        _Hs, _L, ok, jit, first = st
        return first | (finite & ~ok & (jit < 1e-6))

    def jitter_body(st):                     # pass 0: no jitter; then 1e-14, 1e-12, …
        Hs, _L, ok, jit, first = st
        Hs = jnp.where(first, Hs, Hs + jit * jnp.eye(n, dtype=Hs.dtype))
        L, ok = _cholesky(Hs)
        return Hs, L, ok, jnp.where(first, jit, jit * 100.0), jnp.asarray(False)

    Hs, L, ok, _, _ = lax.while_loop(
        jitter_cond, jitter_body, (Hs, jnp.zeros_like(Hs), jnp.asarray(False),
                                   jnp.asarray(1e-14, H.dtype), jnp.asarray(True)))
    good = finite & ok
    L = jnp.where(good, L, jnp.eye(n, dtype=H.dtype))
    B = jnp.concatenate([G.T * d[:, None], (g * d)[:, None]], axis=1)
    LB = _forward(L, B)
    return QPDual(good, d, L, LB[:, :-1], -LB[:, -1])


def qp_primal(dual: QPDual, mu):
    """x = −H⁻¹(g + Gᵀμ) from the dual and its NNLS solution μ (the numba `_qp._primal`);
    NaN when the dual is not `good`."""
    v = -dual.b + jnp.sum(dual.M * mu[None, :], axis=1)
    x = -dual.d * _backward_t(dual.L, v)
    return jnp.where(dual.good, x, jnp.nan)


def cone_qp(H, g, G, n_rows):
    """Minimise ½xᵀHx + gᵀx subject to Gx ≤ 0 (H symmetric positive definite) through the
    dual NNLS, as the numba `_qp.cone_qp`: :func:`qp_dual`, μ* by NNLS with 10·(rows + n)
    solves at most, x = −H⁻¹(g + Gᵀμ*) (:func:`qp_primal`). `n_rows` (traced) is the number
    of real rows of G (the others are zero padding). NaN for non-finite input or an H that
    is not positive definite."""
    dual = qp_dual(H, g, G)
    mu, _ = nnls(dual.M, dual.b, 10 * (n_rows + g.shape[0]))
    return qp_primal(dual, mu)
