"""Planar impact stops on the core's event-driven route (issue 21 item 2; SPEC §9 9-1): the
impacts equal the Python event loop this route replaced, and closed forms where there is
one; Results.events and meta["impacts"]; split runs; the compiled program; the run time; a
contact coming to rest ends; the step check."""

import functools
import math
import time

import numpy as np
import pytest

import stickslip as ss
from stickslip.integrate._event_route import integrate_events
from stickslip.planar import examples

G = 9.81

# The Python event loop's values (src/stickslip/planar/_events.py at c89462a: RK4, dt = 1e-3,
# projection, regula falsi), recorded before it was replaced: per impact (t [s], gap row,
# normal velocity before, after [m/s], q̇ just after the impact).
PYTHON_PATH = {
    "slider_end_stop": (3.0, [
        (0.2, 1, -0.5, 0.35, [-0.35, 0.0, 0.0]),
        (0.7714285714285686, 0, -0.35, 0.245, [0.245, 0.0, 0.0]),
        (1.5877551020407534, 1, -0.245, 0.17149999999999999, [-0.17149999999999999, 0.0, 0.0]),
        (2.753935860058108, 0, -0.17149999999999999, 0.12004999999999999,
         [0.12004999999999999, 0.0, 0.0]),
    ]),
    "ball_in_box": (2.0, [
        (0.35000000000000003, 3, -2.0, 1.8, [-1.8, -3.4334999999999885, 0.0]),
        (0.4038550218769218, 0, -3.961817764612584, 3.5656359881513255,
         [-1.8, 3.5656359881513255, 0.0]),
        (0.9055555555555508, 2, -1.8, 1.62, [1.62, -1.3560462472360124, 0.0]),
        (1.1307940612553662, 0, -3.5656359881513287, 3.209072389336196,
         [1.62, 3.209072389336196, 0.0]),
        (1.5228395061727844, 3, -1.62, 1.4580000000000002,
         [-1.4580000000000002, -0.6368934253040927, 0.0]),
        (1.7850391966959065, 0, -3.209072389336196, 2.8881651504025774,
         [-1.4580000000000002, 2.8881651504025774, 0.0]),
    ]),
    "ball_on_paddle": (1.0, [
        (0.2774839246696904, 0, -2.667892215683165, 2.134313772546532,
         [2.940457023706709e-16, 7.061862618931053e-16, -0.16194558190310285,
          -0.7070375137260265, 2.0277543085786744, 0.0]),
        (0.6919476692773193, 0, -2.1654774404979724, 1.7323819523983774,
         [-2.3407894276225008e-17, 9.230679263044965e-16, -0.3361998030888745,
          -0.16260953914213463, 1.8215159980058728, 0.0]),
    ]),
}


@functools.cache
def _example(name):
    """One model per example for the tests that only simulate it (never mutate it): an
    example built again holds a new driver closure (ball_on_paddle's paddle), compared by
    identity, so each build compiled its own program."""
    return getattr(examples, name)()


def _rates(model):
    return [f"{b.name}.{c}d" for b in model.bodies for c in ("x", "y", "phi")]


@pytest.mark.parametrize("name", sorted(PYTHON_PATH))
def test_impacts_equal_the_python_event_loop(name):
    model = _example(name)
    t_end, expected = PYTHON_PATH[name]
    res = model.simulate(t_end, dt=1e-3, dt_out=0.01)
    impacts = res.meta["impacts"]
    assert len(impacts) == len(expected)
    events = res.events
    for i, (t, row, v_before, v_after, qd) in enumerate(expected):
        got = impacts[i]
        assert got["row"] == row and got["stop"] == events["name"].iloc[i]
        assert abs(got["t"] - t) <= 1e-9
        assert abs(got["normal_velocity_before"] - v_before) <= 1e-9
        assert abs(got["normal_velocity_after"] - v_after) <= 1e-9
        after = np.array([events[k].iloc[i] for k in _rates(model)])
        np.testing.assert_allclose(after, qd, rtol=0, atol=1e-9)
    assert res.meta["constraint_drift"] < 1e-12


