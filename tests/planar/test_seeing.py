"""Plots, animation and the `stickslip examples` command line (smoke tests)."""

import matplotlib
import numpy as np
import pytest
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
    from PIL import Image, ImageChops

    with Image.open(path) as gif:                 # 1 s at 10 fps: 10 frames, and it moves
        assert gif.n_frames == 10
        first = gif.convert("RGB")
        gif.seek(gif.n_frames - 1)
        last = gif.convert("RGB")
    assert ImageChops.difference(first, last).getbbox() is not None
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


def test_join_segments_keeps_both_segments_once():
    from stickslip.planar.examples import join_segments

    first = ss.Results(np.array([0.0, 1.0, 2.0]), {"x": np.array([0.0, 1.0, 2.0])},
                       units={"x": "m"}, final_state=np.array([2.0]))
    second = ss.Results(np.array([2.0, 3.0, 4.0]), {"x": np.array([2.0, 3.0, 4.0]),
                                                    "extra": np.zeros(3)},
                        units={"x": "m"}, final_state=np.array([4.0]))
    joined = join_segments(first, second)
    np.testing.assert_array_equal(joined.t, [0.0, 1.0, 2.0, 3.0, 4.0])
    np.testing.assert_array_equal(joined["x"], [0.0, 1.0, 2.0, 3.0, 4.0])
    assert joined.units["x"] == "m" and joined.final_state[0] == 4.0


def test_ball_in_box_figure_draws_the_walls_and_every_impact():
    # issue 14: the figure had two identical panels and no walls
    from stickslip.planar import examples

    model, res, summary, trace, plot = examples._run_ball_in_box(None)
    fig = plot(model, res)
    box = fig.axes[0].lines[0]
    np.testing.assert_array_equal(box.get_xdata(), [0, 1, 1, 0, 0])
    np.testing.assert_array_equal(box.get_ydata(), [0, 0, 1, 1, 0])
    markers = [ln for ln in fig.axes[0].lines if ln.get_marker() == "o"]
    assert len(markers) == summary["impacts"] >= 4
    labels = [ln.get_label() for ln in fig.axes[1].lines]
    assert {"height y", "horizontal x"} <= set(labels)
    assert len(fig.axes[1].lines) == 2 + summary["impacts"]      # one tick per impact
    assert fig.axes[1].get_xlabel() == "t [s]"


@pytest.mark.slow
def test_sliding_block_example_writes_the_whole_run(tmp_path):
    # issue 14: `stickslip examples run sliding_block` wrote only t = 4–8 s
    import pandas as pd

    from stickslip.planar.examples import run_example

    run_example("sliding_block", tmp_path, animation=False)
    frame = pd.read_csv(tmp_path / "sliding_block.csv", comment="#")
    t = frame.iloc[:, 0].to_numpy()
    assert t[0] == 0.0 and abs(t[-1] - 8.0) < 1e-9 and len(t) == 801
