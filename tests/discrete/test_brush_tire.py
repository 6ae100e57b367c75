"""Brush tire as a partial differential-algebraic inclusion (SPEC §6, Kikuuwe et al. SI2007)."""

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import stickslip as ss
from stickslip.discrete._tire import brush_analytic_force, steady_state_curve
from stickslip.nonsmooth import in_sgn

finite = dict(allow_nan=False, allow_infinity=False)
TIRE = ss.discrete.BrushTire.example()
_step = jax.jit(ss.discrete.brush_tire_step)


@settings(max_examples=40)
@given(V=st.floats(-30, 30, **finite), omega=st.floats(-100, 100, allow_subnormal=False, **finite),  # XLA flushes subnormals
       T=st.floats(1e-4, 1e-2, **finite), seed=st.integers(0, 2 ** 31 - 1))
def test_every_node_satisfies_the_discrete_inclusion(V, omega, T, seed):
    e_prev = jnp.asarray(np.random.default_rng(seed).normal(0, 2e-3, TIRE.n_cells + 1))
    Fx, e, f = (np.asarray(x) for x in _step(e_prev, V, omega, T, TIRE))
    n, Z, K, B = TIRE.n_cells, float(TIRE.L) / TIRE.n_cells, float(TIRE.K), float(TIRE.B)
    order = slice(None) if omega >= 0 else slice(None, None, -1)
    e_s, e_old, f_s = e[order], np.asarray(e_prev)[order], f[order]
    q = np.asarray(TIRE.load_density())[order]
    mu, R = float(TIRE.mu), float(TIRE.R)
    transport = T * R * abs(omega)
    T_hat = T * Z / (Z + transport)
    w = V - R * omega
    assert e_s[0] == 0.0
    for i in range(1, n + 1):
        e_hat = (Z * e_old[i] + transport * e_s[i - 1]) / (Z + transport)
        rate = (e_s[i] - e_hat) / T_hat                       # De/Dt
        scale = max(1.0, abs(f_s[i]), (K + B / T_hat) * abs(e_hat), K * T_hat * abs(w))
        assert abs(f_s[i] - (K * e_s[i] + B * rate)) <= 1e-9 * scale
        assert in_sgn(f_s[i], (K * T_hat + B) * (w - rate), mu * q[i], tol=1e-9 * scale)
    assert Fx == pytest.approx(-Z * (f.sum() - 0.5 * (f[0] + f[-1])))


@pytest.mark.parametrize("B, tol", [(0.0, 2e-4), (100.0, 5e-3)])
def test_steady_state_force_matches_the_classic_brush_model(B, tol):
    """Reference: the classic brush model (B = 0, parabolic pressure; Pacejka §3.2). With
    B = 0 only the trapezoid rule on 100 cells differs; B = 100 N·s/m² adds B·w over the
    stick region (~0.3 % of μFz at κ = 0.1)."""
    tire = eqx.tree_at(lambda t: t.B, TIRE, jnp.asarray(B))
    slips = jnp.array([-0.3, -0.1, -0.05, -0.02, 0.0, 0.02, 0.05, 0.1, 0.3])
    Fx, _, _ = steady_state_curve(tire, 10.0, slips, 1e-3, 60)
    sigma = np.asarray(slips) / (1 + np.asarray(slips))       # theoretical slip
    expected = brush_analytic_force(sigma, tire)
    np.testing.assert_allclose(np.asarray(Fx), expected, atol=tol * 4000.0)


def test_stick_at_the_leading_edge_and_sliding_towards_the_trailing_edge():
    slip = 0.05
    _, e, f = steady_state_curve(TIRE, 10.0, jnp.array([slip]), 1e-3, 60)
    f, q = np.abs(np.asarray(f)[0]), float(TIRE.mu) * np.asarray(TIRE.load_density())
    sliding = f >= q * (1 - 1e-9)
    inner = slice(1, -1)                                      # q = 0 at both ends
    stuck_idx = np.flatnonzero(~sliding[inner]) + 1
    slide_idx = np.flatnonzero(sliding[inner]) + 1
    assert stuck_idx.max() < slide_idx.min()                  # stick region first, then slip
    xi_s = float(TIRE.nodes[slide_idx.min()])
    theta_sigma = TIRE.theta() * slip / (1 + slip)
    assert xi_s == pytest.approx(float(TIRE.L) * (1 - theta_sigma), abs=2 * 0.2 / 100)


def test_reversed_rolling_mirrors_the_force():
    e0 = TIRE.initial_state()
    forward = _step(e0, 10.0, 30.0, 1e-3, TIRE)
    backward = _step(e0, -10.0, -30.0, 1e-3, TIRE)
    assert float(backward[0]) == pytest.approx(-float(forward[0]), rel=1e-12)
    np.testing.assert_allclose(np.asarray(backward[1]), -np.asarray(forward[1])[::-1],
                               atol=1e-15)


@pytest.mark.parametrize("field, value", [("L", 0.0), ("K", -1.0), ("B", -1.0), ("mu", -0.1),
                                          ("n_cells", 1), ("pressure", "gaussian")])
def test_bad_tire_parameters_are_rejected(field, value):
    kwargs = dict(L=0.2, K=6e6, B=100.0, mu=1.0, Fz=4000.0, R=0.3, n_cells=100)
    with pytest.raises(ss.ParameterError, match=f"`BrushTire.{field}`"):
        ss.discrete.BrushTire(**{**kwargs, field: value})
