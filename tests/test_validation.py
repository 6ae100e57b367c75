"""The one validation dialect (`stickslip._parameters`) and the construction-time checks of
user callables and scalar parameters (issue 11 item 8, issue 13 item 3)."""

import jax.numpy as jnp
import numpy as np
import pytest

import stickslip as ss
from stickslip._parameters import (FRICTION_LEVEL, MASS, SAMPLE_PERIOD, AbstractParametrised,
                                   Rule, check_parameters, rules_of)
from stickslip._validation import check_traceable

LAW = ss.laws.CoulombODE(F=0.5, K=1e4, beta=1e-3)


# --- one rule per quantity, wherever it appears -------------------------------------------

def test_friction_level_zero_is_accepted_everywhere_it_appears():
    # F = 0 (frictionless) is allowed by theorem (4) (Z >= 0, SPEC §1); before, CoulombMass
    # and DARelaxation rejected it while coulomb_mass_step and da_relaxation_step accepted it.
    ss.discrete.CoulombMass(M=1.0, F=0.0, T=1e-3)
    ss.discrete.DARelaxation(F=0.0, K=1e3, B=1.0, T=1e-3)
    ss.control.RenderedFriction(F=0.0, K=1e3, B=1.0, T=1e-3)
    ss.laws.CoulombODE(F=0.0, K=1e4, beta=1e-3)
    v, f = ss.discrete.coulomb_mass_step(1.0, 0.0, 1.0, 0.0, 1e-3)
    assert float(f) == 0.0 and float(v) == 1.0


@pytest.mark.parametrize("build", [
    lambda: ss.discrete.CoulombMass(M=1.0, F=-1.0, T=1e-3),
    lambda: ss.discrete.coulomb_mass_step(0.0, 0.0, 1.0, -1.0, 1e-3),
    lambda: ss.discrete.DARelaxation(F=-1.0, K=1e3, B=1.0, T=1e-3),
    lambda: ss.discrete.da_relaxation_step(0.0, 0.0, -1.0, 1e3, 1.0, 1e-3),
    lambda: ss.control.RenderedFriction(F=-1.0, K=1e3, B=1.0, T=1e-3),
    lambda: ss.laws.CoulombODE(F=-1.0, K=1e4, beta=1e-3),
    lambda: ss.laws.TanhCoulomb(F=-1.0),
], ids=["CoulombMass", "coulomb_mass_step", "DARelaxation", "da_relaxation_step",
        "RenderedFriction", "CoulombODE", "TanhCoulomb"])
def test_negative_friction_level_is_rejected_with_one_message_everywhere(build):
    with pytest.raises(ss.ParameterError, match=r"\.F` must be >= 0; got F=-1.0\. "
                                                 + FRICTION_LEVEL.hint[:20]):
        build()


@pytest.mark.parametrize("build, owner", [
    (lambda: ss.discrete.CoulombMass(M=0.0, F=1.0, T=1e-3), "CoulombMass"),
    (lambda: ss.systems.FrictionMass(M=0.0, law=LAW), "FrictionMass"),
    (lambda: ss.systems.ContactMass(M=0.0, law=ss.laws.UnilateralODE.example()), "ContactMass"),
    (lambda: ss.control.MassPlant(M=0.0), "MassPlant"),
    (lambda: ss.systems.PointOnPlane(M=0.0), "PointOnPlane"),
])
def test_mass_rule_is_shared(build, owner):
    with pytest.raises(ss.ParameterError, match=rf"`{owner}\.M` must be > 0; got M=0.0\. "
                                                 + MASS.hint.replace("(", r"\(").replace(")", r"\)")):
        build()


def test_elements_declare_their_rules_as_data():
    for element in (*ss.laws.ALL_LAWS, ss.systems.FrictionMass, ss.systems.ContactMass,
                    ss.systems.PointOnPlane, ss.systems.TwoBlocksConveyor, ss.control.PSMCParams,
                    ss.control.PIDParams, ss.control.NaiveSMCParams,
                    ss.control.RenderedFrictionParams, ss.control.MassPlant,
                    ss.control.SingleLinkArm, ss.discrete.BrushTire):
        assert issubclass(element, AbstractParametrised), element
        rules = rules_of(element)
        assert rules and all(isinstance(r, Rule) for r in rules.values()), element
    assert rules_of(ss.control.PSMCParams)["T"] == SAMPLE_PERIOD
    assert ss.discrete._friction.RULES["F"] is FRICTION_LEVEL


def test_rule_checks_kind_scalar_and_type():
    rule = Rule("positive", "Pass it in kg.", scalar=True)
    rule.check("X", "m", 1.0)
    rule.check("X", "m", None)                                   # optional: not given
    for bad, message in ((0.0, "must be > 0"), (np.nan, "must be finite"),
                         ([1.0, 2.0], "must be a scalar"), ("1", "must be a number"),
                         (print, "must be a number")):
        with pytest.raises(ss.ParameterError, match=rf"`X\.m` {message}.*Pass it in kg\."):
            rule.check("X", "m", bad)
    with pytest.raises(ss.ParameterError, match=r"`X\.m` is required"):
        rule.but(optional=False).check("X", "m", None)
    with pytest.raises(ValueError, match="kind"):
        Rule("strictly-positive")


