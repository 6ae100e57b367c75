"""Sweeps and fits never ignore what they were given (issue 25 item 5).

Reserved column names, `simulate` options honoured the same way in the vmapped and the
per-point mode (or refused with "Did you mean"), chunks no larger than the points, a
positive memory, trajectories for reused points, stores checked writable before any work,
damaged store files named, and `fit` with the step check of `simulate` and no silently
ignored `fixed=`/`initial=`/`weights=` entries. Sweeps are 2 points of 0.3 s or less.
"""

import json

import numpy as np
import pytest

import stickslip as ss
from stickslip.studies import friction_mass

RUN = {"t_end": 0.3, "dt": 1e-3, "dt_out": 1e-2}
POINTS = {"F": [0.3, 0.9]}
OUTPUTS = ["max_abs(p)", "final(v)"]


def per_point(F):
    """friction_mass, built on concrete numbers only: the sweep runs it point by point."""
    return friction_mass(F=float(F))


def _both_modes(**options):
    vmapped = ss.sweep(friction_mass, POINTS, OUTPUTS, **RUN, **options)
    points = ss.sweep(per_point, POINTS, OUTPUTS, **RUN, **options)
    assert vmapped.attrs["mode"] == "vmap" and points.attrs["mode"] == "points"
    return vmapped, points


# --- reserved names, chunk, memory ---------------------------------------------------------

@pytest.mark.parametrize("name", ["error", "key", "trajectory"])
def test_a_parameter_named_like_a_written_column_is_refused(name):
    build = eval(f"lambda {name}: friction_mass(F={name})")
    with pytest.raises(ss.ParameterError, match=rf"parameter name\(s\) \['{name}'\] are "
                                                r"reserved"):
        ss.sweep(build, {name: [0.3, 0.5]}, OUTPUTS, **RUN)


class _Runs:
    """Counts the runs an analysis sees (a padded chunk shows its padding)."""

    def __init__(self):
        self.runs = 0

    def __stickslip_key__(self):
        return "max |p|"

    def __call__(self, res):
        self.runs += int(np.prod(res.batch_shape or (1,)))
        return np.max(np.abs(res["p"]), axis=-1)


def test_a_chunk_larger_than_the_points_is_not_padded_to_its_size():
    runs = _Runs()
    table = ss.sweep(friction_mass, POINTS, {"pmax": runs}, **RUN, chunk=100_000)
    assert table.attrs["chunk"] == 2 and runs.runs == 2


@pytest.mark.parametrize("memory", [-1, 0, float("nan"), float("inf"), "1e9", True])
def test_memory_must_be_a_positive_number_of_bytes(memory):
    with pytest.raises(ss.ParameterError, match=r"`sweep\.memory` must be a positive number"):
        ss.sweep(friction_mass, POINTS, OUTPUTS, **RUN, memory=memory)


@pytest.mark.parametrize("chunk", [float("nan"), float("inf"), True])
def test_chunk_must_be_a_whole_number(chunk):
    with pytest.raises(ss.ParameterError, match="`chunk` must be a whole number"):
        ss.sweep(friction_mass, POINTS, OUTPUTS, **RUN, chunk=chunk)


# --- simulate's options: the same in both modes, or refused --------------------------------

def test_t0_is_honoured_in_both_modes():
    vmapped, points = _both_modes(t0=0.1)
    for i, F in enumerate(POINTS["F"]):
        res = ss.simulate(friction_mass(F=F), RUN["t_end"], dt=RUN["dt"],
                          dt_out=RUN["dt_out"], t0=0.1)
        for table in (vmapped, points):
            assert table.loc[i, "error"] is None
            assert table.loc[i, "max_abs(p)"] == pytest.approx(np.max(np.abs(res["p"])),
                                                               rel=1e-12, abs=1e-15)
            assert table.loc[i, "final(v)"] == pytest.approx(res["v"][-1], rel=1e-12,
                                                             abs=1e-15)


