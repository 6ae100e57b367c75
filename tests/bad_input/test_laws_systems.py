"""Bad input to laws, systems, controllers, the tire, the discrete steps, C export and the
inclusion builders (issue 11): each case must raise a stickslip error whose message names the
argument. Self-contained: every case is a zero-argument callable and the substring it must
find in the message."""

from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np
import pytest

import stickslip as ss

NAN, INF = math.nan, math.inf
LAW = ss.laws.CoulombODE(F=0.5, K=1e4, beta=1e-3)
WALL = ss.laws.UnilateralODE(K=1e5, beta=1e-3, alpha=5e-4)
GAINS = dict(F=20.0, H=0.2, K=1600.0, B=80.0, L=16000.0, T=1e-3)
TIRE = dict(L=0.2, K=6e6, B=100.0, mu=1.0, Fz=4000.0, R=0.3, n_cells=50)


def _if_on_t(t):
    return 1.0 if t > 0.5 else 0.0        # Python `if` on a traced t


def _ball(**parameters):
    import sympy as sp

    from stickslip.inclusion import DifferentialInclusion, Dio

    h, v, m, g = sp.symbols("h v m g")
    values = {m: 1.0, g: 9.81}
    values.update({{"m": m, "g": g}[k]: x for k, x in parameters.items()})
    return DifferentialInclusion([h, v], [v, Dio(h) / m - g], parameters=values,
                                 initial={h: 0.5}, name="ball")


def _compiled_ball(**kwargs):
    from stickslip.inclusion import compile_inclusion

    return compile_inclusion(_ball(), **kwargs)


def _simulate_ball_with(**parameters):
    return ss.simulate(_compiled_ball().with_parameters(**parameters), 0.1, dt=1e-4)


def _block(**kwargs):
    return ss.systems.FrictionMass(**{"M": 1.0, "law": LAW, **kwargs})


