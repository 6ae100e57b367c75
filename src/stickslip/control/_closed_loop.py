"""Closed-loop simulation: a sampled controller, zero-order hold, a continuous plant."""

from __future__ import annotations

import math
import time
from typing import Callable

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from .._validation import check_positive
from ..errors import ParameterError, SimulationError
from ..integrate import check_divergence, largest_stable_step, step_grid
from ..integrate import _program_store
from ..integrate._fixed_step import rk_step
from ..integrate._tableaus import FIXED_STEP_METHODS
from ..results import Results
from ._controllers import AbstractController, _StatefulController
from ._plants import AbstractPlant, ActuatedSystem

__all__ = ["simulate_closed_loop"]


def simulate_closed_loop(plant: AbstractPlant, controller, t_end: float,
                         reference: float | Callable = 0.0, *, substeps: int | None = None,
                         method: str = "rk4", t0: float = 0.0, noise: float = 0.0,
                         seed: int = 0) -> Results:
    """Run `controller` against `plant`, sampled every ``controller.T`` with zero-order hold.

    At each sample t_k = t0 + kT the controller reads the reference p_d(t_k) and the
    measured position ``plant.measure(t_k, x_k)``, returns the force u_k, and the plant is
    integrated over [t_k, t_k + T] with u_k held, by the core's fixed-step Runge–Kutta
    (`method`, `substeps` steps per sample), honouring the plant's ``projects_after_step``
    and ``trace_stages_once`` capabilities.

    Parameters
    ----------
    plant: an :class:`~stickslip.control.AbstractPlant` (``MassPlant``, ``SingleLinkArm``,
        ``ActuatedSystem(FrictionMass(...))``).
    controller: a controller parameter module (``PSMCParams``, ``PIDParams``,
        ``NaiveSMCParams``, ``RenderedFrictionParams``) or its stateful wrapper (``PSMC``, …;
        only its parameters are used, its state is left alone) — or a list of controllers
        of one type and one T that differ in gains: one compiled, vmapped run, and every
        channel gets a leading member axis (``res.member(i)``).
    t_end: end time [s].
    reference: p_d [m or rad], a constant or a ``jax.numpy`` callable of t [s].
    substeps: integrator steps per sample (default: enough for the plant's stiffest mode
        to be stable, at least 1).
    method: ``"rk4"``, ``"rk_gill"`` or ``"euler"``.
    t0: start time [s].
    noise: standard deviation of white Gaussian noise added to each measurement [m or rad]
        (default 0); `seed` seeds it. The noisy value is what the controller sees
        (channel ``measured``).

    Returns
    -------
    Results sampled at t_k (the core's output grid, ``stickslip.integrate.step_grid``: the
    last sample is exactly `t_end`; a last interval shorter than T holds its force for what
    is left) with the plant states, the plant's outputs, ``u`` (the held
    actuator force from t_k on), ``p_d``, ``measured`` (what the controller saw) and the
    controller's extras (``proxy`` for PSMC).

    Raises
    ------
    ParameterError: bad plant, controller, reference, method or substeps.
    SimulationError: the run diverged — the plant state or the force became NaN/inf or grew
        past the core guard's ``max_state`` (a finite blow-up; ``check_divergence``); the
        message names the sample k, its time and the last sane state.
    """
    controller, members = _controllers(controller)
    if not isinstance(plant, AbstractPlant):
        raise ParameterError(f"`plant` must be a control plant (MassPlant, SingleLinkArm, "
                             f"ActuatedSystem); got {type(plant).__name__}.")
    if method not in FIXED_STEP_METHODS:
        raise ParameterError(f"unknown `method` {method!r}; closed-loop runs use a fixed-step "
                             f"method: {list(FIXED_STEP_METHODS)}.")
    T = float(np.ravel(np.asarray(controller.T))[0])     # one T for a whole batch
    if not (np.isfinite(t_end) and t_end > t0):
        raise ParameterError(f"`t_end` must be a finite time after t0={t0}; got {t_end}.")
    if substeps is None:
        limit = largest_stable_step(plant, method)
        substeps = 1 if not math.isfinite(limit) else max(1, math.ceil(T / (0.9 * limit)))
    substeps = int(substeps)
    check_positive("simulate_closed_loop", "substeps", substeps,
                   "Pass a whole number of integrator steps per sample (>= 1).")
    # the core's output grid: samples every T, the last exactly at t_end (a shorter last
    # interval: n_last whole steps and a partial step h_last, the force held as before)
    grid = step_grid(t0, t_end, T / substeps, T, owner="simulate_closed_loop")
    n = grid.n_out
    ts = t0 + np.arange(n + 1) * T
    ts[-1] = float(t_end)
    steps = np.full(n + 1, substeps)
    partial = np.zeros(n + 1)
    steps[n - 1], partial[n - 1] = grid.n_last, grid.h_last
    refs = _reference_samples(reference, ts)
    if not (np.isfinite(noise) and noise >= 0):
        raise ParameterError(f"`noise` must be a finite standard deviation >= 0; got {noise}.")
    noise_samples = float(noise) * np.random.default_rng(seed).standard_normal(n + 1)
    dynamic, static = eqx.partition((plant, controller), eqx.is_array)
    args = (jnp.asarray(t0), jnp.asarray(refs), jnp.asarray(noise_samples),
            jnp.asarray(steps), jnp.asarray(partial), plant.initial_state())
    start = time.perf_counter()
    if members is None:
        xs, us, extras = _program_store.call(closed_loop_kernel, (static, substeps, method),
                                             (dynamic, *args))
    else:
        xs, us, extras = _program_store.call(closed_loop_batch_kernel,
                                             (static, substeps, method),
                                             (dynamic[0], dynamic[1], *args))
    wall = time.perf_counter() - start
    xs, us = np.asarray(xs), np.asarray(us)
    for m in [None] if members is None else range(members):
        _check_divergence(plant, ts, xs if m is None else xs[m], us if m is None else us[m],
                          member=m)
    channels = {name: xs[..., i] for i, name in enumerate(plant.state_names)}
    if members is None:
        outputs = jax.vmap(plant.outputs)(jnp.asarray(ts), jnp.asarray(xs))
    else:
        outputs = jax.vmap(lambda x: jax.vmap(plant.outputs)(jnp.asarray(ts), x))(
            jnp.asarray(xs))
    channels.update({name: np.asarray(v) for name, v in outputs.items()})
    channels["u"] = us
    channels["p_d"] = refs if members is None else np.broadcast_to(refs, us.shape).copy()
    channels.update({name: np.asarray(v) for name, v in extras.items()})
    units = dict(plant.units)
    position_unit = units.get(plant.state_names[0], "m")
    units.update(u="N·m" if position_unit == "rad" else "N", p_d=position_unit,
                 proxy=position_unit, measured=position_unit)
    meta = {"system": type(plant).__name__, "controller": type(controller).__name__,
            "batch_size": members,
            "method": method, "T": T, "substeps": substeps, "noise": float(noise),
            "seed": seed, "dt": T / substeps, "t0": t0,
            "t_end": float(t_end), "wall_time": wall, "parameters": plant.parameters(),
            "controller_parameters": {k: np.asarray(v).tolist()
                                      for k, v in vars(controller).items() if v is not None}}
    return Results(ts, channels, units=units, meta=meta, final_state=xs[..., -1, :])


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


