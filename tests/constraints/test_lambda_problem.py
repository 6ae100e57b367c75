"""The λ-problem of SPEC §6: the solution satisfies the inclusion, for every formulation.

The checks read the law directly (normal ≥ 0, |friction| ≤ μ·normal, complementarity,
sticking ⇒ w = 0, sliding ⇒ friction opposite to w_t and, for the seed's limit law, w_n = 0),
independently of how the solver found λ.
"""

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import stickslip as ss
from stickslip import constraints as C

TOL = 1e-7

# one compile per problem structure (the hypothesis examples reuse it)
_solve = eqx.filter_jit(C.solve_lambda)


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


def _check_law(fset, lam, w, formulation, scale):
    off = 0
    for blk in fset.blocks:
        s = blk.size
        l, v = np.asarray(lam[off:off + s]), np.asarray(w[off:off + s])
        off += s
        if blk.kind == "bilateral":
            assert np.max(np.abs(v)) <= TOL * scale
            continue
        mu = float(blk.mu)
        lt, ln, wt, wn = l[:-1], l[-1], v[:-1], v[-1]
        assert ln >= -TOL * scale                                  # pushes, never pulls
        assert np.linalg.norm(lt) <= mu * ln + TOL * scale         # inside the cone
        if ln <= TOL * scale:                                      # separated
            bound = mu * np.linalg.norm(wt) if formulation == "anitescu" else 0.0
            assert wn >= bound - TOL * scale
        elif np.linalg.norm(lt) < mu * ln - TOL * scale:           # sticking
            assert np.max(np.abs(v)) <= TOL * scale
        else:                                                      # sliding
            # friction opposite to the sliding w_t (antiparallel or w_t = 0)
            assert float(lt @ wt) <= TOL * scale * (np.linalg.norm(lt) + 1)
            cross = np.linalg.norm(lt) * np.linalg.norm(wt) + float(lt @ wt)
            assert cross <= 1e-6 * scale * (np.linalg.norm(lt) + 1)
            target = mu * np.linalg.norm(wt) if formulation == "anitescu" else 0.0
            assert abs(wn - target) <= TOL * scale                 # complementarity


@settings(max_examples=40)
@given(seed=st.integers(0, 2**31 - 1), formulation=st.sampled_from(["kikuuwe", "anitescu"]))
def test_planar_solution_satisfies_the_inclusion(seed, formulation):
    fset, A, b, _ = _random_problem(seed, 3, 1, spatial=False)
    sol = _solve(fset, A, b, formulation)
    if int(sol.status) == C.STATUS_NONE:
        assert formulation == "kikuuwe"          # the convex problem always has a solution
        return
    scale = float(np.max(np.abs(b)) + np.max(np.abs(A)) * np.max(np.abs(sol.lam)))
    _check_law(fset, sol.lam, sol.w, formulation, scale)
    if formulation == "anitescu":                # monotone: the motion is unique
        assert int(sol.status) == C.STATUS_UNIQUE


@settings(max_examples=20)
@given(seed=st.integers(0, 2**31 - 1), formulation=st.sampled_from(["kikuuwe", "anitescu"]))
def test_spatial_solution_satisfies_the_inclusion(seed, formulation):
    fset, A, b, _ = _random_problem(seed, 2, 0, spatial=True, extra_rank=6)
    sol = _solve(fset, A, b, formulation)
    scale = float(np.max(np.abs(b)) + np.max(np.abs(A)) * np.max(np.abs(sol.lam)))
    if int(sol.status) != C.STATUS_UNIQUE:
        pytest.skip("no solution certified (spatial problems have no uniqueness certificate)")
    _check_law(fset, sol.lam, sol.w, formulation, scale)


@settings(max_examples=40)
@given(seed=st.integers(0, 2**31 - 1))
def test_nakaoka_force_lies_in_the_admissible_set(seed):
    fset, A, b, mus = _random_problem(seed, 3, 1, spatial=False)
    sol = _solve(fset, A, b, "nakaoka")
    lam = np.asarray(sol.lam)
    for k, mu in enumerate(mus):
        lt, ln = lam[1 + 2 * k], lam[2 + 2 * k]
        assert ln >= 0 and abs(lt) <= mu * ln + 1e-12
    assert abs(float(sol.w[0])) <= 1e-8 * (np.max(np.abs(b)) + np.max(np.abs(lam)))


def test_block_on_a_floor_sticks_below_and_slides_above_the_bound():
    # unit mass on a floor: w = λ − b; pressed by 10 N, pushed sideways by 3 N or 8 N
    F = C.ProductSet([C.PlanarContact(mu=0.5)])
    stick = C.solve_lambda(F, jnp.eye(2), jnp.array([-3.0, 10.0]))
    np.testing.assert_allclose(stick.lam, [-3.0, 10.0], atol=1e-14)
    np.testing.assert_allclose(stick.w, 0.0, atol=1e-14)
    slide = C.solve_lambda(F, jnp.eye(2), jnp.array([-8.0, 10.0]))
    np.testing.assert_allclose(slide.lam, [-5.0, 10.0], atol=1e-14)   # friction μN = 5 N
    np.testing.assert_allclose(slide.w, [3.0, 0.0], atol=1e-14)       # (8 − 5)/1 m/s²
    ani = C.solve_lambda(F, jnp.eye(2), jnp.array([-8.0, 10.0]), "anitescu")
    # the convexified law lifts the sliding block: w_n = μ|w_t| (SPEC §6, Anitescu–Tasora)
    assert float(ani.w[1]) == pytest.approx(0.5 * float(ani.w[0]), rel=1e-12)
    assert float(ani.w[1]) > 0.1


def test_solution_is_jittable_vmappable_and_differentiable():
    F = C.ProductSet([C.Bilateral(1), C.PlanarContact(mu=0.3), C.PlanarContact(mu=0.6)])
    fset, A, b, _ = _random_problem(3, 2, 1, spatial=False)
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


def test_coulomb_bound_and_unilateral_rows():
    F = C.ProductSet([C.CoulombBound(bound=2.0), C.Unilateral()])
    sol = C.solve_lambda(F, jnp.eye(2), jnp.array([5.0, -1.0]))
    np.testing.assert_allclose(sol.lam, [2.0, 0.0])       # saturated; separated
    np.testing.assert_allclose(sol.w, [-3.0, 1.0])
