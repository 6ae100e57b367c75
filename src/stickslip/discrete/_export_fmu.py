"""FMI 2.0 co-simulation export: an FMU (``.fmu`` zip) around the C99 of :func:`export_c`.

Everything :func:`~stickslip.discrete.export_c` exports (the discrete friction steps, PSMC)
exports as an FMU: the algorithm's parameters become FMU parameters (start values = the
exported values), its step's arguments become inputs, and its result and state become
outputs. The C of the algorithm is rendered by :mod:`._export_c` (the same registry, so
control's PSMC arrives here without an import of control); this module only adds

* ``sources/stickslip_fmi2.h`` — the FMI 2.0 types and function declarations the wrapper
  needs, written here (no third-party header is vendored or needed to build the FMU);
* ``sources/stickslip_<name>_fmu.c`` — the FMI 2.0 co-simulation API around the step;
* ``modelDescription.xml``, ``documentation/index.html`` and, built with the system C
  compiler, ``binaries/linux64/stickslip_<name>.so`` (``darwin64``/``.dylib`` on macOS).

Timing (the contract, stated in the model description and the docs page): the communication
step is the sample period T. ``fmi2DoStep(t, h)`` runs ``n = h/T`` samples with the inputs
held at the values set before the call (zero-order hold), so ``h`` must be a whole multiple
of T (to 10⁻⁶ T); any other ``h`` is refused with ``fmi2Error`` and a logged message. The
outputs at ``t + h`` are the results of the last sample: the output at ``t_{k+1}`` is the
step's result for the input at ``t_k`` — no direct feedthrough, so co-simulation masters
form no algebraic loop, and ``fmpy.simulate_fmu`` with ``output_interval=T`` reproduces the
Python step loop sample by sample.
"""

from __future__ import annotations

import difflib
import hashlib
import html
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import uuid
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.sax.saxutils import quoteattr

from .._version import __version__
from ..errors import MissingDependencyError, ParameterError, StickslipError
from ._export_c import _BY_TYPE, CTemplate, _header, _resolve, _source

__all__ = ["export_fmu"]

# How each registered step's arguments and result read as FMU channels: (name, description,
# unit). Data, keyed by the template name as the C registry is; an algorithm registered
# without an entry here still exports (inputs named after its C arguments, result "y").
# `result=None`: the step returns one of its state fields (sign_inclusion returns x).
_CHANNELS: dict[str, dict[str, Any]] = {
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
}

# SI base-unit exponents of the units the templates' comments use (FMI 2.0 UnitDefinitions).
_BASE_UNITS = {
    "N": {"kg": 1, "m": 1, "s": -2}, "m": {"m": 1}, "s": {"s": 1}, "kg": {"kg": 1},
    "m/s": {"m": 1, "s": -1}, "N/m": {"kg": 1, "s": -2}, "N s/m": {"kg": 1, "s": -1},
    "N/(m s)": {"kg": 1, "s": -3}, "m s": {"m": 1, "s": 1},
}

_STEP_TOLERANCE = 1e-6   # fraction of T by which h may miss a whole multiple of T


@dataclass(frozen=True)
class _Variable:
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


def _variables(alg: CTemplate, values: Mapping[str, float]) -> list[_Variable]:
    """Parameters, inputs, outputs of `alg`, value references numbered per type."""
    channels = _CHANNELS.get(alg.name, {})
    documented = channels.get("inputs", {})
    arguments = [a.split()[-1] for a in alg.step_args.split(",")]
    found: list[_Variable] = []
    for name, doc in alg.params:
        found.append(_Variable(name, "Real", "parameter", doc, _unit(doc), float(values[name]),
                               f"c->prm.{name}"))
    for i, name in enumerate(arguments):
        doc, unit = documented.get(name, (f"step input {name}", ""))
        found.append(_Variable(name, "Real", "input", doc, unit, 0.0, f"c->u[{i}]"))
    result = channels.get("result", ("y", alg.step_doc.replace("\n * ", " "), ""))
    if result is not None:
        found.append(_Variable(result[0], "Real", "output", result[1], result[2], 0.0, "c->y"))
    for ctype, name, doc in alg.state:
        kind = "Real" if ctype in ("double", "float") else "Integer"
        found.append(_Variable(name, kind, "output", f"state: {doc}", _unit(doc), 0.0,
                               f"c->s.{name}"))
    names = [v.name for v in found]
    if len(set(names)) != len(names):    # a template whose fields shadow each other
        raise StickslipError(f"`export_fmu`: {alg.name!r} has two FMU variables of one name "
                             f"({names}); rename a field of its C template.")
    numbered, counters = [], {"Real": 0, "Integer": 0}
    for v in found:
        numbered.append(_Variable(**{**v.__dict__, "vr": counters[v.type]}))
        counters[v.type] += 1
    return numbered


# --- modelDescription.xml ---------------------------------------------------------------

