"""Contact volume of two convex polyhedra and the quantities SPEC §7 builds on it.

* :func:`intersect` — the intersection polytope C of A and B as face polygons, each tagged
  with the body it comes from (0 for A, 1 for B);
* :func:`contact_geometry` — the normal (eq. 1–2), the contact plane through C's centroid,
  its section polygon S, and Q, c of eq. 8–9 in closed form.

Everything is in the world frame, on the host: NumPy for the general polyhedron–polyhedron
clipping, and numba-compiled kernels for what every step of a simulation needs (the
body–ground contact volume, the contact polygon, Q and c) — the benchmark of SPEC §7 showed
the per-step cost spread over hundreds of small NumPy calls (DESIGN "Numerics": compiled code
when the benchmark says so).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from ._dense import cross, dot, matmul, matmul_nt, matvec
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
    n (or None when it has no area)."""
    poly = _convex_polygon_kernel(np.ascontiguousarray(points, dtype=np.float64),
                                  np.ascontiguousarray(n, dtype=np.float64), float(tol))
    return poly if len(poly) else None


@njit(cache=True)
def _tangent_basis_kernel(n):
    # scalar arithmetic: array expressions compile kernels of their own (compile time)
    a0, a1 = (1.0, 0.0) if abs(n[0]) < 0.9 else (0.0, 1.0)
    d = a0 * n[0] + a1 * n[1]
    e1 = np.empty(3)
    e1[0], e1[1], e1[2] = a0 - d * n[0], a1 - d * n[1], 0.0 - d * n[2]
    norm = np.sqrt(e1[0] ** 2 + e1[1] ** 2 + e1[2] ** 2)
    for j in range(3):
        e1[j] = e1[j] / norm
    e2 = np.empty(3)
    e2[0] = n[1] * e1[2] - n[2] * e1[1]
    e2[1] = n[2] * e1[0] - n[0] * e1[2]
    e2[2] = n[0] * e1[1] - n[1] * e1[0]
    return e1, e2


@njit(cache=True)
def _lex_order(u, v):
    """Indices sorting the points by (u, v), ties kept in input order (insertion sort: the
    point sets here are a few dozen)."""
    n = len(u)
    order = np.empty(n, dtype=np.int64)
    for i in range(n):                      # a loop, not np.arange (its own kernel)
        order[i] = i
    for i in range(1, n):
        k = order[i]
        j = i - 1
        while j >= 0 and (u[order[j]] > u[k] or (u[order[j]] == u[k] and v[order[j]] > v[k])):
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = k
    return order


@njit(cache=True)
def _hull_chain(order, u, v, tol):
    out = np.empty(len(order), dtype=np.int64)
    k = 0
    tol2 = tol * tol
    for i in order:
        if k > 0 and (u[i] - u[out[k - 1]]) ** 2 + (v[i] - v[out[k - 1]]) ** 2 <= tol2:
            continue
        while k >= 2:
            o, a = out[k - 2], out[k - 1]
            turn = (u[a] - u[o]) * (v[i] - v[o]) - (v[a] - v[o]) * (u[i] - u[o])
            if turn > tol2:
                break
            k -= 1
        out[k] = i
        k += 1
    return out[:k]


@njit(cache=True)
def _convex_polygon_kernel(points, n, tol):
    """Andrew's monotone chain on the in-plane coordinates (e1, e2) of `points`; an empty
    (0, 3) array when the hull has no area."""
    e1, e2 = _tangent_basis_kernel(n)
    u = matvec(points, e1)
    v = matvec(points, e2)
    order = _lex_order(u, v)
    lower = _hull_chain(order, u, v, tol)
    rev = np.empty_like(order)              # reversed, C order: one specialisation
    for i in range(len(order)):
        rev[i] = order[len(order) - 1 - i]
    upper = _hull_chain(rev, u, v, tol)
    nh = len(lower) + len(upper) - 2
    if nh < 3:
        return np.empty((0, 3))
    hull = np.empty(nh, dtype=np.int64)
    for i in range(len(lower) - 1):         # loops: slice copies compile numba's shape
        hull[i] = lower[i]                  # error messages (string code) into the kernel
    for i in range(len(upper) - 1):
        hull[len(lower) - 1 + i] = upper[i]
    area2 = 0.0
    o = hull[0]
    for k in range(1, nh - 1):
        a, b = hull[k], hull[k + 1]
        area2 += (u[a] - u[o]) * (v[b] - v[o]) - (v[a] - v[o]) * (u[b] - u[o])
    if area2 <= tol:
        return np.empty((0, 3))
    # drop vertices within 1000 tol of their predecessor (cyclically): the chain's own
    # check only sees neighbours in sort order, and a near-zero edge has no direction for
    # eq. 25's edge normal
    dup2 = (1000.0 * tol) ** 2
    keep = np.empty(nh, dtype=np.int64)
    nk = 0
    for i in hull:
        if nk == 0 or (u[i] - u[keep[nk - 1]]) ** 2 + (v[i] - v[keep[nk - 1]]) ** 2 > dup2:
            keep[nk] = i
            nk += 1
    while nk > 1 and (u[keep[nk - 1]] - u[keep[0]]) ** 2 + (v[keep[nk - 1]] - v[keep[0]]) ** 2 <= dup2:
        nk -= 1
    if nk < 3:
        return np.empty((0, 3))
    out = np.empty((nk, 3))             # a loop, not points[keep[:nk]] (fancy indexing)
    for i in range(nk):
        for j in range(3):
            out[i, j] = points[keep[i], j]
    return out


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


