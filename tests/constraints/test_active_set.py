"""The active-set λ-solver (constraints/_active_set.py) against the enumeration, its
certificate, and the Painlevé range of one frictional contact in closed form (SPEC §6).

The enumeration (every mode combination solved) is the independent reference: where it
finds exactly one motion, the active-set solution must have that motion; where it finds
none, the active set must not certify one. For one planar contact the four modes are solved
by hand below, which gives the number of solutions — hence the Painlevé range — without
either solver.
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
from stickslip.constraints._enumeration import enumerate_solutions
from stickslip.planar._contact_examples import block_on_incline


@eqx.filter_jit
def _both(blocks, A, b, formulation):
    lam, _, found, iterations = active_set_solve(blocks, A, b, formulation)
    _, w_e, status, _, _, _ = enumerate_solutions(blocks, A, b, formulation)
    return lam, A @ lam - b, found, iterations, w_e, status


_solve = eqx.filter_jit(C.solve_lambda)


def _problem(seed, n_contacts, singular, extras):
    """Random PSD A (full rank, or of rank 3 — static indeterminacy), b, μ ∈ [0, 1]."""
    rng = np.random.default_rng(seed)
    blocks = [C.PlanarContact(mu=mu) for mu in rng.uniform(0.0, 1.0, n_contacts)]
    if extras:
        blocks += [C.Unilateral(), C.CoulombBound(bound=rng.uniform(0.5, 5.0))]
    m = sum(b.size for b in blocks)
    cols = 3 if singular else m + 2
    J = rng.normal(size=(m, cols))
    A = J @ J.T / m + (0.0 if singular else 1e-3) * np.eye(m)
    b = rng.normal(size=m) * 10.0
    if singular:                  # b in A's range, so that solutions can exist
        b = A @ rng.normal(size=m) * 10.0
    return blocks, jnp.asarray(A), jnp.asarray(b)


def _law_holds(blocks, lam, w, formulation, scale, tol=1e-7):
    lam, w, off = np.asarray(lam), np.asarray(w), 0
    for blk in blocks:
        l, v = lam[off:off + blk.size], w[off:off + blk.size]
        off += blk.size
        t = tol * scale
        if blk.kind == "unilateral":
            assert l[0] >= -t and v[0] >= -t and abs(l[0] * v[0]) <= t * scale
        elif blk.kind == "coulomb":
            F = float(blk.bound)
            assert abs(l[0]) <= F + t
            if abs(l[0]) < F - t:
                assert abs(v[0]) <= t
            else:
                assert l[0] * v[0] <= t * scale          # opposes the motion
        else:
            mu = float(blk.mu)
            lt, ln, wt, wn = l[0], l[1], v[0], v[1]
            assert ln >= -t and abs(lt) <= mu * ln + t
            if ln <= t:
                assert wn >= (mu * abs(wt) if formulation == "anitescu" else 0.0) - t
            elif abs(lt) < mu * ln - t:
                assert abs(wt) <= t and abs(wn) <= t
            else:
                assert lt * wt <= t * scale
                target = mu * abs(wt) if formulation == "anitescu" else 0.0
                assert abs(wn - target) <= t


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(1, 3), singular=st.booleans(),
       extras=st.booleans(), formulation=st.sampled_from(["kikuuwe", "anitescu"]))
def test_active_set_agrees_with_the_enumeration(seed, n, singular, extras, formulation):
    blocks, A, b = _problem(seed, n, singular, extras)
    lam, w, found, iterations, w_e, status = _both(blocks, A, b, formulation)
    scale = float(jnp.max(jnp.abs(b)) + jnp.max(jnp.abs(A)) * jnp.max(jnp.abs(lam)))
    if bool(found):
        # the certificate: the returned λ meets the law, read directly
        _law_holds(blocks, lam, w, formulation, scale)
        assert int(status) != C.STATUS_NONE          # the enumeration finds it too
        if int(status) == C.STATUS_UNIQUE:            # … and it is the only motion
            np.testing.assert_allclose(w, w_e, atol=1e-7 * scale)
    # the public solver always ends with the enumeration's verdict on existence
    sol = _solve(C.ProductSet(blocks), A, b, formulation, "full")
    assert int(sol.status) == int(status)
    if int(status) == C.STATUS_UNIQUE:
        np.testing.assert_allclose(sol.w, w_e, atol=1e-7 * scale)


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
    sol = C.solve_lambda(F, jnp.eye(2), jnp.array([-3.0, 10.0]))
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
    auto = C.solve_lambda(F4, A, b)
    full = C.solve_lambda(F4, A, b, certify="full")
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
    auto = C.solve_lambda(F, jnp.asarray(A), jnp.asarray(b))
    full = C.solve_lambda(F, jnp.asarray(A), jnp.asarray(b), certify="full")
    assert int(auto.status) == C.STATUS_UNIQUE and not bool(auto.verified)
    assert int(full.status) == C.STATUS_SEVERAL and bool(full.verified)


def test_vmap_and_grad_through_the_active_set():
    F = C.ProductSet([C.PlanarContact(mu=0.5), C.PlanarContact(mu=0.3)])
    rng = np.random.default_rng(1)
    Jm = rng.normal(size=(4, 6))
    A = jnp.asarray(Jm @ Jm.T / 6 + 1e-2 * np.eye(4))
    bs = jnp.asarray(rng.normal(size=(16, 4)) * 10)
    batched = jax.vmap(lambda b: C.solve_lambda(F, A, b).lam)(bs)
    single = np.stack([np.asarray(C.solve_lambda(F, A, b).lam) for b in bs])
    np.testing.assert_allclose(batched, single, rtol=1e-12, atol=1e-12)
    # d(friction)/d(push) of a sliding contact is 0, of a sticking one 1 (finite difference)
    g = jax.grad(lambda p: C.solve_lambda(C.ProductSet([C.PlanarContact(mu=0.5)]),
                                          jnp.eye(2), jnp.stack([-p, 10.0])).lam[0])
    assert float(g(3.0)) == pytest.approx(-1.0) and float(g(8.0)) == pytest.approx(0.0)


def test_painleve_check_names_its_choices():
    with pytest.raises(ss.ParameterError, match="painleve_check"):
        block_on_incline().simulate(0.01, dt=1e-3, painleve_check="sometimes")
    with pytest.raises(ss.ParameterError, match="certify"):
        C.solve_lambda(C.ProductSet([C.PlanarContact(mu=0.5)]), jnp.eye(2), jnp.ones(2),
                       certify="always")


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
