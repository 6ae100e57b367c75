"""Pure-JAX contact geometry for ``patch="section"`` (SPEC §7 steps 1–2, the paper's literal
reading) of a convex polyhedron on the ground (`ground_section_contact`) and of two
(`pair_section_contact`, the same steps about the normal of eq. 1–2): S is the contact
plane's section of the intersection polytope C, not C's vertices projected. The counterpart
of the NumPy/numba
`_volume.intersect` + `_volume.contact_geometry(..., patch="section")` that the host loop runs
(`_volume_wrench.contact_geometries`), on fixed-size padded buffers (MJX style; nothing
branches on a traced value in Python).

1. C = body ∩ {z ≤ h}: the body's faces clipped by the ground plane (Sutherland–Hodgman per
   face with numba's tolerance band ±tol, tol = 1e-12·scale: a corner with s ≤ tol is kept,
   a crossing point is inserted only where an edge goes from s < −tol to s > tol or back, a
   face within the band is kept, one with fewer than 3 corners left is dropped); faces with
   an area below 1e-14·scale² dropped (`_volume._finish`); no contact unless the ground cuts
   the body (corners beyond ±tol on both sides), C has 4 faces or more (its cap counted), a
   volume > 1e-15·scale³ and eq. 2's sum above ε_v. The normal is +z: C is closed and its
   only face from the ground is the cap, so eq. 1's sum is twice the cap's area vector,
   −Σ of the body faces' (numba sums the same faces: +z to round-off).
2. S: the plane (n, p_g) cuts the body's edges — one point per undirected edge crossing it
   strictly, and the vertices within ±tol of it; these are the corners of C's section, p_g
   lying below the ground plane (`_volume.section_polygon` takes C's face edges: the same
   points, each met twice) — hulled by the monotone chain of `_volume_jax_hull`, numba's
   tolerances step for step.
3. C' = C ∩ (S × ℝn): C's faces clipped by the prism's sides, the planes through S's edges
   along n (numba clips the polytope, adding each side's cap). Q, nᵀc, Qn and S's edges by
   `_volume_jax_geometry.plane_quantities` (eq. 8–9, 24–25: c = [V′1, −[m′×]], V′ and m′
   the volume and in-plane first moment of C').

Volumes and moments come from the divergence theorem with fields along z that vanish on the
ground plane (`_flux_moments`): the ground's cap and the prism's sides (parallel to z) carry
no flux, so neither C's cap nor C''s sides are built — no hull per cut, and no point where two
nearly parallel planes meet (intersecting a side with the ground and a slightly tilted bottom
face, as clipping big squares did, put corners 1e-7 m off and V′ 1e-6 relative). On a
rocking box's 1e-7 m thin wedges V′ agrees with scipy's half-space intersection to 1e-10;
numba's capped clip is off by up to 2e-7 there (its caps' hulls), the largest of the
engines' differences.

Buffers: S has at most F + 2 corners by default (`ground_tables(..., patch="section")`: a plane
section of a convex polyhedron has one edge per face at most; 2 spare); clipped faces carry
their corners plus one per plane. An overflow poisons the record with NaN, as the projection's.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from ._volume_jax_clip import clip_polygon
from ._volume_jax_geometry import (
    GroundContact,
    GroundTables,
    ground_contact,
    plane_quantities,
    tangent_basis,
)
from ._volume_jax_hull import monotone_hull
from ._volume_jax_pair_geometry import FaceTables

__all__ = ["ground_geometry", "ground_section_contact", "pair_section_contact"]


def _cross(a, b):
    return jnp.stack([a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1],
                      a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2],
                      a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]], axis=-1)


def _fan(polys, counts):
    """The fan triangles (p_0, p_i, p_i+1) of padded polygons (P, B, 3): their corners
    (P, B − 2, 3, 3), area vectors (P, B − 2, 3) and which exist (P, B − 2)."""
    B = polys.shape[1]
    i = jnp.arange(1, B - 1)
    exists = (i[None, :] + 1) < counts[:, None]
    a = jnp.broadcast_to(polys[:, :1], polys[:, 1:-1].shape)
    b, c = polys[:, 1:-1], polys[:, 2:]
    av = jnp.where(exists[..., None], 0.5 * _cross(b - a, c - a), 0.0)
    return jnp.stack([a, b, c], axis=2), av, exists


def _flux_moments(polys, counts, kept, n, q):
    """Volume and first moment ∫ (x − q) dV of the solid bounded by the `kept` padded faces
    (CCW seen from outside) and by faces parallel to the unit vector n or lying in the plane
    through q normal to n: the divergence theorem with fields along n that vanish on those,
    h = (x − q)·n — h n for the volume, ((x − q)·e) h n for an in-plane e and ½h² n for the
    part along n. Per fan triangle T (f, g linear): ∫_T f dA = A_T f̄, ∫_T f g dA = A_T/12
    (Σ f_i g_i + Σ f_i Σ g_i)."""
    corners, av, exists = _fan(polys, counts)
    w = jnp.where(exists & kept[:, None], av @ n, 0.0)                  # A_T ν·n
    d = corners - q                                                     # (P, T, 3, 3)
    h = d @ n
    sh = jnp.sum(h, axis=-1)
    d = d - h[..., None] * n
    volume = jnp.sum(w * sh) / 3.0
    m = jnp.sum(w[..., None] * (jnp.sum(d * h[..., None], axis=-2)
                               + jnp.sum(d, axis=-2) * sh[..., None]), axis=(0, 1)) / 12.0
    mn = jnp.sum(w * (jnp.sum(h * h, axis=-1) + sh * sh)) / 24.0
    return volume, m + mn * n


def ground_section_contact(tables: GroundTables, position, R, height,
                           eps_v: float = 1e-12) -> GroundContact:
    """The contact of a body (centre `position`, rotation matrix `R`) with the ground
    z ≤ `height` for ``patch="section"`` (module docstring): the record of
    `_volume_jax_geometry.ground_contact`, with S the section of C by the plane through its
    centroid and nᵀc over the prism C' of S."""
    V = position + jnp.asarray(tables.vertices) @ R.T
    scale = tables.scale
    tol = 1e-12 * scale
    F = tables.faces.shape[0]
    Lmax = tables.max_polygon
    n = jnp.array([0.0, 0.0, 1.0])
    height = jnp.asarray(height, float)
    # 1. C: the body's faces clipped by the ground plane
    sz = V[:, 2] - height
    polys = jnp.concatenate([V[jnp.asarray(tables.faces)], jnp.zeros((F, 1 + Lmax, 3))], 1)
    polys, counts, over1 = jax.vmap(lambda p, k: clip_polygon(
        p, k, n[None], height[None], tol))(
        polys, jnp.asarray(tables.face_counts))
    fav = jnp.sum(_fan(polys, counts)[1], axis=1)                       # (F, 3)
    kept = (counts >= 3) & (jnp.sqrt(jnp.sum(fav * fav, axis=1)) > 1e-14 * scale * scale)
    cap = jnp.sqrt(jnp.sum(jnp.sum(jnp.where(kept[:, None], fav, 0.0), axis=0) ** 2))
    ref = jnp.stack([position[0], position[1], height])
    volume, mom = _flux_moments(polys, counts, kept, n, ref)
    has = (jnp.min(sz) < -tol) & (jnp.max(sz) > tol) \
        & (jnp.sum(kept) + (cap > 1e-14 * scale * scale) >= 4) \
        & (volume > 1e-15 * scale ** 3) & (2.0 * cap > eps_v)
    pg = jnp.where(has, ref + mom / jnp.where(has, volume, 1.0), position)
    e1, e2 = tangent_basis(n)
    # 2. S: the body's section by the plane (n, p_g)
    ui, uj = jnp.asarray(tables.ui), jnp.asarray(tables.uj)
    s = V[:, 2] - pg[2]
    si, sj = s[ui], s[uj]
    strict = ((si < -tol) & (sj > tol)) | ((si > tol) & (sj < -tol))
    xu = V[ui] + (si / jnp.where(strict, si - sj, 1.0))[:, None] * (V[uj] - V[ui])
    P = jnp.concatenate([V, xu])
    ok = jnp.concatenate([jnp.abs(s) <= tol, strict]) & has
    # 3. S's polygon, and C' = C ∩ (S × ℝn)
    poly, valid, n_corner, vol_c, cen_c, over2 = _section_prism(
        P, ok, polys, counts, kept, n, pg, e1, e2, Lmax, tol, pg.at[2].set(height))
    active = has & (n_corner >= 3) & (n_corner <= Lmax)
    Q, nc, Qn, em, eo = plane_quantities(n, pg, poly, valid, jnp.maximum(vol_c, 0.0), cen_c)
    overflow = has & ((n_corner > Lmax) | jnp.any(over1) | jnp.any(over2))
    return GroundContact(active, jnp.where(active, volume, 0.0), n, pg, e1, e2, poly,
                         jnp.where(active, n_corner, 0), Q, nc, Qn, em, eo, overflow)


