"""``method="moreau_jean"`` on 3-D link systems (issues 20 and 21;
stickslip.spatial._link_step): joints and drivers as bilateral rows eliminated by the
projected inverse mass, point contacts' impulses by the ODE route's λ-solver at the velocity
level, positions by the θ-method, then ``LinkSystem.project``.

Reference values: the gripper's closed forms (held while 2 μ G ≥ m g; else a = g − 2 μ G/m,
spatial.examples.gripper); Coulomb sliding under a constant normal load (deceleration μ g);
the double pendulum against the rk4 route at a small step; energy of a frictionless
mechanism; the end-of-step gap ≥ 0 at θ = 1 (Moreau–Jean's velocity-level Signorini law)."""

from __future__ import annotations

import numpy as np
import pytest

import stickslip as ss
import stickslip.spatial as sp
from stickslip.spatial.examples import PUSH, arm_and_box, gripper

G = 9.81
MU, BOX_MASS = 0.5, 0.5            # spatial.examples.gripper's defaults


def _mj(model, t_end, dt, dt_out, **options):
    return model.simulate(t_end, dt=dt, dt_out=dt_out, method="moreau_jean", **options)


def _finger_normal(res, side):
    return sum(res[f"box-{side}.{k}.fn"] for k in range(1, 9))


# --- the gripper ---------------------------------------------------------------------------
def test_gripper_holds_the_box_without_drift():
    """2 μ G = 10 N > m g = 4.905 N: every contact sticks, its tangential end-of-step
    velocity is 0 to the solver's round-off, so the box does not creep at all (the ODE
    route creeps at the relaxation's rate)."""
    res = _mj(gripper(10.0), 2.0, dt=1e-2, dt_out=0.01)
    assert np.max(np.abs(res["box.z"] - res["box.z"][0])) <= 1e-12
    assert np.max(np.abs(res["box.vz"])) <= 1e-12
    assert np.all(res["contact.status"] == 0) and res["contact.unsolved_time"][-1] == 0.0
    # each finger presses with its grip; friction carries the weight (mean forces of a step)
    np.testing.assert_allclose(_finger_normal(res, "left")[1:], 10.0, rtol=1e-9)
    np.testing.assert_allclose(_finger_normal(res, "right")[1:], 10.0, rtol=1e-9)
    # Σ|f_t| ≥ |Σ f_t| = m g: equal up to the statically indeterminate split's sideways parts
    friction = sum(res[f"box-{s}.{k}.ft"] for s in ("left", "right") for k in range(1, 9))
    assert np.all(friction[1:] >= BOX_MASS * G * (1 - 1e-12))
    np.testing.assert_allclose(friction[1:], BOX_MASS * G, rtol=1e-6)


def test_gripper_with_a_weak_grip_slides_at_the_closed_form_acceleration():
    """G = 4.5 N < m g/(2 μ): kinetic friction 2 μ G on a box in free fall gives
    a = g − 2 μ G/m = 0.81 m/s², exactly from the first step (rigid contact, no transient);
    the θ = 1/2 position step is exact for a constant acceleration."""
    grip, h = 4.5, 1e-2
    accel = G - 2 * MU * grip / BOX_MASS
    res = _mj(gripper(grip), 0.3, dt=h, dt_out=h)
    np.testing.assert_allclose(-np.diff(res["box.vz"]) / h, accel, rtol=1e-9)
    np.testing.assert_allclose(res["box.z"], -0.5 * accel * res.t ** 2, rtol=0, atol=1e-9 * 0.05)
    np.testing.assert_allclose(_finger_normal(res, "left")[1:], grip, rtol=1e-9)


# --- the arm pushing a box ----------------------------------------------------------------
@pytest.fixture(scope="module")
def arm_run():
    return _mj(arm_and_box(), 1.2, dt=2.5e-3, dt_out=0.005)


