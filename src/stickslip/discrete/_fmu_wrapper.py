"""The C of the FMU around the exported step: ``sources/stickslip_fmi2.h`` (the FMI 2.0 types
and declarations, written for stickslip: no third-party header is vendored or needed) and
``sources/stickslip_<name>_fmu.c`` (the FMI 2.0 co-simulation API).

Both are package data beside this module: ``fmu_fmi2.h`` verbatim, and ``fmu_wrapper.c``, a
:class:`string.Template` whose ``${...}`` placeholders :func:`wrapper` fills with one
algorithm's switch cases (value references), counts and step call.
"""

from __future__ import annotations

from importlib.resources import files
from string import Template

from .._version import __version__
from ._export_c import CTemplate
from ._fmu_variables import FmuVariable

__all__ = ["FMI2_HEADER", "STEP_TOLERANCE", "wrapper"]

STEP_TOLERANCE = 1e-6   # fraction of T by which h may miss a whole multiple of T


def _data(name: str) -> str:
    return files("stickslip.discrete").joinpath(name).read_text(encoding="utf-8")


FMI2_HEADER = _data("fmu_fmi2.h")
_TEMPLATE = Template("".join(line for line in _data("fmu_wrapper.c").splitlines(keepends=True)
                             if not line.startswith("//")))

# Functions of the FMI 2.0 co-simulation API this FMU does not provide (its capability flags
# say so); each logs why and returns fmi2Error.
_UNSUPPORTED = (   # (function, its parameters, the ones besides c to mark unused)
    ("fmi2GetFMUstate", "fmi2Component c, fmi2FMUstate *state", "state"),
    ("fmi2SetFMUstate", "fmi2Component c, fmi2FMUstate state", "state"),
    ("fmi2FreeFMUstate", "fmi2Component c, fmi2FMUstate *state", "state"),
    ("fmi2SerializedFMUstateSize", "fmi2Component c, fmi2FMUstate state, size_t *size",
     "state, size"),
    ("fmi2SerializeFMUstate",
     "fmi2Component c, fmi2FMUstate state, fmi2Byte bytes[], size_t size",
     "state, bytes, size"),
    ("fmi2DeSerializeFMUstate",
     "fmi2Component c, const fmi2Byte bytes[], size_t size, fmi2FMUstate *state",
     "bytes, size, state"),
    ("fmi2GetDirectionalDerivative",
     ("fmi2Component c, const fmi2ValueReference unknowns[], size_t n_unknowns, "
      "const fmi2ValueReference knowns[], size_t n_knowns, const fmi2Real seed[], "
      "fmi2Real sensitivity[]"),
     "unknowns, n_unknowns, knowns, n_knowns, seed, sensitivity"),
    ("fmi2SetRealInputDerivatives",
     ("fmi2Component c, const fmi2ValueReference vr[], size_t nvr, "
      "const fmi2Integer order[], const fmi2Real value[]"),
     "vr, nvr, order, value"),
    ("fmi2GetRealOutputDerivatives",
     ("fmi2Component c, const fmi2ValueReference vr[], size_t nvr, "
      "const fmi2Integer order[], fmi2Real value[]"),
     "vr, nvr, order, value"),
    ("fmi2CancelStep", "fmi2Component c", ""),
    ("fmi2GetStatus", "fmi2Component c, const fmi2StatusKind s, fmi2Status *value",
     "s, value"),
    ("fmi2GetIntegerStatus", "fmi2Component c, const fmi2StatusKind s, fmi2Integer *value",
     "s, value"),
    ("fmi2GetStringStatus", "fmi2Component c, const fmi2StatusKind s, fmi2String *value",
     "s, value"),
)


def _c_string(text: str) -> str:
    """A C string literal of ASCII `text` (no '%' or '#': the FMI logger gives them meaning)."""
    text = text.encode("ascii", "replace").decode().replace("%", " percent").replace("#", "")
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _set_case(v: FmuVariable) -> str:
    """The `case` of the generated set_real for one Real variable."""
    refuse = '        log_message(c, fmi2Error, "logStatusError", "fmi2SetReal: %s");\n' \
             "        return 0;\n"
    if v.causality == "output":
        return f"    case {v.vr}:\n" + refuse % f"{v.name} is an output and cannot be set"
    if v.causality == "parameter":
        guard = "!(c->mode & (MODE_INSTANTIATED | MODE_INITIALIZATION))"
        why = (f"parameter {v.name} is fixed: set it before fmi2ExitInitializationMode "
               "(after fmi2Reset to change it)")
    else:
        guard = "c->mode & MODE_TERMINATED"
        why = f"input {v.name} set after fmi2Terminate"
    return (f"    case {v.vr}:\n        if ({guard}) {{\n"
            + "    " + refuse.replace("\n        ", "\n            ") % why
            + f"        }}\n        {v.c_expr} = value;\n        return 1;\n")


def wrapper(alg: CTemplate, variables: list[FmuVariable], guid: str) -> str:
    """``sources/stickslip_<name>_fmu.c``: the FMI 2.0 co-simulation API around the step of
    `alg` (:data:`_TEMPLATE` with the per-algorithm switch cases and constants filled in)."""
    n = alg.name
    ident = f"stickslip_{n}"
    params = [v for v in variables if v.causality == "parameter"]
    inputs = [v for v in variables if v.causality == "input"]
    reals = [v for v in variables if v.type == "Real"]
    integers = [v for v in variables if v.type == "Integer"]
    result = next((v for v in variables if v.c_expr == "c->y"), None)
    call = f"{ident}_step(&c->s, &c->prm{''.join(f', {v.c_expr}' for v in inputs)})"
    step = f"c->y = {call};" if result is not None else f"(void){call};"
    start = f"    {ident}_start(&c->s, &c->prm);\n" if alg.start_body else ""
    counts_faults = any(name == "faults" for _, name, _ in alg.state)
    fault_count = "(unsigned long)c->s.faults" if counts_faults else "0UL"
    clamp = """static int clamp_int(double value)
{
    return value > (double)INT_MAX ? INT_MAX : (int)value;
}
""" if integers else ""

    def cases(vs, body):
        return "".join(f"    case {v.vr}: {body(v)} return 1;\n" for v in vs)

    get_real = cases(reals, lambda v: f"*value = {v.c_expr};")
    get_integer = cases(integers, lambda v: f"*value = clamp_int((double){v.c_expr});")
    set_real = "".join(_set_case(v) for v in reals)
    param_get = "".join(f"    case {i}: return prm->{v.name};\n" for i, v in enumerate(params))
    param_set = "".join(f"    case {i}: prm->{v.name} = value; break;\n"
                        for i, v in enumerate(params))
    names = ", ".join(_c_string(v.name) for v in params)
    docs = ", ".join(_c_string(v.description) for v in params)
    unsupported = "".join(f"""
fmi2Status {fn}({args})
{{
{"".join(f"    (void){a.strip()};{chr(10)}" for a in used.split(",") if a.strip())}\
    return unsupported(c, "{fn}");
}}
""" for fn, args, used in _UNSUPPORTED)
    text = _TEMPLATE.substitute(
        ident=ident, version=__version__, guid=guid, n_params=len(params),
        n_inputs=len(inputs), step_tolerance=repr(STEP_TOLERANCE), names=names, docs=docs,
        clamp=clamp, NAME=n.upper(), param_get=param_get, param_set=param_set,
        get_real=get_real, get_integer=get_integer, set_real=set_real,
        fault_count=fault_count, step=step, start=start, unsupported=unsupported)
    return text.rstrip("\n") + "\n"
