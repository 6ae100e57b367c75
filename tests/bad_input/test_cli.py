"""Bad command lines: each ends with one line on stderr that names the option or value, a
non-zero exit status and no traceback (issue 11 item 11: a bad ``--out`` gave 34 lines)."""

import sys

import pytest
from typer.testing import CliRunner

import stickslip as ss
from stickslip.cli import app
from stickslip.figures import FIGURES, FigureSpec


@pytest.fixture
def a_file(tmp_path):
    path = tmp_path / "results.txt"
    path.write_text("in the way")
    return str(path)


CASES = [  # (arguments; "{file}" is a plain file), a substring the one-line message names
    (["bogus"], "bogus"),
    (["--versio"], "--versio"),
    (["figures", "--bogus"], "--bogus"),
    (["figures", "--only", "fig99"], "fig99"),
    (["figures", "--only", "fig3_stiction,nope"], "nope"),
    (["figures", "--only", "fig3_stiction", "nope"], "nope"),
    (["figures", "nope"], "nope"),
    (["figures", "--only", ","], "--only"),
    (["figures", "--only"], "--only"),
    (["figures", "--out"], "--out"),
    (["figures", "-o"], "-o"),
    (["figures", "--out", "{file}"], "--out"),
    (["figures", "--out", "{file}/sub/dir"], "--out"),
    (["figures", "--out", "/proc/stickslip-cannot-write-here"], "--out"),
    (["figures", "--out", "/dev/null"], "--out"),
    (["examples", "nope"], "nope"),
    (["examples", "run"], "NAME"),
    (["examples", "run", "nope"], "nope"),
    (["examples", "run", "four_bar", "--out", "{file}"], "--out"),
    (["examples", "run", "four_bar", "--animation", "extra"], "extra"),
    (["examples", "list", "extra"], "extra"),
    (["sweep"], "SPEC_FILE"),
    (["fit"], "SPEC_FILE"),
    (["sweep", "--example", "nope"], "stick_slip_map"),
    (["fit", "--example", "nope"], "coulomb_fit"),
    (["sweep", "{file}.yaml"], "cannot read the spec file"),
]


def _assert_one_line_error(result, needle):
    assert result.exit_code not in (0, None), result.output
    assert "Traceback" not in result.output and result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("stickslip: error: ") and needle in lines[0], lines[0]


@pytest.mark.parametrize("args, needle", CASES, ids=[" ".join(a) for a, _ in CASES])
def test_bad_command_line_gives_one_line(args, needle, a_file):
    args = [arg.replace("{file}", a_file) for arg in args]
    _assert_one_line_error(CliRunner().invoke(app, args), needle)


@pytest.mark.parametrize("error, needle", [
    (ss.ParameterError("`CoulombODE.K` must be > 0; got K=-1.0. Use a positive stiffness."),
     "CoulombODE.K"),
    (ss.SimulationError("run diverged at t = 0.3 s; lower dt"), "t = 0.3 s"),
    (OSError(28, "No space left on device", "fig3_stiction.png"), "No space left on device"),
    (PermissionError(13, "Permission denied", "summary.json"), "summary.json"),
])
def test_error_during_a_run_gives_one_line(tmp_path, monkeypatch, error, needle):
    def make(spec, out_dir):
        raise error

    monkeypatch.setattr(FigureSpec, "make", make)
    result = CliRunner().invoke(app, ["figures", "fig3_stiction", "--out", str(tmp_path)])
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    assert result.stdout.endswith("[1/1] fig3_stiction: " + FIGURES[0].title + " ... failed\n")
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("stickslip: error: ") and needle in lines[0]


def _spec(tmp_path, text):
    path = tmp_path / "spec.yaml"
    path.write_text(text)
    return str(path)


def test_bad_spec_file_is_a_usage_error_with_the_common_prefix(tmp_path):
    # issue 24: spec errors were "error: …" while the rest of the CLI said "stickslip: error:"
    path = _spec(tmp_path, "model: friction_mass\nparameters: {F: [0.5]}\n"
                           "simulate: {t_end: 0.1, dt: 1.0e-4}\noutputs: [stick_fractio]\n")
    result = CliRunner().invoke(app, ["sweep", path])
    assert result.exit_code == 2
    _assert_one_line_error(result, f"{path}:4: `outputs.0`")


def test_sweep_whose_every_point_fails_exits_1_with_its_causes(tmp_path):
    # issue 24: every point failed, the command exited 0 and hid the causes in a table
    path = _spec(tmp_path, "model: friction_mass\nparameters: {F: [-0.2, -0.4, 0.5], "
                           "beta: [-1.0]}\nsimulate: {t_end: 0.01, dt: 1.0e-4}\n"
                           "outputs: [stick_fraction]\n")
    result = CliRunner().invoke(app, ["sweep", path, "--no-progress"])
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert lines[0].startswith("stickslip: error: all 3 points of the sweep failed")
    assert len(lines) == 3                                    # one line per distinct cause
    assert lines[1].startswith("  2 points: ") and "`CoulombODE.F` must be >= 0" in lines[1]
    assert lines[2].startswith("  1 point: ") and "`CoulombODE.beta` must be > 0" in lines[2]


def test_sweep_with_some_failed_points_still_exits_0(tmp_path):
    path = _spec(tmp_path, "model: friction_mass\nparameters: {F: [-0.2, 0.5]}\n"
                           "simulate: {t_end: 0.01, dt: 1.0e-4}\noutputs: [stick_fraction]\n")
    result = CliRunner().invoke(app, ["sweep", path, "--no-progress"])
    assert result.exit_code == 0 and "1 failed" in result.stdout


def test_missing_yaml_names_the_extra_not_a_bad_file(tmp_path, monkeypatch):
    # issue 24: without PyYAML the message was "not valid YAML: No module named 'yaml'"
    path = _spec(tmp_path, "model: friction_mass\n")
    monkeypatch.setitem(sys.modules, "yaml", None)             # `import yaml` fails
    result = CliRunner().invoke(app, ["sweep", path])
    assert result.exit_code == 1
    _assert_one_line_error(result, "pip install 'stickslip[studies]'")
    assert "not valid YAML" not in result.stderr and "PyYAML" in result.stderr
