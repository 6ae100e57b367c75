"""ContactMass (SPEC §3, eq. 16): no pulling, restitution falls with α (Fig. 5)."""

import numpy as np
import pytest

import stickslip as ss

M, K, BETA = 1.0, 1e4, 5e-3


def _bounce(alpha_ratio, g=9.81, t_end=1.0):
    law = ss.laws.UnilateralODE(K=K, beta=BETA, alpha=alpha_ratio * BETA)
    system = ss.systems.ContactMass(M=M, law=law, g=g, p0=0.1, v0=0.0)
    return ss.simulate(system, t_end, dt=5e-5, dt_out=5e-5)


def _first_rebound_speed(res):
    v = res["v"]
    touching = np.nonzero(res["f"] > 0)[0]
    after = touching[0] + np.argmax(res["f"][touching[0]:] == 0)   # first release
    return v[touching[0]], v[after]


def test_falling_mass_never_feels_a_pulling_force():
    for ratio in (1.0, 0.5, 0.1):
        assert _bounce(ratio)["f"].min() >= 0.0


def test_restitution_decreases_as_alpha_decreases():
    # SPEC §3 Fig. 5 with α = β, 0.7β, 0.5β, 0.1β
    ratios = [1.0, 0.7, 0.5, 0.1]
    restitution = []
    for ratio in ratios:
        v_in, v_out = _first_rebound_speed(_bounce(ratio, t_end=0.3))
        restitution.append(-v_out / v_in)
    assert all(a > b for a, b in zip(restitution, restitution[1:]))
    assert restitution[0] == pytest.approx(1.0, abs=2e-3)   # α = β: elastic


def test_resting_mass_settles_at_static_penetration():
    res = _bounce(0.1, t_end=3.0)
    assert res["p"][-1] == pytest.approx(-M * 9.81 / K, rel=1e-6)
    assert res["f"][-1] == pytest.approx(M * 9.81, rel=1e-6)


@pytest.mark.parametrize("law", [ss.laws.KelvinVoigt(k=1e4, c=50.0),
                                 ss.laws.HuntCrossley(k=1e6, lam=1e5)],
                         ids=["KelvinVoigt", "HuntCrossley"])
def test_penalty_baselines_run_in_the_same_host(law):
    res = ss.simulate(ss.systems.ContactMass(M=M, law=law, p0=0.1), 1.0, dt=1e-5, dt_out=1e-3)
    assert res["p"].min() < 0 and np.all(np.isfinite(res["f"]))


def test_bad_input():
    with pytest.raises(ss.ParameterError, match="must be a contact law"):
        ss.systems.ContactMass(M=1.0, law=ss.laws.CoulombODE(F=1.0, K=1.0, beta=1.0))
    with pytest.raises(ss.ParameterError, match=r"`ContactMass.M` must be > 0"):
        ss.systems.ContactMass(M=-1.0, law=ss.laws.UnilateralODE.example())
    with pytest.raises(ss.ParameterError, match=r"`ContactMass.p0` must be finite"):
        ss.systems.ContactMass(M=1.0, law=ss.laws.UnilateralODE.example(), p0=float("inf"))
