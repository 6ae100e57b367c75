"""Bad input to the core (issue 11): `simulate`, `simulate_batch`, `trajectory`,
`stack_systems`, `largest_stable_step`, the stepping front (`rk_step`, `step_grid`) and
`Results` (constructor, ``[]``, `member`, `save`, `load`, `plot`).

Each case is a zero-argument callable that must raise a `ss.StickslipError` whose message
names the argument (or channel) at fault — never a bare traceback, never a silent result.
"""

import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import stickslip as ss  # noqa: E402
from stickslip.integrate import rk_step, step_grid  # noqa: E402

TMP = Path(tempfile.mkdtemp(prefix="stickslip-bad-input-"))


def push(t):
    return 0.0 * t + 0.3


def block(**kw):
    return ss.systems.FrictionMass(M=1.0, law=ss.laws.CoulombODE(F=0.5, K=1e4, beta=1e-3),
                                   force=push, **kw)


def sim(**kw):
    args = dict(t_end=1.0, dt=1e-4)
    args.update(kw)
    return lambda: ss.simulate(block(), **args)


def tsit5(**kw):
    return sim(**{"method": "tsit5", "dt": None, **kw})


def batch(**kw):
    args = dict(t_end=1.0, dt=1e-4)
    args.update(kw)
    return lambda: ss.simulate_batch([block(), block()], **args)


T = np.array([0.0, 0.1])
RES = ss.Results(T, {"p": np.array([0.0, 1.0]), "v": np.array([1.0, 1.0])},
                 units={"p": "m", "v": "m/s"}, final_state=np.array([1.0, 1.0, 0.0]))
BATCH = ss.Results(T, {"p": np.zeros((2, 2))}, final_state=np.zeros((2, 3)))

