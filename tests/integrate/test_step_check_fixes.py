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
