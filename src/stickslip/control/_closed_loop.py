"""Closed-loop simulation: a sampled controller, zero-order hold, a continuous plant."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from .._validation import check_positive
from ..errors import ParameterError, SimulationError
from ..integrate import (
    FIXED_STEP_METHODS,
    call_program,
    check_divergence,
    largest_stable_step,
    rk_step,
    step_grid,
)
from ..results import Results
from ._controllers import AbstractController, _StatefulController
from ._loop_options import loop_options, loop_substeps, save_stream
from ._plants import AbstractPlant, ActuatedSystem

if TYPE_CHECKING:
    from ..integrate import Guard, Output, Steps

__all__ = ["simulate_closed_loop"]


def simulate_closed_loop(plant: AbstractPlant, controller, t_end: float,
                         reference: float | Callable = 0.0, *, dt: float | None = None,
                         method: str = "rk4", dt_out: float | None = None,
                         t0: float | None = None, initial: Any = None,
                         output: Output | None = None, guard: Guard | None = None,
                         steps: Steps | None = None, progress: bool | None = None,
                         substeps: int | None = None, noise: float = 0.0, seed: int = 0,
                         **options: Any) -> Results:
    """Run `controller` against `plant`, sampled every ``controller.T`` with zero-order hold.

    At each sample t_k = t0 + kT the controller reads the reference p_d(t_k) and the
    measured position ``plant.measure(t_k, x_k)``, returns the force u_k, and the plant is
    integrated over [t_k, t_k + T] with u_k held, by the core's fixed-step Runge–Kutta
    (`method`, `substeps` steps per sample), honouring the plant's ``projects_after_step``
    and ``trace_stages_once`` capabilities.

    Parameters
    ----------
    plant : AbstractPlant
        an :class:`~stickslip.control.AbstractPlant` (``MassPlant``, ``SingleLinkArm``,
        ``ActuatedSystem(FrictionMass(...))``, or a multi-input ``MechanismPlant`` — a
        planar arm with one actuator per joint: u, the reference and the measurement are
        then vectors, one entry per input, and each joint has its own controller: the
        controller's gains are scalars (the same for every joint) or arrays of shape
        ``(n_inputs,)``, one per joint).
    controller
        a controller parameter module (``PSMCParams``, ``PIDParams``,
        ``NaiveSMCParams``, ``RenderedFrictionParams``) or its stateful wrapper (``PSMC``, …;
        only its parameters are used, its state is left alone) — or a list of controllers
        of one type and one T that differ in gains: one compiled, vmapped run, and every
        channel gets a leading member axis (``res.member(i)``).
    t_end : float
        end time [s].
    reference : float or callable, optional
        p_d [m or rad], a constant or a ``jax.numpy`` callable of t [s]; for a
        multi-input plant a constant or callable of shape ``(n_inputs,)`` (a scalar applies
        to every input).
    dt : float, optional
        integrator step [s]: T/dt whole steps per sample (the same as ``substeps=T/dt``).
    method : str, optional
        ``"rk4"``, ``"rk_gill"`` or ``"euler"``.
    dt_out : float, optional
        the controller's sample period T (the loop samples at T), or None.
    t0 : float, optional
        start time [s] (default 0, or the end of `initial` when that is a Results).
    initial : array_like or Results, optional
        the plant's start state, or Results of this plant to continue from (their
        ``final_state``); default ``plant.initial_state()``.
    output, guard, steps, progress
        ``ss.simulate``'s option objects, or their flat keywords in `options`:
        ``Output(stream_to=…)`` writes the Results at the end, ``Guard(max_state=…)`` sets
        the divergence guard, ``Steps(check=True)`` refuses an unstable `dt`; what the
        sampled loop cannot honour (``Output.chunk``, ``progress=True``, the other
        ``Steps`` fields) is refused by name (:mod:`stickslip.control._loop_options`).
    substeps : int, optional
        integrator steps per sample (default: enough for the plant's stiffest mode
        to be stable, at least 1); `dt` says the same in seconds.
    noise : float, optional
        standard deviation of white Gaussian noise added to each measurement [m or rad]
        (default 0; independent per input); `seed` seeds it. The noisy value is what the
        controller sees (channel ``measured``).

    Returns
    -------
    Results
        Results sampled at t_k (the core's output grid, ``stickslip.integrate.step_grid``: the
        last sample is exactly `t_end`; a last interval shorter than T holds its force for what
        is left) with the plant states, the plant's outputs, ``u`` (the held
        actuator force from t_k on), ``p_d``, ``measured`` (what the controller saw) and the
        controller's extras (``proxy`` for PSMC). A multi-input plant's outputs are computed
        with the held input, and its per-input channels are named ``<input>.u``,
        ``<input>.p_d``, ``<input>.measured`` and ``<input>.proxy``.

    Raises
    ------
    ParameterError
        bad plant, controller, reference, method or substeps; a `t_end` or `t0`
        that is not finite, or `t_end` not after `t0` (checked first, by the core's
        ``stickslip.integrate.check_time_arguments``: ``simulate_closed_loop.t_end``).
    SimulationError
        the run diverged — the plant state or the force became NaN/inf or grew
        past the core guard's ``max_state`` (a finite blow-up; ``check_divergence``); the
        message names the sample k, its time and the last sane state.
    """
    # the core's step and span check, before the controllers are stacked or anything compiles
    run = loop_options("simulate_closed_loop", plant, t_end, dt=dt, dt_out=dt_out, t0=t0,
                       initial=initial, output=output, guard=guard, steps=steps,
                       progress=progress, options=options)
    t0, t_end = run.t0, run.t_end
    check_substeps("simulate_closed_loop", substeps)
    controller, members = _controllers(controller)
    if not isinstance(plant, AbstractPlant):
        raise ParameterError(f"`plant` must be a control plant (MassPlant, SingleLinkArm, "
                             f"ActuatedSystem); got {type(plant).__name__}.")
    if method not in FIXED_STEP_METHODS:
        raise ParameterError(f"unknown `method` {method!r}; closed-loop runs use a fixed-step "
                             f"method: {list(FIXED_STEP_METHODS)}.")
    T = _sample_period(controller)                       # one T for a whole batch
    substeps = loop_substeps("simulate_closed_loop", plant, method, T, substeps, run)
    names = plant.input_names
    _check_gain_shapes(controller, members, plant)
    substeps, grid, ts, per_sample, partial = sample_grid("simulate_closed_loop", plant, method, T,
                                                     t0, t_end, substeps)
    n = grid.n_out
    shape = () if names is None else (len(names),)
    refs = _reference_samples(reference, ts, shape)
    if not (np.isfinite(noise) and noise >= 0):
        raise ParameterError(f"`noise` must be a finite standard deviation >= 0; got {noise}.")
    noise_samples = float(noise) * np.random.default_rng(seed).standard_normal((n + 1,
                                                                                *shape))
    dynamic, static = eqx.partition((plant, controller), eqx.is_array)
    args = (jnp.asarray(t0), jnp.asarray(refs), jnp.asarray(noise_samples),
            jnp.asarray(per_sample), jnp.asarray(partial),
            plant.initial_state() if run.x0 is None else jnp.asarray(run.x0))
    start = time.perf_counter()
    if members is None:
        xs, us, extras = call_program(closed_loop_kernel, (static, substeps, method),
                                             (dynamic, *args))
    else:
        xs, us, extras = call_program(closed_loop_batch_kernel,
                                             (static, substeps, method),
                                             (dynamic[0], dynamic[1], *args))
    wall = time.perf_counter() - start
    xs, us = np.asarray(xs), np.asarray(us)
    for m in [None] if members is None else range(members):
        _check_divergence(plant, ts, xs if m is None else xs[m], us if m is None else us[m],
                          member=m, guard=run.guard)
    channels = {name: xs[..., i] for i, name in enumerate(plant.state_names)}
    outputs = call_program(outputs_kernel, (static[0],),
                                  (dynamic[0], jnp.asarray(ts), jnp.asarray(xs),
                                   jnp.asarray(us)))
    channels.update({name: np.asarray(v) for name, v in outputs.items()})
    signals = {"u": us, "p_d": refs if members is None else
               np.broadcast_to(refs, us.shape).copy(),
               **{name: np.asarray(v) for name, v in extras.items()}}
    units = dict(plant.units)
    if names is None:
        channels.update(signals)
        position_unit = units.get(plant.state_names[0], "m")
        units.update(u="N·m" if position_unit == "rad" else "N", p_d=position_unit,
                     proxy=position_unit, measured=position_unit)
    else:
        for i, name in enumerate(names):
            position_unit, effort_unit = plant.measured_units[i], plant.input_units[i]
            for signal, values in signals.items():
                channels[f"{name}.{signal}"] = values[..., i]
                units[f"{name}.{signal}"] = effort_unit if signal == "u" else position_unit
    meta = {"system": type(plant).__name__, "controller": type(controller).__name__,
            "batch_size": members,
            "method": method, "T": T, "substeps": substeps, "noise": float(noise),
            "seed": seed, "dt": T / substeps, "t0": t0,
            "t_end": float(t_end), "wall_time": wall, "parameters": plant.parameters(),
            "controller_parameters": {k: np.asarray(v).tolist()
                                      for k, v in vars(controller).items() if v is not None}}
    return save_stream(Results(ts, channels, units=units, meta=meta,
                               final_state=xs[..., -1, :]), run)


def check_substeps(owner, substeps):
    """`substeps` (integrator steps per sample) is None or a whole number >= 1."""
    if substeps is None:
        return
    check_positive(owner, "substeps", substeps,
                   "Pass a whole number of integrator steps per sample (>= 1).")
    if isinstance(substeps, bool) or int(substeps) != substeps:
        raise ParameterError(f"`{owner}.substeps` must be a whole number of integrator steps "
                             f"per sample (>= 1); got substeps={substeps!r}.")


def sample_grid(owner, plant, method, T, t0, t_end, substeps):
    """The sampled loop's grid, shared by the compiled and the host loop: ``(substeps, grid,
    ts, steps, partial)`` — samples every T, the last exactly at t_end (a shorter last
    interval: n_last whole steps and a partial step h_last, the input held as before);
    `substeps` None chooses enough for the plant's stiffest mode (at least 1)."""
    if substeps is None:
        limit = largest_stable_step(plant, method)
        substeps = 1 if not math.isfinite(limit) else max(1, math.ceil(T / (0.9 * limit)))
    substeps = int(substeps)
    grid = step_grid(t0, t_end, T / substeps, T, owner=owner)
    n = grid.n_out
    ts = t0 + np.arange(n + 1) * T
    ts[-1] = float(t_end)
    steps = np.full(n + 1, substeps)
    partial = np.zeros(n + 1)
    steps[n - 1], partial[n - 1] = grid.n_last, grid.h_last
    return substeps, grid, ts, steps, partial


