"""Figures a person can read (issue 24, "what got in the way" item 8): every legend entry is
a line one can see, axes say what they show, no annotation covers the data, the sampled
grid is visible, titles name their source in words, animations have enough frames and
show the ground. Each check is cheap: no figure here runs a long simulation."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import matplotlib
import numpy as np
import pytest

import stickslip as ss

matplotlib.use("Agg")
import matplotlib.pyplot as plt

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def kept_figures(monkeypatch):
    """The figures a `make()` closes, kept open for the test."""
    kept, close = [], plt.close
    monkeypatch.setattr(plt, "close", lambda fig=None: kept.append(fig))
    yield kept
    for fig in kept:
        close(fig)


def _results(t, **channels):
    return ss.Results(np.asarray(t, dtype=float), {k.replace("_", "."): np.asarray(v, float)
                                                   for k, v in channels.items()})


def test_coinciding_curves_share_one_legend_entry():
    from stickslip.planar._contact_examples import _coinciding

    t = np.linspace(0, 1, 50)
    curves = [("a", np.sin(t)), ("b", np.sin(t)), ("c", np.sin(t) + 1e-3), ("d", np.cos(t))]
    groups = _coinciding(curves)
    assert [(label, index) for label, _, index in groups] == [("a = b ≈ c", 0), ("d", 3)]


def test_contact_figure_has_one_legend_entry_per_visible_line():
    # clearance slider: corners 1, 2 (upper wall) share a gap, 3, 4 (lower) too
    from stickslip.planar._contact_examples import _contacts_figure

    t = np.linspace(0, 0.2, 101)
    upper, lower = 1e-3 * (1 + np.sin(30 * t)), 1e-3 * (1 - np.sin(30 * t))
    push = np.maximum(0, np.sin(30 * t))
    res = _results(t, guide_gap_1=upper, guide_gap_2=upper, guide_gap_3=lower,
                   guide_gap_4=lower, guide_fn_1=push, guide_fn_2=1.001 * push,
                   guide_fn_3=0 * t, guide_fn_4=0 * t, guide_ft_1=0.01 * push,
                   guide_ft_2=-0.01 * push, guide_ft_3=0 * t, guide_ft_4=0 * t)
    fig = _contacts_figure(res, [f"guide.*.{k}" for k in range(1, 5)], "title",
                           caption="a caption", net_friction=True)
    try:
        for ax in fig.axes:
            labels = [text.get_text() for text in ax.get_legend().get_texts()]
            assert len(labels) == len(ax.lines), labels
        gap, force, friction = ([text.get_text() for text in ax.get_legend().get_texts()]
                                for ax in fig.axes)
        assert gap == ["guide.gap.1 = guide.gap.2", "guide.gap.3 = guide.gap.4"]
        assert force == ["guide.fn.1 ≈ guide.fn.2", "guide.fn.3 = guide.fn.4"]
        assert friction[-1].endswith("(net)") and len(friction) == 4
        assert any(text.get_text() == "a caption" for text in fig.texts)
        assert [ax.get_ylabel() for ax in fig.axes] == ["gap [m]", "normal force [N]",
                                                        "friction force [N]"]
    finally:
        plt.close(fig)


def test_box_trajectory_plot_has_a_title_and_a_y_label():
    from stickslip.planar._contact_examples import _SpatialView

    t = np.linspace(0, 0.2, 201)
    x = np.where(t > 0.09, 5 * (t - 0.09) ** 3, 0.0)
    fig, ax = plt.subplots()
    try:
        _SpatialView().plot_trajectory(_results(t, box_x=x, box_vx=np.gradient(x, t)), ax=ax)
        assert "pushed" in ax.get_title() and "[mm]" in ax.get_ylabel()
        assert ax.get_xlabel() == "t [s]"
        assert len(ax.get_legend().get_texts()) == len(ax.lines) == 2
    finally:
        plt.close(fig)


def _title_calls(path: Path):
    """The text of every title a plotting source sets: the string arguments of set_title,
    suptitle and of the contact-plot helpers (their title argument)."""
    import ast

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            name = getattr(node.func, "attr", getattr(node.func, "id", ""))
            if name in ("set_title", "suptitle", "_plot_contacts", "_contacts_figure"):
                yield " ".join(str(c.value) for arg in node.args for c in ast.walk(arg)
                               if isinstance(c, ast.Constant) and isinstance(c.value, str))


def test_figure_titles_name_their_source_in_words():
    # "SPEC §7" is the project's own section map; a title says what the source is
    sources = [*(ROOT / "src" / "stickslip" / "figures").glob("_*.py"),
               *(ROOT / "src" / "stickslip" / "planar").glob("_examples_*.py"),
               ROOT / "src" / "stickslip" / "planar" / "_contact_examples.py",
               *(ROOT / "src" / "stickslip" / "spatial").glob("_examples_*.py")]
    titles = [(path.name, text) for path in sources for text in _title_calls(path)]
    assert len(titles) > 20
    cited = [(name, text) for name, text in titles if "SPEC" in text]
    assert not cited, f"titles citing 'SPEC §': {cited}"


def test_da_stick_slip_labels_sit_above_the_panels(tmp_path, kept_figures):
    # the labels inside the axes hid the velocity peaks
    from stickslip.figures import _da_stick_slip

    _da_stick_slip.make(tmp_path)
    (fig,) = kept_figures
    panels = [ax for ax in fig.axes if ax.get_ylabel().endswith("v [mm/s]")]
    assert len(panels) == 3
    for ax in panels:
        assert not ax.texts, [t.get_text() for t in ax.texts]
        assert "stuck (grey)" in ax.get_title(loc="right")


def test_spatial_fig8_shows_the_whole_sampled_grid(tmp_path, kept_figures, monkeypatch):
    # only the static points were drawn, so the grid's extent could not be seen
    from stickslip import spatial
    from stickslip.figures import _spatial_fig8

    forces, torques = np.linspace(0, 6.0, 5), np.linspace(0, 0.4, 4)
    F, T = np.meshgrid(forces, torques, indexing="ij")
    previous = (F <= 4.9) & (T <= 0.35)
    maps = {"previous": previous, "pyramid": previous & (F / 4.9 + T / 0.35 <= 1.2)}
    monkeypatch.setattr(_spatial_fig8, "sweep", lambda: (forces, torques, maps))
    monkeypatch.setattr(spatial, "static_friction_holds",
                        lambda force, torque, *args, **kw: force[0] / 4.9 + torque / 0.35 <= 1)
    _spatial_fig8.make(tmp_path)
    (fig,) = kept_figures
    ax = fig.axes[0]
    drawn = sum(len(c.get_offsets()) for c in ax.collections[:2])  # sliding + previous-static
    assert drawn == F.size
    assert ax.get_xlim()[1] >= forces[-1] and ax.get_ylim()[1] >= torques[-1]
    assert ax.get_xlim()[0] < 0 and ax.get_ylim()[0] < 0       # the axes' points are visible
    assert "SPEC" not in ax.get_title() and "Wakisaka" in ax.get_title()


def test_animation_draws_contact_points_and_the_ground_they_touch():
    # the Painlevé rod was drawn as a dot, the clearance slider's guide not at all
    from stickslip.planar._contact_examples import clearance_slider_crank, painleve_rod
    from stickslip.planar._plotting import _outline_points

    rod = painleve_rod()
    points, _, lines = _outline_points(rod)
    np.testing.assert_allclose(points[id(rod.element("rod"))], [[0, 0], [-0.5, 0], [0.5, 0]])
    assert lines == [((0.0, 0.0), (1.0, 0.0))]
    slider = clearance_slider_crank()
    points, _, lines = _outline_points(slider)
    assert len(points[id(slider.element("slider"))]) == 1 + 1 + 4   # centre, pin C, corners
    assert sorted(abs(p[1]) for p, _ in lines) == [0.026, 0.026]     # both walls, once each


def test_short_run_gif_is_slowed_to_forty_frames(tmp_path, monkeypatch):
    # a 0.2 s run gave a 4-frame GIF at 20 fps
    from PIL import Image

    from stickslip.planar import examples

    def short_run(out):
        m = ss.planar.Model(name="pendulum")
        link = m.add_body("link", mass=1.0, inertia=1 / 12, x=0.5, points={"tip": (0.5, 0)})
        m.add(ss.planar.RevoluteJoint(m.ground, link, point_j=(-0.5, 0.0)))
        m.add(ss.planar.RotationalDriver(m.ground, link,
                                         angle=ss.planar.constant_speed(math.pi)))
        return m, m.kinematics(np.linspace(0.0, 0.2, 41)), {}, None, None

    monkeypatch.setitem(examples.EXAMPLES, "short", ("a 0.2 s run", short_run))
    examples.run_example("short", tmp_path)
    with Image.open(tmp_path / "short.gif") as gif:
        assert gif.n_frames >= 40 and gif.size[0] >= 500
        gif.seek(gif.n_frames - 1)


def _spatial_animate():
    spec = importlib.util.spec_from_file_location(
        "spatial_animate", ROOT / "examples" / "spatial" / "_animate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_spatial_animation_is_large_with_axes_and_ground(tmp_path):
    # the GIFs were 288 px, without axis labels or the ground
    from PIL import Image

    model = ss.spatial.Model(gravity=(0, 0, -9.81))
    model.add_body("box", mass=1.0, shape=ss.spatial.Box(0.2, 0.1, 0.1),
                   position=(0, 0, 0.05))
    model.add_ground(mu_s=0.5, mu_k=0.3)
    t = np.linspace(0, 0.3, 7)
    channels = {"box.x": 0.5 * t, "box.y": 0 * t, "box.z": 0.05 + 0 * t, "box.qw": 1 + 0 * t,
                "box.qx": 0 * t, "box.qy": 0 * t, "box.qz": 0 * t}
    res = ss.Results(t, channels)
    animate = _spatial_animate().animate
    page = animate(model, res, tmp_path / "slide.html", frames=3, title="slide")
    text = page.read_text()
    assert "<title>stickslip: slide</title>" in text and "<script" not in text
    gif = animate(model, res, tmp_path / "slide.gif", frames=3)
    with Image.open(gif) as image:
        assert image.size == (600, 500) and image.n_frames == 3
        frame = np.asarray(image.convert("RGB"), dtype=float)
    # the ground plane: a large light-grey area under the box
    grey = (np.abs(frame - frame.mean(axis=2, keepdims=True)).max(axis=2) < 4) & \
        (frame.mean(axis=2) > 150) & (frame.mean(axis=2) < 235)
    assert grey.mean() > 0.05
