"""Planar contacts to the standard of the volume model (issue 25, item 4): a start inside a
contact's line is refused before the run with the depth and the move that fixes it; the
time-stepping routes check θ, the restitution and the step, and end exactly at t_end;
contact names follow the joints' rule."""

from __future__ import annotations

import numpy as np
import pytest

import stickslip as ss
from stickslip.errors import ModelError, ParameterError


def block_on_floor(y=0.0, **contact):
    model = ss.planar.Model(gravity=(0.0, -9.81))
    block = model.add_body("block", mass=1.0, inertia=1e-3, y=y)
    model.add(ss.planar.PointLineContact(model.ground, block, mu=0.5, name="floor",
                                         **contact))
    return model


def slider_in_guide(y=0.0, phi=0.0):
    model = ss.planar.Model(gravity=(0.0, -9.81))
    slider = model.add_body("slider", mass=1.0, inertia=1e-3, y=y, phi=phi)
    model.add(ss.planar.ClearanceSlider(model.ground, slider, half_length=0.05,
                                        half_height=0.01, clearance=0.001, mu=0.2,
                                        name="guide"))
    return model


# --- starting penetrated ------------------------------------------------------------------

def test_a_block_starting_inside_the_floor_is_refused_with_the_move():
    # today it is launched at 18 m/s and rises 1.7 m: energy from nowhere
    with pytest.raises(ModelError, match=r"contact 'floor': the point \[0.0, 0.0\] of body "
                                         r"'block' starts 0.05 m inside its line on 'ground'"
                                         r".*up to depth/δ = 50 m/s\. Move body 'block' by "
                                         r"0.05 m along \(0, 1\)"):
        block_on_floor(y=-0.05).simulate(0.2, dt=1e-4)


def test_a_floor_on_a_turned_line_gives_the_direction_along_its_normal():
    # the line through the origin along (1, 1): its free side is (−1, 1)/√2
    model = block_on_floor(y=-0.1, line_axis_i=(1.0, 1.0))
    with pytest.raises(ModelError, match=r"0.07071 m inside.*along \(-0.7071, 0.7071\)"):
        model.simulate(0.1, dt=1e-4)


def test_a_line_on_a_body_over_a_ground_point_moves_that_body_the_other_way():
    model = ss.planar.Model(gravity=(0.0, 0.0))
    plate = model.add_body("plate", mass=1.0, inertia=1e-3, y=0.02)
    model.add(ss.planar.PointLineContact(plate, model.ground, point_j=(0.0, 0.0),
                                         name="touch"))
    with pytest.raises(ModelError, match=r"Move body 'plate' by 0.02 m along \(0, -1\)"):
        model.simulate(0.1, dt=1e-4)


def test_a_penetrated_initial_state_vector_is_refused():
    model = block_on_floor(y=0.1)
    x0 = np.zeros(8)
    x0[1] = -0.01                                     # block.y
    with pytest.raises(ModelError, match="starts 0.01 m inside"):
        model.simulate(0.1, dt=1e-4, initial=x0)


def test_a_slider_starting_through_one_wall_is_refused_with_the_move():
    with pytest.raises(ModelError, match=r"contact 'guide \(corner 1\)': the point \[0.05, "
                                         r"0.01\] of body 'slider' starts 0.004 m inside.*"
                                         r"along \(0, -1\)"):
        slider_in_guide(y=0.005).simulate(0.01, dt=1e-5)


def test_a_slider_turned_through_its_walls_is_refused_with_the_angle_it_may_have():
    with pytest.raises(ModelError, match=r"contact 'guide': slider 'slider' starts turned "
                                         r"through the walls of its guide: at 0.3 rad.*fits "
                                         r"only within ±0.02004 rad"):
        slider_in_guide(phi=0.3).simulate(0.01, dt=1e-5)


