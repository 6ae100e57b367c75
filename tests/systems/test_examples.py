"""PointOnPlane (SPEC §5 example 1) and TwoBlocksConveyor (example 2)."""

import jax.numpy as jnp
import numpy as np
import pytest

import stickslip as ss

G, MU = 9.81, 0.5


def test_point_slides_with_coulomb_deceleration_and_comes_to_rest():
    v0 = np.array([1.0, 0.5, 0.0])
    res = ss.simulate(ss.systems.PointOnPlane(M=1.0, v0=tuple(v0)), 0.5, dt=1e-4, dt_out=1e-3)
    speed = np.hypot(res["vx"], res["vy"])
    sliding = (res.t > 0.02) & (speed > 0.05)
    decel = -np.gradient(speed[sliding], res.t[sliding])
    np.testing.assert_allclose(decel, MU * G, rtol=1e-3)
    # stops after |v0|/(μg) and the direction of motion never changes
    assert speed[-1] < 1e-9
    stop = np.linalg.norm(v0) / (MU * G)
    # exact Coulomb stopping distance; the proxy's lag (∝ β = 0.02 s) costs < 1 mm here
    assert res["x"][-1] == pytest.approx(v0[0] * stop / 2, abs=1e-3)
    assert res["y"][-1] / res["x"][-1] == pytest.approx(0.5, rel=1e-6)


def test_force_inside_the_cone_never_moves_the_point():
    push = jnp.array([0.3, 0.3, 0.0]) * MU * G      # |f_t| = 0.42 μ m g: inside the cone
    system = ss.systems.PointOnPlane(M=1.0, force=lambda t: push * jnp.minimum(t, 1.0))
    res = ss.simulate(system, 5.0, dt=1e-4, dt_out=1e-2)
    assert np.hypot(res["x"], res["y"]).max() < MU * G / 1e4   # within μN/K of the start
    ft = np.hypot(res["fx"], res["fy"])
    assert np.all(ft <= MU * res["fz"] + 1e-12)


def test_two_blocks_forces_respect_their_cones_and_settle():
    res = ss.simulate(ss.systems.TwoBlocksConveyor(), 5.0, dt=1e-4, dt_out=1e-3)
    for fr, fn, mu in (("fr_wall", "f_wall", 0.3), ("fr_blocks", "f_blocks", 0.3),
                       ("fr_belt", "f_belt", 0.5)):
        assert np.all(np.abs(res[fr]) <= mu * res[fn] * (1 + 1e-12) + 1e-12)
        assert np.all(res[fn] >= 0)
    late = res.t > 4.0
    # block 1 ends stuck: its spring force is carried by the two friction forces
    assert np.ptp(res["p1y"][late]) < 1e-6
    np.testing.assert_allclose(res["fr_wall"][late] + res["fr_blocks"][late],
                               100.0 * res["p1y"][late], rtol=1e-6, atol=1e-9)
    # the belt slides under block 2 and presses with μ3 times block 2's normal force
    np.testing.assert_allclose(res["f_blocks"][late], -res["fr_belt"][late], rtol=1e-6)


def test_point_on_plane_rejects_bad_shapes():
    with pytest.raises(ss.ParameterError, match=r"`PointOnPlane.v0` must be an array of shape"):
        ss.systems.PointOnPlane(M=1.0, v0=(1.0, 0.0))
    with pytest.raises(ss.ParameterError, match=r"must return an array of shape \(3,\)"):
        ss.systems.PointOnPlane(M=1.0, force=lambda t: t)
