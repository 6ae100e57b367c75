"""The contact plane's quantities of SPEC §7 in closed form, compiled with numba: the area and
first and second moments of the polygon S (triangle fan), and from them Q, c (eq. 8–9), the
normal part Qn of Q, and S's in-plane edge normals and offsets (eq. 24–25). Called by every
contact path of :mod:`._volume` (general, ground, body pair).
"""

from __future__ import annotations

import numpy as np

from ._dense import cross, dot, matmul, matmul_nt
from ._lazy_njit import njit
from ._volume_hull import _tangent_basis_kernel


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
    normals and their signed offsets from p_g (S = {r : m·r ≤ offset}; see below)."""
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
        # signed, not clamped at 0: p_g lies in S exactly (C's centroid is in the hull of
        # C's vertices), but on a sliver S its round-off does not (a box on its edge: S
        # 1.55e-7 m wide, p_g 5e-8 to 3e-7 m outside it, ±1 ulp of the box's z moving S by
        # 3e-7 m). Clamped, the QP's rows (eq. 24–25) admitted a centre of pressure at p_g,
        # outside S; the static LP (eq. 28–31, the true vertices) then rejected the wrench
        # (residual 1.1e-6 against 1e-9) and a wrench with |f_t|/f_n = 0.15 < μ_s slipped
        offsets[i] = dot(m[i], r[i])
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