def test_the_moreau_jean_reference_refuses_a_penetrated_start_and_runs_a_resting_one():
    with pytest.raises(ModelError, match="(?s)checked at `planar.moreau_jean`.*0.05 m inside"):
        ss.planar.moreau_jean(block_on_floor(y=-0.05), 0.01, 1e-3)
    # resting exactly on the floor passes, and the run ends exactly at t_end = 0.0105
    res = ss.planar.moreau_jean(block_on_floor(y=0.0), 0.0105, 1e-3)
    assert res.t[-1] == 0.0105 and res.t.size == 12
    np.testing.assert_allclose(np.diff(res.t)[:-1], 1e-3, rtol=1e-12)
    assert res.meta["last_step"] == pytest.approx(5e-4)
    assert abs(res["block.y"][-1]) < 1e-9


# --- the time-stepping routes' settings ---------------------------------------------------

@pytest.mark.parametrize(("kwargs", "message"), [
    ({"theta": -1.0}, r"`planar.moreau_jean.theta` must be in \[0, 1\]; got theta=-1.0"),
    ({"theta": 1.5}, r"`planar.moreau_jean.theta` must be in \[0, 1\]"),
    ({"theta": float("nan")}, r"`planar.moreau_jean.theta` must be finite"),
    ({"restitution": 1.5},
     r"`planar.moreau_jean.restitution` must be <= 1; got restitution=1.5"),
    ({"restitution": -0.1}, r"`planar.moreau_jean.restitution` must be >= 0"),
    ({"restitution": float("nan")}, r"`planar.moreau_jean.restitution` must be finite"),
    ({"restitution": float("inf")}, r"`planar.moreau_jean.restitution` must be finite"),
    ({"h": 0.1}, r"`planar.moreau_jean.h` must be at most t_end = 0.01 s; got h=0.1"),
    ({"h": float("nan")}, r"`planar.moreau_jean.h` must be finite"),
    ({"h": -1e-3}, r"`planar.moreau_jean.h` must be > 0"),
    ({"t_end": float("inf")}, r"`planar.moreau_jean.t_end` must be finite"),
])
def test_the_planar_moreau_jean_settings_are_checked_before_the_run(kwargs, message):
    arguments = {"t_end": 0.01, "h": 1e-3, **kwargs}
    with pytest.raises(ParameterError, match=message):
        ss.planar.moreau_jean(block_on_floor(), **arguments)


def test_the_event_route_refuses_a_step_longer_than_the_run():
    ball = ss.systems.ContactMass(M=1.0, law=ss.laws.NewtonImpact(e=0.8), p0=1.0)
    with pytest.raises(ParameterError, match=r"`simulate.dt` must be at most the span t_end "
                                             r"− t0 = 0.01 s for method='events'; got dt=0.1"):
        ss.simulate(ball, 0.01, dt=0.1, method="events")


# --- names and directions -----------------------------------------------------------------

@pytest.mark.parametrize("name", ["a.b", "", 3])
@pytest.mark.parametrize("kind", ["PointLineContact", "ClearanceSlider"])
def test_a_contact_name_follows_the_joints_rule(kind, name):
    model = ss.planar.Model()
    body = model.add_body("b", mass=1.0, inertia=1.0)
    extra = {"half_length": 0.1, "half_height": 0.1, "clearance": 0.01} \
        if kind == "ClearanceSlider" else {}
    with pytest.raises(ParameterError, match=f"`{kind}.name` must be a non-empty string "
                                             f"without '.'"):
        getattr(ss.planar, kind)(model.ground, body, name=name, **extra)


def test_an_axis_whose_norm_overflows_keeps_its_direction():
    contact = ss.planar.PointLineContact("ground", "b", line_axis_i=(1e308, 1e308))
    np.testing.assert_allclose(contact.line_axis_i, [2 ** -0.5, 2 ** -0.5])
    slider = ss.planar.ClearanceSlider("ground", "b", half_length=0.1, half_height=0.1,
                                       clearance=0.01, guide_axis=(-1e308, 0.0))
    np.testing.assert_allclose(slider.guide_axis, [-1.0, 0.0])


@pytest.mark.parametrize("point", [(np.nan, 0.0), (0.0,), "centre"])
def test_a_bad_guide_point_is_refused(point):
    with pytest.raises(ParameterError, match=r"`ClearanceSlider.guide_point` must be .*"
                                             r"Pass two finite numbers \(x, y\) \[m\]"):
        ss.planar.ClearanceSlider("ground", "b", half_length=0.1, half_height=0.1,
                                  clearance=0.01, guide_point=point)
