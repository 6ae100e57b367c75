"""CoulombODE with a friction curve (issue 22): static above kinetic, Stribeck, viscous — the
exact stick of eq. 9 kept up to the static level (theorem and proof in laws/_stribeck.py).

Reference values:
* the slip solve: g(s) = F(s) + Kβ·s = K|a + βv| (the module's theorem), checked by its
  residual;
* the mass–spring on a belt with μ_s > μ_k (the classic stick–slip oscillator), closed form
  derived in ``stickslip.figures._stick_slip_oscillator.stick_slip_cycle`` (ideal Coulomb
  with a static/kinetic jump).
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import stickslip as ss
from stickslip.figures._stick_slip_oscillator import stick_slip_cycle
from stickslip.laws._stribeck import curve, proxy_slip_speed, steepest_drop


# --- the slip solve (theorem) ------------------------------------------------------------

_solve = jax.jit(proxy_slip_speed)          # one compile for every example below
_curve = jax.jit(curve)

@settings(max_examples=300, deadline=None)
@given(kinetic=st.floats(0.0, 10.0), drop=st.floats(0.0, 10.0),
       v_s=st.floats(1e-5, 1.0), exponent=st.floats(1.0, 4.0),
       viscous=st.floats(0.0, 100.0), margin=st.floats(1.01, 1e3),
       excess=st.floats(1e-9, 1e3))
def test_slip_solve_meets_its_equation_on_every_admissible_curve(kinetic, drop, v_s, exponent,
                                                                  viscous, margin, excess):
    """For every admissible curve (Kβ + σ > steepest drop) and drive c > F_s, the solve
    returns the s with F(s) + Kβ·s = c to round-off, inside the bracket of the proof."""
    static = kinetic + drop
    damping = max(drop * steepest_drop(exponent) / v_s * margin - viscous, 1e-3)
    drive = static * (1 + excess) + excess
    args = [jnp.asarray(float(x)) for x in (kinetic, static, damping, v_s, exponent, viscous)]
    s = float(_solve(jnp.asarray(drive), *args))
    level = float(_curve(jnp.asarray(s), args[0], args[1], args[3], args[4], args[5]))
    assert abs(level + damping * s - drive) <= 1e-11 * drive
    assert (drive - static) / (damping + viscous) - 1e-12 * drive <= s
    assert s <= (drive - kinetic) / (damping + viscous) * (1 + 1e-12)


def test_one_level_is_eq_9():
    """F_s = F, no drop, no viscous: the curve path gives eq. 9's sat to round-off."""
    plain = ss.laws.CoulombODE(F=0.5, K=1e4, beta=1e-3)
    curved = ss.laws.CoulombODE(F=0.5, F_s=0.5, K=1e4, beta=1e-3)
    for a, v in [(0.0, 1.0), (2e-5, -3e-3), (-4e-5, 0.01), (1e-5, 0.0)]:
        state = jnp.asarray([a])
        f0, r0 = plain.force_and_rate(state, jnp.asarray(v), 1.0)
        f1, r1 = curved.force_and_rate(state, jnp.asarray(v), 1.0)
        assert abs(float(f0 - f1)) < 1e-15 and abs(float(r0[0] - r1[0])) < 1e-9


_LAW = ss.laws.CoulombODE(mu=0.4, mu_s=0.6, v_stribeck=0.05, viscous=0.2, K=1e4, beta=2e-2)
_force_and_rate = jax.jit(lambda state, v, normal: _LAW.force_and_rate(state, v, normal))


@settings(max_examples=200, deadline=None)
@given(a=st.floats(-1e-3, 1e-3), v=st.floats(-2.0, 2.0), normal=st.floats(0.0, 50.0))
def test_force_is_inside_the_static_level_and_equals_the_curve_while_sliding(a, v, normal):
    """Stuck (proxy slip u = 0 to round-off) iff K|a + βv| ≤ F_s, and then |f| ≤ F_s;
    sliding, |f| = F(|u|) to 1e-12 relative (above F_s only by the viscous term) and f
    opposes u."""
    law = _LAW
    f, rate = _force_and_rate(jnp.asarray([a]), jnp.asarray(v), jnp.asarray(normal))
    f, u = float(f), v - float(rate[0])
    static = 0.6 * normal
    if 1e4 * abs(a + 2e-2 * v) <= static:
        assert abs(u) <= 1e-15 and abs(f) <= static * (1 + 1e-12) + 1e-15
    else:
        assert abs(abs(f) - float(law.curve(abs(u), normal))) <= 1e-12 * abs(f) + 1e-15
        assert f * u < 0.0 or abs(f) < 1e-15


def test_planar_sliding_clips_to_the_curve_on_a_disc():
    """A 2-vector velocity: the force is antiparallel to the proxy slip, of size F(|u|)."""
    law = ss.laws.CoulombODE(F=0.4, F_s=0.5, v_stribeck=1e-2, K=1e4, beta=1e-2)
    v = jnp.asarray([0.3, -0.4])
    f, rate = law.force_and_rate(law.initial_state((2,)), v, 1.0)
    u = np.asarray(v - rate[0])
    assert np.linalg.norm(np.asarray(f)) == pytest.approx(float(law.curve(np.linalg.norm(u))),
                                                          rel=1e-12)
    assert np.dot(np.asarray(f), u) == pytest.approx(-np.linalg.norm(f) * np.linalg.norm(u),
                                                     rel=1e-12)


