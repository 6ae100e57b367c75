"""Parameters as arrays: :func:`as_parameter`, the field converter of every element, law,
system and host whose parameters are traced data (``eqx.field(converter=as_parameter)``).

Shared infrastructure below every subpackage (DESIGN.md, "Layers": what is shared moves
down a layer), so a host imports it from here, not from another subpackage's private module.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.core  # jax.core.Tracer below (a submodule: named for static checkers)
import jax.numpy as jnp
import numpy as np

__all__ = ["as_parameter"]

def as_parameter(value: Any) -> Any:
    """Convert a parameter to a float64 JAX array (None stays None; tracers pass through).

    A value that is not a number (a string, a callable) is left as it is, so the element's
    parameter rule rejects it with a message naming the field instead of a bare TypeError.
    """
    if value is None or isinstance(value, (str, bytes)) or (
            callable(value) and not hasattr(value, "shape")):
        return value
    if isinstance(value, jax.core.Tracer):
        return jnp.asarray(value, dtype=float)
    if isinstance(value, jax.Array) and value.dtype == jnp.float64:
        return value
    try:
        # through NumPy and device_put: no tiny XLA program is compiled per new value type,
        # as jnp.asarray would (each costs a lowering and a cache read in a fresh process)
        return jax.device_put(np.asarray(value, dtype=np.float64))
    except (TypeError, ValueError, jax.errors.TracerArrayConversionError):
        pass
    try:                                 # e.g. a list holding tracers
        return jnp.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return value
