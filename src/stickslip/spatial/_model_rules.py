"""The argument checks of `SpatialModel` and its volume route: scalars, vectors, the
restitution and a friction pair, each error naming the owner and the argument."""

from __future__ import annotations

import numpy as np

from .._rules import check_friction_pair
from .._validation import check_finite, check_nonnegative, check_positive
from ..errors import ParameterError

__all__ = ["check_mu", "check_restitution", "check_scalar", "check_vector"]


def check_scalar(owner: str, name: str, value, *, positive: bool = False,
                  nonnegative: bool = False) -> float:
    """`value` as a float; a `ParameterError` naming ``owner.name`` for a string, a bool, an
    array, NaN/inf or a value of the wrong sign (the rules of `stickslip._validation`)."""
    if isinstance(value, (str, bytes, bool, np.bool_)) or np.ndim(value) != 0:
        raise ParameterError(f"`{owner}.{name}` must be a number; got {value!r}. Pass a "
                             "float.")
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ParameterError(f"`{owner}.{name}` must be a number; got {value!r}.") from None
    if positive:
        check_positive(owner, name, v)
    elif nonnegative:
        check_nonnegative(owner, name, v)
    else:
        check_finite(owner, name, v)
    return v


def check_vector(owner: str, name: str, value, n: int) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ParameterError(f"`{owner}.{name}` must be {n} finite numbers; got "
                             f"{value!r}.") from None
    if arr.shape != (n,) or not np.all(np.isfinite(arr)):
        raise ParameterError(f"`{owner}.{name}` must be {n} finite numbers; got {value!r}.")
    return arr


def check_restitution(owner: str, value) -> float | None:
    if value is None:
        return None
    e = check_scalar(owner, "restitution", value, nonnegative=True)
    if e > 1:
        raise ParameterError(f"`{owner}.restitution` must be in [0, 1]; got restitution={e!r}. "
                             "A rebound faster than the impact would create energy.")
    return e


def check_mu(owner: str, mu_s, mu_k) -> tuple[float, float]:
    """(μ_s, μ_k) as floats: numbers (not arrays, strings, bools), then the shared pair
    validator (finite, >= 0, plausible, μ_k <= μ_s)."""
    mu_s = check_scalar(owner, "mu_s", mu_s)
    mu_k = check_scalar(owner, "mu_k", mu_k)
    return check_friction_pair(owner, mu_s, mu_k)
