"""The bound check of SPEC §4, Step 2: a friction bound χ must be ≥ 0 for every state.

Used when compiling (:func:`~stickslip.inclusion.compile_inclusion`) and again when a compiled
system's parameters change (``CompiledInclusion.with_parameters``); it lives on its own so
that neither of those modules imports the other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping

import sympy as sp

from ._functions import Dio

if TYPE_CHECKING:
    from ._inclusion import DifferentialInclusion

__all__ = ["bound_problem"]


def _sign_dummies(di: DifferentialInclusion, parameters: Mapping[sp.Symbol, float],
                  numeric: bool) -> dict:
    reps: dict = {}
    for sym in (*di.states, *di.inputs, *([di.time] if di.time is not None else [])):
        reps[sym] = sp.Dummy(str(sym), real=True)
    for sym, value in parameters.items():
        if numeric:
            reps[sym] = sp.Float(value)
        elif value > 0:
            reps[sym] = sp.Dummy(str(sym), positive=True)
        elif value == 0:
            reps[sym] = sp.Integer(0)
        else:
            reps[sym] = sp.Dummy(str(sym), negative=True)
    return reps


def _dio_dummies(expr) -> dict:
    return {d: sp.Dummy(f"dio{i}", nonnegative=True)
            for i, d in enumerate(sorted(expr.atoms(Dio), key=sp.default_sort_key))}


def bound_problem(chi: sp.Expr, term: sp.Expr, where: str, di: DifferentialInclusion,
                  parameters: Mapping[sp.Symbol, float]) -> str | None:
    """None when χ ≥ 0 is provable (for any state, with the parameters' values or signs);
    otherwise a message naming the term and the factors that may be negative."""
    dios = _dio_dummies(chi)
    for numeric in (False, True):
        reps = _sign_dummies(di, parameters, numeric)
        if chi.xreplace(dios).xreplace(reps).is_nonnegative:
            return None
    reps = _sign_dummies(di, parameters, numeric=True)
    bad = [f for f in sp.Mul.make_args(chi)
           if not f.xreplace(dios).xreplace(reps).is_nonnegative]
    shown = ", ".join(f"`{f}`" for f in bad) or f"`{chi}`"
    negative_params = sorted((s for s in chi.free_symbols if isinstance(s, sp.Symbol)
                              and s in parameters and parameters[s] < 0), key=str)
    hint = ("Wrap a sign-indefinite normal force in Dio(...) (a rigid contact) or Abs(...), "
            "or move a sign out of χ (write -χ·Sgn(θ))")
    if negative_params:
        hint += "; parameter(s) " + ", ".join(f"`{s}` = {parameters[s]:g}"
                                               for s in negative_params) + " are negative"
    return (f"{where}: the bound χ = `{chi}` of the friction term `{term}` cannot be shown to "
            f"be >= 0 (Step 2 of Xiong et al. §3.3 needs χ >= 0 for every state): {shown} "
            f"may be negative. {hint}.")
