"""C export: each discrete algorithm as a dependency-free C99 header/source pair.

The C mirrors the Python (``jax.numpy``) update expression for expression, in the same order
of operations, so the two agree to round-off (the test compiles it and checks 1e-12 over a
long random input sequence).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .._version import __version__
from ..errors import ParameterError

__all__ = ["export_c", "ALGORITHMS"]


@dataclass(frozen=True)
class _Algorithm:
    name: str
    summary: str
    params: tuple[tuple[str, str], ...]     # (field, comment)
    state: tuple[tuple[str, str, str], ...]  # (C type, field, comment)
    step_args: str                           # extra arguments after the pointers
    step_doc: str
    init_body: str
    check_body: str
    step_body: str


_SAT = """static double stickslip_sat(double Z, double x)
{
    /* sat(Z, x): x clipped to [-Z, Z] (SPEC §1, eq. 2); theorem (4) */
    return x < -Z ? -Z : (x > Z ? Z : x);
}
"""

_PSMC = _Algorithm(
    name="psmc",
    summary="Proxy-based sliding mode control (SPEC §6; Kikuuwe & Fujimoto, ICRA 2006)",
    params=(("F", "force limit [N] > 0; |f| <= F always"),
            ("H", "sliding-surface time constant [s] > 0"),
            ("K", "proportional coupling gain K_p [N/m] > 0"),
            ("B", "derivative coupling gain K_d [N s/m] > 0"),
            ("L", "integral coupling gain K_i [N/(m s)] >= 0"),
            ("T", "sample period [s] > 0")),
    state=(("double", "a1", "a_{k-1}: integral of the proxy-plant offset [m s]"),
           ("double", "da1", "a_{k-1} - a_{k-2} [m s]; da1/T is the proxy-plant offset [m]"),
           ("double", "p_prev", "previous measured position [m]"),
           ("double", "pd_prev", "previous reference [m]"),
           ("int", "started", "0 until the first step (no derivative kick)"),
           ("unsigned long", "faults", "samples rejected for a non-finite input")),
    step_args="double p_d, double p",
    step_doc="Force f_k [N] for reference p_d and measured position p [m]; updates *s.",
    init_body="    s->a1 = 0.0;\n    s->da1 = 0.0;\n    s->p_prev = 0.0;\n    s->pd_prev = 0.0;\n"
              "    s->started = 0;\n    s->faults = 0;\n",
    check_body="""    if (!(prm->T > 0.0) || !isfinite(prm->T)) return 1;
    if (!(prm->F > 0.0) || !isfinite(prm->F)) return 2;
    if (!(prm->H > 0.0) || !isfinite(prm->H)) return 3;
    if (!(prm->B > 0.0) || !isfinite(prm->B)) return 4;
    if (!(prm->K > 0.0) || !isfinite(prm->K)) return 5;  /* proxy B s^2 + K s + L unstable */
    if (!(prm->L >= 0.0) || !isfinite(prm->L)) return 6;
    return 0;
""",
    step_body="""    const double F = prm->F, H = prm->H, K = prm->K, B = prm->B, L = prm->L, T = prm->T;
    double sigma, D, f_star, f, da;
    if (!isfinite(p_d) || !isfinite(p)) {
        s->faults += 1;
        return 0.0;
    }
    if (!s->started) {
        s->p_prev = p;
        s->pd_prev = p_d;
        s->started = 1;
    }
    sigma = p_d - p + H * ((p_d - s->pd_prev) - (p - s->p_prev)) / T;
    D = B + K * T + L * T * T;
    /* f*_k of SPEC 6 with a_{k-2} = a_{k-1} - da_{k-1} (same value, no cancellation) */
    f_star = D / (H + T) * sigma + L * s->a1 + (K * H - B + L * T * H) / ((H + T) * T) * s->da1;
    f = stickslip_sat(F, f_star);
    da = (B * s->da1 + T * T * (f - L * s->a1)) / D;
    s->a1 = s->a1 + da;
    s->da1 = da;
    s->p_prev = p;
    s->pd_prev = p_d;
    return f;
