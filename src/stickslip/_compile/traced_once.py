"""Trace a function once where a program needs both its output shapes and its values.

A run often asks for a function's output shapes before it can call it: the slots a loop
writes the step's forces into, or the samples' channels, come from ``jax.eval_shape`` of
the very step or sample function the loop then calls. Each of the two traces the function
in Python from the start; for a 3-D link system's Moreau–Jean run that was over a third of
its tracing.

:func:`traced_once` wraps the function in an inner ``jax.jit`` that JAX keys by the
wrapper's identity and its arguments' shapes and dtypes: the second call, with arguments of
the same shapes, reuses the first trace. Closing over the enclosing program's traced values
(a system made of traced arrays) is allowed: the wrapper is a plain closure, hashed by
identity, never by what it holds. ``inline=True`` puts the traced operations into the
enclosing program as if the function had been called directly: the compiled program is
the same (the cart of ``benchmarks/spatial_links.py`` on Moreau–Jean: 10 119 operations
after XLA's optimisations either way, the same results to the bit). Without it the inner
function stayed a call in the program, and the cart's RK4 steps ran 1.5× slower.

Measured 2026-11-26 (``STICKSLIP_JAX_CACHE=0``, ``jax_log_compiles``, two runs each, the
same results to the bit): tracing the arm of ``spatial.examples.arm_pushes_box`` on
Moreau–Jean 5.7–6.7 → 3.6–4.0 s, its first call 17–19 → 14.4–15.0 s; the cart on
Moreau–Jean 3.5 → 2.4–2.6 s; the cart on RK4 2.4 → 1.5 s (its dynamics and its stage
outputs traced once instead of twice, :func:`computed_where`).

Use it for a function called with arguments of the same shapes and dtypes (weak types
included) each time; where they differ, JAX traces it again, as without it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import jax
import jax.numpy as jnp

from .packed import SampleLayout

__all__ = ["computed_where", "traced_once"]


def traced_once(fn: Callable) -> Callable:
    """`fn` under an inner ``jax.jit`` whose trace a second call of the same argument
    shapes reuses (module docstring); `fn` may close over traced values."""

    @functools.wraps(fn)
    def call(*args, **kwargs):
        return fn(*args, **kwargs)

    return jax.jit(call, inline=True)


def computed_where(want, fn: Callable, *args):
    """``fn(*args)`` where the traced bool `want` holds, zeros of its shapes elsewhere (a
    ``lax.cond``: the run's outputs, computed in a stage only where a sample is taken); `fn`
    traced once for both its shapes and its branch.

    The branches return the outputs packed in one row (:class:`~.packed.SampleLayout`: the
    channels raveled and cast to their common dtype, as a run's samples are), unpacked after
    the ``cond``. Returned channel by channel, the branch without a sample set every channel
    in a kernel of its own at every step — 68 of the 616 kernels of the gripper example's
    RK4 program, each a step of XLA's CPU runtime where nothing is computed."""
    once = traced_once(fn)
    layout = SampleLayout.of(jax.eval_shape(once, *args))

    def computed(*operands):
        return layout.row(once(*operands))

    def zeros(*_):
        return jnp.zeros((layout.width,), layout.dtype)
    return layout.unpack(jax.lax.cond(want, computed, zeros, *args))
