"""Step-size stability of the fixed-step methods: the largest stable step of one linear
mode (by bisection on the method's stability function) and the check ``simulate`` runs
before a fixed-step run (``check_step=True``), naming the mode and the step to use."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import equinox as eqx
import jax
import numpy as np

from ..errors import ParameterError
from ._tableaus import FIXED_STEP_METHODS

if TYPE_CHECKING:
    import numpy.typing as npt

__all__ = ["NO_OVERSHOOT", "check_stability", "check_stability_members", "mode_step_limit",
           "monotone_step_limit"]

# a mode whose label (`linear_modes`) ends with this must not overshoot its equilibrium in a
# step or a stage: a two-level friction law's stick mode, whose proxy force would pass the
# load and, past the static level, break loose for good (a revolute joint held at 0.9 of its
# static level broke loose with RK4 at dt = 1e-4 s, inside the mode's stability limit,
# 1.12e-4 s): `monotone_step_limit`
NO_OVERSHOOT = " (must not overshoot)"


def mode_step_limit(tableau, lam: complex) -> float:
    """The largest step [s] at which `tableau` (a :class:`ButcherTableau`) keeps the linear
    mode ẋ = λx from growing — by bisection on the method's stability function; ``inf`` for
    a growing mode (physics, not the step), a neutral one, or one the method amplifies at
    every step (an undamped oscillator under Euler: accuracy, not stiffness)."""
    if lam.real > 0 or abs(lam) == 0:
        return math.inf  # growing physics (not the integrator's fault) or a neutral mode
    stable = lambda h: abs(tableau.stability(lam * h)[0]) <= 1 + 1e-12  # noqa: E731
    if abs(tableau.stability(lam * 1e-3 / abs(lam))[0]) > 1 + 1e-15:
        # an undamped mode the method slowly amplifies at every step size (Euler on an
        # oscillator): accuracy, not stiffness — no step limit to report
        return math.inf
    return _largest_step(stable, 10.0 / abs(lam))


def _largest_step(holds, hi: float) -> float:
    """The largest step in (0, hi] at which `holds(step)` (true below some step), by
    bisection; ``inf`` when it holds at `hi`."""
    if holds(hi):
        return math.inf
    lo = 0.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if holds(mid) else (lo, mid)
    return lo


def _stage_values(tableau, z: float) -> list[float]:
    """The stage values and the step's end of the test equation ẋ = λx from x = 1 at
    z = λh (an explicit tableau)."""
    g: list[float] = []
    for row in tableau.a:
        g.append(1.0 + z * sum(a * gj for a, gj in zip(row, g)))
    return g + [1.0 + z * sum(b * gj for b, gj in zip(tableau.b, g))]


def monotone_step_limit(tableau, lam: complex) -> float:
    """The largest step [s] at which no stage and no step of `tableau` carries the real
    decaying mode ẋ = λx past its equilibrium (every stage value and the step's end ≥ 0);
    ``inf`` for a complex (oscillating: it overshoots by itself) or non-decaying mode. For
    a real λ: Euler 1/|λ|, RK4 1.30/|λ| (their stability limits: 2/|λ|, 2.79/|λ|)."""
    if lam.real >= 0 or abs(lam.imag) > 1e-9 * abs(lam):
        return math.inf
    rate = -float(lam.real)
    return _largest_step(lambda h: min(_stage_values(tableau, -rate * h)) >= -1e-12,
                         10.0 / rate)


def check_stability(system, method, dt):
    tableau = FIXED_STEP_METHODS[method]
    labels, eigs = [], []
    for label, eig in system.linear_modes():
        values = np.unique(np.ravel(np.asarray(eig, dtype=complex)))
        labels += [label] * len(values)
        eigs.append(values)
    if not eigs:
        return
    lam: npt.NDArray[np.complex128] = np.concatenate(eigs)
    damped = (lam.real <= 0) & (np.abs(lam) > 0)   # growing physics is not the step's fault
    unstable = damped & (np.abs(tableau.stability(lam * dt)) > 1 + 1e-12)
    limits = {int(k): mode_step_limit(tableau, lam[k]) for k in np.nonzero(unstable)[0]}
    monotone = {k: monotone_step_limit(tableau, lam[k]) for k in range(len(lam))
                if labels[k].endswith(NO_OVERSHOOT) and damped[k]}
    for k, limit in monotone.items():
        limits[k] = min(limit, limits.get(k, math.inf))
    limits = {k: v for k, v in limits.items() if dt > v}
    if not limits:
        return
    k = min(limits, key=limits.__getitem__)
    limit, label, lam_k = limits[k], labels[k], lam[k]
    suggestion = _round_down_1sig(0.9 * limit) if 0.9 * limit > 0 else limit
    if label.endswith(NO_OVERSHOOT) and monotone.get(k) == limit:
        what = (f"{method} carries it past its equilibrium for dt > {limit:.3g} s (a "
                "two-level friction law: the overshoot passes the static level and breaks "
                "the contact loose below it)")
        label = label[:-len(NO_OVERSHOOT)]
    else:
        what = f"{method} is stable only for dt <= {limit:.3g} s"
    raise ParameterError(
        f"dt={dt:g} s is too large for the stiffness of {type(system).__name__}: its "
        f"{label} mode has eigenvalue {lam_k.real:.4g}{lam_k.imag:+.4g}j 1/s, and {what}. "
        f"Use dt={suggestion:g} or smaller, soften "
        "the law (lower K, adjust beta), or use an adaptive method such as "
        "method='kvaerno5'. (check_step=False skips this check.)")


def check_stability_members(stacked, method, dt):
    """`check_stability` for each member of a stacked batch (``simulate_batch``): a host's
    ``linear_modes`` is written for one system (the planar mechanism's reads its Baumgarte
    gains as numbers). The stacked system is checked in one call where its modes broadcast;
    otherwise each member is taken out — its leaves as NumPy arrays, no device
    work — and checked on its own, the error naming the member."""
    dynamic, static = eqx.partition(stacked, eqx.is_array)
    leaves = jax.tree.leaves(dynamic)
    try:
        # most hosts' modes are NumPy expressions that broadcast over the stacked
        # parameters: one call checks every member (1000 friction masses: 1 ms, 0.9 s one
        # by one)
        return check_stability(stacked, method, dt)
    except (TypeError, ValueError):
        if not leaves:
            raise
    host = jax.tree.map(np.asarray, dynamic)
    for i in range(int(np.shape(leaves[0])[0])):
        member = eqx.combine(jax.tree.map(lambda a, i=i: a[i], host), static)
        try:
            check_stability(member, method, dt)
        except ParameterError as err:
            raise ParameterError(f"batch member {i}: {err}") from None


def _round_down_1sig(x: float) -> float:
    """`x` > 0 rounded DOWN to one significant figure (1.512e-4 → 1e-4; formatting with
    ``.1g`` would round 1.6e-4 up to 2e-4, past a stability limit)."""
    exponent = math.floor(math.log10(x))
    return math.floor(x / 10.0 ** exponent) * 10.0 ** exponent


