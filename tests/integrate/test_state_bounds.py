"""The divergence guard's state bounds (`AbstractSystem.state_bounds`, `check_divergence(...,
bounds=)`): LuGre's bristle deflection never leaves |z| <= max(mu_s, mu_k) N / k0 (Canudas de
Wit et al. 1995). A fixed step too large for the bristle's relaxation while sliding
(eigenvalue -|v| k0 / F(v)) is invisible to the step check at the start (the block is at
rest there) and gave a bounded wrong answer: at dt = 1e-4 s the block slid at 0.50 m/s after
2 s where it slides at 4.13 m/s (found by a fuzz campaign)."""

import numpy as np
import pytest

import stickslip as ss
from stickslip.errors import SimulationError
from stickslip.integrate import check_divergence


def _block(N=10.0):
    # the tutorial's LuGre (SPEC §8), 5 N on 1 kg against mu_s N = 3 N: it breaks loose and
    # slides, reaching 4.13 m/s at 2 s
    law = ss.laws.LuGre(mu_s=0.3, mu_k=0.2, vs=1e-3, k0=1e5, k1=np.sqrt(1e5), k2=0.4)
    return ss.systems.FrictionMass(M=1.0, law=law, N=N, force=lambda t: 5.0 + 0 * t)


@pytest.mark.parametrize("dt", [1e-4, 3e-5, 1.4e-5])
def test_lugre_stepped_past_its_sliding_relaxation_stops_naming_the_bristle(dt):
    # rk4's limit at the final speed: 2.79 mu_k N / (k0 |v|) = 1.35e-5 s
    with pytest.raises(SimulationError, match=r"`z` reached .*past its bound 3e-05 \(LuGre"
                                              r".*2\.79\*mu_k\*N/\(k0\*\|v\|\)") as err:
        ss.simulate(_block(), 2.0, dt=dt)
    assert 0 < err.value.time <= 2.0 and "Reduce dt below the limit" in str(err.value)


def test_lugre_within_its_sliding_step_runs_and_keeps_the_bound():
    res = ss.simulate(_block(), 2.0, dt=1e-5, dt_out=0.01)
    assert np.max(np.abs(res["z"])) <= 3e-5 * (1 + 1e-6)
    # kvaerno5 at rtol 1e-10 gives 4.129836 m/s (the slow test below)
    assert res["v"][-1] == pytest.approx(4.129836, rel=1e-6)


@pytest.mark.slow        # the adaptive program compiles for ~4 s (the suite's budget)
def test_lugre_within_its_sliding_step_agrees_with_an_adaptive_run():
    res = ss.simulate(_block(), 2.0, dt=1e-5, dt_out=0.01)
    ref = ss.simulate(_block(), 2.0, method="kvaerno5", dt_out=0.01, rtol=1e-10, atol=1e-12)
    assert np.max(np.abs(ref["z"])) <= 3e-5 * (1 + 1e-6)
    assert res["v"][-1] == pytest.approx(ref["v"][-1], rel=1e-6)


def test_a_batch_names_the_member_past_its_bound():
    # the bound and the relaxation limit scale with each member's N: member 0 (N = 10) runs
    # within them at dt = 1e-5 s (above); member 1 (N = 1: F_c = 0.2 N) needs ~1e-6 s
    block = _block(10.0)
    members = [block, block.replace(N=1.0)]
    with pytest.raises(SimulationError, match=r"batch member 1.*`z`.*past its bound 3e-06"):
        ss.simulate_batch(members, 2.0, dt=1e-5)


def test_check_divergence_stops_at_the_first_sample_past_a_bound():
    ts = np.linspace(0.0, 0.3, 4)
    xs = np.array([[0.0, 1e-6], [0.1, 2e-6], [0.2, 4e-6], [0.3, 1e-6]])
    bounds = {"z": (3e-6, "why it holds")}
    with pytest.raises(SimulationError, match=r"`z` reached 4e-06, past its bound 3e-06 "
                                              r"\(why it holds\) between t=0.1 s and t=0.2 s"):
        check_divergence("Thing", ("p", "z"), ts, xs, bounds=bounds)
    check_divergence("Thing", ("p", "z"), ts[:2], xs[:2], bounds=bounds)    # within: quiet
    # round-off above the bound is not a divergence
    check_divergence("Thing", ("p", "z"), ts[:1], [[0.0, 3e-6 * (1 + 1e-9)]], bounds=bounds)
