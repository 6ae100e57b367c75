"""Bad input to the spatial link-system elements (issue 20): every case raises a
`ss.StickslipError` whose message names the element, parameter, body or joint, and says what
to do. Each case is a zero-argument callable; the model-level ones freeze the model."""

import numpy as np
import pytest

import stickslip as ss

sp = ss.spatial
# these cases leave out `dt` to check other arguments; the implicit step's DeprecationWarning
# is checked where it belongs (tests/test_simulate_signature.py)
pytestmark = pytest.mark.filterwarnings(
    "ignore:SpatialModel.simulate. pass dt= explicitly:DeprecationWarning")
LAW = ss.laws.CoulombODE(mu=0.2, K=1e4, beta=1e-2)


def _arm(*elements, shape=None):
    m = sp.SpatialModel(gravity=(0, 0, -9.81))
    m.add_body("link", mass=1.0, inertia=(0.1, 0.1, 0.01), shape=shape, position=(0, 0, -0.5))
    for e in elements:
        m.add(e)
    return m


def _hinge(**kw):
    args = {"point": (0, 0, 0), "axis": (0, 1, 0), "name": "hinge"}
    args.update(kw)
    return sp.RevoluteJoint("ground", "link", **args)


def _freeze(*elements, **kw):
    return lambda: _arm(*elements, **kw).link_system()


