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

from .._compile.options import runs_once
from ..errors import ParameterError
from ..results import Results
from ._adaptive import ADAPTIVE_METHODS, is_diffrax_solver, solver_label
from ._arguments import as_flag, as_time, did_you_mean
from . import _program_store
from ._event_route import (EVENT_METHODS, buffer_bytes, check_route, event_columns,
                           event_program)
from ._fixed_step import StepRule, integrate_batch, solve_fixed_step
from ._grid import check_time_arguments, step_grid
from ._guard import Guard, check_divergence, guard_from_options, run_bounds
from ._memory import check_run_memory
from ._moreau_jean import TIME_STEPPING_METHODS, time_stepping_program
from ._options import Output, Steps, legacy_positionals, merge_options
from ._runners import (_run_adaptive, _run_batch_chunks, _run_fixed_chunks, _StreamWriter,
                       _to_results, likely_channels)
from ._stability import (NO_OVERSHOOT, check_stability, check_stability_members,
                         mode_step_limit, monotone_step_limit)
from ._system import AbstractSystem
from ._tableaus import FIXED_STEP_METHODS

__all__ = ["simulate", "simulate_batch", "trajectory", "stack_systems", "largest_stable_step",
           "initial_state_of", "METHODS"]

METHODS = (tuple(FIXED_STEP_METHODS) + tuple(ADAPTIVE_METHODS) + EVENT_METHODS
           + TIME_STEPPING_METHODS)