def test_arm_pushes_the_box_with_the_kinetic_friction_of_the_floor(arm_run):
    """While the tip moves at constant speed the box moves with it, the push (the tip's
    normal force) equals μ times the floor's normal force, and floor + tip carry m g (the
    tip's vertical friction is left undetermined by rigid contact, spatial.examples)."""
    res, mu = arm_run, 0.3
    assert np.all(res["contact.status"] == 0)
    steady = (res.t > PUSH["ramp"] + 0.1) & (res.t < PUSH["push_until"])
    ground = sum(res[f"ground-box.{k}.fn"] for k in range(1, 9))
    # (to 1e-5: the box gains 4e-7 m/s over the push, see below, an m·a of ~3e-6 N)
    np.testing.assert_allclose(res["push.fn"][steady], mu * ground[steady], rtol=1e-5)
    np.testing.assert_allclose(ground[steady] + res["push.ft"][steady], 1.0 * G, rtol=1e-6)
    # the box moves with the tip, up to the O(h²) of the drivers' θ-step that the projection
    # puts back on the path (the tip then sits 6e-7 m into the box at h = 2.5 ms: a contact
    # already inside is held, not pushed out)
    np.testing.assert_allclose(res["box.vx"][steady], PUSH["speed"], rtol=1e-5)
    assert res["push.gap"][steady].min() > -2e-6
    # the floor's contacts are never entered (θ = 1/2: linearised end gaps ≥ 0)
    gaps = np.array([res[f"ground-box.{k}.gap"] for k in range(1, 9)])
    assert gaps.min() > -1e-11
    assert res["constraint.position"].max() < 1e-9


def test_released_box_decelerates_at_mu_g_and_then_sticks_exactly(arm_run):
    """After the tip stops, the box slides alone: v̇ = −μ g (Coulomb, constant normal load)
    until it stops, then it sticks: v = 0 exactly, no drift."""
    res, mu = arm_run, 0.3
    t, vx = res.t, res["box.vx"]
    alone = (t > PUSH["push_until"]) & (res["push.fn"] < 1e-9) & (vx > 1e-3)
    assert alone.sum() > 5
    np.testing.assert_allclose(np.diff(vx[alone]) / np.diff(t[alone]), -mu * G, rtol=1e-9)
    # stuck once stopped: no drift beyond the solver's round-off (1e-13 of the problem's
    # velocity scale, the open top corners' ψ/(hθ) ≈ 80 m/s: measured 1.5e-13 m/s)
    stopped = np.flatnonzero((t > PUSH["push_until"]) & (np.abs(vx) < 1e-12))
    assert stopped.size and t[stopped[0]] < 1.0
    after = slice(stopped[0], None)
    assert np.max(np.abs(vx[after])) < 1e-12
    assert np.ptp(res["box.x"][after]) < 1e-12


# --- the double pendulum (no contact) --------------------------------------------------------
def _rod(m, name, start, end, mass=1.0):
    start, end = np.asarray(start, float), np.asarray(end, float)
    length = np.linalg.norm(end - start)
    angle = np.arctan2(end[1] - start[1], end[0] - start[0])
    transverse = mass * length ** 2 / 12
    m.add_body(name, mass=mass, inertia=(1e-4 * transverse, transverse, transverse),
               shape=None, position=(start + end) / 2,
               orientation=(np.cos(angle / 2), 0.0, 0.0, np.sin(angle / 2)))


def double_pendulum():
    m = sp.SpatialModel(gravity=(0, -G, 0))
    _rod(m, "upper", (0, 0, 0), (1.0, 0, 0))
    _rod(m, "lower", (1.0, 0, 0), (1.8, 0.3, 0), mass=0.7)
    m.add(sp.RevoluteJoint("ground", "upper", point=(0, 0, 0), axis=(0, 0, 1), name="J1"))
    m.add(sp.RevoluteJoint("upper", "lower", point=(1.0, 0, 0), axis=(0, 0, 1), name="J2"))
    return m


@pytest.mark.slow
def test_double_pendulum_energy_at_theta_half_is_bounded_and_second_order():
    """θ = 1/2 (impulse at the mid-step rows, rows enforced at the end): no secular energy
    drift over 10 s, the oscillation of E falls as h² (measured 3.4e-4 J at h = 1 ms)."""
    m = double_pendulum()
    res = _mj(m, 10.0, dt=1e-3, dt_out=0.01)
    energy = res["energy"]
    assert np.ptp(energy) < 1e-3
    assert abs(energy[-1] - energy[0]) < 2e-4
    assert np.ptp(res["J2.angle"]) > 1.0
    assert res["constraint.position"].max() < 1e-9
    coarse = np.ptp(_mj(m, 2.0, dt=2e-3, dt_out=0.01)["energy"])
    fine = np.ptp(_mj(m, 2.0, dt=1e-3, dt_out=0.01)["energy"])
    assert 3.0 < coarse / fine < 5.0


