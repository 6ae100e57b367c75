"""FMI 2.0 co-simulation export: an FMU (``.fmu`` zip) around the C99 of :func:`export_c`.

Everything :func:`~stickslip.discrete.export_c` exports (the discrete friction steps, PSMC)
exports as an FMU: the algorithm's parameters become FMU parameters (start values = the
exported values), its step's arguments become inputs, and its result and state become
outputs. The C of the algorithm is rendered by :mod:`._export_c` (the same registry, so
control's PSMC arrives here without an import of control). This module is the front — it
resolves the algorithm, checks the parameters and the path — and the FMU's parts come from

* :mod:`._fmu_variables` — the FMU variables (parameters, inputs, outputs) of a template;
* :mod:`._fmu_model_description` — ``modelDescription.xml``;
* :mod:`._fmu_wrapper` — ``sources/stickslip_fmi2.h`` (the FMI 2.0 types and declarations,
  written for stickslip: no third-party header is needed) and
  ``sources/stickslip_<name>_fmu.c`` (the FMI 2.0 co-simulation API around the step), from
  the package data files ``fmu_fmi2.h`` and ``fmu_wrapper.c``;
* :mod:`._fmu_documentation` — ``documentation/index.html``;
* :mod:`._fmu_build` — ``binaries/linux64/stickslip_<name>.so`` (``darwin64``/``.dylib`` on
  macOS, built with the system C compiler) and the zip.

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
import math
import os
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .._version import __version__
from ..errors import ParameterError
from ._export_c import _BY_TYPE, ALGORITHMS, CTemplate, _header, _resolve, _source
from ._fmu_build import write_fmu
from ._fmu_documentation import documentation
from ._fmu_model_description import model_description
from ._fmu_variables import fmu_variables
from ._fmu_wrapper import FMI2_HEADER, wrapper

__all__ = ["export_fmu"]


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
                variants = [other.name for other in ALGORITHMS.values()
                            if other.name.startswith(f"{alg.name}_")
                            and key in [n for n, _ in other.params]]
                if variants:      # e.g. F_s: the static-level variant carries it
                    hint = (f" {variants[0]!r} has it: export that name, or the configured "
                            f"object with {key}=...")
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
    for cls, entries in _BY_TYPE.items():
        if any(name == alg.name for name, _ in entries):
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


def _law_values(alg: CTemplate, values: dict[str, float], substeps_given: bool,
                ) -> dict[str, float]:
    """A friction law's FMU values (:mod:`._law_templates`): the law's parameters checked by
    its own rules, `substeps` by default the stability rule's count at T, else checked."""
    from ._law_templates import LAW_TEMPLATES, MAX_SUBSTEPS, stable_substeps

    export = LAW_TEMPLATES[alg.name]
    export.build(values)             # the law's parameter rules name a bad value
    if "substeps" not in values:     # TanhCoulomb: no state to integrate
        return values
    if not substeps_given:
        decay = export.decay(values) if export.decay is not None else 0.0
        values["substeps"] = float(stable_substeps(values["T"], decay))
    n = values["substeps"]
    if not (1 <= n <= MAX_SUBSTEPS and n == int(n)):
        raise ParameterError(f"`export_fmu(substeps=)` must be a whole number of RK4 steps "
                             f"per sample, 1 to {MAX_SUBSTEPS}; got substeps={n:g}. Leave it "
                             "out for the stability rule's count.")
    return values


