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
    model.add_ground(mu_s=MU, mu_d=MU)
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
