"""The projection after a fixed step of a spatial link system (``LinkSystem.project``): one
factor of S = J M⁻¹ Jᵀ serves the step onto Φ = 0 and the step onto Φ̇ = 0, and the result
lies on both manifolds; the loads placed by one-hot columns add up as placed by index."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from models import rod_chain

import stickslip as ss
from stickslip.spatial._link_dynamics import (
    constraint_matrix,
    inverse_mass,
    inverse_mass_operator,
    spd_factor,
    spd_solve,
)
from stickslip.spatial._rigid import rotation

sp = ss.spatial


def _chain(n, tilt=0.7):
    return rod_chain(n, tilt)


def _perturbed(system, scale, seed=0):
    """The initial state with every body's pose and twist moved off the manifolds."""
    rng = np.random.default_rng(seed)
    n_b = system.layout.n_bodies
    x = np.array(system.initial_state())
    X = x[:13 * n_b].reshape(n_b, 13)
    X[:, 0:3] += scale * rng.normal(size=(n_b, 3))
    X[:, 3:7] += scale * rng.normal(size=(n_b, 4))
    X[:, 7:13] += 1e3 * scale * rng.normal(size=(n_b, 6))
    x[:13 * n_b] = X.reshape(-1)
    return jnp.asarray(x)


def _residuals(system, t, x):
    """max |Φ| and max |Φ̇| at (t, x), in one compiled call (op by op, each of the joint
    terms' operations would compile on its own)."""
    phi, rate = _joint_residuals(system, t, x)
    return float(phi), float(rate)


@jax.jit
def _joint_residuals(system, t, x):
    n_b = system.layout.n_bodies
    X = x[:13 * n_b].reshape(n_b, 13)
    phi, _, rate, _ = system.joint_terms(t, X, derivatives=False)
    return jnp.max(jnp.abs(phi)), jnp.max(jnp.abs(rate))


# 4 rods: 20 joint rows (LAPACK's factor); 2 rods: 10 rows (the pure-JAX elimination, which
# the default suite runs in every two-body link test; ~6 s CPU of compile here)
@pytest.mark.parametrize("n", [4, pytest.param(2, marks=pytest.mark.slow)])
def test_projection_lands_on_both_manifolds(n):
    system = _chain(n).link_system()
    project = jax.jit(lambda t, y, system=system: system.project(t, y))
    after = []
    for scale in (1e-6, 1e-7):
        x = _perturbed(system, scale)
        before = _residuals(system, 0.0, x)
        after.append(_residuals(system, 0.0, project(0.0, x)))
        assert before[0] > 0.1 * scale and before[1] > 100 * scale
        # one Newton step: the position residual goes quadratic in the offset
        assert after[-1][0] < 1e-4 * before[0], (n, scale, before, after)
        assert after[-1][1] < 1e-4 * before[1], (n, scale, before, after)
    # the velocity step leaves (pose correction) × Φ̇: a tenth of the offset, a
    # hundredth of the residual
    assert after[1][1] < 0.03 * after[0][1], (n, after)


def _rows_at(system, x):
    """``position_rows`` of `project` at the pose of x: (J, M⁻¹Jᵀ, S⁻¹), as the Moreau–Jean
    step makes them at its predicted end pose."""
    n_b = system.layout.n_bodies
    X = x[:13 * n_b].reshape(n_b, 13)
    _, Jl, _, _, bi, bj = system.joint_rows_local(0.0, X, derivatives=False)
    J = system._scatter_rows(Jl, bi, bj)
    MJt = inverse_mass_operator(system, X)(J).T
    return J, MJt, spd_factor(constraint_matrix(system, X, Jl, bi, bj, J, MJt.T))


def test_projection_on_a_nearby_poses_factor_lands_on_both_manifolds():
    # the Moreau–Jean route's projection: both steps on the rows and factor of the pose its
    # step predicted (here the unperturbed one, 1e-6 away): simplified Newton steps, each
    # leaving (relative change of J between the poses) × its residual
    system = _chain(4).link_system()
    x0 = system.initial_state()
    project = jax.jit(lambda t, y: system.project(t, y, position_rows=_rows_at(system, x0)))
    for scale in (1e-6, 1e-7):
        x = _perturbed(system, scale)
        before = _residuals(system, 0.0, x)
        after = _residuals(system, 0.0, project(0.0, x))
        assert after[0] < 1e-4 * before[0], (scale, before, after)
        assert after[1] < 1e-4 * before[1], (scale, before, after)


