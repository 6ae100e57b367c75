"""The pure-JAX volume contact (`stickslip.spatial._volume_jax`, SPEC §7) against the numba
host loop of `SpatialModel` (an independent implementation of the same arithmetic: the
reference of every value here), plus jit = eager and vmap = loop.

Reference values: `SpatialModel.contact_wrenches` / `SpatialModel.simulate` (numba) on the
Table 1 box of `stickslip.figures._spatial_fig8` (1 kg, 0.1 m cube, μ_s = 0.5, μ_d = 0.3,
k = 1000, λ = 1e-3, P = 8, Δt = 1 ms, Runge–Kutta–Gill)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from stickslip.figures._spatial_fig8 import box_model
from stickslip.integrate import FIXED_STEP_METHODS, step_grid
from stickslip.spatial import Box
from stickslip.spatial._model import quat_to_matrix
from stickslip.spatial._volume import ground_contact_geometry
from stickslip.spatial._volume_jax import BodyLoad, VolumeContactSystem, run_volume
from stickslip.spatial._volume_jax_geometry import ground_contact, ground_tables

DT = 1e-3
ARM = np.array([0.0, 0.0, -0.05])          # the centre of the bottom face (body frame)


def _quat(axis, angle):
    axis = np.asarray(axis, float) / np.linalg.norm(axis)
    return np.concatenate([[np.cos(angle / 2)], np.sin(angle / 2) * axis])


def _bottom_load(fx, tz):
    """Force (fx, 0, 0) at the centre of the bottom face and torque tz about z: as wrenches
    about the centre of mass (F, T) for the current orientation."""
    F = np.array([fx, 0.0, 0.0])
    return F, np.array([0.0, 0.0, tz]) + np.cross(ARM, F)


@pytest.fixture(scope="module")
def model():
    return box_model()


@pytest.fixture(scope="module")
def settled(model):
    return model.simulate(0.05, dt=DT).final_state


@pytest.fixture(scope="module")
def system(model):
    return VolumeContactSystem.from_model(model)


def _bank(model, settled):
    """(name, X, F, T): resting, pushed (sticking and slipping), sliding, spinning, tilted on
    an edge, on a corner, twisted."""
    out = [("resting", settled, *_bottom_load(0.0, 0.0))]
    for fx, tz in [(2.0, 0.05), (4.5, 0.0), (6.0, 0.0), (0.0, 0.3), (3.0, 0.15), (1.0, 0.25)]:
        out.append((f"pushed {fx} N, {tz} N m", settled, *_bottom_load(fx, tz)))
    X = settled.copy()
    X[0, 7:10] = [0.5, 0.1, 0.0]
    out.append(("sliding", X, *_bottom_load(0.0, 0.0)))
    X = settled.copy()
    X[0, 10:13] = [0.0, 0.0, 3.0]
    out.append(("spinning", X, *_bottom_load(0.0, 0.0)))
    shape = model.bodies[0].shape
    q = _quat([1, 0.3, 0], 0.3)
    X = settled.copy()
    X[0, 3:7] = q
    X[0, 2] = -(shape.vertices @ quat_to_matrix(q).T)[:, 2].min() - 2e-4
    out.append(("tilted on an edge", X, *_bottom_load(0.0, 0.0)))
    X2 = X.copy()
    X2[0, 7:10] = [0.3, 0.0, -0.1]
    X2[0, 10:13] = [0.5, -1.0, 2.0]
    out.append(("edge, moving", X2, np.array([1.0, 0, 0]), np.array([0, 0.02, 0])))
    q = _quat([1, 1, 0.2], 0.9)
    X = settled.copy()
    X[0, 3:7] = q
    X[0, 2] = -(shape.vertices @ quat_to_matrix(q).T)[:, 2].min() - 5e-4
    out.append(("on a corner", X, *_bottom_load(0.0, 0.0)))
    X = settled.copy()
    X[0, 3:7] = _quat([0, 0, 1], 0.4)
    X[0, 10:13] = [0.0, 0.0, -2.0]
    out.append(("twisted", X, np.array([2.0, 1.0, 0.0]), np.array([0.0, 0.0, 0.1])))
    X = settled.copy()
    X[0, 2] += 0.01
    out.append(("in the air", X, *_bottom_load(0.0, 0.0)))
    return out


def test_ground_geometry_equals_numba_on_random_poses():
    box = Box(0.1, 0.1, 0.1)
    tables = ground_tables(box)
    geo = jax.jit(lambda p, R: ground_contact(tables, p, R, 0.0))
    rng = np.random.default_rng(2)
    for trial in range(60):
        q = rng.normal(size=4) if trial >= 20 else np.array([1.0, *rng.normal(scale=1e-3, size=3)])
        q /= np.linalg.norm(q)
        R = quat_to_matrix(q)
        V = box.vertices @ R.T
        p = np.array([0.01, -0.02, -V[:, 2].min() - rng.uniform(1e-9, 0.03)])
        ref = ground_contact_geometry(box, p + V, 0.0, 2 * box.radius)
        got = geo(jnp.asarray(p), jnp.asarray(R))
        assert bool(got.active) == (ref is not None)
        L = int(got.count)
        assert L == len(ref.polygon)
        np.testing.assert_allclose(np.asarray(got.polygon[:L]), ref.polygon, rtol=0, atol=1e-13)
        np.testing.assert_allclose(float(got.volume), ref.volume, rtol=1e-10)
        np.testing.assert_allclose(np.asarray(got.centroid), ref.centroid, rtol=0, atol=1e-13)
        for a, b in ((got.Q, ref.Q), (got.nc, ref.nc), (got.Qn, ref.Qn)):
            np.testing.assert_allclose(np.asarray(a), b, rtol=0, atol=1e-10 * np.abs(b).max())


# a state of the box met sliding and spinning (F_x = 4.5 N, T_z = 0.18 N m, 0.37 s): two
# bottom corners 3.4 and 2.2 µm deep, each corner and its vertical edge's crossing point
# 1.2e-10 m apart — a near twin the hull may count as a corner off the polygon's cycle
# (corners were summed: 5 for numba's 4, a zero-length edge, NaN edge normal, NaN wrench)
NEAR_TWIN = [0.16019439863919963, 0.007931867181508376, 0.04999996747764781, 0.2775243173019323, 1.3319184734182443e-05, 2.4922079299417896e-05, 0.9607186125539494, 0.8613112008324161, 0.05971360275878413, 0.0007330280559639606, -0.024245639565242023, 0.06712730538493746, 13.639319379037943]


def test_ground_geometry_counts_corners_along_the_cycle():
    box = Box(0.1, 0.1, 0.1)
    x = np.asarray(NEAR_TWIN)
    R = quat_to_matrix(x[3:7])
    ref = ground_contact_geometry(box, x[:3] + box.vertices @ R.T, 0.0, 2 * box.radius)
    for max_polygon in (None, 10):
        tables = ground_tables(box, max_polygon)
        got = jax.jit(lambda p, R, tables=tables: ground_contact(tables, p, R, 0.0))(
            jnp.asarray(x[:3]), jnp.asarray(R))
        L = int(got.count)
        assert L == len(ref.polygon) and not bool(got.overflow)
        np.testing.assert_allclose(np.asarray(got.polygon[:L]), ref.polygon, rtol=0, atol=1e-9)
        assert np.isfinite(np.asarray(got.edge_normals)).all()


@pytest.mark.slow    # compiles the whole contact stage (30-40 s on 2 cores)
def test_contact_wrench_equals_numba_on_a_bank_of_states(model, settled, system):
    contact = jax.jit(lambda X, F, T: system.contact(X, F, T, DT, system.params()))
    for name, X, F, T in _bank(model, settled):
        F, T = F.reshape(1, 3), T.reshape(1, 3)
        Fc, Tc, recs = model.contact_wrenches(X, F, T, DT)
        Fj, Tj, active, rec = contact(jnp.asarray(X), jnp.asarray(F), jnp.asarray(T))
        ref = np.concatenate([Fc[0], Tc[0]])
        got = np.concatenate([np.asarray(Fj[0]), np.asarray(Tj[0])])
        scale = max(np.abs(ref).max(), 1e-300)
        assert np.abs(got - ref).max() <= 1e-8 * scale, (name, got, ref)
        assert bool(active[0]) == bool(recs), name
        if recs:
            assert bool(rec[0, 15]) == recs[0].stick, name


@pytest.fixture(scope="module")
def runs(model, settled, system):
    """1 s runs (dt_out = 10 ms) of both implementations: the Table 1 load (2 N at the
    bottom face, 0.1 N m: sticks) and a Fig. 8-style push past the limit (6 N, 0.05 N m:
    slides), with the force applied at the body-fixed centre of the bottom face."""
    out = {}
    for fx, tz in [(2.0, 0.1), (6.0, 0.05)]:
        F, tq = np.array([fx, 0.0, 0.0]), np.array([0.0, 0.0, tz])
        forces = {"box": lambda t, s, F=F, tq=tq: (
            F, tq + np.cross(quat_to_matrix(s["box"].orientation) @ ARM, F))}
        ref = model.simulate(1.0, dt=DT, dt_out=0.01, forces=forces, initial=settled)
        load = BodyLoad(jnp.asarray([F]), jnp.asarray([tq]), jnp.asarray([ARM]))
        got = run_volume(system, 1.0, dt=DT, dt_out=0.01, load=load, initial=settled)
        out[(fx, tz)] = ref, got
    return out


@pytest.mark.slow    # compiles the whole contact stage (30-40 s on 2 cores)
@pytest.mark.parametrize("load", [(2.0, 0.1), (6.0, 0.05)])
def test_one_second_run_equals_numba(runs, load):
    ref, got = runs[load]
    np.testing.assert_array_equal(got.t, ref.t)
    for c in ("x", "y", "z"):                   # same arithmetic: positions to 1e-9 m
        assert np.abs(got[f"box.{c}"] - ref[f"box.{c}"]).max() <= 1e-9, c
    for c in ("qw", "qx", "qy", "qz", "vx", "vy", "vz", "wx", "wy", "wz"):
        assert np.abs(got[f"box.{c}"] - ref[f"box.{c}"]).max() <= 1e-8, c
    np.testing.assert_array_equal(got["ground-box.stick"], ref["ground-box.stick"])
    np.testing.assert_allclose(got["ground-box.fn"], ref["ground-box.fn"], rtol=0, atol=1e-8)


@pytest.mark.slow    # compiles the whole contact stage (30-40 s on 2 cores)
def test_sticks_below_and_slides_above_the_limit(runs):
    stuck = runs[(2.0, 0.1)][1]
    slid = runs[(6.0, 0.05)][1]
    assert np.abs(stuck["box.x"] - stuck["box.x"][0]).max() < 1e-9
    # sliding: the friction force is μ_d m g once the box moves
    assert slid["box.x"][-1] - slid["box.x"][0] > 0.5 * (6.0 - 0.3 * 9.81) * 0.9 ** 2


@pytest.mark.slow    # compiles the whole contact stage (30-40 s on 2 cores)
def test_jit_equals_eager(system, settled):
    load = BodyLoad(jnp.asarray([[5.5, 0.0, 0.0]]), jnp.asarray([[0.0, 0.0, 0.05]]),
                    jnp.asarray([ARM]))
    tableau = FIXED_STEP_METHODS["rk_gill"]
    step = lambda X: system.step(X, DT, load, system.params(), tableau)
    X = jnp.asarray(settled)
    jitted = jax.jit(step)
    Xj, rj = jitted(X)
    with jax.disable_jit():
        Xe, re = step(X)
    np.testing.assert_allclose(np.asarray(Xj), np.asarray(Xe), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.asarray(rj), np.asarray(re), rtol=1e-12, atol=1e-12)


@pytest.mark.slow    # compiles the whole contact stage (30-40 s on 2 cores)
def test_vmap_over_loads_equals_a_loop(system, settled):
    grid = step_grid(0.0, 0.02, DT, 0.01)
    run = system.run_function(grid)
    loads = [(1.0, 0.0), (5.5, 0.0), (0.0, 0.33)]
    F = jnp.asarray([[[fx, 0.0, 0.0]] for fx, _ in loads])
    T = jnp.asarray([[[0.0, 0.0, tz]] for _, tz in loads])
    P = jnp.broadcast_to(jnp.asarray([ARM]), F.shape)
    params = system.params()
    X0 = jnp.asarray(settled)
    batched = jax.jit(jax.vmap(run, in_axes=(None, 0, None)))(X0, BodyLoad(F, T, P), params)
    single = jax.jit(run)
    for i in range(len(loads)):
        Xs, recs = single(X0, BodyLoad(F[i], T[i], P[i]), params)
        np.testing.assert_allclose(np.asarray(batched[0][i]), np.asarray(Xs), rtol=1e-12,
                                   atol=1e-15)
        np.testing.assert_array_equal(np.asarray(batched[1][i][:, :, 15]),
                                      np.asarray(recs[:, :, 15]))


def test_from_model_starts_a_box_placed_on_the_ground_in_contact(model, system):
    # as SpatialModel.simulate does (`_model_touch`): 1e-9 m into the ground
    start = model.simulate(0.001, dt=DT)
    assert float(system.initial_state()[0, 2]) == pytest.approx(start["box.z"][0], abs=1e-15)
    assert start["box.z"][0] == pytest.approx(0.05 - 1e-9, abs=1e-15)


@pytest.mark.slow    # compiles the whole contact stage (30-40 s on 2 cores)
def test_a_box_placed_on_the_ground_holds_a_sub_static_push(system):
    # from the model's own start (no `initial=`): at zero depth it landed with an impact
    # and 4 N < mu_s m g slid it 0.0475 m in 0.3 s
    load = BodyLoad(jnp.asarray([[4.0, 0.0, 0.0]]), jnp.zeros((1, 3)), jnp.asarray([ARM]))
    res = run_volume(system, 0.3, dt=DT, dt_out=0.01, load=load)
    assert np.abs(res["box.x"] - res["box.x"][0]).max() < 1e-9


def test_from_model_rejects_what_is_not_ported():
    from stickslip.errors import ModelError
    from stickslip.spatial import SpatialModel

    m = SpatialModel(restitution=0.5)         # ported since: eq. 3's rebound split
    m.add_body("a", mass=1.0, shape=Box(0.1, 0.1, 0.1), position=(0, 0, 0.05))
    m.add_ground(mu_s=0.5, mu_k=0.3)
    system = VolumeContactSystem.from_model(m)
    assert system.rebound and float(system.params().restitution) == 0.5
    m = SpatialModel()
    m.add_body("a", mass=1.0, shape=Box(0.1, 0.1, 0.1), position=(0, 0, 0.05))
    m.add_body("b", mass=1.0, shape=Box(0.1, 0.1, 0.1), position=(1, 0, 0.05))
    m.add_ground(mu_s=0.5, mu_k=0.3)
    with pytest.raises(ModelError, match="body–body"):
        VolumeContactSystem.from_model(m)


def test_contact_stage_traces_each_solver_once(system, settled, monkeypatch):
    """Compile time (issue 20): the QP (16) and the static LP share one NNLS, the kinetic
    passes' 3-variable QP and the kinetic LP's fallback another, and the Runge–Kutta stages
    one vector field — each copy is compiled (before: four NNLS, four vector fields; 34 s
    cold)."""
    from stickslip.spatial import _volume_jax, _volume_jax_contact

    counts = {"nnls": 0, "qp_dual": 0, "small_lp_supports": 0, "rates": 0}

    def counted(module, name, key):
        real = getattr(module, name)

        def wrapper(*args, **kwargs):
            counts[key] += 1
            return real(*args, **kwargs)
        monkeypatch.setattr(module, name, wrapper)

    counted(_volume_jax_contact, "nnls", "nnls")
    counted(_volume_jax_contact, "qp_dual", "qp_dual")
    counted(_volume_jax_contact, "small_lp_supports", "small_lp_supports")
    counted(_volume_jax, "_rates", "rates")
    load = BodyLoad(jnp.asarray([[5.5, 0.0, 0.0]]), jnp.asarray([[0.0, 0.0, 0.05]]),
                    jnp.asarray([ARM]))
    tableau = FIXED_STEP_METHODS["rk_gill"]
    jax.jit(lambda X: system.step(X, DT, load, system.params(), tableau)).lower(
        jnp.asarray(settled))
    assert counts == {"nnls": 2, "qp_dual": 2, "small_lp_supports": 1, "rates": 1}


@pytest.mark.parametrize("method", ["euler", "rk4", "rk_gill"])
def test_runge_kutta_loop_equals_the_unrolled_stages(method):
    """`runge_kutta` (the stages in a loop) against the stages written out, on x' = A x + c
    (reference: the tableau's definition, NumPy)."""
    from stickslip.spatial._volume_jax import runge_kutta

    tableau = FIXED_STEP_METHODS[method]
    rng = np.random.default_rng(4)
    A, c, x, h = rng.normal(size=(3, 3)), rng.normal(size=3), rng.normal(size=3), 0.05
    K = []
    for row in tableau.a:
        xi = x + h * sum((a * k for a, k in zip(row, K)), np.zeros(3))
        K.append(A @ xi + c)
    ref = x + h * sum(b * k for b, k in zip(tableau.b, K))
    got = jax.jit(lambda x: runge_kutta(lambda i, xi: A @ xi + c, x, h, tableau))(x)
    np.testing.assert_allclose(np.asarray(got), ref, rtol=1e-14, atol=1e-15)
