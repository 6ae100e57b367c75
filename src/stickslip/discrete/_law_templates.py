"""C templates of the friction laws, for :func:`export_c` and :func:`export_fmu` (issue 24,
item 6): a law driven by the sliding velocity ``v`` (and the normal force ``N`` for a level
``mu·N``) held over each sample of period T, its state equation integrated inside the C by
the package's fixed-step RK4, its friction force ``f`` the output.

Exported (each C function mirrors the law's ``force_and_rate`` operation by operation, and
the RK4 step mirrors :func:`stickslip.integrate.rk_step` with the ``"rk4"`` tableau):

* :class:`~stickslip.laws.CoulombODE` (SPEC §2, eq. 9) with a fixed level ``F`` or ``mu·N``,
  as ``law_coulomb_ode`` / ``law_coulomb_ode_mu``; with a friction curve — a static level
  ``F_s`` / ``mu_s`` and a viscous term, no Stribeck drop — as ``law_coulomb_ode_curve`` /
  ``law_coulomb_ode_curve_mu`` (the closed-form slip speed of
  :mod:`stickslip.laws._stribeck`);
* :class:`~stickslip.laws.LuGre` (SPEC §8) as ``law_lugre`` (inputs ``v``, ``N``);
* :class:`~stickslip.laws.TanhCoulomb` (no state: ``f = −F·tanh(v/v_eps)``) as
  ``law_tanh_coulomb`` / ``law_tanh_coulomb_mu``.

The names start with ``law_`` (a name alone exports nothing useful without the law's
parameters: pass the law object, whose values become the FMU parameters' start values).

``exp`` and ``tanh`` are the C library's, not XLA's: they differ by an ulp or two, which the
laws' contracting state equations do not amplify (the test measures ≤ 1e-15 N).

**RK4 steps per sample** (the rule, the same in the C and in the test's Python reference):
with the inputs held, the state equation's decay rate λ [1/s] is 1/β for CoulombODE (its
slip mode; the stick mode is neutral, and a viscous term only slows the slip mode to
K/(Kβ + σ)) and ``|v|/max(g(v), floor)`` for LuGre (its bristle equation is linear in z
with v held); a sample of T takes ``n = max(substeps, ceil(T·λ/(κ·h₄)))`` RK4 steps of T/n,
with h₄ = :data:`RK4_LIMIT` (λ·h at the edge of RK4's stability on the negative real axis,
from :func:`stickslip.largest_stable_step`'s mode rule) and κ = :data:`STEP_FRACTION` = ½,
the package's usual fraction of the largest stable step. ``substeps`` (an FMU parameter,
default the rule's count at the exported T for CoulombODE, 1 for LuGre) can ask for more. A
sample that would need more than :data:`MAX_SUBSTEPS` steps counts as a fault.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..errors import ParameterError
from ..integrate import FIXED_STEP_METHODS, mode_step_limit
from ..laws import LUGRE_G_FLOOR, AbstractLaw, CoulombODE, LuGre, TanhCoulomb
from ._export_c import CTemplate, register_c
from ._fmu_variables import CHANNELS

__all__ = ["LAW_TEMPLATES", "MAX_SUBSTEPS", "RK4_LIMIT", "STEP_FRACTION", "stable_substeps"]

RK4_LIMIT = mode_step_limit(FIXED_STEP_METHODS["rk4"], -1.0 + 0j)
"""|λ|·h at the edge of RK4's stability region on the negative real axis (≈ 2.7853)."""
STEP_FRACTION = 0.5
"""κ: the fraction of the largest stable step an RK4 step of the FMU takes at most."""
MAX_SUBSTEPS = 1_000_000
"""The most RK4 steps in one sample; a sample that needs more is a fault (state kept)."""
DEFAULT_T = 1e-3      # the sample period [s] when none is given
SUPPORTED = ("CoulombODE (level F or mu; static F_s/mu_s and viscous, no v_stribeck), "
             "LuGre, TanhCoulomb")
