"""The planar package in the static-model / traced-data shape (issue 13 item 1): analyses
are pure, elements immutable, one Schur solve behind dynamics, projection and impulses."""

import dataclasses

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import stickslip as ss
from stickslip.planar import examples
from stickslip.planar._dynamics import (
    ConstrainedEquations,
    Dynamics,
    schur_solve,
    spd_solve,
)

jax.config.update("jax_enable_x64", True)


def _poses(model):
    return {b.name: (b.x, b.y, b.phi, b.xd, b.yd, b.phid) for b in model.bodies}


def test_analyses_never_write_into_the_bodies():
    m = ss.planar.Model(gravity=(0.0, -9.81))
    link = m.add_body("link", mass=1.0, inertia=1.0 / 12, x=0.45, y=0.05, phi=0.1)
    m.add(ss.planar.RevoluteJoint(m.ground, link, (0.0, 0.0), (-0.5, 0.0), name="pin"))
    m.add(ss.planar.RotationalSpringDamper(m.ground, link, stiffness=20.0, damping=0.1))
    before = _poses(m)
    start = m.assemble()
    eq = m.equilibrium()
    assert _poses(m) == before                    # the rough guess is still the rough guess
    # and the results are the closed configurations
    assert abs(start["link.x"][0] - 0.5 * np.cos(start["link.phi"][0])) < 1e-10
    phi = float(eq["link.phi"][0])
    assert abs(20.0 * phi + 9.81 * 0.5 * np.cos(phi)) < 1e-9


def test_add_returns_a_new_bound_element_and_replace_leaves_the_old_one():
    m = ss.planar.Model()
    b = m.add_body("b", mass=1.0, inertia=0.1, x=0.3, phi=0.2)
    joint = ss.planar.TranslationalJoint(m.ground, b, axis_i=(1, 0), name="slide",
                                         friction=ss.laws.CoulombODE(mu=0.3, K=1e4,
                                                                     beta=1e-3))
    bound = m.add(joint)
    assert bound is not joint and joint.angle is None
    assert float(bound.angle) == pytest.approx(0.2)             # frozen from the pose
    assert bound.body_j is b and isinstance(bound.point_i, jax.Array)
    with pytest.raises(dataclasses.FrozenInstanceError):
        bound.angle = 0.0
    m.replace(joint, mu=0.5)                      # the user's object is found by identity
    assert float(bound.friction.mu) == 0.3        # the old element is unchanged
    assert float(m.element("slide").friction.mu) == 0.5


def test_equal_joints_are_one_vmapped_group_and_their_geometry_is_traced():
    m = examples.four_bar()
    system = m.system()
    groups = system.layout.groups
    revolute = [g for g in groups if len(g[0]) == 4]
    assert len(revolute) == 1                     # R1..R4: one group
    # the geometry is an array leaf of the system: differentiate Φ through it
    q = jnp.asarray(m._q()) + 0.01          # off the constraints: Φ ≠ 0

    def phi_norm(point):
        moved = eqx.tree_at(lambda s: s.constraints[0].point_j, system, point)
        return jnp.sum(moved.phi(q, jnp.asarray(0.0)) ** 2)

    grad = jax.jit(jax.grad(phi_norm))(system.constraints[0].point_j)  # eager: 95 dispatches
    assert grad.shape == (2,) and np.all(np.isfinite(grad)) and np.any(grad != 0)


# jitted: the eager solve dispatches its operations one by one
_schur_solve = jax.jit(schur_solve, static_argnames=("robust",))