def _section_prism(P, ok, polys, counts, kept, n, pg, e1, e2, L, tol, origin):
    """S and C' of a section contact (module docstring), for the ground and for a pair.

    S: the convex hull of the points `P` (those `ok`) in the plane (n, p_g), as at most `L`
    corners. C' = C ∩ (S × ℝn): C's faces `polys` (those `kept`) clipped by the prism's sides
    (outward normals of S's edges, as numba's `_plane_quantities`); its volume and centroid
    from the flux moments about `origin`, the centroid moved into the plane.
    Returns ``(S's corners (L, 3), valid corners, their count, V', centroid, a clip
    overflowed)``."""
    corners, n_corner = monotone_hull(P @ e1, P @ e2, ok, tol)
    valid = jnp.arange(L) < n_corner
    order = corners[jnp.minimum(jnp.arange(L), corners.shape[0] - 1)]
    r = P[order] - pg
    r = jnp.where(valid[:, None], r - (r @ n)[:, None] * n, 0.0)
    nxt = jnp.where(jnp.arange(L) + 1 < n_corner, jnp.arange(L) + 1, 0)
    m = _cross(r[nxt] - r, jnp.broadcast_to(n, r.shape))
    norm = jnp.sqrt(jnp.sum(m * m, axis=1))
    m = m / jnp.where(valid & (norm > 0.0), norm, 1.0)[:, None]
    dm = jnp.sum(m * r, axis=1) + m @ pg
    counts = jnp.where(kept, counts, 0)
    polys, counts, over = jax.vmap(lambda q, k: clip_polygon(q, k, m, dm, tol, valid))(
        polys, counts)
    vol_c, mom_c = _flux_moments(polys, counts, counts >= 3, n, origin)
    positive = vol_c > 0.0
    cen_c = pg + jnp.where(positive, mom_c - (mom_c @ n) * n, 0.0) / jnp.where(positive,
                                                                             vol_c, 1.0)
    return pg + r, valid, n_corner, vol_c, cen_c, over


