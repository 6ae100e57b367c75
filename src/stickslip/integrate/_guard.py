"""The divergence guard: a run that blows up — to NaN/inf, or finitely — stops by name.

Checking only for NaN lets a finite blow-up through: a penalty contact stepped past its
stability limit (``check_step=False``) returns a ball that bounces higher than it fell, or a
proxy state of 1e223, and both look like numbers. :func:`check_divergence` looks at the
output samples of a run (host side, a few vector operations per chunk: no extra compile)
and raises `SimulationError` at the first sample that

1. is not finite, or
2. has a state component larger in magnitude than ``max_state`` (default 1e12 in SI units —
   far beyond any mechanism or proxy this package models; float64 resolves a 1e-5 m friction
   proxy only up to positions of ~1e10 m), or
3. (systems that report an energy, see ``AbstractSystem.passive_energy``) has an energy above the
   initial one by more than ``energy_rtol·|E0| + energy_atol``: a system without energy
   inputs cannot gain energy, so the integration did, or
4. (systems that report state bounds, see ``AbstractSystem.state_bounds``) has a state past
   the bound the exact solution keeps (``bounds=``, with BOUND_SLACK for round-off): a
   LuGre bristle stepped past its sliding relaxation limit stays finite and bounded — its
   block slid at 0.5 m/s where it should at 4.1 — and only the bound shows it.

The error names the time, the first bad sample's time and the last sane state
(``err.time``, ``err.state``). Every analysis path uses it: fixed-step (per chunk, before
anything is streamed to disk), adaptive and batch runs in :func:`stickslip.simulate` /
:func:`stickslip.simulate_batch`; other hosts (closed loop, planar, spatial) call it with
their own samples::

    from stickslip.integrate import check_divergence
    check_divergence("MyModel", state_names, ts, xs, energy=e)   # raises or returns None

Options of :func:`stickslip.simulate`: ``max_state=`` (``None`` turns the magnitude check
off) and ``energy_tol=(rtol, atol)`` (``None`` turns the energy check off). ``check_step=False``
does not turn the guard off.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from ..errors import ParameterError, SimulationError

__all__ = ["BOUND_SLACK", "Guard", "check_divergence", "guard_from_options", "run_bounds"]

# a state may pass its bound by this share of the bound (round-off) before the guard stops
BOUND_SLACK = 1e-6


class Guard(NamedTuple):
    """Thresholds of :func:`check_divergence` (see the module docstring)."""

    max_state: float = 1e12
    energy_rtol: float = 1e-2
    energy_atol: float = 1e-6


def guard_from_options(options: dict, owner: str = "simulate") -> Guard:
    """The `Guard` from ``max_state=`` and ``energy_tol=`` options (validated)."""
    guard = Guard()
    if "max_state" in options:
        value = options["max_state"]
        if value is None:
            guard = guard._replace(max_state=math.inf)
        elif isinstance(value, (bool, str)) or not isinstance(value, (int, float, np.number)) \
                or not value > 0:
            raise ParameterError(f"`{owner}.max_state` must be a positive number (or None to "
                                 f"turn the magnitude check off); got max_state={value!r}.")
        else:
            guard = guard._replace(max_state=float(value))
    if "energy_tol" in options:
        value = options["energy_tol"]
        if value is None:
            guard = guard._replace(energy_rtol=math.inf, energy_atol=math.inf)
        else:
            try:
                rtol, atol = (float(v) for v in value)
                valid = rtol >= 0 and atol >= 0 and not isinstance(value, str)
            except (TypeError, ValueError):
                valid = False
            if not valid:
                raise ParameterError(f"`{owner}.energy_tol` must be a pair (rtol, atol) of "
                                     f"numbers >= 0 (or None to turn the energy check off); "
                                     f"got energy_tol={value!r}.")
            guard = guard._replace(energy_rtol=rtol, energy_atol=atol)
    return guard


_DEFAULT = Guard()


def run_bounds(system, x0, member: int | None = None) -> dict | None:
    """`system.state_bounds()` as `check_divergence` takes them: each bound raised to its
    state's magnitude at the start `x0` (a run continued from a state past it decays back);
    `member` picks a stacked batch's member; None when there are none."""
    bounds = system.state_bounds()
    if not bounds:
        return None
    names = list(system.state_names)
    x0 = np.asarray(x0, dtype=float)
    if member is not None and x0.ndim == 2:
        x0 = x0[member]
    out = {}
    for name, (bound, why) in bounds.items():
        b = np.asarray(bound, dtype=float)
        if member is not None and b.ndim:
            b = b[member]
        out[name] = (max(float(b), abs(float(x0[names.index(name)]))), why)
    return out


