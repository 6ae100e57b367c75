"""C export: a renderer of dependency-free C99 header/source pairs, plus a registry.

Each algorithm registers its C template *beside the Python it mirrors* (the friction steps in
:mod:`stickslip.discrete._friction`, PSMC in :mod:`stickslip.control._controllers`) with
:func:`register_c`; :func:`export_c` only looks the algorithm up and renders it. So this
module imports no algorithm, and control (above discrete) registers itself without an import
loop.

The C mirrors the Python (``jax.numpy``) update expression for expression, in the same order
of operations, so the two agree to round-off (the test compiles it and checks 1e-12 over a
long random input sequence).
"""

from __future__ import annotations

import importlib
import inspect
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .._version import __version__
from ..errors import ParameterError

__all__ = ["ALGORITHMS", "CTemplate", "export_c", "register_c"]


@dataclass(frozen=True)
class CTemplate:
    """The C99 of one algorithm: its parameter and state fields and three function bodies
    (``check``: 0 or the 1-based index of the first bad parameter; ``init``; ``step``), and
    optionally a fourth, ``start``: the state's start value from the parameters (a system's
    initial position and velocity), called once the parameters are set; and ``helpers``:
    static C functions the bodies call (written once into the source, before them)."""

    name: str
    summary: str
    params: tuple[tuple[str, str], ...]     # (field, comment)
    state: tuple[tuple[str, str, str], ...]  # (C type, field, comment)
    step_args: str                           # extra arguments after the pointers
    step_doc: str
    init_body: str
    check_body: str
    step_body: str
    start_body: str = ""                     # empty: init alone sets the start state
    helpers: str = ""                        # static functions the bodies call


_SAT = """static double stickslip_sat(double Z, double x)
{
    /* sat(Z, x): x clipped to [-Z, Z] (Kikuuwe, slides: the saturation function) */
    return x < -Z ? -Z : (x > Z ? Z : x);
}
"""

ALGORITHMS: dict[str, CTemplate] = {}
"""The exportable algorithms by name (psmc, coulomb_mass, da_relaxation, sign_inclusion,
their static-level variants coulomb_mass_static and da_relaxation_static, …),
filled by :func:`register_c` as their modules are imported (``import stickslip`` imports
them all)."""

# Where the registered templates live. `import stickslip` loads subpackages lazily, so
# export_c("psmc") must be able to load the module that registers it; the names are data (the
# renderer imports no algorithm module); control → discrete and discrete._system_templates →
# systems (the 1-D systems' steps) are the import edges.
_PROVIDERS = ("stickslip.discrete._friction", "stickslip.discrete._system_templates",
              "stickslip.discrete._law_templates", "stickslip.control._controllers")

ParametersOf = Callable[[Any], dict[str, float] | None]

_BY_FUNCTION: dict[Any, str] = {}
_BY_TYPE: dict[type, list[tuple[str, ParametersOf]]] = {}
"""{type: [(template name, parameters_of), ...]}: the templates a configured object may
export as (a type may have several, e.g. ``CoulombMass`` without and with a static level)."""


def register_c(template: CTemplate, *, functions: tuple = (),
               objects: dict[type, ParametersOf] | None = None) -> CTemplate:
    """Register `template` for :func:`export_c` under ``template.name``.

    functions: the Python step functions it mirrors (``export_c(step_fn, path)`` works).
    objects: ``{type: parameters_of}`` — configured objects that export with their
        parameters; ``parameters_of(obj)`` returns ``{param: value}`` for every
        ``template.params`` field, or ``None`` when this object is not exported by this
        template but by another one registered for the same type (a variant: a
        ``CoulombMass`` with a static level exports as ``coulomb_mass_static``). Every
        parameter of the object that changes its step must reach the C; one the template
        cannot carry must make ``parameters_of`` raise a ``ParameterError`` (never be
        dropped).
    """
    ALGORITHMS[template.name] = template
    for fn in functions:
        _BY_FUNCTION[fn] = template.name
    for cls, getter in (objects or {}).items():
        entries = [e for e in _BY_TYPE.get(cls, []) if e[0] != template.name]
        _BY_TYPE[cls] = [*entries, (template.name, getter)]
    return template