def test_gradient_through_the_slip_solve_matches_finite_differences():
    law = ss.laws.CoulombODE(F=0.4, F_s=0.5, v_stribeck=1e-2, viscous=0.3, K=1e4, beta=1e-2)

    def force(v):
        return law.force_and_rate(law.initial_state(), v, 1.0)[0]

    v, h = 0.012, 1e-7
    fd = (float(force(v + h)) - float(force(v - h))) / (2 * h)
    assert float(jax.grad(force)(v)) == pytest.approx(fd, rel=1e-5)


# --- a block under a sub-static load between the kinetic and the static level --------------

def _block(load, **curve_options):
    law = ss.laws.CoulombODE.tuned(mass=1.0, K=1e4, F=0.4, **curve_options)   # default ζ
    return ss.systems.FrictionMass(M=1.0, law=law, force=lambda t: load + 0.0 * t)


@pytest.mark.parametrize("curve_options", [dict(F_s=0.5), dict(F_s=0.5, v_stribeck=0.05,
                                                                viscous=0.1)])
def test_a_load_between_kinetic_and_static_never_moves_the_block(curve_options):
    """0.45 N, a step at t = 0: above the kinetic level 0.4 N, below the static 0.5 N — held
    forever at the default tuning (ζ = 5 with a static level): drift < 1e-12 m over 100 s
    after the proxy spring takes the load (4.5e-5 m, settled by 5 s)."""
    res = ss.simulate(_block(0.45, **curve_options), 100.0, dt=1e-3, dt_out=1.0)
    p = np.asarray(res["p"])
    assert abs(p[5] - 0.45 / 1e4) < 1e-9                      # the proxy spring's deflection
    assert np.max(np.abs(p[5:] - p[5])) < 1e-12
    assert np.all(np.abs(np.asarray(res["slip"])[5:]) < 1e-15)


@pytest.mark.parametrize("excess, curve_options", [
    (1e-3, dict(F_s=0.5)), (1e-2, dict(F_s=0.5, v_stribeck=0.05, viscous=0.1))])
def test_just_above_the_static_level_it_breaks_away_and_slides_on_the_curve(excess,
                                                                             curve_options):
    """F_s·(1 + ε) breaks the block away; sliding, f = −F(slip) to 1e-9 relative. (With a
    Gaussian drop and a viscous term the curve first rises, σ·s, before it falls: the
    break-away is slow for a tiny ε, so the second case pushes 1 % above F_s.)"""
    block = _block(0.5 * (1 + excess), **curve_options)
    res = ss.simulate(block, 2.0, dt=1e-3, dt_out=1e-2)
    p, slip, f = (np.asarray(res[k]) for k in ("p", "slip", "f"))
    assert p[-1] > 0.01                                     # broke away
    sliding = slip > 0
    law = block.law
    assert np.count_nonzero(sliding) > 100
    expected = -np.asarray(jax.vmap(law.curve)(jnp.asarray(slip[sliding])))
    np.testing.assert_allclose(f[sliding], expected, rtol=1e-9)


# --- the stick–slip oscillator --------------------------------------------------------------

def _runs(mask):
    """(start, end) index pairs of the runs of True in `mask`."""
    edges = np.diff(np.concatenate([[0], mask.astype(int), [0]]))
    return list(zip(np.nonzero(edges == 1)[0], np.nonzero(edges == -1)[0]))


def test_stick_slip_oscillator_matches_the_closed_form_cycle():
    """m = 1 kg, k = 1 N/m, belt 0.2 m/s, F_s = 1 N, F_k = 0.6 N, started stuck at x = 0:
    ten cycles; stick and slip durations and the amplitude within 1e-4 relative."""
    m, k, belt, static, kinetic = 1.0, 1.0, 0.2, 1.0, 0.6
    t_stick, t_slip, x_min, x_max = stick_slip_cycle(m, k, belt, static, kinetic)
    law = ss.laws.CoulombODE.tuned(mass=m, K=1e6, F=kinetic, F_s=static, damping_ratio=5.0)
    osc = ss.systems.FrictionMass(M=m, law=law, stiffness=k, surface_velocity=belt, v0=belt)
    dt = 1e-4
    res = ss.simulate(osc, 10.2 * (t_stick + t_slip), dt=dt, dt_out=dt)
    stuck = np.abs(np.asarray(res["slip"])) < 1e-12        # slipping: |u| > 4e-5 m/s
    runs = _runs(stuck)
    sticks = [(b - a) * dt for a, b in runs[1:-1]]          # whole stick phases
    slips = [(a2 - b1) * dt for (_, b1), (a2, _) in zip(runs[:-1], runs[1:])]
    assert len(sticks) >= 9 and len(slips) >= 10
    np.testing.assert_allclose(sticks, t_stick, rtol=1e-4)
    np.testing.assert_allclose(slips, t_slip, rtol=1e-4)
    x = np.asarray(res["p"])
    first = runs[1][0]                                       # from the first re-stick on
    assert x[first:].max() == pytest.approx(x_max, rel=1e-4)
    assert x[first:].min() == pytest.approx(x_min, rel=1e-4, abs=1e-4 * x_max)
