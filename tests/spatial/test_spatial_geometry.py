"""Contact volume, normal, contact polygon and Q, c (SPEC §7 steps 1–2)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import stickslip as ss
from stickslip.spatial._volume import (
    contact_geometry,
    intersect,
    normal_from_faces,
    skew,
)

rng = np.random.default_rng(7)


def world(shape, position=(0, 0, 0), R=np.eye(3)):
    v = np.asarray(position) + shape.vertices @ R.T
    normals = shape.normals @ R.T
    return [v[f] for f in shape.faces], (normals, shape.offsets + normals @ np.asarray(position))


def rotation(rng):
    q = rng.normal(size=4)
    q /= np.linalg.norm(q)
    from stickslip.spatial._model import quat_to_matrix
    return quat_to_matrix(q)


boxes = st.tuples(*[st.floats(0.05, 1.0)] * 3, *[st.floats(-0.3, 0.3)] * 3)


@settings(max_examples=40)
@given(a=boxes, b=boxes)
def test_box_overlap_volume_and_centroid_equal_closed_form(a, b):
    # closed form: the overlap of axis-aligned boxes is the box [max(lo), min(hi)]
    A, B = ss.spatial.Box(*a[:3]), ss.spatial.Box(*b[:3])
    ca, cb = np.array(a[3:]), np.array(b[3:])
    lo = np.maximum(ca - np.array(a[:3]) / 2, cb - np.array(b[:3]) / 2)
    hi = np.minimum(ca + np.array(a[:3]) / 2, cb + np.array(b[:3]) / 2)
    faces_a, _ = world(A, ca)
    _, planes_b = world(B, cb)
    vol = intersect(faces_a, planes_b, scale=2.0)
    if np.any(hi - lo <= 1e-9):
        assert vol is None or vol.volume < 1e-12
        return
    assert vol is not None
    assert vol.volume == pytest.approx(np.prod(hi - lo), rel=1e-9, abs=1e-15)
    np.testing.assert_allclose(vol.centroid, (lo + hi) / 2, atol=1e-9)


def inside(planes, pts):
    n, d = planes
    return np.all(pts @ n.T <= d + 1e-12, axis=1)


@pytest.mark.parametrize("seed", range(6))
def test_random_hull_overlap_volume_matches_monte_carlo(seed):
    rng = np.random.default_rng(seed)
    A = ss.spatial.ConvexHull(rng.normal(size=(12, 3)) * 0.3)
    B = ss.spatial.ConvexHull(rng.normal(size=(12, 3)) * 0.3)
    pa, pb = rng.normal(size=3) * 0.1, rng.normal(size=3) * 0.1
    Ra, Rb = rotation(rng), rotation(rng)
    faces_a, planes_a = world(A, pa, Ra)
    _, planes_b = world(B, pb, Rb)
    vol = intersect(faces_a, planes_b, scale=2.0)
    assert vol is not None
    va = np.concatenate(faces_a)
    lo, hi = va.min(axis=0), va.max(axis=0)
    n = 200_000
    pts = lo + (hi - lo) * rng.random((n, 3))
    hit = inside(planes_a, pts) & inside(planes_b, pts)
    box = np.prod(hi - lo)
    p = hit.mean()
    estimate, sigma = box * p, box * np.sqrt(p * (1 - p) / n)
    assert abs(vol.volume - estimate) < 4 * sigma + 1e-9     # within the estimate's error
    np.testing.assert_allclose(vol.centroid, pts[hit].mean(axis=0), atol=6 * (hi - lo).max() / np.sqrt(hit.sum()))


@pytest.mark.parametrize("seed", range(6))
def test_normal_flips_sign_when_bodies_swap(seed):
    rng = np.random.default_rng(100 + seed)
    A = ss.spatial.ConvexHull(rng.normal(size=(10, 3)) * 0.3)
    B = ss.spatial.ConvexHull(rng.normal(size=(10, 3)) * 0.3)
    pa, pb = rng.normal(size=3) * 0.15, rng.normal(size=3) * 0.15
    fa, pla = world(A, pa)
    fb, plb = world(B, pb)
    ab = intersect(fa, plb, 2.0)
    ba = intersect(fb, pla, 2.0)
    assert ab is not None and ba is not None
    assert ab.volume == pytest.approx(ba.volume, rel=1e-9)
    n_ab, n_ba = normal_from_faces(ab), normal_from_faces(ba)
    np.testing.assert_allclose(n_ab, -n_ba, atol=1e-9)
    assert np.linalg.norm(n_ab) == pytest.approx(1.0)


def test_box_on_ground_normal_points_from_ground_to_box():
    model = ss.spatial.Model()
    model.add_body("box", mass=1.0, shape=ss.spatial.Box(0.2, 0.1, 0.1), position=(0, 0, 0.049))
    model.add_ground(mu_s=0.5, mu_k=0.3)
    (k, g), = model.contact_geometries(model.initial_state())
    np.testing.assert_allclose(g.normal, [0, 0, 1], atol=1e-15)
    assert g.volume == pytest.approx(0.2 * 0.1 * 0.001, rel=1e-9)
    np.testing.assert_allclose(g.centroid, [0, 0, -0.0005], atol=1e-12)
    assert sorted(map(tuple, np.round(g.r, 12))) == [(-0.1, -0.05), (-0.1, 0.05), (0.1, -0.05),
                                                      (0.1, 0.05)]


def chord(faces, p, n):
    """Thickness of the convex polytope (face polygons) along n through p."""
    t_lo, t_hi = -np.inf, np.inf
    for f in faces:
        av = 0.5 * np.cross(f, np.roll(f, -1, axis=0)).sum(axis=0)
        nf = av / np.linalg.norm(av)
        df = nf @ f[0]
        a, b = p @ nf, n @ nf
        rhs = df - a
        if abs(b) < 1e-14:
            continue
        if b > 0:
            t_hi = np.minimum(t_hi, rhs / b)
        else:
            t_lo = np.maximum(t_lo, rhs / b)
    return np.maximum(t_hi - t_lo, 0.0)


def numeric_Q_c(g, faces, n_grid=500):
    e1, e2, n = g.e1, g.e2, g.normal
    r = g.r
    lo, hi = r.min(axis=0), r.max(axis=0)
    u = lo[0] + (np.arange(n_grid) + 0.5) * (hi[0] - lo[0]) / n_grid
    v = lo[1] + (np.arange(n_grid) + 0.5) * (hi[1] - lo[1]) / n_grid
    U, V = np.meshgrid(u, v, indexing="ij")
    uv = np.column_stack([U.ravel(), V.ravel()])
    edges = np.roll(r, -1, axis=0) - r
    cross = edges[:, 0][None] * (uv[:, 1][:, None] - r[:, 1][None]) - \
        edges[:, 1][None] * (uv[:, 0][:, None] - r[:, 0][None])
    uv = uv[np.all(cross >= 0, axis=1)]
    dA = (hi[0] - lo[0]) * (hi[1] - lo[1]) / n_grid ** 2
    rel = uv[:, :1] * e1 + uv[:, 1:] * e2
    p = g.centroid + rel
    h = chord(faces, p, n)
    Q = np.zeros((6, 6))
    c = np.zeros((3, 6))
    for rk, hk in zip(rel, h):
        J = np.hstack([np.eye(3), -skew(rk)])
        Q += J.T @ J
        c += hk * J
    return Q * dA, c * dA


@pytest.mark.parametrize("patch", ["projection", "section"])
@pytest.mark.parametrize("seed", range(2))
def test_Q_and_c_equal_numerical_integration_over_the_polygon(patch, seed):
    rng = np.random.default_rng(seed)
    # a tilted box into the ground: a wedge-shaped contact volume, where h varies
    model = ss.spatial.Model(patch=patch)
    q = np.array([1.0, *rng.normal(size=3) * 0.05])
    model.add_body("box", mass=1.0, shape=ss.spatial.Box(0.2, 0.1, 0.1),
                   position=(0, 0, 0.045), orientation=q / np.linalg.norm(q))
    model.add_ground(mu_s=0.5, mu_k=0.3)
    X = model.initial_state()
    from stickslip.spatial._model import quat_to_matrix
    R = quat_to_matrix(X[0, 3:7])
    fa, _ = world(model.bodies[0].shape, X[0, :3], R)
    vol = intersect(fa, (np.array([[0.0, 0, 1]]), np.array([0.0])), 1.0)
    vol.origin = 1 - vol.origin
    g = contact_geometry(vol, 1.0, patch=patch)
    Qn, cn = numeric_Q_c(g, vol.faces, n_grid=400)
    scaleQ = np.abs(g.Q).max()
    np.testing.assert_allclose(g.Q, Qn, atol=5e-3 * scaleQ)
    np.testing.assert_allclose(g.c, cn, atol=5e-3 * np.abs(g.c).max())
    # closed-form consequences: c's translational block is the integrated depth
    assert g.c[0, 0] == pytest.approx(g.c[2, 2])


def test_inertia_of_box_equals_closed_form():
    box = ss.spatial.Box(0.3, 0.2, 0.1)
    m = 2.0
    np.testing.assert_allclose(box.inertia(m), np.diag([m / 12 * (0.2**2 + 0.1**2),
                                                         m / 12 * (0.3**2 + 0.1**2),
                                                         m / 12 * (0.3**2 + 0.2**2)]), atol=1e-14)
    assert box.volume == pytest.approx(0.006)


def test_prism_and_hull_agree():
    hexagon = np.array([[np.cos(a), np.sin(a)] for a in np.linspace(0, 2 * np.pi, 7)[:-1]]) * 0.1
    prism = ss.spatial.Prism(hexagon, 0.05)
    hull = ss.spatial.ConvexHull(prism.vertices)
    assert prism.volume == pytest.approx(hull.volume, rel=1e-12)
    assert len(hull.faces) == 8


@pytest.mark.parametrize("seed", range(8))
def test_ground_fast_path_equals_general_clip(seed):
    from stickslip.spatial._model import quat_to_matrix
    from stickslip.spatial._volume import ground_contact_geometry

    rng = np.random.default_rng(seed)
    shape = ss.spatial.ConvexHull(rng.normal(size=(12, 3)) * 0.1) if seed % 2 else \
        ss.spatial.Box(0.2, 0.1, 0.05)
    q = rng.normal(size=4)
    R = quat_to_matrix(q / np.linalg.norm(q))
    v = np.array([0, 0, 0.02]) + shape.vertices @ R.T
    fast = ground_contact_geometry(shape, v, 0.0, 1.0)
    vol = intersect([v[f] for f in shape.faces], (np.array([[0.0, 0, 1]]), np.array([0.0])), 1.0)
    vol.origin = 1 - vol.origin
    ref = contact_geometry(vol, 1.0)
    assert fast.volume == pytest.approx(ref.volume, rel=1e-9)
    for name in ("normal", "centroid", "Q", "c", "Qn"):
        np.testing.assert_allclose(getattr(fast, name), getattr(ref, name), rtol=1e-9,
                                   atol=1e-12 * np.abs(getattr(ref, name)).max())
    assert len(fast.polygon) == len(ref.polygon)


def _world(shape, position, q):
    from stickslip.spatial._model import quat_to_matrix

    R = quat_to_matrix(np.asarray(q) / np.linalg.norm(q))
    nw = shape.normals @ R.T
    return np.asarray(position) + shape.vertices @ R.T, (nw, shape.offsets + nw @ position)


@pytest.mark.parametrize("seed", range(12))
def test_pair_fast_path_equals_general_clip(seed):
    # the compiled body-body path (faces of A clipped by B, faces of B clipped by A) against
    # the general clip (faces of A clipped plane by plane with caps), for random hulls and
    # for boxes stacked face on face (coplanar side faces: the case the face rule is for)
    from stickslip.spatial._volume import pair_contact_geometry

    rng = np.random.default_rng(seed)
    if seed < 8:
        sa = ss.spatial.ConvexHull(rng.normal(size=(10, 3)) * 0.1)
        sb = ss.spatial.ConvexHull(rng.normal(size=(14, 3)) * 0.1)
        pa, pb = np.zeros(3), rng.normal(size=3) * 0.05
        qa, qb = rng.normal(size=4), rng.normal(size=4)
    else:
        sa = sb = ss.spatial.Box(0.1, 0.1, 0.1)
        pa, pb = np.zeros(3), np.array([0.01 * (seed - 8), 0.0, 0.1 - 1e-4])
        qa = qb = np.array([1.0, 0, 0, 0])
    va, plane_a = _world(sa, pa, qa)
    vb, plane_b = _world(sb, pb, qb)
    fast = pair_contact_geometry(va, sa, plane_a, vb, sb, plane_b, 1.0)
    vol = intersect([va[f] for f in sa.faces], plane_b, 1.0)
    ref = contact_geometry(vol, 1.0) if vol is not None else None
    if ref is None:
        assert fast is None
        return
    assert fast.volume == pytest.approx(ref.volume, rel=1e-9)
    for name in ("normal", "centroid", "Q", "c", "Qn"):
        np.testing.assert_allclose(getattr(fast, name), getattr(ref, name), rtol=1e-8,
                                   atol=1e-10 * np.abs(getattr(ref, name)).max())
    assert len(fast.polygon) == len(ref.polygon)