def _model_description(alg: CTemplate, variables: list[_Variable], guid: str,
                       T: float) -> str:
    ident = f"stickslip_{alg.name}"
    units = sorted({v.unit for v in variables if v.unit})
    unit_xml = "".join(
        f'    <Unit name={quoteattr(u)}>'
        + (f'<BaseUnit {" ".join(f"{k}={quoteattr(str(e))}" for k, e in _BASE_UNITS[u].items())}/>'
           if u in _BASE_UNITS else "")
        + "</Unit>\n" for u in units)
    unit_block = f"  <UnitDefinitions>\n{unit_xml}  </UnitDefinitions>\n" if units else ""
    rows = []
    for v in variables:
        if v.causality == "parameter":
            extra = 'causality="parameter" variability="fixed" initial="exact"'
        elif v.causality == "input":
            extra = 'causality="input" variability="continuous"'
        else:
            extra = 'causality="output" variability="discrete" initial="exact"'
        start = repr(v.start) if v.type == "Real" else str(int(v.start))
        unit = f" unit={quoteattr(v.unit)}" if v.unit and v.type == "Real" else ""
        rows.append(f'    <ScalarVariable name={quoteattr(v.name)} valueReference="{v.vr}" '
                    f'description={quoteattr(v.description)} {extra}>\n'
                    f'      <{v.type} start="{start}"{unit}/>\n    </ScalarVariable>')
    outputs = "".join(f'      <Unknown index="{i + 1}" dependencies=""/>\n'
                      for i, v in enumerate(variables) if v.causality == "output")
    description = (f"{alg.summary}. stickslip {__version__}: one sample per period T; "
                   "fmi2DoStep takes a whole multiple of T and holds the inputs over it.")
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription
  fmiVersion="2.0"
  modelName="{ident}"
  guid="{guid}"
  description={quoteattr(description)}
  version="{__version__}"
  generationTool="stickslip {__version__} (stickslip.discrete.export_fmu)"
  variableNamingConvention="flat"
  numberOfEventIndicators="0">
  <CoSimulation
    modelIdentifier="{ident}"
    needsExecutionTool="false"
    canHandleVariableCommunicationStepSize="false"
    canInterpolateInputs="false"
    maxOutputDerivativeOrder="0"
    canRunAsynchronuously="false"
    canBeInstantiatedOnlyOncePerProcess="false"
    canNotUseMemoryManagementFunctions="false"
    canGetAndSetFMUstate="false"
    canSerializeFMUstate="false"
    providesDirectionalDerivative="false">
    <SourceFiles>
      <File name="{ident}.c"/>
      <File name="{ident}_fmu.c"/>
    </SourceFiles>
  </CoSimulation>
{unit_block}  <LogCategories>
    <Category name="logStatusError" description="refused calls and invalid parameters"/>
    <Category name="logStatusWarning" description="non-finite inputs (the state is kept)"/>
    <Category name="logAll" description="every message, including information"/>
  </LogCategories>
  <DefaultExperiment startTime="0.0" stepSize="{T!r}"/>
  <ModelVariables>
{chr(10).join(rows)}
  </ModelVariables>
  <ModelStructure>
    <Outputs>
{outputs}    </Outputs>
  </ModelStructure>
</fmiModelDescription>
"""


# --- C: the FMI 2.0 declarations and the co-simulation wrapper ---------------------------

_FMI2_HEADER = """/* stickslip_fmi2.h -- the FMI 2.0 types and functions a stickslip co-simulation FMU
 * implements. Written for stickslip (stickslip.discrete.export_fmu), not copied from the
 * standard's headers; the definitions are ABI-compatible with them (a build may pass
 * -DSTICKSLIP_FMI2_STANDARD_HEADERS to compile against fmi2Functions.h instead).
 */
#ifndef STICKSLIP_FMI2_H
#define STICKSLIP_FMI2_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define STICKSLIP_FMI2_EXPORT __declspec(dllexport)
#elif defined(__GNUC__)
#define STICKSLIP_FMI2_EXPORT __attribute__((visibility("default")))
#else
#define STICKSLIP_FMI2_EXPORT
#endif

#define fmi2TypesPlatform "default"
#define fmi2Version "2.0"
#define fmi2True 1
#define fmi2False 0

typedef void *fmi2Component;
typedef void *fmi2ComponentEnvironment;
typedef void *fmi2FMUstate;
typedef unsigned int fmi2ValueReference;
typedef double fmi2Real;
typedef int fmi2Integer;
typedef int fmi2Boolean;
typedef char fmi2Char;
typedef const fmi2Char *fmi2String;
typedef char fmi2Byte;

typedef enum { fmi2OK, fmi2Warning, fmi2Discard, fmi2Error, fmi2Fatal, fmi2Pending } fmi2Status;
typedef enum { fmi2ModelExchange, fmi2CoSimulation } fmi2Type;
typedef enum {
    fmi2DoStepStatus, fmi2PendingStatus, fmi2LastSuccessfulTime, fmi2Terminated
} fmi2StatusKind;

typedef void (*fmi2CallbackLogger)(fmi2ComponentEnvironment, fmi2String instanceName,
                                   fmi2Status, fmi2String category, fmi2String message, ...);
typedef void *(*fmi2CallbackAllocateMemory)(size_t nobj, size_t size);
typedef void (*fmi2CallbackFreeMemory)(void *obj);
typedef void (*fmi2StepFinished)(fmi2ComponentEnvironment, fmi2Status);

typedef struct {
    const fmi2CallbackLogger logger;
    const fmi2CallbackAllocateMemory allocateMemory;
    const fmi2CallbackFreeMemory freeMemory;
    const fmi2StepFinished stepFinished;
    const fmi2ComponentEnvironment componentEnvironment;
} fmi2CallbackFunctions;

#define STICKSLIP_FMI2_FN(ret, name) STICKSLIP_FMI2_EXPORT ret name
STICKSLIP_FMI2_FN(const char *, fmi2GetTypesPlatform)(void);
STICKSLIP_FMI2_FN(const char *, fmi2GetVersion)(void);
STICKSLIP_FMI2_FN(fmi2Status, fmi2SetDebugLogging)(fmi2Component, fmi2Boolean, size_t,
                                                 const fmi2String[]);
STICKSLIP_FMI2_FN(fmi2Component, fmi2Instantiate)(fmi2String, fmi2Type, fmi2String, fmi2String,
                                                const fmi2CallbackFunctions *, fmi2Boolean,
                                                fmi2Boolean);
STICKSLIP_FMI2_FN(void, fmi2FreeInstance)(fmi2Component);
STICKSLIP_FMI2_FN(fmi2Status, fmi2SetupExperiment)(fmi2Component, fmi2Boolean, fmi2Real,
                                                 fmi2Real, fmi2Boolean, fmi2Real);
STICKSLIP_FMI2_FN(fmi2Status, fmi2EnterInitializationMode)(fmi2Component);
STICKSLIP_FMI2_FN(fmi2Status, fmi2ExitInitializationMode)(fmi2Component);
STICKSLIP_FMI2_FN(fmi2Status, fmi2Terminate)(fmi2Component);
STICKSLIP_FMI2_FN(fmi2Status, fmi2Reset)(fmi2Component);
STICKSLIP_FMI2_FN(fmi2Status, fmi2GetReal)(fmi2Component, const fmi2ValueReference[], size_t,
                                         fmi2Real[]);
