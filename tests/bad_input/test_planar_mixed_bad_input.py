"""Bad input to planar models that mix frictional contacts with joint friction and stops
(issue 23, item 3): the ODE routes refuse joint friction and impact stops with contacts by
name (pointing to ``method="moreau_jean"``), ``moreau_jean`` refuses contact-law stops and
laws without a set-valued form by name, and a self-locking pin next to a contact stops the
run with the joint and the time — never a silent pass-through."""

from __future__ import annotations

import math

import jax.numpy as jnp
import pytest

import stickslip as ss
from stickslip.errors import ModelError, ParameterError, SimulationError


def _block_on_floor(name="mixed", g=9.81):
    m = ss.planar.Model(gravity=(0.0, -g), name=name)
    block = m.add_body("block", mass=1.0, inertia=0.01, xd=0.5)
    m.add(ss.planar.PointLineContact(m.ground, block, mu=0.3, name="floor"))
    return m, block


def _with_pin(law=None):
    m, _ = _block_on_floor()
    link = m.add_body("link", mass=1.0, inertia=2e-3, x=1.0, y=-0.1)
    law = ss.laws.CoulombODE(mu=0.3, K=1e4, beta=1e-3) if law is None else law
    m.add(ss.planar.RevoluteJoint(m.ground, link, (1.0, 0.0), (0.0, 0.1), friction=law,
                                  pin_radius=0.02, name="pin"))
    return m


@pytest.mark.parametrize("method", ["rk4", "tsit5"])
def test_joint_friction_with_contacts_on_an_ode_route_is_refused_by_name(method):
    dt = 1e-3 if method == "rk4" else None
    with pytest.raises(ModelError, match=r"planar model 'mixed': the joint friction of "
                       r"\['pin'\] cannot be combined with frictional contacts on the ODE "
                       rf"route \(method='{method}'\): use method='moreau_jean'"):
        _with_pin().simulate(0.01, dt=dt, method=method)


def test_impact_stops_with_contacts_on_an_ode_route_are_refused_by_name():
    m, block = _block_on_floor()
    m.add(ss.planar.PointLineStop(block, line_point=(0.1, 0.0), normal=(-1.0, 0.0),
                                  restitution=0.5, name="wall"))
    with pytest.raises(ModelError, match=r"impact stops \['wall'\] cannot be combined with "
                       r"frictional contacts on the ODE route.*use method='moreau_jean'"):
        m.simulate(0.01, dt=1e-3, method="rk4")


def test_a_contact_law_stop_with_contacts_under_moreau_jean_is_refused_by_name():
    m, block = _block_on_floor()
    m.add(ss.planar.PointLineStop(block, line_point=(0.1, 0.0), normal=(-1.0, 0.0),
                                  law=ss.laws.KelvinVoigt(k=1e4, c=10.0), name="soft"))
    with pytest.raises(ParameterError, match=r"stops 'soft' have a contact law.*law=None"):
        m.simulate(0.01, dt=1e-3, method="moreau_jean")


def test_a_smoothed_joint_law_with_contacts_under_moreau_jean_is_refused_by_name():
    with pytest.raises(ParameterError, match=r"joint 'pin'.*TanhCoulomb.*CoulombODE"):
        _with_pin(ss.laws.TanhCoulomb.example()).simulate(0.01, dt=1e-3,
                                                          method="moreau_jean")


# ~10 s CPU of compile; the stop itself is checked without the contact in
# test_planar_moreau_jean_bad_input.py
@pytest.mark.slow
def test_a_self_locking_pin_next_to_a_contact_stops_with_the_joint_and_the_time():
    # the self-locking pin of test_planar_moreau_jean_bad_input (contraction number ≈ 2),
    # here beside a block pressed onto a floor and sliding: the contact system's run names
    # the joint (no gravity, as there)
    m, block = _block_on_floor("locked", g=0.0)
    m.add(ss.planar.PointForce(block, lambda t, q, qd: jnp.stack([0.0 * t, -9.81 + 0.0 * t]),
                               name="press"))
    link = m.add_body("link", mass=1.0, inertia=1e-3, x=2.0 + 0.5 * math.sin(0.3),
                      y=-0.5 * math.cos(0.3), phi=0.3)
    m.add(ss.planar.RevoluteJoint(m.ground, link, (2.0, 0.0), (0.0, 0.5),
                                  friction=ss.laws.CoulombODE(mu=0.5, K=1e4, beta=1e-3),
                                  pin_radius=2.0, name="pin"))
    m.add(ss.planar.BodyTorque(link, lambda t, q, qd: 1.0 + 0.0 * t, name="motor"))
    with pytest.raises(SimulationError, match=r"friction of joint 'pin' failed in the step "
                       r"from t=.*did not converge.*self-locking"):
        m.simulate(0.1, dt=1e-3, method="moreau_jean")


def test_the_joints_drift_check_runs_next_to_contacts_too():
    # a model with frictional contacts took another path and skipped the max|Φ| check of a
    # plain mechanism: a lock-up there ran on silently. A tolerance below round-off must trip
    # it, naming the pin
    m, _ = _block_on_floor()
    link = m.add_body("link", mass=1.0, inertia=2e-3, x=1.0, y=-0.1, phi=0.3)
    m.add(ss.planar.RevoluteJoint(m.ground, link, (1.0, 0.0), (0.0, 0.1), name="pin"))
    res = m.simulate(0.2, dt=1e-3, dt_out=0.01)
    assert 0.0 < float(max(res["constraint.position"])) < 1e-9
    with pytest.raises(SimulationError, match=r"drifted to max\|Φ\|.*max_drift=1e-20.*"
                                              r"Constraints off: .*pin"):
        m.simulate(0.2, dt=1e-3, dt_out=0.01, max_drift=1e-20)


def test_projection_inside_steps_is_refused_next_to_contacts_too():
    m, _ = _block_on_floor()
    with pytest.raises(ParameterError, match=r"pass `projection=` to Model.simulate itself"):
        m.simulate(0.01, dt=1e-3, steps=ss.Steps(projection=True))


def test_a_redundant_joint_next_to_contacts_is_named():
    # the contact path skipped the rank check of Φ_q a plain mechanism gets before its run:
    # a duplicated pin then ran with a singular constraint matrix instead of being named
    m, _ = _block_on_floor()
    link = m.add_body("link", mass=1.0, inertia=2e-3, x=1.0, y=-0.1)
    m.add(ss.planar.RevoluteJoint(m.ground, link, (1.0, 0.0), (0.0, 0.1), name="pin"))
    m.add(ss.planar.RevoluteJoint(m.ground, link, (1.0, 0.0), (0.0, 0.1), name="pin_again"))
    with pytest.raises(ModelError, match=r"redundant.*pin_again"):
        m.simulate(0.01, dt=1e-3)