def _section_ends(polys, counts, kept, n, pg, tol):
    """Per face of C, the ends of its cut by the plane (n, p_g): of its corners within ±tol
    of the plane and its edges' strict crossings (`_volume.section_polygon`'s candidates), the
    first and last along the cut's direction n × ν — (2P, 3) points and a mask. A convex face
    meets the plane in one segment, so the other candidates lie between (numba's hull drops
    them)."""
    B = polys.shape[1]
    t = jnp.arange(B)[None, :]
    corner = (t < counts[:, None]) & kept[:, None]
    s = (polys - pg) @ n
    nxt = jnp.where(t + 1 < counts[:, None], t + 1, 0)
    sn = jnp.take_along_axis(s, nxt, axis=1)
    pn = jnp.take_along_axis(polys, nxt[..., None], axis=1)
    strict = corner & (((s < -tol) & (sn > tol)) | ((s > tol) & (sn < -tol)))
    x = polys + (s / jnp.where(strict, s - sn, 1.0))[..., None] * (pn - polys)
    pts = jnp.concatenate([polys, x], axis=1)                          # (P, 2B, 3)
    ok = jnp.concatenate([corner & (jnp.abs(s) <= tol), strict], axis=1)
    av = jnp.sum(_fan(polys, counts)[1], axis=1)
    along = _cross(jnp.broadcast_to(n, av.shape), av)
    key = jnp.einsum("pbk,pk->pb", pts, along)
    lo = jnp.argmin(jnp.where(ok, key, jnp.inf), axis=1)
    hi = jnp.argmax(jnp.where(ok, key, -jnp.inf), axis=1)
    rows = jnp.arange(pts.shape[0])
    ends = jnp.concatenate([pts[rows, lo], pts[rows, hi]])
    return ends, jnp.concatenate([jnp.any(ok, axis=1)] * 2)


