"""Contact volume of two convex polyhedra and the quantities SPEC §7 builds on it.

* :func:`intersect` — the intersection polytope C of A and B as face polygons, each tagged
  with the body it comes from (0 for A, 1 for B);
* :func:`contact_geometry` — the normal (eq. 1–2), the contact plane through C's centroid,
  its section polygon S, and Q, c of eq. 8–9 in closed form.

Everything is in the world frame and in NumPy (host side): the contact force is a QP/LP per
step (SPEC §7, DESIGN "Numerics").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._shapes import cross3, next_rows, polyhedron_volume_centroid

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
    edge_offsets: np.ndarray  # (L,) distances of S's edges from p_ig [m] (>= 0)
    Qn: np.ndarray = None     # (6, 6) [m^2], ∫ J_nᵀ J_n dA with J_n = nᵀ J (normal part of Q)

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
    n (or None when it has no area). Andrew's monotone chain on the in-plane coordinates."""
    e1, e2 = tangent_basis(n)
    u = (points @ e1).tolist()
    v = (points @ e2).tolist()
    order = sorted(range(len(u)), key=lambda i: (u[i], v[i]))
    tol2 = tol * tol

    def turn(o, a, b):
        return (u[a] - u[o]) * (v[b] - v[o]) - (v[a] - v[o]) * (u[b] - u[o])

    def chain(idx):
        out: list[int] = []
        for i in idx:
            if out and (u[i] - u[out[-1]]) ** 2 + (v[i] - v[out[-1]]) ** 2 <= tol2:
                continue
            while len(out) >= 2 and turn(out[-2], out[-1], i) <= tol * tol:
                out.pop()
            out.append(i)
        return out

    lower, upper = chain(order), chain(order[::-1])
    hull = lower[:-1] + upper[:-1]
    if len(hull) < 3:
        return None
    area2 = sum(turn(hull[0], hull[k], hull[k + 1]) for k in range(1, len(hull) - 1))
    if area2 <= tol:
        return None
    return points[hull]


