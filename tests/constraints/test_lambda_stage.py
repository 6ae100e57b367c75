"""The λ-stage every host shares (``stickslip.constraints.lambda_stage``, SPEC §6): M q̈ =
Q + Jᵀλ with the rows' law — joints held exactly, a contact that holds, slides at μ or lets
go — and the same answer whichever way the host gives M⁻¹ and A."""

import jax.numpy as jnp
import numpy as np
import pytest

import stickslip as ss
from stickslip.constraints import Bilateral, PlanarContact, ProductSet, lambda_stage

G, MASS, MU = 9.81, 2.0, 0.4


def _particle_on_floor(push):
    """A particle (x, y) on the floor y = 0, rows (t, n) = (x, y), pushed sideways by `push`
    under gravity: (solve, M⁻¹)."""
    minv = jnp.full(2, 1.0 / MASS)
    J = jnp.eye(2)
    solve = lambda_stage(ProductSet([PlanarContact(mu=MU)]), J, J * minv[None, :],
                         jnp.zeros(2), lambda v: minv * v, "kikuuwe")
    return solve(jnp.array([push, -MASS * G]))


def test_a_push_below_the_friction_level_is_held_exactly():
    sol, qdd = _particle_on_floor(0.9 * MU * MASS * G)
    np.testing.assert_allclose(qdd, 0.0, atol=1e-12)
    np.testing.assert_allclose(sol.lam, [-0.9 * MU * MASS * G, MASS * G], rtol=1e-12)
    assert int(sol.status) == ss.constraints.STATUS_UNIQUE


def test_a_push_above_it_slides_at_the_kinetic_level():
    push = 1.5 * MU * MASS * G
    sol, qdd = _particle_on_floor(push)
    np.testing.assert_allclose(qdd, [(push - MU * MASS * G) / MASS, 0.0], atol=1e-9)
    np.testing.assert_allclose(sol.lam, [-MU * MASS * G, MASS * G], rtol=1e-9)


def test_a_pull_off_the_floor_leaves_the_contact_force_zero():
    minv = jnp.full(2, 1.0 / MASS)
    J = jnp.eye(2)
    solve = lambda_stage(ProductSet([PlanarContact(mu=MU)]), J, J * minv[None, :],
                         jnp.zeros(2), lambda v: minv * v, "kikuuwe")
    sol, qdd = solve(jnp.array([1.0, 3.0 * MASS * G]))
    np.testing.assert_allclose(sol.lam, 0.0, atol=1e-12)
    np.testing.assert_allclose(qdd, [1.0 / MASS, 3.0 * G], rtol=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_joint_rows_hold_and_the_forms_of_minv_agree(seed):
    """Bilateral rows on a random mechanism: J q̈ = c, M q̈ = Q + Jᵀλ; a diagonal M⁻¹, the
    same as a dense matrix, and A given by the host give one answer; several Q, one stage."""
    rng = np.random.default_rng(seed)
    n, m = 7, 3
    masses = rng.uniform(0.5, 3.0, n)
    J = jnp.asarray(rng.normal(size=(m, n)))
    c = jnp.asarray(rng.normal(size=m))
    minv = jnp.asarray(1.0 / masses)
    Minv = jnp.diag(minv)
    fset = ProductSet([Bilateral(m)])
    diagonal = lambda_stage(fset, J, J * minv[None, :], c, lambda v: minv * v, "kikuuwe")
    dense = lambda_stage(fset, J, J @ Minv, c, lambda v: Minv @ v, "kikuuwe",
                         A=J @ Minv @ J.T)
    for _ in range(2):
        Q = jnp.asarray(rng.normal(size=n))
        sol, qdd = diagonal(Q)
        np.testing.assert_allclose(J @ qdd, c, atol=1e-10)
        np.testing.assert_allclose(masses * qdd, Q + J.T @ sol.lam, atol=1e-10)
        sol_dense, qdd_dense = dense(Q)
        np.testing.assert_allclose(qdd_dense, qdd, atol=1e-12)
        np.testing.assert_allclose(sol_dense.lam, sol.lam, atol=1e-10)
