"""`simulate_batch(..., method="events")` (issue 21): the event route vmapped over stacked
members in one compiled loop equals a loop of `simulate` — states, outputs, event times and
kinds per member — whatever each member's event count; the events table of a batch; one
program for the batch; errors that name the member."""

import math

import jax.numpy as jnp
import numpy as np
import pytest

import stickslip as ss
from stickslip.integrate import _program_store
from stickslip.integrate._event_route import integrate_events, integrate_events_batch

G = 9.81
TOL = 1e-12            # the batch against the loop: the same arithmetic, vmapped


def _ball(e, h):
    return ss.systems.ContactMass(M=1.0, law=ss.laws.NewtonImpact(e=e), g=G, p0=h)


def _load(t):
    return 0.1 * jnp.sin(t)          # one function object: a batch shares its callables


def _belt(speed):
    # m = k = 1, F_s = 1 N, F = 0.6 N: stick–slip at any belt speed (K and beta unused)
    law = ss.laws.CoulombODE(F=0.6, F_s=1.0, K=1e4, beta=1e-3)
    return ss.systems.FrictionMass(M=1.0, law=law, stiffness=1.0, surface_velocity=speed,
                                   force=_load)


def _assert_batch_equals_loop(members, t_end, **run):
    batch = ss.simulate_batch(members, t_end, method="events", **run)
    assert batch.batch_shape == (len(members),)
    counts = []
    for i, system in enumerate(members):
        alone = ss.simulate(system, t_end, method="events", **run)
        got = batch.member(i)
        np.testing.assert_array_equal(got.t, alone.t)
        assert got.names == alone.names                   # the same channels
        for name in alone.names:
            np.testing.assert_allclose(got[name], alone[name], rtol=0, atol=TOL,
                                       err_msg=f"member {i}, channel {name}")
        np.testing.assert_allclose(got.final_state, alone.final_state, rtol=0, atol=TOL)
        mine, theirs = got.events, alone.events
        assert list(mine.columns) == list(theirs.columns)   # no `member` column alone
        assert list(mine["kind"]) == list(theirs["kind"]), f"member {i}"
        assert list(mine["name"]) == list(theirs["name"])
        for column in theirs.columns.drop(["kind", "name"]):
            np.testing.assert_allclose(mine[column], theirs[column], rtol=0, atol=TOL,
                                       err_msg=f"member {i}, events column {column}")
        counts.append(len(theirs))
    assert batch.meta["events"] == counts and batch.meta["batch_size"] == len(members)
    return batch, counts


# --- the batch equals the loop --------------------------------------------------------------

def test_bouncing_balls_batch_equals_loop_of_simulate():
    balls = [_ball(e, h) for e, h in [(0.8, 1.0), (0.6, 2.5), (0.9, 0.4), (0.3, 1.7)]]
    batch, counts = _assert_batch_equals_loop(balls, 3.0, dt=0.05, dt_out=0.1)
    assert min(counts) >= 2 and len(set(counts)) > 1
    # the table of the whole batch: a member column first, rows by member then time
    events = batch.events
    assert list(events.columns) == ["member", "t", "kind", "name", "p", "v"]
    assert list(events["member"]) == [i for i, n in enumerate(counts) for _ in range(n)]
    for _, rows in events.groupby("member"):
        assert np.all(np.diff(rows["t"].to_numpy()) > 0)


def test_stick_slip_oscillators_batch_equals_loop_of_simulate():
    belts = [_belt(v) for v in (0.1, 0.2, 0.35)]
    _, counts = _assert_batch_equals_loop(belts, 20.0, dt=0.05, dt_out=0.1)
    assert min(counts) >= 3


