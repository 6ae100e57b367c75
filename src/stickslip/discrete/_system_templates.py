"""C templates of the 1-D systems' time steps, for :func:`export_c` and :func:`export_fmu`.

``FrictionMass`` (with a ``CoulombODE`` law) and ``ContactMass`` (with ``NewtonImpact``)
export as their ``simulate(..., method="moreau_jean")`` step (:meth:`moreau_jean_step`,
:mod:`stickslip.integrate._moreau_jean`): friction and impacts are solved exactly in closed
form, so the C is short and mirrors the Python operation by operation (the FMU equals
``simulate`` to round-off). The ODE route is not exported: its laws (LuGre's exp, a stiff
proxy) would need the same step-size control and elementary functions as XLA to agree.

The system's applied ``force`` callable is not exported: the applied force is the step's
input ``fe`` [N], held over each step (an FMU input). Its parameters, its start position and
velocity, θ (default 0.5, as ``simulate``) and the step T (default 1e-3 s; override with
``params={"T": ...}``) are parameters. A `simulate` run with a force that is constant over
each step [t_k, t_k + T) gives the same samples: the load's impulse is taken by Gauss–Legendre
quadrature with no node on the step's ends.
"""

from __future__ import annotations

import warnings
from typing import Any

from ..errors import ParameterError
from .._quadrature import WEIGHTS as _WEIGHTS
from ..laws import CoulombODE, NewtonImpact
from .._time_functions import Constant, zero_force
from ..systems import ContactMass, FrictionMass
from ._export_c import CTemplate, register_c

__all__ = ["CONTACT_MASS", "FRICTION_MASS"]

DEFAULT_T = 1e-3      # the step [s] when none is given: the FMU parameter T's start value
DEFAULT_THETA = 0.5   # simulate's default θ (stickslip.integrate._moreau_jean.check_theta)

# impulse = h·Σ w_i·G(t + h·x_i): the load held over the step is G at every node
_IMPULSE = "h * (" + "\n        + ".join(f"{float(w)!r} * G" for w in _WEIGHTS) + ")"

_FAULT = """    if (!isfinite(fe)) {
        s->faults += 1;
        return 0.0;
    }
"""