def _reference_samples(reference, ts):
    if callable(reference):
        try:
            refs = np.asarray(jax.vmap(reference)(jnp.asarray(ts)), dtype=float)
        except Exception as exc:
            raise ParameterError(f"`reference(t)` failed: {exc!r}. It must take the time t [s] "
                                 "and use jax.numpy.") from exc
    else:
        refs = np.full(ts.shape, float(reference))
    if refs.shape != ts.shape:
        raise ParameterError(f"`reference(t)` must return a scalar; got shape "
                             f"{refs.shape[1:]}.")
    if not np.all(np.isfinite(refs)):
        k = int(np.argmin(np.isfinite(refs)))
        raise ParameterError(f"`reference` is not finite at sample k={k} (t={ts[k]:g} s): "
                             f"{refs[k]}. Pass a finite reference.")
    return refs


def closed_loop_kernel(static, n_sub, method, dynamic, t0, refs, noise, steps, partial, x0):
    """The closed loop's compiled run, static arguments first: what
    :func:`simulate_closed_loop` hands to the program store (one trace per structure, kept
    across processes)."""
    return _run_impl(dynamic, static, t0, refs, noise, steps, partial, x0, n_sub, method)


def closed_loop_batch_kernel(static, n_sub, method, dyn_plant, dyn_controllers, t0, refs,
                             noise, steps, partial, x0):
    """`closed_loop_kernel` for controllers stacked along a leading member axis."""
    return jax.vmap(lambda dc: _run_impl((dyn_plant, dc), static, t0, refs, noise, steps,
                                         partial, x0, n_sub, method))(dyn_controllers)


