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

from ..errors import ParameterError, SimulationError
from ..results import Results
from ._adaptive import integrate_adaptive, integrate_adaptive_batch
from ._arguments import as_count, as_flag, as_real, as_time
from . import _program_store
from ._fixed_step import integrate_padded, run_capacity, segment
from ._grid import output_times
from ._guard import check_divergence, guard_from_options

__all__ = ["_run_fixed_chunks", "_run_adaptive", "_to_results", "_StreamWriter"]

# --- runners ------------------------------------------------------------------------------

def _run_fixed_chunks(dynamic, static, system, x0, grid, rule, guard, options,
                      run_chunk=None):
    """The fixed-step run in chunks of outputs; `run_chunk(capacity, t_start, x, seg)`
    computes one chunk (default: the Runge–Kutta kernel with `rule`)."""
    if run_chunk is None:
        def run_chunk(capacity, t_start, x, seg):
            return _program_store.call(integrate_padded, (static, rule, capacity),
                                       (dynamic, np.float64(t_start), x, seg))
    chunk = as_count("simulate", "chunk", options.get("chunk", 16_384))
    stream_to = options.get("stream_to")
    writer = _StreamWriter(stream_to, system) if stream_to is not None else None
    progress_on = as_flag("simulate", "progress", options.get("progress", False))
    per_call = min(chunk, grid.n_out)
    n_calls = math.ceil(grid.n_out / per_call)
    capacity = run_capacity(per_call)           # one program for most run lengths
    times = grid.times()
    name = type(system).__name__
    xs_parts, out_parts = [np.asarray(x0)[None]], []
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
                             energy0=energy0, guard=guard)
            if not out_parts:
                out_parts.append({k: v[:1] for k, v in outputs.items()})
            xs_parts.append(xs[1:])
            out_parts.append({k: v[1:] for k, v in outputs.items()})
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
    xs = np.concatenate(xs_parts)
    outputs = {k: np.concatenate([part[k] for part in out_parts]) for k in out_parts[0]} \
        if out_parts else {}
    ts = times[: xs.shape[0]]
    meta = {"dt": grid.dt, "dt_out": grid.dt_out,
            "steps": grid.n_steps if not interrupted else done * grid.n_sub,
            "interrupted": interrupted}
    if grid.n_last != grid.n_sub or grid.h_last:
        meta["last_interval"] = float(times[-1] - times[-2])
    if stream_to is not None:
        meta["stream_to"] = str(stream_to)
    return ts, xs, outputs, meta


def _run_adaptive(dynamic, static, system, t0, x0, t_end, dt, dt_out, method, options,
                  batched=False):
    owner = "simulate_batch" if batched else "simulate"
    dt_out = (t_end - t0) / 1000 if dt_out is None else as_time(owner, "dt_out", dt_out,
                                                                 positive=True)
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
            f"{method} failed{who} before t_end={t_end:g} s (last good output at "
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
