"""`ss.sweep`: physics of the outputs, backends that agree, failures kept, resumable store."""

import json

import jax
import jax.numpy as jnp
import numpy as np
import pandas as pd
import pytest

import stickslip as ss
from stickslip.studies import friction_mass, grid, latin_hypercube, stick_fraction

from pathlib import Path

SRC = str(Path(__file__).resolve().parents[2] / "src")
RUN = dict(t_end=1.0, dt=1e-4, dt_out=1e-3)
OUTPUTS = ["stick_fraction", "max_abs(p)", "energy_loss", "rest_position"]


def test_sweep_outputs_follow_coulomb_below_and_above_the_level():
    # SPEC §2 eq. 10: a sinusoidal push of amplitude A below F never breaks the block loose
    # (|p| stays within A/K on the proxy spring); above F it slides and dissipates energy
    table = ss.sweep(friction_mass, grid(F=[0.3, 0.9], amplitude=[0.6]), OUTPUTS, **RUN)
    assert list(table["error"]) == [None, None]
    below, above = table.iloc[1], table.iloc[0]
    assert below["max_abs(p)"] <= 0.6 / 1e4 * 1.01
    assert below["stick_fraction"] == 1.0
    assert above["max_abs(p)"] > 1e-3 and above["energy_loss"] > 0
    assert table.attrs["mode"] == "vmap" and table.attrs["computed"] == 2


def test_sweep_matches_single_runs_to_round_off():
    design = latin_hypercube(5, seed=3, F=(0.2, 0.8), amplitude=(0.3, 0.9))
    table = ss.sweep(friction_mass, design, OUTPUTS, **RUN, chunk=2)
    for i, row in design.iterrows():
        res = ss.simulate(friction_mass(**row.to_dict()), **RUN)
        assert table.loc[i, "max_abs(p)"] == pytest.approx(np.max(np.abs(res["p"])),
                                                            rel=1e-12, abs=1e-15)
        assert table.loc[i, "stick_fraction"] == stick_fraction(res)


def _closure_build(F, amplitude):
    # a lambda closing over a parameter cannot be vmapped: sweep runs point by point
    law = ss.laws.CoulombODE(F=F, K=1e4, beta=2e-2)
    return ss.systems.FrictionMass(M=1.0, law=law,
                                   force=lambda t: amplitude * jnp.sin(2 * jnp.pi * t))


def test_per_point_fallback_gives_the_vmapped_numbers():
    design = grid(F=[0.3, 0.9], amplitude=[0.6])
    by_point = ss.sweep(_closure_build, design, OUTPUTS, **RUN)
    vmapped = ss.sweep(friction_mass, design, OUTPUTS, **RUN)
    assert by_point.attrs["mode"] == "points" and vmapped.attrs["mode"] == "vmap"
    np.testing.assert_allclose(by_point[OUTPUTS].to_numpy(), vmapped[OUTPUTS].to_numpy(),
                               rtol=1e-9, atol=1e-12)


def test_failing_points_are_recorded_not_raised():
    design = pd.DataFrame({"F": [0.5, -1.0, 0.5], "K": [1e4, 1e4, 1e9]})
    table = ss.sweep(friction_mass, design, ["max_abs(p)"], **RUN)
    assert table.loc[0, "error"] is None and np.isfinite(table.loc[0, "max_abs(p)"])
    assert "CoulombODE.F" in table.loc[1, "error"] and np.isnan(table.loc[1, "max_abs(p)"])
    assert "too large" in table.loc[2, "error"]            # K = 1e9: dt outside RK4's region


class _Counter:
    """Analysis that counts the runs it sees; raises KeyboardInterrupt after `stop` chunks."""

    def __init__(self, stop=None):
        self.runs, self.calls, self.stop = 0, 0, stop

    def __stickslip_key__(self):
        # what it computes, for the store's identity: its counters change, its output not
        return "max |p|"

    def __call__(self, res):
        self.calls += 1
        if self.stop is not None and self.calls > self.stop:
            raise KeyboardInterrupt
        self.runs += int(np.prod(res.batch_shape or (1,)))
        return np.max(np.abs(res["p"]), axis=-1)


