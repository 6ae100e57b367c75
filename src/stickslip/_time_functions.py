"""The time functions of the ready-made systems that their C export must recognise: the
default applied force (zero) and a constant given as a number (a belt speed).

Shared layer below every subpackage (DESIGN.md, "Layers"): :mod:`stickslip.systems` builds
with them and :mod:`stickslip.discrete`'s export checks for them, without reaching into
another subpackage's private module.
"""

from __future__ import annotations

import equinox as eqx
import jax.numpy as jnp

from ._parameter_arrays import as_parameter

__all__ = ["Constant", "zero_force"]


def _zero_force(t):
    return jnp.zeros_like(t)


class _Constant(eqx.Module):
    """A constant as a callable of t (keeps the value an array leaf: batchable)."""

    value: jnp.ndarray = eqx.field(converter=as_parameter)

    def __call__(self, t):
        return self.value + 0.0 * t


# the importers' names; the objects keep theirs, which a system's repr shows (force=_zero_force)
zero_force = _zero_force
Constant = _Constant
