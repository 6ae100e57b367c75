"""Bad input to ``method="moreau_jean"`` on a planar mechanism with joint friction and stops
(``stickslip.planar._mj_step``): laws without a set-valued form, stops with a contact law,
options the route does not take, and a self-locking joint whose reaction ↔ bound fixed point
cannot converge — each refused or stopped with an error that names the element."""

from __future__ import annotations

import math

import pytest

import stickslip as ss
from stickslip.errors import ParameterError, SimulationError


def _slider(law, stop_law=None):
    m = ss.planar.Model(gravity=(0.0, -9.81), name="slider")
    block = m.add_body("block", mass=1.0, inertia=0.1, xd=0.1)
    joint = m.add(ss.planar.TranslationalJoint(m.ground, block, axis_i=(1.0, 0.0),
                                               friction=law, name="slide"))
    if stop_law is not None:
        m.add(ss.planar.TranslationalStop(joint, upper=0.1, law=stop_law, name="end"))
    return m


def test_a_lugre_element_is_refused_by_name():
    model = ss.planar.examples.sliding_block("lugre")
    with pytest.raises(ParameterError, match=r"LuGreFriction 'lugre'.*no set-valued form"):
        model.simulate(0.01, dt=1e-3, method="moreau_jean")


def test_a_smoothed_joint_law_is_refused_by_name():
    with pytest.raises(ParameterError, match=r"joint 'slide'.*TanhCoulomb.*CoulombODE"):
        _slider(ss.laws.TanhCoulomb.example()).simulate(0.01, dt=1e-3, method="moreau_jean")


def test_a_stop_with_a_contact_law_is_refused_by_name():
    model = _slider(ss.laws.CoulombODE(mu=0.2, K=1e4, beta=1e-3),
                    stop_law=ss.laws.UnilateralODE.example())
    with pytest.raises(ParameterError, match=r"stops 'end' have a contact law.*law=None"):
        ss.simulate(model.system(), 0.01, dt=1e-3, method="moreau_jean")


@pytest.mark.parametrize("options, message", [
    ({"baumgarte": (10.0, 10.0)}, r"drop `planar.Model.simulate.baumgarte`"),
    ({"projection": False}, r"drop `planar.Model.simulate.baumgarte` and `projection`"),
    ({"dt": None}, r"needs the time step `dt`"),
    ({"dt": 0.0}, r"`planar.Model.simulate.dt` must be > 0"),
])
def test_bad_options_are_refused_by_name(options, message):
    model = _slider(ss.laws.CoulombODE(mu=0.2, K=1e4, beta=1e-3))
    kwargs = {"dt": 1e-3, **options}
    with pytest.raises(ParameterError, match=message):
        model.simulate(0.01, method="moreau_jean", **kwargs)


def test_a_self_locking_pin_stops_with_the_joint_and_the_time():
    # no gravity, a pin of radius 2 m on a link with its centre 0.5 m away: the fixed point's
    # contraction number μ·a·m·l/I_p = 0.5·2·0.5/0.251 ≈ 2 >= 1 (planar._mj_friction); a
    # torque drives it, so the step's bound swings between holding and releasing
    m = ss.planar.Model(gravity=(0.0, 0.0), name="locked")
    link = m.add_body("link", mass=1.0, inertia=1e-3, x=0.5 * math.sin(0.3),
                      y=-0.5 * math.cos(0.3), phi=0.3)
    m.add(ss.planar.RevoluteJoint(m.ground, link, (0.0, 0.0), (0.0, 0.5),
                                  friction=ss.laws.CoulombODE(mu=0.5, K=1e4, beta=1e-3),
                                  pin_radius=2.0, name="pin"))
    m.add(ss.planar.BodyTorque(link, lambda t, q, qd: 1.0 + 0.0 * t, name="motor"))
    with pytest.raises(SimulationError, match=r"friction of joint 'pin' failed in the step "
                       r"from t=0 s.*did not converge.*self-locking") as info:
        m.simulate(0.1, dt=1e-3, method="moreau_jean")
    assert info.value.time == 0.0


@pytest.mark.parametrize("method", ["rk4", "tsit5"])
def test_rigid_stops_on_an_ode_method_are_refused_by_name(method):
    # an ODE method integrates no force for a rigid stop: without this refusal the slider
    # fell through its floor (y = −3.9 m after 1 s) without a word
    m = ss.planar.Model(gravity=(0.0, -9.81), name="rail_drop")
    ball = m.add_body("ball", mass=1.0, inertia=1e-2, y=1.0)
    rail = m.add(ss.planar.TranslationalJoint(m.ground, ball, axis_i=(0.0, 1.0),
                                              name="rail"))
    m.add(ss.planar.TranslationalStop(rail, lower=0.0, restitution=0.5, name="floor"))
    with pytest.raises(ParameterError, match=r"rigid stops 'floor' \(law=None\).*pass "
                                             r"through.*planar.Model.simulate"):
        ss.simulate(m.system(), 1.0, dt=1e-3, method=method)