_B1, _B2 = FIXED_STEP_METHODS["rk4"].b[:2]          # 1/6, 1/3 (rk_step's weights)


def stable_substeps(T: float, decay: float) -> int:
    """RK4 steps per sample of `T` [s] for a decay rate `decay` [1/s] (module docstring):
    ``max(1, ceil(T·λ/(κ·h₄)))``, evaluated as the C evaluates it."""
    return max(1, math.ceil(T * decay / (STEP_FRACTION * RK4_LIMIT)))


# --- C pieces -----------------------------------------------------------------------------

_T = ("T", "sample period: the communication step [s] > 0")
_SUBSTEPS = ("substeps", ("least RK4 steps per sample, a whole number >= 1 (the FMU takes "
                          "more where the law's stiffness needs them)"))
_FAULTS = ("unsigned long", "faults", ("samples rejected for a non-finite input or a step "
                                       "count above 1e6"))
_STEPS = ("unsigned long", "steps", "RK4 steps taken in the last sample")


def _level(field: str, by_mu: bool) -> str:
    """The C of a friction level: ``prm->F`` or ``prm->mu * max(N, 0)`` (law.level)."""
    return f"prm->{field} * (N > 0.0 ? N : 0.0)" if by_mu else f"prm->{field}"


def _check(fields: list[tuple[str, str]], ode: bool) -> str:
    """check_body: each field's rule ('positive', 'nonnegative', or a C condition on x)."""
    rules = {"positive": "x > 0.0", "nonnegative": "x >= 0.0"}
    lines = []
    for i, (name, rule) in enumerate(fields, start=1):
        test = rules.get(rule, rule).replace("x", f"prm->{name}")
        lines.append(f"    if (!({test}) || !isfinite(prm->{name})) return {i};\n")
    n = len(fields)
    lines.append(f"    if (!(prm->T > 0.0) || !isfinite(prm->T)) return {n + 1};\n")
    if ode:
        lines.append(f"    if (!(prm->substeps >= 1.0 && prm->substeps <= {MAX_SUBSTEPS}.0)\n"
                     "        || prm->substeps != (double)(unsigned long)prm->substeps) "
                     f"return {n + 2};\n")
    return "".join(lines) + "    return 0;\n"


def _fault(by_mu: bool) -> str:
    bad = "!isfinite(v) || !isfinite(N)" if by_mu else "!isfinite(v)"
    return f"    if ({bad}) {{\n        s->faults += 1;\n        return 0.0;\n    }}\n"


def _ode_step(state: str, decay: str, by_mu: bool) -> str:
    """step_body: n RK4 steps of the state over one sample, then the force at its end."""
    args = "v, N" if by_mu else "v"
    limit = STEP_FRACTION * RK4_LIMIT

    def stage(x: str) -> str:
        return f"law_rate(prm, {x}, {args}, &f)"
    return f"""    const double T = prm->T;
    double x, need, dt, k1, k2, k3, k4, f;
    unsigned long i, steps;
{_fault(by_mu)}    need = T * ({decay}) / {limit!r};  /* T*lambda/(kappa*h4) */
    if (!(need <= {MAX_SUBSTEPS}.0)) {{
        s->faults += 1;
        return 0.0;
    }}
    steps = (unsigned long)need;
    if ((double)steps < need) steps += 1;           /* ceil */
    if (prm->substeps > (double)steps) steps = (unsigned long)prm->substeps;
    dt = T / (double)steps;
    x = s->{state};
    for (i = 0; i < steps; i++) {{                  /* stickslip.integrate.rk_step, "rk4" */
        k1 = {stage("x")};
        k2 = {stage("x + (dt * 0.5) * k1")};
        k3 = {stage("x + (dt * 0.5) * k2")};
        k4 = {stage("x + dt * k3")};
        x = x + dt * ((({_B1!r} * k1
                        + {_B2!r} * k2)
                       + {_B2!r} * k3)
                      + {_B1!r} * k4);
    }}
    s->{state} = x;
    s->steps = steps;
    (void){stage("x")};  /* the force at the sample's end */
    return f;
"""


