"""Bodies placed exactly in touch start in contact (`stickslip.spatial._model_touch`): which
bodies are lowered, and by how much. The runs that show why (a box or a stack that slid
under a sub-static push) are in test_spatial_friction.py and test_volume_links.py."""

from __future__ import annotations

import numpy as np
import pytest

import stickslip as ss
from stickslip.spatial._model_touch import TOUCH_DEPTH, placed_in_touch

CUBE = 0.1


def model(*placements, ground=True):
    """Cubes of side 0.1 m, each (name, position, keyword arguments of add_body)."""
    m = ss.spatial.SpatialModel(gravity=(0, 0, -9.81))
    for name, position, *kw in placements:
        m.add_body(name, mass=1.0, shape=ss.spatial.Box(CUBE, CUBE, CUBE), position=position,
                   **(kw[0] if kw else {}))
    if ground:
        m.add_ground(mu_s=0.5, mu_k=0.3)
    return m


def drops(m, **kw):
    X = m.initial_state()
    return X[:, 2] - placed_in_touch(m, X, **kw)[:, 2]


def test_a_stack_goes_down_together_each_level_touch_depth_into_the_one_under_it():
    # 0.05 + 0.1 + 0.1 is 0.25000000000000006: placed within round-off counts as placed on
    m = model(("c", (0, 0, 0.05 + 0.1 + 0.1)), ("a", (0, 0, 0.05)), ("b", (0.02, 0, 0.15)))
    np.testing.assert_allclose(drops(m), [3 * TOUCH_DEPTH, TOUCH_DEPTH, 2 * TOUCH_DEPTH],
                               rtol=1e-6)


def test_a_body_placed_slightly_into_its_support_goes_down_with_it():
    m = model(("a", (0, 0, 0.05)), ("b", (0, 0, 0.15 - 5e-10)), ("c", (0, 0, 0.25 - 2e-9)))
    d = drops(m)
    np.testing.assert_allclose(d[:2], [TOUCH_DEPTH, 1.5 * TOUCH_DEPTH], rtol=1e-6)
    # already 2e-9 into b: lowered with b only, so it stays 2e-9 in
    assert d[2] == pytest.approx(d[1], rel=1e-6)


@pytest.mark.parametrize("case, expected", [
    # placed higher than TOUCH_DEPTH: it falls, as it should
    ("above", 0.0),
    # moving toward the ground: it lands (an impact at t0 stays one)
    ("arriving", 0.0),
    # moving away: placed on it, it is in contact while it leaves
    ("leaving", TOUCH_DEPTH),
    # on an edge (turned 45 degrees about x): a sliver, and it does not rest
    ("edge", 0.0),
])
def test_only_a_body_resting_on_a_face_is_lowered(case, expected):
    half = CUBE / 2
    kw = {"above": dict(position=(0, 0, half + 2 * TOUCH_DEPTH)),
          "arriving": dict(position=(0, 0, half), velocity=(0, 0, -0.01)),
          "leaving": dict(position=(0, 0, half), velocity=(0.2, 0, 0.01)),
          "edge": dict(position=(0, 0, half * np.sqrt(2)),
                       orientation=(np.cos(np.pi / 8), np.sin(np.pi / 8), 0, 0))}[case]
    m = model(("box", kw.pop("position"), kw))
    assert drops(m)[0] == pytest.approx(expected, rel=1e-6, abs=1e-18)


def test_side_by_side_and_overhanging_bodies_rest_on_the_ground_only():
    # b beside a, its bottom at a's top height but not over it: b falls onto the ground
    # side by side: both on the ground, touching faces do not lower either
    m = model(("a", (0, 0, 0.05)), ("b", (0.1, 0, 0.05)),
              ("c", (0.5, 0, 0.15)), ("d", (0.5 + CUBE, 0, 0.05)))
    np.testing.assert_allclose(drops(m), [TOUCH_DEPTH, TOUCH_DEPTH, 0.0, TOUCH_DEPTH],
                               rtol=1e-6)


def test_a_body_falling_onto_another_lands_and_only_movable_ground_bodies_are_lowered():
    m = model(("a", (0, 0, 0.05)), ("b", (0, 0, 0.15), dict(velocity=(0, 0, -0.1))))
    np.testing.assert_allclose(drops(m), [TOUCH_DEPTH, 0.0], rtol=1e-6)
    m = model(("a", (0, 0, 0.05)), ("b", (0, 0, 0.15)))
    np.testing.assert_allclose(drops(m, bodies=False), [TOUCH_DEPTH, 0.0], rtol=1e-6)
    np.testing.assert_allclose(drops(m, movable=np.array([False, True])), [0.0, TOUCH_DEPTH],
                               rtol=1e-6)
    assert np.all(drops(model(("a", (0, 0, 0.05)), ground=False)) == 0.0)


def _box_on_a_wedge():
    """A 10 kg wedge (0.5 m long, 0.2 m high: a 21.8° slope) on the ground, a 0.1 m cube
    placed exactly on its slope, turned with it (μ_s = 0.5 > tan 21.8° = 0.4)."""
    L, H, W = 0.5, 0.2, 0.3
    points = np.array([(0, 0, 0), (L, 0, 0), (0, W, 0), (L, W, 0), (0, 0, H), (0, W, H)], float)
    centre = ss.spatial.ConvexHull(points).centroid
    m = ss.spatial.SpatialModel(gravity=(0, 0, -9.81))
    m.add_body("wedge", mass=10.0, shape=ss.spatial.ConvexHull(points - centre),
               position=tuple(centre))
    slope = np.arctan2(H, L)
    normal = np.array([np.sin(slope), 0.0, np.cos(slope)])
    m.add_body("box", mass=1.0, shape=ss.spatial.Box(CUBE, CUBE, CUBE),
               position=tuple(np.array([L / 2, W / 2, H / 2]) + CUBE / 2 * normal),
               orientation=(np.cos(slope / 2), 0.0, np.sin(slope / 2), 0.0))
    m.add_ground(mu_s=0.5, mu_k=0.3)
    return m, normal


def test_a_box_placed_on_a_slope_moves_into_it_along_its_normal():
    m, normal = _box_on_a_wedge()
    X = m.initial_state()
    moved = placed_in_touch(m, X)[:, :3] - X[:, :3]
    np.testing.assert_allclose(moved[0], (0, 0, -TOUCH_DEPTH), rtol=1e-6)
    # the wedge's own move, then TOUCH_DEPTH into the slope
    np.testing.assert_allclose(moved[1], moved[0] - TOUCH_DEPTH * normal, rtol=1e-6)


def test_a_box_placed_on_a_slope_does_not_slide_down_it():
    # at zero depth it landed on the slope with an impact and slid 0.11 m down it in 0.5 s
    # (tan 21.8° = 0.4 < μ_s = 0.5)
    m, _ = _box_on_a_wedge()
    res = m.simulate(0.5, dt=1e-3, dt_out=1e-2)
    assert abs(res["box.x"][-1] - res["box.x"][0]) < 1e-5
    assert res["wedge-box.stick"][1:].min() == 1.0