def simulate(system: AbstractSystem, t_end: float, *args: Any, dt: float | None = None,
             method: str | Any = "rk4", dt_out: float | None = None,
             t0: float | None = None, initial: Any = None, output: Output | None = None,
             guard: Guard | None = None, steps: Steps | None = None,
             progress: bool | None = None, **options: Any) -> Results:
    """Integrate `system` from its initial state to `t_end` and return its channels.

    Parameters
    ----------
    system : AbstractSystem
        Any :class:`~stickslip.systems.AbstractSystem` (e.g. ``FrictionMass``).
    t_end : float
        End time [s]; the last sample is exactly `t_end` (see Notes).
    dt : float, optional
        Step [s]. Required for the fixed-step methods, ``events`` (its smooth phases'
        step) and ``moreau_jean`` (for both at most ``t_end − t0``); the initial step for
        adaptive ones (chosen automatically when omitted).
    method : str, optional
        ``"rk4"``, ``"rk_gill"`` (Runge–Kutta–Gill, SPEC §7), ``"euler"`` — fixed step, one
        jitted ``lax.scan`` — or ``"tsit5"``, ``"dopri5"``, ``"kvaerno5"`` (implicit, for stiff
        K) — adaptive, via diffrax — or ``"moreau_jean"``: time stepping with exact friction
        and impacts (:mod:`stickslip.integrate._moreau_jean`), or ``"events"``: event-driven,
        8th-order Runge–Kutta phases with every impact and stick/slip transition located
        in time (:mod:`stickslip.integrate._event_route`; ``Results.events`` lists them).
        Hosts of both: ``FrictionMass`` with ``CoulombODE``, ``ContactMass`` with
        ``NewtonImpact``.
        A diffrax adaptive solver object (``diffrax.Dopri8()``, ``diffrax.Kvaerno3()``, …)
        is accepted in place of a name and runs the adaptive route.
    dt_out : float, optional
        Output interval [s]; a whole multiple of `dt` for fixed-step methods. Default: every
        step (fixed) or ``(t_end − t0)/1000`` (adaptive).
    t0 : float, optional
        Start time [s] (default 0, or the end of `initial` when that is a Results).
    initial : array_like or Results, optional
        Initial state — a state vector, or a previous :class:`~stickslip.Results` of
        the same system to continue from its last sample (exactly: its final state).
    output : Output, optional
        What the run keeps and where it writes it (``chunk``, ``stream_to``).
    guard : Guard, optional
        The divergence guard's thresholds (``max_state``, ``energy_rtol``,
        ``energy_atol``; ``math.inf`` turns one off).
    steps : Steps, optional
        How the run steps (``check``, ``projection``, ``trace_stages_once``, ``rtol``,
        ``atol``, ``max_steps``, ``theta``, ``max_events``); fields left at None keep the
        route's default.
    progress : bool, optional
        Show a progress bar over the chunks.

    Other Parameters
    ----------------
    **options
        The flat keywords of earlier releases, each the field of the same name of
        `output`, `guard` or `steps` (``check_step`` is ``Steps.check``, ``max_state`` and
        ``energy_tol=(rtol, atol)`` the guard's); an option given both ways is refused.
        Positional ``dt, method, dt_out`` after `t_end` still work, with a
        DeprecationWarning. They are:
    theta : float, optional
        The θ of ``moreau_jean``'s smooth forces, in [0, 1] (default 0.5; friction and
        impacts are always fully implicit).
    max_events : int, optional
        Capacity of the event buffer of ``method="events"`` (default 10 000); a run
        with more events stops with a SimulationError.
    rtol, atol : float, optional
        Adaptive tolerances (1e-8, 1e-10).
    max_steps : int, optional
        Adaptive step cap (10⁶).
    check_step : bool, optional
        Reject fixed steps outside the method's stability region for the system's
        stiff modes (default True).
    max_state, energy_tol : float or tuple or None, optional
        The divergence guard (:mod:`stickslip.integrate._guard`): a run
        whose state exceeds `max_state` in magnitude (default 1e12), or whose energy (for
        systems that report one) climbs by more than ``rtol·|E0| + atol`` (default
        (1e-2, 1e-6)), stops with a SimulationError; None turns either check off. The guard
        stays on with ``check_step=False``.
    trace_stages_once : bool, optional
        Run the Runge–Kutta stages in a loop, tracing the vector field once
        (less compile time for large models); default: the system's class variable.
    projection : bool, optional
        Call ``system.project(t, x)`` after every fixed step; default: the system's
        ``projects_after_step``.
    chunk : int, optional
        Largest number of output samples computed per compiled call (default 16 384);
        longer runs are split, and `stream_to` gets each chunk as soon as it is done. The
        compiled program depends on the output count only through the next power of two
        (at least 64, at most `chunk`); `dt`, `dt_out` and `t_end` are traced data, so a new
        value of any of them reuses the compiled program.
    stream_to : str or path, optional
        Path of a ``.csv`` file written incrementally (only checked, finite rows),
        so an interrupted run keeps what it computed; at the end its JSON sidecar is written
        as by :meth:`Results.save` (adaptive methods write the file once, at the end).

    Returns
    -------
    Results
        The state channels (``system.state_names``) and the system's outputs.

    Raises
    ------
    ParameterError
        Bad step, time span, method, option or initial state (the message names
        the argument and says the fix).
    MemoryBudgetError
        The run would hold more than the memory budget (the message gives
        the estimate, the budget and the `dt_out` that fits).
    SimulationError
        The run diverged — NaN/inf, a state beyond `max_state`, or a climbing
        energy (the message names the time and the last sane state; ``err.time``,
        ``err.state``) — or the adaptive solver failed.

    Notes
    -----
    The output grid (:mod:`stickslip.integrate._grid`): samples at ``t0 + k·dt_out`` and a
    last one at exactly `t_end`; when ``t_end − t0`` is not a multiple of `dt_out` the last
    interval is shorter (whole steps of `dt`, plus one shorter final step when `dt` does not
    divide it either). ``final_state`` is the state at `t_end`. E.g.
    ``simulate(system, 1.05, dt=1e-3, dt_out=0.1)`` samples 0, 0.1, …, 1.0, 1.05.

    Memory: the run's samples are held in memory (`stream_to` writes them as well, it does
    not drop them). Before anything is allocated, the samples × channels are checked
    against a budget — half the available memory, or the environment variable
    ``STICKSLIP_MEMORY_BUDGET`` (``8GB``, ``80%``, ``off``; :mod:`._memory`) — so
    ``t_end=1e4, dt=1e-5`` with every step kept (10⁹ samples) is refused with the
    `dt_out` that fits, instead of being killed for memory.
    """
    dt, method, dt_out = legacy_positionals("simulate", args, dt, method, dt_out)
    options = merge_options("simulate", options, output=output, guard=guard, steps=steps,
                            progress=progress, t0=t0, initial=initial)
    _check_system(system)
    solver, method = _solver_and_route(method)
    _check_route_options(system, method, options)
    # the step and span check every host runs, before any compile (_initial compiles)
    check_time_arguments("simulate", t_end, dt, dt_out, options.get("t0"),
                         initial=options.get("initial"), fixed_step=_on_a_grid(method, dt))
    t0, x0 = _initial(system, options)
    t_end = _check_span(t0, t_end)
    guard = guard_from_options(options)
    rule = _step_rule(system, method, options)
    dynamic, static = eqx.partition(system, eqx.is_array)
    start = time.perf_counter()
    located = None
    if method in TIME_STEPPING_METHODS or method in EVENT_METHODS:
        program = time_stepping_program if method in TIME_STEPPING_METHODS else event_program
        grid, run_chunk, route_meta = program(system, dynamic, static, t0, t_end, dt, dt_out,
                                              options)
        located = getattr(run_chunk, "events", None)
        buffer = buffer_bytes(system, route_meta.get("max_events", 0))
        ts, xs, outputs, meta = _run_fixed_chunks(dynamic, static, system, x0, grid, rule,
                                                  guard, options, run_chunk, buffer)
        meta.update(route_meta)
    elif method in FIXED_STEP_METHODS:
        grid = step_grid(t0, t_end, dt, dt_out)
        if as_flag("simulate", "check_step", options.get("check_step", True)):
            check_stability(system, method, grid.dt)
        ts, xs, outputs, meta = _run_fixed_chunks(dynamic, static, system, x0, grid, rule,
                                                  guard, options)
    else:
        if options.get("stream_to") is not None:
            _StreamWriter(options["stream_to"], system)          # checks the path first
        ts, xs, outputs, energy, meta = _run_adaptive(dynamic, static, system, t0, x0, t_end,
                                                      dt, dt_out, solver or method, options)
        check_divergence(type(system).__name__, system.state_names, ts, xs, energy=energy,
                         guard=guard, bounds=run_bounds(system, x0))
    wall = time.perf_counter() - start
    meta.update(system=type(system).__name__, method=solver_label(solver or method), t0=t0,
                t_end=t_end,
                wall_time=wall, parameters=system.parameters())
    res = _to_results(system, ts, xs, outputs, meta)
    res.events = event_columns(system, located)
    if options.get("stream_to") is not None:
        from ..results import write_sidecar

        if method not in ADAPTIVE_METHODS:
            write_sidecar(Path(options["stream_to"]), res)
        else:                                  # diffrax returns the run at once
            res.save(Path(options["stream_to"]))
    return res


