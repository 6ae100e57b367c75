"""`simulate(..., method="moreau_jean")` on the 1-D hosts (issue 21, item 1): exact stick,
impacts with restitution, the θ-method's accuracy, and the route's checks."""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy.integrate import solve_ivp

import stickslip as ss
from stickslip.integrate._moreau_jean import integrate_moreau_jean

G, E, H0 = 9.81, 0.8, 1.0          # the bouncing ball (AP3's problem)
V0 = math.sqrt(2 * G * H0)         # its first impact speed [m/s]


def _law(F, **curve):
    return ss.laws.CoulombODE(F=F, K=1e4, beta=1e-3, **curve)   # K and beta unused here


# --- AP1: a block held by static friction after a slide ------------------------------------

def _ap1_load(t):
    """0 N before 0.5 s, 0.6 N until 1 s, then 0.45 + 0.04 sin(10πt) N (< F = 0.5 N)."""
    return jnp.where(t < 0.5, 0.0, jnp.where(t < 1.0, 0.6,
                                             0.45 + 0.04 * jnp.sin(10 * jnp.pi * t)))


# Closed form: 0.1 m/s² for 0.5 s (v(1) = 0.05 m/s, x(1) = 0.0125 m), then
# v(t) = 0.05(2 − t) + 0.04(1 − cos 10πt)/(10π) > 0 until v(2) = 0 exactly; the load stays
# below F afterwards, so x(t ≥ 2) = 0.0125 + 0.025 + 0.04/(10π).
AP1_REST = 0.0375 + 0.04 / (10 * np.pi)


def test_ap1_closed_form_agrees_with_a_fine_reference():
    # an independent check of the closed form before the route is held to it: the slide as a
    # smooth ODE (friction −F while v > 0) by scipy at tight tolerance, stopped where v = 0
    def rhs(t, y):       # the load of _ap1_load for t in [0.5, 3), in NumPy
        load = 0.6 if t < 1.0 else 0.45 + 0.04 * np.sin(10 * np.pi * t)
        return [y[1], load - 0.5]

    def stops(t, y):
        return y[1]
    stops.terminal, stops.direction = True, -1
    out = solve_ivp(rhs, (0.5, 3.0), [0.0, 0.0], events=stops, rtol=1e-12, atol=1e-14,
                    max_step=1e-3, method="DOP853")
    assert out.t_events[0][0] == pytest.approx(2.0, abs=1e-6)
    assert out.y_events[0][0][0] == pytest.approx(AP1_REST, abs=1e-11)


def test_ap1_rest_position_exact_and_no_drift_at_a_coarse_step():
    block = ss.systems.FrictionMass(M=1.0, law=_law(0.5), force=_ap1_load)
    res = ss.simulate(block, 10.0, method="moreau_jean", dt=1e-2)
    assert abs(res["p"][-1] - AP1_REST) <= 1e-12
    stuck = res.t >= 2.0 + 1e-2
    assert np.ptp(res["p"][stuck]) == 0.0                  # constant to the last bit
    assert np.all(res["slip"][stuck] == 0.0) and np.all(res["v"][stuck] == 0.0)
    assert np.all(np.abs(res["f"][stuck]) <= 0.5)          # static friction balances the load
    assert np.all(res["v"][(res.t > 0.5) & (res.t < 2.0 - 1e-9)] > 0.0)  # it did slide


# --- AP2: mass–spring on a belt, the Coulomb limit cycle ------------------------------------

def test_ap2_limit_cycle_amplitude_within_1e_9():
    # m = k = 1, belt 0.5 m/s, F = 1 N: after the first stick the mass traces the ellipse
    # about F/k of radius v_b/ω that touches the belt speed, x ∈ [0.5, 1.5] m
    belt = ss.systems.FrictionMass(M=1.0, law=_law(1.0), stiffness=1.0, surface_velocity=0.5)
    res = ss.simulate(belt, 20.0, method="moreau_jean", dt=1e-4, theta=0.5)
    cycle = res["p"][res.t >= 10.0]
    assert abs(cycle.max() - 1.5) <= 1e-9 and abs(cycle.min() - 0.5) <= 1e-9
    coarse = ss.simulate(belt, 20.0, method="moreau_jean", dt=1e-2)
    assert abs(coarse["p"][coarse.t >= 10.0].max() - 1.5) > 1e-9    # the check can fail


# --- the stick–slip oscillator, static above kinetic ---------------------------------------

def _runs(flags):
    """(start, end) index pairs of the True runs of `flags`."""
    edges = np.diff(np.concatenate([[0], flags.astype(int), [0]]))
    return list(zip(np.nonzero(edges == 1)[0], np.nonzero(edges == -1)[0]))


