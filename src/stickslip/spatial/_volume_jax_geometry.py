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
  contact plane, by the monotone chain of `_volume_jax_hull`, step for step, duplicates within 1000·tol dropped as
  in numba;
* Q, c (eq. 8–9) and Qn, S's edge normals and offsets (eq. 24–25): closed form over S.
"""

from __future__ import annotations

from typing import NamedTuple

import jax.numpy as jnp
import numpy as np

from ._volume_jax_hull import monotone_hull

__all__ = [
    "GroundContact",
    "GroundTables",
    "ground_contact",
    "ground_tables",
    "plane_quantities",
    "tangent_basis",
]


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
    faces: np.ndarray        # (F, K) vertex indices, padded by the last
    face_counts: np.ndarray  # (F,) corners per face
    patch: str = "projection"              # S of SPEC §7: "projection" or "section"


def ground_tables(shape, max_polygon: int | None = None,
                  patch: str = "projection") -> GroundTables:
    """The static tables of a `Polyhedron` for :func:`ground_contact` (``patch=
    "projection"``) or `_volume_jax_section.ground_section_contact` (``"section"``).
    `max_polygon`: the buffer size of S (default: the bound that cannot overflow — S's
    corners are corners of C, i.e. vertices inside and crossing points; a plane crosses the
    boundary of one face in at most one segment, so in at most F edges, and when it crosses
    any, one vertex at least is outside: min(N + E, N − 1 + F), 13 for a box; for the
    section, a plane section of the body: one edge per face at most, F + 2 with 2 spare, 8
    for a box). The buffer sets the friction LPs' sizes (the kinetic LP enumerates its
    3-column bases: 286 for 13, 56 for 8, 1140 for 20)."""
    ei, ej, ef, fp = shape.edge_arrays()
    und = sorted({(min(a, b), max(a, b)) for a, b in zip(ei.tolist(), ej.tolist())})
    ui = np.array([a for a, _ in und], dtype=int)
    uj = np.array([b for _, b in und], dtype=int)
    nv, nf = len(shape.vertices), len(shape.faces)
    bound = min(nv + len(und), nv - 1 + nf)
    if patch == "section":
        bound = min(nv + len(und), nf + 2)
    L = bound if max_polygon is None else int(max_polygon)
    K = max(len(f) for f in shape.faces)
    faces = np.array([list(f) + [f[-1]] * (K - len(f)) for f in shape.faces], dtype=int)
    return GroundTables(np.asarray(shape.vertices, float), np.asarray(ei), np.asarray(ej),
                        np.asarray(ef), np.asarray(fp), ui, uj, 2.0 * float(shape.radius),
                        max(3, min(L, bound)), faces,
                        np.array([len(f) for f in shape.faces], dtype=int), str(patch))


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
    edge_offsets: jnp.ndarray  # (Lmax,) their signed offsets from p_g: S = {m·r ≤ offset} [m]
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
    # signed, not clamped at 0, as in the numba `_plane_kernel` (whose comment says why: on
    # a sliver S, p_g's round-off puts it outside S, and a clamped row let the QP's centre
    # of pressure leave S, so that the static LP rejected a wrench well inside the cone)
    offsets = jnp.where(valid, jnp.sum(m * r, axis=1), 0.0)
    mom = vol_c * (cen_c - pg)
    mom = mom - (mom @ n) * n
    c = jnp.concatenate([vol_c * jnp.eye(3), -_skew(mom)], axis=1)
    sn = _skew(n)
    rn = _cross(m1, n)
    Qn = jnp.block([[area * jnp.outer(n, n), jnp.outer(n, rn)],
                    [jnp.outer(rn, n), (sn @ m2) @ sn.T]])
    return Q, n @ c, Qn, m, offsets


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
    corners, n_corner = monotone_hull(pu, pv, ok & has_volume, tol)
    L = tables.max_polygon
    # a polygon with more corners than the buffer: an overflow (the run is stopped)
    valid = jnp.arange(L) < n_corner
    order = corners[jnp.minimum(jnp.arange(L), corners.shape[0] - 1)]
    poly = jnp.where(valid[:, None], P[order], pg)
    active = has_volume & (n_corner >= 3) & (n_corner <= L)
    Q, nc, Qn, m, offsets = plane_quantities(n, pg, poly, valid, volume, pg)
    return GroundContact(active, jnp.where(active, volume, 0.0), n, pg, e1, e2, poly,
                         jnp.where(active, n_corner, 0), Q, nc, Qn, m, offsets,
                         has_volume & (n_corner > L))