def simulate_batch(systems: Sequence[AbstractSystem] | AbstractSystem, t_end: float,
                   *args: Any, dt: float | None = None, method: str | Any = "rk4",
                   dt_out: float | None = None, t0: float | None = None,
                   guard: Guard | None = None, steps: Steps | None = None,
                   **options: Any) -> Results:
    """Run many parameter sets of one system with a single compile (``jax.vmap``).

    `systems` is a list of systems that differ only in array parameters (masses, law
    parameters, initial conditions), or one system already stacked by
    :func:`stack_systems`. Returns one `Results` whose channels have a leading member
    axis; ``res.member(i)`` gives member i alone. Options and the output grid as for
    :func:`simulate` (``initial``, ``stream_to``, ``chunk`` and ``progress`` are not
    supported in batches); the divergence guard checks every member and names it.

    Memory: a fixed-grid batch runs in compiled calls of at most about 64 MB of states
    each, written into the result as they come, so its peak is about the result's size
    (members × samples × channels × 8 bytes); that is checked against the memory budget
    (:func:`simulate`) before anything is allocated, and refused with a MemoryBudgetError
    naming the members per call and the `dt_out` that fit.

    ``method="events"``: one compiled ``lax.while_loop`` over every member, run until all
    are done; each keeps its own event buffer (`max_events` rows) and count, and one past
    `max_events` stops the batch with a SimulationError naming it. ``res.events`` lists
    every member's events: a ``member`` column, then :func:`simulate`'s columns, rows by
    member then time; ``res.member(i).events`` is member i's own table (no ``member``
    column) and ``res.meta["events"]`` the count per member.
    """
    dt, method, dt_out = legacy_positionals("simulate_batch", args, dt, method, dt_out)
    options = merge_options("simulate_batch", options, guard=guard, steps=steps, t0=t0)
    if isinstance(systems, AbstractSystem):
        stacked = systems
    else:
        stacked = stack_systems(systems)
    _check_system(stacked)
    solver, method = _solver_and_route(method, "simulate_batch")
    _check_route_options(stacked, method, options, "simulate_batch")
    for unsupported in ("initial", "stream_to", "chunk", "progress"):
        if unsupported in options:
            raise ParameterError(f"`simulate_batch` does not take `{unsupported}`; run the "
                                 "members with `simulate` for that.")
    t0, t_end = check_time_arguments("simulate_batch", t_end, dt, dt_out, options.get("t0"),
                                     fixed_step=_on_a_grid(method, dt))[:2]
    guard = guard_from_options(options, "simulate_batch")
    rule = _step_rule(stacked, method, options)
    dynamic, static = eqx.partition(stacked, eqx.is_array)
    x0 = _initial_states(stacked)
    start = time.perf_counter()
    located, buffer = None, 0.0
    if method not in ADAPTIVE_METHODS:
        route_meta = {}
        if method in TIME_STEPPING_METHODS or method in EVENT_METHODS:
            program = event_program if method in EVENT_METHODS else time_stepping_program
            grid, run_chunk, route_meta = program(
                stacked, dynamic, static, t0, t_end, dt, dt_out, options, "simulate_batch",
                batched=True)
            located = getattr(run_chunk, "events", None)
            buffer = buffer_bytes(stacked, route_meta.get("max_events", 0), x0.shape[0])
        else:
            grid = step_grid(t0, t_end, dt, dt_out, owner="simulate_batch")
            if as_flag("simulate_batch", "check_step", options.get("check_step", True)):
                check_stability_members(stacked, method, grid.dt)

            def run_chunk(capacity, t_start, x, seg):
                return _program_store.call(integrate_batch, (static, rule, capacity),
                                           (dynamic, np.float64(t_start), x, seg))
        # in calls of outputs written into the result as they come (checked against the
        # memory budget first): the peak is about the result's size
        xs, outputs, energy = _run_batch_chunks(run_chunk, grid, x0,
                                                len(stacked.state_names),
                                                likely=likely_channels(stacked),
                                                extra_bytes=buffer)
        ts = grid.times()
        meta = {"dt": grid.dt, "dt_out": grid.dt_out, "steps": grid.n_steps, **route_meta}
    else:
        ts, xs, outputs, energy, meta = _run_adaptive(dynamic, static, stacked, t0, x0, t_end,
                                                      dt, dt_out, solver or method, options,
                                                      batched=True)
    wall = time.perf_counter() - start
    for member in range(xs.shape[0]):
        check_divergence(type(stacked).__name__, stacked.state_names, ts, xs[member],
                         energy=None if energy is None else energy[member], guard=guard,
                         member=member, bounds=run_bounds(stacked, x0, member))
    meta.update(system=type(stacked).__name__, method=solver_label(solver or method), t0=t0,
                t_end=t_end,
                wall_time=wall, batch_size=int(xs.shape[0]))
    res = _to_results(stacked, ts, xs, outputs, meta, batched=True)
    res.events = event_columns(stacked, located)
    return res


