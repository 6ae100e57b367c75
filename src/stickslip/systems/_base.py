"""Helpers shared by the ready-made systems; the system interface itself.

:class:`AbstractSystem` — the contract every host (these systems, planar mechanisms, the
inclusion compiler's output) implements — is defined next to the integrators that consume
it (:mod:`stickslip.integrate._system`, so imports flow downward) and re-exported here.
"""

from __future__ import annotations

from typing import Any, Callable

import jax.numpy as jnp
import numpy as np

from .._validation import is_traced
from ..errors import ParameterError
from ..integrate._system import AbstractSystem, module_parameters
from ..laws import AbstractLaw

__all__ = ["AbstractSystem", "check_time_function", "law_parameters"]


def law_parameters(prefix: str, law: AbstractLaw) -> dict[str, Any]:
    """``{prefix.field: value}`` for a law's parameters, plus ``prefix`` = its class name."""
    return module_parameters(prefix, law)


def check_time_function(owner: str, name: str, fn: Callable | None,
                        shape: tuple[int, ...]) -> None:
    """Evaluate `fn(0.0)` once on the host and check it returns finite numbers of `shape`."""
    if fn is None:
        return
    if not callable(fn):
        raise ParameterError(f"`{owner}.{name}` must be a callable of time t [s] written with "
                             f"jax.numpy; got {type(fn).__name__}. Pass e.g. "
                             f"`lambda t: 0.5 * jnp.sin(t)`.")
    try:
        value = fn(jnp.asarray(0.0))
        if is_traced(value):   # its parameters are traced (a vmapped or differentiated build)
            return
        value = np.asarray(value)
    except Exception as exc:  # the user's function failed: say which one and why
        raise ParameterError(f"`{owner}.{name}(t)` failed at t=0: {exc!r}. It must take the "
                             "time t [s] and use jax.numpy (no float() or if on t).") from exc
    if value.shape != shape:
        what = "a scalar" if shape == () else f"an array of shape {shape}"
        raise ParameterError(f"`{owner}.{name}(t)` must return {what}; got shape "
                             f"{value.shape} at t=0.")
    if not np.all(np.isfinite(value)):
        raise ParameterError(f"`{owner}.{name}(t)` returned a non-finite value at t=0: {value}.")
