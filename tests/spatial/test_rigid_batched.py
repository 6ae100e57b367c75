"""The rigid-body helpers take any leading axes (a set of bodies in one evaluation, no
``vmap``): on a stack they give what they give one body at a time (the same arithmetic; XLA
may fuse it differently, so to an ulp or two), and they
keep their meaning (R orthonormal with det 1, q̇ = ½ (0, ω) ⊗ q, exp map of a rotation
vector, the 3×3 inverse)."""

from __future__ import annotations

import jax
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from stickslip.spatial._link_dynamics import inverse3
from stickslip.spatial._rigid import quat_multiply, quat_rate, rotate_quat, rotation

jax.config.update("jax_enable_x64", True)


def _stack(seed, n=5):
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(n, 4))
    w = rng.normal(size=(n, 3))
    A = rng.normal(size=(n, 3, 3)) + 3.0 * np.eye(3)
    return q, w, A


# compiled once for every example (a jit made inside the test compiles at each one)
_ONE_BY_ONE = jax.jit(lambda q, w, A: (
    jax.vmap(rotation)(q), jax.vmap(rotate_quat)(q, 0.1 * w), jax.vmap(quat_rate)(q, w),
    jax.vmap(quat_multiply)(q, q[::-1]), jax.vmap(inverse3)(A)))
_STACKED = jax.jit(lambda q, w, A: (
    rotation(q), rotate_quat(q, 0.1 * w), quat_rate(q, w), quat_multiply(q, q[::-1]),
    inverse3(A)))


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_a_stack_gives_what_each_body_gives_alone(seed):
    q, w, A = _stack(seed)
    for a, b in zip(_ONE_BY_ONE(q, w, A), _STACKED(q, w, A)):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-15, atol=1e-15)


_ROTATION, _ROTATE, _RATE, _INVERSE = (jax.jit(f) for f in (rotation, rotate_quat, quat_rate,
                                                             inverse3))


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_the_helpers_keep_their_meaning_on_a_stack(seed):
    q, w, A = _stack(seed)
    rotation, rotate_quat, quat_rate, inverse3 = _ROTATION, _ROTATE, _RATE, _INVERSE
    R = np.asarray(rotation(q))
    np.testing.assert_allclose(R @ np.swapaxes(R, 1, 2), np.broadcast_to(np.eye(3), R.shape),
                               atol=1e-14)
    np.testing.assert_allclose(np.linalg.det(R), 1.0, atol=1e-14)
    np.testing.assert_allclose(np.asarray(inverse3(A)) @ A,
                               np.broadcast_to(np.eye(3), A.shape), atol=1e-12)
    # Ṙ = [ω×] R from q̇ = ½ (0, ω) ⊗ q (unit q), by a central difference of R(q + ε q̇)
    qn = q / np.linalg.norm(q, axis=1, keepdims=True)
    qd = np.asarray(quat_rate(qn, w))
    eps = 1e-6
    Rdot = (np.asarray(rotation(qn + eps * qd)) - np.asarray(rotation(qn - eps * qd))) / (2 * eps)
    skew = np.zeros((len(w), 3, 3))
    skew[:, 0, 1], skew[:, 0, 2], skew[:, 1, 2] = -w[:, 2], w[:, 1], -w[:, 0]
    skew -= np.swapaxes(skew, 1, 2)
    np.testing.assert_allclose(Rdot, skew @ np.asarray(rotation(qn)), atol=1e-7)
    # rotating by δθ turns R by exp([δθ×]): R(q') = exp([δθ×]) R(q)
    dth = 0.3 * w
    Rn = np.asarray(rotation(rotate_quat(qn, dth)))
    angle = np.linalg.norm(dth, axis=1)[:, None, None]
    K = np.zeros_like(skew)
    K[:, 0, 1], K[:, 0, 2], K[:, 1, 2] = -dth[:, 2], dth[:, 1], -dth[:, 0]
    K -= np.swapaxes(K, 1, 2)
    expK = (np.eye(3) + np.sin(angle) / angle * K
            + (1 - np.cos(angle)) / angle**2 * K @ K)
    np.testing.assert_allclose(Rn, expK @ np.asarray(rotation(qn)), atol=1e-13)