def _resolve(algorithm: Any) -> tuple[CTemplate, dict[str, float] | None]:
    """Map a name, a step function or a configured object to (template, default params)."""
    for provider in _PROVIDERS:
        importlib.import_module(provider)      # registers its templates (once)
    if isinstance(algorithm, str):
        if algorithm not in ALGORITHMS:
            raise ParameterError(f"unknown algorithm {algorithm!r} for `export_c`; choose one "
                                 f"of {sorted(ALGORITHMS)}.")
        return ALGORITHMS[algorithm], None
    try:
        name = _BY_FUNCTION.get(algorithm)
    except TypeError:            # unhashable: not a registered function
        name = None
    if name is not None:
        return ALGORITHMS[name], None
    for cls, entries in _BY_TYPE.items():
        if not isinstance(algorithm, cls):
            continue
        for name, parameters_of in entries:
            values = parameters_of(algorithm)
            if values is not None:          # None: a variant registered beside it takes it
                template = ALGORITHMS[name]
                return template, {k: float(values[k]) for k, _ in template.params}
    objects = ", ".join(sorted({cls.__name__ for cls in _BY_TYPE
                                if not inspect.isabstract(cls)}))    # not AbstractLaw
    raise ParameterError(
        f"`export_c` cannot export {algorithm!r}, a {type(algorithm).__name__}; pass one of "
        f"the names {sorted(ALGORITHMS)}, a step function (ss.discrete.coulomb_mass_step, "
        "da_relaxation_step, sign_inclusion_step, ss.control.psmc_step) or a configured "
        f"object: {objects} (FrictionMass with a CoulombODE law, ContactMass with "
        "NewtonImpact).")


def _header(alg: CTemplate, defaults: dict[str, float] | None) -> str:
    n = alg.name
    guard = f"STICKSLIP_{n.upper()}_H"
    start_use = f"  stickslip_{n}_start(&s, &prm);" if alg.start_body else ""
    start_decl = "" if not alg.start_body else (
        f"\n/* Set the state's start value from the parameters (after init, before the first\n"
        f" * step). */\nvoid stickslip_{n}_start(stickslip_{n}_state *s, "
        f"const stickslip_{n}_params *prm);\n")
    params = "\n".join(f"    double {name};  /* {doc} */" for name, doc in alg.params)
    state = "\n".join(f"    {ctype} {name};  /* {doc} */" for ctype, name, doc in alg.state)
    default = ""
    if defaults is not None:
        values = ", ".join(f"{defaults[name]!r}" for name, _ in alg.params)
        default = (f"\n/* The parameters of the exported object. */\n"
                   f"#define STICKSLIP_{n.upper()}_DEFAULT_PARAMS {{{values}}}\n")
    return f"""/* stickslip_{n}.h -- {alg.summary}.
 * Generated by stickslip {__version__} (stickslip.discrete.export_c); dependency-free C99.
 *
 * Usage:
 *     stickslip_{n}_params prm = {{...}};      // fill every field (SI units)
 *     stickslip_{n}_state s;
 *     if (stickslip_{n}_check(&prm) != 0) {{ ... bad parameter ... }}
 *     stickslip_{n}_init(&s);{start_use}
 *     every sample:  out = stickslip_{n}_step(&s, &prm, {alg.step_args.replace("double ", "")});
 *
 * A non-finite input leaves the state unchanged, counts it in s.faults and returns a safe
 * value (0 force; the unchanged state for sign_inclusion).
 */
#ifndef {guard}
#define {guard}

#ifdef __cplusplus
extern "C" {{
#endif

/* Parameters (constant during a run). */
typedef struct {{
{params}
}} stickslip_{n}_params;

/* State carried from one sample to the next. */
typedef struct {{
{state}
}} stickslip_{n}_state;
{default}
/* 0 when every parameter is valid, else the 1-based index of the first bad field. */
int stickslip_{n}_check(const stickslip_{n}_params *prm);

/* Reset the state to its start value. */
void stickslip_{n}_init(stickslip_{n}_state *s);
{start_decl}
/* {alg.step_doc} */
double stickslip_{n}_step(stickslip_{n}_state *s, const stickslip_{n}_params *prm,
                          {alg.step_args});

#ifdef __cplusplus
}}
#endif

#endif /* {guard} */
"""


