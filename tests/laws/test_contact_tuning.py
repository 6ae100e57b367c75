"""The UnilateralODE tuning guide against closed forms and against simulation."""

import math

import numpy as np
import pytest

import stickslip as ss
from stickslip.laws import contact_tuning as ct


def test_alpha_equal_beta_is_elastic_closed_form():
    # α = β: pure spring K (SPEC §3), so e = 1, δ = v0/ω, contact time π/ω.
    M, K, v0 = 2.0, 8e4, 1.5
    r = ct.impact_response(M, K, beta=3e-3, alpha=3e-3, v0=v0)
    omega = math.sqrt(K / M)
    assert r.restitution == pytest.approx(1.0, abs=1e-9)
    assert r.peak_penetration == pytest.approx(v0 / omega, rel=1e-6)
    assert r.contact_duration == pytest.approx(math.pi / omega, rel=1e-9)


@pytest.mark.parametrize("beta", [1e-3, 5e-3, 1e-2])
def test_alpha_to_zero_matches_released_kelvin_voigt_closed_form(beta):
    M, K = 1.0, 1e4
    r = ct.impact_response(M, K, beta=beta, alpha=beta * 1e-6, v0=1.0)
    assert r.restitution == pytest.approx(ct.restitution_alpha_to_zero(M, K, beta), abs=2e-5)


@pytest.mark.parametrize("omega_beta", [0.05, 0.3, 1.0])
def test_restitution_decreases_as_alpha_decreases(omega_beta):
    # SPEC §3 Fig. 5 claim, over the whole range of α/β.
    ratios = [1.0, 0.7, 0.5, 0.3, 0.1, 0.01]
    values = [ct.impact_response(1.0, 1.0, omega_beta, r * omega_beta).restitution
              for r in ratios]
    assert all(a > b for a, b in zip(values, values[1:]))


def test_restitution_is_independent_of_speed_and_scales():
    a = ct.impact_response(1.0, 1e4, 5e-3, 2e-3, v0=0.1)
    b = ct.impact_response(1.0, 1e4, 5e-3, 2e-3, v0=3.0)
    assert a.restitution == pytest.approx(b.restitution, rel=1e-9)
    assert b.peak_penetration == pytest.approx(30 * a.peak_penetration, rel=1e-9)


def test_alpha_for_restitution_round_trip():
    alpha = ct.alpha_for_restitution(M=0.5, K=2e4, beta=4e-3, restitution=0.7)
    assert 0 < alpha < 4e-3
    assert ct.impact_response(0.5, 2e4, 4e-3, alpha).restitution == pytest.approx(0.7, abs=1e-9)


def test_alpha_for_restitution_out_of_reach_says_raise_beta():
    with pytest.raises(ss.ParameterError, match="Raise beta"):
        ct.alpha_for_restitution(M=1.0, K=1e4, beta=1e-4, restitution=0.2)


def test_impact_response_matches_simulation():
    # The exact piecewise-linear solution vs RK4 on ContactMass (no gravity) — same law.
    M, K, beta, alpha, v0 = 1.0, 1e4, 5e-3, 1.5e-3, 0.8
    law = ss.laws.UnilateralODE(K=K, beta=beta, alpha=alpha)
    system = ss.systems.ContactMass(M=M, law=law, g=0.0, p0=1e-3, v0=-v0)
    res = ss.simulate(system, 0.06, dt=1e-6, dt_out=1e-5)
    expected = ct.impact_response(M, K, beta, alpha, v0)
    assert res["v"][-1] / v0 == pytest.approx(expected.restitution, abs=1e-6)
    assert -res["p"].min() == pytest.approx(expected.peak_penetration, rel=1e-4)
    assert res["f"].max() == pytest.approx(expected.peak_force, rel=1e-4)


def test_table_has_the_documented_shape():
    table = ct.restitution_table(omega_beta=(0.1, 1.0), alpha_ratio=(1.0, 0.1))
    assert table.shape == (2, 4)
    np.testing.assert_allclose(table[("restitution", 1.0)], 1.0, atol=1e-9)
