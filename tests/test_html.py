"""Jupyter views (issue 24): `Results`, planar and spatial models and systems render a
compact, well-formed HTML summary (`stickslip._html`)."""

import re
from html.parser import HTMLParser

import numpy as np
import pytest
from models import sliding_block

import stickslip as ss
from stickslip._html import MAX_POINTS, downsample

LIMIT = 200_000          # bytes: a notebook cell's summary stays small
VOID = {"br", "img", "hr", "meta", "input", "link"}


class _Checker(HTMLParser):
    """Every tag closed in order (a strict reading; html.parser itself never raises)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.problems, self.text = [], [], []

    def handle_starttag(self, tag, attrs):
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.problems.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
        else:
            self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)


def parsed(markup: str) -> str:
    """The text of `markup` after checking that it is well formed and small."""
    assert isinstance(markup, str) and len(markup.encode()) < LIMIT, len(markup)
    checker = _Checker()
    checker.feed(markup)
    checker.close()
    assert not checker.problems and not checker.stack, (checker.problems, checker.stack)
    return " ".join(checker.text)


def polylines(markup: str) -> list[int]:
    """The number of points of each SVG polyline."""
    return [len(p.split()) for p in re.findall(r'<polyline[^>]* points="([^"]*)"', markup)]


@pytest.fixture(scope="module")
def res():
    return ss.simulate(sliding_block(), 0.5, dt=1e-4, dt_out=1e-4)      # 5001 samples


def test_results_html_names_channels_units_span_and_plots_a_few(res):
    markup = res._repr_html_()
    text = parsed(markup)
    for name in res.names:
        assert name in text
    assert "[m]" in text and "m/s" in text and " N " in f" {text} "
    assert "5001 samples" in text and "0.5 s" in text and "FrictionMass" in text
    lines = polylines(markup)
    assert 1 <= len(lines) <= 3 and max(lines) <= MAX_POINTS
    assert "<svg" in markup and "<script" not in markup


def test_results_html_hides_the_deprecated_alias(res):
    markup = res._repr_html_()
    listed = re.findall(r"<tr><td[^>]*>([^<]*)</td>", markup)      # the table's channel column
    assert listed == res.names and "proxy_offset" in listed and "a" not in listed


def test_batched_results_html_shows_the_members():
    batch = ss.simulate_batch([sliding_block(M=1.0), sliding_block(M=2.0),
                               sliding_block(M=3.0)], 0.1, dt=1e-4, dt_out=1e-2)
    text = parsed(batch._repr_html_())
    assert "3 members" in text and "member 0" in text


def test_results_html_of_a_big_run_stays_small():
    t = np.linspace(0.0, 100.0, 200_001)
    channels = {f"body{k}.x": np.sin(t + k) for k in range(150)}
    channels["body0.x"][123_456] = 50.0                      # a spike the plot must keep
    big = ss.Results(t, channels, units={n: "m" for n in channels})
    markup = big._repr_html_()
    text = parsed(markup)
    assert "… and 90 more" in text and "200001 samples" in text
    assert max(polylines(markup)) <= MAX_POINTS and "… 50" in text       # the spike kept


def test_results_html_of_edge_cases_is_well_formed():
    empty = ss.Results(np.array([]), {})
    one = ss.Results(np.array([0.0]), {"x<&>": np.array([np.nan])}, units={"x<&>": "m"})
    flat = ss.Results(np.array([0.0, 1.0]), {"c": np.array([2.0, 2.0])})
    assert "no samples" in parsed(empty._repr_html_())
    assert "x<&>" in parsed(one._repr_html_()) and "x<&>" not in one._repr_html_()
    assert polylines(flat._repr_html_()) == [2]


def test_downsample_keeps_extremes_in_time_order():
    t = np.arange(10_000.0)
    y = np.zeros_like(t)
    y[4321], y[777] = 9.0, -3.0
    ts, ys = downsample(t, y)
    assert len(ts) <= MAX_POINTS and np.all(np.diff(ts) > 0)
    assert ys.max() == 9.0 and ys.min() == -3.0


def test_system_html_shows_its_parameters_and_states():
    text = parsed(sliding_block()._repr_html_())
    assert "FrictionMass" in text and "law.K" in text and "CoulombODE" in text
    assert "p [m]" in text and "proxy_offset [m]" in text


def test_planar_model_html_shows_the_element_table():
    m = ss.planar.Model(gravity=(0, -9.81), name="crank<1>")
    crank = m.add_body("crank", mass=1.0, inertia=1e-3, x=0.05)
    m.add(ss.planar.RevoluteJoint(m.ground, crank, point_j=(-0.05, 0), name="pin"))
    m.add(ss.planar.RotationalDriver(m.ground, crank, angle=lambda t: 2.0 * t, name="motor"))
    text = parsed(m._repr_html_())
    for word in ("crank<1>", "crank", "pin", "RevoluteJoint", "motor", "RotationalDriver",
                 "1 body", "1 joint", "1 driver", "-9.81"):
        assert word in text, word


def test_spatial_model_html_shows_bodies_ground_and_elements():
    sp = ss.spatial
    model = sp.SpatialModel()
    model.add_body("a", mass=1.0, shape=sp.Box(0.1, 0.1, 0.1), position=(0, 0, 1))
    model.add_body("b", mass=2.0, shape=sp.Box(0.1, 0.1, 0.1), position=(0, 0, 2))
    model.add_ground(mu_s=0.5, mu_k=0.3)
    model.add(sp.RevoluteJoint("a", "b", point=(0, 0, 1.5), axis=(0, 1, 0), name="hinge"))
    model.add(sp.ContactPair("a", "b", mu=0.3))
    text = parsed(model._repr_html_())
    for word in ("SpatialModel", "ground", "mu_s=0.5", "hinge", "RevoluteJoint",
                 "ContactPair", "mu=0.3", "2 bodies", "m=2 kg"):
        assert word in text, word
