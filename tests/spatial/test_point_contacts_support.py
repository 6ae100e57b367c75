"""The Moreau–Jean step's support problem (stickslip.spatial._point_contacts_step, issue 20):
each body's `support` lowest points solved first (a box: 4 of its 8 corners), the whole
problem only where the other points would not meet the law with zero impulse. A 1 kg cube
of side 0.1 m on the ground, μ = 0.5, pushed at the centre of its bottom face: 3 N holds
(below μ m g = 4.905 N), 6 N slides at (6 − 4.905) m/s². The default support (4) is run by
test_point_contacts_moreau_jean.py and test_point_contacts_large_step.py against the same
closed forms."""

import numpy as np
import pytest

import stickslip as ss
from stickslip.errors import ParameterError

MU, MASS, G, SIDE = 0.5, 1.0, 9.81, 0.1
PUSHES = (3.0, 6.0)
BOTTOM = (1, 2, 3, 4)                                # the Box's vertex order: z = −a first


def _cube():
    model = ss.spatial.Model(gravity=(0.0, 0.0, -G))
    model.add_body("box", mass=MASS, inertia=None, shape=ss.spatial.Box(SIDE, SIDE, SIDE),
                   position=(0.0, 0.0, SIDE / 2))
    model.add_ground(mu_s=MU, mu_k=MU)
    return ss.spatial.PointContacts.from_model(model, force_point=(0.0, 0.0, -SIDE / 2))


@pytest.fixture(scope="module")
def two_corners():
    """The pushes with a support of 2: too few for a box (every step falls back)."""
    systems = [_cube().replace(support=(2,), force=np.array([[f, 0.0, 0.0]]))
               for f in PUSHES]
    return ss.simulate_batch(systems, 0.3, method="moreau_jean", dt=1e-2, dt_out=0.05)


def test_a_box_rests_on_one_face_of_four_corners():
    assert _cube().support == (4,)
    with pytest.raises(ParameterError, match="support"):
        _cube().replace(support=(0,))


def test_a_support_too_small_falls_back_to_every_point(two_corners):
    # two corners cannot carry the pushed box (the other two would end the step inside,
    # wₙ < 0): every step is solved on all eight, whose solve loads all four bottom ones
    res = two_corners
    for k in BOTTOM:
        assert np.all(res[f"box.fn.{k}"] > 0.5)                        # ≈ m g / 4 each
    fn = sum(res[f"box.fn.{k}"] for k in range(1, 9))
    np.testing.assert_allclose(fn, MASS * G, rtol=1e-9)
    # and moves the box as the closed forms say: held, and sliding at (F − μ m g)/m
    assert np.max(np.abs(res["box.x"][0])) < 1e-13
    a = (PUSHES[1] - MU * MASS * G) / MASS
    np.testing.assert_allclose(res["box.x"][1], 0.5 * a * res.t ** 2, rtol=1e-10,
                               atol=1e-14)
    assert np.max(np.abs(res["box.qz"])) < 1e-12


def _stacked_cubes(mode, push=0.0):
    m = ss.spatial.SpatialModel(gravity=(0, 0, -9.81))
    m.add_body("low", mass=2.0, shape=ss.spatial.Box(0.1, 0.1, 0.1), position=(0, 0, 0.05))
    m.add_body("top", mass=1.0, shape=ss.spatial.Box(0.1, 0.1, 0.1), position=(0, 0, 0.15))
    m.add_ground(mu_s=0.9, mu_k=0.9)
    m.add(ss.spatial.ContactPair("low", "top", mu=0.4, vertices_of=mode))
    if push:
        m.add(ss.spatial.PointForce("top", force=(push, 0.0, 0.0)))
    return m


def test_a_corner_on_a_box_rim_takes_the_face_toward_its_body():
    # the corner of a cube stacked on an identical cube, sunk 1e-12 m: as far from the side
    # face (0) as the top (-1e-12); the side face won and the gap read 0 along x
    from stickslip.spatial._link_kinematics import _vertex_box
    eye = np.eye(3)
    for centre, corner, normal in (
            ((0.0, 0.0, 0.1 - 1e-12), (0.05, 0.05, -0.05), (0, 0, 1)),     # stacked on it
            ((0.1 - 1e-12, 0.0, 0.0), (-0.05, 0.05, 0.05), (1, 0, 0))):    # beside it
        c = {"point": np.array(corner), "half_a": np.full(3, 0.05)}
        gap, basis, _, _ = _vertex_box(np.zeros(3), eye, np.array(centre), eye, c)
        assert float(gap) == pytest.approx(-1e-12, abs=1e-16)
        np.testing.assert_allclose(np.asarray(basis)[2], normal, atol=1e-12)


@pytest.mark.slow     # compiles a run of its own (~9 s)
@pytest.mark.parametrize("mode, method, dt, push", [
    ("b", "moreau_jean", 1e-2, 0.0), ("both", "rk4", 1e-3, 3.1)])
def test_a_cube_on_an_identical_cube_is_held_up_by_its_corners_on_the_rim(mode, method, dt,
                                                                          push):
    # every corner of the top cube is on the lower one's top rim, as far from a side face
    # as from the top: the side face won the tie once the corner sank by round-off, the gap
    # read 0 along a horizontal normal, and the top cube fell through the lower one (top.z
    # 0.150 -> 0.049 in 0.3 s) without a word (`_link_kinematics._vertex_box`). It rests,
    # and holds a push of 0.8 mu m g
    res = _stacked_cubes(mode, push).simulate(0.3, dt=dt, dt_out=1e-2, contact="point",
                                              method=method)
    assert np.abs(res["top.z"] - 0.15).max() < 1e-9
    assert abs(res["top.x"][-1]) < 1e-9 and abs(res["low.x"][-1]) < 1e-9
    fn = sum(res[name][-1] for name in res.names
             if name.startswith("low-top.") and name.endswith(".fn"))
    assert fn == pytest.approx(9.81, rel=1e-6)


def test_point_contacts_from_a_ground_with_two_levels_warn_that_they_take_one():
    # the ground's mu_s was dropped without a word: 4 N (between mu_k m g and mu_s m g) slid
    # here and held on model.simulate(contact="point")
    model = ss.spatial.SpatialModel(gravity=(0, 0, -9.81))
    model.add_body("box", mass=1.0, shape=ss.spatial.Box(0.1, 0.1, 0.1), position=(0, 0, 0.05))
    model.add_ground(mu_s=0.5, mu_k=0.3)
    with pytest.warns(UserWarning, match=r"mu_s=0\.5 above mu_k=0\.3.*one friction level"):
        pc = ss.spatial.PointContacts.from_model(model)
    assert float(pc.mu) == 0.3
    pc = ss.spatial.PointContacts.from_model(model, mu=0.5)      # chosen: no warning
    assert float(pc.mu) == 0.5
