"""The shared run keywords of the closed-loop hosts (:func:`simulate_closed_loop`,
:func:`simulate_host_loop`; issue 23, item 2): ``dt, method, dt_out, t0, initial, output,
guard, steps, progress`` with :func:`stickslip.simulate`'s meaning, honoured where the
sampled loop can and refused by name where it cannot.

* `dt` — the integrator step: T/dt must be a whole number of steps per sample (it is the
  `substeps` of earlier releases; giving both, they must agree).
* `dt_out` — the loop samples at the controller's period T: None or T.
* `t0`, `initial` — as for ``ss.simulate`` (a state vector, or Results to continue from).
* `guard` — the divergence guard's ``max_state`` on the plant state and the force (a plant
  driven by a controller has no energy balance: ``energy_rtol``/``energy_atol`` are not
  checked, as ``ss.simulate`` does for a system that reports no energy).
* `steps` — ``check``: True refuses a step outside the method's stability region for the
  plant's stiff modes (default: not checked when `dt` or `substeps` is given; the default
  step is chosen stable). Every other field is refused by name: the loop steps with the
  plant's own projection and stage tracing, at a fixed step.
* `output` — ``stream_to``: the Results are written there at the end (as the adaptive
  route of ``ss.simulate`` does); ``chunk`` is refused (one compiled scan).
* `progress` — True is refused (no bar over one compiled scan).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from ..errors import ParameterError
from ..integrate import (
    KNOWN_OPTIONS,
    Guard,
    check_time_arguments,
    did_you_mean,
    guard_from_options,
    largest_stable_step,
    merge_options,
)
from ..results import Results

__all__ = ["LoopRun", "loop_options", "loop_substeps", "save_stream"]


class LoopRun(NamedTuple):
    """What the closed loop takes from the shared keywords."""

    t0: float
    t_end: float
    dt: float | None
    dt_out: float | None
    x0: Any                      # None: the plant's initial state
    guard: Guard
    check: bool                  # Steps.check / check_step explicitly True
    stream_to: str | None


_REFUSED_STEPS = {
    "projection": "the loop projects when the plant does (its `projects_after_step`)",
    "trace_stages_once": "the loop traces the stages as the plant says "
                         "(its `trace_stages_once`)",
    "rtol": "the loop steps at a fixed step (rtol, atol and max_steps are adaptive options)",
    "atol": "the loop steps at a fixed step (rtol, atol and max_steps are adaptive options)",
    "max_steps": "the loop steps at a fixed step (rtol, atol and max_steps are adaptive "
                 "options)",
    "theta": "the loop runs Runge–Kutta steps (theta is an option of moreau_jean)",
    "max_events": "the loop runs Runge–Kutta steps (max_events is an option of events)",
    "chunk": "the loop runs as one compiled scan over the samples",
    "progress": "the loop shows no progress bar",
}


def loop_options(owner: str, plant, t_end, *, dt, dt_out, t0, initial, output, guard, steps,
                 progress, options: dict[str, Any]) -> LoopRun:
    """Check the shared keywords of a closed-loop host (module docstring) before anything
    is built (no JAX work: the time arguments first); `options` are the flat keywords of
    ``ss.simulate``. The checks that need the sample period T: :func:`loop_substeps`."""
    unknown = sorted(set(options) - KNOWN_OPTIONS)
    if unknown:
        raise ParameterError(f"`{owner}` got unknown option(s) {unknown}; the closed loop "
                             f"takes {sorted(KNOWN_OPTIONS)}."
                             f"{did_you_mean(unknown, KNOWN_OPTIONS)}")
    flat = merge_options(owner, options, output=output, guard=guard, steps=steps,
                         progress=progress, t0=t0, initial=initial, check_names=False)
    t0 = flat.get("t0")
    initial = flat.get("initial")
    if isinstance(initial, Results) and t0 is None and len(initial.t):
        t0 = float(initial.t[-1])
    times = check_time_arguments(owner, t_end, dt, dt_out, 0.0 if t0 is None else t0,
                                 fixed_step=dt is not None)
    for name, why in _REFUSED_STEPS.items():
        if name in flat and not (name == "progress" and flat[name] is False):
            given = "progress=True" if name == "progress" else f"`{name}`"
            raise ParameterError(f"`{owner}`: the option {given} is not honoured by the "
                                 f"closed loop: {why}. Drop it.")
    check = flat.get("check_step")
    if check is not None and not isinstance(check, bool):
        raise ParameterError(f"`{owner}.check_step` must be True or False; got {check!r}.")
    x0 = _initial_state(owner, plant, initial)
    stream_to = flat.get("stream_to")
    if stream_to is not None:
        parent = Path(stream_to).parent
        if not parent.is_dir():
            raise ParameterError(f"`{owner}.stream_to`: the directory {str(parent)!r} does "
                                 "not exist; create it first.")
    return LoopRun(times.t0, times.t_end, times.dt, times.dt_out, x0, guard_from_options(flat, owner),
                   bool(check), None if stream_to is None else str(stream_to))


def loop_substeps(owner: str, plant, method: str, T: float, substeps, run: LoopRun):
    """The integrator steps per sample period T from `dt` (T/dt whole) or `substeps` (both
    given: they must agree), or None (the default: stable for the plant); `dt_out` must be
    T; with ``Steps(check=True)`` a step outside the stability region of `method` for the
    plant's stiff modes is refused."""
    if run.dt_out is not None and not math.isclose(run.dt_out, T, rel_tol=1e-9):
        raise ParameterError(f"`{owner}.dt_out` must be the controller's sample period "
                             f"T={T:g} s (or None): the closed loop samples at T; got "
                             f"dt_out={run.dt_out:g}. Take every n-th sample of the Results "
                             "for a coarser grid.")
    substeps = _substeps(owner, T, run.dt, substeps)
    if run.check and substeps is not None:
        limit = largest_stable_step(plant, method)
        if T / substeps > limit:
            raise ParameterError(
                f"`{owner}.dt` = T/substeps = {T / substeps:.3g} s is outside the stability "
                f"region of {method!r} for the plant's stiffest mode (largest stable step "
                f"{limit:.3g} s); use at least {math.ceil(T / limit)} steps per sample, or "
                "leave dt and substeps out (a stable step is chosen).")
    return substeps


