"""3-D point contacts (SPEC §6 on the bodies of SPEC §7): a box on the ground under a growing
push first holds, then slides at the closed-form acceleration."""

import jax.numpy as jnp
import numpy as np
import pytest

import stickslip as ss

MU, MASS, G = 0.5, 1.0, 9.81


def _push(t, X):
    # F(t) = 4 + 10 t [N] along x: static friction μ m g = 4.905 N is reached at t* = 0.0905 s
    return jnp.zeros((1, 3)).at[0, 0].set(4.0 + 10.0 * t), jnp.zeros((1, 3))


def test_box_holds_then_slides():
    model = ss.spatial.Model(gravity=(0.0, 0.0, -G))
    model.add_body("box", mass=MASS, inertia=None, shape=ss.spatial.Box(0.2, 0.1, 0.1),
                   position=(0.0, 0.0, 0.05))
    model.add_ground(mu_s=MU, mu_k=MU)
    contacts = ss.spatial.PointContacts.from_model(model, delta=2e-3, forces=_push)
    res = contacts.simulate(0.2, dt=5e-4, dt_out=5e-3)
    t_slip = (MU * MASS * G - 4.0) / 10.0
    held = res.t < t_slip - 0.01
    assert np.max(np.abs(res["box.x"][held])) < 1e-12              # holds: no creep
    # within 10 ms of the onset the iterative solver's accepted 1e-6 residual lets the box
    # start early: measured 2.7e-10 m at t* − 5.5 ms and 3.6e-8 m at t* − 0.5 ms
    assert np.max(np.abs(res["box.x"][res.t < t_slip])) < 1e-7
    # normal forces carry the weight, each corner's friction inside its cone
    fn = np.sum([res[f"box.fn.{k}"] for k in range(1, 9)], axis=0)
    np.testing.assert_allclose(fn[held], MASS * G, rtol=1e-9)
    np.testing.assert_allclose(fn, MASS * G, rtol=2e-2)     # the slip onset rocks it briefly
    for k in range(1, 9):
        assert np.all(res[f"box.fn.{k}"] >= 0)
        assert np.all(res[f"box.ft.{k}"] <= MU * res[f"box.fn.{k}"] * (1 + 1e-9) + 1e-12)
    # then it slides: ẍ = (F(t) − μ m g)/m from t*, so x = 10 (t − t*)³ / 6
    t = res.t[-1]
    assert res["box.x"][-1] == pytest.approx(10.0 * (t - t_slip) ** 3 / 6.0, rel=2e-2)
    assert np.max(np.abs(res["box.z"] - 0.05)) < 1e-9                # stays on the ground


def test_point_contacts_need_a_ground():
    model = ss.spatial.Model()
    model.add_body("box", mass=1.0, inertia=None, shape=ss.spatial.Box(0.1, 0.1, 0.1))
    with pytest.raises(ss.ModelError, match="add_ground"):
        ss.spatial.PointContacts.from_model(model)


# --- loads as traced data (issue 20) -------------------------------------------------------

SIDE = 0.1


def _cube(**loads):
    """A 1 kg cube of side 0.1 m resting on the ground, μ = 0.5, loaded at the centre of its
    bottom face (the box-under-force protocol of benchmarks/spatial_box_force.py)."""
    model = ss.spatial.Model(gravity=(0.0, 0.0, -G))
    model.add_body("box", mass=MASS, inertia=None, shape=ss.spatial.Box(SIDE, SIDE, SIDE),
                   position=(0.0, 0.0, SIDE / 2))
    model.add_ground(mu_s=MU, mu_k=MU)
    loads.setdefault("force_point", (0.0, 0.0, -SIDE / 2))
    return ss.spatial.PointContacts.from_model(model, **loads)


def test_box_below_the_static_limit_does_not_drift():
    # F_x = 4 N < μ m g = 4.905 N: exact stick, no creep over 1 s
    res = _cube(force=(4.0, 0.0, 0.0)).simulate(1.0, dt=1e-3, dt_out=0.01)
    drift = np.hypot(res["box.x"] - res["box.x"][0], res["box.y"] - res["box.y"][0])
    assert np.max(drift) < 1e-6
    assert np.max(np.abs(res["box.qz"])) < 1e-9


