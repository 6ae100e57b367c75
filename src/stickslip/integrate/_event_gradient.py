"""Reverse-mode gradients through the event route (issue 21): :func:`event_trajectory`.

``simulate(..., method="events")`` runs its passes in a plain ``lax.while_loop``, which JAX
cannot differentiate in reverse mode. :func:`event_trajectory` runs the same passes
(:func:`._event_route._pass`: the same DOP853 steps, root search and jumps, so its values
are the forward route's) in two differentiable forms:

* the **outer loop** is equinox's checkpointed while loop
  (``eqx.internal.while_loop(kind="checkpointed")``, online treeverse checkpointing; Stumm &
  Walther 2010) bounded by ``max_steps`` = the grid's steps + `max_events` + 1 — each pass
  completes a step or records an event, and the run stops when the event buffer is full;
* the **event time** comes from the implicit-function theorem, not from the search: the
  regula-falsi search runs on values cut from the graph (its loop is never differentiated;
  an unrolled bracketing search would give the derivative of its last secant, not of the
  root), and the located τ₀ is re-attached to the graph by one Newton correction whose
  value is exactly 0::

      τ = τ₀ − (g(τ₀; p) − ⌊g(τ₀; p)⌋) / ⌊∂g/∂τ(τ₀)⌋      ⇒   dτ/dp = −(∂g/∂p)/(∂g/∂τ)

  (⌊·⌋ the value without its derivative; g(τ; p) the guard at the end of a DOP853 step of
  length τ from the step's start, which carries the derivatives of the state there). The
  state at the event is that step's, so its derivative holds the motion's rate times dτ/dp.

The forward run of ``simulate`` keeps the plain loop (no bound, no checkpoints): nothing
here is compiled into it.

References: SPEC §3 (rigid contact), §6 (the set-valued friction law); Stumm & Walther,
*New algorithms for optimal online checkpointing*, SIAM J. Sci. Comput. 32 (2010).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from ..errors import ParameterError
from ._arguments import as_count
from ._event_host import check_route, check_step_in_span
from ._event_route import _locate, _pass, _running, _start, _total
from ._fixed_step import segment
from ._grid import step_grid
from ._memory import FLOAT_BYTES, check_memory

__all__ = ["EventTrajectory", "event_trajectory", "locate_differentiable"]

DEFAULT_GRADIENT_EVENTS = 256


class EventTrajectory(NamedTuple):
    """A differentiable event-driven run (:func:`event_trajectory`); JAX arrays throughout.

    Attributes
    ----------
    ts : jax.Array
        Sample times [s], shape ``(n_out + 1,)``; the last is exactly `t_end`.
    xs : jax.Array
        The state at each sample, shape ``(n_out + 1, n_states)``.
    event_t : jax.Array
        The time of each located event [s], shape ``(max_events,)``; rows from `n_events`
        on are 0.
    event_kind : jax.Array
        Index of each event's kind into ``EVENT_KINDS`` (``"impact"``, ``"stick"``, …).
    event_x : jax.Array
        The state just after each event, shape ``(max_events, n_states)``.
    event_x_before : jax.Array
        The state just before each event (at the crossing), same shape.
    n_events : jax.Array
        The number of events located (an int32 scalar).
    overflowed : jax.Array
        True when the run met more than `max_events` events and stopped there (the samples
        after that time repeat the state at it): raise `max_events`.
    """

    ts: jax.Array
    xs: jax.Array
    event_t: jax.Array
    event_kind: jax.Array
    event_x: jax.Array
    event_x_before: jax.Array
    n_events: jax.Array
    overflowed: jax.Array


def locate_differentiable(system, step, t, x, mode, h, x_end, g_end, active=True):
    """:func:`._event_route._locate` with the event time's derivative from the
    implicit-function theorem (module docstring): ``(τ, x(τ))`` with the search's values and
    dτ/dp = −(∂g/∂p)/(∂g/∂τ).

    Parameters
    ----------
    system : AbstractEventHost
        The host (its parameters may be traced and differentiated).
    step : callable
        ``step(t, x, h, mode)``: one DOP853 step of the mode's motion.
    t, x, mode, h, x_end, g_end, active : jax.Array
        As :func:`._event_route._locate`: the step's start, its mode and length, the state
        and guard at its end, whether this search runs.

    Returns
    -------
    tau : jax.Array
        The crossing τ ∈ [0, h] [s] after `t`.
    x_tau : jax.Array
        The state there.
    """
    def search(t, x, mode, h, x_end, g_end, active):
        return _locate(system, step, t, x, mode, h, x_end, g_end, active)

    args = (t, x, mode, h, x_end, g_end, jnp.asarray(active))
    # the search's loop sees no derivative at all: its arguments and every value it closes
    # over (the host's parameters, a load's closure) are cut from the graph
    converted, consts = jax.closure_convert(search, *args)
    tau0, x_found = converted(*jax.lax.stop_gradient(args), *jax.lax.stop_gradient(consts))

    def guard_after(tau):
        return system.event_guard(t + tau, step(t, x, tau, mode), mode)

    g_val, g_rate = jax.jvp(guard_after, (tau0,), (jnp.ones_like(tau0),))
    g_rate = jax.lax.stop_gradient(g_rate)
    usable = (tau0 > 0.0) & (g_rate != 0.0)  # τ₀ = 0: the event at t itself, no correction
    correction = (g_val - jax.lax.stop_gradient(g_val)) / jnp.where(usable, g_rate, 1.0)
    tau = tau0 - jnp.where(usable, correction, 0.0)
    x_step = step(t, x, tau, mode)
    # the found state's value (bit for bit the route's), the re-stepped state's derivative
    x_tau = x_found + (x_step - jax.lax.stop_gradient(x_step))
    return tau, x_tau


def _kernel(system, t0, x0, seg, capacity: int, max_events: int, max_steps: int):
    """The whole run as one checkpointed loop of the route's passes; returns the final loop
    state (:func:`._event_route._start`: samples, event buffers, count, overflow)."""
    total = _total(seg)
    end = eqx.internal.while_loop(
        lambda c: _running(c, total),
        lambda c: _pass(system, t0, seg, capacity, max_events, c, jnp.asarray(True),
                        locate=locate_differentiable),
        _start(system, t0, x0, capacity, max_events),
        max_steps=max_steps, kind="checkpointed")
    return end


def event_trajectory(system, t_end: float, dt: float, dt_out: float | None = None,
                     x0=None, max_events: int = DEFAULT_GRADIENT_EVENTS) -> EventTrajectory:
    """A differentiable event-driven run: ``jax.grad`` through ``method="events"``.

    The same run as ``simulate(system, t_end, method="events", dt=dt, dt_out=dt_out)``
    (the same samples and events: bit for bit on the 1-D hosts, to round-off where the
    differentiable program is compiled differently), returned as JAX arrays so that it can sit
    inside a loss: reverse-mode derivatives flow through the smooth phases, the jumps
    (Newton restitution, SPEC §3; the stick/slip transitions of the set-valued law, SPEC
    §6) and the event times (implicit-function theorem; module docstring).

    Parameters
    ----------
    system : AbstractEventHost
        A host of the event route (ContactMass with ``NewtonImpact``, FrictionMass with
        ``CoulombODE``); its array parameters and the values its callables close over may
        be traced.
    t_end : float
        End time [s]; a concrete number (it fixes the loop's bound).
    dt : float
        Step of the smooth phases [s]; concrete.
    dt_out : float, optional
        Output interval [s], a whole multiple of `dt`; concrete. Default `dt`.
    x0 : array_like, optional
        Initial state (may be traced). Default ``system.initial_state()``.
    max_events : int, optional
        Capacity of the event buffer (default 256). Memory of the backward pass grows with
        it: about √(2·(steps + max_events)) checkpoints, each holding the loop state (the
        samples and the event buffer). A run that fills it stops there (``overflowed``).

    Returns
    -------
    EventTrajectory
        Samples, events and the event count.

    Raises
    ------
    ParameterError
        If `system` cannot run ``events``, `dt`/`dt_out`/`t_end` are not a valid grid, or
        `x0` has the wrong shape.
    MemoryBudgetError
        If the backward pass's checkpoints would exceed the memory budget.

    Notes
    -----
    The loop is bounded by the grid's steps + `max_events` + 1 passes (each pass completes
    a step or records an event). Forward-mode derivatives (``jax.jvp``) are not available
    through this loop; ``simulate`` stays the faster route for a plain run.
    """
    check_route(system, "events", owner="event_trajectory")
    grid = step_grid(0.0, t_end, dt, dt_out, owner="event_trajectory")
    check_step_in_span("event_trajectory", "events", grid.dt, grid.t0, grid.t_end)
    max_events = as_count("event_trajectory", "max_events", max_events)
    n = len(system.state_names)
    x0 = system.initial_state() if x0 is None else jnp.asarray(x0, dtype=float)
    if x0.shape != (n,):
        raise ParameterError(f"`event_trajectory.x0` must be a state vector of {n} values "
                             f"({', '.join(system.state_names)}); got shape {x0.shape}.")
    steps_bound = grid.n_steps + max_events + 1
    checkpoints = math.floor(-1.5 + math.sqrt(2 * steps_bound + 0.25)) + 1   # equinox's
    carry = ((grid.n_out + 1) * (n + 1) + max_events * (2 * n + 3)) * FLOAT_BYTES
    check_memory("event_trajectory", (checkpoints + 2) * carry,
                 f"{checkpoints} checkpoints of the loop state: {grid.n_out + 1} samples "
                 f"of {n} states and {max_events} event rows",
                 "Pass a larger `dt_out`, a shorter `t_end` or a smaller `max_events`.")
    seg = segment(grid, 0, grid.n_out)
    seg = type(seg)(*(np.asarray(v) for v in seg))      # 0-d arrays: traced, not static
    dynamic, static = eqx.partition(system, eqx.is_array)
    end = _run(dynamic, x0, seg, static=static, capacity=grid.n_out,
               max_events=max_events, max_steps=steps_bound)
    ts = jnp.asarray(grid.times())
    return EventTrajectory(ts, end["out_x"], end["ev_t"], end["ev_kind"], end["ev_x"],
                           end["ev_before"], end["n"], end["overflow"])


@eqx.filter_jit
def _run(dynamic, x0, seg, *, static, capacity, max_events, max_steps):
    system = eqx.combine(dynamic, static)
    return _kernel(system, jnp.asarray(0.0), x0, seg, capacity, max_events, max_steps)
