"""Pure-JAX non-negative least squares and the contact-force QP of SPEC §7 (eq. 16 with the
constraints of eq. 25), the counterparts of the numba kernels `_nnls.nnls` and
`_qp.cone_qp` for the jitted volume-contact run (`_volume_jax`).

Everything here has static shapes (padded buffers, MJX style) and no Python branch on a
traced value: the Lawson–Hanson active set is a `lax.while_loop` whose iteration limit is
the numba kernel's, the Householder least-squares solves are unrolled over the (static)
number of rows, and columns that do not exist (padding of a polygon with fewer vertices
than the buffer) are zero columns, which NNLS never selects. The arithmetic follows the
numba kernels step by step (same pivoting, sign choices and tolerances), so the two paths
agree to round-off.

    QP:   minimise ½ xᵀ H x + gᵀ x   subject to  G x ≤ 0          (eq. 16, 25)
    dual: μ* = argmin_{μ ≥ 0} ‖L⁻¹(g + Gᵀμ)‖,  x* = −H⁻¹(g + Gᵀμ*),  H = LLᵀ

(Boyd & Vandenberghe, *Convex Optimization*, §5.2; Lawson & Hanson, *Solving Least Squares
Problems*, ch. 23.)
"""

from __future__ import annotations

from typing import NamedTuple

import jax.numpy as jnp
from jax import lax

__all__ = ["lstsq_columns", "nnls", "cone_qp"]

_EPS = 2.220446049250313e-16        # float64 machine epsilon


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
    for j in range(kmax):                       # unrolled: kmax ≤ 6
        act = j < k
        col = A[j:, j]
        normx = jnp.sqrt(jnp.sum(col * col))
        bad = bad | (act & ((cn[j] == 0.0) | (normx == 0.0)))
        ratio = jnp.where(act, jnp.minimum(ratio, normx / jnp.where(cn[j] == 0.0, 1.0, cn[j])),
                          ratio)
        alpha = jnp.where(A[j, j] >= 0, -normx, normx)
        v = col.at[0].add(-alpha)
        vv = jnp.sum(v * v)
        use = act & (vv > 0)
        scale = 2.0 / jnp.where(use, vv, 1.0)
        if j + 1 < kmax:
            sub = A[j:, j + 1:]
            d = (v @ sub) * scale
            A = A.at[j:, j + 1:].set(jnp.where(use, sub - v[:, None] * d[None, :], sub))
        bj = b[j:]
        db = (v @ bj) * scale
        b = b.at[j:].set(jnp.where(use, bj - db * v, bj))
        A = A.at[j, j].set(jnp.where(act, alpha, A[j, j]))
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


class _NNLSState(NamedTuple):
    x: jnp.ndarray
    passive: jnp.ndarray
    skipped: jnp.ndarray
    S: jnp.ndarray
    k: jnp.ndarray
    it: jnp.ndarray
    done: jnp.ndarray


def nnls(M, y, max_iter):
    """x = argmin ‖Mx − y‖ subject to x ≥ 0, and ‖Mx − y‖ (Lawson & Hanson's NNLS, the
    numba `_nnls.nnls` step by step: the candidate with the largest dual w = Mᵀ(y − Mx)
    enters unless it is numerically dependent on the passive columns or its coefficient
    would not be positive — then it is passed over for that step; `max_iter` (traced)
    bounds the least-squares solves). M (m, n), y (m,)."""
    m, n = M.shape
    kmax = min(m, n)
    cmax = jnp.max(jnp.sqrt(jnp.sum(M * M, axis=0)))
    tol = 16 * _EPS * cmax * jnp.sqrt(jnp.sum(y * y))
    q_idx = jnp.arange(kmax)

    def all_positive(z, k):
        return jnp.all(jnp.where(q_idx < k, z > 0.0, True))

    def inner_cond(st):
        x, passive, S, k, z, it, active = st
        return active & ~all_positive(z, k) & (it < max_iter)

    def inner_body(st):                          # LH steps 6–11: back to the boundary
        x, passive, S, k, z, it, active = st
        inS = q_idx < k
        xs = jnp.take(x, S, mode="fill", fill_value=0.0)
        neg = inS & ~(z > 0.0)
        denom = xs - z
        a = jnp.where(denom > 0.0, xs / jnp.where(denom > 0.0, denom, 1.0), 0.0)
        a = jnp.where(neg, a, jnp.inf)
        qmin = jnp.argmin(a)
        alpha = a[qmin]
        x = x.at[S].set(jnp.where(inS, xs + alpha * (z - xs), xs), mode="drop")
        x = x.at[S[qmin]].set(0.0, mode="drop")
        xs = jnp.take(x, S, mode="fill", fill_value=0.0)
        keep = inS & (xs > 0.0)
        drop = inS & ~keep
        x = x.at[jnp.where(drop, S, n)].set(0.0, mode="drop")
        passive = passive.at[jnp.where(drop, S, n)].set(False, mode="drop")
        order = jnp.argsort(~keep, stable=True)
        k = jnp.sum(keep)
        S = jnp.where(q_idx < k, S[order], n)
        z, _, _ = lstsq_columns(M, y, S, k)
        return x, passive, S, k, z, it + 1, active

    def outer_body(st: _NNLSState) -> _NNLSState:
        x, passive, skipped, S, k, it, _ = st
        w = M.T @ (y - M @ x)
        cand = ~passive & ~skipped & (w > tol)
        t = jnp.argmax(jnp.where(cand, w, -jnp.inf))
        stop = (it >= max_iter) | ~jnp.any(cand)
        room = k < kmax
        kk = jnp.minimum(k, kmax - 1)
        S1 = jnp.where(room, S.at[kk].set(t), S)
        z, ratio, _ = lstsq_columns(M, y, S1, k + 1)
        skip = ~room | (ratio <= 1e-12) | ~(z[kk] > 0.0)
        add = ~stop & ~skip
        it1 = jnp.where(stop, it, it + 1)
        skipped = jnp.where(~stop & skip, skipped.at[t].set(True), skipped)
        passive1 = jnp.where(add, passive.at[t].set(True), passive)
        k1 = jnp.where(add, k + 1, k)
        S2 = jnp.where(add, S1, S)
        x, passive1, S2, k1, z, it1, _ = lax.while_loop(
            inner_cond, inner_body, (x, passive1, S2, k1, z, it1, add))
        x = jnp.where(add & all_positive(z, k1),
                      x.at[S2].set(jnp.where(q_idx < k1, z, 0.0), mode="drop"), x)
        skipped = jnp.where(add, jnp.zeros_like(skipped), skipped)
        return _NNLSState(x, passive1, skipped, S2, k1, it1, stop)

    st0 = _NNLSState(jnp.zeros(n, M.dtype), jnp.zeros(n, bool), jnp.zeros(n, bool),
                     jnp.full(kmax, n), jnp.asarray(0), jnp.asarray(0), jnp.asarray(False))
    st = lax.while_loop(lambda s: ~s.done, outer_body, st0)
    r = y - M @ st.x
    return st.x, jnp.sqrt(jnp.sum(r * r))


