"""Hand-written Φ_q and γ of the revolute and translational joints (issue 13 item 5) against
forward-mode autodiff of their residual and against finite differences."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stickslip as ss
from stickslip.planar._elements import AbstractConstraint

jax.config.update("jax_enable_x64", True)


def _bound(joint):
    m = ss.planar.Model()
    bi = m.add_body("bi", mass=1.0, inertia=0.1, x=0.2, y=-0.1, phi=0.4)
    bj = m.add_body("bj", mass=1.0, inertia=0.1, x=0.7, y=0.3, phi=-0.9)
    return m.add(joint(bi, bj))


JOINTS = {
    "revolute": lambda bi, bj: ss.planar.RevoluteJoint(bi, bj, (0.1, -0.2), (-0.3, 0.05)),
    "translational": lambda bi, bj: ss.planar.TranslationalJoint(
        bi, bj, (0.15, 0.1), (-0.2, 0.3), axis_i=(0.6, 0.8)),
}


@pytest.mark.parametrize("kind", sorted(JOINTS))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_hand_written_jacobian_and_gamma_equal_autodiff_and_finite_differences(kind, seed):
    joint = _bound(JOINTS[kind])
    rng = np.random.default_rng(seed)
    qi, qj, qdi, qdj = (jnp.asarray(rng.standard_normal(3)) for _ in range(4))
    t = jnp.asarray(0.3)
    hand_i, hand_j = joint.jacobians(qi, qj, t)
    auto_i, auto_j = AbstractConstraint.jacobians(joint, qi, qj, t)
    np.testing.assert_allclose(hand_i, auto_i, rtol=0, atol=1e-13)
    np.testing.assert_allclose(hand_j, auto_j, rtol=0, atol=1e-13)
    h = 1e-6
    for k in range(3):
        e = jnp.zeros(3).at[k].set(h)
        fd_i = (joint.residual(qi + e, qj, t) - joint.residual(qi - e, qj, t)) / (2 * h)
        fd_j = (joint.residual(qi, qj + e, t) - joint.residual(qi, qj - e, t)) / (2 * h)
        np.testing.assert_allclose(hand_i[:, k], fd_i, atol=1e-8)
        np.testing.assert_allclose(hand_j[:, k], fd_j, atol=1e-8)
    hand_g = joint.gamma(qi, qj, qdi, qdj, t)
    auto_g = AbstractConstraint.gamma(joint, qi, qj, qdi, qdj, t)
    np.testing.assert_allclose(hand_g, auto_g, rtol=0, atol=1e-12)
    s = 1e-4                        # γ = −d²/ds² Φ(q + s q̇) (no time dependence)
    f = lambda s_: np.asarray(joint.residual(qi + s_ * qdi, qj + s_ * qdj, t))  # noqa: E731
    fd_g = -(f(s) - 2 * f(0.0) + f(-s)) / s ** 2
    np.testing.assert_allclose(hand_g, fd_g, atol=1e-6 * (1 + np.max(np.abs(fd_g))))
    np.testing.assert_allclose(joint.time_derivative(qi, qj, t),
                               AbstractConstraint.time_derivative(joint, qi, qj, t), atol=0)


@pytest.mark.parametrize("joint", ["revolute", "translational"])
def test_kinematic_terms_and_slide_jacobians_match_the_separate_forms(joint):
    """The joints' one-call ``kinematic_terms`` (what the equations of motion use) equals
    residual / jacobians / time_derivative / gamma, and ``slide_jacobians`` equals the
    forward-mode derivative of ``slide``."""
    m = ss.planar.Model()
    bi = m.add_body("bi", mass=1.0, inertia=0.1, x=0.3, y=-0.2, phi=0.4)
    bj = m.add_body("bj", mass=1.0, inertia=0.1, x=0.9, y=0.1, phi=-0.7)
    element = (ss.planar.RevoluteJoint(bi, bj, (0.2, 0.1), (-0.3, 0.05))
               if joint == "revolute" else
               ss.planar.TranslationalJoint(bi, bj, (0.2, 0.1), (-0.3, 0.05), axis_i=(0.6, 0.8)))
    c = m.add(element)
    qi, qj = jnp.array([0.31, -0.18, 0.45]), jnp.array([0.92, 0.07, -0.66])
    qdi, qdj = jnp.array([0.5, -1.2, 2.0]), jnp.array([-0.4, 0.9, -1.5])
    t = jnp.asarray(0.2)
    terms = c.kinematic_terms(qi, qj, qdi, qdj, t)
    separate = (c.residual(qi, qj, t), *c.jacobians(qi, qj, t), c.time_derivative(qi, qj, t),
                c.gamma(qi, qj, qdi, qdj, t))
    for a, b in zip(terms, separate):
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-13)
    auto = jax.jacfwd(c.slide, argnums=(0, 1))(qi, qj)
    for a, b in zip(c.slide_jacobians(qi, qj), auto):
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-13)
