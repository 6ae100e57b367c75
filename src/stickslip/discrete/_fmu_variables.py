"""The FMU's variables: how a C template's parameters, step arguments, result and state read
as FMI 2.0 parameters, inputs and outputs (:func:`fmu_variables`), numbered per type."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import StickslipError
from ._export_c import CTemplate

__all__ = ["CHANNELS", "FmuVariable", "fmu_variables"]

# How each registered step's arguments and result read as FMU channels: (name, description,
# unit). Data, keyed by the template name as the C registry is; an algorithm registered
# without an entry here still exports (inputs named after its C arguments, result "y").
# `result=None`: the step returns one of its state fields (sign_inclusion returns x).
CHANNELS: dict[str, dict[str, Any]] = {
    "sign_inclusion": {
        "inputs": {"u": ("input u_k held over the step (x per second)", "")},
        "result": None,
    },
    "coulomb_mass": {
        "inputs": {"h": ("every force on the mass except friction, held over the step [N]",
                         "N")},
        "result": ("f", "friction force f_k [N]; the force on the mass is -f", "N"),
    },
    "da_relaxation": {
        "inputs": {"v": ("measured device velocity v_k [m/s]", "m/s")},
        "result": ("f", ("friction force f_k resisting the measured velocity [N]; apply -f "
                         "to the device"), "N"),
    },
    "psmc": {
        "inputs": {"p_d": ("reference position p_d [m]", "m"),
                   "p": ("measured plant position p [m]", "m")},
        "result": ("f", "control force f_k [N]; |f| <= F", "N"),
    },
    "friction_mass": {
        "inputs": {"fe": ("applied force on the mass, held over the step [N]", "N")},
        "result": ("f", "mean friction force on the mass over the last step [N]", "N"),
    },
    "contact_mass": {
        "inputs": {"fe": ("applied force on the mass along +p, held over the step [N]",
                          "N")},
        "result": ("f", "mean contact force on the mass over the last step [N] (>= 0)", "N"),
    },
}
# The static-level variants (F_s above F) read as their plain steps.
CHANNELS["coulomb_mass_static"] = CHANNELS["coulomb_mass"]
CHANNELS["da_relaxation_static"] = CHANNELS["da_relaxation"]


@dataclass(frozen=True)
class FmuVariable:
    """One FMI scalar variable and where it lives in the C instance."""

    name: str
    type: str            # "Real" or "Integer"
    causality: str       # "parameter", "input" or "output"
    description: str
    unit: str
    start: float
    c_expr: str          # the lvalue in the generated C (`c->prm.K`, `c->u[0]`, `c->s.e`)
    vr: int = 0


def _unit(comment: str) -> str:
    """The unit in the first ``[...]`` of a template comment ('' when none): the field's own
    (a later one may be a derived quantity's, "da1/T is the offset [m]")."""
    found = re.findall(r"\[([^\]]+)\]", comment)
    return found[0].strip() if found else ""


def fmu_variables(alg: CTemplate, values: Mapping[str, float]) -> list[FmuVariable]:
    """Parameters, inputs, outputs of `alg`, value references numbered per type."""
    channels = CHANNELS.get(alg.name, {})
    documented = channels.get("inputs", {})
    arguments = [a.split()[-1] for a in alg.step_args.split(",")]
    found: list[FmuVariable] = []
    for name, doc in alg.params:
        found.append(FmuVariable(name, "Real", "parameter", doc, _unit(doc),
                                 float(values[name]), f"c->prm.{name}"))
    for i, name in enumerate(arguments):
        doc, unit = documented.get(name, (f"step input {name}", ""))
        found.append(FmuVariable(name, "Real", "input", doc, unit, 0.0, f"c->u[{i}]"))
    result = channels.get("result", ("y", alg.step_doc.replace("\n * ", " "), ""))
    if result is not None:
        found.append(FmuVariable(result[0], "Real", "output", result[1], result[2], 0.0,
                                 "c->y"))
    for ctype, name, doc in alg.state:
        kind = "Real" if ctype in ("double", "float") else "Integer"
        found.append(FmuVariable(name, kind, "output", f"state: {doc}", _unit(doc), 0.0,
                                 f"c->s.{name}"))
    names = [v.name for v in found]
    if len(set(names)) != len(names):    # a template whose fields shadow each other
        raise StickslipError(f"`export_fmu`: {alg.name!r} has two FMU variables of one name "
                             f"({names}); rename a field of its C template.")
    numbered, counters = [], {"Real": 0, "Integer": 0}
    for v in found:
        numbered.append(FmuVariable(**{**v.__dict__, "vr": counters[v.type]}))
        counters[v.type] += 1
    return numbered