STICKSLIP_FMI2_FN(fmi2Status, fmi2GetInteger)(fmi2Component, const fmi2ValueReference[], size_t,
                                            fmi2Integer[]);
STICKSLIP_FMI2_FN(fmi2Status, fmi2GetBoolean)(fmi2Component, const fmi2ValueReference[], size_t,
                                            fmi2Boolean[]);
STICKSLIP_FMI2_FN(fmi2Status, fmi2GetString)(fmi2Component, const fmi2ValueReference[], size_t,
                                            fmi2String[]);
STICKSLIP_FMI2_FN(fmi2Status, fmi2SetReal)(fmi2Component, const fmi2ValueReference[], size_t,
                                         const fmi2Real[]);
STICKSLIP_FMI2_FN(fmi2Status, fmi2SetInteger)(fmi2Component, const fmi2ValueReference[], size_t,
                                            const fmi2Integer[]);
STICKSLIP_FMI2_FN(fmi2Status, fmi2SetBoolean)(fmi2Component, const fmi2ValueReference[], size_t,
                                            const fmi2Boolean[]);
STICKSLIP_FMI2_FN(fmi2Status, fmi2SetString)(fmi2Component, const fmi2ValueReference[], size_t,
                                           const fmi2String[]);
STICKSLIP_FMI2_FN(fmi2Status, fmi2GetFMUstate)(fmi2Component, fmi2FMUstate *);
STICKSLIP_FMI2_FN(fmi2Status, fmi2SetFMUstate)(fmi2Component, fmi2FMUstate);
STICKSLIP_FMI2_FN(fmi2Status, fmi2FreeFMUstate)(fmi2Component, fmi2FMUstate *);
STICKSLIP_FMI2_FN(fmi2Status, fmi2SerializedFMUstateSize)(fmi2Component, fmi2FMUstate, size_t *);
STICKSLIP_FMI2_FN(fmi2Status, fmi2SerializeFMUstate)(fmi2Component, fmi2FMUstate, fmi2Byte[],
                                                   size_t);
STICKSLIP_FMI2_FN(fmi2Status, fmi2DeSerializeFMUstate)(fmi2Component, const fmi2Byte[], size_t,
                                                     fmi2FMUstate *);
STICKSLIP_FMI2_FN(fmi2Status, fmi2GetDirectionalDerivative)(fmi2Component,
                                                          const fmi2ValueReference[], size_t,
                                                          const fmi2ValueReference[], size_t,
                                                          const fmi2Real[], fmi2Real[]);
STICKSLIP_FMI2_FN(fmi2Status, fmi2SetRealInputDerivatives)(fmi2Component,
                                                         const fmi2ValueReference[], size_t,
                                                         const fmi2Integer[], const fmi2Real[]);
STICKSLIP_FMI2_FN(fmi2Status, fmi2GetRealOutputDerivatives)(fmi2Component,
                                                          const fmi2ValueReference[], size_t,
                                                          const fmi2Integer[], fmi2Real[]);
STICKSLIP_FMI2_FN(fmi2Status, fmi2DoStep)(fmi2Component, fmi2Real, fmi2Real, fmi2Boolean);
STICKSLIP_FMI2_FN(fmi2Status, fmi2CancelStep)(fmi2Component);
STICKSLIP_FMI2_FN(fmi2Status, fmi2GetStatus)(fmi2Component, const fmi2StatusKind, fmi2Status *);
STICKSLIP_FMI2_FN(fmi2Status, fmi2GetRealStatus)(fmi2Component, const fmi2StatusKind,
                                               fmi2Real *);
STICKSLIP_FMI2_FN(fmi2Status, fmi2GetIntegerStatus)(fmi2Component, const fmi2StatusKind,
                                                  fmi2Integer *);
STICKSLIP_FMI2_FN(fmi2Status, fmi2GetBooleanStatus)(fmi2Component, const fmi2StatusKind,
                                                  fmi2Boolean *);
STICKSLIP_FMI2_FN(fmi2Status, fmi2GetStringStatus)(fmi2Component, const fmi2StatusKind,
                                                 fmi2String *);

#ifdef __cplusplus
}
#endif

#endif /* STICKSLIP_FMI2_H */
"""

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


def _set_case(v: _Variable) -> str:
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


def _wrapper(alg: CTemplate, variables: list[_Variable], guid: str) -> str:
    n = alg.name
    ident = f"stickslip_{n}"
    params = [v for v in variables if v.causality == "parameter"]
    inputs = [v for v in variables if v.causality == "input"]
    reals = [v for v in variables if v.type == "Real"]
    integers = [v for v in variables if v.type == "Integer"]
    result = next((v for v in variables if v.c_expr == "c->y"), None)
    call = f"{ident}_step(&c->s, &c->prm{''.join(f', {v.c_expr}' for v in inputs)})"
    step = f"c->y = {call};" if result is not None else f"(void){call};"
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
    return f"""/* {ident}_fmu.c -- FMI 2.0 co-simulation interface of {ident}.c.
 * Generated by stickslip {__version__} (stickslip.discrete.export_fmu); C99, only the C library.
 *
 * Build (what export_fmu runs):
 *     cc -std=c99 -O2 -fPIC -shared {ident}.c {ident}_fmu.c -o {ident}.so
 *
 * One sample per period T (the parameter T): fmi2DoStep(t, h) runs h/T samples with the
 * inputs held, and refuses (fmi2Error, logged) an h that is not a whole multiple of T.
 * The outputs at t + h are those of the last sample (no direct feedthrough).
 */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#ifdef STICKSLIP_FMI2_STANDARD_HEADERS
#include "fmi2Functions.h"
#else
#include "stickslip_fmi2.h"
#endif
#include "{ident}.h"

#define STICKSLIP_GUID "{guid}"
#define N_PARAMS {len(params)}
#define N_INPUTS {len(inputs)}
#define STEP_TOLERANCE {_STEP_TOLERANCE!r}  /* h may miss a multiple of T by this much of T */