def _cholesky(A):
    """Lower-triangular L with L Lᵀ = A and a flag (False when a pivot is not positive);
    unrolled over the static size."""
    n = A.shape[0]
    L = jnp.zeros_like(A)
    ok = jnp.asarray(True)
    for j in range(n):
        s = A[j, j] - jnp.sum(L[j, :j] * L[j, :j]) if j else A[j, j]
        ok = ok & (s > 0.0)
        d = jnp.sqrt(jnp.where(s > 0.0, s, 1.0))
        L = L.at[j, j].set(d)
        if j + 1 < n:
            col = A[j + 1:, j] - (L[j + 1:, :j] @ L[j, :j] if j else 0.0)
            L = L.at[j + 1:, j].set(col / d)
    return L, ok


def _forward(L, B):
    """L⁻¹ B by forward substitution (L lower triangular)."""
    out = jnp.zeros_like(B)
    for i in range(L.shape[0]):
        s = B[i] - (L[i, :i] @ out[:i] if i else 0.0)
        out = out.at[i].set(s / L[i, i])
    return out


def _backward_t(L, v):
    """L⁻ᵀ v by backward substitution."""
    n = L.shape[0]
    y = jnp.zeros_like(v)
    for i in range(n - 1, -1, -1):
        s = v[i] - (L[i + 1:, i] @ y[i + 1:] if i + 1 < n else 0.0)
        y = y.at[i].set(s / L[i, i])
    return y


def cone_qp(H, g, G, n_rows):
    """Minimise ½xᵀHx + gᵀx subject to Gx ≤ 0 (H symmetric positive definite) through the
    dual NNLS, as the numba `_qp.cone_qp`: H scaled to unit diagonal, its Cholesky factor
    (a jitter of 1e-14…1e-8 when it is semi-definite to round-off), μ* by NNLS with
    10·(rows + n) solves at most, x = −H⁻¹(g + Gᵀμ*). `n_rows` (traced) is the number of
    real rows of G (the others are zero padding). NaN for non-finite input or an H that is
    not positive definite."""
    n = g.shape[0]
    finite = jnp.all(jnp.isfinite(g)) & jnp.all(jnp.isfinite(H))
    dg = jnp.diagonal(H)
    d = jnp.where(dg > 0.0, 1.0 / jnp.sqrt(jnp.where(dg > 0.0, dg, 1.0)), 1.0)
    Hs = H * d[:, None] * d[None, :]
    L, ok = _cholesky(Hs)

    def jitter_cond(st):
        Hs, L, ok, jit = st
        return finite & ~ok & (jit < 1e-6)

    def jitter_body(st):
        Hs, L, ok, jit = st
        Hs = Hs + jit * jnp.eye(n, dtype=Hs.dtype)
        L, ok = _cholesky(Hs)
        return Hs, L, ok, jit * 100.0

    Hs, L, ok, _ = lax.while_loop(jitter_cond, jitter_body,
                                  (Hs, L, ok, jnp.asarray(1e-14, H.dtype)))
    good = finite & ok
    L = jnp.where(good, L, jnp.eye(n, dtype=H.dtype))
    B = jnp.concatenate([G.T * d[:, None], (g * d)[:, None]], axis=1)
    LB = _forward(L, B)
    M = LB[:, :-1]
    b = -LB[:, -1]
    mu, _ = nnls(M, b, 10 * (n_rows + n))
    v = -b + M @ mu
    x = -d * _backward_t(L, v)
    return jnp.where(good, x, jnp.nan)