def trajectory(system: AbstractSystem, t_end: float, dt: float, dt_out: float | None = None,
               method: str = "rk4", x0=None):
    """Differentiable fixed-step run: ``(ts, xs)`` as JAX arrays, for ``jax.grad``/``jit``.

    Unlike :func:`simulate` it does no host-side checks on the result and returns no
    `Results`, so it can sit inside a loss function: ``jax.grad(lambda K: loss(trajectory(
    make_system(K), ...)))``. `t_end`, `dt`, `dt_out` must be concrete Python numbers (they
    fix the number of steps); the system's parameters and `x0` may be traced. The grid is
    :func:`simulate`'s: the last sample is exactly `t_end`.
    """
    _check_system(system, "trajectory")
    method = _check_method(method, "trajectory")
    if method not in FIXED_STEP_METHODS:
        raise ParameterError(f"`trajectory.method` must be a fixed-step method "
                             f"{list(FIXED_STEP_METHODS)}; got {method!r}. Use `simulate` for "
                             "adaptive methods.")
    t_end = _check_span(0.0, t_end, owner="trajectory")
    grid = step_grid(0.0, t_end, dt, dt_out, owner="trajectory")
    # the scanned states and their copy with the initial state (the memory budget of
    # simulate; the extra channels are the caller's)
    check_run_memory("trajectory", samples=grid.n_out + 1, channels=len(system.state_names),
                     copies=2, span=t_end, dt=grid.dt, every_step=grid.n_sub == 1,
                     pieces=False)
    dynamic, static = eqx.partition(system, eqx.is_array)
    x0 = system.initial_state() if x0 is None else jnp.asarray(x0, dtype=float)
    n = len(system.state_names)
    if x0.shape != (n,):
        raise ParameterError(f"`trajectory.x0` must be a state vector of {n} values "
                             f"({', '.join(system.state_names)}); got shape {x0.shape}.")
    xs, _ = solve_fixed_step(dynamic, static, jnp.asarray(0.0), x0, jnp.asarray(grid.dt),
                             rule=StepRule.for_system(system, method), grid=grid)
    return jnp.asarray(grid.times()), xs