def test_an_initial_state_is_honoured_in_both_modes():
    start = [0.0, 0.2, 0.0]                                  # p, v, proxy offset
    vmapped, points = (ss.sweep(build, POINTS, OUTPUTS, **RUN, initial=start)
                       for build in (friction_mass, per_point))
    assert vmapped.attrs["mode"] == "points"                 # a batch takes no initial state
    for i, F in enumerate(POINTS["F"]):
        res = ss.simulate(friction_mass(F=F), RUN["t_end"], dt=RUN["dt"],
                          dt_out=RUN["dt_out"], initial=start)
        for table in (vmapped, points):
            assert table.loc[i, "final(v)"] == pytest.approx(res["v"][-1], rel=1e-12,
                                                             abs=1e-15)


def test_max_state_stops_the_same_points_in_both_modes():
    # F = 0.3 < 0.6 N of push: the block slides (p ~ 1 cm, v ~ 0.1 m/s, beyond 1 mm);
    # F = 0.9 holds it on the proxy spring (|p| <= 0.6 N / K = 60 µm)
    vmapped, points = _both_modes(max_state=1e-3)
    for table in (vmapped, points):
        assert "beyond max_state=0.001" in table.loc[0, "error"]
        assert table.loc[1, "error"] is None
    assert vmapped.loc[0, "error"] == points.loc[0, "error"]
    np.testing.assert_allclose(vmapped.loc[1, OUTPUTS].to_numpy(float),
                               points.loc[1, OUTPUTS].to_numpy(float), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("build", [friction_mass, per_point])
@pytest.mark.parametrize("options, fragment", [
    ({"t_0": 0.1}, "Did you mean `t0` for `t_0`?"),
    ({"max_sate": 1.0}, "Did you mean `max_state` for `max_sate`?"),
    ({"energy_tol": "tight"}, "`sweep.energy_tol` must be a pair"),
    ({"max_state": -1.0}, "`sweep.max_state` must be a positive number"),
    ({"check_step": "no"}, "`sweep.check_step` must be True or False"),
    ({"stream_to": "{tmp}/run.csv"}, "does not pass `stream_to`"),
])
def test_a_bad_or_misspelled_option_is_refused_before_any_point_runs(build, options,
                                                                      fragment, tmp_path):
    options = {k: v.format(tmp=tmp_path) if isinstance(v, str) else v
               for k, v in options.items()}
    runs = _Runs()
    with pytest.raises(ss.ParameterError) as info:
        ss.sweep(build, POINTS, {"pmax": runs}, **RUN, **options)
    assert fragment in str(info.value)
    assert runs.runs == 0


# --- the store -----------------------------------------------------------------------------

def test_reused_points_asked_for_trajectories_come_back_with_them(tmp_path):
    store = tmp_path / "s"
    first = ss.sweep(friction_mass, POINTS, OUTPUTS, **RUN, store=store)
    again = ss.sweep(friction_mass, POINTS, OUTPUTS, **RUN, store=store, trajectories=True)
    assert all(isinstance(r, ss.Results) for r in again["trajectory"])
    assert again.attrs["computed"] == 2                # the runs were not kept: run again
    np.testing.assert_array_equal(again["max_abs(p)"], first["max_abs(p)"])
    damaged = min((store / "trajectories").glob("*.npz"))
    damaged.write_bytes(damaged.read_bytes()[:100])
    with pytest.warns(UserWarning, match=rf"trajectory file '.*{damaged.name}' cannot be read"):
        third = ss.sweep(friction_mass, POINTS, OUTPUTS, **RUN, store=store,
                         trajectories=True)
    assert third.attrs["computed"] == 1
    assert all(isinstance(r, ss.Results) for r in third["trajectory"])


def test_an_unwritable_store_is_refused_before_any_point_runs(tmp_path):
    (tmp_path / "plain-file").write_text("not a directory")
    runs = _Runs()
    with pytest.raises(ss.ParameterError, match=r"`store`: cannot write to the directory "
                                                r".*plain-file/store"):
        ss.sweep(friction_mass, POINTS, {"pmax": runs}, **RUN,
                 store=tmp_path / "plain-file" / "store")
    assert runs.runs == 0


def test_a_damaged_store_part_is_named_set_aside_and_recomputed(tmp_path):
    store = tmp_path / "s"
    first = ss.sweep(friction_mass, POINTS, OUTPUTS, **RUN, store=store, chunk=1)
    part = min(store.glob("part-*.parquet"))
    part.write_bytes(part.read_bytes()[:40])                     # truncated
    with pytest.warns(UserWarning, match=rf"'.*{part.name}' is not used: it cannot be read"):
        again = ss.sweep(friction_mass, POINTS, OUTPUTS, **RUN, store=store, chunk=1)
    assert again.attrs["computed"] == 1 and again.attrs["reused"] == 1
    np.testing.assert_array_equal(again["max_abs(p)"], first["max_abs(p)"])
    assert part.with_name(part.name + ".damaged").exists() and not part.exists()


def test_a_store_part_without_the_outputs_is_named_and_recomputed(tmp_path):
    store = tmp_path / "s"
    ss.sweep(friction_mass, POINTS, OUTPUTS, **RUN, store=store)
    (part,) = store.glob("part-*.parquet")
    import pyarrow.parquet as pq

    table = pq.read_table(part)
    pq.write_table(table.drop_columns(["final(v)"]), part)       # keeps the study record
    with pytest.warns(UserWarning, match=r"it lacks the columns \['final\(v\)'\]"):
        again = ss.sweep(friction_mass, POINTS, OUTPUTS, **RUN, store=store)
    assert again.attrs["computed"] == 2 and again["final(v)"].notna().all()


@pytest.mark.parametrize("text", ['{"model": "friction_ma', "\xff\xfe garbage", "[1, 2]"])
def test_a_damaged_study_file_names_the_file_to_delete(tmp_path, text):
    store = tmp_path / "s"
    ss.sweep(friction_mass, POINTS, OUTPUTS, **RUN, store=store)
    (store / "study.json").write_bytes(text.encode("latin-1"))
    with pytest.raises(ss.ParameterError) as info:
        ss.sweep(friction_mass, POINTS, OUTPUTS, **RUN, store=store)
    message = str(info.value)
    assert f"{store / 'study.json'}" in message and "is damaged" in message
    assert "Delete that file" in message
    (store / "study.json").unlink()                       # as told: the parts are reused
    again = ss.sweep(friction_mass, POINTS, OUTPUTS, **RUN, store=store)
    assert again.attrs["reused"] == 2
    assert json.loads((store / "study.json").read_text())["parameters"] == ["F"]


# --- fit ----------------------------------------------------------------------------------

def _data():
    return {"t": [0.0, 0.01, 0.02, 0.03], "p": [0.0, 0.0, 0.0, 0.0]}


def test_fit_refuses_a_step_outside_the_stability_region_as_simulate_does():
    stiff = friction_mass(F=0.4, K=1e6)            # RK4 stable for dt <= 2.8 ms
    with pytest.raises(ss.ParameterError, match=r"`fit\.dt`: dt=0\.005 s is too large .* "
                                                r"stable only for dt <= 0\.00279 s"):
        ss.fit(stiff, _data(), ["law.F"], dt=5e-3)
    with pytest.raises(ss.ParameterError, match="too large"):
        ss.fit(friction_mass, _data(), {"F": 0.4}, fixed={"K": 1e6}, dt=5e-3)
    with pytest.raises(ss.ParameterError, match=r"`fit\.check_step` must be True or False"):
        ss.fit(stiff, _data(), ["law.F"], dt=1e-3, check_step="no")


@pytest.mark.parametrize("case, fragment", [
    # fixed= with a system applies to nothing
    (lambda: ss.fit(friction_mass(), _data(), ["law.F"], dt=1e-4, fixed={"M": 2.0}),
     "`fit.fixed` ['M'] applies only to a builder fit"),
    # fixed= keywords the builder does not take, or also fitted
    (lambda: ss.fit(friction_mass, _data(), {"F": 0.4}, dt=1e-4, fixed={"amplitud": 1.0}),
     "Did you mean `amplitude` for `amplitud`?"),
    (lambda: ss.fit(friction_mass, _data(), {"F": 0.4}, dt=1e-4, fixed={"F": 0.5}),
     "['F'] are both fixed and fitted"),
    # initial= for a parameter that is not fitted, or given twice
    (lambda: ss.fit(friction_mass(), _data(), ["law.F"], dt=1e-4, initial={"law.K": 1e3}),
     "`fit.initial` names ['law.K'], which are not fitted parameters"),
    (lambda: ss.fit(friction_mass(), _data(), ["law.F"], dt=1e-4, initial={"law.f": 0.3}),
     "Did you mean `law.F` for `law.f`?"),
    (lambda: ss.fit(friction_mass, _data(), {"F": 0.4}, dt=1e-4, initial={"F": 0.3}),
     "which `params` already gives"),
    (lambda: ss.fit(friction_mass(), _data(), ["law.F"], dt=1e-4,
                    initial={"law.F": float("nan")}),
     "`fit.initial['law.F']` must be a finite number"),
    # weights= for a channel that is not fitted, or not a positive number
    (lambda: ss.fit(friction_mass(), _data(), ["law.F"], dt=1e-4, weights={"v": 2.0}),
     "`fit.weights` names ['v'], which are not fitted channels (['p'])"),
    (lambda: ss.fit(friction_mass(), _data(), ["law.F"], dt=1e-4, weights={"P": 2.0}),
     "Did you mean `p` for `P`?"),
    (lambda: ss.fit(friction_mass(), _data(), ["law.F"], dt=1e-4, weights={"p": float("nan")}),
     "`fit.weights['p']` must be a finite number"),
    (lambda: ss.fit(friction_mass(), _data(), ["law.F"], dt=1e-4, weights={"p": 0.0}),
     "`fit.weights['p']` must be > 0"),
    (lambda: ss.fit(friction_mass(), _data(), ["law.F"], dt=1e-4, weights={"p": -1.0}),
     "`fit.weights['p']` must be > 0"),
    (lambda: ss.fit(friction_mass(), _data(), ["law.F"], dt=1e-4, weights=[1.0]),
     "`fit.weights` must be a {name: value} mapping"),
])
def test_fit_refuses_entries_that_do_not_apply(case, fragment):
    with pytest.raises(ss.ParameterError) as info:
        case()
    assert fragment in str(info.value)



def test_estimates_outside_the_stable_step_are_reported_not_converged(monkeypatch):
    # a fit descends through stable runs, so an estimate past the step limit is rare: the
    # limit is made to shrink after the start values' check to reach that branch
    from stickslip.studies import _fit_problem

    limits = iter([ss.integrate.largest_stable_step(friction_mass(F=0.3), "rk4")])
    monkeypatch.setattr(_fit_problem, "largest_stable_step", lambda system, method:
                        next(limits, 1e-9))
    truth = ss.simulate(friction_mass(F=0.4), 0.2, dt=1e-4, dt_out=1e-3)
    with pytest.warns(UserWarning, match=r"not trusted \(converged=False\): `fit\.dt`: .* at "
                                         "the estimates"):
        result = ss.fit(friction_mass, truth, {"F": 0.3}, dt=1e-4, channels=["p"])
    assert not result.converged and "NOT converged" in repr(result)


@pytest.mark.parametrize("kind", ["sweep", "fit"])
def test_an_unwritable_out_in_a_spec_is_refused_before_the_study_runs(tmp_path, monkeypatch,
                                                                       kind):
    # `out:` under a path that is a file: nothing may run (the results would be lost at the
    # end); the error names `out`
    import textwrap

    from stickslip.studies import _fit, _spec, _sweep

    def must_not_run(*args, **kwargs):
        raise AssertionError("the study ran before its output was checked")

    monkeypatch.setattr(_sweep, "sweep", must_not_run)
    monkeypatch.setattr(_fit, "fit", must_not_run)
    (tmp_path / "taken").write_text("a file, not a directory")
    (tmp_path / "m.csv").write_text("t,p\n0,0\n0.1,0\n")
    body = {"sweep": """\
        model: friction_mass
        parameters: {F: [0.3, 0.9]}
        simulate: {t_end: 0.1, dt: 1e-4}
        outputs: [stick_fraction]
        out: taken/table.csv
        """, "fit": """\
        model: friction_mass
        data: m.csv
        channels: [p]
        parameters: {F: 0.3}
        simulate: {dt: 1.0e-4}
        plot: false
        out: taken/fit.json
        """}[kind]
    path = tmp_path / "spec.yaml"
    path.write_text(textwrap.dedent(body))
    with pytest.raises(ss.ParameterError, match="`out`"):
        _spec.run_spec(path, kind=kind, progress=False)
