"""Bad input to `ss.spatial.PointContacts.from_model` (issue 25): each argument is checked
where it enters — a `ParameterError` naming it and the type or shape it needs — and a start
with a contact point inside the ground is refused with a `ModelError` saying how deep and
how far to move the body, as `SpatialModel` does for the volume contact."""

import jax.numpy as jnp
import numpy as np
import pytest

import stickslip as ss

SIDE = 0.1


def model(z=SIDE / 2, shape="box", orientation=(1.0, 0.0, 0.0, 0.0), second=None):
    """One body (a 0.1 m cube, a 0.05 m sphere or no shape) resting on the ground at
    height `z`; `second`: the height of a second cube beside it."""
    m = ss.spatial.Model(gravity=(0.0, 0.0, -9.81))
    shapes = {"box": ss.spatial.Box(SIDE, SIDE, SIDE), "sphere": ss.spatial.Sphere(0.05),
              None: None}
    m.add_body("box", mass=1.0, inertia=(1e-3, 1e-3, 1e-3), shape=shapes[shape],
               position=(0.0, 0.0, z), orientation=orientation)
    if second is not None:
        m.add_body("crate", mass=1.0, inertia=None, shape=ss.spatial.Box(SIDE, SIDE, SIDE),
                   position=(0.5, 0.0, second))
    m.add_ground(mu_s=0.5, mu_k=0.5)
    return m


def build(m=None, **kw):
    return lambda: ss.spatial.PointContacts.from_model(model() if m is None else m, **kw)


def loads(F, T):
    return lambda t, X: (F, T)


ZERO = jnp.zeros((1, 3))
TILT = (np.cos(0.2), np.sin(0.2), 0.0, 0.0)        # 0.4 rad about x

CASES = {
    # numbers
    "mu a string": (build(mu="0.5"), ss.ParameterError, ["PointContacts.mu", "number"]),
    "mu a vector": (build(mu=np.array([0.5, 0.5])), ss.ParameterError,
                    ["PointContacts.mu", "number"]),
    "mu negative": (build(mu=-0.1), ss.ParameterError, ["PointContacts.mu", ">= 0"]),
    "delta a string": (build(delta="1e-3"), ss.ParameterError,
                       ["PointContacts.delta", "number"]),
    "delta zero": (build(delta=0.0), ss.ParameterError, ["PointContacts.delta", "> 0"]),
    "zeta a list": (build(zeta=[1.0, 1.0]), ss.ParameterError,
                    ["PointContacts.zeta", "number"]),
    "zeta NaN": (build(zeta=float("nan")), ss.ParameterError, ["PointContacts.zeta"]),
    "formulation unknown": (build(formulation="lcp"), ss.ParameterError,
                            ["PointContacts.formulation", "'lcp'"]),
    "model not a model": (lambda: ss.spatial.PointContacts.from_model("scene.xml"),
                          ss.ParameterError, ["PointContacts.from_model.model", "str"]),
    # forces: a function fn(t, X) -> (F, T), each (n_bodies, 3)
    "forces a number": (build(forces=3.0), ss.ParameterError,
                        ["PointContacts.forces", "fn(t, X) -> (F, T)", "(1, 3)", "float"]),
    "forces of the wrong shape": (build(forces=loads(jnp.zeros((2, 3)), ZERO)),
                                  ss.ParameterError,
                                  ["PointContacts.forces(t, X)", "(1, 3)", "(2, 3)"]),
    "forces returning one array": (build(forces=lambda t, X: jnp.zeros((1, 3))),
                                   ss.ParameterError, ["PointContacts.forces(t, X)", "(F, T)"]),
    "forces with a Python if": (
        build(forces=lambda t, X: (ZERO + 1.0 if t > 0.1 else ZERO, ZERO)),
        ss.ParameterError, ["PointContacts.forces(t, X)", "jax.numpy"]),
    "force of the wrong shape": (build(force=np.zeros(4)), ss.ParameterError,
                                 ["PointContacts.force", "(1, 3)", "(4,)"]),
    "force a string": (build(force="up"), ss.ParameterError, ["PointContacts.force", "(1, 3)"]),
    "torque of two bodies": (build(torque=np.zeros((2, 3))), ss.ParameterError,
                             ["PointContacts.torque", "(1, 3)"]),
    # spheres: {body: radius [m]}
    "spheres a string": (build(spheres="box"), ss.ParameterError,
                         ["PointContacts.spheres", "mapping", "str 'box'"]),
    "spheres a list of pairs": (build(spheres=[("box", 0.05)]), ss.ParameterError,
                                ["PointContacts.spheres", "mapping"]),
    "sphere radius a string": (build(spheres={"box": "big"}), ss.ParameterError,
                               ["PointContacts.spheres['box']", "number"]),
    "sphere radius negative": (build(spheres={"box": -0.05}), ss.ParameterError,
                               ["PointContacts.spheres['box']", "> 0"]),
    "sphere of an unknown body": (build(spheres={"ball": 0.05}), ss.ParameterError,
                                  ["PointContacts.spheres", "'ball'"]),
    "a Sphere shape not listed": (build(model(shape="sphere")), ss.ParameterError,
                                  ["PointContacts.spheres", "'box'", "spheres={'box': 0.05}"]),
    "a body without shape": (build(model(shape=None)), ss.ParameterError,
                             ["PointContacts.spheres", "'box'", "no shape"]),
    # a start inside the ground: body, depth, the move that fixes it
    "cube 1 cm inside": (build(model(z=0.04)), ss.ModelError,
                         ["'box'", "0.01 m inside the ground", "Raise its position z by 0.01 m"]),
    "tilted cube inside": (build(model(z=0.06, orientation=TILT)), ss.ModelError,
                           ["'box'", "vertex", "inside the ground", "Raise its position z"]),
    "sphere 2 cm inside": (build(model(shape="sphere", z=0.03), spheres={"box": 0.05}),
                           ss.ModelError, ["'box'", "lowest point", "0.02 m inside"]),
    "second body inside": (build(model(second=0.045)), ss.ModelError,
                           ["'crate'", "0.005 m inside"]),
}


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_bad_point_contacts_input_names_the_culprit(case):
    call, error, needles = CASES[case]
    with pytest.raises(error) as err:
        call()
    for needle in needles:
        assert needle in str(err.value), f"{case}: message {str(err.value)!r} lacks {needle!r}"


def test_resting_and_lifted_starts_are_accepted():
    # on the ground (also tilted and lifted so a corner touches), above it, or a sphere
    # touching it: no error
    lifted = SIDE / 2 * (np.cos(0.4) + np.sin(0.4))          # lowest corner at z = 0
    for m, kw in ((model(), {}), (model(z=0.3), {}), (model(z=lifted, orientation=TILT), {}),
                  (model(shape="sphere", z=0.05), {"spheres": {"box": 0.05}}),
                  (model(second=SIDE / 2), {"forces": loads(ZERO, ZERO)})):
        pc = ss.spatial.PointContacts.from_model(m, **kw)
        assert pc.points.shape[1] == 3
