"""The discrete-time friction steps with a friction curve (issue 22): static above kinetic,
Stribeck, viscous — each step the exact solution of its backward-Euler inclusion
``M (v_k − v_{k−1})/T = h_k − f_k``, ``f_k ∈ F(|v_k|)·sgn(v_k)``, F(0) = F_s."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import stickslip as ss

CURVE = dict(F_s=0.5, v_stribeck=0.01, viscous=0.2)
_step = jax.jit(lambda v, h: ss.discrete.coulomb_mass_step(v, h, 1.0, 0.4, 1e-3, **CURVE))
_da = jax.jit(lambda e, v: ss.discrete.da_relaxation_step(e, v, 0.4, 1e3, 10.0, 1e-3, **CURVE))


@settings(max_examples=300, deadline=None)
@given(v_prev=st.floats(-1.0, 1.0), h=st.floats(-2.0, 2.0))
def test_coulomb_mass_step_solves_its_inclusion(v_prev, h):
    """Stick (v_k = 0) exactly when the force that stops the mass, |M v/T + h|, is ≤ F_s;
    else the momentum balance holds with f_k = F(|v_k|)·sgn(v_k) to round-off."""
    v, f = (float(x) for x in _step(v_prev, h))
    w = v_prev / 1e-3 + h
    if abs(w) <= 0.5:
        assert v == 0.0 and f == pytest.approx(w, abs=1e-12)
    else:
        assert v != 0.0 and np.sign(v) == np.sign(w)
        level = float(ss.laws.friction_curve(jnp.asarray(abs(v)), 0.4, 0.5, 0.01, 2, 0.2))
        assert f == pytest.approx(np.sign(v) * level, rel=1e-12)
        assert (v - v_prev) / 1e-3 == pytest.approx(h - f, rel=1e-9, abs=1e-9)


@settings(max_examples=300, deadline=None)
@given(e_prev=st.floats(-1e-3, 1e-3), v=st.floats(-1.0, 1.0))
def test_da_relaxation_step_solves_its_inclusion(e_prev, v):
    """The proxy sticks (ė = v) exactly when |(KT + B)v + K e| ≤ F_s; else f = F(|u|)·sgn(u)
    with the proxy slip u = v − ė, and f = K e_k + B ė."""
    f, e = (float(x) for x in _da(e_prev, v))
    rate = (e - e_prev) / 1e-3
    assert f == pytest.approx(1e3 * e + 10.0 * rate, rel=1e-9, abs=1e-12)
    u = v - rate
    if abs(11.0 * v + 1e3 * e_prev) <= 0.5:
        assert abs(u) < 1e-12
    else:
        level = float(ss.laws.friction_curve(jnp.asarray(abs(u)), 0.4, 0.5, 0.01, 2, 0.2))
        assert abs(f) == pytest.approx(level, rel=1e-9) and f * u > 0


def test_a_load_between_the_levels_never_moves_the_mass_at_any_period():
    """0.45 N, between F = 0.4 and F_s = 0.5 N: not one step moves (10⁵ steps at T = 1 ms
    and at T = 0.1 s)."""
    for T in (1e-3, 0.1):
        def step(v, _):
            v, _ = ss.discrete.coulomb_mass_step(v, 0.45, 1.0, 0.4, T, F_s=0.5)
            return v, v
        _, vs = jax.lax.scan(step, jnp.asarray(0.0), None, length=100_000)
        assert np.all(np.asarray(vs) == 0.0)


def test_the_loop_wrapper_breaks_away_above_the_static_level():
    sim = ss.discrete.CoulombMass(M=1.0, F=0.4, T=1e-3, F_s=0.5)
    assert [sim.step(0.49) for _ in range(100)][-1] == pytest.approx(0.49)
    assert sim.v == 0.0
    forces = [sim.step(0.51) for _ in range(100)]
    assert sim.v == pytest.approx(100 * 1e-3 * 0.11, rel=1e-9)   # (0.51 − F)·T per step
    assert forces[-1] == pytest.approx(0.4)


def test_one_level_is_the_seed_step():
    for v_prev, h in [(0.0, 0.3), (0.1, -2.0), (-0.3, 0.1)]:
        a = ss.discrete.coulomb_mass_step(v_prev, h, 1.0, 0.5, 1e-3)
        b = ss.discrete.coulomb_mass_step(v_prev, h, 1.0, 0.5, 1e-3, F_s=0.5)
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-15, atol=1e-15)


def test_static_below_kinetic_is_refused():
    with pytest.raises(ss.errors.ParameterError, match="F_s"):
        ss.discrete.coulomb_mass_step(0.0, 0.1, 1.0, 0.5, 1e-3, F_s=0.4)
    with pytest.raises(ss.errors.ParameterError, match="CoulombMass.F"):
        ss.discrete.CoulombMass(M=1.0, F=0.5, T=1e-3, F_s=0.4)


def test_needle_rendering_sticks_while_held_and_slides_kinetically():
    """The needle-insertion figure's claims (seed 001, friction rendering): from the same
    quantised, filtered velocity, DA relaxation never exceeds the static level f_s·d and does
    not flip sign while the hand is held (naive F_s·sgn(v) flips dozens of times); while the
    needle moves steadily the rendered force is the kinetic level f_k·d to 1e-9."""
    from stickslip.figures import _needle_insertion as needle

    t, depth, velocity, holding = needle.needle_motion()
    da, naive = (np.asarray(x) for x in needle.render(jnp.asarray(depth),
                                                       jnp.asarray(velocity)))
    assert np.all(np.abs(da) <= needle.F_STATIC * depth * (1 + 1e-12))
    assert needle._flips(da, holding) <= 2 and needle._flips(naive, holding) >= 20
    moving = (np.abs(velocity) > 0.9 * 0.010) & ~holding
    window = np.ones(101)                    # moving for 50 ms before and after the sample
    steady = np.convolve(moving.astype(float), window, mode="same") == window.size
    np.testing.assert_allclose(np.abs(da[steady]), needle.F_KINETIC * depth[steady],
                               rtol=1e-9)