def test_interrupted_sweep_resumes_computing_only_missing_points(tmp_path):
    design = grid(F=np.linspace(0.2, 0.9, 10), amplitude=[0.6])
    store = tmp_path / "store"
    first = _Counter(stop=2)
    with pytest.raises(KeyboardInterrupt):
        ss.sweep(friction_mass, design, {"pmax": first}, **RUN, chunk=3, store=store)
    assert first.runs == 6                                  # two chunks of 3 were stored
    second = _Counter()
    table = ss.sweep(friction_mass, design, {"pmax": second}, **RUN, chunk=3, store=store)
    assert second.runs == 4 + 2                # the 4 missing points, padded to a chunk of 3
    assert table.attrs["computed"] == 4 and table.attrs["reused"] == 6
    fresh = ss.sweep(friction_mass, design, {"pmax": _Counter()}, **RUN, chunk=3)
    np.testing.assert_array_equal(table["pmax"], fresh["pmax"])
    third = _Counter()
    again = ss.sweep(friction_mass, design, {"pmax": third}, **RUN, chunk=3, store=store)
    assert third.runs == 0 and again.attrs["computed"] == 0


def test_store_of_another_study_is_refused(tmp_path):
    design = grid(F=[0.5])
    ss.sweep(friction_mass, design, ["max_abs(p)"], **RUN, store=tmp_path / "s")
    with pytest.raises(ss.ParameterError, match="`dt` was 0.0001"):
        ss.sweep(friction_mass, design, ["max_abs(p)"], t_end=1.0, dt=5e-5,
                 dt_out=1e-3, store=tmp_path / "s")


def test_trajectories_on_request_and_from_the_store(tmp_path):
    design = grid(F=[0.3, 0.9])
    table = ss.sweep(friction_mass, design, ["rest_position"], **RUN, trajectories=True,
                     store=tmp_path / "s")
    res = table.loc[0, "trajectory"]
    assert isinstance(res, ss.Results) and res["p"][-1] == table.loc[0, "rest_position"]
    again = ss.sweep(friction_mass, design, ["rest_position"], **RUN, trajectories=True,
                     store=tmp_path / "s")
    assert again.attrs["computed"] == 0
    np.testing.assert_array_equal(again.loc[1, "trajectory"]["p"], table.loc[1, "trajectory"]["p"])


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["processes", "dask"])
def test_backends_agree_with_vmap(backend):
    design = latin_hypercube(6, seed=1, F=(0.2, 0.8), amplitude=(0.3, 0.9))
    kw = dict(t_end=0.5, dt=1e-4, dt_out=1e-3, chunk=2)
    reference = ss.sweep(friction_mass, design, OUTPUTS, **kw)
    if backend == "dask":
        distributed = pytest.importorskip("distributed")
        with distributed.LocalCluster(n_workers=2, threads_per_worker=1,
                                      dashboard_address=None) as cluster, \
                distributed.Client(cluster) as client:
            table = ss.sweep(friction_mass, design, OUTPUTS, backend="dask", client=client,
                             **kw)
    else:
        table = ss.sweep(friction_mass, design, OUTPUTS, backend="processes", workers=2, **kw)
    assert table.attrs["backend"] == backend
    np.testing.assert_allclose(table[OUTPUTS].to_numpy(), reference[OUTPUTS].to_numpy(),
                               rtol=1e-13, atol=1e-15)


_KILLABLE = """
import sys
from stickslip.studies import friction_mass, grid, sweep
design = grid(F=[0.2 + 0.05 * k for k in range(12)], amplitude=[0.6])
table = sweep(friction_mass, design, ["max_abs(p)"], t_end=1.0, dt=1e-4, dt_out=1e-3,
              chunk=2, store=sys.argv[1])
print("computed", table.attrs["computed"])
"""


@pytest.mark.slow
def test_sweep_killed_by_a_signal_resumes_with_only_the_missing_points(tmp_path):
    import subprocess
    import sys
    import time

    store = tmp_path / "store"
    script = tmp_path / "run.py"
    script.write_text(_KILLABLE)
    proc = subprocess.Popen([sys.executable, str(script), str(store)], env={"PYTHONPATH": SRC})
    deadline = time.time() + 300
    while time.time() < deadline and len(list(store.glob("part-*.parquet"))) < 2:
        time.sleep(0.05)
    proc.kill()                                    # SIGKILL: no cleanup runs
    proc.wait()
    stored = ss.studies._store.Store(store, json.loads((store / "study.json").read_text()))
    kept = len(stored.load())
    assert 0 < kept < 12
    design = grid(F=[0.2 + 0.05 * k for k in range(12)], amplitude=[0.6])
    table = ss.sweep(friction_mass, design, ["max_abs(p)"], t_end=1.0, dt=1e-4, dt_out=1e-3,
                     chunk=2, store=store)
    assert table.attrs["computed"] == 12 - kept and table["error"].isna().all()


