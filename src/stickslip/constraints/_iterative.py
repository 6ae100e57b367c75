"""λ-problems with spatial friction cones: projected Gauss–Seidel, then an active-set polish.

The law of a spatial contact (rows t1, t2, n) in the limit ε → +0 (SPEC §6) is Coulomb's
law with the sliding direction free in the tangent plane, so its modes are not finite and
:mod:`._enumeration` does not apply. It is written as a fixed point of a projection:

* ``"kikuuwe"`` (the seed's limit law): λ = P_F(λ − ρ ŵ), ŵ = (w_t, w_n + μ‖w_t‖) — De
  Saxcé's modified velocity. At the apex this reads w_n ≥ 0, on the sliding edge w_n = 0
  and w_t = −c λ_t/‖λ_t‖: exactly the limit of N_F^{U_ε}.
* ``"anitescu"``: λ = P_F(λ − ρ w) (the plain normal cone N_F, a convex cone QP).

Block Gauss–Seidel sweeps (ρ_k = 1/trace(A_kk) per contact) bring λ near the solution; the
polish then reads each contact's mode off λ (separate, stick, or slide with direction d =
λ_t/‖λ_t‖), solves that mode's linear equations (the direction frozen, updated from w_t
twice), and keeps the result when its fixed-point residual is smaller — so a contact that
sticks gets w_t = 0 to round-off, not to the sweeps' tolerance.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

__all__ = ["modified_velocity", "natural_residual", "solve_iteratively"]

SWEEPS = 300
POLISH_ROUNDS = 3


def modified_velocity(blocks, offsets, w, formulation):
    """ŵ: w with μ‖w_t‖ added to each contact's normal row for the seed's limit law."""
    if formulation != "kikuuwe":
        return w
    out = w
    for blk, o in zip(blocks, offsets):
        if blk.kind in ("planar_contact", "spatial_contact"):
            s = blk.size
            wt = w[o:o + s - 1]
            out = out.at[o + s - 1].add(blk.mu * jnp.sqrt(jnp.sum(wt ** 2)))
    return out


def _steps(blocks, offsets, A):
    """ρ_k = 1/trace(A_kk) ≤ 1/λ_max(A_kk): a safe step for each block's projection."""
    return [1.0 / jnp.maximum(jnp.trace(A[o:o + blk.size, o:o + blk.size]), 1e-300)
            for blk, o in zip(blocks, offsets)]


def natural_residual(blocks, offsets, A, b, lam, formulation):
    """max_k ‖λ_k − P_Fk(λ_k − ρ_k ŵ_k)‖ / (‖λ‖ + ρ_k‖b‖): 0 exactly at a solution."""
    if not blocks:
        return jnp.zeros(())
    w = A @ lam - b
    what = modified_velocity(blocks, offsets, w, formulation)
    rho = _steps(blocks, offsets, A)
    size = jnp.max(jnp.abs(lam))
    bmax = jnp.max(jnp.abs(b))
    out = []
    for blk, o, r in zip(blocks, offsets, rho):
        sl = slice(o, o + blk.size)
        gap = lam[sl] - blk.project(lam[sl] - r * what[sl])
        out.append(jnp.max(jnp.abs(gap)) / jnp.maximum(size + r * bmax, 1e-300))
    return jnp.max(jnp.stack(out))


def _sweeps(blocks, offsets, A, b, formulation, rho, lam0, n):
    def sweep(_, lam):
        for blk, o, r in zip(blocks, offsets, rho):
            sl = slice(o, o + blk.size)
            w = A[sl] @ lam - b[sl]
            what = modified_velocity([blk], [0], w, formulation)
            lam = lam.at[sl].set(blk.project(lam[sl] - r * what))
        return lam

    return jax.lax.fori_loop(0, n, sweep, lam0)


