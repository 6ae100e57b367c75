"""The λ-problem of SPEC §6: the solver under jit, vmap and grad, and its argument checks.

That its solutions satisfy the inclusion for every formulation and solver (read directly:
normal ≥ 0, in the cone, complementarity, maximal dissipation), equal Siconos' where unique,
and that Painlevé and unsolvable problems are reported, is checked on the bank of stored
instances: tests/constraints/test_lambda_bank.py.
"""

import jax
import jax.extend.core
import jax.numpy as jnp
import numpy as np
import pytest

import stickslip as ss
from stickslip import constraints as C


def _random_problem(seed, n_contacts, n_bilateral, spatial, extra_rank=2):
    rng = np.random.default_rng(seed)
    sizes = [3 if spatial else 2] * n_contacts
    m = n_bilateral + sum(sizes)
    J = rng.normal(size=(m, m + extra_rank))
    A = J @ J.T / (m + extra_rank) + 1e-3 * np.eye(m)
    b = rng.normal(size=m) * 10.0
    mus = rng.uniform(0.0, 1.0, size=n_contacts)
    blocks = ([C.Bilateral(n_bilateral)] if n_bilateral else []) + [
        (C.SpatialContact(mu=mu) if spatial else C.PlanarContact(mu=mu)) for mu in mus]
    return C.ProductSet(blocks), A, b, mus


@pytest.mark.slow
def test_solution_is_jittable_vmappable_and_differentiable():
    F = C.ProductSet([C.Bilateral(1), C.PlanarContact(mu=0.3), C.PlanarContact(mu=0.6)])
    _, A, _, _ = _random_problem(3, 2, 1, spatial=False)
    A = jnp.asarray(A)
    f = jax.jit(lambda bb: C.solve_lambda(F, A, bb).lam)
    bs = jnp.asarray(np.random.default_rng(0).normal(size=(3, 5)))
    eager = np.stack([np.asarray(C.solve_lambda(F, A, bb).lam) for bb in bs])
    np.testing.assert_allclose(jax.vmap(f)(bs), eager, rtol=1e-12, atol=1e-12)
    # sliding block: the friction force's derivative with respect to the push is 0 (slide)
    # or 1 (stick) — compare with a finite difference
    G = C.ProductSet([C.PlanarContact(mu=0.5)])
    g = jax.jit(jax.grad(lambda p: C.solve_lambda(G, jnp.eye(2), jnp.stack([-p, 10.0])).lam[0]))
    assert float(g(3.0)) == pytest.approx(-1.0)
    assert float(g(8.0)) == pytest.approx(0.0, abs=1e-12)
    mu_grad = jax.grad(lambda mu: C.solve_lambda(C.ProductSet([C.PlanarContact(mu=mu)]),
                                                 jnp.eye(2), jnp.array([-8.0, 10.0])).lam[0])
    assert float(mu_grad(0.5)) == pytest.approx(-10.0)


def test_unknown_formulation_names_the_choices():
    F = C.ProductSet([C.PlanarContact(mu=0.5)])
    with pytest.raises(ss.ParameterError, match="contact_formulation"):
        C.solve_lambda(F, jnp.eye(2), jnp.zeros(2), "moreau")


def _while_loops(jaxpr) -> int:
    """The while loops of a jaxpr, nested ones included."""
    count = 0
    for eqn in jaxpr.eqns:
        count += eqn.primitive.name == "while"
        for sub in jax.extend.core.jaxprs_in_params(eqn.params):
            count += _while_loops(sub)
    return count


def test_without_the_safeguard_the_spatial_solve_is_the_same_and_smaller():
    # a solve whose λ only starts another (a link step's first proximal solve) leaves the
    # Gauss–Seidel safeguard out of its program: the same λ where the Newton rounds converge
    F, A, b, _ = _random_problem(7, 3, 2, spatial=True)
    A, b = jnp.asarray(A), jnp.asarray(b)

    def solve(bb, safeguard):
        sol = C.solve_lambda(F, A, bb, certify="none", fallback=False, safeguard=safeguard)
        return sol.lam, sol.residual
    with_it, without = jax.jit(lambda bb: solve(bb, True)), jax.jit(lambda bb: solve(bb, False))
    for k in range(4):
        bb = b * (1.0 + 0.3 * k)
        (lam_a, res_a), (lam_b, res_b) = with_it(bb), without(bb)
        assert float(res_a) < 1e-12 and float(res_b) < 1e-12
        scale = float(jnp.max(jnp.abs(lam_a)))
        np.testing.assert_allclose(lam_b, lam_a, rtol=0, atol=1e-12 * scale)
    loops = [_while_loops(jax.make_jaxpr(lambda bb, s=s: solve(bb, s))(b).jaxpr)
             for s in (True, False)]
    assert loops[1] < loops[0], loops
