"""Volume contact with a link system (`stickslip.spatial._volume_links`, SPEC §7 eq. 11–16
with the joint-projected inverse mass W = M⁻¹ − M⁻¹Φ_qᵀ S⁻¹ Φ_q M⁻¹ and the constrained free
motion in A and b).

References: (a) `_volume_jax.run_volume` on the free Table 1 box (itself equal to the numba
path, tests/spatial/test_volume_jax.py); (b) a box on an x rail (a carriage on a
PrismaticJoint along x, the box on a PrismaticJoint along z under it): the normal force is
m g and the static limit μ_s m g by hand; (c) the seed's setting, a 2-link arm on revolute
joints with link 2 a box pressing on the ground."""

from __future__ import annotations

import logging

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from stickslip.errors import ModelError, ParameterError, SimulationError
from stickslip.integrate import traces
from stickslip.figures._spatial_fig8 import box_model
from stickslip.spatial import (Box, BodyTorque, ContactPair, JointDriver, PointForce,
                               PrismaticJoint, RevoluteJoint, SpatialModel)
from stickslip.spatial._volume_jax import BodyLoad, VolumeContactSystem, run_volume
from stickslip.spatial._volume_links import (VolumeLinkSystem, _links_chunk,
                                             _placed_on_the_ground, constrained_motion,
                                             run_volume_links)

G = 9.81
DT = 1e-3
ARM = np.array([0.0, 0.0, -0.05])          # centre of the Table 1 box's bottom face


def rail_model():
    """A 1 kg, 0.1 m box under a 1 kg carriage on an x rail; the box slides vertically."""
    m = SpatialModel(gravity=(0, 0, -G))
    m.add_body("carriage", mass=1.0, inertia=(0.01, 0.01, 0.01), shape=None,
               position=(0, 0, 0.3))
    m.add_body("box", mass=1.0, inertia=None, shape=Box(0.1, 0.1, 0.1), position=(0, 0, 0.05))
    m.add_ground(mu_s=0.5, mu_k=0.3)
    m.add(PrismaticJoint("ground", "carriage", point=(0, 0, 0.3), axis=(1, 0, 0), name="rail"))
    m.add(PrismaticJoint("carriage", "box", point=(0, 0, 0.05), axis=(0, 0, 1), name="lift"))
    m.add(JointDriver("rail", effort=0.0))
    return m


def arm_model():
    """Seed setting: ground → link1 (revolute about z at the origin) → box (revolute about y
    at x = 0.45 m, 2 cm up); the box (0.1 m, 1 kg) rests on the ground at x = 0.55 m and the
    elbow's effort presses it down."""
    m = SpatialModel(gravity=(0, 0, -G))
    m.add_body("link1", mass=1.0, inertia=(0.001, 0.02, 0.02), shape=None,
               position=(0.225, 0, 0.02))
    m.add_body("box", mass=1.0, inertia=None, shape=Box(0.1, 0.1, 0.1),
               position=(0.55, 0, 0.05))
    m.add_ground(mu_s=0.5, mu_k=0.3)
    m.add(RevoluteJoint("ground", "link1", point=(0, 0, 0.02), axis=(0, 0, 1), name="shoulder"))
    m.add(RevoluteJoint("link1", "box", point=(0.45, 0, 0.02), axis=(0, 1, 0), name="elbow"))
    m.add(JointDriver("shoulder", effort=0.0))
    m.add(JointDriver("elbow", effort=0.0))
    return m


def test_constrained_inverse_mass_annihilates_the_joint_rows():
    system = VolumeLinkSystem(rail_model())
    link = system.link
    x0 = link.initial_state()
    W, nud, _ = (np.asarray(v) for v in constrained_motion(link, 0.0, x0))
    X = np.asarray(x0[:26]).reshape(2, 13)
    _, J, _, _ = link.joint_terms(0.0, jnp.asarray(X))
    J = np.asarray(J)
    assert np.abs(J @ W).max() < 1e-12 and np.abs(W - W.T).max() < 1e-15
    # the box moves along x with both bodies (1/(2 kg)) and along z alone (1/(1 kg))
    np.testing.assert_allclose(W[6, 6], 0.5, rtol=1e-12)
    np.testing.assert_allclose(W[8, 8], 1.0, rtol=1e-12)
    np.testing.assert_allclose(nud[8], -G, rtol=1e-12)       # the box falls freely in z


