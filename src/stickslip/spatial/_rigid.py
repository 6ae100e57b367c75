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
    """Rotation matrix (..., 3, 3) of quaternions (..., 4) (w, x, y, z); normalised first.
    Written for any leading axes, so a set of bodies is one evaluation, not a ``vmap``."""
    q = q / jnp.sqrt(jnp.sum(q * q, axis=-1, keepdims=True))
    w, x, y, z = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    return jnp.stack([
        jnp.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
        jnp.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
        jnp.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1)],
        -2)


def quat_multiply(a, b):
    """Hamilton product a ⊗ b of quaternions (..., 4) (w, x, y, z)."""
    aw, av = a[..., :1], a[..., 1:]
    bw, bv = b[..., :1], b[..., 1:]
    return jnp.concatenate([aw * bw - jnp.einsum("...i,...i->...", av, bv)[..., None],
                            aw * bv + bw * av + jnp.cross(av, bv)], axis=-1)


def quat_rate(q, w):
    """q̇ = ½ (0, ω) ⊗ q for the world-frame angular velocity ω (..., 3) [rad/s]."""
    return 0.5 * quat_multiply(jnp.concatenate([jnp.zeros_like(w[..., :1]), w], axis=-1), q)


def rotate_quat(q, dtheta):
    """q (..., 4) rotated by the world-frame rotation vector δθ (..., 3) [rad] (exact
    exponential map)."""
    angle = jnp.sqrt(jnp.sum(dtheta * dtheta, axis=-1, keepdims=True) + 1e-300)
    half = 0.5 * angle
    axis_scale = jnp.where(angle > 1e-12, jnp.sin(half) / angle, 0.5)
    dq = jnp.concatenate([jnp.cos(half), axis_scale * dtheta], axis=-1)
    out = quat_multiply(dq, q)
    return out / jnp.sqrt(jnp.sum(out * out, axis=-1, keepdims=True))


def skew(a):
    """[a×], the matrix with [a×] b = a × b."""
    return jnp.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])


def vex(A):
    """The vector of the skew part of A: vex(A) with [vex(A)×] = (A − Aᵀ)/2."""
    return 0.5 * jnp.array([A[2, 1] - A[1, 2], A[0, 2] - A[2, 0], A[1, 0] - A[0, 1]])
