"""Bad input to stickslip.planar (issue 11): each case must raise a stickslip error whose
message names the argument, element or body — at construction or at the first analysis,
never a bare traceback, a hang or a silent NaN."""

import math

import jax.numpy as jnp
import numpy as np
import pytest

import stickslip as ss

P = ss.planar


def _model():
    m = P.Model(gravity=(0.0, -9.81), name="bad")
    b = m.add_body("link", mass=1.0, inertia=0.1, x=0.5)
    return m, b


def _law():
    return ss.laws.CoulombODE(mu=0.3, K=1e4, beta=1e-3)


def _branching(t):
    if t < 1.0:              # a Python `if` on the traced time: not traceable
        return 0.0 * t
    return t


def _float_of_t(t):
    return math.sin(float(t))


def _unclosable_loop():
    # coupler far too short to reach the rocker: Newton's residual stops shrinking
    m = P.examples.four_bar(a=0.2, b=0.5, c=0.5, d=2.5, driven=False)
    return m.assemble(max_iterations=10 ** 7)


def _stranger_body():
    m, _ = _model()
    stranger = P.Model().add_body("stranger", mass=1.0, inertia=0.1)
    m.add(P.RevoluteJoint(m.ground, stranger, name="pin"))
    return m.dof()


def _duplicate_name():
    m, b = _model()
    m.add(P.RevoluteJoint(m.ground, b, (0.0, 0.0), (-0.5, 0.0), name="pin"))
    m.add(P.AbsoluteAngle(b, name="pin"))
    return m.dof()


def _self_joint():
    m, b = _model()
    m.add(P.RevoluteJoint(b, b, name="loop"))
    return m.dof()


def _unknown_point():
    m, b = _model()
    m.add(P.RevoluteJoint(m.ground, b, point_j="tip", name="pin"))
    return m.dof()


def _friction_on_foreign_joint():
    m, b = _model()
    joint = P.TranslationalJoint(m.ground, b, name="rail")
    m.add(P.LuGreFriction(joint, name="lg"))                 # its joint was never added
    return m.dof()


def _stop_on_foreign_joint():
    m, b = _model()
    pin = P.RevoluteJoint(m.ground, b, name="pin")
    m.add(P.RevoluteStop(pin, lower=-1.0, name="limit"))
    return m.dof()


def _replace_unknown_parameter():
    m, b = _model()
    j = m.add(P.TranslationalJoint(m.ground, b, name="rail"))
    m.add(P.LuGreFriction(j, name="lg"))
    m.replace("lg", mu=0.3)


def _replace_bad_value():
    m, b = _model()
    m.add(P.TranslationalJoint(m.ground, b, name="rail", friction=_law()))
    m.replace("rail", mu=-1.0)


def _replace_without_friction():
    m, b = _model()
    m.add(P.RevoluteJoint(m.ground, b, (0.0, 0.0), (-0.5, 0.0), name="pin"))
    m.replace("pin", mu=0.3)


def _no_bodies():
    return P.Model(name="empty").dof()


def _kinematics_underdriven():
    m, b = _model()
    m.add(P.RevoluteJoint(m.ground, b, (0.0, 0.0), (-0.5, 0.0), name="pin"))
    return m.kinematics([0.0, 1.0])


def _kinematics_bad_times():
    m, b = _model()
    m.add(P.RevoluteJoint(m.ground, b, (0.0, 0.0), (-0.5, 0.0), name="pin"))
    m.add(P.RotationalDriver(m.ground, b, angle=lambda t: t, name="motor"))
    return m.kinematics([1.0, 0.0])


def _pendulum():
    m, b = _model()
    m.add(P.RevoluteJoint(m.ground, b, (0.0, 0.0), (-0.5, 0.0), name="pin"))
    return m


def _nan_force_element():
    m = _pendulum()
    m.add(P.BodyTorque(m.element("link"), lambda t, q, qd: jnp.nan * t, name="torque"))
    return m.simulate(0.1, dt=1e-3)