def test_slider_between_travel_limits_matches_the_closed_form():
    # ±0.1 m at 0.5 m/s from the centre: impact k at t_1 = 0.2 s, then one 0.2 m traverse
    # at 0.5·e^k m/s each; the slider leaves impact k at 0.5·e^k
    e, v0 = 0.7, 0.5
    res = examples.slider_end_stop(restitution=e, speed=v0).simulate(6.0, dt=1e-3,
                                                                     dt_out=0.01)
    impacts = res.meta["impacts"]
    k = np.arange(1, len(impacts) + 1)
    times = 0.2 + np.concatenate([[0.0], np.cumsum(0.2 / (v0 * e ** k[:-1]))])
    np.testing.assert_allclose([i["t"] for i in impacts], times, rtol=0, atol=1e-12)
    np.testing.assert_allclose(np.abs(res.events["slider.xd"]), v0 * e ** k, rtol=1e-14)
    assert [i["row"] for i in impacts] == [1, 0] * (len(impacts) // 2) + [1] * (len(k) % 2)
    for i in impacts:
        assert i["kinetic_energy_after"] / i["kinetic_energy_before"] == \
            pytest.approx(e ** 2, rel=1e-13)


def test_vertical_drop_in_the_box_apex_heights_are_e_to_the_2k():
    e, h0 = 0.9, 0.8
    model = examples.ball_in_box(restitution=e)
    model.bodies[0].xd = 0.0                     # straight down from y = 0.8 m
    res = model.simulate(3.0, dt=1e-3, dt_out=0.01)
    events = res.events
    assert set(events["name"]) == {"floor"} and set(events["kind"]) == {"impact"}
    k = np.arange(1, len(events) + 1)
    apex = events["ball.yd"].to_numpy() ** 2 / (2 * G)
    np.testing.assert_allclose(apex, h0 * e ** (2 * k), rtol=0, atol=1e-10)
    v1, t1 = math.sqrt(2 * G * h0), math.sqrt(2 * h0 / G)
    times = t1 + 2 * v1 * e * (1 - e ** (k - 1)) / (G * (1 - e))
    np.testing.assert_allclose(events["t"], times, rtol=0, atol=1e-12)
    assert np.all(np.abs(events["ball.y"]) <= 1e-14)        # on the floor
    assert res["floor.gap"].min() >= -1e-14


def test_events_table_and_impacts_agree():
    res = examples.ball_in_box().simulate(1.5, dt=1e-3, dt_out=0.01)
    events, impacts = res.events, res.meta["impacts"]
    assert list(events.columns[:3]) == ["t", "kind", "name"]
    assert list(events.columns[3:]) == list(examples.ball_in_box().system().state_names)
    assert list(events["name"]) == [i["stop"] for i in impacts]
    np.testing.assert_array_equal(events["t"], [i["t"] for i in impacts])
    assert set(impacts[0]) == {"t", "stop", "row", "restitution", "normal_velocity_before",
                               "normal_velocity_after", "kinetic_energy_before",
                               "kinetic_energy_after"}
    for i in impacts:
        assert -i["normal_velocity_after"] / i["normal_velocity_before"] == \
            pytest.approx(0.9, rel=1e-12)
    assert res.meta["events"] == len(impacts) and res.meta["method"] == "events"
    # the samples stay on the grid: an impact adds none
    np.testing.assert_allclose(res.t, np.arange(151) * 0.01, rtol=0, atol=1e-12)
    for channel in ("floor.gap", "ceiling.gap", "left_wall.gap", "right_wall.gap",
                    "constraint.position", "energy"):
        assert channel in res.names


@pytest.mark.parametrize("name, split", [("ball_in_box", 0.7), ("ball_on_paddle", 0.5)])
def test_split_run_equals_one_run(name, split):
    model = _example(name)
    whole = model.simulate(1.0, dt=1e-3, dt_out=0.01)
    first = model.simulate(split, dt=1e-3, dt_out=0.01)
    second = model.simulate(1.0, dt=1e-3, dt_out=0.01, initial=first)
    n = round(split / 0.01)
    for channel in whole.names:
        np.testing.assert_allclose(second[channel], whole[channel][n:], rtol=1e-12,
                                   atol=1e-12, err_msg=channel)
    joined = [i["t"] for i in first.meta["impacts"] + second.meta["impacts"]]
    np.testing.assert_allclose(joined, [i["t"] for i in whole.meta["impacts"]], rtol=0,
                               atol=1e-12)
    chunked = model.simulate(1.0, dt=1e-3, dt_out=0.01, chunk=16)
    for channel in whole.names:
        np.testing.assert_allclose(chunked[channel], whole[channel], rtol=1e-12, atol=1e-12)


def test_new_end_and_step_reuse_the_compiled_program():
    model = examples.ball_in_box()
    model.simulate(1.0, dt=1e-3, dt_out=0.02)                 # 50 outputs: 64 slots
    traced = ss.integrate.traces(integrate_events)
    model.simulate(0.6, dt=2e-3, dt_out=0.01)                 # 60 outputs: 64 slots
    model.simulate(1.2, dt=5e-4, dt_out=0.02)
    examples.ball_in_box(restitution=0.5).simulate(1.0, dt=1e-3, dt_out=0.02)
    assert ss.integrate.traces(integrate_events) == traced


def test_ten_thousand_steps_run_in_compiled_code():
    # the Python loop this replaced took 5.0 s for these 10 000 steps (0.16 s for the same
    # slider without stops on the fixed-step route); now one compiled loop per chunk
    # (its time — 0.2 s measured — belongs to benchmarks/planar_compile_events.py, not to
    # an assertion here): the second run reuses the compiled loop, nothing is traced again
    model = examples.slider_end_stop()
    model.simulate(10.0, dt=1e-3, dt_out=0.01)                # compile
    traced = ss.integrate.traces(integrate_events)
    res = model.simulate(10.0, dt=1e-3, dt_out=0.01)
    assert ss.integrate.traces(integrate_events) == traced
    assert res.meta["steps"] == 10_000 and len(res.meta["impacts"]) == 6


def test_ball_coming_to_rest_ends_with_a_clear_error():
    # e = 0.9 in the box: the bounces on the floor accumulate near t = 7.67 s (Zeno)
    start = time.perf_counter()
    with pytest.raises(ss.SimulationError, match=r"more than max_events=1000 impacts by "
                                                 r"t=7\.67.*contact law") as info:
        examples.ball_in_box().simulate(10.0, dt=1e-3, dt_out=0.01)
    assert 7.6 < info.value.time < 7.7 and time.perf_counter() - start < 60.0
    plastic = ss.planar.Model(gravity=(0.0, -G))
    ball = plastic.add_body("ball", mass=0.2, inertia=1e-4, y=1.0)
    plastic.add(ss.planar.PointLineStop(ball, restitution=0.0, name="floor"))
    with pytest.raises(ss.SimulationError, match="max_events=50 impacts") as info:
        plastic.simulate(1.0, dt=1e-2, max_events=50)
    assert info.value.time == pytest.approx(math.sqrt(2 / G), abs=1e-12)


@pytest.mark.parametrize("dt", [0.0, -1e-3, math.nan])
def test_zero_or_negative_step_is_refused_by_the_shared_check(dt):
    with pytest.raises(ss.ParameterError, match=r"`planar\.Model\.simulate\.dt`"):
        examples.ball_in_box().simulate(1.0, dt=dt)


def test_other_methods_and_options_are_refused_by_name():
    model = examples.slider_end_stop()
    with pytest.raises(ss.ParameterError, match=r"end_stop.*event-driven route"):
        model.simulate(1.0, dt=1e-3, method="euler")
    with pytest.raises(ss.ParameterError, match=r"stream_to"):
        model.simulate(1.0, dt=1e-3, stream_to="x.csv")
    # every step sampled: over 256 samples, the output tier (and program) of the
    # example's other runs (test_impacts_equal_the_python_event_loop[slider_end_stop])
    same = model.simulate(1.0, dt=1e-3, dt_out=1e-3, method="events")
    assert len(same.meta["impacts"]) == 2


def test_pendulum_angle_limit_impacts_converged_at_a_coarse_step():
    # a rod swinging onto a revolute stop (no closed form): the 8th-order smooth phases
    # give the same impacts at dt = 1e-2 as at 1e-3 (the RK4 loop this replaced: 2e-8 apart)
    m = ss.planar.Model(gravity=(0.0, -G))
    rod = m.add_body("rod", mass=1.0, inertia=1 / 12, x=0.5)
    pin = m.add(ss.planar.RevoluteJoint(m.ground, rod, point_j=(-0.5, 0.0), name="pin"))
    m.add(ss.planar.RevoluteStop(pin, lower=-math.radians(60), restitution=0.6, name="limit"))
    fine, coarse = (m.simulate(1.5, dt=dt, dt_out=0.05).meta["impacts"] for dt in (1e-3, 1e-2))
    assert len(fine) == len(coarse) == 3
    for a, b in zip(fine, coarse):
        assert abs(a["t"] - b["t"]) <= 1e-12
        assert abs(a["normal_velocity_before"] - b["normal_velocity_before"]) <= 1e-11
        assert a["normal_velocity_after"] / a["normal_velocity_before"] == \
            pytest.approx(-0.6, rel=1e-13)
