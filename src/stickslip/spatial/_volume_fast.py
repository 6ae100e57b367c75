"""The compiled fast path of the contact volume (SPEC §7 steps 1–2), numba kernels for what
every simulation step needs: a convex body cut by the ground (volume and centroid from signed
tetrahedra over the clipped face boundaries) and two convex bodies clipped by each other's
face planes (Sutherland–Hodgman per face; volume, centroid, the normal of eq. 1–2), each with
the points whose hull is the projected polygon. Their Python entries,
`ground_contact_geometry` and `pair_contact_geometry`, are in :mod:`._volume`, tested equal
to the general NumPy clip there.
"""

from __future__ import annotations

import numpy as np

from ._dense import cross, dot, matvec
from ._lazy_njit import njit
from ._volume_hull import _convex_polygon_kernel


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
