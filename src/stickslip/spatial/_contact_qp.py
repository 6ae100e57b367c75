"""The contact-force QP of SPEC §7 for all active contacts of one step, compiled with numba:
A and b of eq. 13–15 for free bodies, Q and c of eq. 8–9 stacked per contact, the
regularised objective of eq. 10/16 and the centre-of-pressure constraint of eq. 25.

`Model.contact_wrenches` gathers the contacts' geometry into padded arrays, calls
:func:`contact_qp` and `solve_cone_qp`, and then applies the friction tests and
corrections (SPEC §7 steps 4–5).
"""

from __future__ import annotations

import numpy as np

from ._dense import cross, matmul, matmul_nt, matmul_tn, matvec, matvec_t
from ._dynamics import _rotation
from ._lazy_njit import njit

__all__ = ["contact_qp"]


@njit(cache=True)
def contact_qp(X, F, T, mass, inertia, inv_inertia, gravity, dt, k, lam, pair_a, pair_b,
               normals, centroids, Qs, ncs, counts, edge_normals, edge_offsets):
    """The QP (16) with (25) for m contacts between n free bodies.

    X (n, 13) state; F, T (n, 3) applied force [N] and torque [N m] at the centres of mass
    (world); mass (n,); inertia, inv_inertia (n, 3, 3) body frame; gravity (3,); dt [s];
    k [1/s] (eq. 3); lam [-] (normal-force regulariser, see `Model`); per contact i:
    pair_a[i], pair_b[i] body indices (−1: the ground), normals (m, 3) from A to B,
    centroids p_g (m, 3), Q (m, 6, 6), nᵀc (m, 6), the polygon's edge count L_i and its
    in-plane edge normals (m, L_max, 3) and offsets (m, L_max).

    Returns (H, g, G, A, b, Qbig, cn): the QP ½fᵀHf + gᵀf, G f ≤ 0 over the stacked
    contact wrenches f (6m,) on B at p_g (world: force, torque), for `solve_cone_qp`; and
    the operator A = J M⁻¹ Jᵀ Δt (eq. 15), b = J u_free, block-diagonal Q and k nᵀc, which
    the friction correction reuses.
    """
    nb = X.shape[0]
    m = normals.shape[0]
    # free motion over the step (eq. 13 without contact forces) and the world inverse inertia
    u_free = np.empty(6 * nb)
    Minv = np.zeros((6 * nb, 6 * nb))
    for b in range(nb):
        R = _rotation(X[b, 3:7])
        w = X[b, 10:13]
        wb = matvec_t(R, w)
        rb = matvec_t(R, T[b])
        cw = cross(wb, matvec(inertia[b], wb))
        for j in range(3):
            rb[j] -= cw[j]
        alpha = matvec(R, matvec(inv_inertia[b], rb))
        for j in range(3):
            u_free[6 * b + j] = X[b, 7 + j] + dt * (F[b, j] / mass[b] + gravity[j])
            u_free[6 * b + 3 + j] = w[j] + dt * alpha[j]
            Minv[6 * b + j, 6 * b + j] = 1.0 / mass[b]
        Iw = matmul_nt(matmul(R, inv_inertia[b]), R)
        for i in range(3):
            for j in range(3):
                Minv[6 * b + 3 + i, 6 * b + 3 + j] = Iw[i, j]
    # contact Jacobian (eq. 6): the velocity of body `body` at p_g, + for B, − for A
    J = np.zeros((6 * m, 6 * nb))
    for i in range(m):
        for side in range(2):
            body = pair_b[i] if side == 0 else pair_a[i]
            if body < 0:
                continue
            sign = 1.0 if side == 0 else -1.0
            d0 = X[body, 0] - centroids[i, 0]        # scalars: an array expression compiles
            d1 = X[body, 1] - centroids[i, 1]        # a loop kernel of its own
            d2 = X[body, 2] - centroids[i, 2]
            for j in range(6):
                J[6 * i + j, 6 * body + j] += sign
            J[6 * i + 0, 6 * body + 4] += sign * -d2
            J[6 * i + 0, 6 * body + 5] += sign * d1
            J[6 * i + 1, 6 * body + 3] += sign * d2
            J[6 * i + 1, 6 * body + 5] += sign * -d0
            J[6 * i + 2, 6 * body + 3] += sign * -d1
            J[6 * i + 2, 6 * body + 4] += sign * d0
    A = matmul_nt(matmul(J, Minv), J)                                      # eq. 15
    for i in range(6 * m):           # element loops: array expressions cost compile time
        for j in range(6 * m):
            A[i, j] *= dt
    bvec = matvec(J, u_free)
    Qbig = np.zeros((6 * m, 6 * m))
    cn = np.empty(6 * m)
    n_rows = 0
    for i in range(m):
        n_rows += counts[i] + 1
    G = np.zeros((n_rows, 6 * m))
    r0 = 0
    for i in range(m):
        n = normals[i]
        # element loops, not slice copies (those compile numba's shape-error strings)
        for a in range(6):
            cn[6 * i + a] = k * ncs[i, a]
            for c in range(6):
                Qbig[6 * i + a, 6 * i + c] = Qs[i, a, c]
        for a in range(3):
            G[r0, 6 * i + a] = -n[a]                                       # f_n >= 0 (25)
        for e in range(counts[i]):                                         # p_n in S (24)
            en = cross(edge_normals[i, e], n)
            for a in range(3):
                G[r0 + 1 + e, 6 * i + a] = -edge_offsets[i, e] * n[a]
                G[r0 + 1 + e, 6 * i + 3 + a] = en[a]
        r0 += counts[i] + 1
    AQ = matmul_tn(A, Qbig)
    H = matmul(AQ, A)
    # a 1e-9 relative Tikhonov term on every component keeps eq. 16 well posed when the
    # contact polygon is a sliver (Q nearly singular); far below any effect on the motion
    for j in range(6 * m):
        H[j, j] *= 1.0 + 1e-9
    for i in range(m):                                                     # eq. 10's λ term
        n = normals[i]
        s_n = 0.0                  # λ nᵀ H_ff n (a loop: a strided block compiled another matvec)
        for a in range(3):
            for c in range(3):
                s_n += n[a] * H[6 * i + a, 6 * i + c] * n[c]
        s_n *= lam
        for a in range(3):
            for c in range(3):
                H[6 * i + a, 6 * i + c] += s_n * n[a] * n[c]
    g = matvec(AQ, bvec)                                                   # eq. 16
    atc = matvec_t(A, cn)
    for j in range(6 * m):
        g[j] -= atc[j]
    return H, g, G, A, bvec, Qbig, cn