CASES = [
    # joints
    ("revolute_zero_axis", lambda: _hinge(axis=(0, 0, 0)), "RevoluteJoint.axis"),
    ("revolute_nan_point", lambda: _hinge(point=(0, np.nan, 0)), "RevoluteJoint.point"),
    ("revolute_point_2d", lambda: _hinge(point=(0, 0)), "RevoluteJoint.point"),
    ("revolute_same_body", lambda: sp.RevoluteJoint("link", "link", point=(0, 0, 0),
                                                    axis=(0, 0, 1)), "to itself"),
    ("revolute_body_not_string", lambda: sp.RevoluteJoint(3, "link", point=(0, 0, 0),
                                                          axis=(0, 0, 1)),
     "RevoluteJoint.body_i"),
    ("revolute_friction_not_law", lambda: _hinge(friction=0.3), "RevoluteJoint.friction"),
    ("revolute_mu_without_pin", lambda: _hinge(friction=LAW), "RevoluteJoint.pin_radius"),
    ("revolute_negative_pin", lambda: _hinge(friction=LAW, pin_radius=-0.01),
     "RevoluteJoint.pin_radius"),
    ("prismatic_zero_axis", lambda: sp.PrismaticJoint("ground", "link", point=(0, 0, 0),
                                                      axis=(0, 0, 0)), "PrismaticJoint.axis"),
    ("spherical_bad_point", lambda: sp.SphericalJoint("ground", "link", point="origin"),
     "SphericalJoint.point"),
    ("fixed_same_body", lambda: sp.FixedJoint("ground", "ground"), "to itself"),
    ("joint_empty_name", lambda: _hinge(name=""), "RevoluteJoint.name"),
    # drivers and loads
    ("driver_two_modes", lambda: sp.JointDriver("hinge", position=0.0, velocity=1.0),
     "exactly one of"),
    ("driver_no_mode", lambda: sp.JointDriver("hinge"), "exactly one of"),
    ("driver_nan_effort", lambda: sp.JointDriver("hinge", effort=np.nan), "JointDriver.effort"),
    ("driver_joint_object", lambda: sp.JointDriver(3.0, effort=1.0), "JointDriver.joint"),
    ("point_force_2d", lambda: sp.PointForce("link", force=(1, 0)), "PointForce.force"),
    ("point_force_on_ground", lambda: sp.PointForce("ground", force=(1, 0, 0)),
     "PointForce.body"),
    ("body_torque_string", lambda: sp.BodyTorque("link", torque="up"), "BodyTorque.torque"),
    ("spring_negative_k", lambda: sp.SpringDamper("ground", "link", point_i=(0, 0, 0),
                                                  point_j=(0, 0, -0.5), stiffness=-1.0),
     "SpringDamper.stiffness"),
    ("spring_zero_length", lambda: sp.SpringDamper("ground", "link", point_i=(0, 0, 0),
                                                   point_j=(0, 0, 0), stiffness=1.0),
     "zero length"),
    ("contact_negative_mu", lambda: sp.ContactPair("ground", "link", mu=-0.1),
     "ContactPair.mu"),
    ("contact_static_below_kinetic", lambda: sp.ContactPair("ground", "link", mu=0.4,
                                                            mu_s=0.3), "ContactPair.mu_s"),
    ("contact_zero_stribeck", lambda: sp.ContactPair("ground", "link", mu=0.4,
                                                     v_stribeck=0.0), "ContactPair.v_stribeck"),
    ("contact_nan_mu_s", lambda: sp.ContactPair("ground", "link", mu=0.4, mu_s=np.nan),
     "ContactPair.mu_s"),
    ("contact_ground_second", lambda: sp.ContactPair("link", "ground", mu=0.1),
     "ContactPair.body_b"),
    ("contact_bad_vertices_of", lambda: sp.ContactPair("a", "b", vertices_of="c"),
     "ContactPair.vertices_of"),
    ("sphere_negative_radius", lambda: sp.Sphere(-1.0), "Sphere.radius"),
    ("add_not_an_element", lambda: _arm().add("hinge"), "SpatialModel.add"),
    ("body_without_shape_or_inertia", lambda: sp.SpatialModel().add_body(
        "b", mass=1.0, shape=None), "inertia"),
    # when the model freezes: names, every problem at once
    ("unknown_body", _freeze(sp.RevoluteJoint("ground", "arm", point=(0, 0, 0),
                                              axis=(0, 1, 0))), "body 'arm' is not in the model"),
    ("driver_unknown_joint", _freeze(_hinge(), sp.JointDriver("elbow", effort=1.0)),
     "joint 'elbow' is not in the model"),
    ("driver_on_spherical", _freeze(sp.SphericalJoint("ground", "link", point=(0, 0, 0),
                                                      name="ball"),
                                    sp.JointDriver("ball", effort=1.0)),
     "only revolute and prismatic"),
    ("duplicate_joint_name", _freeze(_hinge(), _hinge()), "already exists"),
    ("contact_without_mu", _freeze(sp.ContactPair("ground", "link"),
                                   shape=sp.Sphere(0.1)), "give mu="),
    ("contact_without_shape", _freeze(sp.ContactPair("ground", "link", mu=0.3)),
     "need a shape"),
    ("driver_starts_elsewhere", _freeze(_hinge(), sp.JointDriver("hinge", position=0.5)),
     "hinge.driver"),
    ("bad_delta", lambda: _arm().link_system(delta=0.0), "delta"),
    ("bad_baumgarte", lambda: _arm().link_system(baumgarte=(1.0,)), "baumgarte"),
    ("volume_route_option_on_links", lambda: _arm(_hinge()).simulate(0.01, lp_solver="highs"),
     "simulate.lp_solver"),
    ("bad_contact_route", lambda: _arm().simulate(0.01, contact="mesh"), "simulate.contact"),
    # what a run would otherwise get wrong without a word
    ("two_drivers_on_one_joint", _freeze(_hinge(), sp.JointDriver("hinge", velocity=1.0,
                                                                  name="slow"),
                                         sp.JointDriver("hinge", velocity=2.0, name="fast")),
     "already fix"),
    ("flat_four_bar_start", lambda: _flat_four_bar(0.0).link_system(), "singular"),
    ("four_bar_round_off_from_flat", lambda: _flat_four_bar(1e-6).link_system(), "singular"),
    ("joint_named_like_a_channel", lambda: _arm(sp.PrismaticJoint(
        "ground", "link", point=(0, 0, 0), axis=(1, 0, 0), name="constraint")).simulate(
        0.002, dt=1e-3), "'constraint.position'"),
    ("initial_off_the_joint", lambda: _arm(_hinge()).simulate(
        0.002, dt=1e-3, initial=_moved_link(x=0.2)), "hinge[0]"),
    ("point_contact_body_starting_in_the_ground", lambda: _sunk_box(1e-3).link_system(),
     "starts 0.001 m inside the ground"),
    ("initial_not_finite", lambda: _arm(_hinge()).simulate(
        0.002, dt=1e-3, initial=_moved_link(x=np.nan)), "body 'link' is not finite"),
    ("volume_links_initial_off_the_joint", lambda: _boxed_arm().simulate(
        0.002, dt=1e-3, contact="volume", initial=_moved_link(x=0.2)), "hinge[0]"),
    ("initial_zero_quaternion", lambda: _arm(_hinge()).simulate(
        0.002, dt=1e-3, initial=_moved_link(q=(0, 0, 0, 0))), "body 'link'"),
    # point contacts are inelastic: a ball given e = 1 stopped dead on the ground
    ("restitution_on_point_contacts", lambda: _ball(ground_restitution=1.0).simulate(
        0.002, dt=1e-3), "restitution=1.0 is not supported by point contacts"),
    ("model_restitution_on_point_contacts", lambda: _ball(restitution=0.5).link_system(),
     "restitution=0.5"),
]


def _ball(ground_restitution=None, **model_kw):
    """A ball (always point contacts) above the ground."""
    m = sp.SpatialModel(gravity=(0, 0, -9.81), **model_kw)
    m.add_body("ball", mass=1.0, shape=sp.Sphere(0.05), position=(0, 0, 0.15))
    m.add_ground(mu_s=0.3, mu_k=0.3, restitution=ground_restitution)
    return m