def stack_systems(systems: Sequence[AbstractSystem]) -> AbstractSystem:
    """Stack systems that differ only in array parameters into one batched system.

    Raises `ParameterError` naming the first member that is not a system or whose structure
    (law types, callables, array shapes) differs from member 0.
    """
    if isinstance(systems, (str, bytes)) or not hasattr(systems, "__iter__"):
        raise ParameterError(f"`stack_systems.systems` must be a list of systems; got "
                             f"{type(systems).__name__}.")
    systems = list(systems)
    if not systems:
        raise ParameterError("`stack_systems.systems` needs at least one system; got an empty "
                             "list.")
    for i, member in enumerate(systems):
        if not isinstance(member, AbstractSystem):
            raise ParameterError(f"`stack_systems.systems`: member {i} is a "
                                 f"{type(member).__name__}, not a stickslip system.")
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
    # stacked on the host, one transfer per leaf: an eager jnp.stack over many device arrays
    # compiles a program per leaf shape (1000 link systems: 11.6 s of stacking, 1.8 of 1.85 s
    # in jnp.stack); device_put, not jnp.asarray (1000 boxes: 0.40 → 0.19 s)
    stacked = jax.tree.map(lambda *leaves: jax.device_put(np.stack(
        [np.asarray(x) for x in leaves])), *[d for d, _ in parts])
    return eqx.combine(stacked, static0)


def largest_stable_step(system: AbstractSystem, method: str = "rk4") -> float:
    """Largest fixed step [s] for which every stiff mode of `system` is inside the
    stability region of `method` (from ``system.linear_modes()``) and a mode that must not
    overshoot (a two-level law's stick mode, `NO_OVERSHOOT`) is not carried past its
    equilibrium: the largest step ``simulate``'s check accepts; inf when unbounded."""
    _check_system(system, "largest_stable_step")
    method = _check_method(method, "largest_stable_step")
    if method not in FIXED_STEP_METHODS:
        return math.inf
    tableau = FIXED_STEP_METHODS[method]
    limit = math.inf
    for label, eig in system.linear_modes():
        for lam in np.ravel(np.asarray(eig, dtype=complex)):
            limit = min(limit, mode_step_limit(tableau, lam))
            if label.endswith(NO_OVERSHOOT) and lam.real <= 0:
                limit = min(limit, monotone_step_limit(tableau, lam))
    return limit


# --- checks -------------------------------------------------------------------------------

def _on_a_grid(method, dt) -> bool:
    """Whether the run steps on the fixed grid of `dt` (dt_out a whole multiple of it): the
    fixed-step methods, and the exact routes once `dt` is given (without it they name what
    they need themselves)."""
    return method in FIXED_STEP_METHODS or (dt is not None and method not in ADAPTIVE_METHODS)


def _check_system(system, owner="simulate"):
    if not isinstance(system, AbstractSystem):
        raise ParameterError(f"`{owner}.system` must be a stickslip system (e.g. "
                             f"ss.systems.FrictionMass); got {type(system).__name__}.")


def _check_method(method, owner="simulate"):
    if not isinstance(method, str) or method not in METHODS:
        hint = did_you_mean([method], METHODS) if isinstance(method, str) else ""
        raise ParameterError(f"unknown `method` {method!r} (`{owner}.method`); choose one "
                             f"of {list(METHODS)}.{hint}")
    return method


