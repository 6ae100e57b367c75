"""Contact volume of two convex polyhedra and the quantities SPEC §7 builds on it.

* :func:`intersect` — the intersection polytope C of A and B as face polygons, each tagged
  with the body it comes from (0 for A, 1 for B);
* :func:`contact_geometry` — the normal (eq. 1–2), the contact plane through C's centroid,
  its section polygon S, and Q, c of eq. 8–9 in closed form;
* :func:`ground_contact_geometry`, :func:`pair_contact_geometry` — the same for a body on
  the ground and for two bodies, by the compiled fast path.

Everything is in the world frame, on the host: NumPy for the general polyhedron–polyhedron
clipping (here), and numba-compiled kernels for what every step of a simulation needs — the
convex polygon (:mod:`._volume_hull`), Q and c of the contact plane (:mod:`._volume_plane`),
the body–ground and body–body contact volumes (:mod:`._volume_fast`); this module holds
their Python entries. The benchmark of SPEC §7 showed the per-step cost spread over hundreds
of small NumPy calls (DESIGN "Numerics": compiled code when the benchmark says so).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._shapes import cross3, next_rows, polyhedron_volume_centroid
from ._volume_fast import _ground_kernel, _pair_kernel
from ._volume_hull import _convex_polygon_kernel, _tangent_basis_kernel
from ._volume_plane import _plane_kernel, polygon_moments

__all__ = ["ContactVolume", "ContactGeometry", "intersect", "clip_faces",
           "contact_geometry", "normal_from_faces", "polygon_moments", "tangent_basis",
           "skew"]

EPS_V = 1e-12   # ε_v of eq. 2 (the paper's setting)


@dataclass
class ContactVolume:
    """The intersection polytope C: face polygons (world frame [m]), their origin
    (0: from body A, 1: from body B), outward unit normals and areas [m^2]."""

    faces: list[np.ndarray]
    origin: np.ndarray
    normals: np.ndarray
    areas: np.ndarray
    volume: float
    centroid: np.ndarray


@dataclass
class ContactGeometry:
    """What the force computation needs from one contact volume (SPEC §7 steps 1–2)."""

    volume: float            # [m^3]
    normal: np.ndarray       # n_i, unit, from A towards B (eq. 1)
    centroid: np.ndarray     # p_ig [m]
    e1: np.ndarray           # in-plane basis, (n, e1, e2) right-handed
    e2: np.ndarray
    polygon: np.ndarray      # section polygon S vertices (L, 3) [m], counter-clockwise about n
    Q: np.ndarray            # (6, 6) [m^2], eq. 9
    c: np.ndarray            # (3, 6) [m^3], eq. 9
    edge_normals: np.ndarray  # (L, 3) in-plane outward normals of S's edges
    edge_offsets: np.ndarray  # (L,) signed offsets of S's edges from p_ig: S = {m·r ≤ offset} [m]
    Qn: np.ndarray            # (6, 6) [m^2], ∫ J_nᵀ J_n dA with J_n = nᵀ J (normal part of Q)

    @property
    def nc(self) -> np.ndarray:
        """nᵀ c (6,), the linear term of eq. 8."""
        return self.normal @ self.c

    @property
    def r(self) -> np.ndarray:
        """S's vertices relative to p_ig in the (e1, e2) frame, (L, 2) [m]."""
        d = self.polygon - self.centroid
        return np.column_stack([d @ self.e1, d @ self.e2])


def skew(x: np.ndarray) -> np.ndarray:
    """The cross-product matrix [x×] (eq. 7)."""
    return np.array([[0.0, -x[2], x[1]], [x[2], 0.0, -x[0]], [-x[1], x[0], 0.0]])


def clip_faces(faces: list[np.ndarray], origin: list[int], n: np.ndarray, d: float,
               label: int, tol: float) -> tuple[list[np.ndarray], list[int]]:
    """Clip a closed convex polyhedron (face polygons) by the half-space ``n·x <= d``.

    The cut adds one cap face with outward normal `n`, tagged `label`.
    """
    svals = [pts @ n - d for pts in faces]
    if max(s.max() for s in svals) <= tol:
        return faces, origin                     # nothing to cut (also: a face on the plane)
    if min(s.min() for s in svals) >= -tol:
        return [], []                            # nothing left
    out_faces, out_origin, cap = [], [], []
    for pts, org, s in zip(faces, origin, svals):
        if np.all(s <= tol):
            out_faces.append(pts)
            out_origin.append(org)
            on = np.abs(s) <= tol
            if on.any():
                cap.append(pts[on])
            continue
        if np.all(s >= -tol):
            on = np.abs(s) <= tol
            if on.any():
                cap.append(pts[on])
            continue
        kept = []
        k = len(pts)
        for i in range(k):
            j = (i + 1) % k
            si, sj = s[i], s[j]
            if si <= tol:
                kept.append(pts[i])
                if si >= -tol:
                    cap.append(pts[i][None])
            if (si < -tol and sj > tol) or (si > tol and sj < -tol):
                p = pts[i] + (si / (si - sj)) * (pts[j] - pts[i])
                kept.append(p)
                cap.append(p[None])
        if len(kept) >= 3:
            out_faces.append(np.array(kept))
            out_origin.append(org)
    if cap:
        poly = _convex_polygon(np.concatenate(cap), n, tol)
        if poly is not None:
            out_faces.append(poly)
            out_origin.append(label)
    return out_faces, out_origin