""")

_COULOMB = _Algorithm(
    name="coulomb_mass",
    summary="Mass with Coulomb friction in discrete time (SPEC §6; Kikuuwe et al., T-RO 2006)",
    params=(("M", "mass [kg] > 0"),
            ("F", "friction force level [N] >= 0"),
            ("T", "sample period [s] > 0")),
    state=(("double", "p", "position [m]"),
           ("double", "v", "velocity [m/s]"),
           ("unsigned long", "faults", "samples rejected for a non-finite input")),
    step_args="double h",
    step_doc="Applies the force h [N] for one period; returns the friction force f_k [N]\n"
             " * (the force on the mass is -f_k) and updates s->v, s->p.",
    init_body="    s->p = 0.0;\n    s->v = 0.0;\n    s->faults = 0;\n",
    check_body="""    if (!(prm->M > 0.0) || !isfinite(prm->M)) return 1;
    if (!(prm->F >= 0.0) || !isfinite(prm->F)) return 2;
    if (!(prm->T > 0.0) || !isfinite(prm->T)) return 3;
    return 0;
""",
    step_body="""    const double M = prm->M, F = prm->F, T = prm->T;
    double f;
    if (!isfinite(h)) {
        s->faults += 1;
        return 0.0;
    }
    f = stickslip_sat(F, M * s->v / T + h);    /* f_k = F sat((M v_{k-1}/T + h_k)/F) */
    s->v = s->v + T * (h - f) / M;
    s->p = s->p + T * s->v;
    return f;
""")

_DA = _Algorithm(
    name="da_relaxation",
    summary="Differential-algebraic relaxation of friction (SPEC §6; Kikuuwe et al., "
            "T-RO 2006)",
    params=(("F", "friction force level [N] >= 0"),
            ("K", "relaxation stiffness [N/m] >= 0"),
            ("B", "relaxation damping [N s/m] > 0"),
            ("T", "sample period [s] > 0")),
    state=(("double", "e", "proxy deflection e_{k-1} [m]"),
           ("unsigned long", "faults", "samples rejected for a non-finite input")),
    step_args="double v",
    step_doc="Friction force f_k [N] resisting the measured velocity v [m/s] (apply -f_k);\n"
             " * updates s->e.",
    init_body="    s->e = 0.0;\n    s->faults = 0;\n",
    check_body="""    if (!(prm->F >= 0.0) || !isfinite(prm->F)) return 1;
    if (!(prm->K >= 0.0) || !isfinite(prm->K)) return 2;
    if (!(prm->B > 0.0) || !isfinite(prm->B)) return 3;
    if (!(prm->T > 0.0) || !isfinite(prm->T)) return 4;
    return 0;
""",
    step_body="""    const double F = prm->F, K = prm->K, B = prm->B, T = prm->T;
    double gain, f;
    if (!isfinite(v)) {
        s->faults += 1;
        return 0.0;
    }
    gain = K * T + B;
    f = stickslip_sat(F, gain * v + K * s->e);
    s->e = (B * s->e + T * f) / gain;
    return f;
""")

_SIGN = _Algorithm(
    name="sign_inclusion",
    summary="Backward Euler for x' in -sgn(x) - u (SPEC §6)",
    params=(("T", "sample period [s] > 0"),),
    state=(("double", "x", "state x_{k-1}"),
           ("unsigned long", "faults", "samples rejected for a non-finite input")),
    step_args="double u",
    step_doc="Advances x by one period with input u held; returns x_k.",
    init_body="    s->x = 0.0;\n    s->faults = 0;\n",
    check_body="""    if (!(prm->T > 0.0) || !isfinite(prm->T)) return 1;
    return 0;
""",
    step_body="""    double w;
    if (!isfinite(u)) {
        s->faults += 1;
        return s->x;
    }
    w = s->x - prm->T * u;
    s->x = w - stickslip_sat(prm->T, w);
    return s->x;