def _controllers(controller):
    """One controller, or a list of same-type controllers stacked for a batch run."""
    many = isinstance(controller, (list, tuple))
    items = list(controller) if many else [controller]
    if not items:
        raise ParameterError("`controller` is an empty list; pass at least one controller.")
    items = [c.params if isinstance(c, _StatefulController) else c for c in items]
    for i, c in enumerate(items):
        if not isinstance(c, AbstractController):
            raise ParameterError(f"`controller` must be PSMC, PID, NaiveSMC, RenderedFriction "
                                 f"or their Params modules (or a list of them); got "
                                 f"{type(c).__name__}" + (f" at index {i}." if many else "."))
    if not many:
        return items[0], None
    first = items[0]
    for i, c in enumerate(items[1:], start=1):
        if type(c) is not type(first) or float(c.T) != float(first.T) or \
                [v is None for v in vars(c).values()] != [v is None for v in vars(first).values()]:
            raise ParameterError(
                f"controller {i} of the batch differs from controller 0 in type, sample period "
                "T or optional fields; a batch may only vary gains. Run different kinds or "
                "periods separately.")
    return jax.tree.map(lambda *leaves: jnp.stack(leaves), *items), len(items)


def _sample_period(controller) -> float:
    """The one sample period of a controller (or a stacked batch), refusing per-joint
    periods that differ."""
    periods = np.ravel(np.asarray(controller.T, dtype=float))
    if np.any(periods != periods[0]):
        raise ParameterError(f"`{type(controller).__name__}.T` must be one sample period for "
                             f"every joint and member; got T={periods.tolist()}. Sample every "
                             "joint at the same rate.")
    return float(periods[0])