def _run_impl(dynamic, static, t0, refs, noise, steps, partial, x0, n_sub, method):
    """Scan over the samples; interval k takes ``steps[k]`` steps of T/n_sub and then a
    partial step ``partial[k]`` (non-zero only in a shorter last interval)."""
    plant, controller = eqx.combine(dynamic, static)
    tableau = FIXED_STEP_METHODS[method]
    # the core's class-variable capabilities (of the wrapped system for ActuatedSystem)
    inner = type(plant.system) if isinstance(plant, ActuatedSystem) else type(plant)
    looped, projects = inner.trace_stages_once, inner.projects_after_step
    T = controller.T
    h = T / n_sub
    c0 = controller.init_state(refs[0], plant.measure(t0, x0) + noise[0])

    def sample(carry, k):
        x, c = carry
        t = t0 + k * T
        y = plant.measure(t, x) + noise[k]
        u, c = controller.update(c, refs[k], y)
        field = lambda tt, xx: plant.controlled_field(tt, xx, u)  # noqa: E731 (u held: ZOH)
        def substep(j, xx):
            xx = rk_step(field, tableau, t + j * h, xx, h, stages_in_loop=looped)
            return plant.project(t + (j + 1) * h, xx) if projects else xx
        x_next = jax.lax.fori_loop(0, steps[k], substep, x)
        t_whole, h_part = t + steps[k] * h, partial[k]
        x_part = rk_step(field, tableau, t_whole, x_next, h_part, stages_in_loop=looped)
        if projects:
            x_part = plant.project(t_whole + h_part, x_part)
        x_next = jnp.where(h_part > 0, x_part, x_next)
        return (x_next, c), (x, u, {"measured": y, **controller.extras(c, y)})

    _, (xs, us, extras) = jax.lax.scan(sample, (x0, c0), jnp.arange(refs.shape[0]))
    return xs, us, extras


def _check_divergence(plant, ts, xs, us, member=None):
    """The core's divergence guard (NaN/inf, or a finite blow-up past ``Guard.max_state``) on
    the plant states and the held force; the error names the sample, its time and the last
    sane state, with the closed loop's own advice."""
    name = f"closed loop with {type(plant).__name__}"
    try:
        check_divergence(name, (*plant.state_names, "u"), ts,
                         np.concatenate([xs, us[..., None]], axis=-1), member=member)
    except SimulationError as exc:
        k = int(np.searchsorted(ts, exc.time))
        what = str(exc).split(" diverged: ", 1)[1].split(" Last sane state: ")[0]
        shown = ", ".join(f"{key}={value:.6g}" for key, value in exc.state.items())
        who = name + ("" if member is None else f" (batch member {member})")
        raise SimulationError(
            f"{who} diverged at sample k={k} (t={ts[k]:.6g} s): {what} Last sane state: "
            f"{shown}. Check the controller gains against the plant (and the sample period), "
            "or raise `substeps`.", time=exc.time, state=exc.state) from None