FRICTION_MASS = CTemplate(
    name="friction_mass",
    summary="FrictionMass with Coulomb friction, one Moreau-Jean step (Acary & Brogliato 2008)",
    params=(("M", "mass [kg] > 0"),
            ("F", "kinetic friction level F or mu*N [N] >= 0"),
            ("F_s", "static friction level F_s or mu_s*N [N] >= F"),
            ("viscous", "viscous friction coefficient [N s/m] >= 0"),
            ("stiffness", "spring to the anchor [N/m] >= 0"),
            ("anchor", "where the spring is relaxed [m]"),
            ("damping", "damper to the ground [N s/m] >= 0"),
            ("u", "surface (belt) velocity [m/s]"),
            ("p0", "initial position [m]"),
            ("v0", "initial velocity [m/s]"),
            ("theta", "theta-method weight of the smooth forces, 0 <= theta <= 1"),
            ("T", "time step [s] > 0")),
    state=(("double", "p", "position [m]"),
           ("double", "v", "velocity [m/s]"),
           ("unsigned long", "faults", "samples rejected for a non-finite input")),
    step_args="double fe",
    step_doc="Applies the force fe [N] for one step; returns the mean friction force on the\n"
             " * mass over the step [N] and updates s->p, s->v.",
    init_body="    s->p = 0.0;\n    s->v = 0.0;\n    s->faults = 0;\n",
    start_body="    s->p = prm->p0;\n    s->v = prm->v0;\n",
    check_body="""    if (!(prm->M > 0.0) || !isfinite(prm->M)) return 1;
    if (!(prm->F >= 0.0) || !isfinite(prm->F)) return 2;
    if (!(prm->F_s >= prm->F) || !isfinite(prm->F_s)) return 3;
    if (!(prm->viscous >= 0.0) || !isfinite(prm->viscous)) return 4;
    if (!(prm->stiffness >= 0.0) || !isfinite(prm->stiffness)) return 5;
    if (!isfinite(prm->anchor)) return 6;
    if (!(prm->damping >= 0.0) || !isfinite(prm->damping)) return 7;
    if (!isfinite(prm->u)) return 8;
    if (!isfinite(prm->p0)) return 9;
    if (!isfinite(prm->v0)) return 10;
    if (!(prm->theta >= 0.0 && prm->theta <= 1.0)) return 11;
    if (!(prm->T > 0.0) || !isfinite(prm->T)) return 12;
    return 0;
""",
    # FrictionMass.moreau_jean_step and systems._time_stepping.implicit_friction, in order
    step_body=f"""    const double h = prm->T, theta = prm->theta, p = s->p, v = s->v;
    const double g_p = -prm->stiffness, g_v = -prm->damping;
    double G, impulse, W, v_free, damping, w_free, stop, drive, s_slip, sense, w_plus, f;
{_FAULT}    G = fe + ((0.0 * p - prm->stiffness * (p - prm->anchor)) - prm->damping * v);
    impulse = {_IMPULSE};
    W = prm->M - h * theta * (g_v + h * theta * g_p);     /* effective mass of the step */
    v_free = v + (impulse + h * h * theta * g_p * v) / W;
    damping = W / h;
    w_free = v_free - prm->u;
    stop = damping * w_free;          /* the force that stops the relative motion */
    drive = stop < 0.0 ? -stop : stop;
    sense = w_free > 0.0 ? 1.0 : (w_free < 0.0 ? -1.0 : 0.0);
    if (drive <= prm->F_s) {{          /* stick: w+ = 0 exactly */
        w_plus = 0.0;
        f = -stop;
    }} else {{                          /* slip at F(s) + (W/h + viscous) s = |c| */
        s_slip = (drive - prm->F > 0.0 ? drive - prm->F : 0.0) / (damping + prm->viscous);
        w_plus = s_slip * sense;
        f = -((s_slip > 0.0 ? prm->F : prm->F_s) + prm->viscous * s_slip) * sense;
    }}
    s->v = prm->u + w_plus;
    s->p = p + h * (theta * s->v + (1.0 - theta) * v);
    return f;
""")

CONTACT_MASS = CTemplate(
    name="contact_mass",
    summary="ContactMass with a Newton impact, one Moreau-Jean step (Acary & Brogliato 2008)",
    params=(("M", "mass [kg] > 0"),
            ("e", "Newton coefficient of restitution, 0 <= e <= 1"),
            ("g", "gravitational acceleration towards the wall [m/s2] >= 0"),
            ("p0", "initial height above the wall [m]"),
            ("v0", "initial velocity [m/s]"),
            ("theta", "theta-method weight of the smooth forces, 0 <= theta <= 1"),
            ("T", "time step [s] > 0")),
    state=(("double", "p", "height above the wall [m]"),
           ("double", "v", "velocity [m/s]"),
           ("unsigned long", "faults", "samples rejected for a non-finite input")),
    step_args="double fe",
    step_doc="Applies the force fe [N] (along +p) for one step; returns the mean contact\n"
             " * force on the mass over the step [N] and updates s->p, s->v.",
    init_body="    s->p = 0.0;\n    s->v = 0.0;\n    s->faults = 0;\n",
    start_body="    s->p = prm->p0;\n    s->v = prm->v0;\n",
    check_body="""    if (!(prm->M > 0.0) || !isfinite(prm->M)) return 1;
    if (!(prm->e >= 0.0 && prm->e <= 1.0)) return 2;
    if (!(prm->g >= 0.0) || !isfinite(prm->g)) return 3;
    if (!isfinite(prm->p0)) return 4;
    if (!isfinite(prm->v0)) return 5;
    if (!(prm->theta >= 0.0 && prm->theta <= 1.0)) return 6;
    if (!(prm->T > 0.0) || !isfinite(prm->T)) return 7;
    return 0;
""",
    # ContactMass.moreau_jean_step and NewtonImpact.velocity_after, in order
    step_body=f"""    const double h = prm->T, theta = prm->theta, p = s->p, v = s->v;
    double G, v_free, approach, v_new;
{_FAULT}    G = fe - prm->M * prm->g;
    v_free = v + {_IMPULSE} / prm->M;
    v_new = v_free;
    if (p + h * (theta * v_free + (1.0 - theta) * v) <= 0.0) {{   /* contact active */
        approach = v < 0.0 ? -prm->e * v : 0.0;
        v_new = v_free > approach ? v_free : approach;
    }}
    s->v = v_new;
    s->p = p + h * (theta * v_new + (1.0 - theta) * v);
    return prm->M * (v_new - v_free) / h;
""")


