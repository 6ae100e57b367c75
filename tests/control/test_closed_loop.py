"""Closed-loop simulation with zero-order hold against the three plants."""

import jax.numpy as jnp
import numpy as np
import pytest

import stickslip as ss

GAINS = dict(F=20.0, H=0.2, K=1600.0, B=80.0, L=16000.0, T=1e-3)


def test_naive_smc_chatters_and_psmc_does_not_on_a_mass_with_coulomb_friction():
    block = ss.systems.FrictionMass(M=1.0, law=ss.laws.CoulombODE(F=2.0, K=1e4, beta=1e-3))
    plant = ss.control.ActuatedSystem(block)
    ref = lambda t: 0.1 * (t >= 0.01)  # noqa: E731
    smc = ss.control.simulate_closed_loop(plant, ss.control.NaiveSMCParams(F=20.0, H=0.2,
                                                                           T=1e-3), 1.5, ref)
    psmc = ss.control.simulate_closed_loop(plant, ss.control.PSMCParams(**GAINS), 1.5, ref)
    late = smc.t > 1.0
    flips = lambda u: int(np.sum(np.abs(np.diff(np.sign(u[late]))) > 1))  # noqa: E731
    assert flips(smc["u"]) > 100                        # ±F switching every few samples
    assert flips(psmc["u"]) == 0
    assert abs(psmc["p"][-1] - 0.1) < 1e-3
    assert smc.meta["substeps"] >= 1 and "f" in smc.names   # plant friction channel kept


def test_psmc_holds_a_single_link_arm_against_gravity():
    arm = ss.control.SingleLinkArm(I=0.05, m=1.0, lc=0.1)    # gravity torque ≤ 0.98 N·m
    ctrl = ss.control.PSMCParams(F=5.0, H=0.2, K=40.0, B=2.0, L=200.0, T=1e-3)
    res = ss.control.simulate_closed_loop(arm, ctrl, 4.0, reference=1.0)
    assert np.max(np.abs(res["u"])) <= 5.0
    assert abs(res["q"][-1] - 1.0) < 1e-3                   # the integral removes gravity's offset
    assert res.units["u"] == "N·m" and res.units["proxy"] == "rad"
    assert res["proxy"].shape == res.t.shape


def test_closed_loop_reports_divergence_with_the_sample():
    plant = ss.control.MassPlant(M=1e-3)
    wild = ss.control.PIDParams(K=1e6, L=0.0, B=0.0, T=1e-2)
    with pytest.raises(ss.SimulationError, match=r"diverged at sample k=\d+ \(t="):
        ss.control.simulate_closed_loop(plant, wild, 5.0, reference=1.0, substeps=1)


def test_closed_loop_rejects_bad_arguments():
    plant = ss.control.MassPlant(M=1.0)
    ctrl = ss.control.PSMC(**GAINS)
    with pytest.raises(ss.ParameterError, match="reference` is not finite at sample k=3"):
        ss.control.simulate_closed_loop(plant, ctrl, 0.01,
                                        reference=lambda t: jnp.where(t > 2.5e-3, jnp.nan, 0.))
    with pytest.raises(ss.ParameterError, match="fixed-step"):
        ss.control.simulate_closed_loop(plant, ctrl, 0.01, method="tsit5")
    with pytest.raises(ss.ParameterError, match="`controller`"):
        ss.control.simulate_closed_loop(plant, object(), 0.01)
    with pytest.raises(ss.ParameterError, match="input_row"):
        ss.control.ActuatedSystem(plant, input_row="w")
    with pytest.raises(ss.ParameterError, match="`MassPlant.M` must be > 0"):
        ss.control.MassPlant(M=0.0)


def test_second_closed_loop_run_with_new_gains_does_not_recompile():
    from stickslip.control._closed_loop import closed_loop_kernel

    plant = ss.control.MassPlant(M=1.0)
    ss.control.simulate_closed_loop(plant, ss.control.PSMCParams(**GAINS), 0.1, 0.01)
    before = ss.integrate.traces(closed_loop_kernel)
    res = ss.control.simulate_closed_loop(plant, ss.control.PSMCParams(**{**GAINS, "F": 5.0}),
                                          0.1, 0.01)
    assert ss.integrate.traces(closed_loop_kernel) == before
    assert np.max(np.abs(res["u"])) <= 5.0


class _PinnedMass(ss.control.MassPlant):
    """A mass whose velocity the core's projection capability zeroes after every step."""

    projects_after_step = True

    def project(self, t, x):
        return x.at[1].set(0.0)


def test_closed_loop_honours_the_plant_projection_capability():
    res = ss.control.simulate_closed_loop(_PinnedMass(M=1.0), ss.control.PSMCParams(**GAINS),
                                          0.05, reference=1.0)
    assert np.all(res["v"] == 0.0)
    # each sample starts from rest again: p advances at most ½ (F/M) T² per sample
    assert np.all(np.diff(res["p"]) <= 0.5 * 20.0 * 1e-3 ** 2 * (1 + 1e-9))


