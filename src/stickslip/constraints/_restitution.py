"""The coefficient of restitution that the Baumgarte-like relaxation implies (SPEC §6).

While a contact carries force its relaxed gap obeys ψ̈ + (2ζ/δ)ψ̇ + ψ/δ² = 0 (w_n = 0), and it
lets go when its force ∝ ψ̈ (no other force along the normal) returns to zero; the outgoing ψ̇
over the incoming −v₀ is the restitution. It depends on ζ alone (δ only sets the duration
≈ δ), and on how the contact became active:

* ``entry="free"`` (default) — from free flight at ψ̇ = v₀ < 0: the law switches the contact
  on where its free value w_n = (2ζ/δ)ψ̇ + ψ/δ² reaches 0, i.e. at ψ₀ = −2ζδv₀ > 0, *before*
  the gap closes, with zero force. This is what a relaxed run does: e(0) = 1, and for ζ ≥ 1
  the force never returns to zero (ψ = −v₀(2δ + t)e^{−t/δ} at ζ = 1: ψ̈ ≥ 0), so e = 0;
* ``entry="touching"`` — switched on at ψ = 0 with ψ̇ = v₀ (a contact that is already
  closed when a velocity is imposed): ψ(t) = v₀ e^{−ζt/δ} sin(ωt)/ω, ω = √(1 − ζ²)/δ;
  e(0) = 1, e(1) = e⁻² ≈ 0.135, e → 0 as ζ grows.

The exact reference (:func:`stickslip.planar.moreau_jean`) uses ``"free"`` by default: with
ζ = 1 the relaxed slider of issue 12 converges, as δ → 0, to Moreau–Jean with e = 0, not
with e = e⁻² (the two differ by 2.8e-5 m over 0.2 s).
"""

from __future__ import annotations

import numpy as np

from .._validation import check_nonnegative
from ..errors import ParameterError

__all__ = ["relaxation_restitution"]


def relaxation_restitution(zeta: float, entry: str = "free") -> float:
    """Restitution e(ζ) [-] of a free impact under the relaxation (module docstring).

    >>> relaxation_restitution(1.0), relaxation_restitution(0.0)
    (0.0, 1.0)
    >>> round(relaxation_restitution(1.0, entry="touching"), 6)   # e⁻²
    0.135335
    """
    check_nonnegative("relaxation_restitution", "zeta", zeta)
    if entry not in ("free", "touching"):
        raise ParameterError(f"`relaxation_restitution.entry` must be 'free' or 'touching'; "
                             f"got {entry!r}.")
    z = float(zeta)
    # δ = 1, v₀ = −1: the state where the contact switches on
    psi0, v0 = (2.0 * z, -1.0) if entry == "free" else (0.0, -1.0)
    roots = np.roots([1.0, 2.0 * z, 1.0])              # of s² + 2ζ s + 1
    if abs(roots[0] - roots[1]) < 1e-6:                # critically damped: ψ = (a + c t)e^{−t}
        psi_dd, psi_d = _critically_damped(psi0, v0)
    else:
        psi_dd, psi_d = _two_roots(roots, psi0, v0)

    # the force ∝ ψ̈ starts at 0 ("free") or 2ζ ("touching") and grows; the contact lets go
    # at its first zero after that (bisection); none within 50 δ: it never lets go, e = 0
    grid = np.linspace(1e-6, 50.0, 500001)
    vals = psi_dd(grid)
    idx = np.flatnonzero(vals < 0)
    if idx.size == 0:
        return 0.0
    lo, hi = grid[idx[0] - 1], grid[idx[0]]
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if psi_dd(mid) > 0 else (lo, mid)
    return float(max(psi_d(0.5 * (lo + hi)), 0.0))


def _critically_damped(psi0: float, v0: float):
    """(ψ̈, ψ̇) of ψ = (a + c t)e^{−t}, the double root s = −1, with ψ(0) = psi0, ψ̇(0) = v0."""
    r, a = -1.0, psi0
    c = v0 - r * a

    def psi_dd(t):
        return np.exp(r * t) * (r * r * a + c * r * (2.0 + r * t))

    def psi_d(t):
        return np.exp(r * t) * (r * a + c * (1.0 + r * t))
    return psi_dd, psi_d


def _two_roots(roots, psi0: float, v0: float):
    """(ψ̈, ψ̇) of ψ = a₁e^{r₁t} + a₂e^{r₂t} (distinct roots r₁, r₂ of s² + 2ζ s + 1, complex
    when under-damped: the real part), with ψ(0) = psi0, ψ̇(0) = v0."""
    r1, r2 = roots
    a1 = (v0 - r2 * psi0) / (r1 - r2)
    a2 = (r1 * psi0 - v0) / (r1 - r2)

    def psi_dd(t):
        return np.real(a1 * r1 ** 2 * np.exp(r1 * t) + a2 * r2 ** 2 * np.exp(r2 * t))

    def psi_d(t):
        return np.real(a1 * r1 * np.exp(r1 * t) + a2 * r2 * np.exp(r2 * t))
    return psi_dd, psi_d