def _rate_helper(name: str, state: str, by_mu: bool, body: str) -> str:
    n_arg = ", double N" if by_mu else ""
    return (f"static double law_rate(const stickslip_{name}_params *prm, double {state}, "
            f"double v{n_arg}, double *force)\n{{\n{body}}}\n")


def _coulomb(curve: bool, by_mu: bool) -> CTemplate:
    name = "law_coulomb_ode" + ("_curve" if curve else "") + ("_mu" if by_mu else "")
    kinetic, static = ("mu", "mu_s") if by_mu else ("F", "F_s")
    level_doc = ("friction coefficient mu (level mu*N)" if by_mu else
                 "friction level F [N] >= 0")
    params = [(kinetic, "kinetic " + level_doc)]
    rules = [(kinetic, "nonnegative")]
    if curve:
        params += [(static, "static " + level_doc.replace("F [N]", "F_s [N]").replace(
            "mu (", "mu_s (") + f" >= {kinetic}"),
            ("viscous", "viscous friction coefficient [N s/m] >= 0")]
        rules += [(static, f"x >= prm->{kinetic}"), ("viscous", "nonnegative")]
    params += [("K", "proxy stiffness [N/m] > 0"), ("beta", "proxy time constant [s] > 0")]
    rules += [("K", "positive"), ("beta", "positive")]
    if not curve:          # CoulombODE.force_and_rate without a curve: sat(level/K, z)
        body = f"""    const double z = a + prm->beta * v;
    const double w = stickslip_sat({_level(kinetic, by_mu)} / prm->K, z);   /* eq. 9b */
    *force = -prm->K * w;
    return (w - a) / prm->beta;                                             /* eq. 9a */
"""
    else:                  # with the curve: laws._stribeck.proxy_slip_speed and curve
        body = f"""    const double z = a + prm->beta * v;
    const double squared = z * z;
    const int positive = squared > 0.0;
    const double r = positive ? sqrt(squared) : 1.0;
    const double kinetic = {_level(kinetic, by_mu)};
    const double stat = {_level(static, by_mu)};
    const double drive = prm->K * (positive ? r : 0.0);
    const double slope = prm->K * prm->beta + prm->viscous;
    const double excess = drive - kinetic;
    const double s = drive > stat ? (excess > 0.0 ? excess : 0.0) / slope : 0.0;
    const double speed = fabs(s);
    const double level = (speed > 0.0 ? kinetic : stat) + prm->viscous * speed;
    const double w = s > 0.0 ? (level / prm->K) * (z / r) : z;           /* eq. 9b */
    *force = -prm->K * w;
    return (w - a) / prm->beta;                                          /* eq. 9a */
"""
    what = ("with a static level and viscous friction" if curve else "(SPEC 2, eq. 9)")
    return CTemplate(
        name=name,
        summary=f"CoulombODE friction law {what}, driven by a held sliding velocity, RK4",
        params=(*params, _T, _SUBSTEPS),
        state=(("double", "a", "proxy state a: the proxy's offset from the body [m]"),
               _STEPS, _FAULTS),
        step_args="double v, double N" if by_mu else "double v",
        step_doc="Holds the sliding velocity v [m/s] over one sample T; returns the friction\n"
                 " * force on the body at its end [N] (opposing v) and updates s->a.",
        init_body="    s->a = 0.0;\n    s->steps = 0;\n    s->faults = 0;\n",
        check_body=_check(rules, ode=True),
        step_body=_ode_step("a", "1.0 / prm->beta", by_mu),
        helpers=_rate_helper(name, "a", by_mu, body))