def _sunk_box(depth):
    """A 0.1 m cube on point contacts (`contact="point"`), `depth` [m] into the ground."""
    m = sp.SpatialModel(gravity=(0, 0, -9.81))
    m.add_body("box", mass=1.0, shape=sp.Box(0.1, 0.1, 0.1), position=(0, 0, 0.05 - depth))
    m.add_ground(mu_s=0.5, mu_k=0.3)
    m.add(sp.PointForce("box", force=(1.0, 0, 0)))
    return m


def _boxed_arm():
    """The arm with a box for a link, on its hinge above a ground (volume contact)."""
    m = _arm(_hinge(), shape=sp.Box(0.1, 0.1, 0.1))
    m.add_ground(mu_s=0.5, mu_k=0.3)
    return m


def _moved_link(x=0.0, q=(1, 0, 0, 0)):
    """The arm's body state with its centre moved along x by `x` and orientation `q`."""
    X = _arm().initial_state().copy()
    X[0, 0] += x
    X[0, 3:7] = q
    return X


def _flat_four_bar(tilt):
    """A four-bar of hinges about z (crank 0.3, coupler 1.0, rocker 0.2, ground 1.1: a
    change-point linkage) with its rocker turned `tilt` [rad] from the flat pose, where all
    four pivots are on one line and the loop's rows lose a rank."""
    a, b, c, d = 0.3, 1.0, 0.2, 1.1
    C = np.array([d + c * np.cos(tilt), c * np.sin(tilt), 0.0])
    dist = np.linalg.norm(C)
    along = (a * a - b * b + dist * dist) / (2 * dist)
    e = C / dist
    B = along * e - np.sqrt(max(a * a - along * along, 0.0)) * np.array([-e[1], e[0], 0.0])
    m = sp.SpatialModel(gravity=(0, -9.81, 0))
    for name, p, q, mass in (("crank", np.zeros(3), B, 1.0), ("coupler", B, C, 2.0),
                             ("rocker", np.array([d, 0, 0.0]), C, 1.5)):
        length, angle = np.linalg.norm(q - p), np.arctan2(q[1] - p[1], q[0] - p[0])
        inertia = mass * length ** 2 / 12
        m.add_body(name, mass=mass, inertia=(1e-4 * inertia, inertia, inertia), shape=None,
                   position=(p + q) / 2, orientation=(np.cos(angle / 2), 0, 0,
                                                      np.sin(angle / 2)))
    for name, i, j, point in (("A", "ground", "crank", (0, 0, 0)), ("B", "crank", "coupler", B),
                              ("C", "coupler", "rocker", C), ("D", "ground", "rocker", (d, 0, 0))):
        m.add(sp.RevoluteJoint(i, j, point=point, axis=(0, 0, 1), name=name))
    return m


@pytest.mark.parametrize("case, expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_link_input_raises_a_named_stickslip_error(case, expected):
    with pytest.raises(ss.StickslipError) as err:
        case()
    assert expected in str(err.value)


def test_every_freeze_problem_is_listed_at_once():
    m = _arm(sp.RevoluteJoint("ground", "arm", point=(0, 0, 0), axis=(0, 1, 0)),
             sp.JointDriver("elbow", effort=1.0))
    with pytest.raises(ss.ModelError) as err:
        m.link_system()
    assert "'arm'" in str(err.value) and "'elbow'" in str(err.value)


def test_a_four_bar_off_its_flat_pose_builds_and_keeps_its_loop_closed():
    # the singular-start check must not refuse a regular pose near the change point: 1e-3
    # rad off it the three redundant rows of parallel hinges are dropped and the loop holds
    m = _flat_four_bar(1e-3)
    assert len(m.link_system().parameters()["redundant_rows"]) == 3
    res = m.simulate(0.5, dt=1e-3, dt_out=0.05)
    assert np.max(np.abs(res["constraint.position"])) < 1e-10


def test_an_initial_state_off_in_velocity_is_made_consistent_as_the_build_does():
    # a vertical velocity of a body on a ball joint at the origin, with the arm along −z:
    # the joint takes it out (the build's smallest mass-weighted change), so the first sample
    # already has the energy the run keeps, as with the model's own initial state
    X = _arm().initial_state().copy()
    X[0, 7:10] = (0.0, 0.0, 3.0)
    m = _arm(sp.SphericalJoint("ground", "link", point=(0, 0, 0)))
    res = m.simulate(0.01, dt=1e-3, dt_out=1e-3, initial=X, method="rk4")
    assert abs(res["link.vz"][0]) < 1e-12
    assert np.ptp(res["energy"]) < 1e-9
    assert np.max(np.abs(res["constraint.velocity"])) < 1e-12


def test_a_body_within_round_off_of_the_ground_is_accepted():
    # a box placed with a rounded coordinate (1e-9 m in) is on the ground, not in it
    assert _sunk_box(1e-9).link_system() is not None
