"""One conformance suite for the planar elements (STYLE.md, "Elements"; issue 13 item 1),
like tests/laws/test_conformance.py: built from an example, jit equals eager, vmap over a
stacked group equals a loop, gradients through the element's parameters are finite, each
parameter rule rejects bad values with the element and parameter named, repr works."""

import dataclasses

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stickslip as ss
from stickslip.planar._base import stack

jax.config.update("jax_enable_x64", True)
P = ss.planar


def _bodies():
    m = P.Model()
    bi = m.add_body("bi", mass=1.0, inertia=0.1, x=0.2, y=-0.1, phi=0.4,
                    points={"pin": (0.1, 0.05)})
    bj = m.add_body("bj", mass=2.0, inertia=0.3, x=0.7, y=0.3, phi=-0.9)
    return m, bi, bj


def _law():
    return ss.laws.CoulombODE(mu=0.3, K=1e4, beta=1e-3)


# class → (factory(bi, bj) → unbound element, [(bad keyword, value), ...])
CONSTRAINTS = {
    P.RevoluteJoint: (lambda bi, bj: P.RevoluteJoint(bi, bj, "pin", (-0.3, 0.05)),
                      [("pin_radius", -0.1)]),
    P.TranslationalJoint: (lambda bi, bj: P.TranslationalJoint(bi, bj, (0.1, 0.0), (0.0, 0.2),
                                                               axis_i=(0.6, 0.8)),
                           [("axis_i", (0.0, 0.0)), ("angle", float("nan"))]),
    P.RevoluteRevoluteJoint: (lambda bi, bj: P.RevoluteRevoluteJoint(bi, bj, length=0.7),
                              [("length", 0.0), ("length", float("nan"))]),
    P.RevoluteTranslationalJoint: (lambda bi, bj: P.RevoluteTranslationalJoint(
        bi, bj, axis_i=(1.0, 0.2), distance=0.3), [("distance", float("inf"))]),
    P.GearJoint: (lambda bi, bj: P.GearJoint(bi, bj, radius_i=0.2, radius_j=0.3),
                  [("radius_i", -1.0), ("radius_j", 0.0)]),
    P.AbsoluteX: (lambda bi, bj: P.AbsoluteX(bj, (0.1, 0.0), x=1.0), [("x", float("nan"))]),
    P.AbsoluteY: (lambda bi, bj: P.AbsoluteY(bj, (0.1, 0.0), y=0.2), [("y", float("nan"))]),
    P.AbsoluteAngle: (lambda bi, bj: P.AbsoluteAngle(bj, phi=0.1), [("phi", float("nan"))]),
    P.AbsoluteDistance: (lambda bi, bj: P.AbsoluteDistance(bj, (0.0, 0.1),
                                                           ground_point=(1.0, 1.0),
                                                           distance=0.5),
                         [("distance", -0.5), ("ground_point", (1.0,))]),
    P.RotationalDriver: (lambda bi, bj: P.RotationalDriver(bi, bj, angle=jnp.sin),
                         [("angle", float("nan"))]),
    P.TranslationalDriver: (lambda bi, bj: P.TranslationalDriver(bi, bj, axis_i=(0, 1),
                                                                 distance=jnp.cos),
                            [("axis_i", (0.0, 0.0))]),
    P.AbsoluteDriver: (lambda bi, bj: P.AbsoluteDriver(bj, "y", jnp.cos, point=(0.2, 0.0)),
                       [("coordinate", "q")]),
    P.RelativeDriver: (lambda bi, bj: P.RelativeDriver(bi, bj, "x", jnp.exp,
                                                       point_j=(0.1, 0.0)),
                       [("coordinate", "z")]),
    P.DistanceDriver: (lambda bi, bj: P.DistanceDriver(bi, bj, distance=jnp.cosh),
                       [("distance", float("nan"))]),
    P.CamFollowerJoint: (lambda bi, bj: P.CamFollowerJoint(
        bi, bj, lambda a: 0.05 + 0.01 * jnp.cos(a), kind="roller"),
        [("kind", "knife"), ("normal_j", (0.0, 0.0))]),
}

FORCES = {
    P.TranslationalSpringDamper: (lambda bi, bj: P.TranslationalSpringDamper(
        bi, bj, (0.1, 0.0), (0.0, 0.1), stiffness=50.0, damping=2.0, free_length=0.3),
        [("stiffness", -1.0), ("damping", float("nan")), ("free_length", -0.1)]),
    P.RotationalSpringDamper: (lambda bi, bj: P.RotationalSpringDamper(
        bi, bj, stiffness=5.0, damping=0.1, free_angle=0.2),
        [("stiffness", float("nan")), ("damping", -1.0), ("free_angle", float("inf"))]),
    P.PointForce: (lambda bi, bj: P.PointForce(bj, lambda t, q, qd: jnp.stack(
        [jnp.sin(t), q[0]]), point=(0.1, 0.2)), [("force", None)]),
    P.BodyTorque: (lambda bi, bj: P.BodyTorque(bj, lambda t, q, qd: q[2] * jnp.cos(t)),
                   [("torque", 3.0)]),
}


