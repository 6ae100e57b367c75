"""`simulate` and `simulate_batch`: one entry point over every integrator."""

from __future__ import annotations

import math
import time
import warnings
from pathlib import Path
from typing import Any, Sequence

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from .._validation import check_positive
from ..errors import ParameterError, SimulationError
from ..results import Results
from ._system import AbstractSystem
from ._adaptive import ADAPTIVE_METHODS, solve_adaptive, solve_adaptive_batch
from ._fixed_step import (padded_length, solve_fixed_step, solve_fixed_step_batch,
                          solve_fixed_step_padded)
from ._tableaus import FIXED_STEP_METHODS

__all__ = ["simulate", "simulate_batch", "trajectory", "stack_systems", "largest_stable_step",
           "METHODS"]

METHODS = tuple(FIXED_STEP_METHODS) + tuple(ADAPTIVE_METHODS)

_KNOWN_OPTIONS = {"t0", "initial", "rtol", "atol", "max_steps", "check_step", "chunk",
                  "stream_to", "progress"}


def simulate(system: AbstractSystem, t_end: float, dt: float | None = None,
             method: str = "rk4", dt_out: float | None = None, **options: Any) -> Results:
    """Integrate `system` from its initial state to `t_end` and return its channels.

    Parameters
    ----------
    system:
        Any :class:`~stickslip.systems.AbstractSystem` (e.g. ``FrictionMass``).
    t_end:
        End time [s].
    dt:
        Step [s]. Required for the fixed-step methods; the initial step for adaptive ones
        (chosen automatically when omitted).
    method:
        ``"rk4"``, ``"rk_gill"`` (Runge–Kutta–Gill, SPEC §7), ``"euler"`` — fixed step, one
        jitted ``lax.scan`` — or ``"tsit5"``, ``"dopri5"``, ``"kvaerno5"`` (implicit, for stiff
        K) — adaptive, via diffrax.
    dt_out:
        Output interval [s]; a multiple of `dt` for fixed-step methods. Default: every step
        (fixed) or ``(t_end − t0)/1000`` (adaptive).

    Other options
    -------------
    t0: start time [s] (default 0, or the end of `initial` when that is a Results).
    initial: initial state — a state vector, or a previous :class:`~stickslip.Results` of
        the same system to continue from its last sample (exactly: its final state).
    rtol, atol: adaptive tolerances (1e-8, 1e-10).   max_steps: adaptive step cap (10⁶).
    check_step: reject fixed steps outside the method's stability region for the system's
        stiff modes (default True).
    chunk: largest number of output samples computed per compiled call (default 16 384);
        longer runs are split, and `stream_to` gets each chunk as soon as it is done. The
        compiled program depends on the output count only through the next power of two
        (at least 64, at most `chunk`), so a new `t_end` seldom recompiles (a new `dt` or
        `dt_out` ratio does).
    stream_to: path of a ``.csv`` file written incrementally, so an interrupted run keeps
        what it computed. progress: show a progress bar over the chunks.

    Returns
    -------
    Results with the state channels (``system.state_names``) and the system's outputs.

    Raises
    ------
    ParameterError: bad step, time span, method or initial state (the message says the fix).
    SimulationError: the state became NaN/inf (the message names the time and the last
        finite state) or the adaptive solver failed.
    """
    _check_options(options)
    _check_system(system)
    method = _check_method(method)
    t0, x0 = _initial(system, options)
    _check_span(t0, t_end)
    dynamic, static = eqx.partition(system, eqx.is_array)
    start = time.perf_counter()
    if method in FIXED_STEP_METHODS:
        dt, n_sub, n_out = _fixed_grid(t0, t_end, dt, dt_out)
        if options.get("check_step", True):
            _check_stability(system, method, dt)
        ts, xs, outputs, meta = _run_fixed_chunks(dynamic, static, system, t0, x0, dt, n_sub,
                                                  n_out, method, options)
    else:
        ts, xs, outputs, meta = _run_adaptive(dynamic, static, t0, x0, t_end, dt, dt_out,
                                              method, options, batched=False)
    wall = time.perf_counter() - start
    _check_finite(system, ts, xs)
    meta.update(system=type(system).__name__, method=method, t0=t0, t_end=float(t_end),
                wall_time=wall, parameters=system.parameters())
    return _to_results(system, ts, xs, outputs, meta)