def export_fmu(algorithm: Any, path: str | os.PathLike, *,
               params: Mapping[str, float] | None = None, T: float | None = None,
               substeps: int | None = None, binaries: bool = True,
               compiler: str = "gcc") -> Path:
    """Write an FMI 2.0 co-simulation FMU of a discrete algorithm.

    Parameters
    ----------
    algorithm : Any
        What :func:`export_c` exports: ``"psmc"``, ``"coulomb_mass"``, ``"da_relaxation"``,
        ``"sign_inclusion"`` (``"coulomb_mass_static"``, ``"da_relaxation_static"``: with a
        static level ``F_s``), the step function itself, or a configured
        ``ss.control.PSMC`` / ``PSMCParams``, ``ss.discrete.CoulombMass``,
        ``ss.discrete.DARelaxation`` (with ``F_s``, or a ``CoulombMass`` not starting at
        rest: the ``*_static`` FMU, parameter ``F_s``, and ``p0``, ``v0`` for the mass),
        ``ss.systems.FrictionMass`` (``CoulombODE`` law, no
        Stribeck drop) or ``ss.systems.ContactMass`` (``NewtonImpact``): a system exports
        its ``method="moreau_jean"`` step with the applied force as the input ``fe``
        (:mod:`._system_templates`; T defaults to 1e-3 s, θ to 0.5). Or a friction law,
        ``ss.laws.CoulombODE`` (no Stribeck drop), ``LuGre`` or ``TanhCoulomb``: the
        input is the sliding velocity ``v`` (and ``N`` for a level ``mu·N``), held over each
        sample T, the output the friction force ``f`` and the law's state, integrated by
        RK4 (:mod:`._law_templates`; T defaults to 1e-3 s); other laws are refused.
    path : str or os.PathLike
        The ``.fmu`` file to write (its directory must exist; an existing file is replaced).
    params
        Parameter values ``{name: value}`` (SI units): the FMU parameters' start values.
        Required for every parameter when `algorithm` is a name or a step function;
        overrides the object's values otherwise. The sample period ``T`` is also the
        FMU's default communication step.
    T : float, optional
        The sample period [s] (the same as ``params={"T": ...}``).
    substeps : int, optional
        Friction laws only: the least RK4 steps per sample (an FMU parameter). A sample takes
        ``n = max(substeps, ceil(T·λ/(h₄/2)))`` steps, λ the law's decay rate with the
        inputs held (1/β for CoulombODE, |v|/g(v) for LuGre), h₄ ≈ 2.785 RK4's stability
        limit; by default the rule's count at T (1 for LuGre, whose λ depends on v).
    binaries : bool, optional
        Build ``binaries/linux64/stickslip_<name>.so`` (``darwin64``/``.dylib`` on macOS)
        with the system C compiler. ``False`` writes a source-only FMU (the sources are
        listed in the model description for the importing tool to compile).
    compiler : str, optional
        The C compiler to build with (``"gcc"``; any gcc-compatible one, e.g. ``"clang"``).

    Returns
    -------
    Path
        The path of the written FMU.

    Raises
    ------
    ParameterError
        an unknown algorithm, a missing or invalid parameter, a path that does
        not end in ``.fmu`` or whose directory is missing or not writable.
    MissingDependencyError
        the compiler is not installed (pass ``binaries=False``).

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
    # loaded by _resolve (a provider); imported here, not above, so that `import
    # stickslip.discrete` does not load the integrators it needs (0.6 s)
    from ._law_templates import LAW_TEMPLATES

    if params is None or isinstance(params, Mapping):     # else _parameter_values says so
        given = {"T": T, "substeps": substeps}
        params = {**(params or {}), **{k: v for k, v in given.items() if v is not None}}
    if "substeps" in (params or {}) and alg.name not in LAW_TEMPLATES:
        raise ParameterError(f"`export_fmu(substeps=)` is for the friction laws (an ODE "
                             f"integrated inside the FMU); {alg.name!r} takes one step per "
                             "sample. Leave substeps out.")
    if alg.name in LAW_TEMPLATES and defaults is None and "substeps" in dict(alg.params):
        defaults = {"substeps": 1.0}       # a law by name: the rule's count, set below
    values = _parameter_values(algorithm, alg, defaults, params)
    if alg.name in LAW_TEMPLATES:
        values = _law_values(alg, values, "substeps" in params)
    target = _check_path(path)
    ident = f"stickslip_{alg.name}"
    variables = fmu_variables(alg, values)
    header, source = _header(alg, values), _source(alg)
    # A GUID that is a function of the content: the same export gives the same FMU.
    digest = hashlib.sha256("\0".join(
        [__version__, header, source, model_description(alg, variables, "", values["T"])]
    ).encode()).hexdigest()
    guid = "{" + str(uuid.uuid5(uuid.NAMESPACE_URL, f"stickslip-fmu:{digest}")) + "}"
    files = {
        "modelDescription.xml": model_description(alg, variables, guid, values["T"]),
        f"sources/{ident}.h": header,
        f"sources/{ident}.c": source,
        "sources/stickslip_fmi2.h": FMI2_HEADER,
        f"sources/{ident}_fmu.c": wrapper(alg, variables, guid),
        "documentation/index.html": documentation(alg, variables, values["T"]),
    }
    return write_fmu(target, ident, files, binaries, compiler)
