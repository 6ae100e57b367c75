"""The output grid (issue 11 item 4): every run ends exactly at t_end, and `final_state` is the
state there — fixed-step (whole steps, a shorter last interval, a short final step),
adaptive, batch and the differentiable `trajectory`."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from models import sliding_block

import stickslip as ss
from stickslip.integrate._grid import output_times, step_grid

M, FORCE, P0, V0 = 2.0, 3.0, 0.1, -0.4


def free_mass():
    """F = 0: p = p0 + v0 t + f t²/(2M) exactly — and RK4 integrates quadratics exactly, so
    any step of any length, short final steps included, lands on the closed form."""
    return ss.systems.FrictionMass(M=M, law=ss.laws.CoulombODE(F=0.0, K=1e4, beta=1e-3),
                                   force=lambda t: FORCE + 0.0 * t, p0=P0, v0=V0)


def exact_p(t):
    return P0 + V0 * t + FORCE * t ** 2 / (2 * M)


def test_run_ends_at_t_end_when_dt_out_does_not_divide_the_span():
    # the numbers: 1.05 s at dt_out = 0.1 used to end at 1.10 s
    block = sliding_block()
    res = ss.simulate(block, 1.05, dt=1e-3, dt_out=0.1)
    np.testing.assert_allclose(res.t, [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0,
                                       1.05], rtol=0, atol=1e-15)
    assert res.t[-1] == 1.05 and res.meta["t_end"] == 1.05
    assert res.meta["steps"] == 1050
    assert res.meta["last_interval"] == pytest.approx(0.05)
    # the last interval takes 50 steps of dt: the same state as sampling every step
    every_step = ss.simulate(block, 1.05, dt=1e-3)
    assert every_step.t[-1] == 1.05 and len(every_step.t) == 1051
    np.testing.assert_allclose(res.final_state, every_step.final_state, rtol=1e-13, atol=1e-16)
    last = np.array([res[name][-1] for name in block.state_names])
    np.testing.assert_array_equal(res.final_state, last)


def test_short_final_step_when_dt_does_not_divide_the_span():
    res = ss.simulate(free_mass(), 1.0505, dt=1e-3, dt_out=0.1)
    assert res.t[-1] == 1.0505 and res.meta["steps"] == 1051   # 1050 steps + one of 0.5 ms
    np.testing.assert_allclose(res["p"], exact_p(res.t), rtol=0, atol=1e-12)
    assert res.final_state[0] == res["p"][-1]


@pytest.mark.parametrize("n_sub", [2, 3, 4])
@pytest.mark.parametrize("t_end", [1.05, 1.0505])
def test_every_output_sample_is_the_state_after_its_steps(n_sub, t_end):
    # one loop over the steps writes each state into the slot of its output: a sparse run's
    # samples are the every-step run's at multiples of n_sub, to the bit, up to t_end (a
    # shorter last interval, with or without a short final step)
    block = sliding_block()
    every = ss.simulate(block, t_end, dt=1e-3)
    sparse = ss.simulate(block, t_end, dt=1e-3, dt_out=n_sub * 1e-3)
    rows = [*range(0, len(every.t) - 1, n_sub), len(every.t) - 1]
    np.testing.assert_array_equal(sparse.t, every.t[rows])
    for name in block.state_names:
        np.testing.assert_array_equal(sparse[name], every[name][rows])
    np.testing.assert_array_equal(sparse.final_state, every.final_state)


def test_adaptive_run_ends_at_t_end_and_says_so():
    # the numbers: t_end = 0.01 with dt_out = 1.0 used to integrate to 1.0 s
    res = ss.simulate(free_mass(), 0.01, method="tsit5", dt_out=1.0)
    np.testing.assert_array_equal(res.t, [0.0, 0.01])
    assert res.meta["t_end"] == 0.01 and res.meta["last_interval"] == 0.01
    assert res["p"][-1] == pytest.approx(exact_p(0.01), abs=1e-12)
    res = ss.simulate(free_mass(), 1.05, method="tsit5", dt_out=0.1)
    assert res.t[-1] == 1.05 and len(res.t) == 12
    np.testing.assert_allclose(res["p"], exact_p(res.t), rtol=0, atol=1e-9)


def test_batch_and_trajectory_use_the_same_grid():
    blocks = [sliding_block(M=m) for m in (1.0, 2.0)]
    batch = ss.simulate_batch(blocks, 1.05, dt=1e-3, dt_out=0.1)
    single = ss.simulate(blocks[1], 1.05, dt=1e-3, dt_out=0.1)
    np.testing.assert_array_equal(batch.t, single.t)
    np.testing.assert_allclose(batch.final_state[1], single.final_state, rtol=1e-12)
    ts, xs = ss.integrate.trajectory(free_mass(), 1.0505, dt=1e-3, dt_out=0.1)
    assert float(ts[-1]) == 1.0505 and xs.shape == (12, 3)
    np.testing.assert_allclose(np.asarray(xs[:, 0]), exact_p(np.asarray(ts)), atol=1e-12)


def test_continuing_from_an_odd_end_time_equals_one_run():
    block = sliding_block()
    whole = ss.simulate(block, 2.0, dt=1e-4, dt_out=1e-2)
    first = ss.simulate(block, 1.0505, dt=1e-4, dt_out=1e-2)
    second = ss.simulate(block, 2.0, dt=1e-4, dt_out=1e-2, initial=first)
    assert second.t[0] == 1.0505 and second.t[-1] == 2.0
    np.testing.assert_allclose(second.final_state, whole.final_state, rtol=1e-9, atol=1e-12)


@given(t0=st.floats(-10, 10), span=st.floats(1e-3, 50), dt=st.floats(1e-4, 1e-1),
       n_sub=st.integers(1, 200))
def test_step_grid_covers_the_span_exactly(t0, span, dt, n_sub):
    grid = step_grid(t0, t0 + span, dt, n_sub * dt)
    ts = grid.times()
    assert ts[0] == t0 and ts[-1] == t0 + span
    assert np.all(np.diff(ts) > 0)
    assert np.all(np.diff(ts)[:-1] == pytest.approx(grid.dt_out))
    assert 0 <= grid.n_last <= grid.n_sub and 0 <= grid.h_last < grid.dt
    steps = (grid.n_out - 1) * grid.n_sub + grid.n_last
    assert steps * grid.dt + grid.h_last == pytest.approx(span, rel=1e-9)
    assert ts[-1] - ts[-2] <= grid.dt_out * (1 + 1e-9)


@given(t0=st.floats(-10, 10), span=st.floats(1e-3, 50), dt_out=st.floats(1e-3, 10))
def test_output_times_end_at_t_end(t0, span, dt_out):
    ts = output_times(t0, t0 + span, dt_out)
    assert ts[0] == t0 and ts[-1] == t0 + span and np.all(np.diff(ts) > 0)
    assert ts[-1] - ts[-2] <= dt_out * (1 + 1e-9)