CASES = [
    # --- laws ------------------------------------------------------------------------------
    ("CoulombODE K<0", lambda: ss.laws.CoulombODE(F=0.5, K=-1.0, beta=1e-3), "CoulombODE.K"),
    ("CoulombODE beta=0", lambda: ss.laws.CoulombODE(F=0.5, K=1e4, beta=0.0), "CoulombODE.beta"),
    ("CoulombODE F nan", lambda: ss.laws.CoulombODE(F=NAN, K=1e4, beta=1e-3), "CoulombODE.F"),
    ("CoulombODE F string", lambda: ss.laws.CoulombODE(F="0.5", K=1e4, beta=1e-3),
     "CoulombODE.F"),
    ("CoulombODE F and mu", lambda: ss.laws.CoulombODE(F=0.5, K=1e4, beta=1e-3, mu=0.3), "mu"),
    # the friction curve (issue 22)
    ("CoulombODE F_s < F", lambda: ss.laws.CoulombODE(F=0.5, F_s=0.4, K=1e4, beta=1e-3),
     "`CoulombODE.F` must be <= `CoulombODE.F_s`"),
    ("CoulombODE mu_s < mu", lambda: ss.laws.CoulombODE(mu=0.5, mu_s=0.4, K=1e4, beta=1e-3),
     "`CoulombODE.mu` must be <= `CoulombODE.mu_s`"),
    ("CoulombODE F_s with mu", lambda: ss.laws.CoulombODE(mu=0.5, F_s=0.6, K=1e4, beta=1e-3),
     "CoulombODE.F_s"),
    ("CoulombODE mu_s with F", lambda: ss.laws.CoulombODE(F=0.5, mu_s=0.6, K=1e4, beta=1e-3),
     "CoulombODE.mu_s"),
    ("CoulombODE mu and mu_k", lambda: ss.laws.CoulombODE(mu=0.5, mu_k=0.5, K=1e4, beta=1e-3),
     "mu_k"),
    ("CoulombODE v_stribeck=0", lambda: ss.laws.CoulombODE(F=0.5, F_s=0.6, v_stribeck=0.0,
                                                           K=1e4, beta=1e-2),
     "CoulombODE.v_stribeck"),
    ("CoulombODE v_stribeck nan", lambda: ss.laws.CoulombODE(F=0.5, F_s=0.6, v_stribeck=NAN,
                                                             K=1e4, beta=1e-2),
     "CoulombODE.v_stribeck"),
    ("CoulombODE exponent < 1", lambda: ss.laws.CoulombODE(
        F=0.5, F_s=0.6, v_stribeck=0.1, stribeck_exponent=0.5, K=1e4, beta=1e-2),
     "CoulombODE.stribeck_exponent"),
    ("CoulombODE exponent alone", lambda: ss.laws.CoulombODE(
        F=0.5, F_s=0.6, stribeck_exponent=2.0, K=1e4, beta=1e-2), "v_stribeck"),
    ("CoulombODE viscous < 0", lambda: ss.laws.CoulombODE(F=0.5, viscous=-1.0, K=1e4,
                                                          beta=1e-3), "CoulombODE.viscous"),
    ("CoulombODE drop too steep", lambda: ss.laws.CoulombODE(
        F=0.4, F_s=0.5, v_stribeck=1e-4, K=1e4, beta=1e-3), "K·beta + viscous"),
    ("CoulombODE.tuned mu_s < mu", lambda: ss.laws.CoulombODE.tuned(
        mass=1.0, K=1e4, mu=0.5, mu_s=0.3), "mu_s"),
    ("for_tolerance unreachable", lambda: ss.laws.CoulombODE.for_tolerance(
        mass=1.0, F=0.5, tol=1e-6, slide_time=1e5), "cannot reach tol"),
    ("CoulombODE no K", lambda: ss.laws.CoulombODE(F=0.5, beta=1e-3), "CoulombODE.K"),
    ("CoulombODE mu<0", lambda: ss.laws.CoulombODE(mu=-0.1, K=1e4, beta=1e-3), "CoulombODE.mu"),
    ("LuGre mu_k>mu_s", lambda: ss.laws.LuGre(mu_s=0.2, mu_k=0.3), "LuGre.mu_k"),
    ("LuGre vs=0", lambda: ss.laws.LuGre(vs=0.0), "LuGre.vs"),
    ("LuGre k0 inf", lambda: ss.laws.LuGre(k0=INF), "LuGre.k0"),
    ("TanhCoulomb v_eps<0", lambda: ss.laws.TanhCoulomb(F=0.5, v_eps=-1e-3), "TanhCoulomb.v_eps"),
    ("TanhCoulomb no level", lambda: ss.laws.TanhCoulomb(), "TanhCoulomb"),
    ("UnilateralODE alpha>beta", lambda: ss.laws.UnilateralODE(K=1e5, beta=1e-3, alpha=2e-3),
     "UnilateralODE.alpha"),
    ("UnilateralODE K=0", lambda: ss.laws.UnilateralODE(K=0.0, beta=1e-3, alpha=1e-3),
     "UnilateralODE.K"),
    ("KelvinVoigt c<0", lambda: ss.laws.KelvinVoigt(k=1e5, c=-1.0), "KelvinVoigt.c"),
    ("HuntCrossley n=0", lambda: ss.laws.HuntCrossley(k=1e7, lam=1e6, n=0.0), "HuntCrossley.n"),
    ("replace re-validates", lambda: LAW.replace(K=-5.0), "CoulombODE.K"),
    ("for_tolerance tol<0", lambda: ss.laws.CoulombODE.for_tolerance(mass=1.0, F=0.5, tol=-1.0),
     "tol"),
    ("for_tolerance push<F", lambda: ss.laws.CoulombODE.for_tolerance(mass=1.0, F=0.5, tol=1e-4,
                                                                       push=0.1), "push"),
    ("for_tolerance damping_ratio=0", lambda: ss.laws.CoulombODE.for_tolerance(
        mass=1.0, F=0.5, tol=1e-4, damping_ratio=0.0), "damping_ratio"),
    ("impact_response alpha>beta",
     lambda: ss.laws.contact_tuning.impact_response(1.0, 1e4, 1e-3, 2e-3), "alpha"),
    ("alpha_for_restitution e>1",
     lambda: ss.laws.contact_tuning.alpha_for_restitution(1.0, 1e4, 5e-3, 1.2), "restitution"),
    ("alpha_for_restitution g without v_impact",
     lambda: ss.laws.contact_tuning.alpha_for_restitution(1.0, 1e4, 5e-3, 0.8, g=9.81),
     "v_impact"),
    # --- systems ---------------------------------------------------------------------------
    ("FrictionMass M array", lambda: _block(M=jnp.array([1.0, 2.0])), "FrictionMass.M"),
    ("FrictionMass law F array",
     lambda: _block(law=ss.laws.CoulombODE(F=[0.5, 0.6], K=1e4, beta=1e-3)),
     "FrictionMass.law.F"),
    ("FrictionMass M=0", lambda: _block(M=0.0), "FrictionMass.M"),
    ("FrictionMass contact law", lambda: _block(law=WALL), "FrictionMass.law"),
    ("FrictionMass if on t", lambda: _block(force=_if_on_t), "jnp.where"),
    ("FrictionMass force not callable", lambda: _block(force="0.5"), "FrictionMass.force"),
    ("FrictionMass force nan", lambda: _block(force=lambda t: jnp.nan * t), "FrictionMass.force"),
    ("FrictionMass stiffness<0", lambda: _block(stiffness=-1.0), "FrictionMass.stiffness"),
    ("FrictionMass belt if on t", lambda: _block(surface_velocity=_if_on_t),
     "FrictionMass.surface_velocity"),
    ("FrictionMass state force wrong shape",
     lambda: _block(force=lambda t, p, v: jnp.zeros(2)), "FrictionMass.force"),
    ("FrictionMass p0 nan", lambda: _block(p0=NAN), "FrictionMass.p0"),
    ("ContactMass g<0", lambda: ss.systems.ContactMass(M=1.0, law=WALL, g=-9.81),
     "ContactMass.g"),
    ("ContactMass friction law", lambda: ss.systems.ContactMass(M=1.0, law=LAW),
     "ContactMass.law"),
    ("ContactMass if on t", lambda: ss.systems.ContactMass(M=1.0, law=WALL, force=_if_on_t),
     "ContactMass.force"),
    ("ContactMass law K array",
     lambda: ss.systems.ContactMass(M=1.0, law=ss.laws.UnilateralODE(
         K=[1e5, 1e6], beta=1e-3, alpha=5e-4)), "ContactMass.law.K"),
    ("PointOnPlane v0 shape", lambda: ss.systems.PointOnPlane(M=1.0, v0=(0.0, 0.0)),
     "PointOnPlane.v0"),
    ("PointOnPlane force shape", lambda: ss.systems.PointOnPlane(M=1.0, force=lambda t: t),
     "PointOnPlane.force"),
    # a fixed level braked a point in free flight (10 m up, 1 m/s: stopped in mid-air)
    ("PointOnPlane fixed friction level", lambda: ss.systems.PointOnPlane(
        M=1.0, friction=ss.laws.CoulombODE(F=3.0, K=1e4, beta=2e-2)),
     "`PointOnPlane.friction` must scale with the normal force"),
    ("TwoBlocks M2<0", lambda: ss.systems.TwoBlocksConveyor(M2=-2.0), "TwoBlocksConveyor.M2"),
    ("TwoBlocks two contacts", lambda: ss.systems.TwoBlocksConveyor(contacts=(WALL, WALL)),
     "TwoBlocksConveyor.contacts"),
    ("HuntCrossley step too large",
     lambda: ss.simulate(ss.systems.ContactMass(M=1.0, law=ss.laws.HuntCrossley(
         k=1e10, lam=1e6), p0=1.0), 1.0, dt=1e-3), "HuntCrossley"),
    # --- controllers and plants -------------------------------------------------------------
    ("PSMC F<0", lambda: ss.control.PSMC(**{**GAINS, "F": -1.0}), "PSMC.F"),
    ("PSMC L<0", lambda: ss.control.PSMC(**{**GAINS, "L": -1.0}), "PSMC.L"),
    ("PSMC Routh-Hurwitz", lambda: ss.control.PSMC(**GAINS, M=10.0), "B·K > M·L"),
    ("PSMC T string", lambda: ss.control.PSMC(**{**GAINS, "T": "1e-3"}), "PSMC.T"),
    ("PID B<0", lambda: ss.control.PID(K=1.0, L=0.0, B=-1.0, T=1e-3), "PID.B"),
    ("PID f_max=0", lambda: ss.control.PID(K=1.0, L=0.0, B=1.0, T=1e-3, f_max=0.0),
     "PID.f_max"),
    ("NaiveSMC H=0", lambda: ss.control.NaiveSMC(F=1.0, H=0.0, T=1e-3), "NaiveSMC.H"),
    ("RenderedFriction B=0", lambda: ss.control.RenderedFriction(F=1.0, K=0.0, B=0.0, T=1e-3),
     "RenderedFriction.B"),
    ("psmc_step wrong params", lambda: ss.control.psmc_step(None, 0.0, 0.0, GAINS), "params"),
    ("MassPlant M array", lambda: ss.control.MassPlant(M=[1.0, 2.0]), "MassPlant.M"),
    ("MassPlant disturbance if", lambda: ss.control.MassPlant(M=1.0, disturbance=_if_on_t),
     "MassPlant.disturbance"),
    ("SingleLinkArm I=0", lambda: ss.control.SingleLinkArm(I=0.0, m=1.0, lc=0.1),
     "SingleLinkArm.I"),
    ("ActuatedSystem row", lambda: ss.control.ActuatedSystem(_block(), input_row="x"),
     "input_row"),
    ("closed loop substeps=0",
     lambda: ss.control.simulate_closed_loop(ss.control.MassPlant(M=1.0),
                                             ss.control.PSMC(**GAINS), 0.01, substeps=0),
     "substeps"),
    # --- tire -----------------------------------------------------------------------------
    ("BrushTire Fz=0", lambda: ss.discrete.BrushTire(**{**TIRE, "Fz": 0.0}), "BrushTire.Fz"),
    ("BrushTire R nan", lambda: ss.discrete.BrushTire(**{**TIRE, "R": NAN}), "BrushTire.R"),
    ("BrushTire n_cells", lambda: ss.discrete.BrushTire(**{**TIRE, "n_cells": 1}),
     "BrushTire.n_cells"),
    ("brush_tire_step T<0",
     lambda: ss.discrete.brush_tire_step(jnp.zeros(51), 10.0, 30.0, -1e-3,
                                         ss.discrete.BrushTire(**TIRE)), "brush_tire_step.T"),
    ("brush_tire_step tire", lambda: ss.discrete.brush_tire_step(jnp.zeros(51), 10.0, 30.0,
                                                                 1e-3, TIRE), "tire"),
    # --- discrete steps -----------------------------------------------------------------------
    ("coulomb_mass_step M=0", lambda: ss.discrete.coulomb_mass_step(0.0, 1.0, 0.0, 0.5, 1e-3),
     "coulomb_mass_step.M"),
    ("coulomb_mass_step F<0", lambda: ss.discrete.coulomb_mass_step(0.0, 1.0, 1.0, -0.5, 1e-3),
     "coulomb_mass_step.F"),
    ("da_relaxation_step K<0",
     lambda: ss.discrete.da_relaxation_step(0.0, 1.0, 1.0, -1.0, 1.0, 1e-3),
     "da_relaxation_step.K"),
    ("sign_inclusion_step T inf", lambda: ss.discrete.sign_inclusion_step(0.0, 1.0, INF),
     "sign_inclusion_step.T"),
    ("CoulombMass F array", lambda: ss.discrete.CoulombMass(M=1.0, F=[0.5, 1.0], T=1e-3),
     "CoulombMass.F"),
    ("CoulombMass v0 nan", lambda: ss.discrete.CoulombMass(M=1.0, F=0.5, T=1e-3, v0=NAN),
     "CoulombMass.v0"),
    ("DARelaxation T=0", lambda: ss.discrete.DARelaxation(F=1.0, K=1.0, B=1.0, T=0.0),
     "DARelaxation.T"),
    ("CoulombMass step nan", lambda: ss.discrete.CoulombMass(M=1.0, F=0.5, T=1e-3).step(NAN),
     "non-finite h"),
    # --- C export -------------------------------------------------------------------------
    ("export_c unknown", lambda: ss.discrete.export_c("lugre", "/tmp"), "lugre"),
    ("export_c object", lambda: ss.discrete.export_c(3.0, "/tmp"), "cannot export"),
    ("export_c law", lambda: ss.discrete.export_c(WALL, "/tmp"), "cannot export"),
    # --- inclusion builders ---------------------------------------------------------------
    ("inclusion mass nan", lambda: _ball(m=NAN), "m"),
    ("inclusion zero mass at simulate", lambda: _simulate_ball_with(m=0.0), "m=0"),
    ("inclusion with_parameters nan", lambda: _compiled_ball().with_parameters(g=NAN), "ball.g"),
    ("inclusion unknown parameter", lambda: _compiled_ball().with_parameters(q=1.0), "q"),
    ("inclusion unknown state", lambda: _compiled_ball().with_initial(z=1.0), "z"),
    ("inclusion bad K", lambda: _compiled_ball(K=-1.0), "K"),
    # derived parameters name the user's input, not the derived beta (issue 24)
    ("CoulombODE.tuned mass<0", lambda: ss.laws.CoulombODE.tuned(mass=-1.0, K=1e4, F=0.5),
     "`CoulombODE.tuned.mass` must be > 0; got mass=-1.0"),
    ("CoulombODE.tuned K=0", lambda: ss.laws.CoulombODE.tuned(mass=1.0, K=0.0, F=0.5),
     "`CoulombODE.tuned.K` must be > 0"),
    ("CoulombODE.tuned K nan", lambda: ss.laws.CoulombODE.tuned(mass=1.0, K=NAN, F=0.5),
     "`CoulombODE.tuned.K` must be finite"),
    ("CoulombODE.tuned mass inf", lambda: ss.laws.CoulombODE.tuned(mass=INF, K=1e4, F=0.5),
     "`CoulombODE.tuned.mass` must be finite"),
    ("CoulombODE.tuned zeta<0", lambda: ss.laws.CoulombODE.tuned(mass=1.0, K=1e4, F=0.5,
                                                                damping_ratio=-1.0),
     "`CoulombODE.tuned.damping_ratio` must be > 0"),
    ("compile non-inclusion", lambda: ss.inclusion.compile_inclusion("x"), "DifferentialInclusion"),
    ("inclusion negative bound",
     lambda: ss.inclusion.compile_inclusion(_sgn_of_x()),
     "cannot be shown"),
]