def simulate_batch(systems: Sequence[AbstractSystem] | AbstractSystem, t_end: float,
                   dt: float | None = None, method: str = "rk4", dt_out: float | None = None,
                   **options: Any) -> Results:
    """Run many parameter sets of one system with a single compile (``jax.vmap``).

    `systems` is a list of systems that differ only in array parameters (masses, law
    parameters, initial conditions), or one system already stacked by
    :func:`stack_systems`. Returns one `Results` whose channels have a leading member
    axis; ``res.member(i)`` gives member i alone. Options as for :func:`simulate`
    (``initial`` and ``stream_to`` are not supported in batches).
    """
    _check_options(options)
    if isinstance(systems, AbstractSystem):
        stacked = systems
    else:
        stacked = stack_systems(systems)
    _check_system(stacked)
    method = _check_method(method)
    for unsupported in ("initial", "stream_to"):
        if unsupported in options:
            raise ParameterError(f"`simulate_batch` does not take `{unsupported}`; run the "
                                 "members with `simulate` for that.")
    t0 = float(options.get("t0", 0.0))
    _check_span(t0, t_end)
    dynamic, static = eqx.partition(stacked, eqx.is_array)
    x0 = eqx.filter_vmap(lambda s: s.initial_state())(stacked)
    start = time.perf_counter()
    if method in FIXED_STEP_METHODS:
        dt, n_sub, n_out = _fixed_grid(t0, t_end, dt, dt_out)
        if options.get("check_step", True):
            _check_stability(stacked, method, dt)
        xs, outputs = solve_fixed_step_batch(dynamic, static, jnp.asarray(t0), x0,
                                             jnp.asarray(dt), jnp.asarray(n_out),
                                             method=method, n_sub=n_sub,
                                             capacity=padded_length(n_out))
        xs = np.asarray(xs)[:, : n_out + 1]
        outputs = {k: v[:, : n_out + 1] for k, v in outputs.items()}
        ts = t0 + np.arange(n_out + 1) * (n_sub * dt)
        meta = {"dt": dt, "dt_out": n_sub * dt}
    else:
        ts, xs, outputs, meta = _run_adaptive(dynamic, static, t0, x0, t_end, dt, dt_out,
                                              method, options, batched=True)
    wall = time.perf_counter() - start
    for member in range(xs.shape[0]):
        _check_finite(stacked, ts, xs[member], member=member)
    meta.update(system=type(stacked).__name__, method=method, t0=t0, t_end=float(t_end),
                wall_time=wall, batch_size=int(xs.shape[0]))
    return _to_results(stacked, ts, xs, outputs, meta, batched=True)


def trajectory(system: AbstractSystem, t_end: float, dt: float, dt_out: float | None = None,
               method: str = "rk4", x0=None):
    """Differentiable fixed-step run: ``(ts, xs)`` as JAX arrays, for ``jax.grad``/``jit``.

    Unlike :func:`simulate` it does no host-side checks on the result and returns no
    `Results`, so it can sit inside a loss function: ``jax.grad(lambda K: loss(trajectory(
    make_system(K), ...)))``. `t_end`, `dt`, `dt_out` must be concrete Python numbers (they
    fix the number of steps); the system's parameters and `x0` may be traced.
    """
    method = _check_method(method)
    if method not in FIXED_STEP_METHODS:
        raise ParameterError(f"`trajectory` runs fixed-step methods only "
                             f"{list(FIXED_STEP_METHODS)}; got {method!r}. Use `simulate` for "
                             "adaptive methods.")
    dt, n_sub, n_out = _fixed_grid(0.0, t_end, dt, dt_out)
    dynamic, static = eqx.partition(system, eqx.is_array)
    x0 = system.initial_state() if x0 is None else x0
    xs, _ = solve_fixed_step(dynamic, static, jnp.asarray(0.0), x0, jnp.asarray(dt),
                             method=method, n_sub=n_sub, n_out=n_out)
    ts = jnp.arange(n_out + 1) * (n_sub * dt)
    return ts, xs


