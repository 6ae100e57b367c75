"""Readable ``repr`` for parameter modules (laws, controllers, tire models) and systems.

Equinox's default shows ``f64[]`` for every array field; users comparing with the papers
want the numbers: ``LuGre(mu_s=0.3, mu_k=0.2, …)``. Traced values print as ``traced`` and
non-scalar arrays as ``array(shape)``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from ._validation import is_traced

__all__ = ["parameter_repr", "module_repr"]


def parameter_repr(module) -> str:
    """``Name(field=value, …)`` over the dataclass fields of `module` that are not None."""
    parts = []
    for field in dataclasses.fields(module):
        value = getattr(module, field.name)
        if value is None:
            continue
        if is_traced(value):
            shown = "traced"
        elif isinstance(value, (str, int, bool)):
            shown = repr(value)
        elif np.ndim(value) != 0:
            shown = f"array{np.shape(value)}"
        else:
            shown = repr(float(value))
        parts.append(f"{field.name}={shown}")
    return f"{type(module).__name__}({', '.join(parts)})"


def _shown(value: Any) -> str:
    if is_traced(value):
        return "traced"
    if isinstance(value, (str, int, bool, float)):
        return repr(value)
    if dataclasses.is_dataclass(type(value)):   # an instance (a dataclass class is not)
        return repr(value)              # a law or controller prints its own numbers
    if hasattr(value, "shape"):         # an array (before callables: some arrays are both)
        return repr(float(value)) if np.ndim(value) == 0 else f"array{np.shape(value)}"
    if callable(value):
        return getattr(value, "__qualname__", type(value).__name__)
    fields = getattr(value, "_fields", None)
    if isinstance(value, tuple) and fields is not None:             # a bundle of arrays
        return f"{type(value).__name__}({', '.join(fields)})"
    if isinstance(value, (list, tuple)):
        return f"{type(value).__name__}[{len(value)}]"
    return type(value).__name__


def module_repr(module) -> str:
    """``Name(field=value, …)`` for a system: scalars as numbers, arrays by shape, nested
    laws by their own repr, callables by name; None fields left out.

    >>> import stickslip as ss
    >>> ss.systems.FrictionMass(M=2.0, law=ss.laws.CoulombODE(F=0.5, K=1e4, beta=1e-3))
    FrictionMass(M=2.0, law=CoulombODE(K=10000.0, beta=0.001, F=0.5), force=_zero_force, N=1.0, p0=0.0, v0=0.0, anchor=0.0)
    """
    parts = []
    for field in dataclasses.fields(module):
        value = getattr(module, field.name)
        if value is None:
            continue
        parts.append(f"{field.name}={_shown(value)}")
    return f"{type(module).__name__}({', '.join(parts)})"