CASES = {
    # simulate: times and steps
    "t_end as a string": (sim(t_end="1"), "simulate.t_end"),
    "t_end NaN": (sim(t_end=float("nan")), "simulate.t_end"),
    "t_end before t0": (sim(t_end=0.0), "simulate.t_end"),
    "t_end a list": (sim(t_end=[1.0]), "simulate.t_end"),
    "t_end a bool": (sim(t_end=True), "simulate.t_end"),
    "dt as a string": (sim(dt="1e-4"), "simulate.dt"),
    "dt zero": (sim(dt=0.0), "simulate.dt"),
    "dt negative": (sim(dt=-1e-4), "simulate.dt"),
    "dt infinite": (sim(dt=float("inf")), "simulate.dt"),
    "dt missing for rk4": (sim(dt=None), "simulate.dt"),
    "dt too large for the stiffness": (sim(dt=0.1), "dt=0.1"),
    "dt_out not a multiple of dt": (sim(dt_out=1.5e-4), "dt_out"),
    "dt_out negative": (sim(dt_out=-0.1), "simulate.dt_out"),
    "dt_out as a string": (sim(dt_out="0.1"), "simulate.dt_out"),
    "method unknown": (sim(method="rk45"), "method"),
    "method None": (sim(method=None), "method"),
    # simulate: adaptive options
    "tsit5 negative dt": (tsit5(dt=-1e-3), "simulate.dt"),
    "tsit5 max_steps zero": (tsit5(max_steps=0), "simulate.max_steps"),
    "tsit5 max_steps fractional": (tsit5(max_steps=2.5), "simulate.max_steps"),
    "tsit5 rtol zero": (tsit5(rtol=0.0), "simulate.rtol"),
    "tsit5 atol negative": (tsit5(atol=-1.0), "simulate.atol"),
    "tsit5 rtol as a string": (tsit5(rtol="1e-6"), "simulate.rtol"),
    "tsit5 dt_out zero": (tsit5(dt_out=0.0), "simulate.dt_out"),
    "projection with tsit5": (tsit5(projection=True), "projection"),
    # simulate: start
    "t0 as a string": (sim(t0="0"), "simulate.t0"),
    "t0 NaN": (sim(t0=float("nan")), "simulate.t0"),
    "initial of the wrong length": (sim(initial=[0.0, 1.0]), "simulate.initial"),
    "initial not finite": (sim(initial=[np.nan, 0.0, 0.0]), "simulate.initial"),
    "initial text": (sim(initial="abc"), "simulate.initial"),
    "initial a batched Results": (sim(initial=BATCH), "simulate.initial"),
    # simulate: other options
    "chunk zero": (sim(chunk=0), "simulate.chunk"),
    "chunk fractional": (sim(chunk=1.5), "simulate.chunk"),
    "stream_to not csv": (sim(stream_to=TMP / "run.txt"), "stream_to"),
    "stream_to a number": (sim(stream_to=3), "stream_to"),
    "check_step a string": (sim(check_step="no"), "simulate.check_step"),
    "progress a string": (sim(progress="yes"), "simulate.progress"),
    "max_state negative": (sim(max_state=-1.0), "simulate.max_state"),
    "energy_tol one number": (sim(energy_tol=(1e-2,)), "simulate.energy_tol"),
    "trace_stages_once a string": (sim(trace_stages_once="yes"), "trace_stages_once"),
    "system not a system": (lambda: ss.simulate("block", 1.0, dt=1e-4), "simulate.system"),
    # simulate_batch / stack_systems
    "batch of nothing": (lambda: ss.simulate_batch([], 1.0, dt=1e-4), "systems"),
    "batch with a non-system": (lambda: ss.simulate_batch([block(), "x"], 1.0, dt=1e-4),
                                "member 1"),
    "batch members of different structure": (
        lambda: ss.simulate_batch([block(), ss.systems.FrictionMass(
            M=1.0, law=ss.laws.LuGre.example())], 1.0, dt=1e-4), "member 1"),
    "batch with initial": (batch(initial=[0.0, 0.0, 0.0]), "initial"),
    "batch with stream_to": (batch(stream_to=TMP / "b.csv"), "stream_to"),
    "batch t_end as a string": (batch(t_end="1"), "simulate_batch.t_end"),
    "batch dt zero": (batch(dt=0.0), "simulate_batch.dt"),
    "batch t0 infinite": (batch(t0=float("inf")), "simulate_batch.t0"),
    "batch max_steps zero": (batch(method="tsit5", dt=None, max_steps=0), "max_steps"),
    "stack_systems of a number": (lambda: ss.stack_systems(5), "stack_systems.systems"),
    # trajectory / largest_stable_step
    "trajectory adaptive method": (
        lambda: ss.integrate.trajectory(block(), 1.0, dt=1e-3, method="tsit5"), "method"),
    "trajectory x0 of the wrong shape": (
        lambda: ss.integrate.trajectory(block(), 1.0, dt=1e-3, x0=[0.0]), "trajectory.x0"),
    "trajectory t_end negative": (
        lambda: ss.integrate.trajectory(block(), -1.0, dt=1e-3), "trajectory.t_end"),
    "trajectory dt missing": (
        lambda: ss.integrate.trajectory(block(), 1.0, dt=None), "trajectory.dt"),
    "largest_stable_step of a non-system": (
        lambda: ss.largest_stable_step("x"), "largest_stable_step.system"),
    "largest_stable_step unknown method": (
        lambda: ss.largest_stable_step(block(), "rk45"), "method"),
    # the stepping front
    "rk_step unknown method": (
        lambda: rk_step(lambda t, x: -x, "rk5", 0.0, jnp.ones(1), 0.1), "method"),
    "step_grid dt_out not a multiple": (lambda: step_grid(0.0, 1.0, 1e-3, 2.5e-3), "dt_out"),
    # Results: constructor
    "Results t 2-D": (lambda: ss.Results(np.zeros((2, 2)), {}), "Results.t"),
    "Results channels a list": (lambda: ss.Results(T, [1, 2]), "Results.channels"),
    "Results channel of the wrong length": (
        lambda: ss.Results(T, {"p": np.zeros(3)}), "'p'"),
    "Results channel name not a string": (
        lambda: ss.Results(T, {1: np.zeros(2)}), "Results.channels"),
    "Results channel of text": (
        lambda: ss.Results(T, {"p": np.array(["a", "b"])}), "channels['p']"),
    "Results units not a mapping": (
        lambda: ss.Results(T, {"p": np.zeros(2)}, units=5), "Results.units"),
    "Results meta not a mapping": (
        lambda: ss.Results(T, {"p": np.zeros(2)}, meta=[1]), "Results.meta"),
    "Results t of text": (lambda: ss.Results(np.array(["a"]), {}), "Results.t"),
    # Results: access
    "Results unknown channel": (lambda: RES["pp"], "'pp'"),
    "Results channel by number": (lambda: RES[3], "no channel 3"),
    "Results member of a single run": (lambda: RES.member(0), "Results.member"),
    "Results member out of range": (lambda: BATCH.member(5), "Results.member.index"),
    "Results member by name": (lambda: BATCH.member("a"), "Results.member.index"),
    # Results: files
    "Results save as xlsx": (lambda: RES.save(TMP / "run.xlsx"), "Results.save.path"),
    "Results save to a number": (lambda: RES.save(5), "Results.save.path"),
    "Results save without suffix": (lambda: RES.save(TMP / "run"), "Results.save.path"),
    "Results load txt": (lambda: ss.Results.load(TMP / "run.txt"), "Results.load.path"),
    "Results load missing file": (lambda: ss.Results.load(TMP / "missing.csv"), "missing.csv"),
    "Results load None": (lambda: ss.Results.load(None), "Results.load.path"),
    # Results: plot
    "Results plot unknown channel": (lambda: RES.plot(["q"]), "'q'"),
    "Results plot no channels": (lambda: RES.plot([]), "Results.plot.names"),
    "Results plot bad axes": (lambda: RES.plot(["p"], axes="x"), "Results.plot.axes"),
}


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_bad_input_raises_a_stickslip_error_naming_the_argument(case):
    call, names = CASES[case]
    with pytest.raises(ss.StickslipError) as err:
        call()
    assert names in str(err.value), f"{case}: message {str(err.value)!r} lacks {names!r}"


def test_there_are_enough_cases():
    assert len(CASES) >= 35