def _check_gain_shapes(controller, members, plant):
    """Gains are scalars, or one per input of a multi-input plant (after a batch axis)."""
    names = plant.input_names
    allowed = [()] if names is None else [(), (len(names),)]
    lead = () if members is None else (members,)
    for field, value in vars(controller).items():
        shape = np.shape(value)[len(lead):] if eqx.is_array(value) else ()
        if shape not in allowed:
            per = ("a scalar" if names is None else
                   f"a scalar or one value per input {list(names)} (shape {allowed[1]})")
            raise ParameterError(
                f"`{type(controller).__name__}.{field}` has shape {shape}; for a "
                f"{type(plant).__name__} each gain must be {per}.")


def _reference_samples(reference, ts, shape=()):
    """p_d at the sample times: shape ``(n,)`` for a single-input plant, ``(n, n_in)`` for a
    multi-input one (a scalar reference is applied to every input)."""
    want = "a scalar" if not shape else f"a scalar or shape {shape} (one per input)"
    if callable(reference):
        try:
            refs = np.asarray(jax.vmap(reference)(jnp.asarray(ts)), dtype=float)
        except Exception as exc:
            raise ParameterError(f"`reference(t)` failed: {exc!r}. It must take the time t [s] "
                                 "and use jax.numpy.") from exc
        if refs.shape[1:] != shape and refs.shape[1:] != ():
            raise ParameterError(f"`reference(t)` must return {want}; got shape "
                                 f"{refs.shape[1:]}.")
    else:
        try:
            value = np.asarray(reference, dtype=float)
        except (TypeError, ValueError):
            raise ParameterError(f"`reference` must be a number, an array of shape {shape} or a "
                                 f"callable of t; got {type(reference).__name__}.") from None
        if value.shape not in ((), shape):
            raise ParameterError(f"`reference` must be {want}; got shape {value.shape}.")
        refs = np.broadcast_to(value, (*ts.shape, *value.shape)).astype(float)
    refs = np.broadcast_to(refs, (*ts.shape, *shape)).copy()
    if not np.all(np.isfinite(refs)):
        k = int(np.argmin(np.all(np.isfinite(refs.reshape(len(ts), -1)), axis=1)))
        raise ParameterError(f"`reference` is not finite at sample k={k} (t={ts[k]:g} s): "
                             f"{refs[k]}. Pass a finite reference.")
    return refs