CASES = {
    # bodies
    "body_zero_mass": (lambda: _model()[0].add_body("b", mass=0.0, inertia=0.1), "mass"),
    "body_nan_mass": (lambda: _model()[0].add_body("b", mass=float("nan"), inertia=0.1),
                      "mass"),
    "body_negative_inertia": (lambda: _model()[0].add_body("b", mass=1.0, inertia=-1.0),
                              "inertia"),
    "body_array_mass": (lambda: _model()[0].add_body("b", mass=[1.0, 2.0], inertia=0.1),
                        "mass"),
    "body_nan_pose": (lambda: _model()[0].add_body("b", mass=1.0, inertia=0.1, x=np.nan), "x"),
    "body_duplicate_name": (lambda: _model()[0].add_body("link", mass=1.0, inertia=0.1),
                            "link"),
    "body_ground_name": (lambda: _model()[0].add_body("ground", mass=1.0, inertia=0.1),
                         "ground"),
    "body_dotted_name": (lambda: _model()[0].add_body("a.b", mass=1.0, inertia=0.1), "a.b"),
    "body_bad_point": (lambda: _model()[0].add_body("b", mass=1.0, inertia=0.1,
                                                    points={"tip": (1.0,)}), "tip"),
    # joints
    "coupler_negative_length": (lambda: P.RevoluteRevoluteJoint(
        "ground", "link", length=-1.0, name="rod"), "length"),
    "coupler_nan_length": (lambda: P.RevoluteRevoluteJoint(
        "ground", "link", length=float("nan"), name="rod"), "length"),
    "translational_zero_axis": (lambda: P.TranslationalJoint(
        "ground", "link", axis_i=(0.0, 0.0), name="rail"), "axis_i"),
    "translational_nan_angle": (lambda: P.TranslationalJoint(
        "ground", "link", angle=float("nan"), name="rail"), "angle"),
    "gear_zero_radius": (lambda: P.GearJoint("ground", "link", radius_i=0.0, radius_j=1.0,
                                             name="g"), "radius_i"),
    "absolute_distance_zero": (lambda: P.AbsoluteDistance("link", distance=0.0, name="ad"),
                               "distance"),
    "absolute_x_nan": (lambda: P.AbsoluteX("link", x=float("nan"), name="ax"), "ax"),
    "cam_bad_kind": (lambda: P.CamFollowerJoint("ground", "link", lambda a: 0.05 + 0 * a,
                                                kind="knife", name="cam"), "kind"),
    "cam_negative_profile": (lambda: P.CamFollowerJoint("ground", "link", lambda a: -1 + 0 * a,
                                                        name="cam"), "profile"),
    "cam_bad_samples": (lambda: P.trigonometric_profile([0.0, 1.0], [1.0, 1.0]), "profile"),
    "joint_bad_name": (lambda: P.RevoluteJoint("ground", "link", name="a.b"), "name"),
    # drivers
    "driver_python_if_on_t": (lambda: P.RotationalDriver("ground", "link", angle=_branching,
                                                         name="motor"), "jnp.where"),
    "driver_float_of_t": (lambda: P.AbsoluteDriver("link", "x", _float_of_t, name="push"),
                          "push"),
    "driver_vector_motion": (lambda: P.RotationalDriver(
        "ground", "link", angle=lambda t: jnp.array([t, t]), name="motor"), "angle"),
    "driver_bad_coordinate": (lambda: P.AbsoluteDriver("link", "z", lambda t: t,
                                                       name="push"), "coordinate"),
    "driver_nan_constant": (lambda: P.RotationalDriver("ground", "link", angle=float("nan"),
                                                       name="motor"), "angle"),
    "smooth_ramp_backwards": (lambda: P.smooth_ramp(0.0, 1.0, 2.0, 1.0), "t1"),
    # forces
    "spring_negative_stiffness": (lambda: P.TranslationalSpringDamper(
        "ground", "link", stiffness=-5.0, name="spring"), "stiffness"),
    "spring_nan_damping": (lambda: P.TranslationalSpringDamper(
        "ground", "link", damping=float("nan"), name="spring"), "damping"),
    "torsion_spring_nan_angle": (lambda: P.RotationalSpringDamper(
        "ground", "link", free_angle=float("nan"), name="ts"), "free_angle"),
    "spring_actuator_python_if": (lambda: P.TranslationalSpringDamper(
        "ground", "link", actuator=lambda l, ld, t: l if t > 0 else ld, name="spring"),
        "jnp.where"),
    # a constant is a load (ConstantLoad); three components are not a planar force
    "point_force_wrong_constant": (lambda: P.PointForce("link", (1.0, 0.0, 2.0), name="push"),
                                   "push.force"),
    "body_torque_python_if": (lambda: P.BodyTorque(
        "link", lambda t, q, qd: 1.0 if q[2] > 0 else 0.0, name="tq"), "tq.torque"),
    # frictions
    "revolute_friction_without_pin_radius": (lambda: P.RevoluteJoint(
        "ground", "link", friction=_law(), name="pin"), "pin.pin_radius"),
    "friction_not_a_law": (lambda: P.TranslationalJoint("ground", "link", friction=0.3,
                                                        name="rail"), "rail.friction"),
    "friction_negative_viscous": (lambda: P.TranslationalJoint(
        "ground", "link", friction=_law(), viscous=-1.0, name="rail"), "rail.viscous"),
    "friction_zero_slider_length": (lambda: P.TranslationalJoint(
        "ground", "link", friction=_law(), slider_length=0.0, name="rail"),
        "rail.slider_length"),
    "friction_nan_preload": (lambda: P.RevoluteJoint(
        "ground", "link", friction=_law(), pin_radius=0.01, preload=float("nan"),
        name="pin"), "pin.preload"),
    "lugre_on_coupler": (lambda: P.LuGreFriction(P.RevoluteRevoluteJoint(
        "ground", "link", length=1.0, name="rod")), "rod"),
    "lugre_mu_k_above_mu_s": (lambda: P.LuGreFriction(P.TranslationalJoint(
        "ground", "link", name="rail"), mu_s=0.2, mu_k=0.3), "mu_k"),
    # stops
    "stop_restitution_above_one": (lambda: P.PointLineStop("link", restitution=1.5,
                                                           name="floor"), "floor.restitution"),
    "stop_zero_normal": (lambda: P.PointLineStop("link", normal=(0.0, 0.0), name="floor"),
                         "floor.normal"),
    "stop_law_not_contact": (lambda: P.PointLineStop("link", law=_law(), name="floor"),
                             "floor.law"),
    "travel_stop_on_revolute": (lambda: P.TranslationalStop(
        P.RevoluteJoint("ground", "link", name="pin"), upper=0.1, name="lim"), "lim"),
    "angle_stop_without_limits": (lambda: P.RevoluteStop(
        P.RevoluteJoint("ground", "link", name="pin"), name="lim"), "lim"),
    "angle_stop_inverted": (lambda: P.RevoluteStop(
        P.RevoluteJoint("ground", "link", name="pin"), lower=1.0, upper=0.5, name="lim"),
        "lower"),
    # the Model builder
    "model_bad_gravity": (lambda: P.Model(gravity=(0.0,)), "gravity"),
    "model_nan_gravity": (lambda: P.Model(gravity=(0.0, float("nan"))), "gravity"),
    "model_add_not_element": (lambda: _model()[0].add("a joint"), "Model.add"),
    "model_body_not_in_model": (_stranger_body, "stranger"),
    "model_duplicate_element_name": (_duplicate_name, "used twice"),
    "model_joint_to_itself": (_self_joint, "loop"),
    "model_unknown_point": (_unknown_point, "tip"),
    "model_friction_joint_not_added": (_friction_on_foreign_joint, "rail"),
    "model_stop_joint_not_added": (_stop_on_foreign_joint, "pin"),
    "model_no_bodies": (_no_bodies, "no bodies"),
    "model_replace_unknown_parameter": (_replace_unknown_parameter, "mu"),
    "model_replace_bad_value": (_replace_bad_value, "rail.friction"),
    "model_replace_without_friction": (_replace_without_friction, "pin"),
    "model_bad_baumgarte": (lambda: _pendulum().system(baumgarte=(-1.0, 1.0)), "baumgarte"),
    # analyses
    "assemble_loop_cannot_close_no_hang": (_unclosable_loop, "will not close"),
    "assemble_zero_iterations": (lambda: _pendulum().assemble(max_iterations=0),
                                 "max_iterations"),
    "kinematics_underdriven": (_kinematics_underdriven, "DOF 1 and 0 driver"),
    "kinematics_decreasing_times": (_kinematics_bad_times, "times"),
    "simulate_projection_with_adaptive": (lambda: _pendulum().simulate(
        0.1, method="tsit5", projection=True), "projection"),
    "simulate_events_with_adaptive": (lambda: _ball_with_floor().simulate(
        0.1, method="tsit5"), "floor"),
    "simulate_nan_force_stops_by_name": (_nan_force_element, "'torque' return NaN"),
    "equilibrium_zero_iterations": (lambda: _pendulum().equilibrium(max_iterations=0),
                                    "max_iterations"),
}


