"""Kinematic analysis, Jacobians and DOF counts (SPEC §9; issue 3 "Must hold")."""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import stickslip as ss
from stickslip.planar import examples

A, B, C, D = 1.0, 2.5, 2.0, 2.5      # four-bar link lengths [m] of examples.four_bar
OMEGA = 2 * math.pi


@pytest.fixture(scope="module")
def four_bar_turn():
    model = examples.four_bar(a=A, b=B, c=C, d=D, omega=OMEGA)
    times = np.linspace(0.0, 1.0, 401)                 # one full crank turn
    return model, times, model.kinematics(times)


def test_four_bar_matches_freudenstein_over_full_turn(four_bar_turn):
    _, times, res = four_bar_turn
    theta2 = 0.3 + OMEGA * times
    # closed form (Freudenstein's equation), the branch of the example's assembly
    theta4 = examples.freudenstein(theta2, A, B, C, D, branch=-1)
    err = np.angle(np.exp(1j * (res["rocker.phi"] - theta4)))
    assert np.max(np.abs(err)) < 1e-9
    assert np.max(np.abs(np.angle(np.exp(1j * (res["crank.phi"] - theta2))))) < 1e-9
    assert res.meta["max_constraint_residual"] < 1e-10


def test_another_grid_of_the_same_bucket_reuses_the_compiled_analysis(four_bar_turn):
    # grids of 401 and 300 samples both pad to 512 rows: no second compile, same values
    from stickslip.planar._analyses import kinematic_scan

    model, times, res = four_bar_turn
    model.kinematics(times)                     # compiled (if not yet) for this structure
    traced = ss.integrate.traces(kinematic_scan)
    part = model.kinematics(times[:300])
    assert ss.integrate.traces(kinematic_scan) == traced
    assert len(part.t) == 300
    np.testing.assert_allclose(part["rocker.phi"], res["rocker.phi"][:300], rtol=0, atol=1e-12)


def test_four_bar_rates_equal_finite_differences_of_positions(four_bar_turn):
    model, _, _ = four_bar_turn
    h = 1e-5
    t = np.linspace(0.05, 0.95, 7)
    plus, mid, minus = (model.kinematics(t + s) for s in (h, 0.0, -h))
    for body in ("crank", "coupler", "rocker"):
        for c in ("x", "y", "phi"):
            fd_v = (plus[f"{body}.{c}"] - minus[f"{body}.{c}"]) / (2 * h)
            fd_a = (plus[f"{body}.{c}"] - 2 * mid[f"{body}.{c}"] + minus[f"{body}.{c}"]) / h ** 2
            scale_v = 1 + np.max(np.abs(mid[f"{body}.{c}d"]))
            scale_a = 1 + np.max(np.abs(mid[f"{body}.{c}dd"]))
            assert np.max(np.abs(fd_v - mid[f"{body}.{c}d"])) < 1e-7 * scale_v
            assert np.max(np.abs(fd_a - mid[f"{body}.{c}dd"])) < 1e-4 * scale_a


def _all_joint_types_model():
    """One model with every joint and driver type, at a generic (non-assembled) pose."""
    P = ss.planar
    m = P.Model()
    b1 = m.add_body("b1", mass=1.0, inertia=0.1, x=0.3, y=0.1, phi=0.2)
    b2 = m.add_body("b2", mass=2.0, inertia=0.2, x=0.9, y=-0.2, phi=-0.4)
    b3 = m.add_body("b3", mass=1.5, inertia=0.3, x=1.4, y=0.5, phi=1.1)
    m.add(P.RevoluteJoint(m.ground, b1, (0.0, 0.1), (-0.2, 0.05)))
    m.add(P.TranslationalJoint(b1, b2, (0.1, 0.0), (-0.1, 0.2), axis_i=(0.6, 0.8)))
    m.add(P.RevoluteRevoluteJoint(b2, b3, (0.2, 0.0), (0.0, -0.1), length=0.7))
    m.add(P.RevoluteTranslationalJoint(b1, b3, (0.0, 0.0), (0.1, 0.1), axis_i=(1, 0),
                                       distance=0.3))
    m.add(P.GearJoint(b2, b3, radius_i=0.2, radius_j=0.3))
    m.add(P.GearJoint(b1, b3, radius_i=0.1, radius_j=0.5, internal=True))
    m.add(P.AbsoluteX(b3, (0.1, 0.0), x=1.0))
    m.add(P.AbsoluteY(b3, (0.1, 0.0), y=0.2))
    m.add(P.AbsoluteAngle(b2, phi=0.1))
    m.add(P.AbsoluteDistance(b2, (0.0, 0.1), ground_point=(1.0, 1.0), distance=0.5))
    m.add(P.RotationalDriver(b1, b2, angle=lambda t: 0.3 * jnp.sin(2 * t)))
    m.add(P.TranslationalDriver(b1, b2, axis_i=(0, 1), distance=lambda t: 0.1 * t ** 2))
    m.add(P.AbsoluteDriver(b3, "y", lambda t: jnp.cos(t), point=(0.2, 0.0)))
    m.add(P.RelativeDriver(b1, b3, "x", lambda t: 0.5 + t, point_j=(0.1, 0.0)))
    m.add(P.DistanceDriver(b1, b2, (0.0, 0.0), (0.1, 0.0), distance=lambda t: 1 + 0.1 * t))
    return m


