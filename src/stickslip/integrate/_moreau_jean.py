"""The time-stepping route ``simulate(..., method="moreau_jean")`` (issue 21, item 1).

Moreau–Jean time stepping (Moreau 1988; Jean 1999; Acary & Brogliato 2008, ch. 10): each
step of length h solves the *discrete* inclusion of the whole step at once — the momentum
balance over the step with the contact and friction impulses as unknowns — instead of
integrating a force. Friction and impacts are fully implicit and solved exactly, in closed
form, by the projections of SPEC §1 (theorem (4) for friction, the seed 001 backward-Euler
step of SPEC §6; theorem (5) at the velocity level for a Newton impact). So:

* a contact that sticks has its relative velocity exactly 0 at the end of every stuck step:
  no drift at all, at any h (no proxy spring, nothing of order F/K);
* a unilateral contact is never approached at the end of a step where it is active (the
  velocity-level Signorini condition with Newton's restitution), and a Zeno accumulation of
  bounces ends in exact rest;
* the smooth forces (springs, dampers, applied loads) use the θ-method: a host evaluates its
  state-dependent forces at ``θ·(end of step) + (1 − θ)·(start)`` (linearised at the start,
  as Moreau–Jean does), and time-dependent loads by their impulse over the step
  (:func:`impulse`, 5-point Gauss–Legendre: exact to round-off for smooth loads at the
  usual steps, and exact for piecewise loads whose jumps fall on step boundaries). Positions
  follow ``q⁺ = q + h·(θ·v⁺ + (1 − θ)·v)``. θ = 1/2 (the default) keeps a free linear
  oscillator's energy exactly; θ ∈ [1/2, 1] is unconditionally stable.

The route shares everything else with the fixed-step ODE route: the output grid
(:func:`step_grid`: the last step is shortened so the run ends exactly at ``t_end``), one
jitted ``lax.scan`` over output samples with a ``fori_loop`` of steps inside (one compiled
program per model structure and output capacity; `dt`, `dt_out`, `t_end` and θ are traced
data), the chunked runner, the divergence guard, :class:`~stickslip.Results` with the
ODE route's channel names and units, ``initial=previous_results`` continuation and
:func:`~stickslip.simulate_batch`.

Hosts opt in by subclassing :class:`AbstractTimeSteppingHost` (module
:mod:`._moreau_jean_host`, with the route check and the load impulse; see its docstring for
the contract). A host declares which routes each instance supports (a ``FrictionMass`` with a
``LuGre`` law has no set-valued form; a ``ContactMass`` with ``NewtonImpact`` has no ODE),
and ``stickslip.integrate._event_host.check_route`` (every route's check) refuses the
others before anything is traced.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from .._compile.traced_once import traced_once
from ..errors import ParameterError
from . import _program_store
from ._arguments import as_real
from ._event_host import check_step_in_span
from ._fixed_step import Segment, sample_loop
from ._grid import StepGrid, step_grid
from ._moreau_jean_host import (
    ODE_METHODS,
    TIME_STEPPING_METHODS,
    AbstractTimeSteppingHost,
    impulse,
)

__all__ = [
    "ODE_METHODS",
    "TIME_STEPPING_METHODS",
    "AbstractTimeSteppingHost",
    "check_theta",
    "impulse",
    "integrate_moreau_jean",
    "integrate_moreau_jean_batch",
    "time_stepping_program",
]

def check_theta(options: dict, owner: str = "simulate") -> float:
    """The option ``theta`` (default 0.5) as a float in [0, 1]."""
    theta = as_real(owner, "theta", options.get("theta", 0.5),
                    hint="Pass theta in [0, 1] (0.5: trapezoidal, 1: backward Euler).")
    if not 0.0 <= theta <= 1.0:
        raise ParameterError(f"`{owner}.theta` must be in [0, 1]; got theta={theta!r}. Pass "
                             "0.5 (trapezoidal, the default) or up to 1 (backward Euler, "
                             "more damping).")
    return theta


def time_stepping_program(system, dynamic, static, t0: float, t_end: float, dt, dt_out,
                          options: dict, owner: str = "simulate", batched: bool = False
                          ) -> tuple[StepGrid, Callable, dict[str, Any]]:
    """Checks the route's step and options and returns ``(grid, run_chunk, meta)``: the
    output grid (:func:`step_grid`, as the fixed-step ODE route's), ``run_chunk(capacity,
    t_start, x, seg) -> (xs, outputs, energy)`` — one chunk of outputs through the program
    store — and the route's entries of the Results metadata."""
    if dt is None:
        raise ParameterError(f"method='moreau_jean' needs the time step `dt` [s] "
                             f"(`{owner}.dt`); pass e.g. dt=1e-3. Friction and impacts are "
                             "exact at any step; the smooth motion's error falls as dt².")
    grid = step_grid(t0, t_end, dt, dt_out, owner=owner)
    theta = check_theta(options, owner)
    check_step_in_span(owner, "moreau_jean", grid.dt, grid.t0, grid.t_end)
    system.check_time_step(grid.dt)
    kernel = integrate_moreau_jean_batch if batched else integrate_moreau_jean
    theta_arg = np.float64(theta)

    def run_chunk(capacity, t_start, x, seg):
        return _program_store.call(kernel, (static, capacity),
                                   (dynamic, np.float64(t_start), x, seg, theta_arg))

    return grid, run_chunk, {"theta": theta}