def test_failed_points_are_kept_in_the_store_and_retried_on_request(tmp_path):
    design = pd.DataFrame({"F": [0.5, -1.0]})
    store = tmp_path / "s"
    first = ss.sweep(friction_mass, design, ["max_abs(p)"], **RUN, store=store)
    assert first.loc[1, "error"] is not None
    kept = ss.sweep(friction_mass, design, ["max_abs(p)"], **RUN, store=store)
    assert kept.attrs["computed"] == 0 and "CoulombODE.F" in kept.loc[1, "error"]
    retried = ss.sweep(friction_mass, design, ["max_abs(p)"], **RUN, store=store,
                       retry_failed=True)
    assert retried.attrs["computed"] == 1


def _varying_paths(build, names):
    from stickslip.studies._backends import varying_leaves

    system = build(**{n: 0.5 for n in names})
    paths = [jax.tree_util.keystr(p) for p, leaf in jax.tree_util.tree_leaves_with_path(system)
             if isinstance(leaf, jnp.ndarray)]
    flags = varying_leaves(build, names)
    assert len(flags) == len(paths)
    return {p for p, f in zip(paths, flags) if f}


def test_only_leaves_built_from_the_swept_parameters_are_batched():
    # the vmapped run keeps the others unbatched (one sin(2πft) per step for a whole chunk)
    assert _varying_paths(friction_mass, ("F", "amplitude")) == {".law.F", ".force.amplitude"}
    # beta defaults to 2·sqrt(M/K): it varies with K (and M), the force does not
    assert _varying_paths(friction_mass, ("K",)) == {".law.K", ".law.beta"}
    assert _varying_paths(friction_mass, ("frequency", "M")) == {
        ".M", ".law.beta", ".force.frequency"}


def test_a_leaf_wrongly_read_as_shared_falls_back_to_batching_every_leaf():
    from stickslip.studies._backends import build_stacked, split_varying

    stacked = build_stacked(friction_mass, ("F",), np.array([[0.3], [0.6]]))
    n = sum(isinstance(x, jnp.ndarray) for x in jax.tree.leaves(stacked))
    batched, shared = split_varying(stacked, [False] * n)     # F differs: flags ignored
    assert batched.law.F.shape == (2,) and batched.M.shape == (2,)
    batched, shared = split_varying(stacked, [leaf is stacked.law.F for leaf in
                                              jax.tree.leaves(stacked)
                                              if isinstance(leaf, jnp.ndarray)])
    assert batched.law.F.shape == (2,) and batched.M is None and shared.M.shape == ()


def _held_push(t):
    return 0.36 + 0.0 * t


def _two_level_block(M):
    # a block held at 0.9 of its static level F_s = 0.4 N (fast stick mode for small M)
    law = ss.laws.CoulombODE(F=0.2, F_s=0.4, K=1e4, beta=5e-2)
    return ss.systems.FrictionMass(M=M, law=law, force=_held_push)


def test_a_vmapped_sweep_refuses_a_step_that_overshoots_a_two_level_law():
    # M = 0.02 kg: dt = 1e-4 s is inside RK4's stability limit (1.12e-4 s) but past the
    # overshoot-free one (5.19e-5 s) that ss.simulate checks; the sweep ran it, and the
    # block broke loose below its static level (v = 2.4 m/s after 0.3 s)
    design = pd.DataFrame({"M": [1.0, 0.02]})
    table = ss.sweep(_two_level_block, design, ["max_abs(v)"], t_end=0.3, dt=1e-4,
                     method="rk4")
    assert table.attrs["mode"] == "vmap"
    assert table.loc[0, "error"] is None and table.loc[0, "max_abs(v)"] < 1e-3
    assert "too large" in table.loc[1, "error"] and np.isnan(table.loc[1, "max_abs(v)"])
