"""Clipping a convex polygon by half-spaces on fixed-size padded buffers (SPEC §7 step 1, the
JAX counterpart of the numba `_volume._clip_polygon`): the one Sutherland–Hodgman pass the
JAX volume engine's pair geometry (`_volume_jax_pair_geometry`) and section geometry
(`_volume_jax_section`) share.

Numba's rules, with its tolerance band ±tol: a corner with s ≤ tol is kept; a crossing
point is inserted only where an edge goes from s < −tol to s > tol or back; a polygon
entirely within the band is kept; one with fewer than 3 corners left is dropped (count 0).
"""

from __future__ import annotations

import jax.numpy as jnp
from jax import lax

__all__ = ["clip_polygon"]


def clip_polygon(poly, k, normals, offsets, tol, use=None):
    """The padded convex polygon `poly` (B, 3) with k corners clipped in turn by the
    half-spaces ``normals[h] @ x <= offsets[h]`` (those with ``use[h]``; all when `use` is
    None): (poly, count, overflowed) — count 0 when nothing is left, overflowed when a clip
    produced more than B corners."""
    if use is None:
        use = jnp.ones(offsets.shape[0], dtype=bool)

    B = poly.shape[0]
    idx = jnp.arange(B)

    def plane(h, st):
        cur, k, over = st
        valid = idx < k
        s = cur @ normals[h] - offsets[h]
        smax = jnp.max(jnp.where(valid, s, -jnp.inf))
        smin = jnp.min(jnp.where(valid, s, jnp.inf))
        nxt = jnp.where(idx + 1 < k, idx + 1, 0)
        sj = s[nxt]
        keep = valid & (s <= tol)
        cross = valid & (((s < -tol) & (sj > tol)) | ((s > tol) & (sj < -tol)))
        r = s / jnp.where(cross, s - sj, 1.0)
        x = cur + r[:, None] * (cur[nxt] - cur)
        emit = jnp.stack([keep, cross], axis=1).reshape(-1)             # i, then its crossing
        pts = jnp.stack([cur, x], axis=1).reshape(-1, 3)
        slot = jnp.cumsum(emit) - 1
        nk = jnp.sum(emit)
        out = jnp.zeros_like(cur).at[jnp.where(emit & (slot < B), slot, B)].set(
            pts, mode="drop")
        clipped = use[h] & (k >= 3) & (smax > tol)
        gone = clipped & ((smin >= -tol) | (nk < 3))
        k_new = jnp.where(clipped, jnp.where(gone, 0, jnp.minimum(nk, B)), k)
        over = over | (clipped & ~gone & (nk > B))
        return jnp.where(clipped & ~gone, out, cur), k_new, over

    return lax.fori_loop(0, offsets.shape[0], plane, (poly, k, jnp.asarray(False)))
