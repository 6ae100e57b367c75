"""The event-driven route ``simulate(..., method="events")`` (issue 21, item 2).

A host that implements :class:`~._event_host.AbstractEventHost` is a small hybrid automaton:
in each mode (a contact in flight or at rest; a friction contact stuck, or slipping in one
sense) its motion is a smooth ODE, and the mode lasts while one guard stays ≥ 0. The route:

* integrates the mode's ODE with the **8th-order Runge–Kutta method DOP853** (Dormand &
  Prince; :mod:`._dop853`, fixed step) on the grid ``t0 + k·dt`` (the output grid of
  :func:`step_grid`, the last step shortened to end exactly at ``t_end``). The stages at a
  step's ends evaluate time-dependent loads 8 ulps inside the step, so a load that jumps on a
  grid point — or within 8 ulps of one, as ``0.7`` and ``14 × 0.05`` do — is integrated
  exactly, as the ``moreau_jean`` route's quadrature (no node on the ends) does. Free flight under constant forces (a polynomial)
  is exact at any `dt`; a smooth phase's error falls as dt⁸ (the stick–slip oscillator's
  phase durations to 1e-15 at dt = 0.1 s);
* after each step, checks the guard at the step's end; where it fell below 0, **locates the
  crossing** τ ∈ (0, h] by re-stepping from the step's start with length τ (Illinois regula
  falsi with a Brent-style minimum step, to 4 ulps of τ — relative to τ, so even the
  shortest bounce is located to full precision). When the guard starts on its boundary (a
  flight that just left the floor, a slip that just began) the search runs on g(τ)/τ, whose
  sign is the guard's and which has no root at τ = 0 (for a parabolic flight it is linear:
  located in one step);
* applies the host's jump there (Newton restitution, the stick test, the Zeno rule), records
  the event, and continues from it to the same grid point — the grid never moves, so sample
  times stay ``t0 + k·dt_out`` and a split run equals one run.

All of it is one ``lax.while_loop`` per chunk of outputs (no Python stepping): each pass
either completes a step or records an event, so a run ends after at most (steps +
`max_events`) passes — a chattering contact cannot hang it; it fills the event buffer and
the run stops with a SimulationError naming the time and `max_events`.

The events are kept in a fixed-capacity buffer inside the loop state (capacity `max_events`,
default 10 000, a static size: a new value compiles a new program). ``Results.events`` lists
them: ``t`` [s], ``kind`` (:data:`~._event_host.EVENT_KINDS`), ``name`` (the host's contact
or law) and the state just after each event.

A batch (``simulate_batch(..., method="events")``, :func:`integrate_events_batch`) runs the
same pass vmapped over the stacked members inside one ``lax.while_loop`` that ends when
every member is done; a finished member idles, and each keeps its own event buffer and
count. The members move in lockstep: a pass in which any member meets an event runs the
root search for the members hit while the others wait, so a batch's loop makes as many
passes as its busiest member (a Zeno ball) and costs about that times the members.

Reverse-mode derivatives (``jax.grad``) do not pass a plain ``lax.while_loop``:
:func:`._event_gradient.event_trajectory` runs the same passes in equinox's checkpointed,
bounded loop, with each event time's derivative from the implicit-function theorem
(dτ/dp = −(∂g/∂p)/(∂g/∂t), not the unrolled search's); the loop here stays the plain one, so
``simulate`` pays nothing for it.

The compiled program depends on the model structure, the output capacity (a power of two)
and `max_events` only (and, for a batch, the number of members); `dt`, `dt_out` and `t_end` are traced data, so a new value of any of
them reuses it. The rest — chunked runs, the divergence guard, `initial=previous_results`,
`stream_to` — is the fixed-step route's (:func:`._runners._run_fixed_chunks`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from ..errors import ParameterError, SimulationError
from . import _program_store
from ._arguments import as_count
from ._dop853 import DOP853
from ._event_host import (
    EVENT_KINDS,
    EVENT_METHODS,
    AbstractEventHost,
    check_route,
    check_step_in_span,
)
from ._fixed_step import Segment
from ._grid import StepGrid, step_grid
from ._rk_step import rk_step

__all__ = ["EVENT_METHODS", "AbstractEventHost", "buffer_bytes", "check_route",
           "event_columns", "event_program", "integrate_events", "integrate_events_batch"]

DEFAULT_MAX_EVENTS = 10_000
_LOCATE_PASSES = 200          # root-find passes per event at most (bisection alone reaches
                              # 4 ulps of τ in ~52; the cap ends a search for τ → 0)
_EPS = float(np.finfo(float).eps)
_INSIDE = 8.0                 # ulps by which the end stages' times are moved into the step


def event_program(system, dynamic, static, t0: float, t_end: float, dt, dt_out,
                  options: dict, owner: str = "simulate", batched: bool = False
                  ) -> tuple[StepGrid, Callable, dict[str, Any]]:
    """Checks the route's step and options and returns ``(grid, run_chunk, meta)`` as
    :func:`._moreau_jean.time_stepping_program` does; ``run_chunk.events`` collects the
    located events chunk by chunk (:func:`event_columns` turns them into columns). `batched`:
    `system` is stacked (:func:`~stickslip.stack_systems`) and every chunk runs
    :func:`integrate_events_batch`; the events are kept per member."""
    if dt is None:
        raise ParameterError(f"method='events' needs the step `dt` [s] of its smooth phases "
                             f"(`{owner}.dt`); pass e.g. dt=1e-3. Events are located inside "
                             "a step to round-off; the smooth motion's error falls as dt⁸ "
                             "(free flight under constant forces is exact at any dt).")
    grid = step_grid(t0, t_end, dt, dt_out, owner=owner)
    check_step_in_span(owner, "events", grid.dt, grid.t0, grid.t_end)
    max_events = as_count(owner, "max_events", options.get("max_events", DEFAULT_MAX_EVENTS))
    located = _Located(system, max_events, owner, batched)
    meta: dict[str, Any] = {"max_events": max_events}
    kernel = integrate_events_batch if batched else integrate_events

    def run_chunk(capacity, t_start, x, seg):
        xs, outputs, found = _program_store.call(kernel, (static, capacity, max_events),
                                                 (dynamic, np.float64(t_start), x, seg))
        located.add(found)
        meta["events"] = located.count
        return xs, outputs, None

    run_chunk.events = located
    return grid, run_chunk, meta


def buffer_bytes(system, max_events: int, members: int = 1) -> float:
    """The event buffer's bytes (time, kind, mode, the states just before and after each
    event), on the device and here, for the memory check."""
    return members * 2 * max_events * (2 * len(system.state_names) + 3) * 8


class _Located:
    """The events of a run (of each member of a batch), gathered chunk by chunk; refuses a
    run that overflowed, naming the batch member."""

    def __init__(self, system, max_events: int, owner: str, batched: bool = False):
        self.system, self.max_events, self.owner = system, max_events, owner
        self.batched = batched
        self.parts: dict[int, list] = {}        # member (0 for a single run): its chunks
        self.counts: dict[int, int] = {}

    @property
    def count(self):
        """The events so far: a number (a single run) or one per member (a batch)."""
        if not self.batched:
            return self.counts.get(0, 0)
        return [self.counts[i] for i in sorted(self.counts)]

    def add(self, found) -> None:
        found = [np.asarray(a) for a in found]
        if not self.batched:
            self._add_member(None, found)
            return
        for i in range(found[0].shape[0]):
            self._add_member(i, [a[i] for a in found])

    def _add_member(self, member, found) -> None:
        ts, kinds, xs, n, overflow, t_stop, x_stop, modes, before = found
        n, key = int(n), member or 0
        count = self.counts.get(key, 0)
        if bool(overflow) or count + n > self.max_events:
            state = dict(zip(self.system.state_names, x_stop.tolist()))
            shown = ", ".join(f"{k}={v:.6g}" for k, v in state.items())
            who = "" if member is None else f" (batch member {member})"
            raise SimulationError(
                f"{type(self.system).__name__}{who}: more than max_events={self.max_events} "
                f"events by t={float(t_stop):.9g} s ({shown}) under method='events'. Raise "
                f"`{self.owner}.max_events`, shorten the run, or look for a contact that "
                "chatters (a load that keeps the friction exactly at its level).",
                time=float(t_stop), state=state)
        self.parts.setdefault(key, []).append((ts[:n], kinds[:n], xs[:n], modes[:n],
                                               before[:n]))
        self.counts[key] = count + n


def event_columns(system, located: _Located | None) -> dict[str, np.ndarray]:
    """The columns of ``Results.events``: ``t``, ``kind``, ``name`` and the state channels
    after each event (for a host with ``event_details``, also ``mode`` after it and the state
    just before it, ``<channel>_before``); empty (with the same columns) for a route without
    events. A batch's table starts with a ``member`` column (the member index), its rows by
    member, then by time."""
    names = list(system.state_names)
    members = [] if located is None else sorted(located.parts)
    parts = [] if located is None else [p for i in members for p in located.parts[i]]
    ts = np.concatenate([p[0] for p in parts]) if parts else np.zeros(0)
    kinds = np.concatenate([p[1] for p in parts]) if parts else np.zeros(0, int)
    xs = np.concatenate([p[2] for p in parts]) if parts else np.zeros((0, len(names)))
    label = system.event_name if isinstance(system, AbstractEventHost) else ""
    columns = {}
    if located is not None and located.batched:
        columns["member"] = np.repeat(members, [sum(len(p[0]) for p in located.parts[i])
                                                for i in members]).astype(int)
    columns.update({"t": ts, "kind": np.array([EVENT_KINDS[k] for k in kinds], dtype=object),
                    "name": np.array([label] * len(ts), dtype=object)})
    columns.update({name: xs[:, i] for i, name in enumerate(names)})
    if isinstance(system, AbstractEventHost) and system.event_details:
        modes = np.concatenate([p[3] for p in parts]) if parts else np.zeros(0, int)
        before = np.concatenate([p[4] for p in parts]) if parts else np.zeros((0, len(names)))
        columns["mode"] = modes
        columns.update({f"{name}_before": before[:, i] for i, name in enumerate(names)})
    return columns


# --- the kernel ---------------------------------------------------------------------------

def _ulp(t):
    """The spacing of float64 above `t` [s]: a constant for derivatives (nextafter has no
    differentiation rule)."""
    t = jax.lax.stop_gradient(t)
    return jnp.nextafter(t, jnp.inf) - t


def _stepper(system):
    """``step(t, x, h, mode)``: one DOP853 step of the mode's ODE; the stages at the step's
    ends see time-dependent loads `_INSIDE` ulps inside the step (module docstring)."""
    def step(t, x, h, mode):
        t_b = t + h
        first = t + _INSIDE * _ulp(t)
        last = t_b - _INSIDE * _ulp(t_b)
        middle = t + 0.5 * h

        def field(tau, y):
            inside = jnp.where(first < last, jnp.clip(tau, first, last), middle)
            return system.event_field(inside, y, mode)

        # the stages in a loop: the field is traced once per call site (1.1 s cold compile
        # against 2.0 s unrolled, and no slower per step for the 1-D hosts)
        return rk_step(field, DOP853, t, x, h, stages_in_loop=True)

    return step


def _locate(system, step, t, x, mode, h, x_end, g_end, active=True):
    """The crossing τ ∈ (0, h] of the guard after a step of length h from (t, x) ended
    below 0, and the state there, just past it: ``(τ, x(τ))`` (module docstring). A
    search that is not `active` (a batch member without an event in this pass) ends at
    once."""
    def guard(s, y):
        return system.event_guard(s, y, mode)

    g0 = guard(t, x)
    _, slope = jax.jvp(guard, (t, x), (jnp.ones_like(t), system.event_field(t, x, mode)))
    divided = g0 <= 0.0                   # starts on the boundary: search g(τ)/τ instead

    def value(tau, g):
        return jnp.where(divided, g / tau, g)

    def unfinished(c):
        lo, hi, *_, passes = c
        return active & (hi - lo > 4.0 * _EPS * hi) & (passes < _LOCATE_PASSES)

    def one_pass(c):
        lo, hi, v_lo, v_hi, x_hi, side, passes = c
        tol = 2.0 * _EPS * hi
        middle = 0.5 * (lo + hi)
        secant = (lo * v_hi - hi * v_lo) / (v_hi - v_lo)
        m = jnp.where((v_lo > 0.0) & jnp.isfinite(secant), secant, middle)
        m = jnp.clip(m, lo + tol, hi - tol)      # a step of at least tol (Brent)
        x_m = step(t, x, m, mode)
        v_m = value(m, guard(t + m, x_m))
        below = v_m < 0.0
        # Illinois: halve the value at the end kept twice in a row
        v_lo = jnp.where(below, jnp.where(side < 0, 0.5 * v_lo, v_lo), v_m)
        v_hi = jnp.where(below, v_m, jnp.where(side > 0, 0.5 * v_hi, v_hi))
        return (jnp.where(below, lo, m), jnp.where(below, m, hi), v_lo, v_hi,
                jnp.where(below, x_m, x_hi), jnp.where(below, -1, 1), passes + 1)

    late = g0 < 0.0                       # already past the boundary: the event is at t
    start = (jnp.zeros_like(h), jnp.where(late, 0.0, h), jnp.where(divided, slope, g0),
             value(h, g_end), jnp.where(late, x, x_end), jnp.asarray(0), jnp.asarray(0))
    _, tau, *_, x_tau, _, _ = jax.lax.while_loop(unfinished, one_pass, start)
    return tau, x_tau


def _total(seg: Segment):
    """The steps of a chunk: whole steps, then the shortened last one where there is one."""
    return (seg.n_valid - 1) * seg.n_sub + seg.n_last + (seg.h_last > 0)


def _start(system, t0, x0, capacity: int, max_events: int):
    """The loop state of one run (one member) at the start of a chunk."""
    mode0 = jnp.asarray(system.event_mode(t0, x0), dtype=jnp.int32)
    return {"t": jnp.asarray(t0, float), "x": x0, "mode": mode0, "j": jnp.asarray(0),
            "n": jnp.asarray(0), "overflow": jnp.asarray(False),
            "ev_t": jnp.zeros(max_events), "ev_kind": jnp.zeros(max_events, jnp.int32),
            "ev_x": jnp.zeros((max_events, x0.shape[0])),
            "ev_mode": jnp.zeros(max_events, jnp.int32),
            "ev_before": jnp.zeros((max_events, x0.shape[0])),
            "out_x": jnp.broadcast_to(x0, (capacity + 1, x0.shape[0])),
            "out_mode": jnp.full(capacity + 1, mode0)}


def _running(c, total):
    return (c["j"] < total) & ~c["overflow"]


def _pass(system, t0, seg: Segment, capacity: int, max_events: int, c, active,
          locate=None):
    """One pass of the loop: a step to the next grid point, or the event inside it. A run
    that is not `active` (a batch member already done) keeps its state and writes nothing.
    `locate` replaces the root search (:func:`._event_gradient.locate_differentiable`, the
    event time with its implicit-function derivative); default :func:`_locate`."""
    locate = _locate if locate is None else locate
    step = _stepper(system)
    total = _total(seg)
    t, x, mode, j = c["t"], c["x"], c["mode"], c["j"]
    t_b = jnp.where(j == total - 1, seg.t_last, t0 + (j + 1) * seg.dt)
    h = t_b - t
    x_b = step(t, x, h, mode)
    g_b = system.event_guard(t_b, x_b, mode)
    hit = active & (g_b < 0.0)

    # only small values pass through the cond: a branch that carried the buffers would
    # copy them on every pass (measured 50 µs a step for 2¹⁵ samples). In a batch (vmap)
    # the cond is a select: both branches run, and the search runs for the members hit only
    def on_event(_):
        tau, x_e = locate(system, step, t, x, mode, h, x_b, g_b, hit)
        # at the step's end exactly t_b (τ = h, so the sum adds 0 and keeps dτ + dt)
        t_e = jnp.where(tau >= h, t_b + (tau - h), t + tau)
        x_new, mode_new, kind = system.event_jump(t_e, x_e, mode)
        return (t_e, x_new, jnp.asarray(mode_new, jnp.int32), j,
                jnp.asarray(kind, jnp.int32), x_e)

    def on_step(_):
        return (t_b, system.event_settle(t_b, x_b, mode), mode, j + 1,
                jnp.asarray(-1, jnp.int32), x_b)

    t_n, x_n, mode_n, j_n, kind, x_pre = jax.lax.cond(hit, on_event, on_step, None)
    t_n, x_n, mode_n, j_n = (jnp.where(active, new, old) for new, old in
                             ((t_n, t), (x_n, x), (mode_n, mode), (j_n, j)))
    event = active & (kind >= 0)
    k = c["n"]
    full = event & (k >= max_events)
    row = jnp.where(event & ~full, k, max_events)            # past the end: dropped
    last = j == total - 1
    sampled = active & ~event & (last | ((j + 1) % seg.n_sub == 0))
    slot = jnp.where(sampled, jnp.where(last, seg.n_valid, (j + 1) // seg.n_sub),
                     capacity + 1)
    return {"t": t_n, "x": x_n, "mode": mode_n, "j": j_n,
            "n": k + (event & ~full), "overflow": c["overflow"] | full,
            "ev_t": c["ev_t"].at[row].set(t_n, mode="drop"),
            "ev_kind": c["ev_kind"].at[row].set(kind, mode="drop"),
            "ev_x": c["ev_x"].at[row].set(x_n, mode="drop"),
            "ev_mode": c["ev_mode"].at[row].set(mode_n, mode="drop"),
            "ev_before": c["ev_before"].at[row].set(x_pre, mode="drop"),
            "out_x": c["out_x"].at[slot].set(x_n, mode="drop"),
            "out_mode": c["out_mode"].at[slot].set(mode_n, mode="drop")}


def _finish(system, t0, seg: Segment, capacity: int, end):
    """``(xs, outputs, found)`` of one run (one member) from its final loop state."""
    index = jnp.arange(capacity + 1)
    ts = jnp.where(index == seg.n_valid, seg.t_last, t0 + index * (seg.n_sub * seg.dt))
    # a loop, not a vmap, as the other routes' samples (_fixed_step._samples)
    outputs = jax.lax.map(lambda a: system.event_outputs(*a), (ts, end["out_x"],
                                                               end["out_mode"]))
    found = (end["ev_t"], end["ev_kind"], end["ev_x"], end["n"], end["overflow"], end["t"],
             end["x"], end["ev_mode"], end["ev_before"])
    return end["out_x"], outputs, found


def integrate_events(static, capacity: int, max_events: int, dynamic, t0, x0, seg: Segment):
    """One chunk of the route: ``seg.n_valid`` outputs in `capacity` slots, and the events
    located on the way. Returns ``(xs, outputs, found)`` with ``found = (times, kinds,
    states, count, overflowed, t_stop, x_stop, modes, states_before)`` (buffers of
    `max_events` rows: the state and mode after each event, the state just before it). Static
    arguments first (what :func:`._program_store.call` compiles once per model structure,
    output capacity and `max_events`)."""
    system = eqx.combine(dynamic, static)
    total = _total(seg)
    end = jax.lax.while_loop(
        lambda c: _running(c, total),
        lambda c: _pass(system, t0, seg, capacity, max_events, c, jnp.asarray(True)),
        _start(system, t0, x0, capacity, max_events))
    return _finish(system, t0, seg, capacity, end)


def integrate_events_batch(static, capacity: int, max_events: int, dynamic, t0, x0,
                           seg: Segment):
    """:func:`integrate_events` for a stacked batch (a leading member axis on every array
    leaf of `dynamic`, on `x0` and on every result): one compiled program for the batch.
    One ``lax.while_loop`` whose pass is the member pass vmapped; it runs until every member
    is done, a finished (or overflowed) member idling in place, so the buffers are written
    where they lie (vmapping the loop itself would select between whole buffers each pass).
    """
    def member(d):
        return eqx.combine(d, static)

    total = _total(seg)
    start = jax.vmap(lambda d, x: _start(member(d), t0, x, capacity, max_events))(dynamic, x0)

    def one_pass(c):
        return jax.vmap(lambda d, c: _pass(member(d), t0, seg, capacity, max_events, c,
                                           _running(c, total)))(dynamic, c)

    end = jax.lax.while_loop(lambda c: jnp.any(_running(c, total)), one_pass, start)
    return jax.vmap(lambda d, e: _finish(member(d), t0, seg, capacity, e))(dynamic, end)
