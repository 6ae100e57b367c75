"""Bad input to ``method="moreau_jean"`` on a 3-D link system (stickslip.spatial._link_step):
a joint friction law without a set-valued form, a missing step, θ out of range, a route the
host does not have — each refused before anything is traced, with an error that names the
joint, the option or the route and says what to do."""

from __future__ import annotations

import pytest

import stickslip as ss
from stickslip.errors import ParameterError

sp = ss.spatial


def _pendulum(law=None):
    m = sp.SpatialModel(gravity=(0, 0, -9.81))
    m.add_body("link", mass=1.0, inertia=(0.1, 0.1, 0.01), shape=None, position=(0, 0, -0.5))
    pin = {} if law is None else {"friction": law, "pin_radius": 0.01}
    m.add(sp.RevoluteJoint("ground", "link", point=(0, 0, 0), axis=(0, 1, 0), name="hinge",
                           **pin))
    return m


def test_a_lugre_joint_friction_is_refused_by_name():
    model = _pendulum(ss.laws.LuGre.example())
    with pytest.raises(ParameterError, match=r"moreau_jean.*joint 'hinge'.*LuGre.*CoulombODE"):
        model.simulate(0.1, dt=1e-3, method="moreau_jean")


def test_the_refusal_lists_the_routes_the_model_has():
    system = _pendulum(ss.laws.LuGre.example()).link_system()
    with pytest.raises(ParameterError, match=r"It supports \[.*'rk4'.*\]"):
        ss.simulate(system, 0.1, dt=1e-3, method="moreau_jean")


def test_moreau_jean_without_a_step_is_refused():
    with pytest.raises(ParameterError, match=r"moreau_jean.*needs the time step `dt`"):
        ss.simulate(_pendulum().link_system(), 0.1, method="moreau_jean")


@pytest.mark.parametrize("theta", [-0.1, 1.5, float("nan")])
def test_theta_out_of_range_is_refused(theta):
    with pytest.raises(ParameterError, match=r"theta"):
        _pendulum().simulate(0.1, dt=1e-3, method="moreau_jean", theta=theta)


def test_the_events_route_is_refused_naming_moreau_jean_as_an_alternative():
    with pytest.raises(ParameterError, match=r"LinkSystem does not support method='events'"
                                             r".*'moreau_jean'"):
        ss.simulate(_pendulum().link_system(), 0.1, dt=1e-3, method="events")


def test_a_step_longer_than_the_run_is_refused():
    with pytest.raises(ParameterError, match=r"dt.*at most the span"):
        _pendulum().simulate(0.01, dt=0.1, method="moreau_jean")
