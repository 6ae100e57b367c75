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

    def stability_coefficients(self) -> np.ndarray:
        """Coefficients c_k of R(z) = Σ_k c_k z^k, c_0 = 1, c_k = bᵀ A^(k−1) 1 (explicit RK)."""
        s = len(self.b)
        A = np.zeros((s, s))
        for i, row in enumerate(self.a):
            A[i, : len(row)] = row
        b, vec = np.asarray(self.b), np.ones(s)
        coeffs = [1.0]
        for _ in range(s):
            coeffs.append(float(b @ vec))
            vec = A @ vec
        return np.asarray(coeffs)

    def stability(self, z: np.ndarray) -> np.ndarray:
        """Stability function R(z) for the test equation x' = λx, z = λh (vectorised)."""
        z = np.atleast_1d(np.asarray(z, dtype=complex))
        return np.polyval(self.stability_coefficients()[::-1], z)


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