def _integrate_padded(dynamic, static, t0, x0, seg: Segment, theta, capacity: int):
    """One loop over every step of the call, each step writing its state and forces into
    the slot of its output (the last step of an output interval writes it last), as the
    fixed-step ODE route does (:func:`._fixed_step._integrate_padded`, whose docstring says
    why: a scan over outputs holding a loop of steps runs operation by operation on XLA's
    CPU runtime — here 0.7 µs per output sample, 7× the step itself for AP1 sampled every
    step at h = 1e-4); the outputs are then computed for the valid samples only."""
    system = eqx.combine(dynamic, static)
    step = traced_once(system.moreau_jean_step)
    short = (seg.n_valid - 1) * seg.n_sub + seg.n_last      # the short final step's number
    n_steps = short + (seg.h_last > 0)
    per_output = 1.0 / seg.n_sub.astype(seg.dt.dtype)     # see _fixed_step._integrate_padded
    # the forces reported at the start of the run are those of its first step, which the
    # loop computes anyway: the step is traced for its shapes only and compiled once (a
    # separate first step doubled the program — a 3-D link system's first call 14–18 s)
    force_shapes = jax.eval_shape(step, t0, x0, seg.dt, theta)[1]
    zero_forces = jax.tree.map(lambda a: jnp.zeros(a.shape, a.dtype), force_shapes)

    def slots_of(value):
        return jnp.zeros((capacity + 1, *value.shape), value.dtype).at[0].set(value)

    def body(s, carry):
        x, f_before, xs, forces = carry
        t, h = t0 + s * seg.dt, jnp.where(s == short, seg.h_last, seg.dt)
        if system.warm_start:   # the previous step's forces: the carry holds them anyway
            x, f = step(t, x, h, theta, previous=f_before)
        else:
            x, f = step(t, x, h, theta)
        slot = jnp.floor((s.astype(seg.dt.dtype) + 0.5) * per_output).astype(s.dtype) + 1
        put = lambda slots, v: jax.lax.dynamic_update_slice_in_dim(  # noqa: E731
            slots, v[None], slot, 0)
        first = lambda slots, v: jax.lax.dynamic_update_slice_in_dim(  # noqa: E731
            slots, jnp.where(s == 0, v, slots[0])[None], 0, 0)
        forces = jax.tree.map(lambda slots, v: put(first(slots, v), v), forces, f)
        return x, f, put(xs, x), forces

    start = (x0, zero_forces, slots_of(x0), jax.tree.map(slots_of, zero_forces))
    x, f, xs, forces = jax.lax.fori_loop(0, n_steps, body, start)
    index = jnp.arange(capacity + 1)
    pad = index > seg.n_valid                              # padding slots: the last sample
    xs = jnp.where(pad.reshape(-1, *(1,) * x0.ndim), x, xs)
    forces = jax.tree.map(lambda slots, last: jnp.where(
        pad.reshape(-1, *(1,) * last.ndim), last, slots), forces, f)
    ts = jnp.where(index == seg.n_valid, seg.t_last, t0 + index * (seg.n_sub * seg.dt))

    @traced_once
    def sample(t, x, f):
        return system.moreau_jean_outputs(t, x, f), system.passive_energy(t, x)

    outputs, energy = sample_loop(sample, (ts, xs, forces), seg.n_valid)
    return xs, outputs, energy


def integrate_moreau_jean(static, capacity: int, dynamic, t0, x0, seg: Segment, theta):
    """One chunk of the route: ``seg.n_valid`` outputs in `capacity` slots (slots after it
    repeat the last state). Returns ``(xs, outputs, energy)`` as the ODE route's
    :func:`~stickslip.integrate._fixed_step.integrate_padded`. Static arguments first (what
    :func:`._program_store.call` compiles once per model structure)."""
    return _integrate_padded(dynamic, static, t0, x0, seg, theta, capacity)


def integrate_moreau_jean_batch(static, capacity: int, dynamic, t0, x0, seg: Segment, theta):
    """:func:`integrate_moreau_jean` for a stacked batch (leading member axis on every array
    leaf of `dynamic` and on `x0`): one compile for the whole batch."""
    return jax.vmap(lambda d, x: _integrate_padded(d, static, t0, x, seg, theta, capacity))(
        dynamic, x0)

