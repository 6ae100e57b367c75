"""The command line: --version, -h, the figures of SPEC §2, §3, §5, progress and start-up cost."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import stickslip as ss
from stickslip.cli import app
from stickslip.figures import FIGURE_NAMES, FigureSpec

runner = CliRunner()
SRC = str(Path(ss.__file__).resolve().parents[1])


def test_version():
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and ss.__version__ in result.stdout


@pytest.mark.parametrize("command", [[], ["figures"], ["examples"], ["examples", "run"],
                                     ["examples", "list"]])
def test_short_help_is_the_long_help(command):
    short, long = runner.invoke(app, [*command, "-h"]), runner.invoke(app, [*command, "--help"])
    assert short.exit_code == long.exit_code == 0
    assert short.stdout == long.stdout and "Usage:" in short.stdout


def test_flags_show_as_flags_in_the_help():
    for command in ([], ["figures"], ["examples", "run"]):
        text = runner.invoke(app, [*command, "--help"]).stdout
        assert "<bool>" not in text
    text = runner.invoke(app, ["figures", "--help"]).stdout
    assert "--list " in text and "--only a,b" in text and "--only a b" in text


def test_figures_list_names_every_figure():
    result = runner.invoke(app, ["figures", "--list"])
    assert result.exit_code == 0
    for name in ("fig3_stiction", "fig5_restitution", "example1_plane", "example2_conveyor"):
        assert name in result.stdout


def test_unknown_figure_is_rejected():
    result = runner.invoke(app, ["figures", "--only", "fig99"])
    assert result.exit_code == 2


@pytest.fixture
def fake_figures(monkeypatch):
    """Figures that write nothing and return at once, to test the command line alone."""
    made = []

    def make(spec, out_dir):
        made.append(spec.name)
        return {"made": True}

    monkeypatch.setattr(FigureSpec, "make", make)
    return made


@pytest.mark.parametrize("args", [
    ["--only", "brush_tire,fig3_stiction"],
    ["--only", "brush_tire", "fig3_stiction"],
    ["--only", "brush_tire", "--only", "fig3_stiction"],
    ["brush_tire", "fig3_stiction"],
    ["--only", "brush_tire, fig3_stiction"],
])
def test_every_form_of_only_selects_the_same_figures(tmp_path, fake_figures, args):
    result = runner.invoke(app, ["figures", "--out", str(tmp_path), *args])
    assert result.exit_code == 0, result.output
    assert sorted(fake_figures) == ["brush_tire", "fig3_stiction"]
    assert sorted(json.loads((tmp_path / "summary.json").read_text())) == sorted(fake_figures)


def test_progress_lines_when_the_output_is_not_a_terminal(tmp_path, fake_figures):
    # CliRunner's stdout is not a TTY, like `stickslip figures | tee log`
    result = runner.invoke(app, ["figures", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    n = len(FIGURE_NAMES)
    for i, name in enumerate(FIGURE_NAMES, 1):
        assert f"[{i}/{n}] {name}" in result.stdout
    assert result.stdout.count(" s\n") >= n                           # each line ends with its time


def test_out_directory_is_created_with_parents(tmp_path, fake_figures):
    out = tmp_path / "a" / "b"
    result = runner.invoke(app, ["figures", "brush_tire", "-o", str(out)])
    assert result.exit_code == 0 and (out / "summary.json").exists()


def _start_up(args):
    """Run the CLI in a fresh process; return the heavy modules it imported."""
    code = ("import sys\n"
            "from stickslip.cli import main\n"
            f"sys.argv = ['stickslip', *{args!r}]\n"
            "try:\n    main()\nexcept SystemExit as e:\n    assert e.code in (0, None), e.code\n"
            "heavy = ('jax', 'numpy', 'numba', 'matplotlib', 'scipy', 'sympy', 'pandas')\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy))\n")
    env = {**os.environ, "PYTHONPATH": SRC}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, timeout=120, check=True).stdout
    return out.strip().splitlines()[-1]


@pytest.mark.parametrize("args", [["--version"], ["--help"], ["figures", "-h"],
                                  ["figures", "--list"]])
def test_version_help_and_list_import_no_numerics(args):
    # the cost of `stickslip --version` was `import jax` (~2-3 s); timings are measured in
    # the report, this checks the cause
    assert _start_up(args) == "[]"


def test_core_figures_reproduce_the_papers_claims(tmp_path):
    names = ["fig3_stiction", "fig5_restitution", "example1_plane", "example2_conveyor"]
    result = runner.invoke(app, ["figures", "--out", str(tmp_path), "--only", ",".join(names)])
    assert result.exit_code == 0, result.output
    for name in names:
        assert (tmp_path / f"{name}.png").stat().st_size > 10_000
        assert (tmp_path / f"{name}.csv").stat().st_size > 1_000
    summary = json.loads((tmp_path / "summary.json").read_text())
    drift = summary["fig3_stiction"]["range_in_stuck_phase_m"]
    bound = summary["fig3_stiction"]["CoulombODE_bound_F_over_K_m"]
    assert drift["CoulombODE (eq. 10)"] <= bound < drift["LuGre"] < drift["tanh Coulomb"]
    restitution = list(summary["fig5_restitution"]["restitution"].values())
    assert all(a > b for a, b in zip(restitution, restitution[1:]))
    assert min(summary["fig5_restitution"]["min_contact_force_N"].values()) >= 0
    plane = summary["example1_plane"]
    assert plane["push_friction_over_cone_max"] < 1 and plane["push_max_displacement_m"] < 5e-4
    assert max(summary["example2_conveyor"]["max_friction_over_mu_normal"].values()) <= 1 + 1e-9


@pytest.mark.parametrize("command", [[], ["examples"]])
def test_a_bare_group_prints_its_help_and_exits_0(command):
    # issue 24: `stickslip examples` exited 2 with the whole help on one "error:" line
    result = runner.invoke(app, command)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("Usage: ") and "Commands:" in result.stdout
    assert result.stderr == ""


@pytest.mark.parametrize("command", ["sweep", "fit"])
def test_study_help_describes_the_spec_and_names_the_docs_page_by_title(command):
    title = (Path(SRC).parent / "docs" / "studies.md").read_text().splitlines()[0]
    text = " ".join(runner.invoke(app, [command, "--help"]).stdout.split())
    assert title.startswith("# ") and f"'{title[2:]}'" in text
    assert "YAML or TOML" in text and "--example" in text
    assert "docs/studies.md" not in text and "SPEC (" not in text


def _fake_example(name, out, **options):
    """Stands in for an example run: writes three files (no GIF) and returns key numbers."""
    for file in ("box.csv", "box_trajectory.png", "box_contacts.png"):
        (Path(out) / file).write_text("x")
    return {"example": name, "x_m": 0.1}


@pytest.mark.parametrize("name, module", [("box_on_ground", "stickslip.planar.examples"),
                                          ("gripper", "stickslip.spatial.examples")])
def test_example_run_lists_exactly_the_files_it_wrote(tmp_path, monkeypatch, name, module):
    # issue 24: box_on_ground listed a GIF it never writes and left out box_contacts.png
    import importlib

    monkeypatch.setattr(importlib.import_module(module), "run_example", _fake_example)
    (tmp_path / "notes.txt").write_text("the user's, untouched")
    result = runner.invoke(app, ["examples", "run", name, "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    last = result.stdout.strip().splitlines()[-1]
    assert last == f"wrote box.csv, box_contacts.png and box_trajectory.png to {tmp_path}"
    assert "x_m: 0.1" in result.stdout


@pytest.mark.slow
def test_box_on_ground_lists_its_real_files(tmp_path):
    result = runner.invoke(app, ["examples", "run", "box_on_ground", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    listed = result.stdout.strip().splitlines()[-1]
    assert ".gif" not in listed and "box_contacts.png" in listed
    for path in tmp_path.iterdir():
        assert path.name in listed


@pytest.mark.parametrize("cache, compiles", [("empty", True), ("used", False), (None, True)])
def test_compile_notice_only_when_the_run_surely_compiles(tmp_path, monkeypatch, cache,
                                                          compiles):
    # issue 24: "the first run of a session compiles, ~20 s" was printed on every run;
    # it is certain only when JAX's compile cache is off or still empty
    import stickslip._compile_cache as compile_cache

    directory = tmp_path / "cache"
    directory.mkdir()
    if cache == "used":
        (directory / "stickslip-programs").mkdir()
    monkeypatch.setattr(compile_cache, "compile_cache_dir",
                        lambda: None if cache is None else directory)
    monkeypatch.setattr("stickslip.planar.examples.run_example", _fake_example)
    result = runner.invoke(app, ["examples", "run", "four_bar", "--out", str(tmp_path / "o")])
    assert result.exit_code == 0, result.output
    first = result.stdout.splitlines()[0]
    assert first.startswith("running four_bar") and ("compil" in first) is compiles, first
