"""Motions C(t) for the drivers (SPEC §9): :func:`constant_speed` and :func:`smooth_ramp`.

Each returns a small frozen value object (equal motions compare equal, so models built twice
share their compiled programs) that is a pure ``jax.numpy`` function of time.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

import jax.numpy as jnp

from ..errors import ParameterError

__all__ = ["constant_speed", "smooth_ramp"]


@dataclasses.dataclass(frozen=True)
class _ConstantSpeed:
    """C(t) = start + rate·t (a value object: equal motions compare equal, so models built
    twice share their compiled programs)."""

    rate: float
    start: float

    def __call__(self, t):
        return self.start + self.rate * t

    @property
    def __name__(self) -> str:
        return f"constant_speed({self.rate:g}, start={self.start:g})"


@dataclasses.dataclass(frozen=True)
class _SmoothRamp:
    """C(t) from `start` to `end` between t0 and t1 along 10s³ − 15s⁴ + 6s⁵."""

    start: float
    end: float
    t0: float
    t1: float

    def __call__(self, t):
        s = jnp.clip((t - self.t0) / (self.t1 - self.t0), 0.0, 1.0)
        return self.start + (self.end - self.start) * s ** 3 * (10 - 15 * s + 6 * s ** 2)

    @property
    def __name__(self) -> str:
        return f"smooth_ramp({self.start:g}→{self.end:g}, {self.t0:g}–{self.t1:g} s)"


def constant_speed(rate: float, start: float = 0.0) -> Callable:
    """C(t) = start + rate·t: a driver at constant speed (rad/s or m/s)."""
    rate, start = float(rate), float(start)
    if not (math.isfinite(rate) and math.isfinite(start)):
        raise ParameterError(f"`constant_speed` needs finite rate and start; got "
                             f"rate={rate}, start={start}.")
    return _ConstantSpeed(rate, start)


def smooth_ramp(start: float, end: float, t0: float, t1: float) -> Callable:
    """C(t) going from `start` (t ≤ t0) to `end` (t ≥ t1) along a quintic
    10s³ − 15s⁴ + 6s⁵ (zero velocity and acceleration at both ends)."""
    start, end, t0, t1 = float(start), float(end), float(t0), float(t1)
    if not t1 > t0:
        raise ParameterError(f"`smooth_ramp` needs t1 > t0; got t0={t0}, t1={t1}.")
    return _SmoothRamp(start, end, t0, t1)
