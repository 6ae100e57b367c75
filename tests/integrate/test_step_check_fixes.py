"""Step check: the suggested step never rounds up past the stability limit; the default
`linear_modes` names a system whose Jacobian is not finite (instead of LinAlgError)."""

import re

import jax.numpy as jnp
import numpy as np
import pytest

import stickslip as ss
from stickslip.integrate import AbstractSystem

RK4_REAL_LIMIT = 2.785293563405282


class Decay(AbstractSystem):
    """x' = −rate·x (the default linear_modes: the Jacobian −rate)."""

    rate: float
    state_names = ("x",)

    def initial_state(self):
        return jnp.array([1.0])

    def vector_field(self, t, x):
        return -self.rate * x


@pytest.mark.parametrize("limit", [1.68e-4, 1.6e-4, 5.6e-3, 9.9e-2, 1.0e-4])
def test_suggested_step_is_below_the_stability_limit(limit):
    # 0.9 × 1.68e-4 = 1.512e-4 printed with .1g is 0.0002 — beyond the limit; round down.
    system = Decay(rate=RK4_REAL_LIMIT / limit)
    assert ss.largest_stable_step(system, "rk4") == pytest.approx(limit, rel=1e-6)
    with pytest.raises(ss.ParameterError, match="too large") as info:
        ss.simulate(system, 1.0, dt=2 * limit)
    suggested = float(re.search(r"Use dt=([0-9.e+-]+) or smaller", str(info.value)).group(1))
    assert 0.09 * limit < suggested <= 0.9 * limit
    res = ss.simulate(system, 100 * limit, dt=suggested)     # accepted, and it decays
    assert abs(res["x"][-1]) < 1.0


@pytest.mark.parametrize("rate", [np.nan, np.inf])
def test_default_linear_modes_names_a_non_finite_jacobian(rate):
    system = Decay(rate=rate)
    with pytest.raises(ss.ParameterError, match=r"`Decay.vector_field Jacobian"):
        system.linear_modes()
    with pytest.raises(ss.ParameterError, match="Decay"):
        ss.simulate(system, 1.0, dt=1e-3)


def test_batch_step_check_takes_each_member_and_names_the_unstable_one():
    # member 1 is 100× stiffer: the batch check must look at it, not at member 0 alone
    batch = ss.stack_systems([Decay(rate=jnp.asarray(r))
                              for r in (1.0, 100.0 * RK4_REAL_LIMIT, 2.0)])
    with pytest.raises(ss.ParameterError, match=r"batch member 1: dt=0\.05 s is too large"):
        ss.simulate_batch(batch, 1.0, dt=0.05)
    res = ss.simulate_batch(batch, 1.0, dt=0.005)
    assert res["x"].shape[0] == 3


def test_batch_step_check_runs_on_planar_mechanisms():
    # the planar modes read the Baumgarte gains as numbers: a stacked batch used to fail
    # the check with a TypeError ("only scalar arrays …"); now each member is checked
    system = ss.planar.examples.slider_crank().system()
    res = ss.simulate_batch(ss.stack_systems([system, system]), 0.02, dt=1e-4)
    single = ss.simulate(system, 0.02, dt=1e-4)
    name = single.names[0]
    np.testing.assert_allclose(res[name][1], single[name], rtol=0, atol=1e-12)


def test_monotone_step_limit_is_where_a_stage_first_passes_the_equilibrium():
    from stickslip.integrate import FIXED_STEP_METHODS as tableaus
    from stickslip.integrate import monotone_step_limit
    rate = 1e4
    # Euler: x+ = (1 - h rate) x passes 0 at h = 1/rate
    assert monotone_step_limit(tableaus["euler"], -rate + 0j) == pytest.approx(1 / rate)
    # RK4: the last stage, 1 + z(1 + z/2 + z^2/4), is the first to reach 0 (z = -1.2956)
    h = monotone_step_limit(tableaus["rk4"], -rate + 0j)
    z = -rate * h
    assert 1 + z * (1 + z / 2 + z * z / 4) == pytest.approx(0.0, abs=1e-9)
    assert h < ss.largest_stable_step(Decay(rate=rate), "rk4")
    # an oscillating mode overshoots by itself: no limit of this kind
    assert monotone_step_limit(tableaus["rk4"], -rate + 2 * rate * 1j) == float("inf")


def _held_block(law, share=0.9):
    # a 20 g block pushed at `share` of the static level F_s = 0.4 N
    return ss.systems.FrictionMass(M=0.02, law=law, force=lambda t: share * 0.4)


def test_a_two_level_law_is_held_to_a_step_that_does_not_overshoot_its_stick_mode():
    # stick mode M s^2 + K beta s + K (zeta = 17.7: overdamped, fast eigenvalue -2.5e4 1/s);
    # at dt = 1e-4 s, inside RK4's stability limit (1.12e-4 s), the stages carried the proxy
    # past the load and past F_s: the block, pushed at 0.9 F_s, broke loose and slid at the
    # kinetic level for good (a fuzz campaign's revolute joint, the same law)
    law = ss.laws.CoulombODE(F=0.2, F_s=0.4, K=1e4, beta=5e-2)
    slid = ss.simulate(_held_block(law), 0.3, dt=1e-4, method="rk4", check_step=False)
    assert abs(slid["v"][-1]) > 0.1                        # what the check now prevents
    with pytest.raises(ss.ParameterError, match=r"stick .* carries it past its equilibrium "
                                                r"for dt > 5\.1\de-05 s \(a two-level"):
        ss.simulate(_held_block(law), 0.3, dt=1e-4, method="rk4")
    # held: it gives only the proxy's elastic offset, 0.9 F_s / K, and settles onto it
    # the largest step the check accepts
    assert ss.largest_stable_step(_held_block(law), "rk4") == pytest.approx(5.19e-5, rel=1e-3)
    held = ss.simulate(_held_block(law), 0.3, dt=5e-5, method="rk4")
    assert np.abs(held["p"]).max() <= 0.36 / 1e4 * (1 + 1e-6)
    assert abs(held["v"][-1]) < 1e-5
    # one level: an overshoot stays below F and is harmless; the stability limit stands
    one = ss.laws.CoulombODE(F=0.4, K=1e4, beta=5e-2)
    run = ss.simulate(_held_block(one), 0.3, dt=1e-4, method="rk4")
    assert np.abs(run["p"]).max() <= 0.36 / 1e4 * (1 + 1e-3) and abs(run["v"][-1]) < 1e-5