def _convex_polygon(points: np.ndarray, n: np.ndarray, tol: float) -> np.ndarray | None:
    """Points on a plane with normal `n` → their convex hull polygon, counter-clockwise about
    n (or None when it has no area)."""
    poly = _convex_polygon_kernel(np.ascontiguousarray(points, dtype=np.float64),
                                  np.ascontiguousarray(n, dtype=np.float64), float(tol))
    return poly if len(poly) else None


def tangent_basis(n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """In-plane unit vectors (e1, e2) with (n, e1, e2) right-handed: e1 is world x projected
    onto the plane (world y when n is close to x), e2 = n × e1."""
    return _tangent_basis_kernel(np.ascontiguousarray(n, dtype=np.float64))


def _area_vectors(faces: list[np.ndarray]) -> np.ndarray:
    """Newell area vectors of many polygons at once (F, 3)."""
    pts = np.concatenate(faces)
    nxt = np.concatenate([np.concatenate([f[1:], f[:1]]) for f in faces])
    starts = np.cumsum([0] + [len(f) for f in faces[:-1]])
    return 0.5 * np.add.reduceat(cross3(pts, nxt), starts, axis=0)


def _finish(faces: list[np.ndarray], origin: list[int], scale: float) -> ContactVolume | None:
    if len(faces) < 4:
        return None
    av = _area_vectors(faces)
    areas = np.linalg.norm(av, axis=1)
    keep = areas > 1e-14 * scale * scale
    faces = [f for f, k in zip(faces, keep) if k]
    volume, centroid = polyhedron_volume_centroid(faces)
    if volume <= 1e-15 * scale ** 3 or len(faces) < 4:
        return None
    return ContactVolume(faces, np.asarray(origin)[keep], av[keep] / areas[keep, None],
                         areas[keep], volume, centroid)


def intersect(faces_a: list[np.ndarray], planes_b: tuple[np.ndarray, np.ndarray],
              scale: float) -> ContactVolume | None:
    """C = A ∩ B for convex A (face polygons, world frame) and convex B (half-spaces
    ``normals @ x <= offsets``). Faces kept from A are tagged 0, caps from B's planes 1.
    Returns None when the volume is empty or has no volume."""
    tol = 1e-12 * scale
    faces, origin = list(faces_a), [0] * len(faces_a)
    for n, d in zip(*planes_b):
        faces, origin = clip_faces(faces, origin, n, d, 1, tol)
        if len(faces) < 4:
            return None
    return _finish(faces, origin, scale)


def normal_from_faces(volume: ContactVolume, eps_v: float = EPS_V) -> np.ndarray:
    """n = norm(Σ_j sgn(P_j) S_j n_j), + for faces of A, − for faces of B (SPEC §7, eq. 1–2).
    Zero when the sum is not larger than ε_v."""
    sgn = np.where(volume.origin == 0, 1.0, -1.0)
    p = (sgn * volume.areas) @ volume.normals
    norm = np.linalg.norm(p)
    return p / norm if norm > eps_v else np.zeros(3)


def section_polygon(volume: ContactVolume, n: np.ndarray, point: np.ndarray,
                    tol: float) -> np.ndarray | None:
    """The polygon where the plane through `point` with normal `n` cuts C (CCW about n)."""
    pts = []
    for f in volume.faces:
        s = (f - point) @ n
        sn = next_rows(s)
        fn = next_rows(f)
        on = np.abs(s) <= tol
        if on.any():
            pts.append(f[on])
        cross = ((s < -tol) & (sn > tol)) | ((s > tol) & (sn < -tol))
        if cross.any():
            w = (s[cross] / (s[cross] - sn[cross]))[:, None]
            pts.append(f[cross] + w * (fn[cross] - f[cross]))
    if not pts:
        return None
    return _convex_polygon(np.concatenate(pts), n, tol)


def contact_geometry(volume: ContactVolume, scale: float, eps_v: float = EPS_V,
                     patch: str = "projection") -> ContactGeometry | None:
    """Normal (eq. 1–2), contact plane and section polygon, Q and c (eq. 8–9) of one
    contact volume, in closed form.

    Q = ∫_S J(p)ᵀ J(p) dA and c = ∫_S h(p) J(p) dA with J(p) = [1, −[(p − p_g)×]] (eq. 7, 9),
    the sums over plane points read as integrals over the section polygon S. The depth h(p) is
    the thickness of C along n through p, so c = ∫_{C'} J(proj x) dV over C' = C ∩ (S × ℝn),
    a polyhedron volume integral. Returns None when the normal vanishes (eq. 2).

    `patch` chooses S: ``"section"`` — the plane's section of C, as the paper's text reads;
    ``"projection"`` (default) — C projected along n onto the plane, i.e. every plane point
    with a positive depth h. The two agree for a flat contact; for a wedge (a slightly tilted
    face) the section is a strip of the footprint, which made a resting box rock (see
    docs/spatial.md).
    """
    n = normal_from_faces(volume, eps_v)
    if not np.any(n):
        return None
    tol = 1e-12 * scale
    pg = volume.centroid
    if patch == "section":
        poly = section_polygon(volume, n, pg, tol)
    else:
        pts = np.concatenate(volume.faces)
        pts = pts - np.outer((pts - pg) @ n, n)
        poly = _convex_polygon(pts, n, tol)
    if poly is None:
        return None
    return _plane_quantities(volume, n, pg, poly, patch, tol)


def _plane_quantities(volume: ContactVolume, n, pg, poly, patch, tol, vol_c=None, cen_c=None):
    """Q, c, Qn and the polygon data of ContactGeometry from the plane (n, p_g) and S."""
    if vol_c is not None:
        pass
    elif patch == "section":
        # C' = C clipped by the prism over S
        r = poly - pg
        r = r - np.outer(r @ n, n)
        m = cross3(next_rows(r) - r, n)
        m /= np.linalg.norm(m, axis=1)[:, None]
        offsets = np.einsum("ij,ij->i", m, r)
        faces, origin = list(volume.faces), list(volume.origin)
        for mj, dj in zip(m, offsets + m @ pg):
            faces, origin = clip_faces(faces, origin, mj, dj, 2, tol)
        vol_c, cen_c = polyhedron_volume_centroid(faces) if len(faces) >= 4 else (0.0, pg)
    else:
        vol_c, cen_c = volume.volume, pg
    e1, e2, poly, Q, c, Qn, m, offsets = _plane_kernel(n, pg, np.ascontiguousarray(poly),
                                                       float(vol_c), cen_c)
    return ContactGeometry(volume.volume, n, pg, e1, e2,
                           poly, Q, c, m, offsets, Qn)


def ground_contact_geometry(shape, verts: np.ndarray, height: float, scale: float,
                            patch: str = "projection") -> ContactGeometry | None:
    """The contact of a convex body (world vertices `verts`) with the ground z <= `height`,
    without building face polygons: C's volume and centroid from signed tetrahedra over the
    clipped face boundaries (every face edge inside, every cut segment, and the cap's edges),
    the normal of eq. 1 (+z: the cap is C's only face from the ground, and C is closed), and
    for ``patch="projection"`` the polygon as the hull of C's vertices. Equal to
    :func:`intersect` + :func:`contact_geometry` (tested); ``patch="section"`` falls back."""
    if patch != "projection":
        return None
    ei, ej, ef, fp = shape.edge_arrays()
    volume, pg, pts = _ground_kernel(np.ascontiguousarray(verts, dtype=np.float64), ei, ej,
                                     ef, fp, float(height), float(scale))
    if volume <= 0.0:
        return None
    n = np.array([0.0, 0.0, 1.0])
    # the hull from here, not inside _ground_kernel: a kernel carries a compiled copy of
    # every kernel it calls, and the hull kernel is compiled on its own anyway
    poly = _convex_polygon_kernel(pts, n, 1e-12 * float(scale))
    if len(poly) == 0:
        return None
    e1, e2, poly, Q, c, Qn, m, offsets = _plane_kernel(n, pg, poly, volume, pg)
    return ContactGeometry(volume, n, pg, e1, e2, poly, Q, c, m, offsets, Qn)


def pair_contact_geometry(verts_a: np.ndarray, shape_a, planes_a, verts_b: np.ndarray, shape_b,
                          planes_b, scale: float,
                          eps_v: float = EPS_V) -> ContactGeometry | None:
    """The contact of two convex bodies (world vertices and face planes ``(normals,
    offsets)``) for ``patch="projection"``, compiled: C's faces are A's faces clipped by B's
    planes and B's faces clipped by A's planes (a face of B lying in a face plane of A with
    the same outward normal is A's), the normal of eq. 1–2 from their area vectors, and the
    polygon as the hull of C's vertices projected onto the contact plane. Equal to
    :func:`intersect` + :func:`contact_geometry` (tested); None when the volume or the
    normal vanishes."""
    flat_a, ptr_a = shape_a.face_index_arrays()
    flat_b, ptr_b = shape_b.face_index_arrays()
    volume, pg, n, poly = _pair_kernel(verts_a, flat_a, ptr_a, planes_a[0], planes_a[1],
                                       verts_b, flat_b, ptr_b, planes_b[0], planes_b[1],
                                       float(scale), float(eps_v))
    if volume <= 0.0 or len(poly) == 0:
        return None
    e1, e2, poly, Q, c, Qn, m, offsets = _plane_kernel(n, pg, poly, volume, pg)
    return ContactGeometry(volume, n, pg, e1, e2, poly, Q, c, m, offsets, Qn)
