"""Planar frictional contacts with a static coefficient above the kinetic one (issue 22):
the λ-problem's bound is μ_s while the contact sticks and μ once it slides."""

import jax.numpy as jnp
import numpy as np
import pytest

import stickslip as ss
from stickslip.errors import ParameterError


def _pushed_block(push, mu_s=0.5):
    model = ss.planar.Model(gravity=(0.0, -9.81))
    block = model.add_body("block", mass=1.0, inertia=1e-3, y=0.0)
    model.add(ss.planar.PointLineContact(model.ground, block, point_j=(0.0, 0.0),
                                         line_point_i=(0.0, 0.0), line_axis_i=(1.0, 0.0),
                                         mu=0.3, mu_s=mu_s, name="floor"))
    model.add(ss.planar.PointForce(block, force=lambda t, q, qd: jnp.stack([push + 0.0 * t,
                                                                             0.0 * t])))
    return model.simulate(1.0, dt=1e-4, dt_out=1e-2)


def test_a_push_between_the_levels_is_held_and_one_above_slides_kinetically():
    """1 kg block, μ = 0.3, μ_s = 0.5: 4.5 N (between 2.94 and 4.905 N) is held exactly with
    ft = −4.5 N; 5.2 N breaks it away and it accelerates at 5.2 − 0.3 g once sliding."""
    held = _pushed_block(4.5)
    assert np.max(np.abs(held["block.x"])) < 1e-12
    np.testing.assert_allclose(held["floor.ft"][1:], -4.5, rtol=1e-9)
    sliding = _pushed_block(5.2)
    late = sliding.t > 0.2
    acc = np.polyfit(sliding.t[late], sliding["block.xd"][late], 1)[0]
    np.testing.assert_allclose(acc, 5.2 - 0.3 * 9.81, rtol=1e-6)
    np.testing.assert_allclose(sliding["floor.ft"][late], -0.3 * 9.81, rtol=1e-9)


def test_one_coefficient_is_unchanged():
    """Without mu_s the 4.5 N push slides at 4.5 − 0.3 g, as before."""
    res = _pushed_block(4.5, mu_s=None)
    late = res.t > 0.2
    acc = np.polyfit(res.t[late], res["block.xd"][late], 1)[0]
    np.testing.assert_allclose(acc, 4.5 - 0.3 * 9.81, rtol=1e-6)


@pytest.mark.parametrize("kwargs, name", [
    (dict(mu=0.4, mu_s=0.3), "mu_s"), (dict(mu=0.4, mu_s=-1.0), "mu_s"),
    (dict(mu=0.4, mu_s=0.5, v_stribeck=0.0), "v_stribeck"),
    (dict(mu=0.4, mu_s=float("nan")), "mu_s")])
def test_bad_static_coefficients_are_named(kwargs, name):
    model = ss.planar.Model()
    block = model.add_body("block", mass=1.0, inertia=1e-3)
    with pytest.raises(ParameterError, match=name):
        ss.planar.PointLineContact(model.ground, block, **kwargs)
    with pytest.raises(ParameterError, match=name):
        ss.planar.ClearanceSlider(model.ground, block, half_length=0.1, half_height=0.05,
                                  clearance=1e-3, **kwargs)
