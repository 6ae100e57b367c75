"""Construction-time check that a user callable can be traced by JAX (issue 11 item 8).

A driver's motion C(t) or a force's callable is evaluated inside ``jit``; a Python ``if`` on
t (or ``float(t)``) works on the host check at t = 0 but fails later with JAX's
``TracerBoolConversionError`` deep inside a run. Tracing it once abstractly here turns that
into a :class:`~stickslip.errors.ParameterError` that names the element and the argument.

(Minimal planar version; the laws owner is adding a shared ``check_traceable`` to
``stickslip._validation`` — switch to it when it lands.)
"""

from __future__ import annotations

from typing import Callable

import jax
import jax.numpy as jnp

from ..errors import ParameterError

__all__ = ["check_traceable"]


def check_traceable(owner: str, name: str, fn: Callable, *arg_shapes: tuple[int, ...]) -> None:
    """Trace `fn` with abstract float arguments (shapes `arg_shapes`; default one scalar t)
    and raise ParameterError naming ``owner.name`` if it needs concrete values."""
    shapes = arg_shapes or ((),)
    args = [jax.ShapeDtypeStruct(s, jnp.result_type(float)) for s in shapes]
    try:
        jax.eval_shape(fn, *args)
    except (jax.errors.TracerBoolConversionError, jax.errors.ConcretizationTypeError,
            jax.errors.TracerIntegerConversionError) as exc:
        raise ParameterError(
            f"`{owner}.{name}` cannot be traced by JAX: it branches on or converts its "
            f"argument ({type(exc).__name__}). Write it with jax.numpy — a Python `if t < 1:` "
            f"becomes `jnp.where(t < 1, a, b)`, `float(t)` just `t`.") from None
    except ParameterError:
        raise
    except Exception:  # noqa: BLE001 - other failures were reported by the host check
        return
