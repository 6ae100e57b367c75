"""The convex polygon of coplanar points, compiled with numba: the in-plane basis (e1, e2) of a
normal and Andrew's monotone chain on the in-plane coordinates, with near-duplicate vertices
dropped (eq. 25's edge normals need edges with a direction). Used by the contact volume
(:mod:`._volume`) for the section or projected polygon S of SPEC §7 and by the compiled
contact paths (:mod:`._volume_fast`).
"""

from __future__ import annotations

import numpy as np

from ._dense import matvec
from ._lazy_njit import njit


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