def test_check_parameters_skips_traced_values():
    import jax

    @jax.jit
    def f(M):
        check_parameters("f", {"M": MASS}, M=M)   # traced: cannot be inspected, skipped
        return M * 2

    assert float(f(-1.0)) == -2.0


# --- issue 11 item 8: construction accepts what simulation rejects -------------------------

@pytest.mark.parametrize("build, name", [
    (lambda: ss.systems.FrictionMass(M=jnp.array([1.0, 2.0]), law=LAW), "`FrictionMass.M`"),
    (lambda: ss.systems.FrictionMass(M=1.0, law=ss.laws.CoulombODE(
        F=jnp.array([0.5, 0.6]), K=1e4, beta=1e-3)), "`FrictionMass.law.F`"),
    (lambda: ss.systems.ContactMass(M=[1.0, 2.0], law=ss.laws.UnilateralODE.example()),
     "`ContactMass.M`"),
    (lambda: ss.discrete.CoulombMass(M=1.0, F=[0.5, 0.6], T=1e-3), "`CoulombMass.F`"),
    (lambda: ss.control.MassPlant(M=np.ones(3)), "`MassPlant.M`"),
])
def test_array_for_a_scalar_parameter_is_rejected_at_construction(build, name):
    with pytest.raises(ss.ParameterError, match=rf"{name} must be a scalar"):
        build()


def _stepped(t):
    if t < 0.5:            # a Python `if` on t: fails inside jit
        return 0.0 * t
    return 0.4 + 0.0 * t


@pytest.mark.parametrize("build, name", [
    (lambda: ss.systems.FrictionMass(M=1.0, law=LAW, force=_stepped), "FrictionMass.force"),
    (lambda: ss.systems.ContactMass(M=1.0, law=ss.laws.UnilateralODE.example(), force=_stepped),
     "ContactMass.force"),
    (lambda: ss.control.MassPlant(M=1.0, disturbance=_stepped), "MassPlant.disturbance"),
    (lambda: ss.systems.FrictionMass(M=1.0, law=LAW, force=lambda t: float(t)),
     "FrictionMass.force"),
])
def test_python_if_on_time_is_rejected_at_construction_saying_jnp_where(build, name):
    with pytest.raises(ss.ParameterError, match=rf"`{name}\(t.*\)` cannot run inside jit.*"
                                                 r"jnp\.where"):
        build()


def test_check_traceable_returns_the_output_shape_and_names_bad_shapes():
    out = check_traceable("Driver", "position", lambda t: jnp.stack([t, 2 * t]), (0.0,))
    assert out.shape == (2,)
    with pytest.raises(ss.ParameterError, match=r"`Driver\.position\(t\)` must return a scalar"):
        check_traceable("Driver", "position", lambda t: jnp.stack([t, t]), (0.0,), shape=())
    with pytest.raises(ss.ParameterError, match=r"`Driver\.position` must be a callable"):
        check_traceable("Driver", "position", 3.0, (0.0,))
    with pytest.raises(ss.ParameterError, match=r"`Driver\.position\(t\)` failed"):
        check_traceable("Driver", "position", lambda t: t + "x", (0.0,))


def test_a_jnp_where_force_is_accepted_and_simulates():
    block = ss.systems.FrictionMass(M=1.0, law=LAW,
                                    force=lambda t: jnp.where(t < 0.5, 0.0, 0.4))
    res = ss.simulate(block, 1.0, dt=1e-4, dt_out=0.1)
    assert np.all(np.isfinite(res["p"]))


# --- issue 11 item 7: non-finite values reaching the step check ---------------------------

@pytest.mark.parametrize("system", [
    ss.systems.FrictionMass(M=1.0, law=LAW),
    ss.systems.ContactMass(M=1.0, law=ss.laws.UnilateralODE.example()),
    ss.systems.PointOnPlane(M=1.0),
    ss.systems.TwoBlocksConveyor(),
], ids=lambda s: type(s).__name__)
def test_non_finite_mass_behind_the_constructor_is_named_by_the_step_check(system):
    import equinox as eqx

    field = "M1" if isinstance(system, ss.systems.TwoBlocksConveyor) else "M"
    broken = eqx.tree_at(lambda s: getattr(s, field), system, jnp.asarray(jnp.nan))
    # PointOnPlane starts at rest on the plane: its initial state (M g / K deep) is NaN first
    with pytest.raises(ss.ParameterError, match=rf"`({type(system).__name__}\.M|simulate\.initial|initial)"):
        ss.simulate(broken, 0.01, dt=1e-5)