def stack_systems(systems: Sequence[AbstractSystem]) -> AbstractSystem:
    """Stack systems that differ only in array parameters into one batched system.

    Raises `ParameterError` naming the first member whose structure (law types, callables,
    array shapes) differs from member 0.
    """
    systems = list(systems)
    if not systems:
        raise ParameterError("`simulate_batch` needs at least one system; got an empty list.")
    parts = [eqx.partition(s, eqx.is_array) for s in systems]
    dyn0, static0 = parts[0]
    shapes0 = [np.shape(leaf) for leaf in jax.tree.leaves(dyn0)]
    for i, (dyn, static) in enumerate(parts[1:], start=1):
        same_tree = jax.tree.structure(dyn) == jax.tree.structure(dyn0)
        if (static != static0 or not same_tree
                or [np.shape(leaf) for leaf in jax.tree.leaves(dyn)] != shapes0):
            raise ParameterError(
                f"member {i} of the batch differs from member 0 in structure (law types, "
                "callables such as `force`, or array shapes); a batch may only vary array "
                "parameters. Use the same law classes and the same force function object.")
    stacked = jax.tree.map(lambda *leaves: jnp.stack(leaves), *[d for d, _ in parts])
    return eqx.combine(stacked, static0)


def largest_stable_step(system: AbstractSystem, method: str = "rk4") -> float:
    """Largest fixed step [s] for which every stiff mode of `system` is inside the
    stability region of `method` (from ``system.linear_modes()``); inf when unbounded."""
    method = _check_method(method)
    if method not in FIXED_STEP_METHODS:
        return math.inf
    tableau = FIXED_STEP_METHODS[method]
    limit = math.inf
    for _, eig in system.linear_modes():
        for lam in np.ravel(np.asarray(eig, dtype=complex)):
            limit = min(limit, _mode_step_limit(tableau, lam))
    return limit


# --- checks -------------------------------------------------------------------------------

def _check_options(options):
    unknown = set(options) - _KNOWN_OPTIONS
    if unknown:
        warnings.warn(f"simulate ignores unknown option(s) {sorted(unknown)}; known options "
                      f"are {sorted(_KNOWN_OPTIONS)}.", stacklevel=3)


def _check_system(system):
    if not isinstance(system, AbstractSystem):
        raise ParameterError(f"`simulate` needs a stickslip system (e.g. "
                             f"ss.systems.FrictionMass); got {type(system).__name__}.")


def _check_method(method):
    if method not in METHODS:
        raise ParameterError(f"unknown `method` {method!r}; choose one of {list(METHODS)}.")
    return method


def _check_span(t0, t_end):
    if not (np.isfinite(t_end) and t_end > t0):
        raise ParameterError(f"`t_end` must be a finite time after t0={t0}; got "
                             f"t_end={t_end}.")


def _initial(system, options):
    initial = options.get("initial")
    t0 = options.get("t0")
    if isinstance(initial, Results):
        if initial.final_state is None or initial.batch_shape:
            raise ParameterError("`initial` Results carry no single final state to continue "
                                 "from; pass a single run's Results or a state vector.")
        x0 = jnp.asarray(initial.final_state)
        t0 = float(initial.t[-1]) if t0 is None else float(t0)
    elif initial is not None:
        x0 = jnp.asarray(initial, dtype=float)
    else:
        x0 = _initial_state(system)
    t0 = 0.0 if t0 is None else float(t0)
    n = len(system.state_names)
    if x0.shape != (n,):
        raise ParameterError(f"`initial` must be a state vector of {n} values "
                             f"({', '.join(system.state_names)}); got shape {x0.shape}.")
    if not np.all(np.isfinite(np.asarray(x0))):
        raise ParameterError(f"`initial` state must be finite; got {np.asarray(x0)}.")
    return t0, x0


@eqx.filter_jit
def _initial_state(system):
    """The system's initial state, compiled once per system structure (saves eager dispatch)."""
    return system.initial_state()


