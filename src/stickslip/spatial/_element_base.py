"""What every spatial element shares: rules as data without JAX (:data:`POINT`,
:data:`AXIS`, :class:`~stickslip._rules.RuleChecked`), the conversions its constructor does
before the rules run (:func:`vector3`, :func:`time_value`, :func:`_number`), and the checks
of names, bodies, friction laws and values that may be functions of time.

The spatial package loads without JAX, so nothing here imports it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._rules import Rule, RuleChecked
from .._validation import check_finite, check_shape
from ..errors import ParameterError

__all__ = ["AXIS", "POINT", "body_name", "check_time_value", "time_value", "vector3"]


def body_name(owner: str, name: str, value: Any) -> str:
    """A body reference as its name: a string, or anything with a ``name`` string."""
    value = getattr(value, "name", value)
    if not isinstance(value, str) or not value:
        raise ParameterError(f"`{owner}.{name}` must be a body name (a string; 'ground' for "
                             f"the world); got {value!r}.")
    return value


def vector3(value: Any, *, unit: bool = False) -> Any:
    """`value` as 3 floats (divided by its norm with `unit`); anything that is not a finite
    3-vector (a zero direction too) is returned unchanged, for the element's rules
    (:data:`POINT`, :data:`AXIS`) to name what is wrong."""
    if value is None or isinstance(value, (str, bytes)):
        return value
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return value
    if unit and arr.shape == (3,) and np.all(np.isfinite(arr)) and np.any(arr):
        arr = arr / np.max(np.abs(arr))       # first: the norm of (1e308, …) overflows
        norm = np.linalg.norm(arr)
        return arr / norm if norm >= 1e-12 else arr
    return arr


def time_value(value: Any) -> Any:
    """A number/vector as a float array, a callable of t as is (checked by
    :func:`check_time_value`); anything else unchanged."""
    if callable(value) and not hasattr(value, "shape"):
        return value
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return value


def check_time_value(owner: str, name: str, value: Any, shape: tuple = ()) -> None:
    """A number or array of `shape` with finite entries, or a function of t [s]."""
    if callable(value) and not hasattr(value, "shape"):
        return
    what = "a finite number" if shape == () else f"{shape[0]} finite numbers"
    fix = f"Pass {what} or a function of t [s] written with jax.numpy."
    if isinstance(value, (str, bytes)) or not isinstance(value, np.ndarray) \
            or value.dtype.kind not in "biuf":
        raise ParameterError(f"`{owner}.{name}` must be {what} or a function of t [s]; got "
                             f"{value!r}.")
    check_shape(owner, name, value, shape, fix)
    check_finite(owner, name, value, fix)


POINT = Rule("finite", "Pass 3 finite numbers (x, y, z) in metres.", shape=(3,), unit="m")
"""The rule of a point: world coordinates at the initial pose [m]."""

AXIS = Rule("direction", "Give the axis as a non-zero vector such as (0, 0, 1).", shape=(3,))
"""The rule of a joint axis (normalised by the constructor)."""


class _SpatialElement(RuleChecked):
    """Base of the spatial elements: rules as data (:class:`~stickslip._rules.RuleChecked`,
    no JAX), ``example()`` a valid instance; the dataclass ``repr`` shows the values."""


def _number(value: Any) -> Any:
    """One number as a float; None, arrays, strings… unchanged (the rules name them)."""
    if value is None or isinstance(value, (str, bytes, bool, np.bool_)) or np.ndim(value):
        return value
    try:
        return float(value)
    except (TypeError, ValueError):
        return value


def _check_vertices_of(value: Any) -> None:
    if value not in ("both", "a", "b"):
        raise ParameterError(f"`ContactPair.vertices_of` must be 'both', 'a' or 'b'; got "
                             f"{value!r}.")


def _joint_name(kind: str, name: Any) -> str | None:
    if name is None:
        return None
    if not isinstance(name, str) or not name:
        raise ParameterError(f"`{kind}.name` must be a non-empty string; got {name!r}.")
    return name


def _friction(kind: str, friction: Any):
    if friction is None:
        return None
    from ..laws import AbstractFrictionLaw

    if not isinstance(friction, AbstractFrictionLaw):
        raise ParameterError(f"`{kind}.friction` must be a friction law such as "
                             f"ss.laws.CoulombODE(mu=0.1, K=..., beta=...) or ss.laws.LuGre(...); "
                             f"got {type(friction).__name__}.")
    return friction