def tangent_basis(n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """In-plane unit vectors (e1, e2) with (n, e1, e2) right-handed: e1 is world x projected
    onto the plane (world y when n is close to x), e2 = n × e1."""
    ref = np.array([1.0, 0.0, 0.0]) if abs(n[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    e1 = ref - (ref @ n) * n
    e1 /= np.linalg.norm(e1)
    return e1, cross3(n, e1)


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


def polygon_moments(r: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """Area, first moment ∫ r dA and second moment ∫ r rᵀ dA of a planar polygon whose
    vertices `r` (L, 3) are given relative to the moment origin (closed form, triangle fan)."""
    a = r[0]
    b, c = r[1:-1], r[2:]
    cr = cross3(b - a, c - a)
    nrm = cross3(r[1] - r[0], r[2] - r[0])
    nrm = nrm / np.linalg.norm(nrm)
    area_t = 0.5 * cr @ nrm
    s = a + b + c
    area = float(area_t.sum())
    m1 = (area_t[:, None] * s).sum(axis=0) / 3.0
    m2 = (np.einsum("t,ti,tj->ij", area_t, b, b) + np.einsum("t,ti,tj->ij", area_t, c, c)
          + area_t.sum() * np.outer(a, a) + np.einsum("t,ti,tj->ij", area_t, s, s)) / 12.0
    return area, m1, m2


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


def _plane_quantities(volume, n, pg, poly, patch, tol, vol_c=None, cen_c=None):
    """Q, c, Qn and the polygon data of ContactGeometry from the plane (n, p_g) and S."""
    e1, e2 = tangent_basis(n)
    r = poly - pg
    r = r - np.outer(r @ n, n)
    poly = pg + r
    area, m1, m2 = polygon_moments(r)
    sk1 = skew(m1)
    Q = np.empty((6, 6))
    Q[:3, :3] = 0.0
    Q[0, 0] = Q[1, 1] = Q[2, 2] = area
    Q[:3, 3:] = -sk1
    Q[3:, :3] = sk1
    Q[3:, 3:] = -m2
    tr = m2[0, 0] + m2[1, 1] + m2[2, 2]
    Q[3, 3] += tr
    Q[4, 4] += tr
    Q[5, 5] += tr
    # edges of S: in-plane outward normals and their distances from p_g
    edges = next_rows(r) - r
    m = cross3(edges, n)
    m /= np.linalg.norm(m, axis=1)[:, None]
    offsets = np.einsum("ij,ij->i", m, r)
    # C' = C clipped by the prism over S (C itself for the projection)
    if vol_c is not None:
        pass
    elif patch == "section":
        faces, origin = list(volume.faces), list(volume.origin)
        for mj, dj in zip(m, offsets + m @ pg):
            faces, origin = clip_faces(faces, origin, mj, dj, 2, tol)
        vol_c, cen_c = polyhedron_volume_centroid(faces) if len(faces) >= 4 else (0.0, pg)
    else:
        vol_c, cen_c = volume.volume, pg
    mom = vol_c * (cen_c - pg)
    mom = mom - (mom @ n) * n                     # ∫ proj(x - p_g) dV
    c = np.zeros((3, 6))
    c[0, 0] = c[1, 1] = c[2, 2] = vol_c
    c[:, 3:] = -skew(mom)
    sn = skew(n)
    # Qn = ∫ J_nᵀ J_n dA with J_n = [nᵀ, (r × n)ᵀ]
    rn = cross3(m1, n)
    Qn = np.empty((6, 6))
    Qn[:3, :3] = area * np.outer(n, n)
    Qn[:3, 3:] = np.outer(n, rn)
    Qn[3:, :3] = Qn[:3, 3:].T
    Qn[3:, 3:] = sn @ m2 @ sn.T
    return ContactGeometry(volume if np.isscalar(volume) else volume.volume, n, pg, e1, e2,
                           poly, Q, c, m, np.maximum(offsets, 0.0), Qn)


def ground_contact_geometry(shape, verts: np.ndarray, height: float, scale: float,
                            patch: str = "projection") -> ContactGeometry | None:
    """The contact of a convex body (world vertices `verts`) with the ground z <= `height`,
    without building face polygons: C's volume and centroid from signed tetrahedra over the
    clipped face boundaries (every face edge inside, every cut segment, and the cap's edges),
    the normal of eq. 1 (+z: the cap is C's only face from the ground, and C is closed), and
    for ``patch="projection"`` the polygon as the hull of C's vertices. Equal to
    :func:`intersect` + :func:`contact_geometry` (tested); ``patch="section"`` falls back."""
    ei, ej, ef, fp = shape.edge_arrays()
    s = verts[:, 2] - height
    si, sj = s[ei], s[ej]
    pi, pj = verts[ei], verts[ej]
    inside_i, inside_j = si <= 0, sj <= 0
    cross = inside_i != inside_j
    if not cross.any():
        return None
    w = np.where(cross, si / np.where(cross, si - sj, 1.0), 0.0)[:, None]
    x = pi + w * (pj - pi)
    both = inside_i & inside_j
    leave = inside_i & ~inside_j
    enter = ~inside_i & inside_j
    nf = len(fp)
    x_leave = np.zeros((nf, 3))
    x_enter = np.zeros((nf, 3))
    x_leave[ef[leave]] = x[leave]
    x_enter[ef[enter]] = x[enter]
    cut = np.zeros(nf, dtype=bool)
    cut[ef[leave]] = True
    cap_point = x[cross].mean(axis=0)
    face_pts = verts[fp]
    a = np.concatenate([pi[both], pi[leave], x[enter], x_leave[cut], x_enter[cut]])
    b = np.concatenate([pj[both], x[leave], pj[enter], x_enter[cut], x_leave[cut]])
    c = np.concatenate([face_pts[ef[both]], face_pts[ef[leave]], face_pts[ef[enter]],
                        face_pts[cut], np.broadcast_to(cap_point, (int(cut.sum()), 3))])
    o = cap_point
    ca, aa, ba = c - o, a - o, b - o
    vol = np.einsum("ij,ij->i", ca, cross3(aa, ba)) / 6.0
    volume = float(vol.sum())
    if volume <= 1e-15 * scale ** 3:
        return None
    pg = o + (vol[:, None] * (ca + aa + ba)).sum(axis=0) / (4.0 * volume)
    n = np.array([0.0, 0.0, 1.0])
    if patch != "projection":
        return None
    pts = np.concatenate([verts[s <= 0], x[cross]])
    pts[:, 2] = pg[2]
    tol = 1e-12 * scale
    poly = _convex_polygon(pts, n, tol)
    if poly is None:
        return None
    return _plane_quantities(volume, n, pg, poly, patch, tol, vol_c=volume, cen_c=pg)