def test_build_rejects_what_is_not_supported():
    m = rail_model()
    m.ground = None
    m.add(ContactPair("carriage", "box"))
    with pytest.raises(ModelError) as err:
        VolumeLinkSystem(m, contact_bodies=["carriage", "nobody"])
    text = str(err.value)
    for part in ("needs a ground", "ContactPair", "'nobody' is not in the model",
                 "'carriage' needs a convex polyhedral shape"):
        assert part in text


@pytest.fixture(scope="module")
def free_runs():
    """(run_volume, run_volume_links) of the free box pushed below and above the limit."""
    out = {}
    vs = VolumeContactSystem.from_model(box_model())
    m = box_model()
    m.add(PointForce("box", force=(0.0, 0.0, 0.0), point=ARM))
    m.add(BodyTorque("box", torque=(0.0, 0.0, 0.0)))
    system = VolumeLinkSystem(m)
    for fx, tz in [(2.0, 0.1), (6.0, 0.05)]:
        F, tq = np.array([fx, 0.0, 0.0]), np.array([0.0, 0.0, tz])
        ref = run_volume(vs, 0.3, dt=DT, dt_out=0.01,
                         load=BodyLoad(jnp.asarray([F]), jnp.asarray([tq]), jnp.asarray([ARM])))
        # the load is traced: the same compiled run for both (row 0: the user's load, row 1:
        # the held contact wrench)
        link = eqx.tree_at(lambda s: (s.force_values, s.torque_values), system.link,
                           (system.link.force_values.at[0].set(F),
                            system.link.torque_values.at[0].set(tq)))
        out[fx] = ref, run_volume_links(system, 0.3, dt=DT, dt_out=0.01, link=link)
    return out


@pytest.mark.slow    # compiles the contact stage twice (15-25 s each on 2 shared cores)
@pytest.mark.parametrize("fx", [2.0, 6.0])
def test_free_box_equals_run_volume(free_runs, fx):
    ref, got = free_runs[fx]
    np.testing.assert_array_equal(got.t, ref.t)
    for c in ("x", "y", "z", "qw", "qx", "qy", "qz", "vx", "vy", "vz", "wx", "wy", "wz"):
        assert np.abs(got[f"box.{c}"] - ref[f"box.{c}"]).max() <= 1e-12, c
    np.testing.assert_array_equal(got["ground-box.stick"], ref["ground-box.stick"])
    np.testing.assert_allclose(got["ground-box.fn"], ref["ground-box.fn"], rtol=0, atol=1e-10)


@pytest.fixture(scope="module")
def rail_runs():
    system = VolumeLinkSystem(rail_model())
    settled = run_volume_links(system, 0.5, dt=DT, dt_out=0.01)      # one compile for all
    return {push: run_volume_links(system, 1.0, dt=DT, dt_out=0.01, initial=settled.final_state,
                                   t0=0.5, link=system.with_drivers(**{"rail.driver": push}))
            for push in (4.0, 6.0)}       # μ_s m g = 4.905 N


@pytest.mark.slow    # compiles the link stages and the contact stage (~25 s on 2 shared cores)
def test_rail_box_holds_below_and_slides_above_the_static_limit(rail_runs):
    held, slid = rail_runs[4.0], rail_runs[6.0]
    for r in (held, slid):                # record 0 of a run is padding (no step yet)
        np.testing.assert_allclose(r["ground-box.fn"][1:], G, rtol=1e-8)     # N = m g
        assert np.abs(r["box.y"]).max() < 1e-12 and np.isfinite(r.final_state).all()
    assert np.abs(held["box.x"] - held["box.x"][0]).max() < 1e-9
    assert held["ground-box.stick"][1:].min() == 1.0
    np.testing.assert_allclose(held["ground-box.fx"][1:], -4.0, rtol=1e-8)
    # sliding: (m_c + m_b) a = push − μ_d m_b g from rest
    assert slid["ground-box.stick"][1:].max() == 0.0
    np.testing.assert_allclose(slid["ground-box.fx"][1:], -0.3 * G, rtol=1e-8)
    expected = 0.5 * (6.0 - 0.3 * G) / 2.0 * 0.5 ** 2
    np.testing.assert_allclose(slid["box.x"][-1] - slid["box.x"][0], expected, rtol=2e-2)