def test_stick_slip_oscillator_phases_match_the_closed_form():
    # m = k = 1, belt 0.2 m/s, F_s = 1 N, F = 0.6 N, started where a stick begins: sticks
    # until kx = F_s (stick 2(F_s − F)/(k v_b) = 4 s), then slides on the circle about F/k
    # back to the belt speed (slip (2π − 2α)/ω, α = atan2((F_s − F)/k, v_b/ω))
    Fs, F, vb = 1.0, 0.6, 0.2
    system = ss.systems.FrictionMass(M=1.0, law=_law(F, F_s=Fs), stiffness=1.0,
                                     surface_velocity=vb, p0=0.2, v0=vb)
    h = 1e-4
    res = ss.simulate(system, 30.0, method="moreau_jean", dt=h)
    stuck = res["slip"] == 0.0
    sticks, slips = _runs(stuck), _runs(~stuck)
    stick_times = [res.t[b] - res.t[a] for a, b in sticks[1:-1]]     # whole phases only
    slip_times = [res.t[b] - res.t[a] for a, b in slips[:-1]]
    assert len(stick_times) >= 2 and len(slip_times) >= 3
    t_stick = 2 * (Fs - F) / vb
    t_slip = 2 * np.pi - 2 * math.atan2(Fs - F, vb)
    np.testing.assert_allclose(stick_times, t_stick, rtol=1e-4)
    np.testing.assert_allclose(slip_times, t_slip, rtol=1e-4)
    assert np.abs(res["f"][stuck]).max() <= Fs * (1 + 1e-12)         # held within F_s
    np.testing.assert_allclose(np.abs(res["f"][~stuck][1:]), F, rtol=1e-12)   # slides at F


def test_static_level_selects_stick_where_kinetic_slide_also_solves():
    # a load between F and F_s from rest: stick and a kinetic slide both solve the step; the
    # route keeps the block stuck (the documented selection), with friction = the load
    block = ss.systems.FrictionMass(M=1.0, law=_law(0.4, F_s=0.6),
                                    force=lambda t: 0.55 + 0.0 * t)
    res = ss.simulate(block, 1.0, method="moreau_jean", dt=1e-2)
    assert np.all(res["p"] == 0.0) and np.all(res["f"] == pytest.approx(-0.55, rel=1e-12))


def test_friction_step_equals_the_discrete_backward_euler_step():
    # differential test: with no spring and θ = 1 the route's step is seed 001's
    # coulomb_mass_step (ss.discrete) with the step's mean load — Stribeck curve included
    rng = np.random.default_rng(3)
    h, n = 1e-2, 300
    loads = rng.uniform(-1.0, 1.0, n)
    curve = {"F_s": 0.6, "v_stribeck": 0.05, "viscous": 0.2}
    block = ss.systems.FrictionMass(
        M=2.0, law=_law(0.4, **curve),
        force=lambda t: jnp.asarray(loads)[jnp.clip(jnp.floor(t / h).astype(int), 0, n - 1)])
    res = ss.simulate(block, n * h, method="moreau_jean", dt=h, theta=1.0)

    def discrete(v, load):
        v, f = ss.discrete.coulomb_mass_step(v, load, M=2.0, F=0.4, T=h, **curve)
        return v, (v, f)

    _, (v, f) = jax.lax.scan(discrete, jnp.asarray(0.0), jnp.asarray(loads))
    np.testing.assert_allclose(res["v"][1:], v, rtol=0, atol=1e-14)
    np.testing.assert_allclose(res["f"][1:], -f, rtol=0, atol=1e-12)
    np.testing.assert_allclose(res["p"][1:], h * np.cumsum(v), rtol=0, atol=1e-12)
    assert np.count_nonzero(res["v"] == 0.0) > 10             # it did stick, exactly


# --- a ball on a rigid floor: Newton impacts and the Zeno accumulation ---------------------

