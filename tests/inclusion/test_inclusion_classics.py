"""Three classical systems written as inclusions: belt stick-slip, incline, bouncing ball."""

import numpy as np
import pytest

import stickslip as ss

inclusion = pytest.importorskip("stickslip.inclusion")
examples = inclusion.examples
G = 9.81


def test_belt_reaches_the_analytic_stick_slip_limit_cycle():
    # m x'' = -k x - F sgn(x' - u): the cycle is harmonic about F/k with amplitude u/ω and
    # touches the belt speed once per period 2π/ω (equal static and kinetic friction).
    m, k, F, u = 1.0, 100.0, 5.0, 0.1
    omega = np.sqrt(k / m)
    system = examples.belt_stick_slip(m=m, k=k, F=F, belt_speed=u,
                                      friction=dict(K=1e6, beta=2e-3))
    res = ss.simulate(system, 4.0, dt=1e-4)
    late = res.t > 2.0
    x, t = res["x"][late], res.t[late]
    tol = 2 * F / 1e6                         # the proxy's elastic lag, F/K, twice
    assert x.max() == pytest.approx(F / k + u / omega, abs=tol)
    assert x.min() == pytest.approx(F / k - u / omega, abs=tol)
    y = x - F / k
    up = np.where((y[:-1] < 0) & (y[1:] >= 0))[0]
    crossings = t[up] - y[up] * (t[up + 1] - t[up]) / (y[up + 1] - y[up])
    np.testing.assert_allclose(np.diff(crossings), 2 * np.pi / omega, rtol=1e-4)
    assert res["v"][late].max() == pytest.approx(u, abs=1e-3)     # touches the belt speed
    assert np.all(np.abs(res["f_a"]) <= F * (1 + 1e-12))          # |friction| <= F


@pytest.fixture(scope="module")
def incline_system():
    return examples.incline(slope=0.3, mu=0.5)


def test_incline_sticks_forever_below_the_friction_angle(incline_system):
    slope, mu = 0.3, 0.5
    assert np.tan(slope) < mu
    res = ss.simulate(incline_system, 2.0, dt=1e-4, dt_out=1e-3)
    s = res["s"]
    # the proxy takes the downhill load m g sin(slope) on its spring K ...
    assert abs(s[-1]) < 1.5 * G * np.sin(slope) / 1e4
    # ... and then nothing moves: no drift, no creep
    assert np.ptp(s[res.t > 0.5]) < 1e-12
    assert np.all(np.abs(res["f_a"]) <= mu * res["f_e"] * (1 + 1e-12) + 1e-12)


def test_incline_slides_with_coulomb_acceleration_above_the_friction_angle(incline_system):
    slope, mu = 0.6, 0.5
    assert np.tan(slope) > mu
    depth = G * np.cos(slope) / 1e5           # resting on the slope: static penetration
    system = incline_system.with_parameters(slope=slope).with_initial(n=-depth, e=depth)
    res = ss.simulate(system, 1.0, dt=1e-4, dt_out=1e-3)
    sliding = res.t > 0.3
    accel = np.polyfit(res.t[sliding], res["vs"][sliding], 1)[0]
    assert accel == pytest.approx(G * (np.sin(slope) - mu * np.cos(slope)), rel=1e-6)
    np.testing.assert_allclose(res["f_e"][sliding], G * np.cos(slope), rtol=1e-6)


@pytest.fixture(scope="module")
def ball_run():
    return ss.simulate(examples.bouncing_ball(height=1.0, speed=1.0, wall=0.5), 2.0,
                       dt=1e-4, dt_out=1e-3)


def test_bouncing_ball_vertical_motion_equals_contact_mass(ball_run):
    # the floor contact is decoupled from the wall: it must equal the core's eq. 16 system
    law = ss.laws.UnilateralODE(K=1e5, beta=2e-3, alpha=2e-3)
    hand = ss.systems.ContactMass(M=1.0, law=law, p0=1.0)
    rc = ball_run
    rh = ss.simulate(hand, 2.0, dt=1e-4, dt_out=1e-3)
    for ours, theirs in (("h", "p"), ("vh", "v"), ("e_floor", "e"), ("f_e_floor", "f")):
        np.testing.assert_allclose(rc[ours], rh[theirs], rtol=0, atol=1e-10, err_msg=ours)


def test_bouncing_ball_bounces_off_floor_and_wall_without_pulling(ball_run):
    res = ball_run
    assert res["f_e_wall"].min() >= 0 and res["f_e_floor"].min() >= 0   # never pull
    assert res["vx"][-1] == pytest.approx(-1.0, rel=1e-3)         # elastic wall (α = β)
    assert res["x"].max() < 0.5 + 1e-2                            # penetration ~ v√(m/K)
    h = res["h"]
    apex = [h[i] for i in range(1, len(h) - 1) if h[i - 1] < h[i] >= h[i + 1]]
    assert apex and apex[0] == pytest.approx(1.0, rel=1e-3)       # restitution ≈ 1
    damped = examples.bouncing_ball(contact=dict(alpha=0.2e-3))
    res_damped = ss.simulate(damped, 1.0, dt=2e-5, dt_out=1e-3)
    h = res_damped["h"]
    apex_damped = [h[i] for i in range(1, len(h) - 1) if h[i - 1] < h[i] >= h[i + 1]]
    assert apex_damped[0] < 0.9                                   # smaller α: lower restitution
