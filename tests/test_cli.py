"""The command line: --version and the figures of SPEC §2, §3, §5."""

import json

from typer.testing import CliRunner

import stickslip as ss
from stickslip.cli import app

runner = CliRunner()


def test_version():
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and ss.__version__ in result.stdout


def test_figures_list_names_every_figure():
    result = runner.invoke(app, ["figures", "--list"])
    assert result.exit_code == 0
    for name in ("fig3_stiction", "fig5_restitution", "example1_plane", "example2_conveyor"):
        assert name in result.stdout


def test_unknown_figure_is_rejected():
    result = runner.invoke(app, ["figures", "--only", "fig99"])
    assert result.exit_code == 2


def test_core_figures_reproduce_the_papers_claims(tmp_path):
    names = ["fig3_stiction", "fig5_restitution", "example1_plane", "example2_conveyor"]
    args = ["figures", "--out", str(tmp_path)]
    for name in names:
        args += ["--only", name]
    result = runner.invoke(app, args)
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
