"""Random convex bodies tumbling onto the ground and onto each other: the contact never
creates energy and the run never breaks down (SPEC §7; contacts are inelastic: eq. 4 drives
the relative normal velocity to the penetration compensation k h, friction dissipates)."""

import numpy as np
import pytest

import stickslip as ss
from stickslip.spatial._model import quat_to_matrix


def _hull(points):
    h = ss.spatial.ConvexHull(points)
    return ss.spatial.ConvexHull(h.vertices - h.centroid)      # centroid at the body origin


def _tumbling_pair(seed):
    rng = np.random.default_rng(seed)
    model = ss.spatial.Model(gravity=(0, 0, -9.81))
    model.add_body("a", mass=1.0, shape=_hull(rng.normal(size=(12, 3)) * 0.05),
                   position=(0, 0, 0.15), angular_velocity=tuple(rng.normal(size=3) * 5))
    model.add_body("b", mass=0.5, shape=_hull(rng.normal(size=(10, 3)) * 0.04),
                   position=(0.03, 0.0, 0.35), angular_velocity=tuple(rng.normal(size=3) * 5))
    model.add_ground(mu_s=0.5, mu_k=0.3)
    return model


def _energy(model, res):
    total = 0.0
    for b in model.bodies:
        v = np.stack([res[f"{b.name}.v{c}"] for c in "xyz"], axis=1)
        w = np.stack([res[f"{b.name}.w{c}"] for c in "xyz"], axis=1)
        R = quat_to_matrix(np.stack([res[f"{b.name}.q{c}"] for c in "wxyz"], axis=1))
        Iw = R @ b.inertia @ np.swapaxes(R, 1, 2)
        total = total + 0.5 * b.mass * (v ** 2).sum(axis=1) \
            + 0.5 * np.einsum("ti,tij,tj->t", w, Iw, w) - b.mass * (model.gravity @ np.stack(
                [res[f"{b.name}.{c}"] for c in "xyz"], axis=1).T)
    return total


# seeds 0, 1, 7 and 10 broke the earlier primal active-set QP (a sliver contact: NaN, or a
# body thrown 17 m into the air with 280 J gained)
@pytest.mark.parametrize("seed", [0, 1, 2, 7, pytest.param(10, marks=pytest.mark.slow),
                                  pytest.param(5, marks=pytest.mark.slow)])
def test_random_hulls_tumbling_never_gain_energy(seed):
    model = _tumbling_pair(seed)
    res = model.simulate(0.6, dt=1e-3)
    E = _energy(model, res)
    assert np.all(np.isfinite(E))
    assert np.max(E - E[0]) < 1e-9 * E[0]                       # never above the start
    assert res["a-b.active"].sum() > 0 and res["ground-a.active"].sum() > 0
    # contact forces never pull (to round-off: 1e-9 N against forces of 1–100 N)
    assert np.all(res["ground-a.fn"] >= -1e-9) and np.all(res["a-b.fn"] >= -1e-9)