def test_box_above_the_static_limit_slides_at_the_closed_form_acceleration():
    # F_x = 6 N: ẍ = (F − μ m g)/m = 1.095 m/s², so x(t) = ẍ t²/2 (the push at the bottom
    # face cannot tip the box: its moment about a front corner is zero)
    res = _cube(force=(6.0, 0.0, 0.0)).simulate(1.0, dt=1e-3, dt_out=0.01)
    acc = (6.0 - MU * MASS * G) / MASS
    late = res.t > 0.2
    measured = 2.0 * res["box.x"][late] / res.t[late] ** 2
    np.testing.assert_allclose(measured, acc, rtol=1e-2)
    np.testing.assert_allclose(np.gradient(res["box.vx"], res.t)[late], acc, rtol=1e-2)


@pytest.mark.slow
def test_loads_under_vmap_equal_separate_runs():
    base = _cube()
    loads = [((1.0, 0.0, 0.0), (0.0, 0.0, 0.1)),      # holds
             ((6.0, 0.0, 0.0), (0.0, 0.0, 0.0)),      # slides straight
             ((2.0, 1.0, 0.0), (0.0, 0.0, 0.4))]      # slides and turns
    systems = [base.replace(force=np.array([f]), torque=np.array([t])) for f, t in loads]
    batch = ss.simulate_batch(systems, 0.3, dt=1e-3, dt_out=0.05)
    # a box that slides and turns on four corners has many solutions λ (the normal forces
    # are statically indeterminate, and the friction torque depends on how they split):
    # the batched linear algebra rounds differently and may pick a neighbouring one
    # (measured: 3e-7 relative in x at 0.3 s); holding and sliding straight agree to 1e-9
    for k, (system, rtol) in enumerate(zip(systems, (1e-9, 1e-9, 1e-5))):
        alone = system.simulate(0.3, dt=1e-3, dt_out=0.05)
        for name in ("box.x", "box.y", "box.qz", "box.vx", "box.wz"):
            np.testing.assert_allclose(batch[name][k], alone[name], rtol=rtol, atol=1e-12)
    assert np.max(np.abs(batch["box.x"][0])) < 1e-12                 # the first one holds
    assert batch["box.x"][1][-1] > 0.01 and abs(batch["box.qz"][2][-1]) > 0.01


def test_a_new_load_reuses_the_compiled_run():
    from stickslip.integrate._fixed_step import integrate_padded

    box = _cube(force=(1.0, 0.0, 0.0))
    first = box.simulate(0.05, dt=1e-3, dt_out=0.01)
    traced = ss.integrate.traces(integrate_padded)
    pushed = box.replace(force=np.array([[6.0, 0.0, 0.0]]),
                         torque=np.array([[0.0, 0.0, 0.05]])).simulate(0.05, dt=1e-3,
                                                                        dt_out=0.01)
    assert ss.integrate.traces(integrate_padded) == traced           # no retrace
    assert abs(first["box.x"][-1]) < 1e-12 < pushed["box.x"][-1]


@pytest.mark.parametrize("field, value", [("force", np.zeros((2, 3))),
                                          ("torque", np.zeros(2)),
                                          ("force_point", [[0.0, np.nan, 0.0]])])
def test_bad_load_names_the_field_and_shape(field, value):
    with pytest.raises(ss.ParameterError, match=f"PointContacts.{field}"):
        _cube(**{field: value})


def test_frictionless_cone_never_pulls():
    """μ = 0, no tangential force, a negative normal: the projection onto the cone is the
    apex (0), not the point itself — a frictionless contact must not pull (it did: the
    'inside' test ‖t‖ ≤ μn held for n < 0 at μ = 0)."""
    import jax.numpy as jnp

    for mu in (0.0, 0.3):
        out = ss.constraints.SpatialContact(mu=mu).project(jnp.array([0.0, 0.0, -1.0]))
        assert np.all(np.asarray(out) == 0.0)
