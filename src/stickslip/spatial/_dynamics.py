"""Newton–Euler equations of free rigid bodies and one Runge–Kutta step of them, compiled
with numba (SPEC §7 step 6; the state layout of `Model`).

The state of n bodies is an (n, 13) array: position p [m], unit quaternion q = (w, x, y, z)
(body → world), velocity v [m/s], angular velocity ω [rad/s], all in the world frame. With
the applied force F and torque T (world, about the centre of mass) held for the call,

    ṗ = v,   q̇ = ½ (0, ω) ⊗ q,   v̇ = F/m + g,
    ω̇ = R I⁻¹ (Rᵀ T − ω_b × I ω_b),   ω_b = Rᵀ ω                (Euler's equations)

with the body-frame inertia tensor I. These are called a few times per step for a handful of
bodies, where NumPy's per-call overhead dominated (DESIGN "Numerics").
"""

from __future__ import annotations

import numpy as np

from ._dense import cross, dot, matvec, matvec_t
from ._lazy_njit import njit

__all__ = ["finish_step", "quat_to_matrix", "rigid_body_rates", "stage_state"]


@njit(cache=True)
def _rotation(q):
    w, x, y, z = q[0], q[1], q[2], q[3]
    R = np.empty((3, 3))
    R[0, 0], R[0, 1], R[0, 2] = 1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)
    R[1, 0], R[1, 1], R[1, 2] = 2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)
    R[2, 0], R[2, 1], R[2, 2] = 2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)
    return R


@njit(cache=True)
def rigid_body_rates(X, F, T, mass, inertia, inv_inertia, gravity):
    """Ẋ (n, 13) of the Newton–Euler equations above for state X, forces F (n, 3) [N] and
    torques T (n, 3) [N m] (gravity added here), masses (n,) [kg], body-frame inertia tensors
    and their inverses (n, 3, 3) [kg m^2], gravity (3,) [m/s^2]."""
    n = X.shape[0]
    out = np.empty((n, 13))
    for b in range(n):
        q = X[b, 3:7]
        w = X[b, 10:13]
        R = _rotation(q)
        wb = matvec_t(R, w)
        tb = matvec_t(R, T[b])
        Lb = matvec(inertia[b], wb)
        cw = cross(wb, Lb)
        rb = np.empty(3)
        for j in range(3):
            rb[j] = tb[j] - cw[j]
        alpha = matvec(R, matvec(inv_inertia[b], rb))
        out[b, 3] = -0.5 * (w[0] * q[1] + w[1] * q[2] + w[2] * q[3])
        out[b, 4] = 0.5 * (w[0] * q[0] + (w[1] * q[3] - w[2] * q[2]))
        out[b, 5] = 0.5 * (w[1] * q[0] + (w[2] * q[1] - w[0] * q[3]))
        out[b, 6] = 0.5 * (w[2] * q[0] + (w[0] * q[2] - w[1] * q[1]))
        for j in range(3):
            out[b, j] = X[b, 7 + j]
            out[b, 7 + j] = F[b, j] / mass[b] + gravity[j]
            out[b, 10 + j] = alpha[j]
    return out


@njit(cache=True)
def stage_state(X, K, row, s, dt):
    """The input of Runge–Kutta stage `s`: X + dt Σ_{j<s} a_sj K_j (K: (stages, n, 13))."""
    Xi = X.copy()
    n = X.shape[0]
    for j in range(s):
        c = dt * row[j]
        if c != 0.0:
            for i in range(n):
                for k in range(13):
                    Xi[i, k] += c * K[j, i, k]
    return Xi


@njit(cache=True)
def finish_step(X, K, b, dt, semi_implicit, pseudo):
    """X + dt Σ b_j K_j with unit quaternions; bodies flagged in `semi_implicit` (n,) advance
    position and orientation with the post-step velocities instead (p + Δt v⁺,
    exp(½ ω⁺ Δt) ⊗ q — the update eq. 13–15 of SPEC §7 assume for bodies in contact), plus
    the position-only pseudo-velocities `pseudo` (n, 6) (v, ω; zeros without restitution)."""
    Xn = X.copy()
    n = X.shape[0]
    for j in range(len(b)):
        c = dt * b[j]
        if c != 0.0:
            for i in range(n):
                for k in range(13):
                    Xn[i, k] += c * K[j, i, k]
    for i in range(n):
        if semi_implicit[i]:
            w = np.empty(3)
            for k in range(3):
                Xn[i, k] = X[i, k] + dt * (Xn[i, 7 + k] + pseudo[i, k])
                w[k] = Xn[i, 10 + k] + pseudo[i, 3 + k]
            speed = np.sqrt(dot(w, w))
            q = X[i, 3:7]
            if speed * dt >= 1e-300:
                half = 0.5 * speed * dt
                c, sn = np.cos(half), np.sin(half) / speed
                r0, r1, r2, r3 = c, sn * w[0], sn * w[1], sn * w[2]
                Xn[i, 3] = r0 * q[0] - (r1 * q[1] + r2 * q[2] + r3 * q[3])
                Xn[i, 4] = r0 * q[1] + q[0] * r1 + (r2 * q[3] - r3 * q[2])
                Xn[i, 5] = r0 * q[2] + q[0] * r2 + (r3 * q[1] - r1 * q[3])
                Xn[i, 6] = r0 * q[3] + q[0] * r3 + (r1 * q[2] - r2 * q[1])
            else:
                for k in range(4):
                    Xn[i, 3 + k] = q[k]
        norm = np.sqrt(Xn[i, 3] ** 2 + Xn[i, 4] ** 2 + Xn[i, 5] ** 2 + Xn[i, 6] ** 2)
        for k in range(4):
            Xn[i, 3 + k] /= norm
    return Xn


def quat_to_matrix(q: np.ndarray) -> np.ndarray:
    """Rotation matrices (..., 3, 3) of unit quaternions (..., 4) ordered (w, x, y, z)."""
    q = np.asarray(q, dtype=float)
    rows = [_matrix_rows(*row) for row in q.reshape(-1, 4).tolist()]
    return np.array(rows).reshape(q.shape[:-1] + (3, 3))


def _matrix_rows(w: float, x: float, y: float, z: float) -> list:
    # plain floats: ~10x cheaper than NumPy for the few bodies of a model
    return [[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]]