def pair_section_contact(tab_a: FaceTables, x_a, R_a, tab_b: FaceTables, x_b, R_b, scale,
                         eps_v: float, max_polygon: int = 16) -> GroundContact:
    """The contact of bodies A and B (centres x, rotation matrices R) for ``patch="section"``,
    the counterpart of `_volume.intersect` + `_volume.contact_geometry(..., "section")` on
    a body pair (`_volume_wrench.contact_geometries`) and of
    `_volume_jax_pair_geometry.pair_contact`'s signature and record; `scale`: 2 × the larger
    bounding radius [m]. C's faces: A's clipped by B's face planes and B's by A's (a face of
    B in a face plane of A with the same outward normal left to A), the tolerance band and
    drops of the ground case; the normal of eq. 1–2 (+ A's area vectors, − B's), none below
    ε_v; p_g and the volume by `_flux_moments` about the mean corner; S the hull of each
    face's cut ends (`_section_ends`); C' = C's faces clipped by the prism's sides, whose
    volume and moment need no side caps (`_flux_moments` along n about p_g)."""
    tol = 1e-12 * scale
    Va = x_a + jnp.asarray(tab_a.vertices) @ R_a.T
    Vb = x_b + jnp.asarray(tab_b.vertices) @ R_b.T
    na, nb = jnp.asarray(tab_a.normals) @ R_a.T, jnp.asarray(tab_b.normals) @ R_b.T
    da = jnp.asarray(tab_a.offsets) + na @ x_a
    db = jnp.asarray(tab_b.offsets) + nb @ x_b
    Fa, Fb = len(tab_a.offsets), len(tab_b.offsets)
    L = int(max_polygon)
    B = max(tab_a.faces.shape[1] + Fb, tab_b.faces.shape[1] + Fa) + 2 + L
    shared = jnp.any((nb @ na.T > 1.0 - 1e-12) & (jnp.abs(db[:, None] - da[None, :]) <= tol),
                     axis=1)

    def side(V, faces, counts, n_other, d_other):
        poly = V[jnp.asarray(faces)]
        poly = jnp.concatenate([poly, jnp.zeros((poly.shape[0], B - poly.shape[1], 3))], 1)
        use = jnp.ones(len(d_other), bool)
        return jax.vmap(lambda p, k: clip_polygon(p, k, n_other, d_other, tol, use))(
            poly, jnp.asarray(counts))

    pa, ka, oa = side(Va, tab_a.faces, tab_a.counts, nb, db)
    pb, kb, ob = side(Vb, tab_b.faces, tab_b.counts, na, da)
    polys = jnp.concatenate([pa, pb])
    counts = jnp.concatenate([ka, jnp.where(shared, 0, kb)])
    fav = jnp.sum(_fan(polys, counts)[1], axis=1)
    kept = (counts >= 3) & (jnp.sqrt(jnp.sum(fav * fav, axis=1)) > 1e-14 * scale * scale)
    sgn = jnp.concatenate([jnp.ones(Fa), -jnp.ones(Fb)])
    p = jnp.sum(jnp.where(kept[:, None], sgn[:, None] * fav, 0.0), axis=0)
    norm = jnp.sqrt(jnp.sum(p * p))
    n = jnp.where(norm > eps_v, p / jnp.where(norm > eps_v, norm, 1.0),
                  jnp.array([0.0, 0.0, 1.0]))
    corner = (jnp.arange(B)[None, :] < counts[:, None]) & kept[:, None]
    o = jnp.sum(jnp.where(corner[..., None], polys, 0.0), axis=(0, 1)) / jnp.maximum(
        jnp.sum(corner), 1)
    volume, mom = _flux_moments(polys, counts, kept, n, o)
    has = (jnp.sum(counts >= 3) >= 4) & (jnp.sum(kept) >= 4) \
        & (volume > 1e-15 * scale ** 3) & (norm > eps_v)
    pg = jnp.where(has, o + mom / jnp.where(has, volume, 1.0), o)
    e1, e2 = tangent_basis(n)
    # S: the hull of the faces' cut ends
    P, ok = _section_ends(polys, counts, kept, n, pg, tol)
    # S's polygon, and C' = C ∩ (S × ℝn)
    poly, valid, n_corner, vol_c, cen_c, over = _section_prism(
        P, ok & has, polys, counts, kept, n, pg, e1, e2, L, tol, pg)
    active = has & (n_corner >= 3) & (n_corner <= L)
    Q, nc, Qn, em, eo = plane_quantities(n, pg, poly, valid, jnp.maximum(vol_c, 0.0), cen_c)
    overflow = has & ((n_corner > L) | jnp.any(oa) | jnp.any(ob) | jnp.any(over))
    return GroundContact(active, jnp.where(active, volume, 0.0), n, pg, e1, e2, poly,
                         jnp.where(active, n_corner, 0), Q, nc, Qn, em, eo, overflow)


def ground_geometry(tables: GroundTables, position, R, height,
                    eps_v: float = 1e-12) -> GroundContact:
    """The ground contact of one body for its tables' patch (a static choice):
    `_volume_jax_geometry.ground_contact` for ``"projection"``, :func:`ground_section_contact`
    for ``"section"``."""
    if tables.patch == "section":
        return ground_section_contact(tables, position, R, height, eps_v)
    return ground_contact(tables, position, R, height, eps_v)
