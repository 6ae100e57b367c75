"""Constant loads on planar bodies (``PointForce(body, (Fx, Fy))``, ``BodyTorque(body, n)``):
held as ``ConstantLoad`` modules whose value is traced data, so a model rebuilt with another
load runs the program compiled for the first — and gives the closed form, and the same
result as the load written as a callable."""

import equinox as eqx
import jax.numpy as jnp
import numpy as np
import pytest

import stickslip as ss
from stickslip.errors import ParameterError


def _pushed_block(load, torque=0.0):
    """A 2 kg block on a horizontal guide pushed by `load` at its centre (no friction)."""
    m = ss.planar.Model(gravity=(0.0, -9.81), name="pushed")
    block = m.add_body("block", mass=2.0, inertia=0.1)
    m.add(ss.planar.TranslationalJoint(m.ground, block, axis_i=(1.0, 0.0), name="guide"))
    m.add(ss.planar.PointForce("block", load, name="push"))
    m.add(ss.planar.BodyTorque("block", torque, name="twist"))
    return m


def test_a_new_constant_load_runs_the_same_program_and_meets_the_closed_form():
    keys = set()
    for F in (1.0, 4.0, -2.5):
        model = _pushed_block((F, 3.0), torque=0.2 * F)
        res = model.simulate(1.0, dt=1e-3, dt_out=0.1)
        # x(t) = F t² / (2 m): the guide takes the vertical load and the torque
        assert res["block.x"][-1] == pytest.approx(F / 4.0, abs=1e-12)
        np.testing.assert_allclose(res["push.force"], np.hypot(F, 3.0), rtol=1e-15)
        # what the compiled program is keyed on: the system's static side, its arrays
        # by shape (the program store's fingerprint)
        static, dynamic = eqx.partition(model.system(), lambda x: not eqx.is_array(x))
        keys.add((ss.integrate.fingerprint(static),
                  ss.integrate.fingerprint(dynamic, arrays="abstract")))
    assert len(keys) == 1
    # ... which a load baked into the program would change
    baked = _pushed_block(lambda t, q, qd: jnp.array([1.0, 3.0])).system()
    static, _ = eqx.partition(baked, lambda x: not eqx.is_array(x))
    assert ss.integrate.fingerprint(static) != next(iter(keys))[0]


def test_constant_and_callable_loads_give_the_same_run():
    const = _pushed_block((1.5, -0.5), torque=0.3).simulate(0.3, dt=1e-3, dt_out=0.05)
    func = _pushed_block(lambda t, q, qd: jnp.array([1.5, -0.5]),
                         torque=lambda t, q, qd: 0.3 + 0.0 * t).simulate(0.3, dt=1e-3,
                                                                           dt_out=0.05)
    for name in const.names:
        np.testing.assert_array_equal(const[name], func[name], err_msg=name)


@pytest.mark.parametrize("cls, value", [(ss.planar.PointForce, (1.0, 2.0, 3.0)),
                                        (ss.planar.PointForce, (1.0, np.inf)),
                                        (ss.planar.PointForce, "north"),
                                        (ss.planar.BodyTorque, float("nan")),
                                        (ss.planar.BodyTorque, (1.0, 2.0))])
def test_a_bad_constant_load_is_named(cls, value):
    with pytest.raises(ParameterError, match=rf"`{cls.__name__}\.(force|torque)` must be a "
                                             r"callable .* or a constant"):
        cls("block", value)