def closed_loop_kernel(static, n_sub, method, dynamic, t0, refs, noise, steps, partial, x0):
    """The closed loop's compiled run, static arguments first: what
    :func:`simulate_closed_loop` hands to the program store (one trace per structure, kept
    across processes)."""
    return _run_impl(dynamic, static, t0, refs, noise, steps, partial, x0, n_sub, method)


def outputs_kernel(static, dynamic, ts, xs, us):
    """The plant's output channels at every sample with the held input (vmapped; over the
    batch members too when `xs` has a leading member axis)."""
    plant = eqx.combine(dynamic, static)
    one = jax.vmap(plant.controlled_outputs)
    return one(ts, xs, us) if xs.ndim == 2 else jax.vmap(lambda x, u: one(ts, x, u))(xs, us)


def closed_loop_batch_kernel(static, n_sub, method, dyn_plant, dyn_controllers, t0, refs,
                             noise, steps, partial, x0):
    """`closed_loop_kernel` for controllers stacked along a leading member axis."""
    return jax.vmap(lambda dc: _run_impl((dyn_plant, dc), static, t0, refs, noise, steps,
                                         partial, x0, n_sub, method))(dyn_controllers)


def hold(plant, method, n_sub, T, t, x, u, steps_k, partial_k):
    """The plant over one sample interval from t with the input u held (zero-order hold):
    ``steps_k`` Runge–Kutta steps of T/n_sub, then a partial step ``partial_k`` (non-zero
    only in a shorter last interval). Shared by the compiled loop and the host loop
    (:func:`~stickslip.control.simulate_host_loop`), so both integrate alike."""
    tableau = FIXED_STEP_METHODS[method]
    # the core's capabilities (of the wrapped system for ActuatedSystem): class variables,
    # or static fields read through a property (a planar system's ``projection``)
    inner = plant.system if isinstance(plant, ActuatedSystem) else plant
    looped, projects = bool(inner.trace_stages_once), bool(inner.projects_after_step)
    h = T / n_sub
    field = lambda tt, xx: plant.controlled_field(tt, xx, u)  # noqa: E731 (u held: ZOH)

    def substep(j, xx):
        xx = rk_step(field, tableau, t + j * h, xx, h, stages_in_loop=looped)
        return plant.project(t + (j + 1) * h, xx) if projects else xx
    x_next = jax.lax.fori_loop(0, steps_k, substep, x)
    t_whole = t + steps_k * h
    x_part = rk_step(field, tableau, t_whole, x_next, partial_k, stages_in_loop=looped)
    if projects:
        x_part = plant.project(t_whole + partial_k, x_part)
    return jnp.where(partial_k > 0, x_part, x_next)