@pytest.fixture(scope="module")
def arm_runs():
    system = VolumeLinkSystem(arm_model())
    press = {"elbow.driver": 0.5}
    settled = run_volume_links(system, 0.5, dt=DT, dt_out=0.01,       # one compile for all
                               link=system.with_drivers(**press))
    out = {"settled": settled}
    for push in (1.0, 4.0):                 # shoulder torques [N m]; the box is 0.55 m out
        out[push] = run_volume_links(
            system, 1.0, dt=DT, dt_out=0.01, initial=settled.final_state, t0=0.5,
            link=system.with_drivers(**press, **{"shoulder.driver": push}))
    return out


@pytest.mark.slow    # compiles the link stages and the contact stage (~25 s on 2 shared cores)
def test_arm_box_verdict_changes_when_the_push_exceeds_mu_s_n(arm_runs):
    settled = arm_runs["settled"]
    N = settled["ground-box.fn"][-1]
    assert N > 0 and settled["ground-box.stick"][-1] == 1.0
    for push in (1.0, 4.0):
        r = arm_runs[push]
        assert np.isfinite(r.final_state).all()
        assert r["ground-box.fn"].min() >= 0.0
    low, high = arm_runs[1.0], arm_runs[4.0]
    assert np.abs(low["elbow.angle"] - low["elbow.angle"][0]).max() < 1e-9
    # sliding, the box stays on the ground: the elbow turns by nanometres at the far edge
    assert np.abs(high["elbow.angle"] - high["elbow.angle"][0]).max() * 0.15 < 1e-7
    assert 1.0 / 0.55 < 0.5 * N < 4.0 / 0.55          # the push at the box vs μ_s N
    tangential = np.hypot(low["ground-box.fx"], low["ground-box.fy"])
    assert low["ground-box.stick"][1:].min() == 1.0 and tangential.max() <= 0.5 * N * 1.001
    assert np.abs(low["shoulder.angle"] - low["shoulder.angle"][0]).max() < 1e-9
    assert high["ground-box.stick"][1:].max() == 0.0
    assert high["shoulder.angle"][-1] - high["shoulder.angle"][0] > 0.05
    # sliding: kinetic friction μ_d N on the box's tangential force
    slip_force = np.hypot(high["ground-box.fx"], high["ground-box.fy"])[1:]
    np.testing.assert_allclose(slip_force, 0.3 * high["ground-box.fn"][1:], rtol=0.05)


@pytest.mark.slow    # uses arm_runs (compiles the link stages and the contact stage)
def test_arm_box_slides_without_losing_contact_under_a_large_push(arm_runs):
    """The hop of the straight-line pose update (module docstring of `_volume_links`): with
    r + Δt v⁺ the box left the ground 57 ms into the push and then every third step. Now it
    stays in contact for the whole second, and its normal force is the moment balance about
    the elbow (the contact's centre of pressure on the far edge, ℓ_far = 0.15 m from the
    elbow): N ℓ_far = m g ℓ_c + τ_elbow + m ω² r_c h_c — the box's weight at ℓ_c = 0.1 m, the
    elbow's press 0.5 N m, and the centrifugal force at r_c = 0.55 m, h_c = 0.03 m above the
    elbow (the arm turns at up to 5.4 rad/s)."""
    r = arm_runs[4.0]
    assert r["ground-box.active"][1:].min() == 1.0 and r.t[-1] - r.t[0] >= 0.5
    assert r["ground-box.stick"][1:].max() == 0.0
    omega = r["box.wz"][1:]
    N = r["ground-box.fn"][1:]
    balance = (1.0 * G * 0.1 + 0.5 + 1.0 * omega ** 2 * 0.55 * 0.03) / 0.15
    np.testing.assert_allclose(N, balance, rtol=1e-2)
    assert N.min() > (1.0 * G * 0.1 + 0.5) / 0.15 * 0.99 and np.abs(np.diff(N)).max() < 0.1


