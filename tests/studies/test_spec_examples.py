"""Ready-made spec files (issue 24 item 1): `stickslip sweep|fit --example NAME` writes a spec
(and a fit's measured data) that runs as written, and a fit recovers its documented truth."""

import json
import re
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from stickslip.cli import app
from stickslip.studies import SPEC_EXAMPLES, load_spec, write_example
from stickslip.studies._spec_read import DOCS_PAGE

ROOT = Path(__file__).resolve().parents[2]
PACKAGED = ROOT / "src" / "stickslip" / "studies" / "specs"
SWEEPS = [n for n, ex in SPEC_EXAMPLES.items() if ex.kind == "sweep"]
FITS = [n for n, ex in SPEC_EXAMPLES.items() if ex.kind == "fit"]


@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)           # --example writes into the current directory
    return tmp_path


def test_repository_examples_are_the_packaged_specs():
    # two copies: the package's (what pip users get) and examples/studies/ (what a reader of
    # the repository sees); they must not drift apart
    shipped = {p.name: p.read_text() for p in PACKAGED.glob("*.yaml")}
    in_repo = {p.name: p.read_text() for p in (ROOT / "examples" / "studies").glob("*.yaml")}
    assert shipped == in_repo
    assert sorted(shipped) == sorted(f"{name}.yaml" for name in SPEC_EXAMPLES)


@pytest.mark.parametrize("name", list(SPEC_EXAMPLES))
def test_example_spec_is_valid_and_its_data_match_the_documented_truth(name, tmp_path):
    example = SPEC_EXAMPLES[name]
    written = write_example(name, tmp_path)
    assert [p.name for p in written] == example.files(name)
    spec = load_spec(written[0], kind=example.kind)
    text = written[0].read_text()
    assert DOCS_PAGE in text and f"stickslip {example.kind} {name}.yaml" in text
    if example.measurement is None:
        return
    m = example.measurement                      # the spec fits the data the truth made
    assert spec["build"].__name__ == m.model and spec["simulate"]["dt"] == m.dt
    assert spec["fixed"] == m.fixed and spec["channels"] == list(m.channels)
    assert sorted(spec["params"]) == sorted(m.truth)
    assert spec["data"]["t"][-1] == pytest.approx(m.t_end)
    for key, value in m.truth.items():           # the truth is written in the header
        written_value = re.search(rf"\b{key} = ([0-9.e+-]+)", text)
        assert written_value and float(written_value.group(1)) == value, key


@pytest.mark.parametrize("name", [pytest.param(n, marks=[pytest.mark.slow] * (n != FITS[0]))
                                  for n in FITS])
def test_fit_example_recovers_its_true_values(name, here):
    runner = CliRunner()
    made = runner.invoke(app, ["fit", "--example", name])
    assert made.exit_code == 0, made.output
    assert f"stickslip fit {name}.yaml" in made.stdout
    result = runner.invoke(app, ["fit", f"{name}.yaml"])
    assert result.exit_code == 0, result.output
    fitted = json.loads((here / f"{name}.json").read_text())
    assert fitted["converged"]
    for key, value in SPEC_EXAMPLES[name].measurement.truth.items():
        low, high = fitted["intervals"][key]
        assert low <= value <= high, (key, value, low, high)


def test_sweep_examples_run_and_show_where_the_block_sticks(here):
    runner = CliRunner()
    for name in SWEEPS:
        assert runner.invoke(app, ["sweep", "--example", name]).exit_code == 0
        result = runner.invoke(app, ["sweep", f"{name}.yaml", "--no-progress"])
        assert result.exit_code == 0, result.output
    table = pd.read_csv(here / "stick_slip_map.csv")
    assert table["error"].isna().all()
    below = table["amplitude"] < table["F"] - 1e-9         # SPEC §2: a push below F never
    assert (table.loc[below, "stick_fraction"] == 1.0).all()   # breaks the block loose
    assert (table.loc[table["amplitude"] > table["F"] + 0.1, "stick_fraction"] < 1.0).all()
    lugre = pd.read_csv(here / "lugre_breakaway.csv")      # breakaway at mu_s*N = 2.94 N
    assert list(lugre["amplitude"][lugre["stick_fraction"] < 1.0]) == [3.0, 3.5, 4.0, 4.5, 5.0]


@pytest.mark.parametrize("kind, names", [("sweep", SWEEPS), ("fit", FITS)])
def test_example_without_a_name_lists_them(kind, names, here):
    result = CliRunner().invoke(app, [kind, "--example"])
    assert result.exit_code == 0, result.output
    assert all(name in result.stdout for name in names)
    assert not list(here.iterdir())                     # listing writes nothing


def test_unknown_or_other_kind_example_is_refused_naming_the_known_ones(here):
    for args in (["sweep", "--example", "stick_slip_mapp"], ["sweep", "--example", FITS[0]]):
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 2, result.output
        assert result.stderr.startswith("stickslip: error: ") and SWEEPS[0] in result.stderr
    assert not list(here.iterdir())


def test_example_does_not_overwrite_an_edited_spec(here):
    (here / "stick_slip_map.yaml").write_text("# my edits\n")
    result = CliRunner().invoke(app, ["sweep", "--example", "stick_slip_map"])
    assert result.exit_code == 2 and "already" in result.stderr
    assert (here / "stick_slip_map.yaml").read_text() == "# my edits\n"