def _fixed_grid(t0, t_end, dt, dt_out):
    if dt is None:
        raise ParameterError("fixed-step methods need `dt` [s]; pass e.g. dt=1e-4 (the "
                             "message of a too-large step says the largest stable one), or use "
                             "an adaptive method such as method='tsit5'.")
    check_positive("simulate", "dt", dt, "Pass a positive step in seconds.")
    dt = float(dt)
    dt_out = dt if dt_out is None else float(dt_out)
    check_positive("simulate", "dt_out", dt_out, "Pass a positive output interval in seconds.")
    n_sub = round(dt_out / dt)
    if n_sub < 1 or abs(n_sub * dt - dt_out) > 1e-9 * dt_out:
        raise ParameterError(f"`dt_out` must be a whole multiple of `dt` for fixed-step "
                             f"methods; got dt_out={dt_out:g}, dt={dt:g}. Use dt_out="
                             f"{max(n_sub, 1) * dt:g}.")
    n_out = max(1, math.ceil((t_end - t0) / (n_sub * dt) - 1e-9))
    return dt, n_sub, n_out


def _mode_step_limit(tableau, lam: complex) -> float:
    if lam.real > 0 or abs(lam) == 0:
        return math.inf  # growing physics (not the integrator's fault) or a neutral mode
    stable = lambda h: abs(tableau.stability(lam * h)[0]) <= 1 + 1e-12  # noqa: E731
    if abs(tableau.stability(lam * 1e-3 / abs(lam))[0]) > 1 + 1e-15:
        # an undamped mode the method slowly amplifies at every step size (Euler on an
        # oscillator): accuracy, not stiffness — no step limit to report
        return math.inf
    hi = 10.0 / abs(lam)
    if stable(hi):
        return math.inf
    lo = 0.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if stable(mid) else (lo, mid)
    return lo


def _check_stability(system, method, dt):
    tableau = FIXED_STEP_METHODS[method]
    labels, eigs = [], []
    for label, eig in system.linear_modes():
        values = np.unique(np.ravel(np.asarray(eig, dtype=complex)))
        labels += [label] * len(values)
        eigs.append(values)
    if not eigs:
        return
    lam = np.concatenate(eigs)
    damped = (lam.real <= 0) & (np.abs(lam) > 0)   # growing physics is not the step's fault
    unstable = damped & (np.abs(tableau.stability(lam * dt)) > 1 + 1e-12)
    if not unstable.any():
        return
    limits = {k: _mode_step_limit(tableau, lam[k]) for k in np.nonzero(unstable)[0]}
    k = min(limits, key=limits.get)
    limit, label, lam_k = limits[k], labels[k], lam[k]
    if not dt > limit:
        return
    suggestion = float(f"{0.9 * limit:.1g}") if 0.9 * limit > 0 else limit
    raise ParameterError(
        f"dt={dt:g} s is too large for the stiffness of {type(system).__name__}: its "
        f"{label} mode has eigenvalue {lam_k.real:.4g}{lam_k.imag:+.4g}j 1/s, and {method} is "
        f"stable only for dt <= {limit:.3g} s. Use dt={suggestion:g} or smaller, soften "
        "the law (lower K, adjust beta), or use an adaptive method such as "
        "method='kvaerno5'. (check_step=False skips this check.)")


def _check_finite(system, ts, xs, member=None):
    xs = np.asarray(xs)
    finite = np.all(np.isfinite(xs), axis=-1)
    if finite.all():
        return
    bad = int(np.argmin(finite))
    last = max(bad - 1, 0)
    state = dict(zip(system.state_names, xs[last].tolist()))
    who = f" (batch member {member})" if member is not None else ""
    shown = ", ".join(f"{k}={v:.6g}" for k, v in state.items())
    raise SimulationError(
        f"{type(system).__name__}{who} diverged: the state became NaN or infinite between "
        f"t={ts[last]:.6g} s and t={ts[bad]:.6g} s. Last finite state: {shown}. Reduce dt, "
        "check the parameters (a too-stiff K or too-small beta/alpha), or use an adaptive "
        "method.", time=float(ts[bad]), state=state)


# --- runners ------------------------------------------------------------------------------