def test_screw_position_keeps_a_turning_chain_on_its_circle():
    """`screw_position` moves bodies turning together about the z axis along their circles
    (reference: the rotation by ω h), where r + h v⁺ lands ½(ω h)² r inside; with ω = 0 it is
    r + h v⁺."""
    from stickslip.spatial._volume_links import screw_position

    h, w = 1e-3, 0.3
    radii = np.array([0.225, 0.55])
    X = np.zeros((2, 13))
    X[:, 0] = radii
    Xn = np.zeros((2, 13))
    c, s = np.cos(w * h), np.sin(w * h)
    Xn[:, 0], Xn[:, 1] = radii * c, radii * s                  # the step's end on the circle
    Xn[:, 7], Xn[:, 8] = -w * radii * s, w * radii * c          # its velocity, ω about z
    Xn[:, 12] = w
    p = np.asarray(screw_position(jnp.asarray(X), jnp.asarray(Xn), h))
    np.testing.assert_allclose(p[:, :2], Xn[:, :2], rtol=0, atol=1e-16)
    straight = X[:, :3] + h * Xn[:, 7:10]
    np.testing.assert_allclose(radii - np.hypot(straight[:, 0], straight[:, 1]),
                               0.5 * (w * h) ** 2 * radii, rtol=1e-6)
    Xn[:, 10:13] = 0.0
    p0 = np.asarray(screw_position(jnp.asarray(X), jnp.asarray(Xn), h))
    np.testing.assert_array_equal(p0, X[:, :3] + h * Xn[:, 7:10])


# a state of the arm's box met while sliding (an earlier regularisation; the run above may meet
# such states by chance): pitched by ~6e-5 rad,
# its bottom corners 3e-6 and 9e-6 m deep, so each corner and its vertical edge's crossing
# point are ~1.8e-10 m apart — at the hull's duplicate tolerance (1e-9 × the body's scale)
NEAR_DUPLICATES = [0.5499895483851871, 0.003667674429169071, 0.049994074618234366,
                   0.9999944409100132, -9.8782857316151e-08, 2.9626480835775182e-05,
                   0.0033342572383846364, -0.0011816466619259476, 0.1525727834789437,
                   0.0005474252790132578, 3.650428224163538e-05, -0.0054740337758798895,
                   0.2774123232688297]


@pytest.mark.slow
def test_ground_geometry_jit_equals_eager_near_duplicate_corners():
    import jax

    from stickslip.spatial._volume_jax import _rotation
    from stickslip.spatial._volume_jax_geometry import ground_contact, ground_tables

    tables = ground_tables(Box(0.1, 0.1, 0.1))
    x = jnp.asarray(NEAR_DUPLICATES)

    def geometry(x):
        return ground_contact(tables, x[:3], _rotation(x[3:7]), 0.0, 1e-12)
    eager, jitted = geometry(x), jax.jit(geometry)(x)
    for name in ("count", "Q", "nc"):
        np.testing.assert_allclose(np.asarray(getattr(jitted, name)),
                                   np.asarray(getattr(eager, name)), rtol=1e-9, atol=1e-15,
                                   err_msg=name)


def test_public_route_runs_the_arm_with_volume_contact():
    """SpatialModel.simulate(contact="volume") on a model with joints runs _volume_links (the
    paper's setting) — the box stays on the ground under its own weight — and refuses the
    free-body route's host-side arguments by name."""
    m = arm_model()
    res = m.simulate(0.05, dt=1e-3, dt_out=1e-2, contact="volume")
    assert "elbow.angle" in res.names and "box.z" in res.names
    np.testing.assert_allclose(res["box.z"], 0.05, atol=1e-6)
    with pytest.raises(ParameterError, match="lp_solver"):
        m.simulate(0.05, dt=1e-3, contact="volume", lp_solver="highs")
    with pytest.raises(ParameterError, match="unknown options"):
        m.simulate(0.05, dt=1e-3, contact="volume", max_polgon=8)


