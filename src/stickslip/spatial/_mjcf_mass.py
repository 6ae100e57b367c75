"""Mass and inertia from MJCF geoms and <inertial>s, and each geom's collision shape: the
geom layer of the MJCF reader (see `_mjcf`)."""

from __future__ import annotations

import math

import numpy as np

from ._mjcf_attrs import _AttrReader, _Frame, _Geom
from ._mjcf_rotations import _quat_matrix, _z_to
from ._mjcf_rules import _GEOM_DEFAULTS, _ORIENT
from ._mjcf_scene import MjcfShape


class _QhullError(Exception):
    """Degenerate mesh vertices (raised in place of scipy's QhullError)."""


def _hull_volume_inertia(points):
    """Volume [m^3], centroid [m] and inertia per unit density about the centroid [m^5] of
    the convex hull of `points`, by a fan of tetrahedra over the hull's triangles."""
    from scipy.spatial import ConvexHull as _Hull

    from scipy.spatial import QhullError

    try:
        hull = _Hull(points)
    except QhullError as exc:
        raise _QhullError(str(exc)) from None
    c0 = points[hull.vertices].mean(axis=0)
    vol = 0.0
    first = np.zeros(3)
    second = np.zeros((3, 3))
    for simplex, eq in zip(hull.simplices, hull.equations):
        a, b, c = points[simplex] - c0
        v = float(np.dot(a, np.cross(b, c))) / 6.0
        if np.dot(np.cross(b - a, c - a), eq[:3]) < 0:    # orient outward
            v = -v
        s = a + b + c
        vol += v
        first += v * s / 4.0
        second += v / 20.0 * (np.outer(a, a) + np.outer(b, b) + np.outer(c, c) + np.outer(s, s))
    centroid_rel = first / vol
    second_c = second - vol * np.outer(centroid_rel, centroid_rel)
    inertia = np.trace(second_c) * np.eye(3) - second_c
    return vol, c0 + centroid_rel, inertia