def _number(owner: str, name: str, value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ParameterError(f"`{owner}.{name}` must be one number to export; got {value!r}. "
                             "Export one system (not a batch) at a time.") from None


def _or_zero(value: Any) -> Any:
    return 0.0 if value is None else value     # an absent term is a zero coefficient in C


def _warn_force(owner: str, force: Any, default: Any) -> None:
    if force is not default:
        warnings.warn(f"`{owner}.force` is not exported: the applied force is the input `fe` "
                      "[N] of the exported step (an FMU input), held over each step. Set it "
                      "from the importing tool.", UserWarning, stacklevel=4)


def _friction_mass_parameters(system: FrictionMass) -> dict[str, float]:
    law = system.law
    if not isinstance(law, CoulombODE):
        raise ParameterError(
            f"`export_c`: FrictionMass with a {type(law).__name__} law cannot be exported; "
            "the exported step is method='moreau_jean', which needs a CoulombODE law (its "
            "levels F/mu, F_s/mu_s and viscous term). Use ss.laws.CoulombODE.")
    if law.v_stribeck is not None:
        raise ParameterError(
            "`export_c`: FrictionMass with a CoulombODE Stribeck drop (v_stribeck="
            f"{law.v_stribeck!r}) cannot be exported yet: the slip speed needs an iterative "
            "solve. Leave v_stribeck out (static F_s, kinetic F and viscous are exported).")
    belt = system.surface_velocity
    if belt is not None and not isinstance(belt, Constant):
        raise ParameterError(
            "`export_c`: FrictionMass.surface_velocity must be a number to export (the FMU "
            f"parameter u [m/s]); got the callable {belt!r}. Pass a constant belt speed.")
    _warn_force("FrictionMass", system.force, zero_force)
    n = system.N
    values = {"M": system.M, "F": law.kinetic_level(n), "F_s": law.level(n),
              "viscous": _or_zero(law.viscous), "stiffness": _or_zero(system.stiffness),
              "anchor": system.anchor, "damping": _or_zero(system.damping),
              "u": 0.0 if belt is None else belt.value, "p0": system.p0, "v0": system.v0}
    out = {k: _number("FrictionMass", k, v) for k, v in values.items()}
    return {**out, "theta": DEFAULT_THETA, "T": DEFAULT_T}


def _contact_mass_parameters(system: ContactMass) -> dict[str, float]:
    law = system.law
    if not isinstance(law, NewtonImpact):
        raise ParameterError(
            f"`export_c`: ContactMass with a {type(law).__name__} law cannot be exported; "
            "the exported step is method='moreau_jean', which needs a NewtonImpact law. "
            "Use ss.laws.NewtonImpact(e=...).")
    _warn_force("ContactMass", system.force, zero_force)
    values = {"M": system.M, "e": law.e, "g": system.g, "p0": system.p0, "v0": system.v0}
    out = {k: _number("ContactMass", k, v) for k, v in values.items()}
    return {**out, "theta": DEFAULT_THETA, "T": DEFAULT_T}


register_c(FRICTION_MASS, objects={FrictionMass: _friction_mass_parameters})
register_c(CONTACT_MASS, objects={ContactMass: _contact_mass_parameters})
