"""Bad input to frictional unilateral constraints (issue 12): each case raises a stickslip
error whose message names the argument, element or body."""

import jax.numpy as jnp
import pytest

import stickslip as ss

C = ss.constraints
P = ss.planar


def _model():
    m = P.Model(gravity=(0.0, -9.81), name="bad")
    b = m.add_body("block", mass=1.0, inertia=0.1)
    return m, b


def _contact(**kw):
    m, b = _model()
    args = dict(point_j=(0.0, 0.0), line_point_i=(0.0, 0.0), line_axis_i=(1.0, 0.0), mu=0.3)
    args.update(kw)
    return P.PointLineContact(m.ground, b, name="floor", **args)


def _slider(**kw):
    m, b = _model()
    args = dict(half_length=0.05, half_height=0.025, clearance=1e-3, mu=0.01)
    args.update(kw)
    return P.ClearanceSlider(m.ground, b, name="guide", **args)


def _unknown_body():
    m, _ = _model()
    other = P.Model().add_body("stranger", mass=1.0, inertia=0.1)
    m.add(P.PointLineContact(m.ground, other, mu=0.3, name="floor"))


def _same_body():
    m, b = _model()
    m.add(P.PointLineContact(b, b, mu=0.3, name="self"))


def _duplicate_name():
    m, b = _model()
    m.add(P.PointLineContact(m.ground, b, mu=0.3, name="floor"))
    m.add(P.PointLineContact(m.ground, b, mu=0.3, name="floor"))


def _bad_formulation():
    m, b = _model()
    m.add(P.PointLineContact(m.ground, b, mu=0.3, name="floor"))
    m.simulate(0.01, dt=1e-3, contact_formulation="siconos")


def _no_contacts():
    m, _ = _model()
    m.simulate(0.01, dt=1e-3, contact_formulation="kikuuwe")


def _unknown_point():
    m, b = _model()
    m.add(P.PointLineContact(m.ground, b, point_j="corner", mu=0.3, name="floor"))


def _spatial_no_ground():
    m = ss.spatial.Model()
    m.add_body("box", mass=1.0, inertia=None, shape=ss.spatial.Box(0.1, 0.1, 0.1))
    ss.spatial.PointContacts.from_model(m)


def _spatial(**kw):
    m = ss.spatial.Model()
    m.add_body("box", mass=1.0, inertia=None, shape=ss.spatial.Box(0.1, 0.1, 0.1))
    m.add_ground(mu_s=0.5, mu_k=0.5)
    ss.spatial.PointContacts.from_model(m, **kw)


CASES = [
    ("mu", lambda: _contact(mu=-0.1)),
    ("mu", lambda: _contact(mu=float("nan"))),
    ("delta", lambda: _contact(delta=0.0)),
    ("zeta", lambda: _contact(zeta=-1.0)),
    ("line_axis_i", lambda: _contact(line_axis_i=(0.0, 0.0))),
    ("line_point_i", lambda: _contact(line_point_i=(1.0,))),
    ("clearance", lambda: _slider(clearance=0.0)),
    ("half_length", lambda: _slider(half_length=-0.05)),
    ("half_height", lambda: _slider(half_height=float("inf"))),
    ("guide_axis", lambda: _slider(guide_axis=(0.0, 0.0))),
    ("stranger", _unknown_body),
    ("block", _same_body),
    ("floor", _duplicate_name),
    ("contact_formulation", _bad_formulation),
    ("frictional contacts", _no_contacts),
    ("corner", _unknown_point),
    ("add_ground", _spatial_no_ground),
    ("mu", lambda: _spatial(mu=-1.0)),
    ("delta", lambda: _spatial(delta=0.0)),
    ("spheres", lambda: _spatial(spheres={"ball": 0.1})),
    ("formulation", lambda: _spatial(formulation="exact")),
    ("bound", lambda: C.CoulombBound(bound=-1.0)),
    ("mu", lambda: C.PlanarContact(mu=-0.5)),
    ("size", lambda: C.Bilateral(0)),
    ("blocks", lambda: C.ProductSet([C.PlanarContact(mu=0.1), "cone"])),
    ("A of shape", lambda: C.solve_lambda(C.ProductSet([C.PlanarContact(mu=0.1)]),
                                          jnp.eye(3), jnp.zeros(3))),
    ("zeta", lambda: C.relaxation_restitution(-0.5)),
]


@pytest.mark.parametrize("needle, case", CASES, ids=[f"{k}-{n}" for k, (n, _) in
                                                     enumerate(CASES)])
def test_bad_input_names_the_culprit(needle, case):
    with pytest.raises(ss.StickslipError, match=needle):
        case()
