"""Validators for the integrators' plain arguments (times, counts, tolerances).

Each returns the cleaned value or raises `ParameterError` naming ``owner.name``, the value
and the fix. Strings are refused on purpose: ``t_end="1"`` is almost always a value read from
a file or a command line and not converted, and accepting it would hide that.
"""

from __future__ import annotations

import difflib
import numbers
from collections.abc import Iterable
from typing import Any

import numpy as np

from ..errors import ParameterError

__all__ = ["as_real", "as_time", "as_count", "as_flag", "did_you_mean"]


def _scalar(owner: str, name: str, value, kind: str) -> Any:   # a Python number
    if isinstance(value, (bool, np.bool_)) or isinstance(value, (str, bytes)):
        raise ParameterError(f"`{owner}.{name}` must be a {kind}; got {value!r} "
                             f"({type(value).__name__})."
                             + (" Convert it first, e.g. float(text)." if isinstance(value, str)
                                else " Pass a number."))
    if isinstance(value, numbers.Number):
        return value
    arr = np.asarray(value) if hasattr(value, "__array__") else None
    if arr is None or arr.shape != () or not np.issubdtype(arr.dtype, np.number) \
            or np.issubdtype(arr.dtype, np.bool_):
        raise ParameterError(f"`{owner}.{name}` must be a {kind} (a plain number); got "
                             f"{type(value).__name__} {value!r:.60}.")
    return arr.item()


def as_time(owner: str, name: str, value, *, positive: bool = False, hint: str = "") -> float:
    """`value` as a finite float [s] (and > 0 with `positive`)."""
    return as_real(owner, name, value, positive=positive, hint=hint, kind="number of seconds")


def as_real(owner: str, name: str, value, *, positive: bool = False, hint: str = "",
            kind: str = "real number") -> float:
    """`value` as a finite float (and > 0 with `positive`)."""
    value = _scalar(owner, name, value, kind)
    if isinstance(value, complex):
        raise ParameterError(f"`{owner}.{name}` must be real; got {value!r}.")
    value = float(value)
    if not np.isfinite(value):
        raise ParameterError(f"`{owner}.{name}` must be finite; got {name}={value!r}. "
                             + (hint or "Pass a finite number."))
    if positive and not value > 0:
        raise ParameterError(f"`{owner}.{name}` must be > 0; got {name}={value!r}. "
                             + (hint or "Pass a positive number."))
    return value


def as_count(owner: str, name: str, value, *, minimum: int = 1) -> int:
    """`value` as an int >= `minimum` (a float with an integer value is accepted)."""
    value = _scalar(owner, name, value, "whole number")
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, numbers.Integral) or value < minimum:
        raise ParameterError(f"`{owner}.{name}` must be a whole number >= {minimum}; got "
                             f"{name}={value!r}.")
    return int(value)


def as_flag(owner: str, name: str, value) -> bool:
    """`value` as a bool (True/False/None→False only; no truthy strings)."""
    if value is None or isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise ParameterError(f"`{owner}.{name}` must be True or False; got {value!r}.")


def did_you_mean(names: Iterable[str], known: Iterable[str]) -> str:
    """`` Did you mean `dt_out` for `dtout`?`` for each of `names` close to a `known` one
    (the same but for case, else difflib's closest), or ''."""
    hints = []
    for name in names:
        close = [k for k in sorted(known) if k.lower() == str(name).lower()] or \
            difflib.get_close_matches(str(name), sorted(known), n=1)
        if close:
            hints.append(f"`{close[0]}` for `{name}`")
    return f" Did you mean {', '.join(hints)}?" if hints else ""