@pytest.mark.parametrize("push, moves", [(1.5, False), (2.5, True)])
def test_rendered_friction_holds_below_its_level_and_slides_above(push, moves):
    """DA relaxation in closed loop: a 1 kg mass pushed by a constant force feels a rendered
    2 N Coulomb friction (velocity from ∇p/T, one sample of delay)."""
    plant = ss.control.MassPlant(M=1.0, disturbance=lambda t: push * jnp.ones_like(t))
    ctrl = ss.control.RenderedFrictionParams(F=2.0, K=1e4, B=50.0, T=1e-3)
    res = ss.control.simulate_closed_loop(plant, ctrl, 1.0)
    assert np.max(np.abs(res["u"])) <= 2.0 * (1 + 1e-12)
    if moves:
        # a = (h − F)/M once sliding; the relaxation spring lets it start a little early
        assert res["v"][-1] == pytest.approx((push - 2.0) * 1.0, rel=0.05)
    else:
        assert abs(res["p"][-1]) < 2.0 / 1e4 * 1.05 and abs(res["v"][-1]) < 1e-4


def test_measurement_noise_is_seen_by_the_controller_and_psmc_stays_bounded():
    plant = ss.control.MassPlant(M=1.0)
    ctrl = ss.control.PSMCParams(**GAINS)
    res = ss.control.simulate_closed_loop(plant, ctrl, 1.0, 0.5, noise=1e-4, seed=3)
    again = ss.control.simulate_closed_loop(plant, ctrl, 1.0, 0.5, noise=1e-4, seed=3)
    np.testing.assert_array_equal(res["u"], again["u"])             # reproducible
    assert 0.5e-4 < np.std(res["measured"] - res["p"]) < 2e-4
    assert np.max(np.abs(res["u"])) <= GAINS["F"]
    with pytest.raises(ss.ParameterError, match="`noise`"):
        ss.control.simulate_closed_loop(plant, ctrl, 1.0, 0.5, noise=-1.0)


def test_batch_of_gains_equals_separate_runs():
    plant = ss.control.ActuatedSystem(
        ss.systems.FrictionMass(M=1.0, law=ss.laws.CoulombODE(F=2.0, K=1e4, beta=1e-3)))
    ctrls = [ss.control.PSMCParams(**{**GAINS, "F": F, "H": H}) for F, H in ((5.0, 0.3),
                                                                           (20.0, 0.2))]
    batch = ss.control.simulate_closed_loop(plant, ctrls, 0.5, 0.1)
    assert batch.batch_shape == (2,) and batch.meta["batch_size"] == 2
    for i, ctrl in enumerate(ctrls):
        single = ss.control.simulate_closed_loop(plant, ctrl, 0.5, 0.1)
        member = batch.member(i)
        for name in ("p", "u", "proxy", "f"):
            np.testing.assert_allclose(member[name], single[name], rtol=0, atol=1e-12)
    with pytest.raises(ss.ParameterError, match="controller 1 of the batch differs"):
        ss.control.simulate_closed_loop(plant, [ctrls[0], ss.control.PIDParams(
            K=1.0, L=0.0, B=0.0, T=1e-3)], 0.5)
    with pytest.raises(ss.SimulationError, match="batch member 1"):
        ss.control.simulate_closed_loop(
            ss.control.MassPlant(M=1e-3),
            [ss.control.PIDParams(K=1.0, L=0.0, B=0.0, T=1e-2),
             ss.control.PIDParams(K=1e6, L=0.0, B=0.0, T=1e-2)], 5.0, 1.0, substeps=1)


def test_closed_loop_stops_a_finite_blow_up_by_name():
    # K = 200 on M = 1e-3 at T = 1e-2: |1 - K T²/M·…| > 1, the loop grows by a finite factor
    # per sample: after 0.6 s the position is ~1e40 — finite, but the run has diverged (the
    # old NaN/inf check let it through).
    plant = ss.control.MassPlant(M=1e-3)
    ctrl = ss.control.PIDParams(K=200.0, L=0.0, B=0.0, T=1e-2)
    with pytest.raises(ss.SimulationError, match=r"diverged at sample k=\d+ \(t=.*finite "
                                                 r"blow-up.*Last sane state: p=") as info:
        ss.control.simulate_closed_loop(plant, ctrl, 0.6, reference=1.0, substeps=1)
    assert 0.0 < info.value.time <= 0.6 and abs(info.value.state["p"]) <= 1e12


@pytest.mark.parametrize("t_end", [0.105, 0.1, 0.0995])
def test_closed_loop_last_sample_is_exactly_t_end(t_end):
    # T = 0.01 does not divide 0.105 or 0.0995: the last interval is shorter (force held);
    # the final state equals an open-loop run of the same held forces to t_end.
    plant = ss.control.MassPlant(M=1.0)
    ctrl = ss.control.PIDParams(K=50.0, L=0.0, B=10.0, T=1e-2)
    res = ss.control.simulate_closed_loop(plant, ctrl, t_end, reference=1.0, substeps=4)
    assert res.t[-1] == t_end and res.t[0] == 0.0
    assert np.all(np.diff(res.t) > 0) and np.allclose(np.diff(res.t)[:-1], 1e-2)
    # the mass under the held u: exact double integration of piecewise-constant forces
    p, v = 0.0, 0.0
    for k in range(len(res.t) - 1):
        h = res.t[k + 1] - res.t[k]
        p, v = p + v * h + 0.5 * res["u"][k] * h ** 2, v + res["u"][k] * h
    assert res["p"][-1] == pytest.approx(p, abs=1e-12)
    assert res["v"][-1] == pytest.approx(v, abs=1e-12)
