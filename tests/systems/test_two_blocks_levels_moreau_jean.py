"""TwoBlocksConveyor under ``method="moreau_jean"`` with friction levels (issue 21): a static
level above the kinetic one, a Stribeck drop and a viscous term (SPEC §6). Block 1 hangs on
its spring (stiffness Ks) between the wall and block 2; with fixed levels F_j, F_s,j the
vertical problem is the textbook one: held while Ks·|p1y| ≤ F_s,1 + F_s,2, else it slides on
the kinetic levels, p1y(t) = p_e + (p0 − p_e)·cos(ωt), p_e = (F_1 + F_2)/Ks, ω = √(Ks/M1),
and stops at t = π/ω at 2p_e − p0."""

import math

import jax.numpy as jnp
import numpy as np
import pytest

import stickslip as ss
from stickslip.errors import ParameterError

KS, M1 = 100.0, 1.0
OMEGA = math.sqrt(KS / M1)
RIGID = tuple(ss.laws.NewtonImpact(e=0.0) for _ in range(3))


def _law(F=None, **levels):
    return ss.laws.CoulombODE(F=F, K=1e6, beta=1e-2, **levels)   # K and beta unused here


def _blocks(p1y, frictions, contacts=RIGID):
    return ss.systems.TwoBlocksConveyor(contacts=contacts, frictions=frictions, Ks=KS, M1=M1,
                                        x0=(0.0, p1y, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0))


STATIC = (_law(1.0, F_s=2.0), _law(1.0, F_s=2.0), _law(5.0))     # held up to 4 N


def _check_set_valued_law(res, frictions, u=0.1):
    """Every sample (the step that ended there): a stuck row's friction within its static
    level, a slipping row's the curve's at its end-of-step speed, against the slip — to a
    relative 1e-12 (each step's case enumeration must satisfy the law)."""
    slips = (res["v1y"], res["v1y"] - res["v2y"], res["v2x"] + u)
    forces = (res["fr_wall"], res["fr_blocks"], res["fr_belt"])
    normals = (res["f_wall"], res["f_blocks"], res["f_belt"])
    # the laws evaluated on every sample at once (not per sample: each eager call dispatches
    # its operations one by one), the same elementwise formulas
    for j, (law, w, f, n) in enumerate(zip(frictions, slips, forces, normals)):
        w, f, n = np.asarray(w[1:]), np.asarray(f[1:]), np.asarray(n[1:])
        level = np.broadcast_to(np.asarray(law.level(jnp.asarray(n)), dtype=float), n.shape)
        slip = np.broadcast_to(np.asarray(law.curve(jnp.asarray(np.abs(w)), jnp.asarray(n)),
                                          dtype=float), n.shape)
        scale = 1e-12 * np.maximum(1.0, level)
        stuck = w == 0.0
        over = stuck & ~(np.abs(f) <= level + scale)
        off = ~stuck & ~(np.abs(f + np.sign(w) * slip) <= scale)
        assert not np.any(over), f"row {j}: stuck above its level at samples {np.nonzero(over)[0] + 1}"
        assert not np.any(off), f"row {j}: off its curve at samples {np.nonzero(off)[0] + 1}"


# --- the static level ------------------------------------------------------------------------

def test_held_below_the_static_level_without_drift():
    # 3.9 N of spring: above the kinetic 2 N, below the static 4 N — held, drift exactly 0
    res = ss.simulate(_blocks(0.039, STATIC), 0.5, method="moreau_jean", dt=1e-3)
    assert np.ptp(res["p1y"]) == 0.0 and np.all(res["v1y"] == 0.0)
    np.testing.assert_allclose(res["fr_wall"][1:] + res["fr_blocks"][1:], KS * 0.039,
                               rtol=1e-12)
    _check_set_valued_law(res, STATIC)
    # the check can fail: at the kinetic level alone the same spring slides
    kinetic = (_law(1.0), _law(1.0), _law(5.0))
    assert np.ptp(ss.simulate(_blocks(0.039, kinetic), 0.5, method="moreau_jean",
                              dt=1e-3)["p1y"]) > 1e-3


def test_breakaway_at_the_static_level():
    # 0.3 s: over 256 samples, the output tier (and program) of the other 0.5–0.6 s runs
    below = ss.simulate(_blocks(0.04 * (1 - 1e-6), STATIC), 0.3, method="moreau_jean",
                        dt=1e-3)
    above = ss.simulate(_blocks(0.04 * (1 + 1e-6), STATIC), 0.3, method="moreau_jean",
                        dt=1e-3)
    assert np.ptp(below["p1y"]) == 0.0
    assert above["v1y"][1] < 0.0                              # slides from the first step
    np.testing.assert_allclose(above["fr_wall"][1:5], 1.0, rtol=1e-12)   # kinetic at once