@njit(cache=True)
def polygon_moments(r: np.ndarray, n: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """Area, first moment ∫ r dA and second moment ∫ r rᵀ dA of a planar polygon whose
    vertices `r` (L, 3), counter-clockwise about the unit normal `n`, are given relative to
    the moment origin (closed form, triangle fan: ∫_T r rᵀ dA = A_T/12 (a aᵀ + b bᵀ + c cᵀ
    + s sᵀ), s = a + b + c). The signed triangle areas are taken along `n`, so repeated or
    collinear vertices only add triangles of zero area. (Taking the normal from the first
    triangle instead made a 0.01 m² polygon whose first two vertices coincided to 1e-17 m
    read 2e-5 m², and the contact force 10⁴ N.)"""
    a = r[0]
    area = 0.0
    m1 = np.zeros(3)
    m2 = np.zeros((3, 3))
    ba, ca, s = np.empty(3), np.empty(3), np.empty(3)
    for k in range(1, len(r) - 1):          # scalar loops: no array expressions (compile time)
        b, c = r[k], r[k + 1]
        for i in range(3):
            ba[i], ca[i], s[i] = b[i] - a[i], c[i] - a[i], a[i] + b[i] + c[i]
        at = 0.5 * dot(cross(ba, ca), n)
        area += at
        for i in range(3):
            m1[i] += at * s[i]
            for j in range(3):
                m2[i, j] += at * (a[i] * a[j] + b[i] * b[j] + c[i] * c[j] + s[i] * s[j])
    for i in range(3):
        m1[i] /= 3.0
        for j in range(3):
            m2[i, j] /= 12.0
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
    return ContactGeometry(volume if np.isscalar(volume) else volume.volume, n, pg, e1, e2,
                           poly, Q, c, m, offsets, Qn)


@njit(cache=True)
def _skew_kernel(x):
    out = np.zeros((3, 3))
    out[0, 1], out[0, 2] = -x[2], x[1]
    out[1, 0], out[1, 2] = x[2], -x[0]
    out[2, 0], out[2, 1] = -x[1], x[0]
    return out


@njit(cache=True)
def _plane_kernel(n, pg, poly, vol_c, cen_c):
    """The plane quantities of SPEC §7 eq. 8–9 and 24–25 for the plane (n, p_g), polygon S
    (`poly`, CCW about n) and the volume C' over S (`vol_c`, centroid `cen_c`):
    Q = ∫_S JᵀJ dA, c = ∫_S h J dA = [V′1, −[m′×]], Qn = ∫_S J_nᵀJ_n dA, S's in-plane edge
    normals and their distances from p_g (clamped at 0)."""
    e1, e2 = _tangent_basis_kernel(n)
    L = poly.shape[0]
    r = np.empty((L, 3))
    d = np.empty(3)
    for i in range(L):                      # scalar loops: no array expressions (compile time)
        for j in range(3):
            d[j] = poly[i, j] - pg[j]
        dn = dot(d, n)
        for j in range(3):
            r[i, j] = d[j] - dn * n[j]
    area, m1, m2 = polygon_moments(r, n)
    sk1 = _skew_kernel(m1)
    Q = np.zeros((6, 6))
    tr = m2[0, 0] + m2[1, 1] + m2[2, 2]
    for i in range(3):
        Q[i, i] = area
        for j in range(3):
            Q[i, 3 + j] = -sk1[i, j]
            Q[3 + i, j] = sk1[i, j]
            Q[3 + i, 3 + j] = -m2[i, j]
        Q[3 + i, 3 + i] += tr
    m = np.empty((L, 3))
    offsets = np.empty(L)
    edge = np.empty(3)
    for i in range(L):
        for j in range(3):
            edge[j] = r[(i + 1) % L, j] - r[i, j]
        mi = cross(edge, n)
        norm = np.sqrt(dot(mi, mi))
        for j in range(3):
            m[i, j] = mi[j] / norm
        offsets[i] = max(dot(m[i], r[i]), 0.0)
    mom = np.empty(3)                              # ∫ proj(x - p_g) dV
    for j in range(3):
        mom[j] = vol_c * (cen_c[j] - pg[j])
    mn = dot(mom, n)
    for j in range(3):
        mom[j] -= mn * n[j]
    c = np.zeros((3, 6))
    skm = _skew_kernel(mom)
    for i in range(3):
        c[i, i] = vol_c
        for j in range(3):
            c[i, 3 + j] = -skm[i, j]
    sn = _skew_kernel(n)
    rn = cross(m1, n)
    Qn = np.zeros((6, 6))
    m2n = matmul_nt(matmul(sn, m2), sn)
    for i in range(3):
        for j in range(3):
            Qn[i, j] = area * n[i] * n[j]
            Qn[i, 3 + j] = n[i] * rn[j]
            Qn[3 + j, i] = n[i] * rn[j]
            Qn[3 + i, 3 + j] = m2n[i, j]
    poly_out = np.empty((L, 3))
    for i in range(L):
        for j in range(3):
            poly_out[i, j] = pg[j] + r[i, j]
    return e1, e2, poly_out, Q, c, Qn, m, offsets


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


@njit(cache=True)
def _tet(o, a, b, c, acc):
    """Add the signed volume of the tetrahedron (o, a, b, c) and its first moment about o
    (times 4) to acc[0], acc[1:4]."""
    ca, aa, ba = np.empty(3), np.empty(3), np.empty(3)
    for j in range(3):
        ca[j], aa[j], ba[j] = c[j] - o[j], a[j] - o[j], b[j] - o[j]
    v = dot(ca, cross(aa, ba)) / 6.0
    acc[0] += v
    for j in range(3):
        acc[1 + j] += v * (ca[j] + aa[j] + ba[j])


@njit(cache=True)
def _ground_kernel(verts, ei, ej, ef, fp, height, scale):
    """Volume and centroid of a body (world vertices) cut by the ground z <= height, and the
    points whose hull is the projected polygon (C's vertices on the plane z = p_g's); volume
    0 when they do not overlap (see ground_contact_geometry)."""
    ne, nf = len(ei), len(fp)
    # scalar loops throughout: each NumPy array expression in a kernel is compiled as its own
    # subroutine (and slice copies pull in numba's shape-error string code)
    s = np.empty(verts.shape[0])
    for i in range(verts.shape[0]):
        s[i] = verts[i, 2] - height
    x = np.zeros((ne, 3))
    x_leave = np.zeros((nf, 3))
    x_enter = np.zeros((nf, 3))
    cut = np.zeros(nf, dtype=np.bool_)
    cap = np.zeros(3)
    n_cross = 0
    for e in range(ne):
        si, sj = s[ei[e]], s[ej[e]]
        if (si <= 0) != (sj <= 0):
            r = si / (si - sj)
            f = ef[e]
            for j in range(3):
                xj = verts[ei[e], j] + r * (verts[ej[e], j] - verts[ei[e], j])
                x[e, j] = xj
                cap[j] += xj
                if si <= 0:
                    x_leave[f, j] = xj
                else:
                    x_enter[f, j] = xj
            n_cross += 1
            if si <= 0:
                cut[f] = True
    if n_cross == 0:
        return 0.0, np.zeros(3), np.empty((0, 3))
    o = np.empty(3)
    for j in range(3):
        o[j] = cap[j] / n_cross
    acc = np.zeros(4)
    for e in range(ne):
        si, sj = s[ei[e]], s[ej[e]]
        c = verts[fp[ef[e]]]
        if si <= 0 and sj <= 0:
            _tet(o, verts[ei[e]], verts[ej[e]], c, acc)
        elif si <= 0:
            _tet(o, verts[ei[e]], x[e], c, acc)
        elif sj <= 0:
            _tet(o, x[e], verts[ej[e]], c, acc)
    for f in range(nf):
        if cut[f]:          # the cut segment closes face f; its cap triangle has zero volume
            _tet(o, x_leave[f], x_enter[f], verts[fp[f]], acc)
    volume = acc[0]
    if volume <= 1e-15 * scale ** 3:
        return 0.0, np.zeros(3), np.empty((0, 3))
    pg = np.empty(3)
    for j in range(3):
        pg[j] = o[j] + acc[1 + j] / (4.0 * volume)
    n_in = 0
    for i in range(len(s)):
        if s[i] <= 0:
            n_in += 1
    pts = np.empty((n_in + n_cross, 3))
    k = 0
    for i in range(len(s)):
        if s[i] <= 0:
            pts[k, 0], pts[k, 1], pts[k, 2] = verts[i, 0], verts[i, 1], pg[2]
            k += 1
    for e in range(ne):
        if (s[ei[e]] <= 0) != (s[ej[e]] <= 0):
            pts[k, 0], pts[k, 1], pts[k, 2] = x[e, 0], x[e, 1], pg[2]
            k += 1
    return volume, pg, pts


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


@njit(cache=True)
def _clip_polygon(poly, normals, offsets, tol):
    """A convex polygon (k, 3) clipped by the half-spaces ``normals @ x <= offsets`` in turn
    (Sutherland–Hodgman; a polygon lying in a plane is kept); (0, 3) when nothing is left."""
    cur = poly
    for p in range(len(offsets)):
        k = cur.shape[0]
        s = matvec(cur, normals[p])          # scalar loops below: array expressions and
        smax, smin = -np.inf, np.inf        # slice copies cost compile time
        for i in range(k):
            s[i] -= offsets[p]
            smax, smin = max(smax, s[i]), min(smin, s[i])
        if smax <= tol:
            continue
        if smin >= -tol:
            return np.empty((0, 3))
        out = np.empty((2 * k, 3))
        nk = 0
        for i in range(k):
            j = (i + 1) % k
            if s[i] <= tol:
                for c in range(3):
                    out[nk, c] = cur[i, c]
                nk += 1
            if (s[i] < -tol and s[j] > tol) or (s[i] > tol and s[j] < -tol):
                r = s[i] / (s[i] - s[j])
                for c in range(3):
                    out[nk, c] = cur[i, c] + r * (cur[j, c] - cur[i, c])
                nk += 1
        if nk < 3:
            return np.empty((0, 3))
        cur = np.empty((nk, 3))
        for i in range(nk):
            for c in range(3):
                cur[i, c] = out[i, c]
    return cur


@njit(cache=True)
def _pair_kernel(va, flat_a, ptr_a, na, da, vb, flat_b, ptr_b, nb, db, scale, eps_v):
    """Volume, centroid, normal (eq. 1–2) and projected polygon of A ∩ B; volume 0 when
    empty or without a normal."""
    tol = 1e-12 * scale
    fa, fb = len(ptr_a) - 1, len(ptr_b) - 1
    polys = []
    signs = []
    for side in range(2):
        verts, flat, ptr = (va, flat_a, ptr_a) if side == 0 else (vb, flat_b, ptr_b)
        own_n, own_d = (na, da) if side == 0 else (nb, db)
        other_n, other_d = (nb, db) if side == 0 else (na, da)
        for f in range(fa if side == 0 else fb):
            if side == 1:
                shared = False
                for g in range(fa):
                    if (dot(na[g], own_n[f]) > 1.0 - 1e-12
                            and abs(da[g] - own_d[f]) <= tol):
                        shared = True
                if shared:
                    continue
            nv = ptr[f + 1] - ptr[f]
            poly = np.empty((nv, 3))
            for i in range(nv):
                for c in range(3):
                    poly[i, c] = verts[flat[ptr[f] + i], c]
            clipped = _clip_polygon(poly, other_n, other_d, tol)
            if clipped.shape[0] >= 3:
                polys.append(clipped)
                signs.append(1.0 if side == 0 else -1.0)
    empty = (0.0, np.zeros(3), np.zeros(3), np.empty((0, 3)))
    if len(polys) < 4:
        return empty
    n_pts = 0
    for poly in polys:
        n_pts += poly.shape[0]
    o = np.zeros(3)
    for poly in polys:
        for i in range(poly.shape[0]):
            for c in range(3):
                o[c] += poly[i, c]
    for c in range(3):
        o[c] /= n_pts
    acc = np.zeros(4)
    p = np.zeros(3)
    n_faces = 0
    for poly, sgn in zip(polys, signs):
        av = np.zeros(3)
        for i in range(poly.shape[0]):
            cr = cross(poly[i], poly[(i + 1) % poly.shape[0]])
            for c in range(3):
                av[c] += 0.5 * cr[c]
        if np.sqrt(dot(av, av)) <= 1e-14 * scale * scale:
            continue
        n_faces += 1
        for c in range(3):
            p[c] += sgn * av[c]
        for i in range(1, poly.shape[0] - 1):
            _tet(o, poly[0], poly[i], poly[i + 1], acc)
    volume = acc[0]
    if n_faces < 4 or volume <= 1e-15 * scale ** 3:
        return empty
    norm = np.sqrt(dot(p, p))
    if norm <= eps_v:
        return empty
    n = np.empty(3)
    pg = np.empty(3)
    for c in range(3):
        n[c] = p[c] / norm
        pg[c] = o[c] + acc[1 + c] / (4.0 * volume)
    pts = np.empty((n_pts, 3))
    k = 0
    for poly in polys:
        for i in range(poly.shape[0]):
            h = 0.0
            for c in range(3):
                h += (poly[i, c] - pg[c]) * n[c]
            for c in range(3):
                pts[k, c] = poly[i, c] - h * n[c]
            k += 1
    return volume, pg, n, _convex_polygon_kernel(pts, n, tol)
