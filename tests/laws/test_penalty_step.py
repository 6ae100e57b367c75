"""Penalty laws report their stiff modes, so a fixed step too large for them is rejected by
name instead of returning a ball that gains energy (issue 11 item 3: with HuntCrossley(k=1e10)
a dropped ball bounced to 15.6 m)."""

import numpy as np
import pytest

import stickslip as ss

LAWS = [ss.laws.HuntCrossley(k=1e10, lam=1e6, n=1.5), ss.laws.KelvinVoigt(k=1e7, c=10.0)]


@pytest.mark.parametrize("law", LAWS, ids=lambda law: type(law).__name__)
def test_too_large_step_is_rejected_naming_the_stable_step(law):
    ball = ss.systems.ContactMass(M=1.0, law=law, p0=1.0)
    limit = ss.largest_stable_step(ball)
    assert 1e-5 < limit < 1e-3
    with pytest.raises(ss.ParameterError, match=rf"{type(law).__name__} pressing.*stable only "
                                                 rf"for dt <= {limit:.3g} s"):
        ss.simulate(ball, 2.0, dt=1e-3)


@pytest.mark.parametrize("law", LAWS, ids=lambda law: type(law).__name__)
def test_a_stable_step_bounces_lower_than_the_drop(law):
    ball = ss.systems.ContactMass(M=1.0, law=law, p0=1.0)
    # 0.2 × the stable step: at 0.5 × KelvinVoigt's force jump at touch-down (c·v) makes RK4
    # gain ~3 % energy in one impact, which the core's energy guard stops by name
    dt = 1e-3 / np.ceil(1e-3 / (0.2 * ss.largest_stable_step(ball)))
    res = ss.simulate(ball, 2.0, dt=dt, dt_out=1e-3)
    after_first_bounce = res.t > 0.6
    assert 0.5 < res["p"][after_first_bounce].max() < 1.0          # dissipative, no gain


def test_hunt_crossley_modes_stiffen_with_the_load():
    law = ss.laws.HuntCrossley(k=1e10, lam=0.0, n=1.5)
    light, heavy = (np.abs(law.linear_modes(1.0, load)[0][1]).max() for load in (1.0, 1e4))
    # stiffness n k δ0^(n-1) with δ0 = (W/k)^(1/n): ω ∝ W^((n-1)/(2n)) = W^(1/6)
    assert heavy / light == pytest.approx(1e4 ** (1 / 6), rel=1e-9)
