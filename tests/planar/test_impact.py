"""Unilateral stops: impact events with restitution and the contact-law alternative
(SPEC §9 9-1; issue 6)."""

import math

import jax
import numpy as np
import pytest

import stickslip as ss
from stickslip.errors import ParameterError
from stickslip.planar import examples

jax.config.update("jax_enable_x64", True)


@pytest.mark.parametrize("e, t_end", [(0.8, 2.0), (0.5, 1.2)])   # before the Zeno point
def test_point_on_ground_line_restitution_exact_by_events(e, t_end):
    m = ss.planar.Model(gravity=(0.0, -9.81))
    ball = m.add_body("ball", mass=0.2, inertia=1e-4, y=1.0)
    m.add(ss.planar.PointLineStop(ball, restitution=e, name="floor"))
    res = m.simulate(t_end, dt=1e-2)
    impacts = res.meta["impacts"]
    assert len(impacts) >= 3
    v_in = np.array([i["normal_velocity_before"] for i in impacts])
    v_out = np.array([i["normal_velocity_after"] for i in impacts])
    assert abs(v_in[0] + math.sqrt(2 * 9.81 * 1.0)) < 1e-9   # located to round-off
    assert np.max(np.abs(-v_out / v_in - e)) < 1e-9
    # the next impact's approach speed is this one's rebound speed: events located exactly
    assert np.max(np.abs(v_in[1:] / v_in[:-1] - e)) < 1e-9
    ratio = np.array([i["kinetic_energy_after"] / i["kinetic_energy_before"]
                      for i in impacts])
    assert np.max(np.abs(ratio - e ** 2)) < 1e-12
    assert res["floor.gap"].min() > -1e-12


def test_slider_between_travel_limits_loses_e_squared_of_its_energy_per_impact():
    model = examples.slider_end_stop(restitution=0.7)
    res = model.simulate(3.0, dt=1e-3, dt_out=0.01)
    impacts = res.meta["impacts"]
    assert len(impacts) >= 3
    assert {i["row"] for i in impacts} == {0, 1}              # both limits are hit
    for i in impacts:
        assert abs(i["kinetic_energy_after"] / i["kinetic_energy_before"] - 0.49) < 1e-12
    assert res["slider.x"].min() >= -0.1 - 1e-12 and res["slider.x"].max() <= 0.1 + 1e-12


def test_pendulum_angle_limit_restitution_through_the_constraint_matrix():
    m = ss.planar.Model(gravity=(0.0, -9.81))
    rod = m.add_body("rod", mass=1.0, inertia=1 / 12, x=0.5, y=0.0, phi=0.0)
    pin = m.add(ss.planar.RevoluteJoint(m.ground, rod, point_j=(-0.5, 0.0), name="pin"))
    m.add(ss.planar.RevoluteStop(pin, lower=-math.radians(60), restitution=0.6, name="limit"))
    res = m.simulate(0.6, dt=1e-3, dt_out=0.01)
    first = res.meta["impacts"][0]
    assert abs(first["kinetic_energy_after"] / first["kinetic_energy_before"] - 0.36) < 1e-12
    assert abs(first["normal_velocity_after"] / first["normal_velocity_before"] + 0.6) < 1e-12
    assert res.meta["constraint_drift"] < 1e-12


def test_unilateral_contact_law_on_the_same_stop_bounces_without_events():
    m = ss.planar.Model(gravity=(0.0, -9.81))
    ball = m.add_body("ball", mass=1.0, inertia=1e-3, y=0.1)
    law = ss.laws.UnilateralODE(K=1e4, beta=5e-3, alpha=5e-3)
    m.add(ss.planar.PointLineStop(ball, law=law, name="floor"))
    res = m.simulate(0.5, dt=2e-5, dt_out=1e-3)
    assert "floor.e" in res.names or any(n.startswith("floor.") for n in res.names)
    assert "impacts" not in res.meta
    assert res["ball.yd"].max() > 0.5                          # it came back up
    assert res["floor.force"].min() >= 0.0


def test_bouncing_ball_in_a_box_example_runs():
    model = examples.ball_in_box(restitution=0.9)
    res = model.simulate(1.5, dt=1e-3, dt_out=0.01)
    stops = {i["stop"] for i in res.meta["impacts"]}
    assert {"floor", "right_wall"} <= stops


def test_bad_stop_input_is_named():
    m = ss.planar.Model()
    b = m.add_body("b", mass=1.0, inertia=0.1)
    with pytest.raises(ParameterError, match=r"floor\.restitution"):
        ss.planar.PointLineStop(b, restitution=1.5, name="floor")
    pin = ss.planar.RevoluteJoint(m.ground, b, name="pin")
    with pytest.raises(ParameterError, match=r"lim.*TranslationalJoint"):
        ss.planar.TranslationalStop(pin, upper=0.1, name="lim")
    with pytest.raises(ParameterError, match="lower"):
        ss.planar.RevoluteStop(pin, lower=1.0, upper=0.5)


def test_ball_on_driven_paddle_relative_restitution_and_driver_kept():
    model = examples.ball_on_paddle(restitution=0.8)
    res = model.simulate(1.0, dt=1e-3, dt_out=0.01)
    impacts = res.meta["impacts"]
    assert len(impacts) >= 2
    for i in impacts:
        assert abs(-i["normal_velocity_after"] / i["normal_velocity_before"] - 0.8) < 1e-9
    prescribed = 0.15 * np.sin(2 * np.pi * res.t)
    assert np.max(np.abs(res["paddle.phi"] - prescribed)) < 1e-9
    assert res["paddle_face.gap"].min() > -1e-12