def _polish(blocks, offsets, A, b, lam, formulation):
    """One active-set solve with the modes (and sliding directions) read off `lam`."""
    m = A.shape[0]
    rows_G, rows_L, rhs_f = [], [], []
    w = A @ lam - b
    scale = jnp.max(jnp.abs(lam)) + 1e-300
    for blk, o in zip(blocks, offsets):
        s = blk.size
        e = jnp.eye(m)[o:o + s]
        lb = lam[o:o + s]
        if blk.kind == "unilateral":
            sep = lb[0] <= 1e-9 * scale
            rows_G.append(jnp.where(sep, 0.0, 1.0) * e)
            rows_L.append(jnp.where(sep, 1.0, 0.0) * e)
            rhs_f.append(jnp.zeros(1))
        elif blk.kind == "coulomb":
            inside = jnp.abs(lb[0]) < blk.bound * (1 - 1e-9)
            rows_G.append(jnp.where(inside, 1.0, 0.0) * e)
            rows_L.append(jnp.where(inside, 0.0, 1.0) * e)
            rhs_f.append(jnp.where(inside, 0.0, jnp.sign(lb[0]) * blk.bound)[None])
        else:
            lt, ln = lb[:-1], lb[-1]
            wt = w[o:o + s - 1]
            nt = jnp.sqrt(jnp.sum(lt ** 2))
            sep = ln <= 1e-9 * scale
            stick = (~sep) & (nt < blk.mu * ln * (1 - 1e-9))
            # direction of the friction: opposite to the sliding w_t (from λ_t when w_t ≈ 0)
            nw = jnp.sqrt(jnp.sum(wt ** 2))
            w_big = nw > 1e-9 * (jnp.max(jnp.abs(b)) + 1e-300)
            d = jnp.where(w_big, -wt / jnp.where(nw > 0, nw, 1.0),
                          lt / jnp.where(nt > 0, nt, 1.0))
            G = jnp.zeros((s, m))
            Lr = jnp.zeros((s, m))
            # slide: λ_t − μ λ_n d = 0 (tangent rows), then the normal row
            Lr_slide = e.at[:s - 1, o + s - 1].add(-blk.mu * d)
            Lr_slide = Lr_slide.at[s - 1].set(0.0)
            G_slide = jnp.zeros((s, m)).at[s - 1].set(e[s - 1])
            if formulation == "anitescu":            # w_n = μ‖w_t‖ = −μ dᵀw_t
                G_slide = G_slide.at[s - 1, o:o + s - 1].set(blk.mu * d)
            G = jnp.where(sep, G, jnp.where(stick, e, G_slide))
            Lr = jnp.where(sep, e, jnp.where(stick, Lr, Lr_slide))
            rows_G.append(G)
            rows_L.append(Lr)
            rhs_f.append(jnp.zeros(s))
    G = jnp.concatenate(rows_G)
    L = jnp.concatenate(rows_L)
    system = G @ A + L
    rhs = jnp.concatenate(rhs_f) + G @ b
    scale2 = jnp.maximum(jnp.sum(system ** 2), 1e-300)
    lu = jnp.linalg.solve(system, rhs)
    ls = jnp.linalg.solve(system.T @ system + 1e-13 * scale2 * jnp.eye(m), system.T @ rhs)
    ok = jnp.all(jnp.isfinite(lu)) & (jnp.max(jnp.abs(system @ jnp.where(
        jnp.isfinite(lu), lu, 0.0) - rhs)) <= 1e-10 * (jnp.sqrt(scale2) * jnp.max(
            jnp.abs(jnp.where(jnp.isfinite(lu), lu, 0.0))) + jnp.max(jnp.abs(rhs)) + 1e-300))
    return jnp.where(ok, jnp.where(jnp.isfinite(lu), lu, 0.0), ls)


def solve_iteratively(blocks, offsets, A, b, formulation, sweeps=SWEEPS):
    """(λ, w, residual) of the λ-problem by projected Gauss–Seidel and the active-set polish."""
    m = A.shape[0]
    rho = _steps(blocks, offsets, A)
    lam = _sweeps(blocks, offsets, A, b, formulation, rho, jnp.zeros(m), sweeps)
    res = natural_residual(blocks, offsets, A, b, lam, formulation)
    for _ in range(POLISH_ROUNDS):
        cand = _polish(blocks, offsets, A, b, lam, formulation)
        res_c = natural_residual(blocks, offsets, A, b, cand, formulation)
        better = jnp.isfinite(res_c) & (res_c < res)
        lam = jnp.where(better, cand, lam)
        res = jnp.where(better, res_c, res)
    return lam, A @ lam - b, res
