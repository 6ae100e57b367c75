"""The active-set λ-solver (constraints/_active_set.py): its guesses, its certificate, and
the Painlevé range of one frictional contact in closed form (SPEC §6).

For one planar contact the four modes are solved by hand below, which gives the number of
solutions — hence the Painlevé range — without either solver. The active set against the
enumeration, and both against Siconos, on stored instances: test_lambda_bank.py.
"""

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import stickslip as ss
from stickslip import constraints as C
from stickslip.constraints._active_set import active_set_solve
from stickslip.planar._contact_examples import block_on_incline

_solve = eqx.filter_jit(C.solve_lambda)


def test_the_guess_is_right_for_a_sliding_and_a_resting_block():
    # unit mass on a floor, pressed by 10 N: pushed by 8 N it slides (one solve, no pivot),
    # by 3 N it sticks (one pivot from the sliding guess)
    blocks = [C.PlanarContact(mu=0.5)]
    for push, iterations in ((8.0, 1), (3.0, 2)):
        lam, _, found, it = active_set_solve(blocks, jnp.eye(2), jnp.array([-push, 10.0]),
                                             "kikuuwe")
        assert bool(found) and int(it) == iterations
        assert float(lam[0]) == pytest.approx(-min(push, 5.0), abs=1e-13)


def test_verified_says_how_uniqueness_was_decided():
    # small μ on a regular A: the monotonicity bound λ_min(A) > μ‖A_T‖ proves uniqueness
    F = C.ProductSet([C.PlanarContact(mu=0.1)])
    sol = _solve(F, jnp.eye(2), jnp.array([-3.0, 10.0]))
    assert bool(sol.verified) and int(sol.status) == C.STATUS_UNIQUE
    # four corners of a slider in a guide (A of rank 2): the bound cannot hold; "auto" does
    # not enumerate 256 combinations, "full" does
    a, h = 0.05, 0.025
    corners = [(-a, -h, 1), (a, -h, 1), (-a, h, -1), (a, h, -1)]
    rows = []
    for x, y, s in corners:           # (t, n) rows of a body with (y, φ) free: [ẏ, φ̇]
        rows += [[0.0, -y], [float(s), s * x]]
    Jr = np.array(rows)
    A = jnp.asarray(Jr @ np.diag([1 / 0.14, 1 / 1e-4]) @ Jr.T)
    b = jnp.asarray(Jr @ np.array([9.81, 0.0]))    # b = −J M⁻¹Q: gravity presses the bottom
    F4 = C.ProductSet([C.PlanarContact(mu=0.01) for _ in corners])
    auto = _solve(F4, A, b)
    full = _solve(F4, A, b, certify="full")
    assert int(auto.status) == int(full.status) == C.STATUS_UNIQUE
    assert not bool(auto.verified) and bool(full.verified)
    np.testing.assert_allclose(auto.w, full.w, atol=1e-9)
    # the bottom corners carry the weight 0.14·9.81 N between them
    assert float(auto.lam[1] + auto.lam[3]) == pytest.approx(0.14 * 9.81, rel=1e-9)


def _one_contact_solutions(A, b, mu):
    """The solutions of one planar contact's λ-problem (kikuuwe), mode by mode, by hand:
    separate (λ = 0), stick (w = 0), slide± (λ_t = ∓μλ_n, w_n = 0, ±w_t ≥ 0)."""
    a, c, d = A[0, 0], A[0, 1], A[1, 1]
    bt, bn = b
    out = []
    if -bn >= 0:
        out.append((0.0, 0.0))
    lt, ln = np.linalg.solve(A, b)
    if ln >= 0 and abs(lt) <= mu * ln:
        out.append((lt, ln))
    for s in (1.0, -1.0):             # slide+: λ_t = −μλ_n, w_t ≥ 0
        k = d - s * mu * c
        if k != 0:
            ln = bn / k
            wt = (c - s * mu * a) * ln - bt
            if ln >= 0 and s * wt >= 0:
                out.append((-s * mu * ln, ln))
    return out