def test_bouncing_ball_apexes_penetration_and_rest():
    ball = ss.systems.ContactMass(M=1.0, law=ss.laws.NewtonImpact(e=E), g=G, p0=H0)
    h = 1e-3
    res = ss.simulate(ball, 6.0, method="moreau_jean", dt=h)
    p, v = res["p"], res["v"]
    assert p.min() >= -h * V0                      # penetration within one step's travel
    # the flight between impacts is exact (θ = 1/2, constant g), so each apex is the
    # parabola's: p + v²/2g at the sample before v turns negative. Measured: the impact is
    # resolved to a step, |apex error| ≤ h·V0/4 (1.1e-3 m at h = 1e-3; 4.7e-3 m at 1e-2,
    # 3.3e-5 m at 1e-4)
    turn = np.nonzero((v[:-1] > 0) & (v[1:] <= 0))[0][:8]
    apex = p[turn] + v[turn] ** 2 / (2 * G)
    exact = H0 * E ** (2 * np.arange(1, len(turn) + 1))
    assert len(turn) == 8
    np.testing.assert_allclose(apex, exact, atol=h * V0 / 4 * 1.2)
    # Zeno: infinitely many bounces before t∞ = √(2h0/g)·(1 + e)/(1 − e) = 4.064 s; the
    # stepper ends them in exact rest on the floor within a few steps' worth of bounces
    t_zeno = math.sqrt(2 * H0 / G) * (1 + E) / (1 - E)
    moving = np.nonzero(v != 0.0)[0]
    t_rest = res.t[moving[-1] + 1]
    assert abs(t_rest - t_zeno) < 0.05
    rest = res.t >= t_rest
    assert np.ptp(p[rest]) == 0.0 and abs(p[-1]) <= 0.5 * G * h * h
    np.testing.assert_allclose(res["f"][res.t > t_rest], G, rtol=1e-12)   # it carries mg


def test_plastic_impact_sticks_to_the_floor():
    ball = ss.systems.ContactMass(M=2.0, law=ss.laws.NewtonImpact(e=0.0), g=G, p0=0.5)
    res = ss.simulate(ball, 1.0, method="moreau_jean", dt=1e-3)
    landed = res.t > math.sqrt(2 * 0.5 / G) + 2e-3
    assert np.all(res["v"][landed] == 0.0) and np.ptp(res["p"][landed]) == 0.0


def test_newton_impact_velocity_law():
    law = ss.laws.NewtonImpact(e=0.5)
    assert float(law.velocity_after(-2.1, -2.0)) == 1.0          # approaching: −e·v⁻
    assert float(law.velocity_after(0.3, -0.2)) == 0.3           # already leaving faster
    assert float(law.velocity_after(-0.1, 0.05)) == 0.0          # separating: only v⁺ ≥ 0
    assert repr(law) == "NewtonImpact(e=0.5)"
    assert ss.laws.NewtonImpact.example().e == 0.8


# --- the grid, continuation, batches, the compiled program ---------------------------------

def test_t_end_exact_with_a_shortened_last_step():
    # free fall under θ = 1/2 is exact for constant g, so the state at an end time that is
    # not a multiple of dt shows the short last step was taken with the right length
    ball = ss.systems.ContactMass(M=1.0, law=ss.laws.NewtonImpact(e=E), g=G, p0=H0)
    t_end = 0.3037
    res = ss.simulate(ball, t_end, method="moreau_jean", dt=1e-2, dt_out=0.1)
    assert res.t[-1] == t_end and list(res.t[:-1]) == pytest.approx([0.0, 0.1, 0.2, 0.3])
    assert res["p"][-1] == pytest.approx(H0 - G * t_end ** 2 / 2, abs=1e-14)
    assert res["v"][-1] == pytest.approx(-G * t_end, abs=1e-14)
    assert res.meta["steps"] == 31 and res.meta["theta"] == 0.5


@pytest.mark.parametrize("host", ["belt", "ball"])
def test_split_run_equals_one_run(host):
    if host == "belt":
        system = ss.systems.FrictionMass(M=1.0, law=_law(0.6, F_s=1.0), stiffness=1.0,
                                         surface_velocity=0.2, force=lambda t: 0.1 * jnp.sin(t))
    else:
        system = ss.systems.ContactMass(M=1.0, law=ss.laws.NewtonImpact(e=E), g=G, p0=H0)
    whole = ss.simulate(system, 6.0, method="moreau_jean", dt=1e-3, dt_out=1e-2)
    first = ss.simulate(system, 2.5, method="moreau_jean", dt=1e-3, dt_out=1e-2)
    second = ss.simulate(system, 6.0, method="moreau_jean", dt=1e-3, dt_out=1e-2,
                         initial=first)
    for name in ("p", "v", "f"):
        np.testing.assert_allclose(second[name][1:], whole[name][251:], rtol=1e-12,
                                   atol=1e-14)


def test_batch_equals_loop():
    belts = [ss.systems.FrictionMass(M=1.0, law=_law(F), stiffness=1.0, surface_velocity=0.5)
             for F in (0.5, 1.0, 1.5)]
    batch = ss.simulate_batch(belts, 5.0, method="moreau_jean", dt=1e-3, dt_out=0.05)
    for i, belt in enumerate(belts):
        single = ss.simulate(belt, 5.0, method="moreau_jean", dt=1e-3, dt_out=0.05)
        np.testing.assert_array_equal(batch.member(i)["p"], single["p"])