def _sgn_of_x():
    import sympy as sp

    from stickslip.inclusion import DifferentialInclusion, Sgn

    x, c = sp.symbols("x c")
    return DifferentialInclusion([x], [-c * Sgn(x)], parameters={c: -1.0}, initial={x: 1.0})


@pytest.mark.parametrize("build, needle", [(b, n) for _, b, n in CASES],
                         ids=[name for name, _, _ in CASES])
def test_bad_input_raises_a_stickslip_error_naming_it(build, needle):
    with pytest.raises(ss.StickslipError) as info:
        build()
    assert needle in str(info.value), str(info.value)


def test_case_count():
    assert len(CASES) >= 50
    assert np.unique([name for name, _, _ in CASES]).size == len(CASES)


# --- plausible ranges (issue 24): a friction coefficient of 50 is a percentage by mistake ----

def _point_line_contact(**kwargs):
    m = ss.planar.Model()
    body = m.add_body("block", mass=1.0, inertia=1e-3)
    return ss.planar.PointLineContact(body, m.ground, **kwargs)


def _spatial_ground(**kwargs):
    return ss.spatial.SpatialModel().add_ground(**{"mu_s": 0.5, "mu_k": 0.3, **kwargs})


IMPLAUSIBLE = [
    ("CoulombODE.mu", lambda: ss.laws.CoulombODE(mu=50, K=1e4, beta=1e-3)),
    ("CoulombODE.mu_s", lambda: ss.laws.CoulombODE(mu=0.3, mu_s=50, K=1e4, beta=1e-3)),
    ("LuGre.mu_s", lambda: ss.laws.LuGre(mu_s=50, mu_k=0.2, vs=1e-3, k0=1e5, k1=300.0, k2=0.4)),
    ("TanhCoulomb.mu", lambda: ss.laws.TanhCoulomb(mu=50, v_eps=1e-3)),
    ("ground.mu_s", lambda: _spatial_ground(mu_s=50, mu_k=0.3)),
    ("ground.mu_k", lambda: _spatial_ground(mu_s=60, mu_k=50)),
    ("Model.mu_s", lambda: ss.spatial.SpatialModel(mu_s=50, mu_k=0.3)),
    ("ContactPair.mu", lambda: ss.spatial.ContactPair("a", "b", mu=50)),
    ("ContactPair.mu_s", lambda: ss.spatial.ContactPair("a", "b", mu=0.3, mu_s=50)),
    ("PointLineContact.mu", lambda: _point_line_contact(mu=50)),
]


