"""The divergence guard (issue 11 item 3): a run that blows up — to NaN, or finitely, or by
gaining energy — stops with a SimulationError naming the time and the last sane state, in
the fixed-step, adaptive and batch paths, with ``check_step=False`` too, and before anything
non-finite reaches a streamed file."""

import numpy as np
import pandas as pd
import pytest
from models import BlowUp, Growth

import stickslip as ss
from stickslip.integrate import check_divergence


def ball(law):
    return ss.systems.ContactMass(M=1.0, law=law, p0=1.0)


def test_stiff_penalty_ball_that_gains_energy_stops_by_name():
    # HuntCrossley(k=1e10) at dt = 1e-3 past its stability limit: the ball used to bounce
    # back far higher than it fell (15.6 m in the issue; 2600 m here), every number finite
    with pytest.raises(ss.SimulationError, match=r"energy rose from 9.81 J") as err:
        ss.simulate(ball(ss.laws.HuntCrossley(k=1e10, lam=0.0)), 10.0, dt=1e-3,
                    dt_out=1e-3, check_step=False)
    # it hits the ground at t = √(2/9.81) = 0.4515 s and goes wrong in that contact
    assert 0.451 <= err.value.time <= 0.46
    state = err.value.state
    assert set(state) == {"p", "v"} and state["p"] < 1.0
    assert state["v"] == pytest.approx(-np.sqrt(2 * 9.81 * (1.0 - state["p"])), rel=1e-6)


def test_finite_blow_up_of_the_proxy_state_stops_by_name():
    # KelvinVoigt with a damper too stiff for dt, energy check off: without the magnitude
    # check this run returns p = -5.6e299 (the issue saw 1e223) and then NaN
    heavy_damper = ball(ss.laws.KelvinVoigt(k=1e4, c=1e6))
    with pytest.raises(ss.SimulationError,
                       match=r"`v` reached .* beyond max_state=1e\+12 .* between t=") as err:
        ss.simulate(heavy_damper, 2.0, dt=1e-3, check_step=False, energy_tol=None)
    assert 0.4515 < err.value.time < 0.47 and abs(err.value.state["v"]) <= 1e12
    with pytest.raises(ss.SimulationError, match=r"reached .* beyond max_state=1000"):
        ss.simulate(heavy_damper, 2.0, dt=1e-3, check_step=False, energy_tol=None,
                    max_state=1e3)


def test_stable_penalty_ball_passes_the_guard():
    res = ss.simulate(ball(ss.laws.HuntCrossley(k=1e7, lam=1e6)), 2.0, dt=1e-5, dt_out=1e-3)
    assert res["p"].max() <= 1.0 + 1e-12


def test_adaptive_finite_blow_up_stops_by_name():
    with pytest.raises(ss.SimulationError, match=r"`x` reached") as err:
        ss.simulate(Growth(), 1.0, method="tsit5", dt_out=0.01)
    assert err.value.time == pytest.approx(np.log(1e12) / 60, abs=0.011)


def test_adaptive_failure_carries_the_last_state():
    with pytest.raises(ss.SimulationError, match="max_steps=50") as err:
        ss.simulate(BlowUp(), 2.0, method="tsit5", max_steps=50)
    assert err.value.state is not None and np.isfinite(err.value.state["x"])
    assert err.value.time is not None


def test_batch_names_the_member_that_diverged():
    members = [ball(ss.laws.KelvinVoigt(k=k, c=0.0)) for k in (1e4, 1e10)]
    with pytest.raises(ss.SimulationError, match=r"batch member 1"):
        ss.simulate_batch(members, 2.0, dt=1e-3, check_step=False)


def test_streamed_file_holds_no_row_of_a_diverged_run(tmp_path):
    path = tmp_path / "run.csv"
    for guard in ({}, {"max_state": None}):      # caught finite, or as NaN/inf
        with pytest.raises(ss.SimulationError, match="diverged"):
            ss.simulate(BlowUp(), 2.0, dt=1e-2, chunk=20, stream_to=path, **guard)
        rows = pd.read_csv(path)
        assert len(rows) > 1 and np.isfinite(rows.to_numpy()).all()
        assert rows["t"].iloc[-1] <= 1.0 and rows["x"].max() < 1e12   # x' = x² blows up at 1


def test_check_divergence_finds_the_first_bad_sample():
    ts = np.arange(5.0)
    xs = np.array([[1.0], [2.0], [3.0], [1e13], [np.nan]])
    with pytest.raises(ss.SimulationError, match=r"between t=2 s and t=3 s") as err:
        check_divergence("Model", ["x"], ts, xs)
    assert err.value.time == 3.0 and err.value.state == {"x": 3.0}
    energy = np.array([1.0, 1.0, 1.5, 1.0, 1.0])
    with pytest.raises(ss.SimulationError, match=r"energy rose from 1 J to 1.5 J"):
        check_divergence("Model", ["x"], ts[:3], xs[:3], energy=energy[:3])
    check_divergence("Model", ["x"], ts[:3], xs[:3], energy=[1.0, 0.9, 1.005])   # within 1 %
    with pytest.raises(ss.SimulationError, match=r"by t=0 s") as err:
        check_divergence("Model", ["x"], ts[:1], [[np.inf]], last_sane=[7.0])
    assert err.value.state == {"x": 7.0}


def test_check_divergence_shortcut_for_sane_runs_misses_no_bad_sample():
    # sane samples pass on one reduction over the whole array; every kind of bad sample
    # must still be found by name: -inf with the magnitude check off, a NaN energy
    from stickslip.integrate._guard import Guard

    ts = np.arange(3.0)
    with pytest.raises(ss.SimulationError, match=r"NaN or infinite between t=0 s and t=1 s"):
        check_divergence("Model", ["x", "y"], ts, [[0.0, 1.0], [0.0, -np.inf], [1.0, 1.0]],
                         guard=Guard(max_state=np.inf))
    with pytest.raises(ss.SimulationError, match=r"energy rose from 1 J to nan J"):
        check_divergence("Model", ["x"], ts, [[0.0], [1.0], [2.0]], energy=[1.0, np.nan, 1.0])
    check_divergence("Model", ["x"], ts, [[0.0], [1e12], [-1e12]])     # at max_state: sane