def _source(alg: CTemplate) -> str:
    n = alg.name
    uses_sat = "stickslip_sat" in (alg.check_body + alg.init_body + alg.step_body
                                   + alg.helpers)
    sat = _SAT if uses_sat else ""          # no unused static function (-Werror builds)
    sat += alg.helpers
    start = "" if not alg.start_body else (
        f"\nvoid stickslip_{n}_start(stickslip_{n}_state *s, const stickslip_{n}_params *prm)"
        f"\n{{\n{alg.start_body}}}\n")
    return f"""/* stickslip_{n}.c -- {alg.summary}.
 * Generated by stickslip {__version__} (stickslip.discrete.export_c); dependency-free C99.
 * Mirrors the Python implementation operation by operation.
 */
#include <math.h>   /* isfinite; exp, tanh, sqrt for the friction laws (libm) */
#include "stickslip_{n}.h"

{sat}
int stickslip_{n}_check(const stickslip_{n}_params *prm)
{{
{alg.check_body}}}

void stickslip_{n}_init(stickslip_{n}_state *s)
{{
{alg.init_body}}}
{start}
double stickslip_{n}_step(stickslip_{n}_state *s, const stickslip_{n}_params *prm,
                          {alg.step_args})
{{
{alg.step_body}}}
"""


def export_c(algorithm: Any, path: str | os.PathLike) -> tuple[Path, Path]:
    """Write a dependency-free C99 header/source pair for a discrete algorithm.

    Parameters
    ----------
    algorithm : Any
        ``"psmc"``, ``"coulomb_mass"``, ``"da_relaxation"`` or ``"sign_inclusion"`` (or
        ``"coulomb_mass_static"``, ``"da_relaxation_static"``: the same steps with a static
        friction level ``F_s`` above the kinetic ``F``); or the step function itself
        (``ss.control.psmc_step``, ``ss.discrete.coulomb_mass_step``, …); or a configured
        ``ss.control.PSMC`` / ``PSMCParams``, ``ss.discrete.CoulombMass`` or
        ``ss.discrete.DARelaxation``, whose parameters are also written as
        ``STICKSLIP_<NAME>_DEFAULT_PARAMS`` (a ``CoulombMass`` or ``DARelaxation`` with
        ``F_s``, or a ``CoulombMass`` that does not start at rest, exports as the
        ``*_static`` template, which carries ``F_s`` and the start state).
    path : str or os.PathLike
        A directory (the files are ``stickslip_<name>.h`` and ``.c`` inside it, created if
        needed) or a file path ending in ``.c``/``.h`` (its directory is used).

    Returns
    -------
    tuple
        ``(header_path, source_path)``.

    Notes
    -----
    Each pair declares ``stickslip_<name>_params`` (documented fields, SI units),
    ``stickslip_<name>_state``, and ``_check``, ``_init``, ``_step`` functions; see the header's
    comment for a usage example. Only ``<math.h>``'s ``isfinite`` macro is used.

    Examples
    --------
    >>> import stickslip as ss, tempfile
    >>> h, c = ss.discrete.export_c("psmc", tempfile.mkdtemp())
    >>> h.name, c.name
    ('stickslip_psmc.h', 'stickslip_psmc.c')
    """
    alg, defaults = _resolve(algorithm)
    path = Path(path)
    directory = path.parent if path.suffix.lower() in (".c", ".h") else path
    directory.mkdir(parents=True, exist_ok=True)
    header = directory / f"stickslip_{alg.name}.h"
    source = directory / f"stickslip_{alg.name}.c"
    if defaults is not None and not all(np.isfinite(v) for v in defaults.values()):
        raise ParameterError(f"`export_c`: the parameters of {type(algorithm).__name__} must "
                             f"be finite; got {defaults}.")
    header.write_text(_header(alg, defaults))
    source.write_text(_source(alg))
    return header, source
