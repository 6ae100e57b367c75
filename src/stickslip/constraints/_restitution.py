"""The coefficient of restitution that the Baumgarte-like relaxation implies (SPEC §6).

While a contact carries force its relaxed gap obeys ψ̈ + (2ζ/δ)ψ̇ + ψ/δ² = 0 (w_n = 0). A
free contact hitting at ψ̇ = v₀ < 0 from ψ = 0 follows ψ(t) = v₀ e^{−ζt/δ} sin(ωt)/ω, ω =
√(1 − ζ²)/δ, and lets go when its force ∝ ψ̈ returns to zero; the outgoing ψ̇ over −v₀ is
the restitution. It depends on ζ alone (δ only sets the duration ≈ δ): e(0) = 1, e(1) =
e⁻² ≈ 0.135, and e → 0 as ζ grows.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_nonnegative

__all__ = ["relaxation_restitution"]


def relaxation_restitution(zeta: float) -> float:
    """Restitution e(ζ) [-] of a free impact under the relaxation (module docstring).

    >>> round(relaxation_restitution(1.0), 6)   # e⁻²
    0.135335
    >>> relaxation_restitution(0.0)
    1.0
    """
    check_nonnegative("relaxation_restitution", "zeta", zeta)
    z = float(zeta)
    roots = np.roots([1.0, 2.0 * z, 1.0])              # of s² + 2ζ s + 1 (δ = 1)
    if abs(roots[0] - roots[1]) < 1e-6:                # critically damped: ψ = v₀ t e^{−t}
        r = -1.0
        t_sep = -2.0 / r
        return float(-(1.0 + r * t_sep) * np.exp(r * t_sep))
    r1, r2 = roots

    def psi_dd(t):                                     # with v₀ = −1: the contact force ∝ ψ̈
        return -np.real((r1 ** 2 * np.exp(r1 * t) - r2 ** 2 * np.exp(r2 * t)) / (r1 - r2))

    def psi_d(t):
        return -np.real((r1 * np.exp(r1 * t) - r2 * np.exp(r2 * t)) / (r1 - r2))

    # ψ̈ starts at −2ζ v₀ ≥ 0; the contact lets go at its first zero (bisection)
    grid = np.linspace(1e-9, 50.0, 200001)
    vals = psi_dd(grid)
    idx = np.flatnonzero(vals < 0)
    if idx.size == 0:
        return 0.0
    lo, hi = grid[idx[0] - 1], grid[idx[0]]
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if psi_dd(mid) > 0 else (lo, mid)
    return float(max(psi_d(0.5 * (lo + hi)), 0.0))