""")

ALGORITHMS: dict[str, _Algorithm] = {a.name: a for a in (_PSMC, _COULOMB, _DA, _SIGN)}
"""The exportable algorithms by name: psmc, coulomb_mass, da_relaxation, sign_inclusion."""


def _resolve(algorithm: Any) -> tuple[_Algorithm, dict[str, float] | None]:
    """Map a name, a step function or a configured object to (algorithm, default params)."""
    from ..control import _controllers as ctl
    from . import _friction as fr

    by_function = {fr.coulomb_mass_step: "coulomb_mass", fr.da_relaxation_step: "da_relaxation",
                   fr.sign_inclusion_step: "sign_inclusion", ctl.psmc_step: "psmc"}
    if isinstance(algorithm, str):
        if algorithm not in ALGORITHMS:
            raise ParameterError(f"unknown algorithm {algorithm!r} for `export_c`; choose one "
                                 f"of {sorted(ALGORITHMS)}.")
        return ALGORITHMS[algorithm], None
    if callable(algorithm) and algorithm in by_function:
        return ALGORITHMS[by_function[algorithm]], None
    if isinstance(algorithm, ctl.PSMC):
        algorithm = algorithm.params
    if isinstance(algorithm, ctl.PSMCParams):
        return _PSMC, {k: float(getattr(algorithm, k)) for k, _ in _PSMC.params}
    if isinstance(algorithm, fr.CoulombMass):
        return _COULOMB, {k: getattr(algorithm, k) for k, _ in _COULOMB.params}
    if isinstance(algorithm, fr.DARelaxation):
        return _DA, {k: getattr(algorithm, k) for k, _ in _DA.params}
    raise ParameterError(
        f"`export_c` cannot export {algorithm!r}; pass one of the names {sorted(ALGORITHMS)}, "
        "a step function (ss.discrete.coulomb_mass_step, da_relaxation_step, "
        "sign_inclusion_step, ss.control.psmc_step) or a configured ss.control.PSMC, "
        "ss.discrete.CoulombMass or ss.discrete.DARelaxation.")


def _header(alg: _Algorithm, defaults: dict[str, float] | None) -> str:
    n = alg.name
    guard = f"STICKSLIP_{n.upper()}_H"
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
 *     stickslip_{n}_init(&s);
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

/* {alg.step_doc} */
double stickslip_{n}_step(stickslip_{n}_state *s, const stickslip_{n}_params *prm,
                          {alg.step_args});

#ifdef __cplusplus
}}
#endif

#endif /* {guard} */
"""


def _source(alg: _Algorithm) -> str:
    n = alg.name
    return f"""/* stickslip_{n}.c -- {alg.summary}.
 * Generated by stickslip {__version__} (stickslip.discrete.export_c); dependency-free C99.
 * Mirrors the Python implementation operation by operation.
 */
#include <math.h>   /* isfinite (a macro: no libm needed) */
#include "stickslip_{n}.h"

{_SAT}
int stickslip_{n}_check(const stickslip_{n}_params *prm)
{{
{alg.check_body}}}

void stickslip_{n}_init(stickslip_{n}_state *s)
{{
{alg.init_body}}}

double stickslip_{n}_step(stickslip_{n}_state *s, const stickslip_{n}_params *prm,
                          {alg.step_args})
{{
{alg.step_body}}}
"""


def export_c(algorithm: Any, path: str | os.PathLike) -> tuple[Path, Path]:
    """Write a dependency-free C99 header/source pair for a discrete algorithm.

    Parameters
    ----------
    algorithm:
        ``"psmc"``, ``"coulomb_mass"``, ``"da_relaxation"`` or ``"sign_inclusion"``; or the
        step function itself (``ss.control.psmc_step``, ``ss.discrete.coulomb_mass_step``, …);
        or a configured ``ss.control.PSMC`` / ``PSMCParams``, ``ss.discrete.CoulombMass`` or
        ``ss.discrete.DARelaxation``, whose parameters are also written as
        ``STICKSLIP_<NAME>_DEFAULT_PARAMS``.
    path:
        A directory (the files are ``stickslip_<name>.h`` and ``.c`` inside it, created if
        needed) or a file path ending in ``.c``/``.h`` (its directory is used).

    Returns
    -------
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
