"""Readable ``repr`` for parameter modules (laws, controllers, tire models).

Equinox's default shows ``f64[]`` for every array field; users comparing with the papers
want the numbers: ``LuGre(mus=0.3, mud=0.2, …)``. Traced values print as ``traced`` and
non-scalar arrays as ``array(shape)``.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ._validation import is_traced

__all__ = ["parameter_repr"]


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