@pytest.mark.parametrize("dt", [1e-3, 2.5e-4])
def test_kinetic_sliding_follows_the_closed_form_and_sticks_exactly(dt):
    p0, pe = 0.041, 2.0 / KS
    res = ss.simulate(_blocks(p0, STATIC), 0.6, method="moreau_jean", dt=dt, dt_out=dt)
    t_stop = math.pi / OMEGA
    sliding = (res.t > 0) & (res.t < t_stop - 2 * dt)
    closed = pe + (p0 - pe) * np.cos(OMEGA * res.t[sliding])
    err = np.max(np.abs(res["p1y"][sliding] - closed))
    assert err <= 0.5 * dt * (p0 - pe) * OMEGA            # first order in dt (the stop)
    np.testing.assert_allclose(res["fr_wall"][sliding], 1.0, rtol=1e-12)
    np.testing.assert_allclose(res["fr_blocks"][sliding], 1.0, rtol=1e-12)
    stuck = res.t > t_stop + 2 * dt
    assert np.ptp(res["p1y"][stuck]) == 0.0 and np.all(res["v1y"][stuck] == 0.0)
    assert abs(res["p1y"][-1] - (2 * pe - p0)) <= 2 * dt * (p0 - pe) * OMEGA
    _check_set_valued_law(res, STATIC)


# --- viscous and Stribeck curves ------------------------------------------------------------

@pytest.mark.parametrize("curve", [
    # the one curve with every term runs by default; each term alone under -m slow
    pytest.param({"viscous": 5.0}, marks=pytest.mark.slow),
    pytest.param({"v_stribeck": 0.05}, marks=pytest.mark.slow),
    {"v_stribeck": 0.05, "viscous": 2.0, "stribeck_exponent": 1.0},
], ids=["viscous", "stribeck", "stribeck-viscous-exp1"])
def test_sliding_on_a_curve_satisfies_the_law_at_every_step(curve):
    # both vertical rows slide together (two slip rows of one problem: the Newton solve)
    frictions = (_law(1.0, F_s=1.5, **curve), _law(0.8, F_s=1.2, **curve), _law(5.0))
    res = ss.simulate(_blocks(0.05, frictions), 0.6, method="moreau_jean", dt=1e-3,
                      dt_out=1e-3)
    assert np.any(res["v1y"] < -0.05)                         # it slid
    assert np.all(res["v2y"] == 0.0)                          # block 2 stays on the belt
    _check_set_valued_law(res, frictions)
    assert res["v1y"][-1] == 0.0                              # and stuck again, exactly


def test_load_dependent_levels_satisfy_the_law_at_every_step():
    frictions = (_law(mu=0.2, mu_s=0.35), _law(mu=0.2, mu_s=0.35, viscous=1.0),
                 _law(mu=0.5))
    blocks = ss.systems.TwoBlocksConveyor(contacts=RIGID, frictions=frictions,
                                          x0=(0.0, 0.08, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0))
    # the belt presses with about μ3·M2·g = 9.8 N: held up to (0.35 + 0.35)·9.8 = 6.9 N of
    # the spring's 8 N; it slides, then sticks again
    res = ss.simulate(blocks, 1.0, method="moreau_jean", dt=1e-3, dt_out=1e-3)
    assert np.any(res["v1y"] < 0.0) and res["v1y"][-1] == 0.0 and res["f_wall"][-1] > 1.0
    _check_set_valued_law(res, frictions)


def test_a_stribeck_drop_steeper_than_the_step_allows_is_refused():
    # drop (2 − 1)·m₂/1e-3 = 858 N·s/m against M/dt between the blocks (reduced mass 2/3 kg)
    steep = (_law(1.0), _law(1.0, F_s=2.0, v_stribeck=1e-3), _law(5.0))
    with pytest.raises(ParameterError, match=r"frictions\[1\].*dt=0.001"):
        ss.simulate(_blocks(0.03, steep), 0.1, method="moreau_jean", dt=1e-3)
    res = ss.simulate(_blocks(0.03, steep), 0.1, method="moreau_jean", dt=5e-4)
    assert np.ptp(res["p1y"]) == 0.0                 # 3 N, held by the static 1 + 2 N


# --- the ODE route converges to it ---------------------------------------------------------

@pytest.mark.slow
def test_ode_route_converges_to_the_exact_rest_as_the_proxy_stiffens():
    # slides from 4.1 N and sticks at 2p_e − p0; the proxy's creep and overshoot shrink as K
    # grows (contacts compliant for the ODE route, stiff enough not to matter)
    p0, pe = 0.041, 2.0 / KS
    exact = ss.simulate(_blocks(p0, STATIC), 0.6, method="moreau_jean", dt=1e-4)
    assert abs(exact["p1y"][-1] - (2 * pe - p0)) <= 1e-5
    contacts = tuple(ss.laws.UnilateralODE(K=1e7, beta=1e-3, alpha=1e-4) for _ in range(3))
    errors = []
    for K in (1e3, 1e4, 1e5):
        frictions = tuple(ss.laws.CoulombODE(F=F, F_s=Fs, K=K, beta=0.3 * math.sqrt(1 / K))
                          for F, Fs in ((1.0, 2.0), (1.0, 2.0), (5.0, None)))
        ode = ss.simulate(_blocks(p0, frictions, contacts), 0.6, dt=2e-5, dt_out=1e-2)
        errors.append(abs(ode["p1y"][-1] - exact["p1y"][-1]))
    assert errors[0] > errors[1] > errors[2]
    assert errors[2] <= 1e-4