def _solver_and_route(method, owner="simulate"):
    """``(solver, route)``: a diffrax adaptive solver object runs the adaptive route (its
    checks are those of ``tsit5``; the object itself goes to ``diffeqsolve``); a name is
    checked against `METHODS`."""
    if not isinstance(method, str) and is_diffrax_solver(method):
        return method, "tsit5"
    return None, _check_method(method, owner)


def _check_route_options(system, method, options, owner="simulate"):
    """The host supports `method` (:func:`._event_host.check_route`); `theta`, `max_events`,
    the tolerances and step cap only on their routes (else warned about, never dropped)."""
    check_route(system, method, owner)
    adaptive = tuple(ADAPTIVE_METHODS)
    for option, routes in (("theta", TIME_STEPPING_METHODS), ("max_events", EVENT_METHODS),
                           ("rtol", adaptive), ("atol", adaptive), ("max_steps", adaptive)):
        if option in options and method not in routes:
            warnings.warn(f"{owner} ignores `{option}` for method={method!r}; it is an "
                          f"option of {list(routes)}.", stacklevel=3)


def _check_span(t0, t_end, owner="simulate"):
    return check_time_arguments(owner, t_end, t0=t0).t_end


def _step_rule(system, method, options):
    looped = options.get("trace_stages_once")
    projection = options.get("projection")
    if looped is not None:
        as_flag("simulate", "trace_stages_once", looped)
    if projection is not None:
        as_flag("simulate", "projection", projection)
        if projection and method not in FIXED_STEP_METHODS:
            raise ParameterError(f"`simulate.projection=True` needs a fixed-step method "
                                 f"{list(FIXED_STEP_METHODS)}; got method={method!r}.")
    return StepRule.for_system(system, method if method in FIXED_STEP_METHODS else "rk4",
                               looped, projection)


def _initial(system, options):
    initial = options.get("initial")
    t0 = options.get("t0")
    if t0 is not None:
        t0 = as_time("simulate", "t0", t0)
    if isinstance(initial, Results):
        if initial.final_state is None or initial.batch_shape:
            why = ("they are batched: pass res.member(i)" if initial.batch_shape else
                   "they have no final_state (a CSV loaded without its .csv.json sidecar, "
                   "or Results built by hand): keep the sidecar next to the CSV")
            raise ParameterError(f"`simulate.initial`: these Results carry no single final "
                                 f"state to continue from; {why}, or pass a state vector.")
        x0 = jnp.asarray(initial.final_state, dtype=float)
        t0 = float(initial.t[-1]) if t0 is None else t0
    elif initial is not None:
        try:
            x0 = jnp.asarray(np.asarray(initial, dtype=float))
        except (TypeError, ValueError):
            raise ParameterError(f"`simulate.initial` must be a state vector of numbers or a "
                                 f"Results; got {type(initial).__name__} "
                                 f"{initial!r:.60}.") from None
    else:
        x0 = initial_state_of(system)
    t0 = 0.0 if t0 is None else t0
    n = len(system.state_names)
    if x0.shape != (n,):
        raise ParameterError(f"`simulate.initial` must be a state vector of {n} values "
                             f"({', '.join(system.state_names)}); got shape {x0.shape}.")
    if not np.all(np.isfinite(np.asarray(x0))):
        raise ParameterError(f"`simulate.initial` state must be finite; got "
                             f"{np.asarray(x0)}.")
    return t0, x0


def initial_state_of(system):
    """``system.initial_state()`` through the program store: one small compiled program per
    system structure, loaded in a new process (eager dispatch would compile op by op: a 3-D
    link system's revolute angles, ~45 small programs, 1.2 s of a warm first call)."""
    return _program_store.call_with_system(_initial_state_kernel, system)


@runs_once
def _initial_state_kernel(system):
    return system.initial_state()


def _initial_states(stacked):
    """Every member's initial state (members × states) of a stacked system, through the
    program store as :func:`_initial_state` (eager ``vmap`` dispatched op by op: ~3 ms a
    call for a box's 63 members, measured 2026-11-26 — a tenth of a short batch run)."""
    return _program_store.call_with_system(_initial_states_kernel, stacked)


@runs_once
def _initial_states_kernel(stacked):
    return eqx.filter_vmap(lambda s: s.initial_state())(stacked)
