"""Checks of concrete parameter values, shared by every law, system and host.

Each check names the owner and the parameter, shows the value, and says how to fix it
(one message form for the whole package). Traced values (inside ``jit``/``vmap``/``grad``)
are skipped: they cannot be inspected, and they were checked when first built.
"""

from __future__ import annotations

from typing import Any

import jax
import numpy as np

from .errors import ParameterError

__all__ = ["is_traced", "concrete", "check_finite", "check_positive", "check_nonnegative",
           "check_at_most", "check_shape"]


def is_traced(value: Any) -> bool:
    """True when `value` is (or contains) a JAX tracer, i.e. it cannot be checked now."""
    return any(isinstance(leaf, jax.core.Tracer) for leaf in jax.tree.leaves(value))


def concrete(value: Any) -> np.ndarray | None:
    """`value` as a NumPy array, or None when it is traced or None."""
    if value is None or is_traced(value):
        return None
    return np.asarray(value)


def _show(value: np.ndarray) -> str:
    if value.ndim == 0:
        return repr(float(value)) if np.issubdtype(value.dtype, np.number) else repr(value)
    return np.array2string(value, threshold=6, precision=6)


def check_finite(owner: str, name: str, value: Any, hint: str = "") -> None:
    """Raise `ParameterError` if `value` contains NaN or infinity."""
    arr = concrete(value)
    if arr is None:
        return
    if not np.all(np.isfinite(arr)):
        raise ParameterError(
            f"`{owner}.{name}` must be finite; got {name}={_show(arr)}."
            + (f" {hint}" if hint else " Pass a finite number.")
        )


def check_positive(owner: str, name: str, value: Any, hint: str = "") -> None:
    """Raise `ParameterError` unless every element of `value` is finite and > 0."""
    check_finite(owner, name, value, hint)
    arr = concrete(value)
    if arr is not None and not np.all(arr > 0):
        raise ParameterError(
            f"`{owner}.{name}` must be > 0; got {name}={_show(arr)}."
            + (f" {hint}" if hint else " Pass a positive value.")
        )


def check_nonnegative(owner: str, name: str, value: Any, hint: str = "") -> None:
    """Raise `ParameterError` unless every element of `value` is finite and >= 0."""
    check_finite(owner, name, value, hint)
    arr = concrete(value)
    if arr is not None and not np.all(arr >= 0):
        raise ParameterError(
            f"`{owner}.{name}` must be >= 0; got {name}={_show(arr)}."
            + (f" {hint}" if hint else " Pass zero or a positive value.")
        )


def check_at_most(owner: str, name: str, value: Any, other_name: str, other: Any,
                  hint: str) -> None:
    """Raise `ParameterError` unless `value <= other` element-wise."""
    a, b = concrete(value), concrete(other)
    if a is None or b is None:
        return
    if not np.all(a <= b):
        raise ParameterError(
            f"`{owner}.{name}` must be <= `{owner}.{other_name}`; "
            f"got {name}={_show(a)}, {other_name}={_show(b)}. {hint}"
        )


def check_shape(owner: str, name: str, value: Any, shape: tuple[int, ...]) -> None:
    """Raise `ParameterError` unless `value` has exactly `shape`."""
    arr = concrete(value)
    if arr is None or arr.shape == shape:
        return
    what = "a scalar" if shape == () else f"an array of shape {shape}"
    raise ParameterError(
        f"`{owner}.{name}` must be {what}; got shape {arr.shape} ({_show(arr)}). "
        f"Pass {what}."
    )