enum {{
    MODE_INSTANTIATED = 1, MODE_INITIALIZATION = 2, MODE_STEP = 4, MODE_TERMINATED = 8,
    MODE_ERROR = 16
}};

typedef struct {{
    {ident}_params prm;
    {ident}_state s;
    double u[N_INPUTS];       /* inputs, held over a communication step */
    double y;                 /* the result of the last sample */
    double t_start, t_stop, t;
    int stop_defined;
    unsigned long k;          /* samples since the start */
    int mode;
    int logging_on;
    char *name;
    fmi2CallbackLogger logger;
    fmi2CallbackFreeMemory free_memory;
    fmi2ComponentEnvironment environment;
}} instance;

static const char *const param_names[N_PARAMS] = {{{names}}};
static const char *const param_docs[N_PARAMS] = {{{docs}}};

static void emit(fmi2CallbackLogger logger, fmi2ComponentEnvironment environment,
                 const char *name, fmi2Status status, const char *category,
                 const char *format, va_list args)
{{
    char message[640];
    size_t i;
    if (logger == NULL) return;
    vsnprintf(message, sizeof message, format, args);
    for (i = 0; message[i] != '\\0'; i++) {{   /* the logger reads % and # */
        if (message[i] == '%' || message[i] == '#') message[i] = '?';
    }}
    logger(environment, name, status, category, message);
}}

static void log_message(instance *c, fmi2Status status, const char *category,
                        const char *format, ...)
{{
    va_list args;
    if (status == fmi2OK && !c->logging_on) return;
    va_start(args, format);
    emit(c->logger, c->environment, c->name, status, category, format, args);
    va_end(args);
}}

static void log_early(const fmi2CallbackFunctions *functions, const char *name,
                      const char *format, ...)
{{
    va_list args;
    if (functions == NULL) return;
    va_start(args, format);
    emit(functions->logger, functions->componentEnvironment, name, fmi2Error,
         "logStatusError", format, args);
    va_end(args);
}}

{clamp}
static double absolute(double x)
{{
    return x < 0.0 ? -x : x;
}}

static double get_param(const {ident}_params *prm, int i)
{{
    switch (i) {{
{param_get}    default: return 0.0;
    }}
}}

static void set_param({ident}_params *prm, int i, double value)
{{
    switch (i) {{
{param_set}    default: break;
    }}
}}

/* 0 when the parameters pass {ident}_check, else the 1-based index of the first field that
 * fails on its own (each field tried in the exported, valid parameters), or -1. */
static int first_bad_parameter(const {ident}_params *prm)
{{
    static const {ident}_params valid = STICKSLIP_{n.upper()}_DEFAULT_PARAMS;
    {ident}_params probe;
    int i;
    if ({ident}_check(prm) == 0) return 0;
    for (i = 0; i < N_PARAMS; i++) {{
        probe = valid;
        set_param(&probe, i, get_param(prm, i));
        if ({ident}_check(&probe) != 0) return i + 1;
    }}
    return -1;
}}

static void reset(instance *c)
{{
    static const {ident}_params exported = STICKSLIP_{n.upper()}_DEFAULT_PARAMS;
    int i;
    c->prm = exported;
    for (i = 0; i < N_INPUTS; i++) c->u[i] = 0.0;
    {ident}_init(&c->s);
    c->y = 0.0;
    c->t_start = 0.0;
    c->t_stop = 0.0;
    c->t = 0.0;
    c->stop_defined = 0;
    c->k = 0;
    c->mode = MODE_INSTANTIATED;
}}

static int allowed(instance *c, const char *function, int modes)
{{
    if (c == NULL) return 0;
    if (c->mode & modes) return 1;
    log_message(c, fmi2Error, "logStatusError", "%s is not allowed in this state of the FMU "
                "(instantiated, initialization mode, stepping, terminated or failed)", function);
    return 0;
}}

static fmi2Status unsupported(fmi2Component component, const char *function)
{{
    instance *c = (instance *)component;
    if (c != NULL) {{
        log_message(c, fmi2Error, "logStatusError", "%s is not supported by this FMU (see the "
                    "capability flags in modelDescription.xml)", function);
    }}
    return fmi2Error;
}}

static int get_real(const instance *c, fmi2ValueReference vr, double *value)
{{
    switch (vr) {{
{get_real}    default: return 0;
    }}
}}

static int get_integer(const instance *c, fmi2ValueReference vr, int *value)
{{
    (void)c;
    (void)value;
    switch (vr) {{
{get_integer}    default: return 0;
    }}
}}

static int set_real(instance *c, fmi2ValueReference vr, double value)
{{
    switch (vr) {{
{set_real}    default:
        log_message(c, fmi2Error, "logStatusError", "fmi2SetReal: unknown value reference %u",
                    vr);
        return 0;
    }}
}}

const char *fmi2GetTypesPlatform(void)
{{
    return fmi2TypesPlatform;
}}

const char *fmi2GetVersion(void)
{{
    return fmi2Version;
}}

fmi2Status fmi2SetDebugLogging(fmi2Component component, fmi2Boolean loggingOn,
                               size_t nCategories, const fmi2String categories[])
{{
    instance *c = (instance *)component;
    size_t i;
    if (c == NULL) return fmi2Error;
    for (i = 0; i < nCategories; i++) {{
        if (categories[i] == NULL || (strcmp(categories[i], "logStatusError") != 0
                                      && strcmp(categories[i], "logStatusWarning") != 0
                                      && strcmp(categories[i], "logAll") != 0)) {{
            log_message(c, fmi2Error, "logStatusError", "fmi2SetDebugLogging: unknown log "
                        "category %s (logStatusError, logStatusWarning, logAll)",
                        categories[i] == NULL ? "NULL" : categories[i]);
            return fmi2Error;
        }}
    }}
    c->logging_on = loggingOn != fmi2False;
    return fmi2OK;
}}

fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType, fmi2String fmuGUID,
                              fmi2String fmuResourceLocation,
                              const fmi2CallbackFunctions *functions, fmi2Boolean visible,
                              fmi2Boolean loggingOn)
{{
    instance *c;
    size_t length;
    (void)fmuResourceLocation;
    (void)visible;
    if (functions == NULL || functions->allocateMemory == NULL || functions->freeMemory == NULL)
        return NULL;
    if (instanceName == NULL || instanceName[0] == '\\0') {{
        log_early(functions, "", "fmi2Instantiate: the instance name must not be empty");
        return NULL;
    }}
    if (fmuType != fmi2CoSimulation) {{
        log_early(functions, instanceName, "fmi2Instantiate: {ident} is a co-simulation FMU; "
                  "instantiate it as fmi2CoSimulation");
        return NULL;
    }}
    if (fmuGUID == NULL || strcmp(fmuGUID, STICKSLIP_GUID) != 0) {{
        log_early(functions, instanceName, "fmi2Instantiate: GUID %s does not match this "
                  "binary's %s; re-extract the FMU", fmuGUID == NULL ? "NULL" : fmuGUID,
                  STICKSLIP_GUID);
        return NULL;
    }}
    c = (instance *)functions->allocateMemory(1, sizeof(instance));
    if (c == NULL) return NULL;
    length = strlen(instanceName) + 1;
    c->name = (char *)functions->allocateMemory(length, 1);
    if (c->name == NULL) {{
        functions->freeMemory(c);
        return NULL;
    }}
    memcpy(c->name, instanceName, length);
    c->logger = functions->logger;
    c->free_memory = functions->freeMemory;
    c->environment = functions->componentEnvironment;
    c->logging_on = loggingOn != fmi2False;
    reset(c);
    return c;
}}

void fmi2FreeInstance(fmi2Component component)
{{
    instance *c = (instance *)component;
    fmi2CallbackFreeMemory free_memory;
    if (c == NULL) return;
    free_memory = c->free_memory;
    free_memory(c->name);
    free_memory(c);
}}

fmi2Status fmi2SetupExperiment(fmi2Component component, fmi2Boolean toleranceDefined,
                               fmi2Real tolerance, fmi2Real startTime,
                               fmi2Boolean stopTimeDefined, fmi2Real stopTime)
{{
    instance *c = (instance *)component;
    (void)toleranceDefined;
    (void)tolerance;
    if (!allowed(c, "fmi2SetupExperiment", MODE_INSTANTIATED)) return fmi2Error;
    if (!isfinite(startTime) || (stopTimeDefined && !(stopTime >= startTime))) {{
        log_message(c, fmi2Error, "logStatusError", "fmi2SetupExperiment: start time %.17g "
                    "must be finite and no later than the stop time %.17g", startTime, stopTime);
        return fmi2Error;
    }}
    c->t_start = startTime;
    c->t = startTime;
    c->stop_defined = stopTimeDefined != fmi2False;
    c->t_stop = stopTime;
    return fmi2OK;
}}

fmi2Status fmi2EnterInitializationMode(fmi2Component component)
{{
    instance *c = (instance *)component;
    if (!allowed(c, "fmi2EnterInitializationMode", MODE_INSTANTIATED)) return fmi2Error;
    c->mode = MODE_INITIALIZATION;
    return fmi2OK;
}}

fmi2Status fmi2ExitInitializationMode(fmi2Component component)
{{
    instance *c = (instance *)component;
    int bad;
    if (!allowed(c, "fmi2ExitInitializationMode", MODE_INITIALIZATION)) return fmi2Error;
    bad = first_bad_parameter(&c->prm);
    if (bad > 0) {{
        log_message(c, fmi2Error, "logStatusError", "parameter %s = %.17g is invalid: %s. Set "
                    "a valid value before fmi2ExitInitializationMode", param_names[bad - 1],
                    get_param(&c->prm, bad - 1), param_docs[bad - 1]);
        c->mode = MODE_ERROR;
        return fmi2Error;
    }}
    if (bad < 0) {{
        log_message(c, fmi2Error, "logStatusError", "the parameters are invalid together "
                    "({ident}_check refuses them); see the header for each one's range");
        c->mode = MODE_ERROR;
        return fmi2Error;
    }}
    c->t = c->t_start;
    c->k = 0;
    c->mode = MODE_STEP;
    return fmi2OK;
}}

fmi2Status fmi2Terminate(fmi2Component component)
{{
    instance *c = (instance *)component;
    if (!allowed(c, "fmi2Terminate", MODE_INITIALIZATION | MODE_STEP | MODE_ERROR))
        return fmi2Error;
    c->mode = MODE_TERMINATED;
    return fmi2OK;
}}

fmi2Status fmi2Reset(fmi2Component component)
{{
    instance *c = (instance *)component;
    if (c == NULL) return fmi2Error;
    reset(c);
    return fmi2OK;
}}

fmi2Status fmi2GetReal(fmi2Component component, const fmi2ValueReference vr[], size_t nvr,
                       fmi2Real value[])
{{
    instance *c = (instance *)component;
    size_t i;
    if (c == NULL) return fmi2Error;
    for (i = 0; i < nvr; i++) {{
        if (!get_real(c, vr[i], &value[i])) {{
            log_message(c, fmi2Error, "logStatusError", "fmi2GetReal: unknown value reference "
                        "%u", vr[i]);
            return fmi2Error;
        }}
    }}
    return fmi2OK;
}}

fmi2Status fmi2GetInteger(fmi2Component component, const fmi2ValueReference vr[], size_t nvr,
                          fmi2Integer value[])
{{
    instance *c = (instance *)component;
    size_t i;
    if (c == NULL) return fmi2Error;
    for (i = 0; i < nvr; i++) {{
        if (!get_integer(c, vr[i], &value[i])) {{
            log_message(c, fmi2Error, "logStatusError", "fmi2GetInteger: unknown value "
                        "reference %u", vr[i]);
            return fmi2Error;
        }}
    }}
    return fmi2OK;
}}