def test_double_pendulum_at_theta_one_only_loses_energy():
    """θ = 1 (backward Euler): Moreau–Jean's numerical dissipation — the energy never rises
    (by more than round-off) from one sample to the next."""
    res = _mj(double_pendulum(), 2.0, dt=1e-3, dt_out=0.01, theta=1.0)
    assert np.max(np.diff(res["energy"])) < 1e-12
    assert res["energy"][-1] < res["energy"][0] - 1e-3


@pytest.mark.slow   # cross-route check; the route's energy test stays in the default run
def test_double_pendulum_agrees_with_rk4_at_a_small_step():
    """Against the rk4 route at h = 1e-4 over 2 s: joint angles within 5e-7 rad (measured
    1.7e-7; at h = 1e-3 1.8e-5: second order)."""
    m = double_pendulum()
    ref = m.simulate(2.0, dt=1e-4, dt_out=0.1)
    res = _mj(m, 2.0, dt=1e-4, dt_out=0.1)
    for joint in ("J1", "J2"):
        np.testing.assert_allclose(res[f"{joint}.angle"], ref[f"{joint}.angle"], rtol=0,
                                   atol=5e-7)
    # the same channels as the ODE route (reactions: mean forces of the step)
    assert set(ref.names) == set(res.names)
    # the reported force is the step's mean, F(t − h/2) to first order: h/2 · |Ḟ| ≲ 0.03 N
    np.testing.assert_allclose(res["J1.fy"][1:], ref["J1.fy"][1:], rtol=0, atol=0.05)


# --- split runs, drops ------------------------------------------------------------------------
def test_a_run_split_in_two_equals_one_run():
    """``initial=`` a previous Results continues on the same grid: the sliding gripper split
    at 0.15 s ends in the state of one run (the step is the same function of the state)."""
    system = gripper(4.5).link_system()
    whole = ss.simulate(system, 0.3, dt=1e-2, dt_out=0.05, method="moreau_jean")
    first = ss.simulate(system, 0.15, dt=1e-2, dt_out=0.05, method="moreau_jean")
    rest = ss.simulate(system, 0.3, dt=1e-2, dt_out=0.05, method="moreau_jean", initial=first)
    assert rest.t[0] == 0.15 and rest.t[-1] == 0.3
    np.testing.assert_allclose(rest.final_state, whole.final_state, rtol=0, atol=1e-15)


def _dropped_box(height=0.3):
    m = sp.SpatialModel(gravity=(0.0, 0.0, -G))
    angle = 0.4
    q = (np.cos(angle / 2), np.sin(angle / 2) / np.sqrt(2), np.sin(angle / 2) / np.sqrt(2), 0)
    m.add_body("box", mass=1.0, shape=sp.Box(0.1, 0.2, 0.05), position=(0.0, 0.0, height),
               orientation=q, angular_velocity=(1.0, -2.0, 0.5))
    m.add_ground(mu_s=0.4, mu_k=0.4)
    return m


@pytest.mark.slow
def test_a_tumbling_box_dropped_at_theta_one_does_not_penetrate():
    """θ = 1: the velocity-level Signorini law makes every linearised end-of-step gap ≥ 0;
    what is left is the rotation's second-order term, (hω)²·arm (here ≤ 1e-7 m at
    h = 1 ms, |ω| ≈ 2.3 rad/s), and the box comes to rest on the ground."""
    res = _mj(_dropped_box(), 1.0, dt=1e-3, dt_out=0.005, contact="point", theta=1.0)
    gaps = np.array([res[f"ground-box.{k}.gap"] for k in range(1, 9)])
    assert gaps.min() > -1e-7
    assert np.all(res["contact.status"] == 0)
    final = np.array([res[f"box.{c}"][-1] for c in ("vx", "vy", "vz", "wx", "wy", "wz")])
    assert np.max(np.abs(final)) < 1e-9                     # at rest: exact stick
    assert abs(np.sort(gaps[:, -1])[:4]).max() < 1e-7       # on a face


# --- joint friction (SPEC §9 9-2 in 3-D) ------------------------------------------------------
def wheel(torque, mu=0.2, pin=0.01, mass=2.0):
    """A wheel on a horizontal axle (z) under gravity −y: radial load m g, friction level
    μ·a·m g (tests/spatial/test_link_systems.py's wheel); a torque about the axle."""
    m = sp.SpatialModel(gravity=(0, -G, 0))
    m.add_body("wheel", mass=mass, inertia=(0.01, 0.01, 0.02), shape=None)
    law = ss.laws.CoulombODE(mu=mu, K=1e4, beta=2e-2)
    m.add(sp.RevoluteJoint("ground", "wheel", point=(0, 0, 0), axis=(0, 0, 1), name="J",
                           friction=law, pin_radius=pin))
    m.add(sp.BodyTorque("wheel", torque=(0, 0, torque)))
    return m


