"""Discrete friction algorithms: exact membership in their discrete inclusions (SPEC §6),
convergence to eq. 10 as T → 0, stateful wrappers and bad input."""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import stickslip as ss
from stickslip.nonsmooth import in_sgn

finite = dict(allow_nan=False, allow_infinity=False)
period = st.floats(1e-5, 1e-1, **finite)


@given(x_prev=st.floats(-10, 10, **finite), u=st.floats(-100, 100, **finite), T=period)
def test_sign_inclusion_step_solves_backward_euler_inclusion(x_prev, u, T):
    x = float(ss.discrete.sign_inclusion_step(x_prev, u, T))
    # (x_k − x_{k−1})/T ∈ −sgn(x_k) − u_k  ⇔  −((x_k − x_{k−1})/T + u_k) ∈ sgn(x_k)
    y = -((x - x_prev) / T + u)
    assert in_sgn(y, x, 1.0, tol=1e-9 * max(1.0, abs(u), abs(x_prev) / T))


def test_sign_inclusion_step_reaches_zero_and_stays_without_chattering():
    x, xs = 0.0105, []
    for _ in range(40):
        x = float(ss.discrete.sign_inclusion_step(x, 0.3, 1e-3))  # |u| < 1: x = 0 is stable
        xs.append(x)
    assert xs[-25:] == [0.0] * 25


@given(v_prev=st.floats(-10, 10, **finite), h=st.floats(-100, 100, **finite),
       M=st.floats(1e-2, 100, **finite), F=st.floats(0, 50, **finite), T=period)
def test_coulomb_mass_step_satisfies_its_discrete_inclusion(v_prev, h, M, F, T):
    v, f = (float(a) for a in ss.discrete.coulomb_mass_step(v_prev, h, M, F, T))
    scale = max(1.0, abs(h), M * abs(v_prev) / T)
    assert abs(M * (v - v_prev) / T - (h - f)) <= 1e-12 * scale     # momentum balance
    assert in_sgn(f, v, F, tol=1e-12 * scale * T / M + 1e-12)         # f_k ∈ F sgn(v_k)
    assert abs(f) <= F * (1 + 1e-15)


def test_coulomb_mass_step_planar_velocity_is_isotropic():
    v, f = ss.discrete.coulomb_mass_step(jnp.array([1.0, 0.0]), jnp.array([0.0, 3.0]),
                                         M=1.0, F=0.5, T=1e-3)
    assert float(jnp.linalg.norm(f)) == pytest.approx(0.5)
    assert in_sgn(np.asarray(f), np.asarray(v), 0.5, tol=1e-9)


@given(e_prev=st.floats(-1e-2, 1e-2, **finite), v=st.floats(-10, 10, **finite),
       F=st.floats(0, 50, **finite), K=st.floats(0, 1e6, **finite),
       B=st.floats(1e-2, 1e3, **finite), T=period)
def test_da_relaxation_step_satisfies_its_discrete_inclusion(e_prev, v, F, K, B, T):
    f, e = (float(a) for a in ss.discrete.da_relaxation_step(e_prev, v, F, K, B, T))
    scale = max(1.0, (K * T + B) * abs(v), (K + B / T) * abs(e_prev))
    # f_k = K e_k + B (e_k − e_{k−1})/T
    assert abs(f - (K * e + B * (e - e_prev) / T)) <= 1e-11 * scale
    # f_k ∈ F sgn(v_k − (e_k − e_{k−1})/T): test the argument scaled by (KT + B) > 0
    arg = (K * T + B) * (v - (e - e_prev) / T)
    assert in_sgn(f, arg, F, tol=1e-11 * scale)