fmi2Status fmi2SetReal(fmi2Component component, const fmi2ValueReference vr[], size_t nvr,
                       const fmi2Real value[])
{{
    instance *c = (instance *)component;
    size_t i;
    if (c == NULL) return fmi2Error;
    for (i = 0; i < nvr; i++) {{
        if (!set_real(c, vr[i], value[i])) return fmi2Error;
    }}
    return fmi2OK;
}}

static fmi2Status no_variables(fmi2Component component, const char *function, size_t nvr)
{{
    instance *c = (instance *)component;
    if (c == NULL) return fmi2Error;
    if (nvr == 0) return fmi2OK;
    log_message(c, fmi2Error, "logStatusError", "%s: this FMU has no such variables", function);
    return fmi2Error;
}}

fmi2Status fmi2SetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                          const fmi2Integer value[])
{{
    (void)vr;
    (void)value;
    return no_variables(c, "fmi2SetInteger (the Integer variables are outputs)", nvr);
}}

fmi2Status fmi2GetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                          fmi2Boolean value[])
{{
    (void)vr;
    (void)value;
    return no_variables(c, "fmi2GetBoolean", nvr);
}}

fmi2Status fmi2SetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                          const fmi2Boolean value[])
{{
    (void)vr;
    (void)value;
    return no_variables(c, "fmi2SetBoolean", nvr);
}}

fmi2Status fmi2GetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                         fmi2String value[])
{{
    (void)vr;
    (void)value;
    return no_variables(c, "fmi2GetString", nvr);
}}

fmi2Status fmi2SetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                         const fmi2String value[])
{{
    (void)vr;
    (void)value;
    return no_variables(c, "fmi2SetString", nvr);
}}

fmi2Status fmi2DoStep(fmi2Component component, fmi2Real currentCommunicationPoint,
                      fmi2Real communicationStepSize, fmi2Boolean noSetFMUStatePriorToCurrentPoint)
{{
    instance *c = (instance *)component;
    const double T = c == NULL ? 0.0 : c->prm.T, h = communicationStepSize;
    double ratio;
    unsigned long n, i, faults;
    (void)noSetFMUStatePriorToCurrentPoint;
    if (!allowed(c, "fmi2DoStep", MODE_STEP)) return fmi2Error;
    ratio = h / T;
    n = (ratio > 0.5 && ratio < 1e15) ? (unsigned long)(ratio + 0.5) : 0;
    if (!isfinite(h) || n == 0 || absolute(ratio - (double)n) > STEP_TOLERANCE) {{
        log_message(c, fmi2Error, "logStatusError", "fmi2DoStep: the communication step "
                    "%.17g s is not a whole multiple of the sample period T = %.17g s; step by "
                    "T or a multiple of it", h, T);
        return fmi2Error;
    }}
    if (absolute(currentCommunicationPoint - c->t) > 0.5 * T) {{
        log_message(c, fmi2Error, "logStatusError", "fmi2DoStep: called at t = %.17g s, but "
                    "the FMU is at t = %.17g s; it steps forward from where the last step "
                    "ended (no rollback)", currentCommunicationPoint, c->t);
        return fmi2Error;
    }}
    if (c->stop_defined && c->t + (double)n * T > c->t_stop + STEP_TOLERANCE * T) {{
        log_message(c, fmi2Error, "logStatusError", "fmi2DoStep: the step to t = %.17g s "
                    "passes the stop time %.17g s", c->t + (double)n * T, c->t_stop);
        return fmi2Error;
    }}
    faults = {fault_count};
    for (i = 0; i < n; i++) {{
        {step}
        c->k += 1;
    }}
    c->t = c->t_start + (double)c->k * T;
    if ({fault_count} != faults) {{
        log_message(c, fmi2Warning, "logStatusWarning", "fmi2DoStep: %lu sample(s) up to t = "
                    "%.17g s had a non-finite input; the state was kept and the result is 0",
                    {fault_count} - faults, c->t);
        return fmi2Warning;
    }}
    return fmi2OK;
}}

fmi2Status fmi2GetRealStatus(fmi2Component component, const fmi2StatusKind s, fmi2Real *value)
{{
    instance *c = (instance *)component;
    if (c == NULL) return fmi2Error;
    if (s == fmi2LastSuccessfulTime) {{
        *value = c->t;
        return fmi2OK;
    }}
    return unsupported(c, "fmi2GetRealStatus (other than fmi2LastSuccessfulTime)");
}}

fmi2Status fmi2GetBooleanStatus(fmi2Component component, const fmi2StatusKind s,
                                fmi2Boolean *value)
{{
    instance *c = (instance *)component;
    if (c == NULL) return fmi2Error;
    if (s == fmi2Terminated) {{
        *value = fmi2False;      /* the FMU never asks to end the simulation */
        return fmi2OK;
    }}
    return unsupported(c, "fmi2GetBooleanStatus (other than fmi2Terminated)");
}}
{unsupported}"""


# --- documentation/index.html -------------------------------------------------------------

def _documentation(alg: CTemplate, variables: list[_Variable], T: float) -> str:
    rows = "\n".join(
        f"<tr><td><code>{html.escape(v.name)}</code></td><td>{v.causality}</td>"
        f"<td>{v.type}</td><td>{html.escape(v.unit)}</td><td>{v.start!r}</td>"
        f"<td>{html.escape(v.description)}</td></tr>" for v in variables)
    ident = f"stickslip_{alg.name}"
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{ident}</title></head>
<body>
<h1>{ident}</h1>
<p>{html.escape(alg.summary)}. FMI 2.0 co-simulation FMU generated by stickslip
{__version__} (<code>stickslip.discrete.export_fmu</code>) from its dependency-free C99
export (<code>sources/</code>).</p>
<h2>Timing</h2>
<p>One sample per period <code>T</code> (exported value {T!r} s, the default communication
step). <code>fmi2DoStep(t, h)</code> runs <code>h/T</code> samples with the inputs held at the
values set before the call; an <code>h</code> that is not a whole multiple of <code>T</code>
(to 1e-6 T) is refused with <code>fmi2Error</code> and a logged message. The outputs at
<code>t + h</code> are the results of the last sample (no direct feedthrough): the output at
<code>t<sub>k+1</sub></code> is the step's result for the input at <code>t<sub>k</sub></code>.
Parameters are fixed: set them before <code>fmi2ExitInitializationMode</code>, which checks
them and logs the first invalid one. A non-finite input keeps the state, gives a zero result,
counts in <code>faults</code> and makes <code>fmi2DoStep</code> return
<code>fmi2Warning</code>.</p>
<h2>Variables</h2>
<table border="1">
<tr><th>name</th><th>causality</th><th>type</th><th>unit</th><th>start</th>
<th>description</th></tr>
{rows}
</table>
<p>Rebuild for another platform:
<code>cc -std=c99 -O2 -fPIC -shared sources/{ident}.c sources/{ident}_fmu.c
-o {ident}.so</code> (or <code>.dll</code>/<code>.dylib</code>), placed in
<code>binaries/&lt;platform&gt;/</code>.</p>
</body></html>
"""


