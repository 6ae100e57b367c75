"""Pure-JAX contact geometry of a convex polyhedron against the ground plane (SPEC §7 steps
1–2), the counterpart of the numba `_volume.ground_contact_geometry` for the jitted run.

Fixed-size buffers, MJX style: the shape's vertex/edge/face tables are static NumPy arrays,
the candidate points of the contact polygon are the body's vertices and one crossing point
per (undirected) edge, and the polygon S is a padded buffer of ``max_polygon`` vertices
(counter-clockwise about n, starting at its lexicographically smallest (e1, e2) vertex, as
the numba monotone chain returns it) with a count. Nothing branches on a traced value.

* contact volume C = body ∩ {z ≤ h}: volume and centroid p_g from signed tetrahedra over the
  clipped face boundaries (every face edge inside, every cut segment; the cap adds none);
* normal (eq. 1–2): +z — the cap is C's only face from the ground and C is closed, so
  Σ sgn S n over C's faces is the cap's area vector;
* S (``patch="projection"``): the convex hull of C's vertices projected along n onto the
  contact plane, here found all at once (an edge i→j of the hull has every other candidate
  strictly to its left, or on the segment), duplicates within 1000·tol dropped as in numba;
* Q, c (eq. 8–9) and Qn, S's edge normals and offsets (eq. 24–25): closed form over S.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import jax.numpy as jnp
from jax import lax

__all__ = ["GroundTables", "ground_tables", "GroundContact", "ground_contact", "tangent_basis",
           "plane_quantities"]


class GroundTables(NamedTuple):
    """Static tables of one shape (NumPy, body frame)."""

    vertices: np.ndarray     # (N, 3) [m]
    ei: np.ndarray           # directed face edges: start vertex
    ej: np.ndarray           # end vertex
    ef: np.ndarray           # face of the edge
    fp: np.ndarray           # (F,) one vertex per face (the tetrahedra's apex)
    ui: np.ndarray           # undirected edges: the candidate crossing points
    uj: np.ndarray
    scale: float             # 2 × the shape's radius [m] (tolerances are relative to it)
    max_polygon: int         # buffer size of S


def ground_tables(shape, max_polygon: int | None = None) -> GroundTables:
    """The static tables of a `Polyhedron` for :func:`ground_contact`. `max_polygon`: the
    buffer size of S (default: every vertex and every edge could be one of its corners, the
    bound that cannot overflow; a box gives 20)."""
    ei, ej, ef, fp = shape.edge_arrays()
    und = sorted({(min(a, b), max(a, b)) for a, b in zip(ei.tolist(), ej.tolist())})
    ui = np.array([a for a, _ in und], dtype=int)
    uj = np.array([b for _, b in und], dtype=int)
    bound = len(shape.vertices) + len(und)
    L = bound if max_polygon is None else int(max_polygon)
    return GroundTables(np.asarray(shape.vertices, float), np.asarray(ei), np.asarray(ej),
                        np.asarray(ef), np.asarray(fp), ui, uj, 2.0 * float(shape.radius),
                        max(3, min(L, bound)))


class GroundContact(NamedTuple):
    """One body's contact with the ground (world frame); values are padding when not
    ``active``."""

    active: jnp.ndarray        # bool: a contact volume and a polygon exist
    volume: jnp.ndarray        # [m^3]
    normal: jnp.ndarray        # (3,) from the ground (A) to the body (B)
    centroid: jnp.ndarray      # p_g (3,) [m]
    e1: jnp.ndarray
    e2: jnp.ndarray
    polygon: jnp.ndarray       # (Lmax, 3) S's vertices [m]
    count: jnp.ndarray         # int: S's vertex count
    Q: jnp.ndarray             # (6, 6) [m^2] eq. 9
    nc: jnp.ndarray            # (6,) nᵀc [m^3] eq. 8–9
    Qn: jnp.ndarray            # (6, 6) the normal part of Q
    edge_normals: jnp.ndarray  # (Lmax, 3) in-plane outward normals of S's edges
    edge_offsets: jnp.ndarray  # (Lmax,) their distances from p_g (>= 0) [m]
    overflow: jnp.ndarray      # bool: S had more corners than the buffer (result invalid)


def _cross(a, b):
    return jnp.stack([a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1],
                      a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2],
                      a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]], axis=-1)


def _skew(x):
    z = jnp.zeros_like(x[0])
    return jnp.array([[z, -x[2], x[1]], [x[2], z, -x[0]], [-x[1], x[0], z]])


def tangent_basis(n):
    """(e1, e2) with (n, e1, e2) right-handed: world x projected onto the plane (world y when
    n is close to x), e2 = n × e1 (the numba `_tangent_basis_kernel`)."""
    use_x = jnp.abs(n[0]) < 0.9
    a = jnp.where(use_x, jnp.array([1.0, 0.0, 0.0]), jnp.array([0.0, 1.0, 0.0]))
    d = a[0] * n[0] + a[1] * n[1]
    e1 = a - d * n
    e1 = e1 / jnp.sqrt(e1[0] ** 2 + e1[1] ** 2 + e1[2] ** 2)
    return e1, _cross(n, e1)


def _tet(o, a, b, c):
    """Signed volume of the tetrahedron (o, a, b, c) and 4× its first moment about o."""
    ca, aa, ba = c - o, a - o, b - o
    v = jnp.sum(ca * _cross(aa, ba), axis=-1) / 6.0
    return v, v[..., None] * (ca + aa + ba)


def plane_quantities(n, pg, poly, valid, vol_c, cen_c):
    """Q = ∫_S JᵀJ dA, nᵀc with c = ∫_S h J dA = [V′1, −[m′×]],
    Qn = ∫_S J_nᵀJ_n dA
    (SPEC §7 eq. 8–9, J = [1, −[(p − p_g)×]]), S's in-plane edge normals and their offsets
    from p_g (eq. 24–25), for the plane (n, p_g) and the padded polygon `poly` (Lmax, 3)
    with `valid` corners (CCW about n); the numba `_plane_kernel` in closed form (triangle
    fan: ∫_T r rᵀ dA = A_T/12 (a aᵀ + b bᵀ + c cᵀ + s sᵀ), s = a + b + c)."""
    Lmax = poly.shape[0]
    count = jnp.sum(valid)
    d = poly - pg
    r = d - (d @ n)[:, None] * n
    r = jnp.where(valid[:, None], r, 0.0)
    a = r[0]
    bs, cs = r[1:-1], r[2:]
    tri_ok = (jnp.arange(2, Lmax) < count)
    ss = a + bs + cs
    at = 0.5 * (_cross(bs - a, cs - a) @ n)
    at = jnp.where(tri_ok, at, 0.0)
    area = jnp.sum(at)
    m1 = jnp.sum(at[:, None] * ss, axis=0) / 3.0
    outer = (a[None, :, None] * a[None, None, :] + bs[:, :, None] * bs[:, None, :]
             + cs[:, :, None] * cs[:, None, :] + ss[:, :, None] * ss[:, None, :])
    m2 = jnp.sum(at[:, None, None] * outer, axis=0) / 12.0
    sk1 = _skew(m1)
    tr = m2[0, 0] + m2[1, 1] + m2[2, 2]
    Q = jnp.block([[area * jnp.eye(3), -sk1], [sk1, -m2 + tr * jnp.eye(3)]])
    nxt = jnp.where(jnp.arange(Lmax) + 1 < count, jnp.arange(Lmax) + 1, 0)
    edge = r[nxt] - r
    m = _cross(edge, jnp.broadcast_to(n, edge.shape))
    norm = jnp.sqrt(jnp.sum(m * m, axis=1))
    m = jnp.where(valid[:, None], m / jnp.where(valid, norm, 1.0)[:, None], 0.0)
    offsets = jnp.where(valid, jnp.maximum(jnp.sum(m * r, axis=1), 0.0), 0.0)
    mom = vol_c * (cen_c - pg)
    mom = mom - (mom @ n) * n
    c = jnp.concatenate([vol_c * jnp.eye(3), -_skew(mom)], axis=1)
    sn = _skew(n)
    rn = _cross(m1, n)
    Qn = jnp.block([[area * jnp.outer(n, n), jnp.outer(n, rn)],
                    [jnp.outer(rn, n), (sn @ m2) @ sn.T]])
    return Q, n @ c, Qn, m, offsets


def _hull(u, v, ok, tol):
    """S's corners among the candidate points (u, v) (mask `ok`), as a cyclic successor
    table: the convex hull with duplicates within 1000·tol and collinear points dropped.
    Returns (is_corner, successor, start) with `start` the lexicographically smallest
    corner (where the numba monotone chain starts)."""
    K = u.shape[0]
    idx = jnp.arange(K)
    same_u = u[None, :] == u[:, None]
    earlier = (u[None, :] < u[:, None]) | (same_u & (v[None, :] < v[:, None])) | (
        same_u & (v[None, :] == v[:, None]) & (idx[None, :] < idx[:, None]))
    d2 = (u[:, None] - u[None, :]) ** 2 + (v[:, None] - v[None, :]) ** 2
    dup2 = (1000.0 * tol) ** 2
    dup = jnp.any(ok[None, :] & earlier & (d2 <= dup2), axis=1)
    keep = ok & ~dup
    tol2 = tol * tol
    # turn[i, j, k] = (p_j − p_i) × (p_k − p_i)
    du = u[None, :] - u[:, None]
    dv = v[None, :] - v[:, None]
    turn = du[:, :, None] * dv[:, None, :] - dv[:, :, None] * du[:, None, :]
    dot_i = du[:, :, None] * du[:, None, :] + dv[:, :, None] * dv[:, None, :]   # (j−i)·(k−i)
    dot_j = (u[:, None, None] - u[None, :, None]) * (u[None, None, :] - u[None, :, None]) \
        + (v[:, None, None] - v[None, :, None]) * (v[None, None, :] - v[None, :, None])
    between = (jnp.abs(turn) <= tol2) & (dot_i > 0) & (dot_j > 0)
    # a point within 1e-6·scale of i or j is the same corner (a near-duplicate the merge
    # above may keep or drop by round-off: under jit a pitched box's corner and its edge's
    # crossing 2e-10 m away were kept, and each then lay "right" of the other's edges, so
    # neither was a corner and S degenerated): it does not veto the edge i → j
    near = d2 <= (1e6 * tol) ** 2
    other = keep[None, None, :] & (idx[None, None, :] != idx[:, None, None]) \
        & (idx[None, None, :] != idx[None, :, None]) & ~near[:, None, :] & ~near[None, :, :]
    left = jnp.all(~other | (turn > tol2) | between, axis=2)
    edge = keep[:, None] & keep[None, :] & (idx[:, None] != idx[None, :]) & left
    corner = jnp.any(edge, axis=1)
    succ = jnp.argmax(edge, axis=1)
    big = jnp.inf
    key_u = jnp.where(corner, u, big)
    umin = jnp.min(key_u)
    start = jnp.argmin(jnp.where(corner & (u == umin), v, big))
    return corner, succ, start


def ground_contact(tables: GroundTables, position, R, height,
                   eps_v: float = 1e-12) -> GroundContact:
    """The contact of a body (centre `position`, rotation matrix `R`) with the ground
    z ≤ `height` (SPEC §7 steps 1–2, ``patch="projection"``); see the module docstring.
    `eps_v` (eq. 2) is not needed against the ground: the normal is +z whenever C has
    volume; it is kept for the body–body counterpart's signature."""
    V = position + jnp.asarray(tables.vertices) @ R.T
    scale = tables.scale
    tol = 1e-12 * scale
    s = V[:, 2] - height
    inside = s <= 0.0
    ei, ej, ef, fp = (jnp.asarray(a) for a in (tables.ei, tables.ej, tables.ef, tables.fp))
    nf = len(tables.fp)
    si, sj = s[ei], s[ej]
    crosses = inside[ei] != inside[ej]
    rr = si / jnp.where(crosses, si - sj, 1.0)
    x = V[ei] + rr[:, None] * (V[ej] - V[ei])
    x = jnp.where(crosses[:, None], x, 0.0)
    n_cross = jnp.sum(crosses)
    o = jnp.sum(x, axis=0) / jnp.maximum(n_cross, 1)
    leave = crosses & inside[ei]
    enter = crosses & ~inside[ei]
    x_leave = jnp.zeros((nf, 3)).at[ef].add(jnp.where(leave[:, None], x, 0.0))
    x_enter = jnp.zeros((nf, 3)).at[ef].add(jnp.where(enter[:, None], x, 0.0))
    cut = jnp.zeros(nf, bool).at[ef].max(leave)
    apex = V[fp[ef]]
    both = inside[ei] & inside[ej]
    pa = jnp.where(both[:, None] | (inside[ei] & ~inside[ej])[:, None], V[ei], x)
    pb = jnp.where(both[:, None] | (~inside[ei] & inside[ej])[:, None], V[ej], x)
    use = inside[ei] | inside[ej]
    v1, m1 = _tet(o, pa, pb, apex)
    v2, m2 = _tet(o, x_leave, x_enter, V[jnp.asarray(tables.fp)])
    v1, v2 = jnp.where(use, v1, 0.0), jnp.where(cut, v2, 0.0)
    m1, m2 = jnp.where(use[:, None], m1, 0.0), jnp.where(cut[:, None], m2, 0.0)
    volume = jnp.sum(v1) + jnp.sum(v2)
    has_volume = (n_cross > 0) & (volume > 1e-15 * scale ** 3)
    vol_s = jnp.where(has_volume, volume, 1.0)
    pg = o + (jnp.sum(m1, axis=0) + jnp.sum(m2, axis=0)) / (4.0 * vol_s)
    # candidate corners of S: vertices inside and one crossing per undirected edge
    ui, uj = jnp.asarray(tables.ui), jnp.asarray(tables.uj)
    cu = inside[ui] != inside[uj]
    su, sv = s[ui], s[uj]
    ru = su / jnp.where(cu, su - sv, 1.0)
    xu = V[ui] + ru[:, None] * (V[uj] - V[ui])
    P = jnp.concatenate([V, xu])
    ok = jnp.concatenate([inside, cu])
    n = jnp.array([0.0, 0.0, 1.0])
    e1, e2 = tangent_basis(n)
    P = P.at[:, 2].set(pg[2])
    pu, pv = P @ e1, P @ e2
    corner, succ, start = _hull(pu, pv, ok & has_volume, tol)
    L = tables.max_polygon
    # S's corners in order: start, succ[start], … until the walk is back at start or at a
    # point within 1e-6·scale of it (the hull's "same corner": such a near twin can be a
    # corner off the cycle, so the corners are counted along the walk, not summed)
    twin = (pu - pu[start]) ** 2 + (pv - pv[start]) ** 2 <= (1e6 * tol) ** 2

    def walk(i, st):
        order, count, closed = st
        nxt = succ[order[i - 1]]
        closed = closed | twin[nxt]
        return order.at[i].set(nxt), count + ~closed, closed

    order, n_corner, closed = lax.fori_loop(
        1, L, walk, (jnp.full(L, start), jnp.asarray(1), jnp.asarray(False)))
    # a cycle longer than the buffer: an overflow (more corners than max_polygon)
    n_corner = jnp.where(closed | twin[succ[order[L - 1]]], n_corner, L + 1)
    n_corner = jnp.where(jnp.any(corner), n_corner, 0)
    valid = jnp.arange(L) < n_corner
    poly = jnp.where(valid[:, None], P[order], pg)
    au, av = pu[order] - pu[start], pv[order] - pv[start]
    tri = (jnp.arange(1, L - 1) + 1) < n_corner
    area2 = jnp.sum(jnp.where(tri, au[1:-1] * av[2:] - av[1:-1] * au[2:], 0.0))
    active = has_volume & (n_corner >= 3) & (area2 > tol) & (n_corner <= L)
    Q, nc, Qn, m, offsets = plane_quantities(n, pg, poly, valid, volume, pg)
    return GroundContact(active, jnp.where(active, volume, 0.0), n, pg, e1, e2, poly,
                         jnp.where(active, n_corner, 0), Q, nc, Qn, m, offsets,
                         has_volume & (n_corner > L))