def test_revolute_friction_holds_exactly_below_the_level_and_slips_above():
    """Below μ a N the pin sticks from the first step (no proxy to settle): drift < 1e-12
    rad, the friction balances the torque; above, I θ̈ = τ − μ a m g exactly."""
    level = 0.2 * 0.01 * 2.0 * G                            # μ a m g [N·m]
    held = _mj(wheel(0.6 * level), 2.0, dt=1e-2, dt_out=1e-2)
    assert np.ptp(held["J.angle"]) < 1e-12
    assert np.abs(held["J.slip"]).max() < 1e-12
    np.testing.assert_allclose(held["J.normal"][1:], 0.01 * 2.0 * G, rtol=1e-12)
    np.testing.assert_allclose(held["J.friction"][1:], -0.6 * level, rtol=1e-12)
    slipping = _mj(wheel(2.0 * level), 2.0, dt=1e-2, dt_out=1e-2)
    np.testing.assert_allclose(np.diff(slipping["J.rate"]) / 1e-2, level / 0.02, rtol=1e-9)
    np.testing.assert_allclose(slipping["J.friction"][1:], -level, rtol=1e-12)
    assert slipping["J.angle"][-1] > np.pi                  # past ±π: whole turns counted


@pytest.mark.slow
def test_prismatic_friction_breaks_away_above_the_static_level():
    """μ_k = 0.3, μ_s = 0.4 on a rail, N = m g: 0.35 m g holds exactly (static level from
    rest), 1.05 μ_s m g breaks it loose in the first step and it accelerates at
    (F − μ_k m g)/m."""
    def slider(push):
        m = sp.SpatialModel(gravity=(0, 0, -G))
        m.add_body("slider", mass=3.0, inertia=(0.01, 0.01, 0.01), shape=None)
        law = ss.laws.CoulombODE(mu=0.3, mu_s=0.4, K=1e5, beta=5.5e-2)
        m.add(sp.PrismaticJoint("ground", "slider", point=(0, 0, 0), axis=(1, 0, 0),
                                name="rail", friction=law))
        m.add(sp.PointForce("slider", force=(push, 0, 0)))
        return _mj(m, 1.0, dt=1e-2, dt_out=1e-2)

    weight = 3.0 * G
    held = slider(0.35 * weight)
    assert np.ptp(held["rail.position"]) < 1e-12
    moving = slider(1.05 * 0.4 * weight)
    np.testing.assert_allclose(np.diff(moving["rail.rate"]) / 1e-2,
                               (1.05 * 0.4 - 0.3) * weight / 3.0, rtol=1e-9)


@pytest.mark.slow
def test_four_bar_with_pin_friction_sticks_exactly_and_never_gains_energy():
    """spatial.examples.four_bar with Coulomb friction μ a N in the crank pin, released
    under gravity: the friction never exceeds its level, energy never rises, the crank
    sticks and then does not drift; its rest angle matches the ODE route's (whose proxy
    spring holds it F/K off: measured 9e-4 rad at K = 1e4 N·m/rad)."""
    from stickslip.spatial.examples import four_bar

    law = ss.laws.CoulombODE(mu=0.5, K=1e4, beta=2e-3)
    model = four_bar(1.0, friction=law, pin_radius=0.1)
    res = _mj(model, 3.0, dt=1e-3, dt_out=0.01)
    assert np.max(np.abs(res["A.friction"]) - 0.5 * res["A.normal"]) < 1e-12
    assert np.max(np.diff(res["energy"])) < 1e-12
    moving = np.flatnonzero(np.abs(res["A.rate"]) > 1e-12)
    stuck = moving[-1] + 1
    assert res.t[stuck] < 2.5
    assert np.ptp(res["A.angle"][stuck:]) < 1e-12
    ref = model.simulate(3.0, dt=1e-3, dt_out=0.01)
    assert abs(res["A.angle"][-1] - ref["A.angle"][-1]) < 2e-3


