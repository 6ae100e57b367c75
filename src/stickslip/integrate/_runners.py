"""How `simulate` runs a route's compiled program: the fixed-step run in chunks of outputs
(streamed to a file, with a progress bar), the adaptive run, and the assembly of
:class:`~stickslip.results.Results` (used by :mod:`._simulate`)."""

from __future__ import annotations

import math
import os
import warnings
from pathlib import Path

import jax.numpy as jnp
import numpy as np

from ..errors import ModelError, ParameterError, SimulationError
from ..results import Results
from ._adaptive import integrate_adaptive, integrate_adaptive_batch, solver_label
from ._arguments import as_count, as_flag, as_real, as_time
from . import _program_store
from ._fixed_step import integrate_padded, padded_length, run_capacity, segment
from ._grid import output_times
from ._guard import check_divergence, guard_from_options, run_bounds
from ._memory import FLOAT_BYTES, call_bytes, check_run_memory

__all__ = ["_run_fixed_chunks", "_run_batch_chunks", "_run_adaptive", "_to_results",
           "_StreamWriter", "batch_capacity", "check_grid_memory", "likely_channels"]

# --- runners ------------------------------------------------------------------------------

def _run_fixed_chunks(dynamic, static, system, x0, grid, rule, guard, options,
                      run_chunk=None, extra_bytes=0.0):
    """The fixed-step run in chunks of outputs; `run_chunk(capacity, t_start, x, seg)`
    computes one chunk (default: the Runge–Kutta kernel with `rule`).

    Memory: the run's samples go into arrays allocated once, after the first chunk has
    told the number of extra channels and :func:`check_grid_memory` has checked the whole
    run against the budget with it (before it, with the state channels alone, so a run of
    10⁹ samples is refused before its program compiles). `extra_bytes`: a route's working
    memory (the event buffer)."""
    if run_chunk is None:
        def rk_chunk(capacity, t_start, x, seg):
            return _program_store.call(integrate_padded, (static, rule, capacity),
                                       (dynamic, np.float64(t_start), x, seg))
        run_chunk = rk_chunk
    chunk = as_count("simulate", "chunk", options.get("chunk", 16_384))
    per_call = min(chunk, grid.n_out)
    capacity = run_capacity(per_call)           # one program for most run lengths
    n_states = len(system.state_names)
    check_grid_memory("simulate", grid, n_states, capacity=capacity, extra=extra_bytes,
                      likely=likely_channels(system))
    stream_to = options.get("stream_to")
    writer = _StreamWriter(stream_to, system) if stream_to is not None else None
    progress_on = as_flag("simulate", "progress", options.get("progress", False))
    n_calls = math.ceil(grid.n_out / per_call)
    times = grid.times()
    name = type(system).__name__
    bounds = run_bounds(system, x0)
    xs_all, out_all = np.asarray(x0)[None], {}
    x, done, interrupted, energy0 = x0, 0, False, None
    progress = _progress(progress_on, n_calls)
    try:
        for _ in range(n_calls):
            keep = min(per_call, grid.n_out - done)
            t_start = times[done]
            xs, outputs, energy = run_chunk(capacity, t_start, x, segment(grid, done, keep))
            xs = np.asarray(xs)[: keep + 1]
            outputs = {k: np.asarray(v)[: keep + 1] for k, v in outputs.items()}
            ts_chunk = times[done: done + keep + 1]
            if energy is not None:
                energy = np.asarray(energy)[: keep + 1]
                energy0 = energy[0] if energy0 is None else energy0
            check_divergence(name, system.state_names, ts_chunk, xs, energy=energy,
                             energy0=energy0, guard=guard, bounds=bounds)
            if done == 0:                # the whole run's arrays, now that outputs are known
                check_grid_memory("simulate", grid, _channels(xs, outputs),
                                  capacity=capacity, extra=extra_bytes)
                xs_all = _filled(grid.n_out + 1, xs[:1])
                out_all = {k: _filled(grid.n_out + 1, v[:1]) for k, v in outputs.items()}
            xs_all[done + 1: done + keep + 1] = xs[1:]
            for k, v in outputs.items():
                out_all[k][done + 1: done + keep + 1] = v[1:]
            if writer:
                writer.write(ts_chunk, xs, outputs, first=(done == 0))
            done += keep
            x = xs[-1]
            progress.advance()
    except KeyboardInterrupt:
        interrupted = True
        warnings.warn(f"simulation interrupted at t={times[done]:g} s; returning the {done} "
                      "samples computed so far.", stacklevel=3)
    finally:
        progress.close()
    xs = xs_all[: done + 1]
    outputs = {k: v[: done + 1] for k, v in out_all.items()}
    ts = times[: xs.shape[0]]
    meta = {"dt": grid.dt, "dt_out": grid.dt_out,
            "steps": grid.n_steps if not interrupted else done * grid.n_sub,
            "interrupted": interrupted}
    if grid.n_last != grid.n_sub or grid.h_last:
        meta["last_interval"] = float(times[-1] - times[-2])
    if stream_to is not None:
        meta["stream_to"] = str(stream_to)
    return ts, xs, outputs, meta


