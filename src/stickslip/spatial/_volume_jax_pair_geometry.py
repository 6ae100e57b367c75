"""Pure-JAX contact geometry of two convex polyhedra (SPEC §7 steps 1–2, ``patch=
"projection"``), the counterpart of the numba `_volume_fast._pair_kernel` +
`_volume.pair_contact_geometry` — the geometry of body–body contact on the JAX engine (the
joint QP over the contacts: `_volume_jax_joint`).

Fixed-size buffers, MJX style, the numba kernel's arithmetic step by step:

* C's faces: each face of A clipped by B's face planes, each face of B clipped by A's
  (Sutherland–Hodgman with the kernel's tolerance band ±tol, tol = 1e-12·scale: a polygon
  within the band of a plane is kept, one beyond it is dropped), a face of B lying in a face
  plane of A with the same outward normal left to A; each face a padded buffer of
  (its corners + the other body's face count + 2) points with a count;
* volume and centroid p_g from signed tetrahedra (o, fan triangle) about the mean o of all
  kept corners, the normal of eq. 1–2 from the faces' area vectors (+ for A's, − for B's;
  faces with an area vector below 1e-14·scale² skipped), none below eps_v, no contact with
  fewer than 4 faces or a volume ≤ 1e-15·scale³;
* S: the monotone-chain hull (`_volume_jax_hull`) of all kept corners projected along n onto
  the plane through p_g, in the (e1, e2) of `_volume_jax_geometry.tangent_basis`; Q, c, Qn
  and S's edges by `_volume_jax_geometry.plane_quantities`.

The result is a `_volume_jax_geometry.GroundContact` record (the same fields).
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from ._volume_jax_clip import clip_polygon
from ._volume_jax_geometry import GroundContact, plane_quantities, tangent_basis
from ._volume_jax_hull import monotone_hull

__all__ = ["FaceTables", "face_tables", "pair_contact"]


class FaceTables(NamedTuple):
    """Static face tables of one shape (NumPy, body frame)."""

    vertices: np.ndarray     # (N, 3) [m]
    faces: np.ndarray        # (F, K) vertex indices, padded by repeating the last
    counts: np.ndarray       # (F,) corners per face
    normals: np.ndarray      # (F, 3) outward unit normals
    offsets: np.ndarray      # (F,) n·x ≤ offset inside


def face_tables(shape) -> FaceTables:
    """The static face tables of a `Polyhedron` for :func:`pair_contact`."""
    K = max(len(f) for f in shape.faces)
    faces = np.array([list(f) + [f[-1]] * (K - len(f)) for f in shape.faces], dtype=int)
    return FaceTables(np.asarray(shape.vertices, float), faces,
                      np.array([len(f) for f in shape.faces], dtype=int),
                      np.asarray(shape.normals, float), np.asarray(shape.offsets, float))


def _clip(poly, k, normals, offsets, tol, skip):
    """:func:`._volume_jax_clip.clip_polygon` by every half-space, count 0 when `skip`."""
    poly, k, over = clip_polygon(poly, k, normals, offsets, tol)
    return poly, jnp.where(skip, 0, k), over


def pair_contact(tab_a: FaceTables, x_a, R_a, tab_b: FaceTables, x_b, R_b, scale,
                 eps_v: float, max_polygon: int = 16) -> GroundContact:
    """The contact of bodies A and B (centres x, rotation matrices R) for ``patch=
    "projection"`` (module docstring); `scale`: 2 × the larger bounding radius [m] (a float
    or traced); the
    normal points as the numba kernel's (Σ of A's clipped area vectors minus B's)."""
    tol = 1e-12 * scale
    Va = x_a + jnp.asarray(tab_a.vertices) @ R_a.T
    Vb = x_b + jnp.asarray(tab_b.vertices) @ R_b.T
    na = jnp.asarray(tab_a.normals) @ R_a.T
    nb = jnp.asarray(tab_b.normals) @ R_b.T
    da = jnp.asarray(tab_a.offsets) + na @ x_a
    db = jnp.asarray(tab_b.offsets) + nb @ x_b
    Ka, Kb = tab_a.faces.shape[1], tab_b.faces.shape[1]
    B = max(Ka + len(tab_b.offsets), Kb + len(tab_a.offsets)) + 2

    def side(V, faces, counts, n_other, d_other, skip):
        poly = V[jnp.asarray(faces)]
        poly = jnp.concatenate([poly, jnp.zeros((poly.shape[0], B - poly.shape[1], 3))], 1)
        return jax.vmap(lambda p, k, s: _clip(p, k, n_other, d_other, tol, s))(
            poly, jnp.asarray(counts), skip)

    # B's faces lying in a face plane of A with the same outward normal are A's
    shared = jnp.any((nb @ na.T > 1.0 - 1e-12)
                     & (jnp.abs(db[:, None] - da[None, :]) <= tol), axis=1)
    pa, ka, oa = side(Va, tab_a.faces, tab_a.counts, nb, db, jnp.zeros(len(da), bool))
    pb, kb, ob = side(Vb, tab_b.faces, tab_b.counts, na, da, shared)
    polys = jnp.concatenate([pa, pb])                                   # (Fa + Fb, B, 3)
    ks = jnp.concatenate([ka, kb])
    sgn = jnp.concatenate([jnp.ones(len(ka)), -jnp.ones(len(kb))])
    kept = ks >= 3
    ks = jnp.where(kept, ks, 0)
    corner = jnp.arange(B)[None, :] < ks[:, None]                      # (F, B)
    n_pts = jnp.sum(ks)
    o = jnp.sum(jnp.where(corner[..., None], polys, 0.0), axis=(0, 1)) / jnp.maximum(n_pts, 1)
    nxt = jnp.where(jnp.arange(B)[None, :] + 1 < ks[:, None], jnp.arange(B)[None, :] + 1, 0)
    following = jnp.take_along_axis(polys, nxt[..., None], axis=1)
    av = 0.5 * jnp.sum(jnp.where(corner[..., None], jnp.cross(polys, following), 0.0), axis=1)
    big = kept & (jnp.sqrt(jnp.sum(av * av, axis=1)) > 1e-14 * scale * scale)
    n_faces = jnp.sum(big)
    p = jnp.sum(jnp.where(big[:, None], sgn[:, None] * av, 0.0), axis=0)
    # tetrahedra (o, p0, p_i, p_i+1), i = 1 … k − 2, of every face counted
    i = jnp.arange(1, B - 1)
    fan = big[:, None] & (i[None, :] + 1 < ks[:, None])                # (F, B − 2)
    p0 = polys[:, :1]
    pi, pj = polys[:, 1:-1], polys[:, 2:]
    ca, aa, ba = pj - o, p0 - o, pi - o
    v = jnp.sum(ca * jnp.cross(aa, ba), axis=-1) / 6.0
    v = jnp.where(fan, v, 0.0)
    volume = jnp.sum(v)
    mom = jnp.sum(v[..., None] * (ca + aa + ba), axis=(0, 1))
    norm = jnp.sqrt(jnp.sum(p * p))
    has = (jnp.sum(kept) >= 4) & (n_faces >= 4) & (volume > 1e-15 * scale ** 3) & (norm > eps_v)
    n = jnp.where(has, p / jnp.where(has, norm, 1.0), jnp.array([0.0, 0.0, 1.0]))
    pg = o + mom / (4.0 * jnp.where(has, volume, 1.0))
    # S: the hull of every kept corner projected along n onto the plane through p_g
    pts = polys.reshape(-1, 3)
    ok = corner.reshape(-1) & has
    pts = pts - ((pts - pg) @ n)[:, None] * n
    e1, e2 = tangent_basis(n)
    corners, n_corner = monotone_hull(pts @ e1, pts @ e2, ok, tol)
    L = int(max_polygon)
    valid = jnp.arange(L) < n_corner
    order = corners[jnp.minimum(jnp.arange(L), corners.shape[0] - 1)]
    poly = jnp.where(valid[:, None], pts[order], pg)
    active = has & (n_corner >= 3) & (n_corner <= L)
    Q, nc, Qn, m, offsets = plane_quantities(n, pg, poly, valid, volume, pg)
    overflow = (has & (n_corner > L)) | jnp.any(oa) | jnp.any(ob)
    return GroundContact(active, jnp.where(active, volume, 0.0), n, pg, e1, e2, poly,
                         jnp.where(active, n_corner, 0), Q, nc, Qn, m, offsets, overflow)
