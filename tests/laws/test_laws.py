"""Physical invariants of the friction and contact laws (SPEC §2, §3, §8)."""

import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import stickslip as ss

pos = st.floats(1e-3, 1e6)
small = st.floats(1e-5, 1.0)
anything = st.floats(-1e3, 1e3)


@given(K=pos, beta=small, alpha_ratio=st.floats(1e-3, 1.0), e=anything, gap=anything,
       rate=anything)
def test_unilateral_force_never_pulls(K, beta, alpha_ratio, e, gap, rate):
    law = ss.laws.UnilateralODE(K=K, beta=beta, alpha=alpha_ratio * beta)
    f, _ = law.force_and_rate(jnp.asarray([e]), jnp.asarray(gap), jnp.asarray(rate))
    assert f >= 0.0


@given(F=st.floats(0, 1e3), K=pos, beta=small, a=anything, v=anything)
def test_coulomb_force_within_level(F, K, beta, a, v):
    law = ss.laws.CoulombODE(F=F, K=K, beta=beta)
    f, _ = law.force_and_rate(jnp.asarray([a]), jnp.asarray(v), 0.0)
    assert abs(float(f)) <= F * (1 + 1e-12)


@given(mu=st.floats(0, 2), N=st.floats(-10, 1e3), K=pos, beta=small,
       a=st.tuples(anything, anything), v=st.tuples(anything, anything))
def test_planar_coulomb_force_within_mu_times_normal(mu, N, K, beta, a, v):
    law = ss.laws.CoulombODE(mu=mu, K=K, beta=beta)
    f, rate = law.force_and_rate(jnp.asarray([a]), jnp.asarray(v), jnp.asarray(N))
    assert f.shape == (2,) and rate.shape == (1, 2)
    assert np.hypot(*f) <= mu * max(N, 0.0) * (1 + 1e-12) + 1e-300   # hypot: no underflow


@given(v=st.floats(0.02, 10), F=st.floats(0.01, 10), sign=st.sampled_from([-1.0, 1.0]))
def test_coulomb_slides_at_full_level_opposing_motion(v, F, sign):
    # Relaxed proxy, β|v| ≥ 2e-5 > F/K ≤ 1e-5: a + βv is outside [−F/K, F/K], so f = −F sgn v.
    law = ss.laws.CoulombODE(F=F, K=1e6, beta=1e-3)
    f, _ = law.force_and_rate(jnp.asarray([0.0]), jnp.asarray(sign * v), 0.0)
    assert float(f) == pytest.approx(-sign * F, rel=1e-12)


def test_unilateral_force_is_continuous_at_first_touch():
    law = ss.laws.UnilateralODE(K=1e5, beta=1e-3, alpha=5e-4)
    f_out, _ = law.force_and_rate(jnp.asarray([0.0]), jnp.asarray(1e-12), jnp.asarray(-5.0))
    f_in, _ = law.force_and_rate(jnp.asarray([0.0]), jnp.asarray(-1e-12), jnp.asarray(-5.0))
    assert float(f_out) == 0.0 and float(f_in) < 1e-6   # no jump with a fast approach


def test_alpha_equal_beta_is_a_pure_spring():
    # SPEC §3: α = β reduces eq. 14 to eq. 13 with β = 0, so f = K·max(0, −p).
    law = ss.laws.UnilateralODE(K=2e4, beta=1e-3, alpha=1e-3)
    for e in (0.0, 3e-4, -1e-4):
        f, _ = law.force_and_rate(jnp.asarray([e]), jnp.asarray(-2e-3), jnp.asarray(0.3))
        assert float(f) == pytest.approx(2e4 * 2e-3)


def test_penalty_baselines_can_pull():
    # The defects SPEC §3 lists: Kelvin–Voigt and Hunt–Crossley pull on fast separation.
    kv = ss.laws.KelvinVoigt(k=1e5, c=500.0)
    f, _ = kv.force_and_rate(jnp.zeros(0), jnp.asarray(-1e-5), jnp.asarray(5.0))
    assert float(f) < 0
    hc = ss.laws.HuntCrossley(k=1e7, lam=1e6, n=1.5)
    f, _ = hc.force_and_rate(jnp.zeros(0), jnp.asarray(-1e-4), jnp.asarray(20.0))
    assert float(f) < 0


def test_lugre_holds_with_static_level_and_stribeck():
    # SPEC §8 [fix]: the static level is mu_s·N (not mu_k·N).
    law = ss.laws.LuGre(mu_s=0.5, mu_k=0.3)
    assert float(law.level(10.0)) == pytest.approx(5.0)
    # steady sliding far above vs: force → −(mu_k N + k2 v)
    v, N = 1.0, 10.0
    z_ss = 0.3 * N / law.k0
    f, rate = law.force_and_rate(jnp.asarray([z_ss]), jnp.asarray(v), jnp.asarray(N))
    assert float(rate[0]) == pytest.approx(0.0, abs=1e-9)
    assert float(f) == pytest.approx(-(0.3 * N + 0.4 * v), rel=1e-9)


@pytest.mark.parametrize("kwargs, match", [
    (dict(mu_k=0.3, mu_s=0.2), r"`LuGre.mu_k` must be <= `LuGre.mu_s`; got mu_k=0.3, mu_s=0.2"),
    (dict(k0=0.0), r"`LuGre.k0` must be > 0"),
    (dict(vs=float("inf")), r"`LuGre.vs` must be finite"),
])
def test_lugre_rejects_bad_parameters(kwargs, match):
    with pytest.raises(ss.ParameterError, match=match):
        ss.laws.LuGre(**kwargs)


def test_coulomb_needs_exactly_one_level():
    with pytest.raises(ss.ParameterError, match="exactly one of `F`"):
        ss.laws.CoulombODE(F=1.0, mu=0.3, K=1e4, beta=1e-3)
    with pytest.raises(ss.ParameterError, match="exactly one of `F`"):
        ss.laws.CoulombODE(K=1e4, beta=1e-3)
    with pytest.raises(ss.ParameterError, match=r"`CoulombODE.beta` is required"):
        ss.laws.CoulombODE(F=1.0, K=1e4)


def test_unilateral_rejects_alpha_above_beta():
    with pytest.raises(ss.ParameterError, match=r"`UnilateralODE.alpha` must be <="):
        ss.laws.UnilateralODE(K=1e4, beta=1e-3, alpha=2e-3)


def test_coulomb_stick_modes_are_the_proxy_spring_damper():
    law = ss.laws.CoulombODE(F=1.0, K=1e4, beta=1e-3)
    (label, stick), (_, slip) = law.linear_modes(mass=1.0)
    for s in stick:   # roots of M s² + Kβ s + K
        assert abs(s ** 2 + 1e4 * 1e-3 * s + 1e4) < 1e-6 * 1e4
    assert slip == pytest.approx(-1e3)
