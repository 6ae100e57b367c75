"""Bad input gives one clear stickslip error naming bodies, joints and times (issue 3)."""

import jax.numpy as jnp
import numpy as np
import pytest

import stickslip as ss
from stickslip.planar import examples

P = ss.planar


@pytest.mark.parametrize("field, value", [("mass", 0.0), ("mass", -1.0), ("inertia", 0.0),
                                          ("inertia", -2.0), ("mass", float("nan"))])
def test_zero_or_negative_mass_or_inertia_names_body(field, value):
    m = P.Model()
    kwargs = {"mass": 1.0, "inertia": 0.1, field: value}
    with pytest.raises(ss.ParameterError, match=rf"body 'crank'.*`{field}` must be"):
        m.add_body("crank", **kwargs)


def test_problems_are_collected_and_raised_once():
    m = P.Model()
    crank = m.add_body("crank", mass=1.0, inertia=0.1)
    m.add(P.RevoluteJoint(m.ground, crank, point_j="missing_point", name="pin2"))
    m.add(P.RevoluteJoint(m.ground, crank, name="pin2"))
    m.add(P.RevoluteJoint(crank, crank, name="loop"))
    with pytest.raises(ss.ModelError) as info:
        m.dof()
    text = str(info.value)
    assert "3 problem(s)" in text
    assert "'loop' connects body 'crank' to itself" in text
    assert "missing_point" in text
    assert "used twice" in text


@pytest.mark.parametrize("body, needles", [
    ("crnak", ["'crnak'", "Did you mean 'crank'?", "['crank', 'rod']"]),
    ("nobody", ["'nobody'", "['crank', 'rod']"]),
    (P.Model().add_body("stranger", mass=1.0, inertia=0.1), ["'stranger' of another model"]),
])
def test_joint_on_a_body_not_in_the_model_fails_at_add(body, needles):
    # issue 24: a misspelled body name was accepted by add() and reported only at dof()
    m = P.Model(name="demo")
    m.add_body("crank", mass=1.0, inertia=0.1)
    m.add_body("rod", mass=1.0, inertia=0.1)
    with pytest.raises(ss.ModelError) as info:
        m.add(P.RevoluteJoint("crank", body, name="pin"))
    assert all(needle in str(info.value) for needle in needles), str(info.value)
    assert "`body_j`" in str(info.value) and not m.joints
    m.add(P.RevoluteJoint("crank", "rod", name="pin"))      # the name is still free
    assert m.dof() == 4                                     # 2 bodies, one pin


def test_redundant_constraint_is_named():
    m = examples.four_bar()
    m.add(P.RevoluteJoint(m.ground, m.element("crank"), (0.0, 0.0), (-0.5, 0.0),
                          name="duplicate_pin"))
    with pytest.raises(ss.ModelError, match=r"redundant.*duplicate_pin"):
        m.dof()


def test_contradictory_driver_is_named():
    m = examples.four_bar()
    m.add(P.AbsoluteDriver(m.element("crank"), "phi", lambda t: 0.3 + t, name="second_motor"))
    with pytest.raises(ss.ModelError, match=r"second_motor"):
        m.kinematics([0.0, 0.1])


def test_assembly_that_cannot_close_names_the_joint():
    # the coupler is too short to reach the rocker: |crank| + |coupler| < distance
    m = examples.four_bar(a=0.2, b=0.5, c=0.5, d=2.5, driven=False)
    with pytest.raises(ss.ModelError, match=r"assembly.*R\d.*will not close"):
        m.assemble()


def test_kinematics_needs_as_many_drivers_as_dof():
    m = examples.four_bar(driven=False)
    with pytest.raises(ss.ModelError, match=r"DOF 1 and 0 driver"):
        m.kinematics([0.0, 1.0])


def test_lock_up_mid_run_names_time_and_constraints():
    # drive the slider of a slider-crank beyond the reach crank + rod = 0.4 m: the
    # mechanism locks at the toggle position (t = 0.5 s) and Φ_q becomes singular
    m = examples.slider_crank()
    m.add(P.AbsoluteDriver(m.element("slider"), "x", lambda t: 0.3 + 0.2 * t, name="push"))
    m.constraints  # noqa: B018
    # remove the crank's freedom: the slider drive is now the only driver (DOF 1)
    with pytest.raises(ss.SimulationError) as info:
        m.kinematics(np.linspace(0.0, 1.0, 101))
    err = info.value
    assert 0.4 <= err.time <= 0.6
    assert "push" in str(err) and "t=" in str(err)


def test_bad_element_parameters():
    m = P.Model()
    b = m.add_body("b", mass=1.0, inertia=0.1)
    with pytest.raises(ss.ParameterError, match="length"):
        P.RevoluteRevoluteJoint(m.ground, b, length=-1.0)
    with pytest.raises(ss.ParameterError, match="axis_i"):
        P.TranslationalJoint(m.ground, b, axis_i=(0.0, 0.0))
    with pytest.raises(ss.ParameterError, match="angle"):
        P.RotationalDriver(m.ground, b, angle=lambda t: jnp.array([t, t]))
    with pytest.raises(ss.ParameterError, match="stiffness"):
        P.TranslationalSpringDamper(m.ground, b, stiffness=-5.0)
    with pytest.raises(ss.ParameterError, match="gravity"):
        P.Model(gravity=(0.0,))
    with pytest.raises(ss.ParameterError, match="Model.add"):
        m.add("not an element")


def test_forward_dynamics_through_a_lock_up_raises_with_time():
    m = examples.slider_crank()
    m.add(P.AbsoluteDriver(m.element("slider"), "x", lambda t: 0.3 + 0.2 * t, name="push"))
    with pytest.raises(ss.SimulationError) as info:
        m.simulate(1.0, dt=1e-3, dt_out=0.01)
    assert 0.45 <= info.value.time <= 0.6
    assert "push" in str(info.value)
