"""Explicit Runge–Kutta methods as data: a Butcher tableau and an order."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["ButcherTableau", "FIXED_STEP_METHODS"]


@dataclass(frozen=True)
class ButcherTableau:
    """An explicit Runge–Kutta method: ``k_i = f(t + c_i h, x + h Σ_j a_ij k_j)``,
    ``x⁺ = x + h Σ_i b_i k_i``."""

    name: str
    order: int
    a: tuple[tuple[float, ...], ...]
    b: tuple[float, ...]
    c: tuple[float, ...]

    def stability(self, z: np.ndarray) -> np.ndarray:
        """Stability function R(z) = 1 + z bᵀ (I − zA)⁻¹ 1 for the test equation x' = λx."""
        A = np.zeros((len(self.b), len(self.b)))
        for i, row in enumerate(self.a):
            A[i, : len(row)] = row
        b = np.asarray(self.b)
        z = np.atleast_1d(np.asarray(z, dtype=complex))
        ones = np.ones(len(b))
        out = np.empty(z.shape, dtype=complex)
        for idx, zi in np.ndenumerate(z):
            out[idx] = 1 + zi * b @ np.linalg.solve(np.eye(len(b)) - zi * A, ones)
        return out


_S2 = math.sqrt(2.0)

FIXED_STEP_METHODS: dict[str, ButcherTableau] = {
    "euler": ButcherTableau("euler", 1, a=((),), b=(1.0,), c=(0.0,)),
    "rk4": ButcherTableau(
        "rk4", 4,
        a=((), (0.5,), (0.0, 0.5), (0.0, 0.0, 1.0)),
        b=(1 / 6, 1 / 3, 1 / 3, 1 / 6), c=(0.0, 0.5, 0.5, 1.0)),
    # Runge–Kutta–Gill (Gill 1951), the integrator of the volume-contact paper (SPEC §7).
    "rk_gill": ButcherTableau(
        "rk_gill", 4,
        a=((), (0.5,), ((_S2 - 1) / 2, (2 - _S2) / 2), (0.0, -_S2 / 2, 1 + _S2 / 2)),
        b=(1 / 6, (2 - _S2) / 6, (2 + _S2) / 6, 1 / 6), c=(0.0, 0.5, 0.5, 1.0)),
}