def _construct(cls, source, bad):
    m, bi, bj = _bodies()
    name, value = next(iter(bad.items()))
    base = {
        P.RevoluteJoint: lambda **k: P.RevoluteJoint(bi, bj, friction=_law(), **k),
        P.TranslationalJoint: lambda **k: P.TranslationalJoint(bi, bj, **k),
        P.RevoluteRevoluteJoint: lambda **k: P.RevoluteRevoluteJoint(bi, bj, **k),
        P.RevoluteTranslationalJoint: lambda **k: P.RevoluteTranslationalJoint(bi, bj, **k),
        P.GearJoint: lambda **k: P.GearJoint(bi, bj, **{"radius_i": 0.2, "radius_j": 0.3,
                                                        **k}),
        P.AbsoluteX: lambda **k: P.AbsoluteX(bj, **k),
        P.AbsoluteY: lambda **k: P.AbsoluteY(bj, **k),
        P.AbsoluteAngle: lambda **k: P.AbsoluteAngle(bj, **k),
        P.AbsoluteDistance: lambda **k: P.AbsoluteDistance(bj, **{"distance": 0.5, **k}),
        P.RotationalDriver: lambda **k: P.RotationalDriver(bi, bj, **k),
        P.TranslationalDriver: lambda **k: P.TranslationalDriver(
            bi, bj, **{"distance": jnp.cos, **k}),
        P.AbsoluteDriver: lambda **k: P.AbsoluteDriver(bj, k.pop("coordinate", "x"), jnp.cos),
        P.RelativeDriver: lambda **k: P.RelativeDriver(bi, bj, k.pop("coordinate", "x"),
                                                       jnp.cos),
        P.DistanceDriver: lambda **k: P.DistanceDriver(bi, bj, **k),
        P.CamFollowerJoint: lambda **k: P.CamFollowerJoint(
            bi, bj, lambda a: 0.05 + 0.0 * a, **k),
        P.TranslationalSpringDamper: lambda **k: P.TranslationalSpringDamper(bi, bj, **k),
        P.RotationalSpringDamper: lambda **k: P.RotationalSpringDamper(bi, bj, **k),
        P.PointForce: lambda **k: P.PointForce(bj, **k),
        P.BodyTorque: lambda **k: P.BodyTorque(bj, **k),
    }[cls]
    return base(**{name: value})


def _bound(cls, table):
    m, bi, bj = _bodies()
    return m.add(table[cls][0](bi, bj))


def _inputs(seed=0):
    rng = np.random.default_rng(seed)
    qi, qj, qdi, qdj = (jnp.asarray(rng.standard_normal(3) * 0.3) for _ in range(4))
    qj = qj + jnp.asarray([0.8, 0.4, 0.0])          # keep the points apart
    return qi, qj, qdi, qdj, jnp.asarray(0.4)


def _constraint_outputs(c, qi, qj, qdi, qdj, t):
    return (c.residual(qi, qj, t), *c.jacobians(qi, qj, t), c.gamma(qi, qj, qdi, qdj, t),
            c.time_derivative(qi, qj, t))


def _force_outputs(f, qi, qj, qdi, qdj, t):
    qs, qds = ([qi, qj], [qdi, qdj]) if len(f.bodies()) == 2 else ([qj], [qdj])
    gen, value = f.generalized_force(qs, qds, t)
    return (*gen, value, f.potential(qs))


CASES = [(cls, CONSTRAINTS, _constraint_outputs) for cls in CONSTRAINTS] + \
    [(cls, FORCES, _force_outputs) for cls in FORCES]
IDS = [c[0].__name__ for c in CASES]


@pytest.mark.parametrize("cls, table, outputs", CASES, ids=IDS)
def test_example_builds_bound_and_immutable(cls, table, outputs):
    element = _bound(cls, table)
    assert type(element) is cls and element.name.startswith(cls.prefix)
    assert repr(element).startswith(cls.__name__ + "(")
    field = dataclasses.fields(element)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(element, field, None)


@pytest.mark.parametrize("cls, table, outputs", CASES, ids=IDS)
def test_jit_equals_eager_and_outputs_are_finite(cls, table, outputs):
    element = _bound(cls, table)
    args = _inputs()
    eager = outputs(element, *args)
    jitted = eqx.filter_jit(outputs)(element, *args)
    for a, b in zip(eager, jitted):
        assert np.all(np.isfinite(a))
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("cls, table, outputs", CASES, ids=IDS)
def test_vmap_over_a_stacked_group_equals_a_loop(cls, table, outputs):
    element = _bound(cls, table)
    # three members whose array parameters differ (scaled by 1, 1.1, 0.9)
    members = [jax.tree.map(lambda x, s=s: x * s if eqx.is_inexact_array(x) else x, element)
               for s in (1.0, 1.1, 0.9)]
    arrays, static = eqx.partition(stack(members), eqx.is_array)
    args = [_inputs(seed) for seed in range(3)]
    batched = jax.vmap(lambda a, *z: outputs(eqx.combine(a, static), *z))(
        arrays, *(jnp.stack(col) for col in zip(*args)))
    for k, member in enumerate(members):
        for b, single in zip(batched, outputs(member, *args[k])):
            np.testing.assert_allclose(b[k], single, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("cls, table, outputs", CASES, ids=IDS)
def test_grad_through_element_parameters_is_finite(cls, table, outputs):
    element = _bound(cls, table)
    args = _inputs()

    def scalar(e):
        return sum(jnp.sum(jnp.asarray(o) ** 2) for o in outputs(e, *args))

    grads = eqx.filter_grad(scalar)(element)
    leaves = jax.tree.leaves(eqx.filter(grads, eqx.is_array))
    assert len(leaves) == len(jax.tree.leaves(eqx.filter(element, eqx.is_inexact_array)))
    assert all(np.all(np.isfinite(g)) for g in leaves)


@pytest.mark.parametrize("cls, table, outputs", CASES, ids=IDS)
def test_each_parameter_rule_rejects_bad_values_by_name(cls, table, outputs):
    for name, value in table[cls][1]:
        with pytest.raises(ss.ParameterError, match=rf"{cls.__name__}\.{name}|{name}"):
            _construct(cls, None, {name: value})
