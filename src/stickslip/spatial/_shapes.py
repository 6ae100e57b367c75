"""Convex polyhedra attached to bodies: `Box`, `Prism`, `ConvexHull`, `Polyhedron` (SPEC §7).

A polyhedron is stored in its body frame as vertices and faces (vertex indices ordered
counter-clockwise seen from outside) with outward unit normals ``normals`` and offsets
``offsets`` so that the solid is ``{x : normals @ x <= offsets}``.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ..errors import ParameterError

__all__ = ["Polyhedron", "Box", "Prism", "ConvexHull", "Sphere"]


class Polyhedron:
    """A convex polyhedron in its body frame [m].

    Parameters
    ----------
    vertices
        (N, 3) vertex coordinates [m].
    faces
        one sequence of vertex indices per face, counter-clockwise seen from outside.

    Raises
    ------
    ParameterError
        When the polyhedron is degenerate (zero volume, a face of zero area) or not convex
        (a vertex lies outside a face plane, or a face is not planar).
    """

    size: tuple[float, float, float]   # edge lengths [m], set on boxes only (see `Box`)

    def __init__(self, vertices, faces: Sequence[Sequence[int]], *, name: str = "Polyhedron"):
        v = np.asarray(vertices, dtype=float)
        if v.ndim != 2 or v.shape[1] != 3 or v.shape[0] < 4:
            raise ParameterError(f"`{name}.vertices` must be an (N, 3) array with N >= 4; got "
                                 f"shape {v.shape}. Pass at least four 3-D points.")
        if not np.all(np.isfinite(v)):
            raise ParameterError(f"`{name}.vertices` must be finite. Remove NaN/inf entries.")
        self.name = name
        self.vertices = v
        try:
            self.faces = tuple(np.asarray(f, dtype=int).reshape(-1) for f in faces)
        except (TypeError, ValueError):
            raise ParameterError(f"`{name}.faces` must be sequences of vertex indices; got "
                                 f"{faces!r}.") from None
        for j, f in enumerate(self.faces):
            if len(f) and (f.min() < 0 or f.max() >= len(v)):
                raise ParameterError(f"`{name}` face {j} refers to vertex {int(f.max())} but "
                                     f"there are {len(v)} vertices. Use indices 0..{len(v) - 1}.")
        scale = float(np.max(np.ptp(v, axis=0)))
        if scale <= 0:
            raise ParameterError(f"`{name}` is degenerate: all vertices coincide. "
                                 "Give the shape a positive size.")
        tol = 1e-9 * scale
        normals, offsets = [], []
        for j, f in enumerate(self.faces):
            if len(f) < 3:
                raise ParameterError(f"`{name}` face {j} has {len(f)} vertices; a face needs at "
                                     "least 3.")
            area_vec = _area_vector(v[f])
            area = np.linalg.norm(area_vec)
            if area <= tol * scale:
                raise ParameterError(f"`{name}` is degenerate: face {j} has area {area:.3g} m^2. "
                                     "Remove repeated or collinear vertices.")
            n = area_vec / area
            d = float(n @ v[f].mean(axis=0))
            if np.max(np.abs(v[f] @ n - d)) > tol:
                raise ParameterError(f"`{name}` face {j} is not planar. Split it into planar "
                                     "faces or build the shape with `ConvexHull(points)`.")
            if np.max(v @ n - d) > tol:
                raise ParameterError(
                    f"`{name}` is not convex: a vertex lies {np.max(v @ n - d):.3g} m outside the "
                    f"plane of face {j}. stickslip.spatial handles convex polyhedra only; split "
                    "the shape into convex parts or use `ConvexHull(points)`.")
            normals.append(n)
            offsets.append(d)
        _check_closed(name, self.faces)
        self.normals = np.array(normals)
        self.offsets = np.array(offsets)
        self.volume, self.centroid = polyhedron_volume_centroid([v[f] for f in self.faces])
        if self.volume <= 1e-12 * scale ** 3:
            raise ParameterError(f"`{name}` is degenerate: its volume is {self.volume:.3g} m^3 "
                                 "(are the faces oriented counter-clockwise seen from outside?).")
        self.radius = float(np.max(np.linalg.norm(v, axis=1)))
        # the thinnest extent over the face normals [m] (the tunnelling check's yardstick)
        proj = v @ self.normals.T
        self.min_width = float(np.min(proj.max(axis=0) - proj.min(axis=0)))

    def inertia(self, mass: float) -> np.ndarray:
        """Inertia tensor [kg m^2] about the body-frame origin for a uniform density."""
        rho = mass / self.volume
        second = np.zeros((3, 3))
        o = self.centroid
        for f in self.faces:
            p = self.vertices[f]
            for i in range(1, len(f) - 1):
                a, b, c = p[0] - o, p[i] - o, p[i + 1] - o
                vol = np.dot(a, cross3(b, c)) / 6.0
                s = a + b + c
                # ∫ x xᵀ over the tetrahedron (o, a, b, c)
                second += vol / 20.0 * (np.outer(a, a) + np.outer(b, b) + np.outer(c, c)
                                        + np.outer(s, s))
        shift = o
        second = second + self.volume * (np.outer(shift, shift))
        cov = rho * second
        return np.trace(cov) * np.eye(3) - cov

    def edge_arrays(self):
        """Face edges as index arrays: (start vertex, end vertex, face) per directed edge, and
        one vertex index per face (cached)."""
        if getattr(self, "_edge_arrays", None) is None:
            ei = np.concatenate(self.faces)
            ej = np.concatenate([np.roll(f, -1) for f in self.faces])
            ef = np.repeat(np.arange(len(self.faces)), [len(f) for f in self.faces])
            fp = np.array([f[0] for f in self.faces])
            self._edge_arrays = (ei, ej, ef, fp)
        return self._edge_arrays

    def face_index_arrays(self):
        """The faces as one flat vertex-index array and offsets into it (face j is
        ``flat[ptr[j]:ptr[j + 1]]``), cached; the layout the compiled contact kernels take."""
        if getattr(self, "_face_index_arrays", None) is None:
            flat = np.concatenate(self.faces).astype(np.int64)
            ptr = np.concatenate([[0], np.cumsum([len(f) for f in self.faces])]).astype(np.int64)
            self._face_index_arrays = (flat, ptr)
        return self._face_index_arrays

    def __repr__(self) -> str:
        return f"{self.name}({len(self.vertices)} vertices, {len(self.faces)} faces)"


def _check_closed(name: str, faces) -> None:
    """Raise `ParameterError` unless the faces close the surface: every directed edge (i, j)
    of a face is met exactly once, reversed as (j, i), by another face (a closed, consistently
    oriented surface). An open surface (a cube missing a face) otherwise passes the convexity
    checks and gets a wrong volume from the divergence theorem."""
    edges: dict[tuple[int, int], int] = {}
    for j, f in enumerate(faces):
        for a, b in zip(f.tolist(), np.roll(f, -1).tolist()):
            if (a, b) in edges:
                raise ParameterError(
                    f"`{name}` edge ({a}, {b}) is used in the same direction by faces "
                    f"{edges[(a, b)]} and {j}: the faces are not consistently oriented or a "
                    "face is repeated. Order every face counter-clockwise seen from outside.")
            edges[(a, b)] = j
    open_edges = [e for e in edges if (e[1], e[0]) not in edges]
    if open_edges:
        a, b = open_edges[0]
        raise ParameterError(
            f"`{name}` is not closed: edge ({a}, {b}) of face {edges[(a, b)]} has no "
            f"neighbouring face ({len(open_edges)} open edges). Add the missing faces or build "
            "the shape with `ConvexHull(points)`.")


def Box(lx: float, ly: float, lz: float) -> Polyhedron:
    """An axis-aligned box centred on the body origin, side lengths lx, ly, lz [m]."""
    for nm, val in (("lx", lx), ("ly", ly), ("lz", lz)):
        if not (np.isfinite(val) and val > 0):
            raise ParameterError(f"`Box.{nm}` must be > 0; got {nm}={val!r}. Pass a positive "
                                 "side length in metres.")
    hx, hy, hz = lx / 2, ly / 2, lz / 2
    v = np.array([[-hx, -hy, -hz], [hx, -hy, -hz], [hx, hy, -hz], [-hx, hy, -hz],
                  [-hx, -hy, hz], [hx, -hy, hz], [hx, hy, hz], [-hx, hy, hz]])
    faces = [[0, 3, 2, 1], [4, 5, 6, 7], [0, 1, 5, 4], [2, 3, 7, 6], [1, 2, 6, 5],
             [0, 4, 7, 3]]
    box = Polyhedron(v, faces, name="Box")
    box.size = (float(lx), float(ly), float(lz))
    return box


class Sphere:
    """A sphere of `radius` [m] centred on the body origin. It touches through point
    contacts (the link-system route: ground, spheres and boxes); the volume method (SPEC §7)
    needs polyhedra."""

    def __init__(self, radius: float):
        if isinstance(radius, (str, bytes, bool)) or not (np.ndim(radius) == 0 and
                                                          np.isfinite(radius) and radius > 0):
            raise ParameterError(f"`Sphere.radius` must be a number > 0 [m]; got "
                                 f"{radius!r}.")
        self.radius = float(radius)
        self.centroid = np.zeros(3)
        self.volume = 4.0 / 3.0 * np.pi * self.radius ** 3

    def inertia(self, mass: float) -> np.ndarray:
        """Inertia tensor [kg m^2] of a uniform solid sphere of `mass` [kg]: 2/5 m r²."""
        return np.eye(3) * 0.4 * mass * self.radius ** 2

    def __repr__(self) -> str:
        return f"Sphere(radius={self.radius!r})"


def Prism(polygon, height: float) -> Polyhedron:
    """A right prism: the convex (x, y) `polygon` [m] (counter-clockwise) extruded over
    ``z ∈ [-height/2, height/2]``."""
    poly = np.asarray(polygon, dtype=float)
    if poly.ndim != 2 or poly.shape[1] != 2 or len(poly) < 3:
        raise ParameterError(f"`Prism.polygon` must be an (K, 2) array with K >= 3; got shape "
                             f"{poly.shape}.")
    if not (np.isfinite(height) and height > 0):
        raise ParameterError(f"`Prism.height` must be > 0; got height={height!r}.")
    k = len(poly)
    d = np.diff(np.vstack([poly, poly[:2]]), axis=0)
    cross = [float(d[i, 0] * d[i + 1, 1] - d[i, 1] * d[i + 1, 0]) for i in range(k)]
    if min(cross) < 0 < max(cross) or max(cross) <= 0:
        raise ParameterError("`Prism.polygon` must be convex and counter-clockwise; got turns "
                             f"{np.round(cross, 6).tolist()}. Reorder the points or split the "
                             "shape into convex parts.")
    h = height / 2
    v = np.vstack([np.column_stack([poly, -h * np.ones(k)]),
                   np.column_stack([poly, h * np.ones(k)])])
    faces = [list(range(k - 1, -1, -1)), list(range(k, 2 * k))]
    faces += [[i, (i + 1) % k, k + (i + 1) % k, k + i] for i in range(k)]
    return Polyhedron(v, faces, name="Prism")


def ConvexHull(points) -> Polyhedron:
    """The convex hull of `points` (N, 3) [m]; coplanar hull triangles are merged into faces."""
    from scipy.spatial import ConvexHull as _Hull
    from scipy.spatial import QhullError

    pts = np.asarray(points, dtype=float)
    if pts.ndim != 2 or pts.shape[1] != 3 or len(pts) < 4:
        raise ParameterError(f"`ConvexHull.points` must be an (N, 3) array with N >= 4; got "
                             f"shape {pts.shape}.")
    try:
        hull = _Hull(pts)
    except QhullError as exc:
        raise ParameterError("`ConvexHull.points` are degenerate (coplanar or coincident): "
                             f"qhull says {str(exc).splitlines()[0]!r}. Give points that span "
                             "a volume.") from None
    verts = pts[hull.vertices]
    remap = {int(old): i for i, old in enumerate(hull.vertices)}
    scale = float(np.max(np.ptp(verts, axis=0)))
    groups: dict[int, list[int]] = {}
    keys: list[np.ndarray] = []
    for s, eq in enumerate(hull.equations):
        for g, key in enumerate(keys):
            if np.allclose(key, eq, atol=1e-9 * max(scale, 1.0)):
                groups[g].append(s)
                break
        else:
            keys.append(eq)
            groups[len(keys) - 1] = [s]
    faces = []
    for g, simplices in groups.items():
        n = keys[g][:3]
        idx = sorted({remap[int(i)] for s in simplices for i in hull.simplices[s]})
        p = verts[idx]
        c = p.mean(axis=0)
        e1 = p[0] - c
        e1 /= np.linalg.norm(e1)
        e2 = np.cross(n, e1)
        ang = np.arctan2((p - c) @ e2, (p - c) @ e1)
        faces.append([idx[i] for i in np.argsort(ang)])
    return Polyhedron(verts, faces, name="ConvexHull")


# --- polygon and polyhedron integrals ------------------------------------------------------

def cross3(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a × b over the last axis (3); much cheaper than ``np.cross`` for small arrays."""
    if a.ndim == 1 and b.ndim == 1:
        a0, a1, a2 = a.tolist()
        b0, b1, b2 = b.tolist()
        return np.array([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0])
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    out = np.empty(a.shape if a.shape == b.shape else np.broadcast_shapes(a.shape, b.shape))
    out[..., 0] = a1 * b2 - a2 * b1
    out[..., 1] = a2 * b0 - a0 * b2
    out[..., 2] = a0 * b1 - a1 * b0
    return out