def test_schur_solve_equals_the_saddle_point_system():
    rng = np.random.default_rng(0)
    n, m_ = 6, 3
    minv = 1.0 / rng.uniform(0.5, 2.0, n)
    J = rng.standard_normal((m_, n))
    Q = rng.standard_normal(n)
    gamma = rng.standard_normal(m_)
    qdd, lam = _schur_solve(jnp.asarray(minv), jnp.asarray(J), jnp.asarray(Q),
                            jnp.asarray(gamma))
    K = np.block([[np.diag(1 / minv), J.T], [J, np.zeros((m_, m_))]])
    ref = np.linalg.solve(K, np.concatenate([Q, gamma]))
    np.testing.assert_allclose(qdd, ref[:n], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(lam, ref[n:], rtol=1e-12, atol=1e-12)
    # several right-hand sides at once, and the least-squares variant agrees
    qdd2, _ = _schur_solve(jnp.asarray(minv), jnp.asarray(J), jnp.stack([Q, 2 * Q], 1),
                           jnp.stack([gamma, 2 * gamma], 1), robust=True)
    np.testing.assert_allclose(qdd2[:, 1], 2 * ref[:n], rtol=1e-10, atol=1e-12)


_spd_solve = jax.jit(spd_solve)      # one compile per shape, not one per example


@settings(max_examples=60)
@given(m=st.sampled_from([1, 2, 3, 5, 8, 12]), k=st.sampled_from([1, 3]),
       log_cond=st.floats(0.0, 12.0),
       seed=st.integers(0, 2 ** 32 - 1))
def test_spd_solve_is_backward_stable_for_positive_definite_matrices(m, k, log_cond, seed):
    """Gaussian elimination without pivoting on S = Sᵀ > 0 (Golub & Van Loan §4.2):
    residual ‖S x − b‖ ≤ c·u·‖S‖‖x‖ whatever the condition number (here up to 1e12)."""
    rng = np.random.default_rng(seed)
    basis, _ = np.linalg.qr(rng.standard_normal((m, m)))
    S = (basis * np.logspace(0.0, log_cond, m)) @ basis.T
    S = 0.5 * (S + S.T)
    b = rng.standard_normal((m, k))
    x = np.asarray(_spd_solve(jnp.asarray(S), jnp.asarray(b)))
    residual = np.linalg.norm(S @ x - b) / (np.linalg.norm(S) * np.linalg.norm(x))
    assert residual < 50 * m * np.finfo(float).eps
    np.testing.assert_allclose(_spd_solve(jnp.asarray(S), jnp.asarray(b[:, 0])), x[:, 0],
                               rtol=1e-13, atol=1e-13 * np.max(np.abs(x)))


def test_spd_solve_of_a_singular_matrix_is_not_finite():
    """A mechanism at a lock-up (Φ_q loses rank): S singular must not give a finite λ."""
    J = np.array([[1.0, 0.0, 0.0], [2.0, 0.0, 0.0]])           # two parallel rows
    S = J @ J.T
    x = _spd_solve(jnp.asarray(S), jnp.ones(2))          # jitted: eager dispatch is slow
    assert not np.all(np.isfinite(np.asarray(x)))
    assert np.all(np.isfinite(np.asarray(jax.jit(jax.grad(
        lambda s: spd_solve(s * jnp.eye(3), jnp.ones(3)).sum()))(2.0))))


def test_dynamics_is_the_schur_solve_of_the_equations():
    system = examples.slider_crank().system()
    t, q, qd = jnp.asarray(0.3), system.q0, system.qd0 + 0.1
    # each jitted (op-by-op dispatch of the eager calls cost seconds)
    eq, _, _, _, _ = eqx.filter_jit(system.equations)(t, q, qd)
    assert isinstance(eq, ConstrainedEquations)
    d = eqx.filter_jit(system.dynamics)(t, q, qd)
    assert isinstance(d, Dynamics)
    qdd, lam = _schur_solve(*eq[:1], eq.J, eq.Q, eq.gamma)
    np.testing.assert_allclose(d.qdd, qdd, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(d.lam, lam, rtol=1e-12, atol=1e-12)
    # M q̈ = Q − Jᵀλ and J q̈ = γ hold
    np.testing.assert_allclose(d.qdd / eq.minv, eq.Q - eq.J.T @ d.lam, atol=1e-10)
    np.testing.assert_allclose(eq.J @ d.qdd, eq.gamma, atol=1e-10)
