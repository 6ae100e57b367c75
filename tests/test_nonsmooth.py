"""Theorems (4) and (5) of SPEC §1 and the projections behind them."""

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from stickslip import nonsmooth as ns

finite = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)
radius = st.floats(0.0, 1e3, allow_nan=False)


@given(Z=radius, x=finite)
def test_sat_solves_theorem4_scalar(Z, x):
    y = float(ns.sat(Z, x))
    assert ns.in_sgn(y, x - y, Z, tol=1e-9)


@given(Z=radius, x=st.tuples(finite, finite))
def test_sat_solves_theorem4_planar(Z, x):
    y = np.asarray(ns.sat(Z, np.array(x)))
    assert ns.in_sgn(y, np.array(x) - y, Z, tol=1e-9)


@given(Z=st.floats(1e-3, 1e3), direction=st.floats(0, 2 * np.pi), excess=st.floats(0, 1e3),
       inside=st.floats(0, 1))
def test_every_solution_of_theorem4_is_sat(Z, direction, excess, inside):
    # All solutions (x, y) of y ∈ Z sgn(x − y): either x − y = 0 with ‖y‖ ≤ Z, or
    # y = Z u and x = y + s u with s > 0 (u a unit vector). Both must give y = sat(Z, x).
    u = np.array([np.cos(direction), np.sin(direction)])
    y_stuck = inside * Z * u
    np.testing.assert_allclose(ns.sat(Z, y_stuck), y_stuck, atol=1e-12 * Z)
    y_slip = Z * u
    x_slip = y_slip + excess * u
    np.testing.assert_allclose(ns.sat(Z, x_slip), y_slip, atol=1e-12 * max(Z, excess))


@given(Z=st.floats(0.01, 10), x=st.floats(-20, 20),
       kind=st.sampled_from(["same", "plus", "minus", "other"]), other=st.floats(-20, 20))
def test_any_member_of_theorem4_equals_sat_scalar(Z, x, kind, other):
    # candidates that may satisfy y ∈ Z sgn(x − y): y = x, y = ±Z, or anything else
    y = {"same": x, "plus": Z, "minus": -Z, "other": other}[kind]
    assume(ns.in_sgn(y, x - y, Z, tol=0.0))
    assert y == pytest.approx(float(ns.sat(Z, x)), abs=1e-12)


@given(x=finite)
def test_dio_solve_solves_theorem5(x):
    y = float(ns.dio_solve(x))
    assert y >= 0
    assert ns.in_dio(y, x + y, tol=1e-12)


@given(x=st.floats(-20, 20), kind=st.sampled_from(["zero", "cancel", "other"]),
       other=st.floats(0, 40))
def test_any_member_of_theorem5_equals_dio_solve(x, kind, other):
    # candidates that may satisfy y ∈ dio(x + y): y = 0, y = −x, or anything else
    y = {"zero": 0.0, "cancel": -x, "other": other}[kind]
    assume(y >= 0 and ns.in_dio(y, x + y, tol=0.0))
    assert y == pytest.approx(float(ns.dio_solve(x)), abs=1e-12)


def test_dio_membership_follows_definition():
    assert ns.in_dio(0.0, 1.0) and not ns.in_dio(0.1, 1.0)       # x > 0: only 0
    assert ns.in_dio(5.0, 0.0) and not ns.in_dio(-0.1, 0.0)      # x = 0: [0, ∞)
    assert not ns.in_dio(0.0, -1.0)                              # x < 0: empty


def test_sgn_membership_follows_definition():
    assert ns.in_sgn(1.0, 3.0) and not ns.in_sgn(0.5, 3.0)
    assert ns.in_sgn(0.3, 0.0) and not ns.in_sgn(1.5, 0.0)
    assert ns.in_sgn([0.6, 0.8], [3.0, 4.0]) and not ns.in_sgn([1.0, 0.0], [3.0, 4.0])


def test_sat_gradient_is_finite_at_zero():
    import jax

    g = jax.grad(lambda x: ns.sat(1.0, x).sum())(np.zeros(2))
    assert np.all(np.isfinite(g))


@given(u=st.tuples(finite, finite, finite), mu=st.floats(0.01, 3),
       z=st.tuples(st.floats(-1, 1), st.floats(-1, 1), st.floats(0, 10)))
def test_cone_projection_satisfies_normal_cone_inclusion(u, mu, z):
    # N_S(y) ∋ u − y  ⇔  (u − y)·(z − y) ≤ 0 for every z in S (SPEC §1).
    u = np.array(u)
    y = np.asarray(ns.project_friction_cone(u, mu))
    assert np.linalg.norm(y[:2]) <= mu * y[2] + 1e-9 * (1 + np.abs(u).max())
    z = np.array(z)
    z[:2] *= mu * z[2] / max(np.linalg.norm(z[:2]), 1.0)          # a point of the cone
    assert np.dot(u - y, z - y) <= 1e-7 * (1 + np.abs(u).max()) ** 2


@given(x=finite, lo=st.floats(-10, 0), hi=st.floats(0, 10))
def test_interval_projection_is_nearest_point(x, lo, hi):
    y = float(ns.project_interval(x, lo, hi))
    assert lo <= y <= hi
    assert abs(x - y) <= min(abs(x - lo), abs(x - hi)) + 1e-12


def test_disc_projection_equals_sat():
    np.testing.assert_allclose(ns.project_disc([3.0, 4.0], 2.0), [1.2, 1.6])