def test_new_step_end_and_theta_reuse_the_compiled_program():
    belt = ss.systems.FrictionMass(M=1.0, law=_law(1.0), stiffness=1.0, surface_velocity=0.5)
    ss.simulate(belt, 2.0, method="moreau_jean", dt=1e-2)
    traced = ss.integrate.traces(integrate_moreau_jean)
    ss.simulate(belt, 1.5, method="moreau_jean", dt=2e-2, theta=0.7)
    assert ss.integrate.traces(integrate_moreau_jean) == traced


# --- refusals ------------------------------------------------------------------------------

BLOCK = ss.systems.FrictionMass(M=1.0, law=_law(0.5), force=lambda t: 0.3 + 0.0 * t)
BALL = ss.systems.ContactMass(M=1.0, law=ss.laws.NewtonImpact(e=E), g=G, p0=H0)


@pytest.mark.parametrize("theta", [1.5, -0.1, float("nan"), "0.5"])
def test_theta_out_of_range_is_refused(theta):
    with pytest.raises(ss.ParameterError, match=r"`simulate\.theta`"):
        ss.simulate(BLOCK, 1.0, method="moreau_jean", dt=1e-2, theta=theta)


@pytest.mark.parametrize("e, message", [(1.2, "must be <= 1"), (-0.1, "must be >= 0"),
                                        (float("nan"), "must be finite")])
def test_restitution_out_of_range_is_refused(e, message):
    with pytest.raises(ss.ParameterError, match=rf"`NewtonImpact\.e` {message}"):
        ss.laws.NewtonImpact(e=e)


def test_step_longer_than_the_run_or_missing_is_refused():
    with pytest.raises(ss.ParameterError, match=r"`simulate\.dt` must be at most the span"):
        ss.simulate(BLOCK, 0.5, method="moreau_jean", dt=1.0)
    with pytest.raises(ss.ParameterError, match=r"needs the time step `dt`"):
        ss.simulate(BLOCK, 0.5, method="moreau_jean")


def test_bad_method_name_lists_the_valid_ones():
    with pytest.raises(ss.ParameterError, match=r"'moreau_jean'\].*Did you mean `moreau_jean`"):
        ss.simulate(BLOCK, 1.0, method="moreau-jean", dt=1e-2)


@pytest.mark.parametrize("system, method, why", [
    (BALL, "rk4", "NewtonImpact is a rigid impact law"),
    (BALL, "tsit5", "NewtonImpact is a rigid impact law"),
    (ss.systems.FrictionMass(M=1.0, law=ss.laws.LuGre()), "moreau_jean",
     "LuGre has no set-valued form"),
    (ss.systems.ContactMass(M=1.0, law=ss.laws.UnilateralODE.example()), "moreau_jean",
     "UnilateralODE is compliant"),
    (ss.systems.PointOnPlane(M=1.0), "moreau_jean", "contact law UnilateralODE is compliant"),
])
def test_host_refuses_a_route_it_does_not_support(system, method, why):
    with pytest.raises(ss.ParameterError) as info:
        ss.simulate(system, 1.0, method=method, dt=1e-2)
    text = str(info.value)
    assert text.startswith(f"{type(system).__name__} does not support method='{method}'")
    assert why in text and "It supports [" in text
    supported = "'moreau_jean'" if system is BALL else "'rk4'"
    assert supported in text.split("It supports")[1]


def test_newton_impact_under_an_ode_kernel_raises_a_clear_error():
    with pytest.raises(ss.ParameterError, match=r"only under the time-stepping route"):
        ss.laws.NewtonImpact(e=0.5).force_and_rate(jnp.zeros(0), 0.1, -1.0)


def test_theta_with_an_ode_method_warns():
    with pytest.warns(UserWarning, match=r"ignores `theta` for method='rk4'"):
        ss.simulate(BLOCK, 0.01, dt=1e-4, theta=0.5)


def test_stribeck_drop_too_steep_for_the_step_is_refused():
    # slope 0.2·0.858/1e-4 ≈ 1716 N·s/m: admissible for the proxy (Kβ = 1e4), not for M/dt
    law = ss.laws.CoulombODE(F=0.4, F_s=0.6, v_stribeck=1e-4, K=1e6, beta=1e-2)
    block = ss.systems.FrictionMass(M=1.0, law=law)
    with pytest.raises(ss.ParameterError, match=r"dt=0\.01 s is too large for the Stribeck"):
        ss.simulate(block, 1.0, method="moreau_jean", dt=1e-2)
    ss.simulate(block, 0.1, method="moreau_jean", dt=1e-4)              # M/dt = 1e4: fine
