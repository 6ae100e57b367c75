"""Spec files: a valid one runs; each bad one fails with FILE:LINE and the key."""

import json
import textwrap

import numpy as np
import pytest
from typer.testing import CliRunner

import stickslip as ss
from stickslip.cli import app
from stickslip.studies import SpecError, friction_mass, load_spec

GOOD = """\
model: friction_mass
fixed: {K: 1.0e4}
parameters:
  F: {low: 0.3, high: 0.9, num: 2}
  amplitude: [0.6]
simulate: {t_end: 0.5, dt: 1e-4, dt_out: 1.0e-3}
outputs: [stick_fraction, "max_abs(p)"]
out: table.csv
"""


def _write(tmp_path, text, name="spec.yaml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def test_good_sweep_spec_runs_from_the_command_line(tmp_path):
    path = _write(tmp_path, GOOD)
    result = CliRunner().invoke(app, ["sweep", str(path), "--no-progress"])
    assert result.exit_code == 0, result.output
    import pandas as pd

    table = pd.read_csv(tmp_path / "table.csv")
    assert list(table["F"]) == [0.3, 0.9]
    assert table["stick_fraction"].iloc[1] == 1.0          # F = 0.9 N > 0.6 N: stuck


def test_toml_spec_gives_the_same_design(tmp_path):
    path = _write(tmp_path, """\
        model = "friction_mass"
        outputs = ["max_abs(p)"]
        design = "latin_hypercube"
        samples = 4
        seed = 7
        [parameters]
        F = {low = 0.2, high = 0.8}
        [simulate]
        t_end = 0.5
        dt = 1e-4
        """, "spec.toml")
    spec = load_spec(path)
    assert spec["design"].shape == (4, 1)
    np.testing.assert_array_equal(spec["design"]["F"],
                                  ss.studies.latin_hypercube(4, seed=7, F=(0.2, 0.8))["F"])


BAD = [
    ("model: friction_mas\n" + GOOD.split("\n", 1)[1], 1, "model", "friction_mass"),
    (GOOD.replace("  amplitude: [0.6]", "  amplitud: [0.6]"), 5, "parameters.amplitud",
     "not a parameter.*Did you mean `amplitude`"),
    (GOOD.replace("fixed: {K: 1.0e4}", "fixed: {k: 1.0e4}"), 2, "fixed.k",
     "not a parameter.*Did you mean `K`"),
    (GOOD.replace("num: 2", "num: two"), 4, "parameters.F.num", "must be a number"),
    (GOOD.replace("dt: 1e-4", "dt: -1e-4"), 6, "simulate.dt", "positive"),
    (GOOD.replace('"max_abs(p)"', '"maximum(p)"'), 7, "outputs.1", "unknown analysis"),
    (GOOD.replace("out: table.csv", "outt: table.csv"), 8, "outt", "Did you mean `out`"),
    (GOOD.replace("simulate: {t_end: 0.5, ", "simulate: {"), 6, "simulate.t_end", "missing"),
    (GOOD.replace("F: {low: 0.3", "F: {low: 1.3"), 4, "parameters.F", "high < low"),
    (GOOD.replace("parameters:", "parameters: [\n"), 6, "", "not valid YAML"),  # parser line
]


@pytest.mark.parametrize("text, line, key, message", BAD)
def test_bad_spec_error_names_file_line_and_key(tmp_path, text, line, key, message):
    path = _write(tmp_path, text)
    with pytest.raises(SpecError, match=message) as info:
        load_spec(path)
    err = info.value
    assert str(err).startswith(f"{path}:{line}:"), str(err)
    assert err.line == line and (not key or err.key == key)


def test_bad_spec_on_the_command_line_exits_2_with_the_location(tmp_path):
    path = _write(tmp_path, GOOD.replace("num: 2", "num: two"))
    result = CliRunner().invoke(app, ["sweep", str(path)])
    assert result.exit_code == 2
    assert f"{path}:4: `parameters.F.num` must be a number" in result.output


def test_fit_spec_recovers_F_and_writes_json(tmp_path):
    res = ss.simulate(friction_mass(F=0.4), 1.0, dt=1e-4, dt_out=1e-2)
    import pandas as pd

    pd.DataFrame({"t": res.t, "p": res["p"]}).to_csv(tmp_path / "measured.csv", index=False)
    path = _write(tmp_path, """\
        model: friction_mass
        data: measured.csv
        channels: [p]
        parameters: {F: 0.3}
        simulate: {dt: 1.0e-4}
        plot: false
        out: fit.json
        """)
    result = CliRunner().invoke(app, ["fit", str(path)])
    assert result.exit_code == 0, result.output
    written = json.loads((tmp_path / "fit.json").read_text())
    assert written["estimates"]["F"] == pytest.approx(0.4, rel=1e-6)


def test_fit_spec_with_unknown_channel_is_located(tmp_path):
    (tmp_path / "m.csv").write_text("t,p\n0,0\n0.1,0\n")
    path = _write(tmp_path, """\
        model: friction_mass
        data: m.csv
        channels: [p, x]
        parameters: {F: 0.3}
        simulate: {dt: 1.0e-4}
        """)
    with pytest.raises(SpecError, match=r"m.csv \(\['p', 't'\]\)") as info:
        load_spec(path, kind="fit")
    assert info.value.line == 3 and info.value.key == "channels.1"