def next_rows(p: np.ndarray) -> np.ndarray:
    """The rows of `p` shifted by one, cyclically (``np.roll(p, -1, axis=0)``)."""
    return np.concatenate([p[1:], p[:1]])


def _area_vector(p: np.ndarray) -> np.ndarray:
    """Newell's area vector ½ Σ p_i × p_{i+1} of a planar polygon (normal × area)."""
    return 0.5 * cross3(p, next_rows(p)).sum(axis=0)


def polyhedron_volume_centroid(face_points: list[np.ndarray]) -> tuple[float, np.ndarray]:
    """Volume [m^3] and centroid [m] of a closed polyhedron given as face polygons
    (counter-clockwise seen from outside), by a fan of tetrahedra."""
    faces = [p for p in face_points if len(p) >= 3]
    if not faces:
        return 0.0, np.zeros(3)
    counts = [len(p) - 2 for p in faces]
    first = np.repeat(np.array([p[0] for p in faces]), counts, axis=0)
    mid = np.concatenate([p[1:-1] for p in faces])
    last = np.concatenate([p[2:] for p in faces])
    o = first.mean(axis=0)
    a, b, c = first - o, mid - o, last - o
    vol = np.einsum("ij,ij->i", a, cross3(b, c)) / 6.0
    volume = float(vol.sum())
    if volume <= 0:
        return volume, o
    centroid = o + (vol[:, None] * (a + b + c)).sum(axis=0) / (4.0 * volume)
    return volume, centroid
