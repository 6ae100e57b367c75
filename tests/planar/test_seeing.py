"""Plots, animation and the `stickslip examples` command line (smoke tests)."""

import matplotlib
import numpy as np
from typer.testing import CliRunner

import stickslip as ss
from stickslip.cli import app

matplotlib.use("Agg")


def _driven_pendulum():
    m = ss.planar.Model()
    link = m.add_body("link", mass=1.0, inertia=1 / 12, x=0.5, points={"tip": (0.5, 0.0)})
    m.add(ss.planar.RevoluteJoint(m.ground, link, point_j=(-0.5, 0.0)))
    m.add(ss.planar.RotationalDriver(m.ground, link,
                                     angle=ss.planar.smooth_ramp(0.0, 1.0, 0.0, 1.0)))
    return m


def test_plots_and_gif_are_written(tmp_path):
    m = _driven_pendulum()
    res = m.kinematics(np.linspace(0.0, 1.0, 21))
    assert m.plot_trajectory(res).get_title().startswith("mechanism")
    assert len(m.plot_coupler_curve(res, "link", "tip").lines) == 1
    path = m.animate(res, tmp_path / "pendulum.gif", fps=10, trace=("link", "tip"))
    assert path.exists() and path.stat().st_size > 1000
    # the ramp's end: zero velocity (quintic smooth ramp)
    assert abs(res["link.phid"][-1]) < 1e-12 and abs(res["link.phi"][-1] - 1.0) < 1e-12


def test_examples_list_on_the_command_line():
    result = CliRunner().invoke(app, ["examples", "list"])
    assert result.exit_code == 0
    for name in ("four_bar", "slider_crank", "double_pendulum", "quick_return", "gear_slider",
                 "cam_follower"):
        assert name in result.output
    bad = CliRunner().invoke(app, ["examples", "run", "no_such_example"])
    assert bad.exit_code == 2