# --- the entry point ----------------------------------------------------------------------

def _platform() -> tuple[str, str]:
    """(FMI 2.0 platform folder, shared-library suffix) of this machine."""
    if sys.maxsize > 2 ** 32:
        if sys.platform.startswith("linux"):
            return "linux64", ".so"
        if sys.platform == "darwin":
            return "darwin64", ".dylib"
    raise MissingDependencyError(
        f"`export_fmu` builds binaries on 64-bit Linux and macOS only (this is {sys.platform}). "
        "Pass binaries=False to write a source-only FMU that the importing tool compiles.")


def _parameter_values(algorithm: Any, alg: CTemplate, defaults: dict[str, float] | None,
                      params: Mapping[str, float] | None) -> dict[str, float]:
    names = [name for name, _ in alg.params]
    values = dict(defaults or {})
    if params is not None:
        if not isinstance(params, Mapping):
            raise ParameterError(f"`export_fmu(params=)` must be a mapping {{name: value}}; "
                                 f"got {type(params).__name__}. Pass e.g. params={{'T': 1e-3}}.")
        for key, value in params.items():
            if key not in names:
                close = ([n for n in names if n.lower() == str(key).lower()]
                         or difflib.get_close_matches(str(key), names, n=1))
                hint = f" Did you mean {close[0]!r}?" if close else ""
                raise ParameterError(f"`export_fmu(params=)`: {alg.name!r} has no parameter "
                                     f"{key!r}; its parameters are {names}.{hint}")
            try:
                values[key] = float(value)
            except (TypeError, ValueError):
                raise ParameterError(f"`export_fmu(params=)`: parameter {key!r} must be a "
                                     f"number; got {value!r}.") from None
    missing = [name for name in names if name not in values]
    if missing:
        raise ParameterError(
            f"`export_fmu`: the FMU's parameters need start values, and {missing} of "
            f"{alg.name!r} have none. Pass params={{{', '.join(f'{m!r}: ...' for m in names)}}} "
            "or a configured object (ss.control.PSMC(...), ss.discrete.CoulombMass(...), "
            "ss.discrete.DARelaxation(...)).")
    for name in names:
        if not math.isfinite(values[name]):
            raise ParameterError(f"`export_fmu`: parameter {name!r} of {alg.name!r} must be "
                                 f"finite; got {name}={values[name]}.")
    if "T" not in values:
        raise ParameterError(f"`export_fmu`: {alg.name!r} has no sample period T, which an "
                             "FMU needs as its communication step.")
    if not values["T"] > 0.0:
        raise ParameterError(f"`export_fmu`: the sample period T must be > 0; got "
                             f"T={values['T']}. Pass the period in seconds.")
    # The same rules as the Python objects (each names the offending parameter).
    for cls, (name, _) in _BY_TYPE.items():
        if name == alg.name:
            try:
                cls(**values)
            except TypeError:        # a constructor with other arguments: try the next one
                continue
            break
    return {name: values[name] for name in names}


def _check_path(path: str | os.PathLike) -> Path:
    try:
        target = Path(path)
    except TypeError:
        raise ParameterError(f"`export_fmu(path=)` must be a file path ending in .fmu; got "
                             f"{path!r}.") from None
    if target.suffix.lower() != ".fmu":
        raise ParameterError(f"`export_fmu(path=)` must end in .fmu (an FMU is a zip named "
                             f"<model>.fmu); got {str(target)!r}. Add the .fmu suffix.")
    parent = target.parent if str(target.parent) else Path(".")
    if not parent.is_dir():
        raise ParameterError(f"`export_fmu(path=)`: the directory {str(parent)!r} does not "
                             "exist (or is not a directory); create it first.")
    if target.is_dir():
        raise ParameterError(f"`export_fmu(path=)`: {str(target)!r} is a directory; pass a "
                             "file name ending in .fmu.")
    if not os.access(parent, os.W_OK):
        raise ParameterError(f"`export_fmu(path=)`: the directory {str(parent)!r} is not "
                             "writable; choose another path.")
    return target


def _compile(compiler: str, directory: Path, sources: list[str], library: Path) -> None:
    found = shutil.which(compiler)
    if found is None:
        raise MissingDependencyError(
            f"`export_fmu` needs a C compiler to build {library.name}: {compiler!r} was not "
            "found on PATH. Install gcc (Debian/Ubuntu: `apt-get install gcc`; macOS: "
            "`xcode-select --install`), name another with compiler='clang', or pass "
            "binaries=False to write a source-only FMU that the importing tool compiles.")
    command = [found, "-std=c99", "-O2", "-ffp-contract=off", "-fPIC", "-shared",
               "-fvisibility=hidden", "-Wall", "-Wextra", "-I", str(directory),
               *[str(directory / s) for s in sources], "-o", str(library)]
    try:
        run = subprocess.run(command, capture_output=True, text=True, timeout=300,
                             check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise StickslipError(f"`export_fmu`: running {found} failed: {error}. Pass "
                             "binaries=False to write the sources only.") from None
    if run.returncode != 0:
        raise StickslipError(
            f"`export_fmu`: {found} could not build {library.name} (exit {run.returncode}):\n"
            f"{run.stderr.strip()}\nThis is a stickslip bug if your compiler is a working C99 "
            "compiler; pass binaries=False to get the sources.")


def _zip_entry(archive: zipfile.ZipFile, name: str, data: bytes) -> None:
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))   # reproducible archive
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    archive.writestr(info, data)