def test_phi_q_and_gamma_equal_finite_differences():
    m = _all_joint_types_model()
    system = m.system()

    # jitted (eager op-by-op evaluation is slow to dispatch): Φ for the differences, and
    # Φ_q, ν, γ in one program (one compile instead of three)
    phi = jax.jit(lambda q, t: system.phi(q, t))
    analytic = jax.jit(lambda q, qd, t: (system.phi_q(q, t), system.nu(q, t),
                                         system.phi_rate_and_gamma(q, qd, t)))
    rng = np.random.default_rng(3)
    q = jnp.asarray(m._q() + 0.05 * rng.standard_normal(9))
    qd = jnp.asarray(rng.standard_normal(9))
    t = 0.7
    J, nu, (_, gamma) = analytic(q, qd, jnp.asarray(t))
    J = np.asarray(J)
    h = 1e-6
    fd = np.stack([(np.asarray(phi(q.at[k].add(h), t)) - np.asarray(phi(q.at[k].add(-h), t)))
                   / (2 * h) for k in range(9)], axis=1)
    assert np.max(np.abs(J - fd)) < 1e-8
    # γ = −d²/ds² Φ(q + s q̇, t + s) (SPEC §9 acceleration equation), by central differences
    s = 1e-4
    f = lambda s_: np.asarray(phi(q + s_ * qd, t + s_))
    fd_gamma = -(f(s) - 2 * f(0.0) + f(-s)) / s ** 2
    assert np.max(np.abs(np.asarray(gamma) - fd_gamma)) < 1e-5 * (1 + np.max(np.abs(fd_gamma)))
    nu = np.asarray(nu)
    fd_nu = -(np.asarray(phi(q, t + 1e-6)) - np.asarray(phi(q, t - 1e-6))) / 2e-6
    assert np.max(np.abs(nu - fd_nu)) < 1e-7


def test_quick_return_dof_is_18_minus_17():
    m = examples.quick_return()
    assert len(m.bodies) * 3 == 18
    assert m.layout.n_kinematic == 17
    assert m.dof() == 1


def test_gear_slider_dof_is_18_minus_16():
    m = examples.gear_slider()
    assert len(m.bodies) * 3 == 18
    assert m.layout.n_kinematic == 16
    assert m.dof() == 2


def test_gear_train_turns_at_the_ratio_of_pitch_radii():
    m = examples.gear_slider(omega=1.0)
    res = m.kinematics(np.linspace(0.0, 1.0, 5))
    # external gears turn opposite ways at the ratio of the pitch radii (0.1 / 0.15)
    np.testing.assert_allclose(res["gear3.phid"], -res["gear2.phid"] * 0.1 / 0.15, atol=1e-10)
    np.testing.assert_allclose(res["gear4.phid"], res["gear2.phid"], atol=1e-10)


@pytest.mark.slow
def test_quick_return_ram_strokes_slower_forward_than_back():
    qr = examples.quick_return(omega=2 * math.pi)
    res = qr.kinematics(np.linspace(0.0, 1.0, 201))
    x = res["tool.x"]
    assert np.ptp(x) > 0.2            # the ram strokes back and forth
    # quick return: the cutting (leftward) stroke takes longer than the return stroke
    left = np.mean(np.diff(x) < 0)
    assert left > 0.55


@pytest.mark.parametrize("kind", [pytest.param("flat", marks=pytest.mark.slow), "roller"])
def test_cam_follower_lift_equals_closed_form(kind):
    R, e, r = 0.05, 0.015, 0.01
    m = examples.cam_follower(kind=kind, R=R, e=e, roller=r, omega=2 * math.pi)
    t = np.linspace(0.0, 1.0, 41)
    res = m.kinematics(t)
    phi = 2 * math.pi * t
    if kind == "flat":          # the top of the offset circle
        lift = e * np.sin(phi) + R
    else:                       # the pitch circle (R + r) met on the y axis
        lift = e * np.sin(phi) + np.sqrt((R + r) ** 2 - (e * np.cos(phi)) ** 2)
    assert np.max(np.abs(res["follower.y"] - lift)) < 1e-10
    # velocity and acceleration of the flat-faced follower: e ω cos φ, −e ω² sin φ
    if kind == "flat":
        w = 2 * math.pi
        assert np.max(np.abs(res["follower.yd"] - e * w * np.cos(phi))) < 1e-9
        assert np.max(np.abs(res["follower.ydd"] + e * w ** 2 * np.sin(phi))) < 1e-8


def test_sampled_cam_profile_is_interpolated_smoothly():
    alphas = np.linspace(0.0, 2 * np.pi, 32, endpoint=False)
    exact = lambda a: 0.05 + 0.01 * np.cos(a) + 0.004 * np.sin(3 * a)
    profile = ss.planar.trigonometric_profile(alphas, exact(alphas))
    a = np.linspace(0.0, 2 * np.pi, 101)
    np.testing.assert_allclose(np.asarray(profile(jnp.asarray(a))), exact(a), atol=1e-13)


_ASSEMBLY_MODEL = examples.four_bar()
_ASSEMBLY_START = {b.name: b.pose.copy() for b in _ASSEMBLY_MODEL.bodies}


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(-0.15, 0.15), min_size=9, max_size=9))
def test_assembly_closes_the_loop_from_rough_poses(perturbation):
    """Invariant: from any pose within ±0.15 m/rad of an assembled one, `assemble` closes
    every constraint to 1e-10 and keeps the crank's driven angle."""
    m = _ASSEMBLY_MODEL
    for k, body in enumerate(m.bodies):
        body.x, body.y, body.phi = _ASSEMBLY_START[body.name] + np.asarray(perturbation[3 * k:3 * k + 3])
    res = m.assemble()                  # returns the closed poses; the bodies keep theirs
    q = res.final_state[:9]
    assert np.max(np.abs(m._phi(q, 0.0))) < 1e-10
    assert abs(res["crank.phi"][0] - 0.3) < 1e-10
