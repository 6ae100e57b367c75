"""Tuning guide for `UnilateralODE`: restitution and penetration from (M, K, β, α).

SPEC §3 leaves the choice of K, β, α open. For an impact of a mass M at speed v0 on the
wall, with the proxy relaxed (e = 0), eq. 16 is piecewise *linear* without gravity (piecewise
*affine* with it: pass ``g=`` and the impact speed, see :func:`alpha_for_restitution`): the pressing branch ``ė = −(p + e)/α`` while f > 0, the released branch
``ė = −e/β`` (f = 0) otherwise. Each branch is solved exactly with its matrix exponential;
the switching times are found by root bracketing. So the numbers here are exact up to
root-finding tolerance (1e-14 relative), not a simulation.

Without gravity, because the contact phase is linear and starts from e = 0, the restitution
does not depend on v0 and depends on the parameters only through two numbers:

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
from typing import cast

import numpy as np

from .._validation import check_nonnegative, check_positive
from ..errors import ParameterError


def _expm(a):
    from scipy.linalg import expm      # imported on use: SciPy costs ~0.4 s of start-up

    return expm(a)


def _brentq(*args, **kwargs) -> float:
    from scipy.optimize import brentq

    # the root alone: full_output is not passed (False), so brentq returns a float
    return cast(float, brentq(*args, **kwargs))

__all__ = ["ImpactResponse", "impact_response", "alpha_for_restitution",
           "restitution_alpha_to_zero", "restitution_table"]


@dataclass(frozen=True)
class ImpactResponse:
    """Outcome of one impact on a `UnilateralODE` wall.

    restitution: outgoing / incoming speed [-], both taken where the mass crosses the wall
        surface p = 0 (so with gravity ``restitution² = bounce height / drop height``).
    peak_penetration: deepest penetration −min p [m].
    contact_duration: time from first touch until the force vanishes for good [s].
    peak_force: largest contact force [N].
    """

    restitution: float
    peak_penetration: float
    contact_duration: float
    peak_force: float


class _AffineBranch:
    """Exact solution x(t) = expm(A t)·x0 of one linear branch of eq. 16, in the augmented
    state [p, ṗ, e, 1] (the last entry carries gravity), with a grid for root bracketing."""

    def __init__(self, A: np.ndarray, x0: np.ndarray, h: float):
        self.A, self.x0, self.h = A, x0, h
        self.step = _expm(A * h)

    def state(self, t: float) -> np.ndarray:
        return _expm(self.A * t) @ self.x0

    def first_root(self, fun, t_max: float, skip: float = 0.0) -> tuple[float, np.ndarray] | None:
        """First t in (0, t_max] where `fun(x(t))` goes from > 0 to <= 0 (grid + brentq)."""
        x, t, prev = self.x0, 0.0, None
        while t < t_max:
            x_next, t_next = self.step @ x, t + self.h
            val = fun(x_next)
            if prev is None:
                prev = fun(x) if t > skip or skip == 0.0 else 1.0
            if prev > 0 >= val:
                base = x

                def scalar(tau):
                    return fun(_expm(self.A * tau) @ base)

                tau = _brentq(scalar, 0.0, self.h, xtol=1e-17, rtol=1e-15, maxiter=200)
                return t + tau, _expm(self.A * tau) @ base
            x, t, prev = x_next, t_next, val
        return None


def impact_response(M: float, K: float, beta: float, alpha: float, v0: float = 1.0,
                    g: float = 0.0) -> ImpactResponse:
    """Restitution, peak penetration, contact time and peak force of one impact (eq. 16).

    Parameters
    ----------
    M : float
        mass [kg].
    K : float
        contact stiffness [N/m].
    beta : float
        proxy time constant [s].
    alpha : float
        filter time constant [s], ``0 < alpha <= beta``.
    v0 : float, optional
        impact speed [m/s] > 0.
    g : float, optional
        gravitational acceleration towards the wall during the contact [m/s²] (default 0).
        With gravity the contact is affine rather than linear, so the restitution depends
        on v0: the weight keeps pressing while the contact force decays, and the mass leaves
        slower than without it — by a relative amount of order g/(ω·v0), ω = √(K/M). A ball
        dropped from h0 hits at ``v0 = √(2 g h0)``; pass both to predict its bounce.

    Notes
    -----
    Starts at p = 0, ṗ = −v0, e = 0 and follows the exact piecewise-affine solution (matrix
    exponentials of the augmented state [p, ṗ, e, 1]) until the mass crosses p = 0 upwards
    with no force; re-contacts while still penetrating are followed.
    """
    for name, value in (("M", M), ("K", K), ("beta", beta), ("alpha", alpha), ("v0", v0)):
        check_positive("impact_response", name, value)
    check_nonnegative("impact_response", "g", g, "Pass the gravitational acceleration in "
                      "m/s² (0 to neglect gravity during the contact).")
    if alpha > beta:
        raise ParameterError(f"`impact_response.alpha` must be <= beta; got alpha={alpha}, "
                             f"beta={beta}. Use alpha in (0, beta].")
    omega = math.sqrt(K / M)
    scale = max(1.0 / omega, beta, alpha)
    h = min(1.0 / omega, beta) / 40.0
    pressing = np.array([[0.0, 1.0, 0.0, 0.0],
                         [-K * beta / (alpha * M), 0.0, K * (1.0 - beta / alpha) / M, -g],
                         [-1.0 / alpha, 0.0, -1.0 / alpha, 0.0],
                         [0.0, 0.0, 0.0, 0.0]])
    released = np.array([[0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, -g],
                         [0.0, 0.0, -1.0 / beta, 0.0], [0.0, 0.0, 0.0, 0.0]])
    force_row = K * np.array([-beta / alpha, 0.0, 1.0 - beta / alpha, 0.0])

    x = np.array([0.0, -v0, 0.0, 1.0])
    t_total, t_contact_end, deepest, peak_force = 0.0, 0.0, 0.0, 0.0
    for _ in range(50):
        branch = _AffineBranch(pressing, x, h)
        end = branch.first_root(lambda y: force_row @ y, 50 * scale, skip=h)
        if end is None:
            raise ParameterError(
                f"the contact force of UnilateralODE(K={K}, beta={beta}, alpha={alpha}) on "
                f"M={M} never returned to zero within {50 * scale:.3g} s; the mass stays in "
                "contact (overdamped, or resting under gravity). Lower beta, raise alpha or "
                "raise the impact speed.")
        t_end, x_end = end
        sub = _expm(pressing * (t_end / 800))
        states = [x]
        for _ in range(800):
            states.append(sub @ states[-1])
        states = np.array(states)
        deepest = max(deepest, -states[:, 0].min())
        peak_force = max(peak_force, float((states @ force_row).max()))
        x = x_end
        t_total += t_end
        t_contact_end = t_total
        # released: the mass rises to p = 0 (it leaves), or the force comes back first
        rel = _AffineBranch(released, x, h)
        p0, v = x[0], x[1]
        if g > 0:
            disc = v * v + 2 * g * p0            # p(t) = p0 + v t − g t²/2 = 0, rising root
            t_leave = (v - math.sqrt(disc)) / g if disc >= 0 and v > 0 else math.inf
        else:
            t_leave = -p0 / v if v > 0 else math.inf
        t_limit = t_leave if math.isfinite(t_leave) else 50 * scale
        back = rel.first_root(lambda y: -(force_row @ y), t_limit, skip=h)
        if back is None:
            if not math.isfinite(t_leave):
                raise ParameterError(
                    f"after the impact the mass neither leaves the wall nor presses again "
                    f"(M={M}, K={K}, beta={beta}, alpha={alpha}, v0={v0}, g={g}).")
            x = rel.state(t_leave)
            break
        x = back[1]
        t_total += back[0]
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


def alpha_for_restitution(M: float, K: float, beta: float, restitution: float, *,
                          g: float = 0.0, v_impact: float | None = None) -> float:
    """The α [s] that gives the requested coefficient of restitution for (M, K, β).

    Restitution falls monotonically from its α = β value (1 without gravity) towards the
    α → 0 limit (:func:`restitution_alpha_to_zero`); α is found by bracketing on
    (1e-6 β, β].

    With gravity (`g` > 0, e.g. a ball bouncing on the floor) the restitution depends on the
    impact speed, so pass `v_impact` [m/s] (``√(2 g h0)`` for a drop from h0): the returned
    α then makes the *bounce height* ``restitution² · h0`` exactly (to root-finding
    accuracy), where the gravity-free α misses by a relative amount ∝ g/(v_impact·√(K/M)).

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
    check_nonnegative("alpha_for_restitution", "g", g)
    if g > 0 and v_impact is None:
        raise ParameterError("`alpha_for_restitution.v_impact` is required with gravity (g > 0):"
                             " the restitution then depends on the impact speed. Pass "
                             "v_impact=sqrt(2*g*h0) for a drop from height h0.")
    v0 = 1.0 if v_impact is None else v_impact
    check_positive("alpha_for_restitution", "v_impact", v0, "Pass the impact speed in m/s.")

    def restitution_at(a):
        return impact_response(M, K, beta, a, v0=v0, g=g).restitution

    if restitution == 1.0 and g == 0:
        return float(beta)
    lo = beta * 1e-6
    r_lo, r_hi = restitution_at(lo), restitution_at(beta)
    if restitution < r_lo:
        raise ParameterError(
            f"restitution {restitution} is below what alpha can reach for M={M}, K={K}, "
            f"beta={beta}: the floor is {r_lo:.4g} (alpha -> 0). Raise beta (more damping) "
            "to reach lower restitution.")
    if restitution > r_hi:
        raise ParameterError(
            f"restitution {restitution} is above what alpha can reach for M={M}, K={K}, "
            f"beta={beta}, g={g}, v_impact={v0}: the ceiling is {r_hi:.6g} (alpha = beta; "
            "gravity takes energy during the contact). Raise K or the impact speed.")
    return float(_brentq(lambda a: restitution_at(a) - restitution, lo, beta, xtol=1e-15,
                        rtol=1e-12))


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