@pytest.mark.parametrize("needle, build", IMPLAUSIBLE, ids=[n for n, _ in IMPLAUSIBLE])
def test_friction_coefficient_of_50_warns_with_the_likely_percentage_slip(needle, build):
    with pytest.warns(ss.errors.ImplausibleParameterWarning) as record:
        build()                          # accepted: the value is valid, only implausible
    warning = next(w for w in record if f"`{needle}`=50" in str(w.message))
    message = str(warning.message)
    assert "looks like a percentage" in message and "did you mean 0.5?" in message
    assert "usually 0–1.5" in message and "[0, 2]" in message
    assert warning.filename == __file__        # points at the user's line, not at stickslip


def test_plausible_coefficients_do_not_warn_and_above_2_warns_without_a_guess():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", ss.errors.ImplausibleParameterWarning)
        ss.laws.CoulombODE(mu=1.2, mu_s=2.0, K=1e4, beta=1e-3)
        _spatial_ground(mu_s=1.0, mu_k=0.8)
        ss.spatial.ContactPair("a", "b", mu=0.0)
    with pytest.warns(ss.errors.ImplausibleParameterWarning, match=r"`CoulombODE.mu`=2.5 is "
                      r"outside the plausible range \[0, 2\]") as record:
        ss.laws.CoulombODE(mu=2.5, K=1e4, beta=1e-3)
    assert "percentage" not in str(record[0].message)
    assert issubclass(ss.errors.ImplausibleParameterWarning, UserWarning)


def test_the_friction_coefficient_rule_declares_its_plausible_range():
    from stickslip._parameters import FRICTION_COEFFICIENT, Rule

    assert FRICTION_COEFFICIENT.plausible == (0.0, 2.0)
    assert Rule("positive").plausible is None        # no range: nothing to warn about