def test_projection_matches_a_fresh_factor_at_the_corrected_pose():
    # the reference: the step onto Φ̇ = 0 with J, M⁻¹ and S taken at the corrected pose
    # (the textbook step); one shared factor differs by (pose correction) × Φ̇
    system = _chain(4).link_system()
    x = _perturbed(system, 1e-9, seed=1)
    n_b = system.layout.n_bodies
    projected = np.asarray(jax.jit(lambda t, y: system.project(t, y))(0.0, x))

    def reference(x):
        X = x[:13 * n_b].reshape(n_b, 13)
        X = X.at[:, 3:7].set(X[:, 3:7] / jnp.linalg.norm(X[:, 3:7], axis=1, keepdims=True))
        moved = system.project(0.0, jnp.concatenate([X.reshape(-1), x[13 * n_b:]]))
        Xm = moved[:13 * n_b].reshape(n_b, 13).at[:, 7:13].set(X[:, 7:13])
        _, J, rate, _ = system.joint_terms(0.0, Xm, derivatives=False)
        Minv = jnp.asarray(inverse_mass(system, np.asarray(Xm)))
        MJt = Minv @ J.T
        dnu = -MJt @ jnp.linalg.solve(J @ MJt, rate)
        return Xm.at[:, 7:13].add(dnu.reshape(n_b, 6)).reshape(-1)

    expected = np.asarray(reference(x))
    np.testing.assert_allclose(projected[:13 * n_b], expected, rtol=0, atol=1e-12)


def test_one_factor_solves_like_separate_solves():
    rng = np.random.default_rng(3)
    for m in (10, 25):
        A = rng.normal(size=(m, m))
        S = jnp.asarray(A @ A.T + m * np.eye(m))
        B = jnp.asarray(rng.normal(size=(m, 2)))
        solve = spd_factor(S)
        for col in range(2):
            np.testing.assert_allclose(solve(B[:, col]), spd_solve(S, B[:, col]),
                                       rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(solve(B), np.linalg.solve(np.asarray(S), np.asarray(B)),
                                   rtol=1e-10, atol=1e-12)


def test_point_force_and_torque_land_on_their_bodies():
    # Q rows of a 2-rod chain with a point force on rod1 and a torque on rod0: the force
    # on rod1's linear row, its moment arm × force plus the torque on the angular rows
    m = _chain(2)
    m.add(sp.PointForce("rod1", force=(1.0, 2.0, 0.5), point=(0.02, 0.0, 0.0)))
    m.add(sp.BodyTorque("rod0", torque=(0.0, 0.0, 0.3)))
    system = m.link_system()
    X = system.x0
    Q, _, _ = system.applied(0.0, X)
    Q = np.asarray(Q)
    g = np.array([0.0, -9.81, 0.0])
    np.testing.assert_allclose(Q[0, :3], 0.1 * g, atol=1e-15)
    np.testing.assert_allclose(Q[1, :3], 0.1 * g + np.array([1.0, 2.0, 0.5]), atol=1e-15)
    R1 = np.asarray(rotation(X[1, 3:7]))
    arm = R1 @ np.array([0.02, 0.0, 0.0])
    np.testing.assert_allclose(Q[1, 3:], np.cross(arm, [1.0, 2.0, 0.5]), atol=1e-15)
    np.testing.assert_allclose(Q[0, 3:], [0.0, 0.0, 0.3], atol=1e-15)



def test_a_moreau_jean_step_traces_the_joint_rows_once():
    # the step evaluates the rows at its θ-point and end poses and the projection twice more,
    # all of the same shapes: one trace (LinkSystem.joint_rows_local), dropped with the system
    # (its results: the Moreau–Jean tests; every channel of the arm example and the cart was
    # the same to the bit with one trace as with five)
    import gc

    from stickslip.spatial import _link_system

    system = _chain(3).link_system()
    traces = []
    direct = _link_system.LinkSystem._joint_rows_local

    def counted(self, t, X, derivatives=True):
        traces.append(derivatives)
        return direct(self, t, X, derivatives)

    x0 = system.initial_state()
    try:
        _link_system.LinkSystem._joint_rows_local = counted
        jaxpr = jax.make_jaxpr(lambda x, s=system: s.moreau_jean_step(0.0, x, 1e-3, 0.5))(x0)
    finally:
        _link_system.LinkSystem._joint_rows_local = direct
    assert traces == [False]
    assert any(key[0] == id(system) for key in _link_system._ROWS_ONCE)
    del jaxpr, system
    gc.collect()
    assert not _link_system._ROWS_ONCE