class _GeomReader(_AttrReader):
    """Geoms, posed in their body's frame, and a body's mass properties and shape."""

    # -- geoms and mass
    def read_geom(self, el, cls, rel: _Frame) -> _Geom | None:
        """A geom, posed in its body's frame (`rel`: the frame it is written in, relative to
        the body; for the world body, the world); None (counted) when it cannot be read."""
        g = self._read_geom(el, cls, rel)
        if g is None:
            self.geom_failures += 1
        return g

    def _read_geom(self, el, cls, rel: _Frame) -> _Geom | None:
        a = {**_GEOM_DEFAULTS, **self.attrs(el, cls, slot="geom")}
        kind = a["type"]
        name = a.get("name") or f"geom at line {self.lines.get(el)}"
        if kind in ("hfield", "sdf"):
            self.problem(el, f"type=\"{kind}\" is not supported. Use a plane, box, sphere "
                             "or convex mesh.")
            return None
        if kind not in ("plane", "box", "sphere", "capsule", "cylinder", "ellipsoid", "mesh"):
            self.problem(el, f"type=\"{kind}\" is not a geom type stickslip knows.")
            return None
        if kind != "mesh" and "mesh" in a:
            # MuJoCo fits the primitive to the mesh and ignores size; stickslip took size
            self.problem(el, f"a {kind} fitted to mesh '{a['mesh']}' is not supported; give "
                             "the geom its own size (and no mesh=), or use type=\"mesh\".")
            return None
        if a.get("group", "0").strip() not in ("0", "1", "2", "3", "4", "5"):
            # MuJoCo's inertiagrouprange (0 5) leaves such a geom out of the body's mass;
            # stickslip counted it
            self.problem(el, f"group=\"{a['group']}\": a geom outside groups 0-5 has no mass "
                             "in MuJoCo, and stickslip would count it. Remove the geom or "
                             "put it in a group from 0 to 5.")
            return None
        size = self.floats(el, a, "size", (1, 2, 3))
        friction = self.floats(el, a, "friction", (1, 2, 3))
        condim = a["condim"]
        try:
            condim_i, contype, conaff = int(condim), int(a["contype"]), int(a["conaffinity"])
        except ValueError:
            self.problem(el, "condim, contype and conaffinity must be integers.")
            return None
        if size is None or friction is None:
            return None
        if condim_i not in (1, 3):
            self.problem(el, f"condim=\"{condim}\": torsional and rolling friction are not "
                             "modelled. Use condim=\"3\" (or \"1\", frictionless).")
        if "fromto" in a:
            if kind not in ("capsule", "cylinder"):
                self.problem(el, f"fromto on a {kind} geom is not supported. Give pos, quat "
                                 "and size instead.")
                return None
            ft = self.floats(el, a, "fromto", 6)
            if ft is None:
                return None
            d = ft[3:] - ft[:3]
            if np.linalg.norm(d) < 1e-12:
                self.problem(el, "fromto has zero length.")
                return None
            pos, rot = (ft[:3] + ft[3:]) / 2, _quat_matrix(_z_to(d))
            size = np.array([size[0], np.linalg.norm(d) / 2])
        else:
            pos, rot = self.pose(el, a)
        pos, rot = rel.pos + rel.rot @ pos, rel.rot @ rot
        need = {"box": 3, "sphere": 1, "capsule": 2, "cylinder": 2, "ellipsoid": 3,
                "mesh": 0, "plane": 0}[kind]
        if len(size) < need or np.any(size[:need] <= 0):
            self.problem(el, f"a {kind} needs {need} positive size values; got "
                             f"size=\"{a['size']}\".")
            return None
        g = _Geom(self.where(el), name, kind, pos, rot, size, 0.0, pos.copy(), np.zeros((3, 3)),
                  float(friction[0]), condim_i, contype, conaff)
        if kind == "plane":
            return g
        points = None
        if kind == "mesh":
            mesh = a.get("mesh")
            if mesh is None or mesh not in self.meshes:
                if mesh is None or not any(m.get("name") == mesh for m in
                                           self.root.iter("mesh")):
                    self.problem(el, f"refers to mesh '{mesh}', which <asset> does not "
                                     "define. Define it with vertex=\"...\".")
                return None
            points = self.meshes[mesh]
            try:
                volume, centroid, unit_inertia = _hull_volume_inertia(points)
            except _QhullError:
                self.problem(el, f"mesh '{mesh}' is degenerate (coplanar or coincident "
                                 "vertices). Give points that span a volume.")
                return None
        else:
            volume, unit_inertia = _primitive(kind, size)
            centroid = np.zeros(3)
        g.points = points
        if "mass" in a:
            m = self.floats(el, a, "mass", 1)
            mass = 0.0 if m is None else float(m[0])
            density = mass / volume
        else:
            d = self.floats(el, a, "density", 1)
            density = 1000.0 if d is None else float(d[0])
            mass = density * volume
        g.mass = mass
        g.com = pos + rot @ centroid
        g.inertia = density * rot @ unit_inertia @ rot.T
        return g

    def mass_properties(self, el, inertials, geoms):
        """Mass, inertia about the centre of mass (in the centre-of-mass frame), the centre
        of mass and the rotation of the centre-of-mass frame, both in the body frame."""
        # inertiafromgeom="true" overrides an <inertial> with the geoms' mass; a body
        # without geoms keeps its <inertial>, as in MuJoCo (it was refused: "no mass")
        massive = [g for g in geoms if g.kind != "plane"]
        use_inertial = inertials and (self.inertiafromgeom != "true" or not massive)
        if len(inertials) > 1:
            self.problem(inertials[1], "a second <inertial>. Keep one.")
        if use_inertial:
            iel = inertials[0]
            ia = self.attrs(iel)
            if "pos" not in ia or "mass" not in ia:
                self.problem(iel, "needs pos and mass (MuJoCo requires them).")
                return 0.0, np.eye(3), np.zeros(3), np.eye(3)
            pos, rot = self.pose(iel, ia)
            m = self.floats(iel, ia, "mass", 1)
            mass = 0.0 if m is None else float(m[0])
            if "diaginertia" in ia and "fullinertia" in ia:
                self.problem(iel, "has both diaginertia and fullinertia. Keep one.")
            if "fullinertia" in ia:
                f = self.floats(iel, ia, "fullinertia", 6)
                if any(k in ia for k in _ORIENT.split()):
                    self.problem(iel, "fullinertia with an orientation; MuJoCo rejects this. "
                                      "Remove the orientation (fullinertia is in the body "
                                      "frame).")
                inertia = np.eye(3) if f is None else np.array(
                    [[f[0], f[3], f[4]], [f[3], f[1], f[5]], [f[4], f[5], f[2]]])
            elif "diaginertia" in ia:
                d = self.floats(iel, ia, "diaginertia", 3)
                inertia = np.eye(3) if d is None else np.diag(d)
            else:
                self.problem(iel, "needs diaginertia or fullinertia.")
                inertia = np.eye(3)
            return mass, inertia, pos, rot
        if inertials and self.inertiafromgeom == "true":
            self.check_attrs(inertials[0], inertials[0].attrib)
        for g in geoms:
            if g.kind == "plane":
                self.problems.add(g.where, "a plane inside a body: the ground plane belongs "
                                           "to the world body. Move it there.")
        if self.inertiafromgeom == "false" or not geoms:
            return 0.0, np.eye(3), np.zeros(3), np.eye(3)
        mass = float(sum(g.mass for g in massive))
        if mass <= 0:
            return 0.0, np.eye(3), np.zeros(3), np.eye(3)
        com = np.asarray(sum(g.mass * g.com for g in massive) / mass)
        inertia = np.zeros((3, 3))
        for g in massive:
            d = g.com - com
            inertia += g.inertia + g.mass * (d @ d * np.eye(3) - np.outer(d, d))
        return mass, inertia, com, np.eye(3)

    def shape(self, g: _Geom, com: np.ndarray, com_rot: np.ndarray) -> MjcfShape | None:
        """The collision shape of geom `g` in the centre-of-mass frame (com, com_rot)."""
        rot = com_rot.T @ g.rot
        off = com_rot.T @ (g.pos - com)
        if g.kind == "box":
            return MjcfShape("box", g.name, tuple(float(s) for s in g.size[:3]), rot, off)
        if g.kind == "sphere":
            return MjcfShape("sphere", g.name, (float(g.size[0]),), np.eye(3), off)
        if g.kind == "mesh":
            return MjcfShape("hull", g.name, points=g.points @ rot.T + off)
        if self.curved_segments is None:
            self.problem_geom(g, f"a {g.kind} collision geom: stickslip shapes are convex "
                                 "polyhedra and spheres. Pass curved_segments=n to "
                                 "approximate it by a convex hull, make it visual "
                                 "(contype=\"0\" conaffinity=\"0\"), or replace it by a box "
                                 "or mesh.")
            return None
        pts = _curved_points(g.kind, g.size, self.curved_segments)
        return MjcfShape("hull", g.name, points=pts @ rot.T + off)

    def problem_geom(self, g: _Geom, message: str) -> None:
        self.problems.add(g.where, message)