def hinged_pair_model():
    """Two 1 kg cubes hinged side by side, placed exactly on the ground, 6 N on one (below
    μ_s 2 m g = 9.81 N), beside a pendulum hinged to the ground (a mechanism not moved)."""
    m = SpatialModel(gravity=(0, 0, -G))
    m.add_body("a", mass=1.0, shape=Box(0.1, 0.1, 0.1), position=(0, 0, 0.05))
    m.add_body("b", mass=1.0, shape=Box(0.1, 0.1, 0.1), position=(0.12, 0, 0.05))
    m.add_body("rod", mass=0.5, shape=Box(0.02, 0.02, 0.3), position=(1, 0, 0.2))
    m.add(RevoluteJoint("a", "b", point=(0.06, 0, 0.05), axis=(0, 1, 0), name="hinge"))
    m.add(RevoluteJoint("ground", "rod", point=(1, 0, 0.35), axis=(0, 1, 0), name="top"))
    m.add(PointForce("a", force=(6.0, 0.0, 0.0)))
    m.add_ground(mu_s=0.5, mu_k=0.3)
    return m


def test_a_mechanism_placed_on_the_ground_starts_in_contact_and_a_grounded_one_stays():
    """As on the volume route (tests/spatial/test_model_touch.py): the hinged pair goes down
    by 1e-9 m together (its hinge kept), the pendulum hinged to the ground is not moved."""
    m = hinged_pair_model()
    system = VolumeLinkSystem(m)
    x0 = np.asarray(system.link.initial_state())
    placed = _placed_on_the_ground(m, system)
    np.testing.assert_array_equal(system.start, placed)     # run_volume_links' default
    np.testing.assert_allclose((x0 - placed)[2:39:13], [1e-9, 1e-9, 0.0], rtol=1e-6, atol=0)
    np.testing.assert_array_equal(np.delete(x0 - placed, [2, 15]), 0.0)


@pytest.mark.slow    # compiles its own link and contact stages (~20 s on 2 shared cores)
def test_a_mechanism_placed_on_the_ground_holds_under_a_sub_static_push():
    # at zero depth the pair fell one step, landed with an impact, and the push slid it
    # (3.0 mm in 0.3 s)
    res = hinged_pair_model().simulate(0.3, dt=DT, dt_out=0.01, contact="volume")
    assert abs(res["a.x"][-1]) < 1e-8 and abs(res["b.x"][-1] - 0.12) < 1e-8
    assert res["ground-a.stick"][1:].min() == 1.0


def test_a_new_model_run_length_or_step_reuses_the_compiled_run(caplog):
    """Each simulate(contact="volume") builds a new VolumeLinkSystem; the run is compiled
    once per structure (the program store), not once per call (14 s a call before,
    2026-11-27), and a longer run repeats a shorter one's samples exactly. Nothing else
    compiles either (the initial state's revolute angles, eagerly: ~45 small programs)."""
    short = rail_model().simulate(0.05, dt=DT, dt_out=0.01, contact="volume")
    before = traces(_links_chunk)
    with jax.log_compiles(True), caplog.at_level(logging.WARNING):
        caplog.clear()
        long = rail_model().simulate(0.12, dt=DT, dt_out=0.01, contact="volume")
    assert [r.getMessage() for r in caplog.records if "Compiling" in r.getMessage()] == []
    fine = rail_model().simulate(0.03, dt=DT / 2, dt_out=0.01, contact="volume")
    assert traces(_links_chunk) == before
    for name in ("box.z", "ground-box.fn", "ground-box.volume"):
        np.testing.assert_array_equal(long[name][:len(short.t)], short[name], err_msg=name)
    assert np.isfinite(fine.final_state).all() and fine.t[-1] == pytest.approx(0.03)


def test_a_state_that_is_not_finite_stops_the_run_by_name():
    system = VolumeLinkSystem(rail_model())
    x0 = np.array(system.link.initial_state())
    x0[0] = np.nan
    with pytest.raises(SimulationError, match="carriage.x"):
        run_volume_links(system, 0.02, dt=DT, dt_out=0.01, initial=x0)
