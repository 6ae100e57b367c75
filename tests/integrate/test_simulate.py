"""`simulate` and `simulate_batch`: accuracy, order, batching, continuation, bad input."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from models import BlowUp, LinearOscillator, sliding_block

import stickslip as ss


def test_frictionless_mass_under_constant_force_matches_closed_form():
    # F = 0: no friction, so p = p0 + v0 t + f t²/(2M) exactly (RK4 is exact on quadratics).
    M, f, p0, v0 = 2.0, 3.0, 0.1, -0.4
    system = ss.systems.FrictionMass(M=M, law=ss.laws.CoulombODE(F=0.0, K=1e4, beta=1e-3),
                                     force=lambda t: f + 0.0 * t, p0=p0, v0=v0)
    for method in ("rk4", "rk_gill", "tsit5"):
        res = ss.simulate(system, 3.0, dt=1e-3, dt_out=0.1, method=method)
        exact = p0 + v0 * res.t + f * res.t ** 2 / (2 * M)
        np.testing.assert_allclose(res["p"], exact, atol=1e-9, rtol=0)
        np.testing.assert_allclose(res["f"], 0.0, atol=0)


@pytest.mark.parametrize("method, order", [("euler", 1), ("rk4", 4), ("rk_gill", 4)])
def test_fixed_step_methods_show_their_order(method, order):
    osc = LinearOscillator(omega=2.0)
    errors, steps = [], [0.02, 0.01, 0.005]
    for dt in steps:
        res = ss.simulate(osc, 2.0, dt=dt, dt_out=0.1, method=method)
        errors.append(abs(res["x"][-1] - float(osc.exact(res.t[-1]))))
    slope = np.polyfit(np.log(steps), np.log(errors), 1)[0]
    assert slope == pytest.approx(order, abs=0.25)


@pytest.mark.parametrize("method", ["tsit5", "dopri5", "kvaerno5"])
def test_adaptive_methods_meet_their_tolerance(method):
    osc = LinearOscillator(omega=2.0)
    errs = []
    for rtol in (1e-5, 1e-9):
        res = ss.simulate(osc, 2.0, method=method, dt_out=0.5, rtol=rtol, atol=rtol * 1e-2)
        errs.append(np.abs(res["x"] - np.cos(2.0 * res.t)).max())
    assert errs[1] < errs[0] and errs[1] < 1e-6


def test_batch_equals_loop_with_one_compile():
    blocks = [sliding_block(M=m) for m in (0.5, 1.0, 2.0)]
    batch = ss.simulate_batch(blocks, 3.0, dt=1e-4, dt_out=1e-2)
    assert batch.batch_shape == (3,)
    for i, block in enumerate(blocks):
        single = ss.simulate(block, 3.0, dt=1e-4, dt_out=1e-2)
        np.testing.assert_allclose(batch["p"][i], single["p"], rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(batch.member(i)["f"], single["f"], rtol=1e-12, atol=1e-15)


def test_batch_adaptive_equals_loop():
    oscs = [LinearOscillator(omega=w) for w in (1.0, 3.0)]
    batch = ss.simulate_batch(oscs, 1.0, method="tsit5", dt_out=0.25)
    for i, osc in enumerate(oscs):
        np.testing.assert_allclose(batch["x"][i], np.cos(osc.omega * batch.t), atol=1e-7)


def test_batch_rejects_members_of_different_structure():
    a = sliding_block()
    b = sliding_block(law=ss.laws.LuGre(mu_s=0.5, mu_k=0.5))
    with pytest.raises(ss.ParameterError, match="member 1 of the batch differs"):
        ss.simulate_batch([a, b], 1.0, dt=1e-4)


def test_continuing_a_run_equals_one_run():
    block = sliding_block()
    whole = ss.simulate(block, 4.0, dt=1e-4, dt_out=1e-2)
    first = ss.simulate(block, 2.0, dt=1e-4, dt_out=1e-2)
    second = ss.simulate(block, 4.0, dt=1e-4, dt_out=1e-2, initial=first)
    assert second.t[0] == pytest.approx(2.0) and second.t[-1] == pytest.approx(4.0)
    np.testing.assert_allclose(second["p"], whole["p"][200:], rtol=1e-12, atol=1e-14)


def test_parameter_change_between_segments_is_validated_and_continues():
    block = sliding_block()
    first = ss.simulate(block, 2.0, dt=1e-4, dt_out=1e-2)
    stronger = block.replace(law=block.law.replace(F=1.0))
    second = ss.simulate(stronger, 4.0, dt=1e-4, dt_out=1e-2, initial=first)
    assert second["p"][0] == first["p"][-1]
    assert np.abs(second["f"]).max() <= 1.0 and np.ptp(second["p"]) < 1.0 / 1e4
    with pytest.raises(ss.ParameterError, match=r"`CoulombODE.F` must be >= 0"):
        block.law.replace(F=-1.0)
    with pytest.raises(ss.ParameterError, match=r"`FrictionMass.M` must be > 0"):
        block.replace(M=0.0)


def test_chunked_and_streamed_run_equals_single_call(tmp_path):
    block = sliding_block()
    whole = ss.simulate(block, 1.0, dt=1e-4, dt_out=1e-3)
    path = tmp_path / "run.csv"
    chunked = ss.simulate(block, 1.0, dt=1e-4, dt_out=1e-3, chunk=300, stream_to=path)
    np.testing.assert_allclose(chunked["p"], whole["p"], rtol=1e-13, atol=1e-15)
    import pandas as pd

    streamed = pd.read_csv(path)
    assert len(streamed) == len(whole.t)
    np.testing.assert_allclose(streamed["p"], whole["p"], rtol=1e-12, atol=1e-15)
    loaded = ss.Results.load(path)           # the sidecar written at the end makes it whole
    np.testing.assert_array_equal(loaded["p"], chunked["p"])
    np.testing.assert_array_equal(loaded.final_state, chunked.final_state)
    assert loaded.units == chunked.units and loaded.meta["stream_to"] == str(path)


def test_new_t_end_reuses_the_compiled_run():
    # the output count enters the compiled program only through its power-of-two bucket
    from stickslip.integrate._fixed_step import integrate_padded

    block = sliding_block()
    first = ss.simulate(block, 0.9, dt=1e-4, dt_out=1e-3)               # 900 outputs: 1024
    compiled = ss.integrate.traces(integrate_padded)
    shorter = ss.simulate(block, 0.6, dt=1e-4, dt_out=1e-3)             # 600 outputs: 1024
    again = ss.simulate(block, 0.9, dt=1e-4, dt_out=1e-3)
    assert ss.integrate.traces(integrate_padded) == compiled
    assert len(shorter.t) == 601 and shorter.t[-1] == pytest.approx(0.6)
    np.testing.assert_array_equal(shorter["p"], first["p"][:601])
    np.testing.assert_array_equal(again["p"], first["p"])


def test_short_runs_of_any_length_share_one_program():
    # 30, 100 and 250 outputs: three powers of two, one capacity tier (256), one compile; the
    # extra channels of the padding slots are skipped, not returned
    from stickslip.integrate._fixed_step import integrate_padded, run_capacity

    assert {run_capacity(n) for n in (1, 30, 100, 256)} == {256}
    assert run_capacity(257) == run_capacity(4096) == 4096 and run_capacity(4097) == 8192
    block = sliding_block()
    longest = ss.simulate(block, 0.25, dt=1e-4, dt_out=1e-3)
    compiled = ss.integrate.traces(integrate_padded)
    for t_end, n in ((0.03, 30), (0.1, 100)):
        res = ss.simulate(block, t_end, dt=1e-4, dt_out=1e-3)
        assert len(res.t) == n + 1
        for name in res.names:
            np.testing.assert_array_equal(res[name], longest[name][:n + 1])
    assert ss.integrate.traces(integrate_padded) == compiled


def _half_newton(t):
    return 0.0 * t + 0.5


def test_gradient_through_simulation_matches_finite_difference():
    def p_end(M):
        # one force function for every M (a new lambda per call compiled a program each)
        system = ss.systems.FrictionMass(M=M, law=ss.laws.CoulombODE(F=0.2, K=1e4, beta=1e-3),
                                         force=_half_newton)
        _, xs = ss.integrate.trajectory(system, 1.0, dt=1e-3, dt_out=1e-2)
        return xs[-1, 0]

    g = jax.grad(p_end)(1.0)
    h = 1e-6
    fd = (p_end(1.0 + h) - p_end(1.0 - h)) / (2 * h)
    assert float(g) == pytest.approx(float(fd), rel=1e-6)
    # sliding at the full level from the start: p(1) ≈ (0.5 − 0.2)/(2M) → dp/dM ≈ −0.15
    # (the proxy's short build-up of the friction force shifts it by 0.3 %)
    assert float(g) == pytest.approx(-0.15, rel=1e-2)


# --- bad input ----------------------------------------------------------------------------

def test_too_large_step_names_the_stable_step():
    block = sliding_block(law=ss.laws.CoulombODE(F=0.5, K=1e6, beta=1e-3))
    with pytest.raises(ss.ParameterError, match=r"rk4 is stable only for dt <= [0-9.e-]+ s") as err:
        ss.simulate(block, 1.0, dt=1e-2)
    limit = ss.largest_stable_step(block, "rk4")
    assert 0 < limit < 1e-2
    ss.simulate(block, 0.01, dt=0.9 * limit)     # the suggested step works
    assert "CoulombODE" in str(err.value)


def test_blow_up_raises_with_time_and_state():
    with pytest.raises(ss.SimulationError, match=r"diverged.*between t=") as err:
        ss.simulate(BlowUp(), 2.0, dt=1e-2)
    assert 0.9 < err.value.time <= 2.0
    assert "x" in err.value.state and np.isfinite(err.value.state["x"])


def test_adaptive_failure_raises_simulation_error():
    with pytest.raises(ss.SimulationError, match="max_steps"):
        ss.simulate(BlowUp(), 2.0, method="tsit5", max_steps=50)


@pytest.mark.parametrize("kwargs, match", [
    ({"dt": None}, "fixed-step methods need `dt`"),
    ({"dt": -1e-3}, r"`simulate.dt` must be > 0"),
    ({"dt": 1e-4, "dt_out": 1.5e-4}, "whole multiple of `dt`"),
    ({"dt": 1e-4, "method": "rk45"}, "unknown `method`"),
    ({"dt": float("nan")}, r"`simulate.dt` must be finite"),
])
def test_bad_simulate_arguments(kwargs, match):
    with pytest.raises(ss.ParameterError, match=match):
        ss.simulate(sliding_block(), 1.0, **kwargs)


def test_bad_time_span_and_initial_state():
    with pytest.raises(ss.ParameterError, match="`simulate.t_end` must be"):
        ss.simulate(sliding_block(), 0.0, dt=1e-4)
    with pytest.raises(ss.ParameterError, match="state vector of 3 values"):
        ss.simulate(sliding_block(), 1.0, dt=1e-4, initial=[0.0, 1.0])


def test_unknown_option_is_refused_by_name():
    # a misspelled option used to be a warning and the run went on without it (`dtout=`
    # sampled every step); the spatial and closed-loop hosts already refused one
    with pytest.raises(ss.ParameterError, match=r"`simulate` got unknown option\(s\) "
                                                r"\['tolerance'\]; known options are"):
        ss.simulate(sliding_block(), 0.01, dt=1e-4, tolerance=3)


def test_misspelled_option_error_suggests_the_keyword():
    # issue 24: a typo got the list of options but no suggestion; `dt_out` is an argument,
    # not an option, and is suggested too
    with pytest.raises(ss.ParameterError, match=r"Did you mean `dt_out` for `dtout`, `rtol` "
                                                r"for `rtl`\?") as info:
        ss.simulate(sliding_block(), 0.01, dt=1e-4, dtout=1e-3, rtl=1e-6, zzz=1)
    assert "`zzz`" not in str(info.value)


def test_second_call_does_not_recompile(tmp_path, monkeypatch):
    # watches the kernel simulate really runs (traces are counted inside it, whether the
    # program store or plain jit compiles it); the last line shows the watch can fail
    from stickslip.integrate import _program_store
    from stickslip.integrate._fixed_step import integrate_padded

    monkeypatch.setattr(_program_store, "store_directory", lambda: tmp_path)   # empty store
    _program_store.clear_memory()
    ss.simulate(sliding_block(), 0.5, dt=1e-4, dt_out=1e-2)
    before = ss.integrate.traces(integrate_padded)
    assert before >= 1
    ss.simulate(sliding_block(M=3.0), 0.5, dt=1e-4, dt_out=1e-2)   # new values, same shapes
    assert ss.integrate.traces(integrate_padded) == before
    ss.simulate(sliding_block(law=ss.laws.LuGre.example()), 0.5, dt=1e-4, dt_out=1e-2)
    assert ss.integrate.traces(integrate_padded) == before + 1     # a new structure traces


def test_new_step_and_output_interval_reuse_the_compiled_run():
    # dt, steps per output, t_end and the short last interval are traced data: only the
    # power-of-two bucket of the output count is static
    from stickslip.integrate._fixed_step import integrate_padded

    block = sliding_block()
    reference = ss.simulate(block, 0.5, dt=1e-4, dt_out=1e-2)              # 50 outputs: 64
    compiled = ss.integrate.traces(integrate_padded)
    other_dt = ss.simulate(block, 0.5, dt=2e-4, dt_out=1e-2)               # 50 steps/output
    other_ratio = ss.simulate(block, 0.55, dt=1e-4, dt_out=2e-2)           # 200, odd end
    assert ss.integrate.traces(integrate_padded) == compiled
    assert other_ratio.t[-1] == 0.55
    np.testing.assert_allclose(other_dt["p"], reference["p"], atol=1e-7)
    assert len(other_ratio.t) == 29 and other_ratio.t[-2] == pytest.approx(0.54)
    np.testing.assert_allclose(other_ratio["p"][:26], reference["p"][::2], rtol=1e-12,
                               atol=1e-15)


class _LoopedOscillator(LinearOscillator):
    trace_stages_once = True


class _ProjectedOscillator(LinearOscillator):
    """Keeps the energy x² + (ẋ/ω)² = 1 exactly by rescaling after every step."""

    projects_after_step = True

    def project(self, t, x):
        scale = jnp.sqrt(x[0] ** 2 + (x[1] / self.omega) ** 2)
        return x / scale


def test_looped_stages_equal_unrolled_stages():
    a = ss.simulate(LinearOscillator(), 2.0, dt=1e-2, dt_out=0.1, method="rk_gill")
    b = ss.simulate(_LoopedOscillator(), 2.0, dt=1e-2, dt_out=0.1, method="rk_gill")
    np.testing.assert_allclose(a["x"], b["x"], rtol=1e-13, atol=1e-15)


def test_projection_runs_after_every_fixed_step():
    res = ss.simulate(_ProjectedOscillator(), 5.0, dt=0.05, dt_out=0.05, method="euler")
    energy = res["x"] ** 2 + (res["xd"] / 2.0) ** 2
    np.testing.assert_allclose(energy, 1.0, rtol=1e-14)     # Euler alone would grow it


class _ProjectableOscillator(LinearOscillator):
    """Has a projection but does not declare it: the integrator option turns it on."""

    def project(self, t, x):
        return x / jnp.sqrt(x[0] ** 2 + (x[1] / self.omega) ** 2)


def test_integrator_options_replace_the_capability_subclasses():
    looped = ss.simulate(LinearOscillator(), 2.0, dt=1e-2, dt_out=0.1, method="rk_gill",
                         trace_stages_once=True)
    declared = ss.simulate(_LoopedOscillator(), 2.0, dt=1e-2, dt_out=0.1, method="rk_gill")
    np.testing.assert_allclose(looped["x"], declared["x"], rtol=1e-13, atol=1e-15)
    plain = ss.simulate(_ProjectableOscillator(), 5.0, dt=0.05, method="euler")
    projected = ss.simulate(_ProjectableOscillator(), 5.0, dt=0.05, method="euler",
                            projection=True)
    off = ss.simulate(_ProjectedOscillator(), 5.0, dt=0.05, method="euler", projection=False)
    energy = lambda r: r["x"] ** 2 + (r["xd"] / 2.0) ** 2
    np.testing.assert_allclose(energy(projected), 1.0, rtol=1e-14)
    assert energy(plain)[-1] > 1.5 and energy(off)[-1] == energy(plain)[-1]


def test_rk_step_is_one_step_of_the_tableau_with_optional_projection():
    from stickslip.integrate import rk_step

    decay = lambda t, x: -2.0 * x
    x1 = rk_step(decay, "rk4", 0.0, jnp.array([1.0]), 0.1)
    z = -0.2                                                    # R(z) = 1 + z + … + z⁴/24
    assert float(x1[0]) == pytest.approx(1 + z + z ** 2 / 2 + z ** 3 / 6 + z ** 4 / 24,
                                         rel=1e-15)
    same = rk_step(decay, ss.integrate.FIXED_STEP_METHODS["rk4"], 0.0, jnp.array([1.0]), 0.1,
                   stages_in_loop=True)
    assert float(same[0]) == pytest.approx(float(x1[0]), rel=1e-15)
    times = []
    clipped = rk_step(decay, "euler", 0.5, jnp.array([1.0]), 0.1,
                      project=lambda t, x: times.append(t) or jnp.minimum(x, 0.5))
    assert float(clipped[0]) == 0.5 and times == [pytest.approx(0.6)]
    with pytest.raises(ss.ParameterError, match="unknown fixed-step `method` 'rk5'"):
        rk_step(decay, "rk5", 0.0, jnp.array([1.0]), 0.1)