def check_divergence(name: str, state_names: Sequence[str], ts, xs, *, energy=None,
                     energy0: float | None = None, guard: Guard = _DEFAULT,
                     member: int | None = None, last_sane=None, bounds=None) -> None:
    """Raise `SimulationError` at the first sample of a run that diverged (module docstring).

    Parameters
    ----------
    name : str
        what ran (a system or model name), for the message.
    state_names
        names of the state components (the columns of `xs`).
    ts
        sample times [s], shape (n,).
    xs
        states, shape (n, n_states).
    energy
        the system's energy [J] at the samples, shape (n,), or None.
    energy0 : float, optional
        the reference energy (default ``energy[0]``) — pass the run's first value when
        checking a later chunk.
    member : int, optional
        the batch member, for the message.
    last_sane
        the state before ``xs[0]`` (a previous chunk's last sample), used when the
        very first sample of this chunk is already bad.
    bounds
        ``{state name: (bound, why)}``: |state| may not pass bound·(1 + BOUND_SLACK)
        (`run_bounds` makes them from the system's `state_bounds`).
    """
    xs = np.asarray(xs, dtype=float)
    ts = np.asarray(ts, dtype=float)
    limit = None
    if bounds:
        limit = np.full(xs.shape[-1], np.inf)
        for key, (bound, _) in bounds.items():
            limit[list(state_names).index(key)] = float(bound) * (1 + BOUND_SLACK)
    if _sane(xs, energy, energy0, guard) and (limit is None or np.all(
            np.abs(xs) <= limit)):
        return
    bad = np.zeros(xs.shape[0], dtype=int)   # 0 sane, 1 non-finite, 2 large, 3 energy, 4 bound
    finite = np.all(np.isfinite(xs), axis=-1)
    bad[~finite] = 1
    if math.isfinite(guard.max_state):
        with np.errstate(invalid="ignore"):
            large = finite & (np.max(np.abs(xs), axis=-1, initial=0.0) > guard.max_state)
        bad[large & (bad == 0)] = 2
    if energy is not None and math.isfinite(guard.energy_rtol):
        energy = np.asarray(energy, dtype=float)
        if energy.shape != xs.shape[:1] or not energy.size:
            return                                      # the full check says what is wrong
        e0 = float(energy[0]) if energy0 is None else float(energy0)
        allowed = e0 + guard.energy_rtol * abs(e0) + guard.energy_atol
        with np.errstate(invalid="ignore"):
            gained = ~(energy <= allowed)
        bad[gained & (bad == 0)] = 3
    if limit is not None:
        with np.errstate(invalid="ignore"):
            past = np.any(np.abs(xs) > limit, axis=-1)
        bad[past & (bad == 0)] = 4
    if not bad.any():
        return
    k = int(np.argmax(bad > 0))
    energy_k = float(energy[k]) if energy is not None and bad[k] == 3 else math.nan
    if k > 0:
        sane = xs[k - 1]
        t_sane = ts[k - 1]
    elif last_sane is not None:
        sane, t_sane = np.asarray(last_sane, dtype=float), None
    else:
        sane, t_sane = xs[0], ts[0]
    state = dict(zip(state_names, np.asarray(sane).tolist()))
    shown = ", ".join(f"{key}={value:.6g}" for key, value in state.items())
    who = f"{name}" + (f" (batch member {member})" if member is not None else "")
    span = (f"between t={t_sane:.6g} s and t={ts[k]:.6g} s" if t_sane is not None
            else f"by t={ts[k]:.6g} s")
    if bad[k] == 1:
        what = "the state became NaN or infinite"
    elif bad[k] == 2:
        i = int(np.argmax(np.abs(xs[k])))
        what = (f"`{state_names[i]}` reached {xs[k, i]:.3g}, beyond max_state="
                f"{guard.max_state:g} (a finite blow-up)")
    elif bad[k] == 4:
        assert bounds is not None and limit is not None      # set only with bounds
        i = int(np.argmax(np.abs(xs[k]) > limit))
        key = state_names[i]
        what = (f"`{key}` reached {xs[k, i]:.3g}, past its bound {float(bounds[key][0]):.3g} "
                f"({bounds[key][1]})")
    else:                                           # 3: set by the energy check only
        what = (f"its energy rose from {e0:.6g} J to {energy_k:.6g} J although it has no "
                "energy input (the integration adds energy)")
    if bad[k] == 4:
        fix = ("Reduce dt below the limit named above, or use an adaptive method such as "
               "method='kvaerno5'.")
    else:
        fix = ("Reduce dt (check_step=False skips the stability check that would name a "
               "stable one), check the parameters (a too-stiff K or k, too-small beta/alpha), "
               "or use an adaptive method such as method='kvaerno5'.")
    raise SimulationError(f"{who} diverged: {what} {span}. Last sane state: {shown}. {fix}",
                          time=float(ts[k]), state=state)


def _sane(xs: np.ndarray, energy, energy0, guard: Guard) -> bool:
    """True when :func:`check_divergence` can flag no sample: every state finite and within
    ``max_state``, every energy within its allowance — one reduction over the whole array
    each. The sample-by-sample search (a reduction along each row) runs only when this is
    False: it cost 0.6 ms per 10⁴ samples of three states, a fifth of a run that outputs
    every step (`benchmarks/results/output_cost.md`)."""
    if xs.size:
        with np.errstate(invalid="ignore"):
            peak = np.max(np.abs(xs))                   # NaN if any state is NaN
        if not (peak < math.inf and peak <= guard.max_state):
            return False
    if energy is not None and math.isfinite(guard.energy_rtol):
        energy = np.asarray(energy, dtype=float)
        if energy.shape != xs.shape[:1] or not energy.size:
            return False                                # the full check says what is wrong
        e0 = float(energy[0]) if energy0 is None else float(energy0)
        allowed = e0 + guard.energy_rtol * abs(e0) + guard.energy_atol
        with np.errstate(invalid="ignore"):
            if not np.all(energy <= allowed):           # NaN energies fail here too
                return False
    return True