def _ball_with_floor():
    m = P.Model()
    ball = m.add_body("ball", mass=0.1, inertia=1e-4, y=1.0)
    m.add(P.PointLineStop(ball, name="floor"))
    return m


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_planar_input_raises_a_named_stickslip_error(case):
    call, needle = CASES[case]
    with pytest.raises(ss.StickslipError) as info:
        call()
    assert needle in str(info.value), str(info.value)


def test_there_are_at_least_thirty_cases():
    assert len(CASES) >= 30


def test_a_joint_axis_whose_norm_overflows_is_still_a_direction():
    # (1e308, 1e308): its norm overflows to inf; the direction is (1, 1)/√2, not (0, 0)
    joint = P.TranslationalJoint("ground", "link", axis_i=(1e308, 1e308), name="rail")
    np.testing.assert_allclose(np.asarray(joint.axis_i), [2 ** -0.5, 2 ** -0.5], rtol=1e-15)


def _slider_crank_start(coordinate, change):
    """The slider–crank example's assembled state with one entry changed."""
    m = P.examples.slider_crank()
    x = np.asarray(m.assemble().final_state, dtype=float).copy()
    x[list(m.system().state_names).index(coordinate)] += change
    return m, x


def test_an_initial_state_off_a_joint_is_refused_naming_it():
    # the run's first projection would pull the crank back 0.2 m without a word (before, a
    # drift error came after the whole run); the tolerance is the run's own max_drift, so a
    # state an accepted run could end in (off by 1e-5 m) is a start
    m, x = _slider_crank_start("crank.x", 0.2)
    with pytest.raises(ss.ModelError, match="RevoluteJoint 'B'.*residual 0.2"):
        m.simulate(0.01, dt=1e-3, initial=x)
    m, x = _slider_crank_start("crank.x", 1e-5)
    assert m.simulate(0.01, dt=1e-3, initial=x)["constraint.position"][-1] < 1e-12


def test_an_initial_velocity_off_the_joints_is_made_consistent_before_the_run():
    # as assembly does with the model's own state: the smallest mass-weighted change, so the
    # first sample already has the energy the run keeps (before, the first step removed it)
    m, x = _slider_crank_start("crank.xd", 1.0)
    res = m.simulate(0.01, dt=1e-3, initial=x)
    assert res["constraint.velocity"][0] < 1e-12
    assert np.ptp(res["energy"]) < 1e-8