def test_stateful_wrappers_match_pure_steps_and_reject_nonfinite_input():
    mass = ss.discrete.CoulombMass(M=2.0, F=1.0, T=1e-3)
    v = 0.0
    for h in (3.0, 3.0, -0.5, 0.2):
        f_loop = mass.step(h)
        v, f = ss.discrete.coulomb_mass_step(v, h, 2.0, 1.0, 1e-3)
        assert f_loop == pytest.approx(float(f), rel=1e-15, abs=1e-15)
        assert mass.v == pytest.approx(float(v), rel=1e-15, abs=1e-18)
    with pytest.raises(ss.SimulationError, match=r"k=4"):
        mass.step(math.nan)
    relax = ss.discrete.DARelaxation(F=2.0, K=1e4, B=50.0, T=1e-3)
    relax.step(0.1)
    with pytest.raises(ss.SimulationError, match=r"non-finite v=inf at step k=1"):
        relax.step(math.inf)


@pytest.mark.parametrize("kwargs, name", [
    (dict(M=1.0, F=1.0, T=0.0), "T"), (dict(M=1.0, F=-1.0, T=1e-3), "F"),
    (dict(M=-1.0, F=1.0, T=1e-3), "M")])
def test_coulomb_mass_rejects_bad_parameters(kwargs, name):
    with pytest.raises(ss.ParameterError, match=rf"`CoulombMass.{name}`"):
        ss.discrete.CoulombMass(**kwargs)


@pytest.mark.parametrize("kwargs, name", [
    (dict(F=1.0, K=1e3, B=0.0, T=1e-3), "B"), (dict(F=1.0, K=1e3, B=1.0, T=-1e-3), "T"),
    (dict(F=-1.0, K=1e3, B=1.0, T=1e-3), "F")])
def test_da_relaxation_rejects_bad_parameters(kwargs, name):
    with pytest.raises(ss.ParameterError, match=rf"`DARelaxation.{name}`"):
        ss.discrete.DARelaxation(**kwargs)


def test_pure_steps_reject_nonpositive_period():
    with pytest.raises(ss.ParameterError, match="`coulomb_mass_step.T` must be > 0"):
        ss.discrete.coulomb_mass_step(0.0, 1.0, 1.0, 1.0, 0.0)
    with pytest.raises(ss.ParameterError, match="`da_relaxation_step.B` must be > 0"):
        ss.discrete.da_relaxation_step(0.0, 1.0, 1.0, 1.0, -1.0, 1e-3)
    with pytest.raises(ss.ParameterError, match="`coulomb_mass_step.F` must be >= 0"):
        ss.discrete.coulomb_mass_step(0.0, 1.0, 1.0, -1.0, 1e-3)
    with pytest.raises(ss.ParameterError, match="`sign_inclusion_step.T` must be finite"):
        ss.discrete.sign_inclusion_step(0.0, 1.0, float("nan"))


# --- T → 0: the discrete mass converges to the continuous eq. 10 solution ------------------

M_, F_, T_END = 1.0, 0.5, 2.0


def _force(t):
    return 1.2 * jnp.sin(2 * jnp.pi * t)          # exceeds F: stick, slip, stick again




def _discrete_velocity(T):
    n = round(T_END / T)
    ts = jnp.arange(1, n + 1) * T

    def body(v, t):
        v, _ = ss.discrete.coulomb_mass_step(v, _force(t), M_, F_, T)
        return v, v
    _, vs = jax.lax.scan(body, jnp.asarray(0.0), ts)
    return np.concatenate([[0.0], np.asarray(vs)])


def test_discrete_friction_mass_converges_to_eq10_at_first_order():
    # Reference: eq. 10 (CoulombODE, stiff K so that its own error, ~F/(M√(K/M)), is far
    # below the discrete errors measured here), RK4 with a step well inside stability.
    law = ss.laws.CoulombODE(F=F_, K=1e8, beta=1e-4)
    block = ss.systems.FrictionMass(M=M_, law=law, force=_force)
    ref = ss.simulate(block, T_END, dt=1e-5, dt_out=2e-2)
    steps = np.array([2e-2, 1e-2, 5e-3, 2.5e-3])
    errors = []
    for T in steps:
        v = _discrete_velocity(T)[:: round(2e-2 / T)]
        errors.append(np.max(np.abs(v - ref["v"])))
    slope = np.polyfit(np.log(steps), np.log(errors), 1)[0]
    assert errors[-1] < 1e-2
    assert 0.8 < slope < 1.3, (errors, slope)       # backward Euler: first order
