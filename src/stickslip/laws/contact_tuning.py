"""Tuning guide for `UnilateralODE`: restitution and penetration from (M, K, β, α).

SPEC §3 leaves the choice of K, β, α open. For an impact of a mass M at speed v0 on the
wall, with the proxy relaxed (e = 0) and gravity negligible during the short contact, eq. 16
is piecewise *linear*: the pressing branch ``ė = −(p + e)/α`` while f > 0, the released branch
``ė = −e/β`` (f = 0) otherwise. Each branch is solved exactly with its matrix exponential;
the switching times are found by root bracketing. So the numbers here are exact up to
root-finding tolerance (1e-14 relative), not a simulation.

Because the contact phase is linear and starts from e = 0, the restitution does not depend
on v0 and depends on the parameters only through two numbers:

* ``ωβ`` with ``ω = √(K/M)`` [rad/s] — damping relative to stiffness,
* ``α/β`` — how much of it the low-pass filter lets through.

and the peak penetration is ``(v0/ω)·h(ωβ, α/β)``.

Closed forms
------------
* ``α = β``: eq. 14 reduces to a pure spring, ``f = K·max(0, −p)``: restitution 1,
  peak penetration ``v0/ω``, contact time ``π/ω``.
* ``α → 0``: ``e → −p`` in contact, so ``f = K·max(0, −p − β ṗ)``: a Kelvin–Voigt contact
  (ζ = ωβ/2) whose force is released when it would pull. With ``ω_d = ω√(1 − ζ²)`` the
  contact ends at ``ω_d t_c = π − atan2(2ζ√(1−ζ²), 1 − 2ζ²)`` and
  ``restitution = exp(−ζ ω t_c)·(−cos ω_d t_c + ζ ω/ω_d · sin ω_d t_c)``
  (see :func:`restitution_alpha_to_zero`; valid for ζ < 1).

Examples
--------
>>> from stickslip.laws import contact_tuning as ct
>>> round(ct.impact_response(M=1.0, K=1e4, beta=5e-3, alpha=5e-3, v0=1.0).restitution, 9)
1.0
>>> alpha = ct.alpha_for_restitution(M=1.0, K=1e4, beta=5e-3, restitution=0.8)
>>> round(ct.impact_response(1.0, 1e4, 5e-3, alpha, 1.0).restitution, 6)
0.8
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq

from .._validation import check_positive
from ..errors import ParameterError

__all__ = ["ImpactResponse", "impact_response", "alpha_for_restitution",
           "restitution_alpha_to_zero", "restitution_table"]


@dataclass(frozen=True)
class ImpactResponse:
    """Outcome of one impact on a `UnilateralODE` wall (gravity neglected during contact).

    restitution: outgoing / incoming speed [-].
    peak_penetration: deepest penetration −min p [m].
    contact_duration: time from first touch until the force vanishes for good [s].
    peak_force: largest contact force [N].
    """

    restitution: float
    peak_penetration: float
    contact_duration: float
    peak_force: float


class _LinearBranch:
    """x(t) = V exp(Λt) V⁻¹ x0 for one linear branch of eq. 16."""

    def __init__(self, A: np.ndarray, x0: np.ndarray):
        lam, V = np.linalg.eig(A)
        self.lam, self.V = lam, V
        self.c = np.linalg.solve(V, x0.astype(complex))
        self.A = A

    def state(self, t: float) -> np.ndarray:
        return (self.V @ (self.c * np.exp(self.lam * t))).real

    def rate(self, t: float) -> np.ndarray:
        return self.A @ self.state(t)


def _first_root(fun, t_max: float, n: int = 4000) -> float | None:
    """First t in (0, t_max] where `fun` changes sign from positive, by grid + brentq."""
    ts = np.linspace(0.0, t_max, n + 1)[1:]
    prev_t, prev = 0.0, None
    for t in ts:
        val = fun(t)
        if prev is not None and prev > 0 >= val:
            return brentq(fun, prev_t, t, xtol=1e-17, rtol=1e-15, maxiter=200)
        prev_t, prev = t, val
    return None


def impact_response(M: float, K: float, beta: float, alpha: float, v0: float = 1.0
                    ) -> ImpactResponse:
    """Restitution, peak penetration, contact time and peak force of one impact (eq. 16).

    Parameters
    ----------
    M: mass [kg].  K: contact stiffness [N/m].  beta: proxy time constant [s].
    alpha: filter time constant [s], ``0 < alpha <= beta``.  v0: impact speed [m/s] > 0.

    Notes
    -----
    Starts at p = 0, ṗ = −v0, e = 0 and follows the exact piecewise-linear solution until
    the mass leaves (p ≥ 0, ṗ > 0, f = 0); re-contacts while still penetrating are followed.
    """
    for name, value in (("M", M), ("K", K), ("beta", beta), ("alpha", alpha), ("v0", v0)):
        check_positive("impact_response", name, value)
    if alpha > beta:
        raise ParameterError(f"`impact_response.alpha` must be <= beta; got alpha={alpha}, "
                             f"beta={beta}. Use alpha in (0, beta].")
    omega = math.sqrt(K / M)
    scale = max(1.0 / omega, beta, alpha)
    pressing = np.array([[0.0, 1.0, 0.0],
                         [-K * beta / (alpha * M), 0.0, K * (1.0 - beta / alpha) / M],
                         [-1.0 / alpha, 0.0, -1.0 / alpha]])
    released = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, -1.0 / beta]])
    force_row = K * np.array([-beta / alpha, 0.0, 1.0 - beta / alpha])

    x = np.array([0.0, -v0, 0.0])
    t_total, t_contact_end, deepest, peak_force = 0.0, 0.0, 0.0, 0.0
    for _ in range(50):
        branch = _LinearBranch(pressing, x)
        t_end = _first_root(lambda t: force_row @ branch.state(t), 50 * scale)
        if t_end is None:
            raise ParameterError(
                f"the contact force of UnilateralODE(K={K}, beta={beta}, alpha={alpha}) on "
                f"M={M} never returned to zero within {50 * scale:.3g} s; the mass stays in "
                "contact (overdamped). Lower beta or raise alpha.")
        ts = np.linspace(0.0, t_end, 2001)
        states = np.array([branch.state(t) for t in ts])
        deepest = max(deepest, -states[:, 0].min())
        peak_force = max(peak_force, float((states @ force_row).max()))
        x = branch.state(t_end)
        t_total += t_end
        t_contact_end = t_total
        if x[0] >= 0 and x[1] > 0:
            break
        # released branch while still penetrating: does the force come back before p = 0?
        rel = _LinearBranch(released, x)
        if x[1] <= 0:
            t_limit = 50 * scale
        else:
            t_limit = -x[0] / x[1]
        g = lambda t: -(force_row @ rel.state(t))  # positive while released  # noqa: E731
        t_back = _first_root(g, t_limit)
        if t_back is None:
            break
        x = rel.state(t_back)
        t_total += t_back
    restitution = x[1] / v0
    return ImpactResponse(restitution=float(restitution), peak_penetration=float(deepest),
                          contact_duration=float(t_contact_end), peak_force=float(peak_force))


def restitution_alpha_to_zero(M: float, K: float, beta: float) -> float:
    """Closed-form restitution in the limit α → 0 (force-released Kelvin–Voigt, ζ = ωβ/2 < 1).

    See the module docstring for the derivation.
    """
    omega = math.sqrt(K / M)
    zeta = omega * beta / 2.0
    if zeta >= 1.0:
        raise ParameterError(f"restitution_alpha_to_zero needs ζ = β√(K/M)/2 < 1; got "
                             f"ζ={zeta:.3g}. Lower beta.")
    wd = omega * math.sqrt(1.0 - zeta ** 2)
    phase = math.pi - math.atan2(2 * zeta * math.sqrt(1 - zeta ** 2), 1 - 2 * zeta ** 2)
    tc = phase / wd
    return math.exp(-zeta * omega * tc) * (-math.cos(phase) + zeta * omega / wd * math.sin(phase))


def alpha_for_restitution(M: float, K: float, beta: float, restitution: float) -> float:
    """The α [s] that gives the requested coefficient of restitution for (M, K, β).

    Restitution falls monotonically from 1 at α = β towards the α → 0 limit
    (:func:`restitution_alpha_to_zero`); α is found by bracketing on (1e-6 β, β].

    Raises
    ------
    ParameterError
        If the request is outside what α can reach for this (M, K, β) — the message says
        the reachable range and that raising beta lowers the floor.
    """
    check_positive("alpha_for_restitution", "restitution", restitution)
    if restitution > 1.0:
        raise ParameterError(f"`alpha_for_restitution.restitution` must be <= 1; got "
                             f"{restitution}. UnilateralODE never adds energy.")
    if restitution == 1.0:
        return float(beta)
    lo = beta * 1e-6
    r_lo = impact_response(M, K, beta, lo).restitution
    if restitution < r_lo:
        raise ParameterError(
            f"restitution {restitution} is below what alpha can reach for M={M}, K={K}, "
            f"beta={beta}: the floor is {r_lo:.4g} (alpha -> 0). Raise beta (more damping) "
            "to reach lower restitution.")
    return float(brentq(lambda a: impact_response(M, K, beta, a).restitution - restitution,
                        lo, beta, xtol=1e-15, rtol=1e-12))


def restitution_table(omega_beta=(0.05, 0.1, 0.2, 0.5, 1.0),
                      alpha_ratio=(1.0, 0.7, 0.5, 0.3, 0.1, 0.01)):
    """Dimensionless table: restitution and ω·δ_max/v0 over ωβ (rows) and α/β (columns).

    Returns a pandas DataFrame with a MultiIndex column (quantity, α/β).
    """
    import pandas as pd

    rows = {}
    for wb in omega_beta:
        row = {}
        for ar in alpha_ratio:
            r = impact_response(M=1.0, K=1.0, beta=wb, alpha=ar * wb, v0=1.0)
            row[("restitution", ar)] = r.restitution
            row[("penetration ω/v0", ar)] = r.peak_penetration
        rows[wb] = row
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "ωβ"
    table.columns = pd.MultiIndex.from_tuples(table.columns, names=["quantity", "α/β"])
    return table