@pytest.mark.slow
def test_a_batch_of_grips_runs_in_one_compile_and_equals_the_single_runs():
    """``ss.simulate_batch`` (one vmapped program): a held and a sliding gripper (the grip is
    traced data) equal their separate runs; the held box stays put, the other slides at
    g − 2 μ G/m."""
    grips = [10.0, 4.5]
    systems = [gripper(g).link_system() for g in grips]
    batch = ss.simulate_batch(systems, 0.2, dt=1e-2, dt_out=0.05, method="moreau_jean")
    for k, system in enumerate(systems):
        alone = ss.simulate(system, 0.2, dt=1e-2, dt_out=0.05, method="moreau_jean")
        # to the solver's round-off: under vmap each member's λ-solve runs until the
        # slowest member's is done, and the extra rounds move the last digits (3.5e-13 m)
        np.testing.assert_allclose(batch.member(k)["box.z"], alone["box.z"], rtol=0,
                                   atol=1e-12)
    assert np.max(np.abs(batch.member(0)["box.z"])) < 1e-12
    np.testing.assert_allclose(batch.member(1)["box.z"][-1],
                               -0.5 * (G - 2 * MU * 4.5 / BOX_MASS) * 0.2 ** 2, rtol=1e-9)


@pytest.mark.slow
def test_spherical_pendulum_on_a_spring_keeps_its_energy_to_second_order():
    """A body on a ball joint held back by an undamped spring (test_link_systems' model):
    the spring's force at the θ-point pose keeps the θ = 1/2 step area-preserving, so the
    energy error stays bounded and falls as h² (measured 1.0e-3 J at h = 10 ms, 1.0e-5 J at
    1 ms over 5 s; at the start pose the run gained energy until the guard stopped it)."""
    m = sp.SpatialModel(gravity=(0, 0, -G))
    m.add_body("bob", mass=1.5, inertia=(0.02, 0.03, 0.04), shape=None, position=(0, 0, -0.6),
               velocity=(0.8, 0.3, 0.0))
    m.add(sp.SphericalJoint("ground", "bob", point=(0, 0, 0), name="ball"))
    m.add(sp.SpringDamper("ground", "bob", point_i=(0.5, 0, -0.6), point_j=(0, 0, -0.6),
                          stiffness=40.0, rest_length=0.3, name="spring"))
    coarse = np.ptp(_mj(m, 5.0, dt=1e-2, dt_out=0.05)["energy"])
    fine = _mj(m, 5.0, dt=1e-3, dt_out=0.05)
    assert np.ptp(fine["energy"]) < 2e-5
    assert 50.0 < coarse / np.ptp(fine["energy"]) < 200.0
    np.testing.assert_allclose(fine["spring.tension"], 40.0 * (fine["spring.length"] - 0.3),
                               atol=1e-12)


@pytest.mark.slow
def test_projection_on_the_steps_end_pose_factor_closes_the_joints_to_round_off():
    """The projection's position step reuses the step's rows and Schur factor at the
    predicted end pose (LinkSystem.project, `position_rows`: a simplified Newton step).
    A cart on four wheels (revolute axles) rolling and pitching on point contacts: the
    joints stay closed to round-off (measured 4.2e-15 m over 2 s; the projection on its own
    factor 1.6e-16 m; without a position step they would open by ~h³|ν̇| per step, 1e-9 m).
    (No comparison with the projection's own factor here: a patched method would reuse this
    run's compiled program, whose store key is the model's structure, not the code.)"""
    def cart():
        m = sp.SpatialModel(gravity=(0, 0, -G))
        m.add_body("chassis", mass=2.0, inertia=(0.01, 0.02, 0.025), shape=None,
                   position=(0, 0, 0.05))
        for k, (x, y) in enumerate([(0.15, 0.12), (0.15, -0.12), (-0.15, 0.12),
                                    (-0.15, -0.12)]):
            m.add_body(f"wheel{k}", mass=0.2, shape=sp.Sphere(0.05), position=(x, y, 0.05))
            m.add(sp.RevoluteJoint("chassis", f"wheel{k}", point=(x, y, 0.05),
                                   axis=(0, 1, 0), name=f"axle{k}"))
        m.add_ground(mu_s=0.5, mu_k=0.5)
        m.add(sp.PointForce("chassis", force=(1.0, 0, 0), point=(0, 0, 0.03)))
        return m

    res = _mj(cart(), 1.0, dt=1e-3, dt_out=1e-3)
    assert np.all(res["contact.status"] == 0)
    assert res["chassis.x"][-1] > 0.1                     # it rolls: the joints turn
    assert res["constraint.position"].max() < 1e-13
    assert res["constraint.velocity"].max() < 1e-12