LUGRE = CTemplate(
    name="law_lugre",
    summary="LuGre friction law (SPEC 8), driven by a held sliding velocity, RK4",
    params=(("mu_s", "static friction coefficient mu_s >= mu_k"),
            ("mu_k", "kinetic friction coefficient mu_k >= 0"),
            ("vs", "Stribeck velocity [m/s] > 0"), ("k0", "bristle stiffness [N/m] > 0"),
            ("k1", "bristle damping [N s/m] >= 0"),
            ("k2", "viscous friction coefficient [N s/m] >= 0"), _T, _SUBSTEPS),
    state=(("double", "z", "bristle deflection z [m]"), _STEPS, _FAULTS),
    step_args="double v, double N",
    step_doc="Holds the sliding velocity v [m/s] and the normal force N [N] over one sample\n"
             " * T; returns the friction force on the body at its end [N] and updates s->z.",
    init_body="    s->z = 0.0;\n    s->steps = 0;\n    s->faults = 0;\n",
    check_body=_check([("mu_s", "x >= prm->mu_k"), ("mu_k", "nonnegative"),
                       ("vs", "positive"), ("k0", "positive"), ("k1", "nonnegative"),
                       ("k2", "nonnegative")], ode=True),
    step_body=_ode_step("z", "law_decay(prm, v, N)", by_mu=True),
    helpers=f"""static double law_g(const stickslip_law_lugre_params *prm, double speed, double N)
{{
    /* g(v) = (F_c + (F_s - F_c) exp(-(v/vs)^2)) / k0, floored (LuGre.force_and_rate) */
    const double n = N > 0.0 ? N : 0.0;
    const double f_c = prm->mu_k * n, f_s = prm->mu_s * n;
    const double x = speed / prm->vs;
    const double g = (f_c + (f_s - f_c) * exp(-(x * x))) / prm->k0;
    return g > {LUGRE_G_FLOOR!r} ? g : {LUGRE_G_FLOOR!r};
}}

static double law_decay(const stickslip_law_lugre_params *prm, double v, double N)
{{
    /* the decay rate |v|/g(v) [1/s] of dz/dt = v - |v| z/g(v) with v held */
    return fabs(v) / law_g(prm, fabs(v), N);
}}

static double law_rate(const stickslip_law_lugre_params *prm, double z, double v, double N,
                       double *force)
{{
    const double speed = fabs(v);
    const double z_rate = v - speed * z / law_g(prm, speed, N);
    *force = -((prm->k0 * z + prm->k1 * z_rate) + prm->k2 * v);
    return z_rate;
}}
""")


def _tanh(by_mu: bool) -> CTemplate:
    field = "mu" if by_mu else "F"
    doc = "friction coefficient mu (level mu*N)" if by_mu else "friction level F [N] >= 0"
    return CTemplate(
        name="law_tanh_coulomb" + ("_mu" if by_mu else ""),
        summary="TanhCoulomb friction law (smoothed Coulomb), of a held sliding velocity",
        params=((field, doc), ("v_eps", "transition velocity [m/s] > 0"), _T),
        state=(_FAULTS,),
        step_args="double v, double N" if by_mu else "double v",
        step_doc="Returns the friction force -level*tanh(v/v_eps) on the body [N] for the\n"
                 " * sliding velocity v [m/s] (the law has no state).",
        init_body="    s->faults = 0;\n",
        check_body=_check([(field, "nonnegative"), ("v_eps", "positive")], ode=False),
        step_body=(_fault(by_mu) + f"    return -({_level(field, by_mu)}) * "
                   "tanh(v / prm->v_eps);\n"))


# --- registration: which law exports as which template, with which values ------------------

@dataclass(frozen=True)
class LawExport:
    """How a template's parameter values map back to the law (to validate them) and the
    state equation's constant decay rate λ [1/s] (None: it depends on the inputs)."""

    build: Callable[[dict[str, float]], AbstractLaw]
    decay: Callable[[dict[str, float]], float] | None


LAW_TEMPLATES: dict[str, LawExport] = {}
"""{template name: LawExport} of the law templates (export_fmu's T and substeps)."""