def _primitive(kind: str, size) -> tuple[float, np.ndarray]:
    """Volume [m^3] and inertia per unit density [m^5] about the centre, geom axes, of a
    primitive (MuJoCo's formulas; size as in MJCF: half extents, radius, half length)."""
    if kind == "box":
        x, y, z = size[:3]
        v = 8 * x * y * z
        return v, v / 3 * np.diag([y * y + z * z, x * x + z * z, x * x + y * y])
    if kind == "sphere":
        r = size[0]
        v = 4 / 3 * math.pi * r ** 3
        return v, 0.4 * v * r * r * np.eye(3)
    if kind == "ellipsoid":
        a, b, c = size[:3]
        v = 4 / 3 * math.pi * a * b * c
        return v, v / 5 * np.diag([b * b + c * c, a * a + c * c, a * a + b * b])
    r, h = size[0], size[1]
    length = 2 * h
    vc = math.pi * r * r * length
    if kind == "cylinder":
        return vc, np.diag([vc * (3 * r * r + length * length) / 12] * 2 + [vc * r * r / 2])
    vs = 4 / 3 * math.pi * r ** 3                         # capsule: cylinder + two caps
    ixx = vc * (length ** 2 / 12 + r * r / 4) + vs * (0.4 * r * r + length ** 2 / 4
                                                     + 3 * length * r / 8)
    return vc + vs, np.diag([ixx, ixx, vc * r * r / 2 + vs * 0.4 * r * r])


def _curved_points(kind: str, size, n: int) -> np.ndarray:
    """Points on a capsule, cylinder or ellipsoid (geom frame) whose convex hull
    approximates it: `n` points around each circle, inscribed."""
    phi = 2 * math.pi * np.arange(n) / n
    ring = np.column_stack([np.cos(phi), np.sin(phi), np.zeros(n)])
    if kind == "cylinder":
        r, h = size[0], size[1]
        return np.vstack([ring * r + [0, 0, -h], ring * r + [0, 0, h]])
    rings = max(2, n // 4)
    theta = np.linspace(0, math.pi / 2, rings + 1)[1:-1]   # latitudes strictly between
    if kind == "capsule":
        r, h = size[0], size[1]
        pts = [ring * r + [0, 0, -h], ring * r + [0, 0, h], [[0, 0, h + r]], [[0, 0, -h - r]]]
        for t in theta:
            circle = ring * (r * math.cos(t))
            pts += [circle + [0, 0, h + r * math.sin(t)], circle + [0, 0, -h - r * math.sin(t)]]
        return np.vstack(pts)
    a, b, c = size[:3]                                    # ellipsoid
    pts = [ring, [[0, 0, 1]], [[0, 0, -1]]]
    for t in theta:
        pts += [ring * math.cos(t) + [0, 0, math.sin(t)], ring * math.cos(t) - [0, 0,
                                                                               math.sin(t)]]
    return np.vstack(pts) * [a, b, c]