def export_fmu(algorithm: Any, path: str | os.PathLike, *,
               params: Mapping[str, float] | None = None, binaries: bool = True,
               compiler: str = "gcc") -> Path:
    """Write an FMI 2.0 co-simulation FMU of a discrete algorithm.

    Parameters
    ----------
    algorithm:
        What :func:`export_c` exports: ``"psmc"``, ``"coulomb_mass"``, ``"da_relaxation"``,
        ``"sign_inclusion"``, the step function itself, or a configured
        ``ss.control.PSMC`` / ``PSMCParams``, ``ss.discrete.CoulombMass`` or
        ``ss.discrete.DARelaxation``.
    path:
        The ``.fmu`` file to write (its directory must exist; an existing file is replaced).
    params:
        Parameter values ``{name: value}`` (SI units): the FMU parameters' start values.
        Required for every parameter when `algorithm` is a name or a step function;
        overrides the object's values otherwise. The sample period ``T`` is also the
        FMU's default communication step.
    binaries:
        Build ``binaries/linux64/stickslip_<name>.so`` (``darwin64``/``.dylib`` on macOS)
        with the system C compiler. ``False`` writes a source-only FMU (the sources are
        listed in the model description for the importing tool to compile).
    compiler:
        The C compiler to build with (``"gcc"``; any gcc-compatible one, e.g. ``"clang"``).

    Returns
    -------
    The path of the written FMU.

    Raises
    ------
    ParameterError: an unknown algorithm, a missing or invalid parameter, a path that does
        not end in ``.fmu`` or whose directory is missing or not writable.
    MissingDependencyError: the compiler is not installed (pass ``binaries=False``).

    Notes
    -----
    The FMU holds ``modelDescription.xml``, ``sources/`` (the :func:`export_c` pair with the
    parameters' values as ``STICKSLIP_<NAME>_DEFAULT_PARAMS``, ``stickslip_fmi2.h`` and
    ``stickslip_<name>_fmu.c``: the FMI 2.0 API), ``documentation/index.html`` and the
    binary. Parameters are fixed FMU parameters; the step's arguments (``v`` for
    DA relaxation, ``h`` for the Coulomb mass, ``p_d`` and ``p`` for PSMC, ``u`` for the
    sign inclusion) are Real inputs; its result (``f``) and every state field (``e``,
    ``p``, ``v``, ``x``, … as Real, ``faults`` as Integer) are discrete outputs.

    Timing: ``fmi2DoStep(t, h)`` runs ``h/T`` samples with the inputs held, and refuses an
    ``h`` that is not a whole multiple of T (to 10⁻⁶ T) with ``fmi2Error`` and a logged
    message. The outputs at ``t + h`` are those of the last sample: the output at
    ``t_{k+1}`` is the step's result for the input at ``t_k`` (no direct feedthrough).

    Examples
    --------
    >>> import stickslip as ss, tempfile, zipfile
    >>> fr = ss.discrete.DARelaxation(F=2.0, K=1e4, B=50.0, T=1e-3)
    >>> fmu = ss.export_fmu(fr, tempfile.mkdtemp() + "/friction.fmu", binaries=False)
    >>> sorted(zipfile.ZipFile(fmu).namelist())[:3]
    ['documentation/index.html', 'modelDescription.xml', 'sources/stickslip_da_relaxation.c']
    """
    try:
        alg, defaults = _resolve(algorithm)
    except ParameterError as error:   # the shared resolver speaks for export_c
        raise ParameterError(str(error).replace("`export_c`", "`export_fmu`")) from None
    except TypeError:                 # e.g. a PSMC with array gains (one per joint)
        raise ParameterError(f"`export_fmu` exports one scalar element; got {algorithm!r}. "
                             "Export each joint's controller on its own.") from None
    values = _parameter_values(algorithm, alg, defaults, params)
    target = _check_path(path)
    ident = f"stickslip_{alg.name}"
    variables = _variables(alg, values)
    header, source = _header(alg, values), _source(alg)
    # A GUID that is a function of the content: the same export gives the same FMU.
    digest = hashlib.sha256("\0".join(
        [__version__, header, source, _model_description(alg, variables, "", values["T"])]
    ).encode()).hexdigest()
    guid = "{" + str(uuid.uuid5(uuid.NAMESPACE_URL, f"stickslip-fmu:{digest}")) + "}"
    files = {
        "modelDescription.xml": _model_description(alg, variables, guid, values["T"]),
        f"sources/{ident}.h": header,
        f"sources/{ident}.c": source,
        "sources/stickslip_fmi2.h": _FMI2_HEADER,
        f"sources/{ident}_fmu.c": _wrapper(alg, variables, guid),
        "documentation/index.html": _documentation(alg, variables, values["T"]),
    }
    payload = {name: text.encode() for name, text in files.items()}
    if binaries:
        folder, suffix = _platform()
        with tempfile.TemporaryDirectory(prefix="stickslip_fmu_") as tmp:
            directory = Path(tmp)
            for name, text in files.items():
                if name.startswith("sources/"):
                    (directory / name.split("/", 1)[1]).write_text(text)
            library = directory / f"{ident}{suffix}"
            _compile(compiler, directory, [f"{ident}.c", f"{ident}_fmu.c"], library)
            payload[f"binaries/{folder}/{ident}{suffix}"] = library.read_bytes()
    try:
        with zipfile.ZipFile(target, "w") as archive:
            for name in sorted(payload):
                _zip_entry(archive, name, payload[name])
    except OSError as error:
        raise ParameterError(f"`export_fmu(path=)`: cannot write {str(target)!r}: "
                             f"{error.strerror or error}. Choose a writable path.") from None
    return target