def _substeps(owner: str, T: float, dt: float | None, substeps) -> int | None:
    """`substeps` from `dt` (T/dt whole), or as given; both given must agree."""
    if dt is None:
        return substeps
    n = T / dt
    whole = round(n)
    if whole < 1 or not math.isclose(n, whole, rel_tol=1e-9):
        raise ParameterError(f"`{owner}.dt` must divide the controller's sample period "
                             f"T={T:g} s into whole steps; got dt={dt:g} (T/dt = {n:.6g}). "
                             f"Pass e.g. dt={T / max(1, math.ceil(n)):g}.")
    if substeps is not None and int(substeps) != whole:
        raise ParameterError(f"`{owner}`: dt={dt:g} s and substeps={substeps} disagree "
                             f"(T/dt = {whole}); pass one of them.")
    return whole


def _initial_state(owner: str, plant, initial):
    """The plant's start state from `initial` (a state vector or Results), or None."""
    if initial is None:
        return None
    if isinstance(initial, Results):
        if initial.final_state is None or initial.batch_shape:
            raise ParameterError(f"`{owner}.initial`: these Results carry no single final "
                                 "state to continue from; pass res.member(i) of a batch, or "
                                 "a state vector.")
        initial = initial.final_state
    try:
        x0 = np.asarray(initial, dtype=float)
    except (TypeError, ValueError):
        raise ParameterError(f"`{owner}.initial` must be a state vector or Results; got "
                             f"{type(initial).__name__}.") from None
    n = len(plant.state_names)
    if x0.shape != (n,) or not np.all(np.isfinite(x0)):
        raise ParameterError(f"`{owner}.initial` must be {n} finite values "
                             f"({', '.join(plant.state_names)}); got {x0!r}.")
    return x0


def save_stream(res: Results, run: LoopRun) -> Results:
    """Write `res` to ``output.stream_to`` (at the end of the run), and return it."""
    if run.stream_to is not None:
        res.save(Path(run.stream_to))
    return res
