"""FrictionMass on a spring, a damper and a moving belt (issue 14).

The Coulomb belt oscillator (mass M on a spring k to a fixed anchor, lying on a belt moving at
V0, Coulomb friction of level F — the classic mass-on-moving-belt model reviewed in K. Popp,
"Non-smooth mechanical systems", J. Appl. Math. Mech. 64(5), 765-772, 2000, here with one
level for static and kinetic friction). Closed form, derived here, for a block that starts
riding on the belt at x = 0:

* stick: it moves exactly with the belt, x = V0 t, while the spring force k x is below F,
  i.e. for t < t1 = F/(k V0);
* slip (relative velocity v − V0 < 0, friction +F): M ẍ = F − k x, so
  x = F/k + (V0/ω) sin(ω (t − t1)), v = V0 cos(ω (t − t1)), ω = √(k/M): a harmonic motion
  about F/k of amplitude V0/ω and period 2π/ω, touching the belt speed once per period
  (with one level for static and kinetic friction the block never sticks again).
"""

import jax.numpy as jnp
import numpy as np
import pytest

import stickslip as ss

M, k, F, V0 = 1.0, 10.0, 0.5, 0.1
OMEGA = np.sqrt(k / M)


@pytest.fixture(scope="module")
def belt_run():
    law = ss.laws.CoulombODE.tuned(mass=M, K=1e5, F=F)
    belt = ss.systems.FrictionMass(M=M, law=law, stiffness=k, surface_velocity=V0, v0=V0)
    return ss.simulate(belt, 6.0, dt=2e-5, dt_out=1e-3)


def test_stick_phase_moves_exactly_at_belt_speed(belt_run):
    res = belt_run
    t1 = F / (k * V0)                                              # 0.5 s
    stuck = res.t < t1 - 1e-3
    # the friction contact (the Coulomb proxy, eq. 8) rides the belt exactly
    assert np.abs(res["slip"][stuck]).max() < 1e-9
    # the body sits on the proxy spring: within (spring force)/K of the proxy
    np.testing.assert_allclose(res["p"][stuck], V0 * res.t[stuck], atol=F / 1e5)
    assert np.abs(res["u"] - V0).max() == 0.0
    # and it breaks loose exactly when the spring force reaches F
    slipping = np.flatnonzero(np.abs(res["slip"]) > 1e-9)
    assert res.t[slipping[0]] == pytest.approx(t1, abs=2e-3)


def test_slip_phase_matches_the_closed_form_oscillation(belt_run):
    res = belt_run
    t1 = F / (k * V0)
    late = res.t > t1 + 0.01
    t, p = res.t[late], res["p"][late]
    exact = F / k + (V0 / OMEGA) * np.sin(OMEGA * (t - t1))
    np.testing.assert_allclose(p, exact, atol=5e-5)              # 0.15 % of the amplitude
    assert p.max() - F / k == pytest.approx(V0 / OMEGA, rel=1e-3)
    assert F / k - p.min() == pytest.approx(V0 / OMEGA, rel=1e-3)
    # period from the upward crossings of the centre F/k
    up = np.flatnonzero((p[:-1] < F / k) & (p[1:] >= F / k))
    periods = np.diff(t[up])
    np.testing.assert_allclose(periods, 2 * np.pi / OMEGA, rtol=2e-3)
    # friction is the full level F, in the belt's direction, while slipping
    slipping = np.abs(res["slip"][late]) > 1e-6
    np.testing.assert_allclose(res["f"][late][slipping], F, rtol=1e-9)


def test_state_dependent_force_equals_the_built_in_spring_and_damper():
    law = ss.laws.CoulombODE.tuned(mass=M, K=1e4, F=F)
    built_in = ss.systems.FrictionMass(M=M, law=law, stiffness=k, anchor=0.2, damping=0.3,
                                       v0=1.0)
    by_hand = ss.systems.FrictionMass(M=M, law=law, v0=1.0,
                                      force=lambda t, p, v: -k * (p - 0.2) - 0.3 * v)
    a = ss.simulate(built_in, 2.0, dt=1e-4, dt_out=0.01)
    b = ss.simulate(by_hand, 2.0, dt=1e-4, dt_out=0.01)
    np.testing.assert_allclose(a["p"], b["p"], rtol=0, atol=1e-13)
    np.testing.assert_allclose(a["fs"], b["fe"], rtol=0, atol=1e-12)


def test_time_varying_belt_speed_and_old_force_of_t_still_work():
    law = ss.laws.CoulombODE.tuned(mass=M, K=1e4, F=F)
    block = ss.systems.FrictionMass(M=M, law=law, force=lambda t: 0.0 * t,
                                    surface_velocity=lambda t: 0.05 * jnp.sin(t))
    res = ss.simulate(block, 3.0, dt=1e-4, dt_out=0.01)
    # a free block on a slowly oscillating belt is carried along (needs 0.05 N < F)
    settled = res.t > 0.2                  # after the proxy's start-up transient (~β = 0.02 s)
    np.testing.assert_allclose(res["v"][settled], 0.05 * np.sin(res.t[settled]), atol=1e-5)
    assert np.abs(res["slip"]).max() < 1e-9
    assert set(ss.simulate(ss.systems.FrictionMass(M=M, law=law), 0.1, dt=1e-4,
                           dt_out=0.05).names) == {"p", "v", "proxy_offset", "f", "fe", "slip"}


def test_bad_belt_parameters_are_named():
    law = ss.laws.CoulombODE.example()
    for kwargs, match in ((dict(stiffness=-1.0), r"`FrictionMass.stiffness` must be >= 0"),
                          (dict(damping=np.nan), r"`FrictionMass.damping` must be finite"),
                          (dict(surface_velocity=lambda t: 1.0 if t > 0 else 0.0),
                           r"`FrictionMass.surface_velocity\(t\)` cannot run inside jit"),
                          (dict(force=lambda t, p, v: jnp.stack([p, v])),
                           r"`FrictionMass.force\(t, p, v\)` must return a scalar")):
        with pytest.raises(ss.ParameterError, match=match):
            ss.systems.FrictionMass(M=1.0, law=law, **kwargs)


def test_belt_oscillators_batch_over_the_spring_stiffness():
    law = ss.laws.CoulombODE.tuned(mass=M, K=1e5, F=F)
    stiffnesses = (5.0, 10.0, 20.0)
    belts = [ss.systems.FrictionMass(M=M, law=law, stiffness=s, surface_velocity=V0, v0=V0)
             for s in stiffnesses]
    res = ss.simulate_batch(belts, 4.0, dt=2e-5, dt_out=1e-3)
    for i, s in enumerate(stiffnesses):     # amplitude V0/ω about F/k for each member
        late = res.t > F / (s * V0) + 0.01
        p = res["p"][i][late]
        assert p.max() - F / s == pytest.approx(V0 / np.sqrt(s / M), rel=2e-3)
