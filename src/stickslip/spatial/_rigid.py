"""Rigid-body kinematics in JAX for the spatial link-system engine.

A body's pose is its centre of mass r (world, [m]) and the unit quaternion q = (w, x, y, z)
that rotates body-frame vectors into the world frame; its twist is the centre-of-mass
velocity v and the angular velocity ω, both in the world frame. Then

    Ṙ = [ω×] R,     q̇ = ½ (0, ω) ⊗ q,      (world-frame ω: left multiplication)

and a small rotation δθ (world frame) of a pose is R ← exp([δθ×]) R, q ← exp(δθ/2) ⊗ q.
"""

from __future__ import annotations

import jax.numpy as jnp

__all__ = ["rotation", "quat_rate", "quat_multiply", "rotate_quat", "skew", "vex"]


def rotation(q):
    """Rotation matrix (3, 3) of a quaternion (w, x, y, z); normalised first."""
    w, x, y, z = q / jnp.sqrt(jnp.sum(q * q))
    return jnp.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                      [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                      [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def quat_multiply(a, b):
    """Hamilton product a ⊗ b of quaternions (w, x, y, z)."""
    aw, av = a[0], a[1:]
    bw, bv = b[0], b[1:]
    return jnp.concatenate([jnp.array([aw * bw - av @ bv]),
                            aw * bv + bw * av + jnp.cross(av, bv)])


def quat_rate(q, w):
    """q̇ = ½ (0, ω) ⊗ q for the world-frame angular velocity ω [rad/s]."""
    return 0.5 * quat_multiply(jnp.concatenate([jnp.zeros(1, q.dtype), w]), q)


def rotate_quat(q, dtheta):
    """q rotated by the world-frame rotation vector δθ [rad] (exact exponential map)."""
    angle = jnp.sqrt(jnp.sum(dtheta * dtheta) + 1e-300)
    half = 0.5 * angle
    axis_scale = jnp.where(angle > 1e-12, jnp.sin(half) / angle, 0.5)
    dq = jnp.concatenate([jnp.array([jnp.cos(half)]), axis_scale * dtheta])
    out = quat_multiply(dq, q)
    return out / jnp.sqrt(jnp.sum(out * out))


def skew(a):
    """[a×], the matrix with [a×] b = a × b."""
    return jnp.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])


def vex(A):
    """The vector of the skew part of A: vex(A) with [vex(A)×] = (A − Aᵀ)/2."""
    return 0.5 * jnp.array([A[2, 1] - A[1, 2], A[0, 2] - A[2, 0], A[1, 0] - A[0, 1]])