def _number(law: Any, name: str, value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ParameterError(f"`{type(law).__name__}.{name}` must be one number to export; got "
                             f"{value!r}. Export one law (not a batch) at a time.") from None


def _values(law: Any, template: CTemplate, fields: dict[str, Any]) -> dict[str, float]:
    out = {k: _number(law, k, v) for k, v in fields.items()}
    export = LAW_TEMPLATES[template.name]
    if export.decay is not None:
        out["substeps"] = float(stable_substeps(DEFAULT_T, export.decay(out)))
    elif "substeps" in dict(template.params):
        out["substeps"] = 1.0
    return {**out, "T": DEFAULT_T}


def _coulomb_of(curve: bool, by_mu: bool, template: CTemplate):
    def parameters_of(law: CoulombODE) -> dict[str, float] | None:
        if law.v_stribeck is not None:
            raise ParameterError(
                "`export_c`: a CoulombODE with a Stribeck drop (v_stribeck) cannot be "
                "exported yet: its slip speed needs an iterative solve. Leave v_stribeck out "
                f"(F_s/mu_s and viscous are exported). Exported laws: {SUPPORTED}.")
        if law.has_curve != curve or (law.mu is not None) != by_mu:
            return None                       # another variant takes it
        fields: dict[str, Any] = {"mu": law.mu} if by_mu else {"F": law.F}
        if curve:
            static = law.mu_s if by_mu else law.F_s
            fields[("mu_s" if by_mu else "F_s")] = static if static is not None else (
                law.mu if by_mu else law.F)
            fields["viscous"] = 0.0 if law.viscous is None else law.viscous
        return _values(law, template, {**fields, "K": law.K, "beta": law.beta})
    return parameters_of


def _refuse(law: AbstractLaw) -> None:
    raise ParameterError(
        f"`export_c` cannot export a {type(law).__name__} law; the exported laws are "
        f"{SUPPORTED} (friction: sliding velocity v in, force f out).")


def _law_fields(values: dict[str, float]) -> dict[str, float]:
    return {k: v for k, v in values.items() if k not in ("T", "substeps")}


for _curve in (False, True):
    for _by_mu in (False, True):
        _template = _coulomb(_curve, _by_mu)
        LAW_TEMPLATES[_template.name] = LawExport(
            build=lambda values: CoulombODE(**_law_fields(values)),
            decay=lambda values: 1.0 / values["beta"])
        register_c(_template, objects={CoulombODE: _coulomb_of(_curve, _by_mu, _template)})
        CHANNELS[_template.name] = {
            "inputs": {"v": ("sliding velocity of the body, held over the sample [m/s]", "m/s"),
                       "N": ("normal force, held over the sample [N]", "N")},
            "result": ("f", "friction force on the body at the sample's end [N] (opposes v)",
                       "N")}

LAW_TEMPLATES["law_lugre"] = LawExport(build=lambda values: LuGre(**_law_fields(values)),
                                       decay=None)
register_c(LUGRE, objects={LuGre: lambda law: _values(law, LUGRE, {
    k: getattr(law, k) for k in ("mu_s", "mu_k", "vs", "k0", "k1", "k2")})})
CHANNELS["law_lugre"] = CHANNELS["law_coulomb_ode_mu"]


def _tanh_of(by_mu: bool, template: CTemplate):
    def parameters_of(law: TanhCoulomb) -> dict[str, float] | None:
        if (law.mu is not None) != by_mu:
            return None                       # the other variant takes it
        level = {"mu": law.mu} if by_mu else {"F": law.F}
        return _values(law, template, {**level, "v_eps": law.v_eps})
    return parameters_of


for _by_mu in (False, True):
    _template = _tanh(_by_mu)
    LAW_TEMPLATES[_template.name] = LawExport(
        build=lambda values: TanhCoulomb(**_law_fields(values)), decay=None)
    register_c(_template, objects={TanhCoulomb: _tanh_of(_by_mu, _template)})
    CHANNELS[_template.name] = CHANNELS["law_coulomb_ode_mu"]

# Last, so a law class registered above is found first: every other law is refused by name.
register_c(LUGRE, objects={AbstractLaw: _refuse})