def _margin(A, b, mu):
    """The smallest distance of the hand solution's tests from their thresholds."""
    a, c, d = A[0, 0], A[0, 1], A[1, 1]
    bt, bn = b
    lt, ln = np.linalg.solve(A, b)
    vals = [bn, mu * ln - abs(lt), ln]
    for s in (1.0, -1.0):
        k = d - s * mu * c
        vals += [k, bn / k, (c - s * mu * a) * bn / k - bt]
    return min(abs(v) for v in vals)


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**31 - 1))
def test_painleve_range_of_one_contact_in_closed_form(seed):
    # a rod-like contact: A from a point at a lever arm, μ up to 3 — both inconsistency (no
    # solution) and non-uniqueness (several) occur, exactly where the hand count says
    rng = np.random.default_rng(seed)
    theta, mu = rng.uniform(0.1, 1.4), rng.uniform(0.0, 3.0)
    l, m = 0.5, 1.0
    r = np.array([-l * np.cos(theta), -l * np.sin(theta)])
    J = np.array([[1.0, 0.0, -r[1]], [0.0, 1.0, r[0]]])
    A = J @ np.diag([1 / m, 1 / m, 3 / (m * l * l)]) @ J.T
    b = rng.normal(size=2) * 50.0
    assume(_margin(A, b, mu) > 1e-6 * (1 + np.max(np.abs(b))))
    count = len(_one_contact_solutions(A, b, mu))
    sol = _solve(C.ProductSet([C.PlanarContact(mu=mu)]), jnp.asarray(A), jnp.asarray(b),
                 "kikuuwe", "auto")
    expected = {0: C.STATUS_NONE, 1: C.STATUS_UNIQUE}.get(count, C.STATUS_SEVERAL)
    assert int(sol.status) == expected
    assert bool(sol.verified)                 # one contact: always decided exactly


def test_painleve_in_a_larger_problem_needs_full_checking():
    # a one-contact Painlevé case (several solutions) plus three far contacts (256
    # combinations > 16): "auto" returns a certified solution but cannot vouch for uniqueness; "full"
    # finds the second solution
    theta, mu, l = 0.6, 2.5, 0.5
    r = np.array([-l * np.cos(theta), -l * np.sin(theta)])
    J = np.array([[1.0, 0.0, -r[1]], [0.0, 1.0, r[0]]])
    A1 = J @ np.diag([1.0, 1.0, 12.0]) @ J.T
    c, d = A1[0, 1], A1[1, 1]
    assert d + mu * c < 0                     # sliding (λ_t = +μλ_n): negative effective mass
    b1 = np.array([40.0, -5.0])
    assert len(_one_contact_solutions(A1, b1, mu)) == 3
    A = np.eye(8)
    A[:2, :2] = A1
    b = np.concatenate([b1, [0.0, -100.0] * 3])         # far contacts: w_n = 100 > 0
    F = C.ProductSet([C.PlanarContact(mu=mu)] + [C.PlanarContact(mu=0.2)] * 3)
    auto = _solve(F, jnp.asarray(A), jnp.asarray(b))
    full = _solve(F, jnp.asarray(A), jnp.asarray(b), certify="full")
    assert int(auto.status) == C.STATUS_UNIQUE and not bool(auto.verified)
    assert int(full.status) == C.STATUS_SEVERAL and bool(full.verified)


def test_painleve_check_names_its_choices():
    with pytest.raises(ss.ParameterError, match="painleve_check"):
        block_on_incline().simulate(0.01, dt=1e-3, painleve_check="sometimes")
    with pytest.raises(ss.ParameterError, match="certify"):
        C.solve_lambda(C.ProductSet([C.PlanarContact(mu=0.5)]), jnp.eye(2), jnp.ones(2),
                       certify="always")


@pytest.mark.slow
def test_derivative_of_the_active_set_solution_matches_finite_differences():
    """Four contacts, a full-rank A, only the active set (no enumeration): reverse- and
    forward-mode derivatives of λ in b and in μ equal central differences (the mode is
    the same at b ± h). The derivative is that of the found combination's linear solve."""
    rng = np.random.default_rng(7)
    Jm = rng.normal(size=(8, 10))
    A = jnp.asarray(Jm @ Jm.T / 10 + 1e-2 * np.eye(8))
    # every contact pressed (free w_n = −b_n < 0), tangential pushes of either sign
    b = jnp.asarray(np.stack([rng.normal(size=4) * 5.0, rng.uniform(5.0, 20.0, 4)], 1).ravel())
    weights = jnp.asarray(rng.normal(size=8))

    def f(b, mu):
        F = C.ProductSet([C.PlanarContact(mu=mu)] * 4)
        return weights @ C.solve_lambda(F, A, b, certify="none", fallback=False).lam

    f = jax.jit(f)
    g_b, g_mu = jax.grad(f, argnums=(0, 1))(b, 0.4)
    h = 1e-6
    fd_b = np.array([(f(b.at[k].add(h), 0.4) - f(b.at[k].add(-h), 0.4)) / (2 * h)
                     for k in range(8)])
    fd_mu = (f(b, 0.4 + h) - f(b, 0.4 - h)) / (2 * h)
    assert np.max(np.abs(fd_b)) > 0.1                     # λ depends on b here
    np.testing.assert_allclose(g_b, fd_b, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(float(g_mu), float(fd_mu), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(jax.jacfwd(f)(b, 0.4), g_b, rtol=1e-12, atol=1e-12)
