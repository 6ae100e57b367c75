"""The convex polygon S of the contact's projected points in pure JAX (SPEC §7 step 2,
``patch="projection"``; the section's crossing points for ``"section"``,
`_volume_jax_section`): Andrew's monotone chain with the numba kernel's tolerances, step
for step (`_volume_hull._convex_polygon_kernel`), on a fixed-size buffer.

The candidates are in-plane coordinates (u, v) with a validity mask. As in numba: sort by
(u, v), ties in input order; build the lower and the upper chain, skipping a point within
`tol` of the chain's last point and popping while the turn is not > tol²; no polygon when
the hull has fewer than 3 corners or twice its area is ≤ `tol`; then drop corners within
1000·`tol` of their predecessor (cyclically) — eq. 25's edge normals need edges with a
direction — and no polygon when fewer than 3 remain.

No other merge: a box landing on an edge makes a contact strip ~1e-6 of the box wide whose
corners are distinct, and merging corners at a coarser scale dropped one side of that strip
(Q 25 % off, `examples/spatial/tip_over_edge.py` ending at 90° where numba gives 85°).

The loops are `lax.fori_loop`/`lax.while_loop` over the K candidates (K = vertices + edges:
20 for a box); nothing branches on a traced value in Python.
"""

from __future__ import annotations

import jax.numpy as jnp
from jax import lax

__all__ = ["monotone_hull"]


def _chain(order, ok, u, v, tol2):
    """One monotone chain over the candidates in `order` (those with `ok`): the corner
    indices (K,) and their count."""
    K = order.shape[0]

    def push(t, st):
        out, k = st
        i = order[t]
        last = out[jnp.maximum(k - 1, 0)]
        skip = ~ok[i] | ((k > 0) & ((u[i] - u[last]) ** 2 + (v[i] - v[last]) ** 2 <= tol2))

        def right_turn(k):
            o, a = out[jnp.maximum(k - 2, 0)], out[jnp.maximum(k - 1, 0)]
            turn = (u[a] - u[o]) * (v[i] - v[o]) - (v[a] - v[o]) * (u[i] - u[o])
            return ~skip & (k >= 2) & (turn <= tol2)

        k = lax.while_loop(right_turn, lambda k: k - 1, k)
        out = jnp.where(skip, out, out.at[jnp.minimum(k, K - 1)].set(i))
        return out, k + (~skip).astype(k.dtype)

    return lax.fori_loop(0, K, push, (jnp.zeros(K, jnp.int32), jnp.zeros((), jnp.int32)))


def monotone_hull(u, v, ok, tol):
    """The corners of the convex hull of the candidates (u, v) (K,) with mask `ok`,
    counter-clockwise from the lexicographically smallest, after the numba kernel's
    near-duplicate drop (module docstring): ``(corners (2K,) candidate indices, count)``;
    count 0 when there is no polygon."""
    K = u.shape[0]
    idx = jnp.arange(K)
    # invalid candidates last; among valid ones (u, v), ties in input order
    order = jnp.lexsort((idx, v, u, ~ok)).astype(jnp.int32)
    tol2 = tol * tol
    lower, kl = _chain(order, ok, u, v, tol2)
    upper, ku = _chain(order[::-1], ok, u, v, tol2)
    nh = jnp.maximum(kl + ku - 2, 0)
    t = jnp.arange(2 * K)
    hull = jnp.where(t < kl - 1, lower[jnp.minimum(t, K - 1)],
                     upper[jnp.clip(t - (kl - 1), 0, K - 1)])
    hull = jnp.where(t < nh, hull, hull[0])
    hu, hv = u[hull], v[hull]
    fan = (t[1:-1] >= 1) & (t[2:] < nh)
    area2 = jnp.sum(jnp.where(fan, (hu[1:-1] - hu[0]) * (hv[2:] - hv[0])
                              - (hv[1:-1] - hv[0]) * (hu[2:] - hu[0]), 0.0))
    has_area = (nh >= 3) & (area2 > tol)
    dup2 = (1000.0 * tol) ** 2

    def keep_one(s, st):
        keep, nk = st
        last = keep[jnp.maximum(nk - 1, 0)]
        new = (s < nh) & ((nk == 0) | ((hu[s] - u[last]) ** 2 + (hv[s] - v[last]) ** 2
                                       > dup2))
        keep = jnp.where(new, keep.at[nk].set(hull[s]), keep)
        return keep, nk + new.astype(nk.dtype)

    keep, nk = lax.fori_loop(0, 2 * K, keep_one,
                             (jnp.zeros(2 * K, jnp.int32), jnp.zeros((), jnp.int32)))

    def closes(nk):
        a, b = keep[jnp.maximum(nk - 1, 0)], keep[0]
        return (nk > 1) & ((u[a] - u[b]) ** 2 + (v[a] - v[b]) ** 2 <= dup2)

    nk = lax.while_loop(closes, lambda nk: nk - 1, nk)
    count = jnp.where(has_area & (nk >= 3), nk, 0)
    return keep, count