def _run_fixed_chunks(dynamic, static, system, t0, x0, dt, n_sub, n_out, method, options):
    chunk = int(options.get("chunk", 16_384))
    if chunk < 1:
        raise ParameterError(f"`chunk` must be >= 1 output samples; got {chunk}.")
    stream_to = options.get("stream_to")
    per_call = min(chunk, n_out)
    n_calls = math.ceil(n_out / per_call)
    capacity = padded_length(per_call)          # compiled once per power of two
    progress = _progress(options.get("progress", False), n_calls)
    xs_parts, out_parts = [np.asarray(x0)[None]], []
    x, t_start, done, interrupted = x0, t0, 0, False
    writer = _StreamWriter(stream_to, system) if stream_to else None
    try:
        for _ in range(n_calls):
            keep = min(per_call, n_out - done)
            xs, outputs = solve_fixed_step_padded(
                dynamic, static, jnp.asarray(t_start), x, jnp.asarray(dt), jnp.asarray(keep),
                method=method, n_sub=n_sub, capacity=capacity)
            xs = np.asarray(xs)[: keep + 1]
            outputs = {k: np.asarray(v)[: keep + 1] for k, v in outputs.items()}
            if not out_parts:
                out_parts.append({k: v[:1] for k, v in outputs.items()})
            xs_parts.append(xs[1:])
            out_parts.append({k: v[1:] for k, v in outputs.items()})
            ts_chunk = t0 + (done + np.arange(keep + 1)) * (n_sub * dt)
            if writer:
                writer.write(ts_chunk, xs, outputs, first=(done == 0))
            done += keep
            x = jnp.asarray(xs[-1])
            t_start = t0 + done * n_sub * dt
            progress.advance()
            if not np.all(np.isfinite(xs[-1])):
                break
    except KeyboardInterrupt:
        interrupted = True
        warnings.warn(f"simulation interrupted at t={t_start:g} s; returning the {done} "
                      "samples computed so far.", stacklevel=3)
    finally:
        progress.close()
    xs = np.concatenate(xs_parts)
    outputs = {k: np.concatenate([part[k] for part in out_parts]) for k in out_parts[0]} \
        if out_parts else {}
    ts = t0 + np.arange(xs.shape[0]) * (n_sub * dt)
    meta = {"dt": dt, "dt_out": n_sub * dt, "steps": done * n_sub, "interrupted": interrupted}
    if stream_to:
        meta["stream_to"] = str(stream_to)
    return ts, xs, outputs, meta


def _run_adaptive(dynamic, static, t0, x0, t_end, dt, dt_out, method, options, batched):
    dt_out = (t_end - t0) / 1000 if dt_out is None else float(dt_out)
    check_positive("simulate", "dt_out", dt_out)
    n_out = max(1, math.ceil((t_end - t0) / dt_out - 1e-9))
    ts = t0 + np.arange(n_out + 1) * dt_out
    rtol, atol = float(options.get("rtol", 1e-8)), float(options.get("atol", 1e-10))
    check_positive("simulate", "rtol", rtol)
    check_positive("simulate", "atol", atol)
    max_steps = int(options.get("max_steps", 1_000_000))
    dt0 = None if dt is None else jnp.asarray(float(dt))
    solver = solve_adaptive_batch if batched else solve_adaptive
    xs, outputs, ok, n_steps = solver(dynamic, static, jnp.asarray(ts), x0, dt0,
                                      jnp.asarray(rtol), jnp.asarray(atol), method=method,
                                      max_steps=max_steps)
    xs = np.asarray(xs)
    outputs = {k: np.asarray(v) for k, v in outputs.items()}
    ok = np.atleast_1d(np.asarray(ok))
    if not ok.all():
        member = int(np.argmin(ok))
        x_m = xs[member] if batched else xs
        finite = np.all(np.isfinite(x_m), axis=-1)
        reached = ts[max(int(np.argmin(finite)) - 1, 0)] if not finite.all() else ts[-1]
        who = f" (batch member {member})" if batched else ""
        raise SimulationError(
            f"{method} failed{who} before t_end={t_end:g} s (last good output near "
            f"t={reached:g} s): the step size collapsed or max_steps={max_steps} was reached. "
            "Increase `max_steps`, loosen rtol/atol, or for a stiff law use "
            "method='kvaerno5'.", time=float(reached))
    meta = {"dt0": None if dt is None else float(dt), "dt_out": dt_out, "rtol": rtol,
            "atol": atol, "steps": np.asarray(n_steps).tolist()}
    return ts, xs, outputs, meta


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
        self.path = Path(path)
        if self.path.suffix.lower() != ".csv":
            raise ParameterError(f"`stream_to` must be a .csv path; got {str(path)!r}.")
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