def test_zeno_member_and_plastic_member_both_finish():
    # e = 0.5: a Zeno accumulation of bounces ending in rest; e = 0: rest at the first impact
    zeno, plastic = _ball(0.5, 1.0), _ball(0.0, 1.0)
    batch, counts = _assert_batch_equals_loop([zeno, plastic], 4.0, dt=0.1, dt_out=0.1)
    assert counts[1] == 1 and counts[0] > 30
    t1, v1 = math.sqrt(2 / G), math.sqrt(2 * G)
    t_zeno = t1 + 2 * v1 * 0.5 / (G * (1 - 0.5))            # accumulation point, closed form
    for i, t_rest in enumerate((t_zeno, t1)):
        rows = batch.member(i).events
        assert rows["kind"].iloc[-1] == "rest"
        assert rows["t"].iloc[-1] == pytest.approx(t_rest, abs=1e-12)
    assert batch.final_state.tolist() == [[0.0, 0.0], [0.0, 0.0]]


def test_batch_in_several_calls_equals_one_call(monkeypatch):
    # a batch whose states pass the per-call limit runs in calls of 64 outputs: each member's
    # mode is read off its state at a call's start and its events gathered across the calls
    from stickslip.integrate import _runners

    balls = [_ball(e, h) for e, h in [(0.5, 1.0), (0.8, 0.7), (0.0, 1.2)]]
    whole = ss.simulate_batch(balls, 6.0, method="events", dt=0.01, dt_out=0.02)
    monkeypatch.setattr(_runners, "_BATCH_CALL_BYTES", 1)
    parts = ss.simulate_batch(balls, 6.0, method="events", dt=0.01, dt_out=0.02)
    for name in whole.names:
        np.testing.assert_allclose(parts[name], whole[name], rtol=0, atol=TOL)
    assert list(parts.events["kind"]) == list(whole.events["kind"])
    np.testing.assert_allclose(parts.events["t"], whole.events["t"], rtol=0, atol=TOL)
    np.testing.assert_array_equal(parts.events["member"], whole.events["member"])


# --- one program -----------------------------------------------------------------------------

def test_batch_compiles_one_program_and_reuses_it():
    balls = [_ball(e, h) for e, h in [(0.7, 1.0), (0.5, 1.2), (0.2, 0.8)]]
    single = ss.integrate.traces(integrate_events)
    held, traced = len(_program_store._MEMO), ss.integrate.traces(integrate_events_batch)
    ss.simulate_batch(balls, 2.0, method="events", dt=0.1, max_events=123)
    # one new program for the whole batch (traced here, or loaded from the program store
    # when an earlier process compiled it), and no per-member program
    assert len(_program_store._MEMO) == held + 1
    assert ss.integrate.traces(integrate_events_batch) <= traced + 1
    traced = ss.integrate.traces(integrate_events_batch)
    others = [_ball(e, h) for e, h in [(0.9, 2.0), (0.1, 0.5), (0.6, 1.5)]]
    ss.simulate_batch(others, 1.7, method="events", dt=0.05, dt_out=0.05, max_events=123)
    assert ss.integrate.traces(integrate_events_batch) == traced
    assert len(_program_store._MEMO) == held + 1
    assert ss.integrate.traces(integrate_events) == single


# --- errors name the member ------------------------------------------------------------------

def test_member_past_max_events_is_named():
    # member 0 rests at its first impact; member 1 bounces a fourth time by 2.21 s
    with pytest.raises(ss.SimulationError, match=r"ContactMass \(batch member 1\): more "
                                                 r"than max_events=3 events by t=2\.21427"):
        ss.simulate_batch([_ball(0.0, 1.0), _ball(0.8, 1.0)], 3.0, method="events", dt=0.1,
                          max_events=3)


def test_divergence_guard_names_the_member():
    with pytest.raises(ss.SimulationError, match=r"ContactMass \(batch member 1\) diverged"):
        ss.simulate_batch([_ball(0.5, 1.0), _ball(0.5, 20.0)], 1.0, method="events",
                          dt=0.1, max_state=10.0)


def test_batch_events_refusals_name_simulate_batch():
    with pytest.raises(ss.ParameterError, match=r"`simulate_batch\.dt`"):
        ss.simulate_batch([_ball(0.5, 1.0), _ball(0.2, 1.0)], 1.0, method="events")
    with pytest.raises(ss.ParameterError, match=r"`simulate_batch\.max_events`"):
        ss.simulate_batch([_ball(0.5, 1.0), _ball(0.2, 1.0)], 1.0, method="events", dt=0.1,
                          max_events=0)