def _run_impl(dynamic, static, t0, refs, noise, steps, partial, x0, n_sub, method):
    """Scan over the samples; interval k takes ``steps[k]`` steps of T/n_sub and then a
    partial step ``partial[k]`` (non-zero only in a shorter last interval)."""
    plant, controller = eqx.combine(dynamic, static)
    T = controller.T
    c0 = controller.init_state(refs[0], plant.measure(t0, x0) + noise[0])

    def sample(carry, k):
        x, c = carry
        t = t0 + k * T
        y = plant.measure(t, x) + noise[k]
        u, c = controller.update(c, refs[k], y)
        x_next = hold(plant, method, n_sub, T, t, x, u, steps[k], partial[k])
        return (x_next, c), (x, u, {"measured": y, **controller.extras(c, y)})

    _, (xs, us, extras) = jax.lax.scan(sample, (x0, c0), jnp.arange(refs.shape[0]))
    return xs, us, extras


def _check_divergence(plant, ts, xs, us, member=None, guard=None):
    """The core's divergence guard (NaN/inf, or a finite blow-up past ``Guard.max_state``) on
    the plant states and the held force; the error names the sample, its time and the last
    sane state, with the closed loop's own advice."""
    name = f"closed loop with {type(plant).__name__}"
    inputs = ("u",) if plant.input_names is None else tuple(f"{n}.u" for n in plant.input_names)
    try:
        check_divergence(name, (*plant.state_names, *inputs), ts,
                         np.concatenate([xs, us.reshape(len(ts), -1)], axis=-1), member=member,
                         **({} if guard is None else {"guard": guard}))
    except SimulationError as exc:
        if exc.time is None or exc.state is None:   # check_divergence names both
            raise
        k = int(np.searchsorted(ts, exc.time))
        what = str(exc).split(" diverged: ", 1)[1].split(" Last sane state: ")[0]
        shown = ", ".join(f"{key}={value:.6g}" for key, value in exc.state.items())
        who = name + ("" if member is None else f" (batch member {member})")
        raise SimulationError(
            f"{who} diverged at sample k={k} (t={ts[k]:.6g} s): {what} Last sane state: "
            f"{shown}. Check the controller gains against the plant (and the sample period), "
            "or raise `substeps`.", time=exc.time, state=exc.state) from None
