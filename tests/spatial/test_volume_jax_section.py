"""``patch="section"`` on the JAX volume engine (`stickslip.spatial._volume_jax_section`, SPEC §7
steps 1–2: S is the contact plane's section of C, and c of eq. 9 is taken over the prism C'
of S) against the numba host path on the same arguments — `_volume.intersect` +
`_volume.contact_geometry(..., patch="section")` (what `_volume_wrench.contact_geometries`
runs) and the host loop `_volume_host.run_host`, an independent implementation (NumPy
clipping with a hull per cut) — and a closed form (a wedge).

Models: the Table 1 box of `stickslip.figures._spatial_fig8` (1 kg, 0.1 m cube, μ_s = 0.5,
μ_d = 0.3, k = 1000, λ = 1e-3, P = 8) with ``patch="section"``; a 0.1 × 0.1 × 0.3 m box
(`examples/spatial/tip_over_edge.py`)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stickslip as ss
from stickslip.figures._spatial_fig8 import bottom_load, box_model
from stickslip.spatial._dynamics import quat_to_matrix
from stickslip.spatial._volume import contact_geometry, intersect
from stickslip.spatial._volume_host import run_host
from stickslip.spatial._volume_jax_geometry import ground_tables
from stickslip.spatial._volume_jax_pair_geometry import face_tables
from stickslip.spatial._volume_jax_route import jax_route_gap, run_jax
from stickslip.spatial._volume_jax_section import (
    ground_section_contact,
    pair_section_contact,
)
from stickslip.spatial._volume_wrench import contact_geometries

TALL = ss.spatial.Box(0.1, 0.1, 0.3)
STATE = ("x", "y", "z", "qw", "qx", "qy", "qz", "vx", "vy", "vz", "wx", "wy", "wz")


@pytest.fixture(scope="module")
def section():
    """The JAX section geometry of the tall box, jitted once."""
    tables = ground_tables(TALL, patch="section")
    return jax.jit(lambda p, R: ground_section_contact(tables, p, R, 0.0))


def _numba(verts, shape=TALL):
    """The host path's section geometry (`_volume_wrench.contact_geometries`'s ground case)."""
    scale = 2.0 * shape.radius
    vol = intersect([verts[f] for f in shape.faces], (np.array([[0.0, 0.0, 1.0]]),
                                                      np.array([0.0])), scale)
    if vol is None:
        return None
    vol.origin = 1 - vol.origin
    return contact_geometry(vol, scale, 1e-12, "section")


def _quat(axis, angle):
    axis = np.asarray(axis, float) / np.linalg.norm(axis)
    return np.concatenate([[np.cos(angle / 2)], np.sin(angle / 2) * axis])


def test_the_section_geometry_equals_the_host_paths_on_random_poses(section):
    """60 poses (a third nearly flat, tilted ~1e-3 rad; the rest at random; 0–2 cm deep):
    the same contact flag and corner count, and every quantity to ~1e-12 relative (measured
    over 300 poses: Q 1.8e-13, nᵀc 2.6e-12, p_g 4e-15; bounds 1e-10)."""
    rng = np.random.default_rng(7)
    for k in range(60):
        q = rng.normal(size=4) if k % 3 else np.array([1.0, 0, 0, 0]) + 1e-3 * rng.normal(
            size=4)
        q /= np.linalg.norm(q)
        R = quat_to_matrix(q[None])[0]
        rel = TALL.vertices @ R.T
        pos = np.array([*(0.1 * rng.normal(size=2)), -rel[:, 2].min() - rng.uniform(0, 0.02)])
        want = _numba(pos + rel)
        got = section(jnp.asarray(pos), jnp.asarray(R))
        assert bool(got.active) == (want is not None)
        if want is None:
            continue
        L = int(got.count)
        assert L == len(want.polygon)
        for a, b in [(got.Q, want.Q), (got.Qn, want.Qn), (got.nc, want.nc),
                     (got.centroid, want.centroid), (got.normal, want.normal),
                     (got.polygon[:L], want.polygon), (got.edge_normals[:L], want.edge_normals),
                     (got.edge_offsets[:L], want.edge_offsets), (got.volume, want.volume)]:
            b = np.asarray(b)
            np.testing.assert_allclose(np.asarray(a), b, rtol=0, atol=1e-10 * np.abs(b).max())


def test_a_wedge_has_the_section_strip_and_the_prism_volume_in_closed_form(section):
    """The tall box on an edge along y, tilted 45° about y, d = 4 mm deep: C is a wedge of right-angled
    cross-section (depth d, top width 2d, length a = 0.1 m), its centroid d/3 below the
    ground, where the section is a strip 4d/3 wide: Q₀₀ = a·4d/3; C' (the wedge within the
    strip) has the cross-section ∫_{−d}^{−d/3} 2(z + d) dz + (d/3)(4d/3) = 8d²/9, so
    nᵀc = (a·8d²/9) n, no in-plane moment. (``patch="projection"`` takes the whole
    footprint 2d and the whole wedge: a·2d and a·d².)"""
    d, a = 4e-3, 0.1
    R = quat_to_matrix(_quat([0, 1, 0], np.pi / 4)[None])[0]
    rel = TALL.vertices @ R.T
    low = rel[:, 2].min()
    pos = np.array([0.0, 0.0, -low - d])
    got = section(jnp.asarray(pos), jnp.asarray(R))
    assert int(got.count) == 4
    np.testing.assert_allclose(float(got.volume), a * d * d, rtol=1e-9)
    np.testing.assert_allclose(float(got.centroid[2]), -d / 3, rtol=1e-9)
    np.testing.assert_allclose(float(got.Q[0, 0]), a * 4 * d / 3, rtol=1e-9)
    nc = np.asarray(got.nc)
    np.testing.assert_allclose(nc[:3], [0.0, 0.0, a * 8 * d * d / 9], rtol=1e-9, atol=1e-18)
    np.testing.assert_allclose(nc[3:], 0.0, atol=1e-12 * a * d * d * a)


def test_the_pair_section_geometry_equals_the_host_paths_on_random_poses():
    """Body–body (`pair_section_contact`, for the joint QP of `_volume_jax_joint`): a 0.1 m
    cube and a 0.2 × 0.1 × 0.05 m plate, 60 poses — every other one the plate lying on the
    cube tilted ~1e-2 rad, the rest overlapping at random: the same contact flag and corner
    count, every quantity to ~1e-13 relative (measured over 200 poses: nᵀc 3.3e-13, S's
    corners 2.1e-13, Q 1.1e-14; bounds 1e-10)."""
    cube, plate = ss.spatial.Box(0.1, 0.1, 0.1), ss.spatial.Box(0.2, 0.1, 0.05)
    ta, tb = face_tables(cube), face_tables(plate)
    scale = 2 * max(cube.radius, plate.radius)
    pair = jax.jit(lambda xa, Ra, xb, Rb: pair_section_contact(ta, xa, Ra, tb, xb, Rb, scale,
                                                               1e-12))
    rng = np.random.default_rng(1)
    active = 0
    for k in range(60):
        flat = k % 2 == 1
        qa, qb = ([np.array([1.0, 0, 0, 0]) + 1e-2 * rng.normal(size=4) for _ in range(2)]
                  if flat else [rng.normal(size=4) for _ in range(2)])
        Ra, Rb = (quat_to_matrix((q / np.linalg.norm(q))[None])[0] for q in (qa, qb))
        xa = 0.02 * rng.normal(size=3)
        xb = xa + (np.array([*(0.03 * rng.normal(size=2)), 0.075 - rng.uniform(0, 0.01)])
                   if flat else 0.06 * rng.normal(size=3))
        nb = plate.normals @ Rb.T
        vol = intersect([(xa + cube.vertices @ Ra.T)[f] for f in cube.faces],
                        (nb, plate.offsets + nb @ xb), scale)
        want = None if vol is None else contact_geometry(vol, scale, 1e-12, "section")
        got = pair(*(jnp.asarray(v) for v in (xa, Ra, xb, Rb)))
        assert bool(got.active) == (want is not None)
        if want is None:
            continue
        active += 1
        L = int(got.count)
        assert L == len(want.polygon)
        for a, b in [(got.Q, want.Q), (got.Qn, want.Qn), (got.nc, want.nc),
                     (got.centroid, want.centroid), (got.normal, want.normal),
                     (got.polygon[:L], want.polygon), (got.volume, want.volume)]:
            b = np.asarray(b)
            np.testing.assert_allclose(np.asarray(a), b, rtol=0, atol=1e-10 * np.abs(b).max())
    assert active > 40


# --- whole runs against the host loop -----------------------------------------------------


def _cube():
    model = box_model()
    model.patch = "section"
    return model


def _both(model, t_end, forces=None, initial=None, dt_out=None):
    args = (model, t_end, 1e-3, "rk_gill", forces, "pyramid", dt_out, "nnls", initial, None,
            "step")
    return run_host(*args), run_jax(*args)


def _max_diff(ref, got, prefix):
    return max(np.nanmax(np.abs(ref[n] - got[n]), initial=0.0) for n in ref.names
               if n.startswith(prefix))


@pytest.fixture(scope="module")
def settled():
    return run_host(_cube(), 0.05, 1e-3, "rk_gill", None, "pyramid", None, "nnls", None,
                    None, "step").final_state


@pytest.mark.slow
@pytest.mark.parametrize("case", ["resting", "slides and turns"])
def test_a_box_resting_or_sliding_and_turning_runs_as_in_the_host_loop(case, settled):
    """From rest (settled 0.05 s by the host loop), 0.14 s under no load or 6 N + 0.3 N m at
    the bottom face (sliding and spinning up to 12 rad/s, before the spinning box starts to
    rock at 0.149 s: from there round-off grows on either engine — a 1e-15 m change of the
    start height moves the host loop's own states by 2e-7 at 0.2 s). Measured at rest:
    states 4e-18, forces 4e-15 N; sliding: states 5e-14 … 1e-11 (rad/s: the settled box's 6e-9 rad/s wobble), forces 1e-10 N, torques
    9e-9 N m at the second step (C is 1e-8 m thin there, and its centroid's horizontal
    place, summed in another order, 9e-10 m apart); bounds 1e-9 and 1e-7. Contact and stick
    flags equal."""
    load = bottom_load(0.0, 0.0) if case == "resting" else bottom_load(6.0, 0.3)
    ref, got = _both(_cube(), 0.14, forces=load, initial=settled)
    assert got.meta["engine"] == "jax"
    assert _max_diff(ref, got, "box.") <= 1e-9
    for f in ("fx", "fy", "fz", "tx", "ty", "tz"):
        np.testing.assert_allclose(got[f"ground-box.{f}"], ref[f"ground-box.{f}"], rtol=0,
                                   atol=1e-7)
    for f in ("active", "stick"):
        np.testing.assert_array_equal(got[f"ground-box.{f}"], ref[f"ground-box.{f}"])
    if case == "slides and turns":
        assert ref["box.vx"][-1] > 0.5 and ref["box.wz"][-1] > 10.0


@pytest.mark.slow
def test_a_tilted_box_landing_on_an_edge_runs_as_in_the_host_loop(settled):
    """The cube dropped from 1 cm, tilted 30° about x, lands on an edge, rocks and settles
    (0.3 s). The impact's wrench carries the kernels' round-off into the motion (as on the
    projection: test_volume_jax_route's LANDING bounds); measured: states 2e-10, forces
    3e-9 N of 680 N, torques 5e-8 N m (round-off about the zero of t_y, t_z); bounds 1e-7
    and 1e-6 (N, N m). Contact flags equal."""
    model = _cube()
    q = _quat([1, 0, 0], np.radians(30))
    low = (model.bodies[0].shape.vertices @ quat_to_matrix(q[None])[0].T)[:, 2].min()
    x0 = np.zeros((1, 13))
    x0[0, :3] = [0.0, 0.0, -low + 0.01]
    x0[0, 3:7] = q
    ref, got = _both(model, 0.3, forces=bottom_load(0.0, 0.0), initial=x0)
    assert np.nanmax(ref["ground-box.active"]) == 1.0
    assert _max_diff(ref, got, "box.") <= 1e-7
    for f in ("fx", "fy", "fz", "tx", "ty", "tz"):
        np.testing.assert_allclose(got[f"ground-box.{f}"], ref[f"ground-box.{f}"], rtol=0,
                                   atol=1e-6)
    np.testing.assert_array_equal(got["ground-box.active"], ref["ground-box.active"])


def _tip_model():
    """`examples/spatial/tip_over_edge.py` with ``patch="section"``: the tall box released
    on one edge, tilted 30° about y."""
    theta, hx, hz = np.radians(30), 0.05, 0.15
    model = ss.spatial.Model(gravity=(0, 0, -9.81), patch="section")
    model.add_body("box", mass=1.0, shape=TALL,
                   position=(0, 0, hx * np.sin(theta) + hz * np.cos(theta)),
                   orientation=(np.cos(theta / 2), 0, np.sin(theta / 2), 0))
    model.add_ground(mu_s=0.5, mu_k=0.3)
    return model


@pytest.mark.slow
def test_the_tip_over_run_keeps_the_host_loops_geometry_and_motion(section):
    """The tip-over run: on every state of the host loop's run over 0.2 s (the box on its
    edge, S a strip down to ~1e-6 of the box wide) the same contact flag and corner count,
    Q and nᵀc within 1e-8 relative (measured 2.8e-10: the strip's volume is a difference of
    much larger terms, summed in another order); the runs' states within 1e-6 over 10 ms
    (measured 2e-14) and the box tipping past balance and lying on its side at 0.8 s
    on both engines (measured: both 90.00004°)."""
    model = _tip_model()
    ref = run_host(model, 0.2, 1e-3, "rk_gill", None, "pyramid", None, "nnls", None, None,
                   "step")
    X = np.stack([ref[f"box.{s}"] for s in STATE], 1)
    strips = 0
    for x in X[1:]:
        geo = contact_geometries(model, x[None])
        got = section(jnp.asarray(x[:3]), jnp.asarray(quat_to_matrix(x[None, 3:7])[0]))
        assert bool(got.active) == bool(geo)
        if not geo:
            continue
        want = geo[0][1]
        assert int(got.count) == len(want.polygon)
        strips += np.ptp(want.polygon[:, 0]) < 1e-6
        for a, b in [(got.Q, want.Q), (got.nc, want.nc)]:
            np.testing.assert_allclose(np.asarray(a), b, rtol=0, atol=1e-8 * np.abs(b).max())
    assert strips > 50                                # the thin strip was met
    ref, got = _both(model, 0.01)
    assert _max_diff(ref, got, "box.") <= 1e-6
    ref, got = _both(model, 0.8, dt_out=0.01)
    for res in (ref, got):
        tilt = 2 * np.degrees(np.arctan2(res["box.qy"], res["box.qw"]))
        assert 80.0 <= tilt[res.t >= 0.6].min() and tilt.max() <= 95.0


def test_the_route_takes_section_for_one_body_and_several():
    """``patch="section"`` runs on the JAX route for one body and for several (the joint QP
    of body–body contact clips pairs with `pair_section_contact`)."""
    model = _cube()
    assert jax_route_gap(model, "pyramid", "nnls", "step") is None
    model.add_body("other", mass=1.0, shape=ss.spatial.Box(0.1, 0.1, 0.1),
                   position=(1.0, 0.0, 0.05))
    assert jax_route_gap(model, "pyramid", "nnls", "step") is None


@pytest.mark.slow     # the two-body joint QP compiles for ~40 s CPU from an empty store
def test_a_two_box_stack_with_section_runs_as_in_the_host_loop():
    """A cube resting on the Table 1 box (``patch="section"``, body–body and ground contact in
    one joint QP), settling from where it is placed: both engines on the same arguments,
    0.1 s; states to 1e-9, forces to 1e-6 of the weight, the same contact and stick flags."""
    model = _cube()
    model.add_body("lid", mass=1.0, shape=ss.spatial.Box(0.1, 0.1, 0.1),
                   position=(0.0, 0.0, 0.15))
    ref, got = _both(model, 0.1)
    assert got.meta["engine"] == "jax"
    assert _max_diff(ref, got, "box.") <= 1e-9 and _max_diff(ref, got, "lid.") <= 1e-9
    weight = 2 * 9.81
    for pair in ("ground-box", "box-lid"):
        for f in ("fx", "fy", "fz"):
            np.testing.assert_allclose(got[f"{pair}.{f}"], ref[f"{pair}.{f}"], rtol=0,
                                       atol=1e-6 * weight, err_msg=f"{pair}.{f}")
        # the flags where the contact carries a force (at a touch-down sample a contact of
        # ~1e-15 N may read either way on the host loop: its static check's f_n ≤ 0 case)
        loaded = np.abs(ref[f"{pair}.fz"]) > 1e-9 * weight
        for f in ("active", "stick"):
            np.testing.assert_array_equal(got[f"{pair}.{f}"][loaded], ref[f"{pair}.{f}"][loaded],
                                          err_msg=f"{pair}.{f}")
    assert np.all(got["box-lid.active"][10:] == 1)