# largest output of one compiled call of a batch [bytes of states]: a longer batch run is
# made in calls of fewer samples, written into the result as they come, so the peak is
# about the result's size, not several times it
_BATCH_CALL_BYTES = 64 * 2 ** 20


def batch_capacity(grid, members: int, n_states: int) -> tuple[int, int]:
    """``(per_call, capacity)`` of a batch run on `grid`: every output in one call (the
    next power of two of slots, as always) unless that call's states exceed
    ``_BATCH_CALL_BYTES``; then calls of a power of two (at least 64) of outputs."""
    per_call = grid.n_out
    capacity = padded_length(per_call)
    per_sample = members * n_states * FLOAT_BYTES
    if capacity > 64 and (capacity + 1) * per_sample > _BATCH_CALL_BYTES:
        fit = max(64, 1 << max(0, int(_BATCH_CALL_BYTES // per_sample).bit_length() - 1))
        per_call = min(per_call, fit)
        capacity = padded_length(per_call)
    return per_call, capacity


def _run_batch_chunks(run_chunk, grid, x0, n_states: int, owner: str = "simulate_batch",
                      likely: int | None = None, extra_bytes: float = 0.0):
    """A fixed-grid batch run (every member on `grid`) in calls of outputs
    (:func:`batch_capacity`); `run_chunk(capacity, t_start, x, seg)` computes one call for
    every member. Checked against the memory budget before the first call (states only)
    and, with the extra channels, before the result's arrays are allocated (`likely`: the
    channels the first refusal's advice assumes, :func:`likely_channels`; `extra_bytes`: a
    route's working memory, the event buffers of every member). Returns
    ``(xs, outputs, energy)`` with a leading member axis."""
    x0 = np.asarray(x0)
    members = x0.shape[0]
    per_call, capacity = batch_capacity(grid, members, n_states)
    check_grid_memory(owner, grid, n_states, capacity=capacity, members=members,
                      extra=extra_bytes, likely=likely)
    times = grid.times()
    x, done = x0, 0
    xs_all = energy_all = None
    out_all: dict[str, np.ndarray] = {}
    while done < grid.n_out:
        keep = min(per_call, grid.n_out - done)
        xs, outputs, energy = run_chunk(capacity, times[done], x,
                                        segment(grid, done, keep))
        xs = np.asarray(xs)[:, : keep + 1]
        outputs = {k: np.asarray(v)[:, : keep + 1] for k, v in outputs.items()}
        energy = None if energy is None else np.asarray(energy)[:, : keep + 1]
        if xs_all is None:
            check_grid_memory(owner, grid, _channels(xs[0], {k: v[0] for k, v in
                                                             outputs.items()})
                              + (energy is not None),
                              capacity=capacity, members=members, extra=extra_bytes)
            xs_all = _filled(grid.n_out + 1, xs[:, :1], axis=1)
            out_all = {k: _filled(grid.n_out + 1, v[:, :1], axis=1)
                       for k, v in outputs.items()}
            energy_all = None if energy is None else _filled(grid.n_out + 1, energy[:, :1],
                                                             axis=1)
        xs_all[:, done + 1: done + keep + 1] = xs[:, 1:]
        for k, v in outputs.items():
            out_all[k][:, done + 1: done + keep + 1] = v[:, 1:]
        if energy_all is not None and energy is not None:
            energy_all[:, done + 1: done + keep + 1] = energy[:, 1:]
        done += keep
        x = xs[:, -1]
    if xs_all is None:                      # step_grid makes n_out >= 1
        raise ParameterError(f"`{owner}`: the output grid has no samples (n_out=0).")
    return xs_all, out_all, energy_all


def check_grid_memory(owner: str, grid, channels: int, *, capacity: int = 0, members: int = 1,
                      extra: float = 0.0, likely: int | None = None) -> None:
    """The memory check of a run on a fixed-step `grid` (:mod:`._memory`): its samples of
    `channels` float64 values per member, plus one compiled call's working memory for
    `capacity` slots and `extra` bytes (an event buffer); `likely` as for
    :func:`._memory.check_run_memory`."""
    check_run_memory(
        owner, samples=grid.n_out + 1, channels=channels, members=members,
        extra=call_bytes(capacity, channels, members) + extra,
        extra_what="working memory", extra_fix="lower `max_events`" if extra else "",
        span=grid.t_end - grid.t0, dt=grid.dt, every_step=grid.n_sub == 1,
        pieces=members == 1, likely_channels=likely)      # batches take no `initial`


def likely_channels(system) -> int:
    """A generous count of a system's channels before it is traced: its states and the
    names its units list (which name every output of the bundled systems, and some more)."""
    try:
        return len(set(system.state_names) | set(system.units))
    except (AttributeError, TypeError, ValueError, NotImplementedError):  # units unlisted
        return len(system.state_names)


def _channels(xs, outputs) -> int:
    """float64 values per sample: the states and every extra channel's per-sample size."""
    return int(np.prod(xs.shape[1:])) + sum(int(np.prod(v.shape[1:])) for v in
                                            outputs.values())


def _filled(n: int, first: np.ndarray, axis: int = 0) -> np.ndarray:
    """An array of `n` samples along `axis` shaped like `first` (one sample), the first set."""
    shape = list(first.shape)
    shape[axis] = n
    out = np.empty(shape, dtype=first.dtype)
    index = [slice(None)] * first.ndim
    index[axis] = slice(0, 1)
    out[tuple(index)] = first
    return out


def _run_adaptive(dynamic, static, system, t0, x0, t_end, dt, dt_out, method, options,
                  batched=False):
    owner = "simulate_batch" if batched else "simulate"
    dt_out = (t_end - t0) / 1000 if dt_out is None else as_time(owner, "dt_out", dt_out,
                                                                 positive=True)
    # the solver returns the whole run at once: its states on the device and their copy
    # here (the extra channels are not known before it is traced: a lower bound)
    members = np.shape(x0)[0] if batched else 1
    samples = math.ceil((t_end - t0) / dt_out * (1 - 1e-12)) + 1
    n_states = len(system.state_names)
    check_run_memory(owner, samples=samples, channels=n_states, members=members, copies=2,
                     span=t_end - t0, pieces=not batched,
                     likely_channels=likely_channels(system))
    ts = output_times(t0, t_end, dt_out)
    rtol = as_real(owner, "rtol", options.get("rtol", 1e-8), positive=True)
    atol = as_real(owner, "atol", options.get("atol", 1e-10), positive=True)
    max_steps = as_count(owner, "max_steps", options.get("max_steps", 1_000_000))
    if "chunk" in options:
        as_count(owner, "chunk", options["chunk"])
    dt0 = None if dt is None else jnp.asarray(as_time(
        owner, "dt", dt, positive=True,
        hint="For adaptive methods `dt` is the initial step: pass a positive value or omit it."))
    kernel = integrate_adaptive_batch if batched else integrate_adaptive
    xs, outputs, energy, ok, n_steps = _program_store.call(
        kernel, (static, method, max_steps),
        (dynamic, jnp.asarray(ts), jnp.asarray(x0), dt0, jnp.asarray(rtol), jnp.asarray(atol)))
    xs = np.asarray(xs)
    outputs = {k: np.asarray(v) for k, v in outputs.items()}
    energy = None if energy is None else np.asarray(energy)
    ok = np.atleast_1d(np.asarray(ok))
    if not ok.all():
        member = int(np.argmin(ok))
        x_m = xs[member] if batched else xs
        finite = np.all(np.isfinite(x_m), axis=-1)
        reached = len(finite) - 1 if finite.all() else max(int(np.argmin(finite)) - 1, 0)
        e_m = None if energy is None else (energy[member] if batched else energy)
        # a finite blow-up before the failure is the more useful message
        check_divergence(type(system).__name__, system.state_names, ts[: reached + 1],
                         x_m[: reached + 1], energy=None if e_m is None else e_m[: reached + 1],
                         guard=guard_from_options(options, owner),
                         member=member if batched else None)
        state = dict(zip(system.state_names, x_m[reached].tolist()))
        shown = ", ".join(f"{k}={v:.6g}" for k, v in state.items())
        who = f" (batch member {member})" if batched else ""
        raise SimulationError(
            f"{solver_label(method)} failed{who} before t_end={t_end:g} s (last good output at "
            f"t={ts[reached]:g} s: {shown}): the step size collapsed or max_steps={max_steps} "
            "was reached. Increase `max_steps`, loosen rtol/atol, or for a stiff law use "
            "method='kvaerno5'.", time=float(ts[reached]), state=state)
    meta = {"dt0": None if dt is None else float(dt), "dt_out": dt_out, "rtol": rtol,
            "atol": atol, "steps": np.asarray(n_steps).tolist()}
    if len(ts) > 1 and not math.isclose(ts[-1] - ts[-2], dt_out, rel_tol=1e-9):
        meta["last_interval"] = float(ts[-1] - ts[-2])
    return ts, xs, outputs, energy, meta


def _to_results(system, ts, xs, outputs, meta, batched=False):
    xs = np.asarray(xs)
    channels = {}
    for i, name in enumerate(system.state_names):
        channels[name] = xs[..., i]
    for name, value in outputs.items():
        if name in channels:             # would replace the state's channel without a word
            raise ModelError(f"{type(system).__name__}: an output channel is named {name!r}, "
                             "as a state is. Rename the element whose name it carries.")
        channels[name] = np.asarray(value)
    final = xs[..., -1, :]
    return Results(ts, channels, units=system.units, meta=meta, final_state=final)


class _StreamWriter:
    """Appends each finished chunk to a CSV file, so an interrupted run keeps its data."""

    def __init__(self, path, system):
        if not isinstance(path, (str, os.PathLike)) or Path(path).suffix.lower() != ".csv":
            raise ParameterError(f"`simulate.stream_to` must be the path of a .csv file; got "
                                 f"{path!r}.")
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.names = list(system.state_names)

    def write(self, ts, xs, outputs, first):
        import pandas as pd

        rows = slice(0, None) if first else slice(1, None)
        frame = pd.DataFrame({"t": ts[rows]})
        for i, name in enumerate(self.names):
            frame[name] = xs[rows, i]
        for name, value in outputs.items():
            frame[name] = value[rows]
        frame.to_csv(self.path, mode="w" if first else "a", header=first, index=False)


class _progress:
    """A rich progress bar over chunks, or nothing."""

    def __init__(self, enabled, total):
        self.bar = None
        if enabled:
            from rich.progress import Progress

            self.bar = Progress(transient=True)
            self.bar.start()
            self.task = self.bar.add_task("simulating", total=total)

    def advance(self):
        if self.bar:
            self.bar.advance(self.task)

    def close(self):
        if self.bar:
            self.bar.stop()
