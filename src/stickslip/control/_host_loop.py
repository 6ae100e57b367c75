"""A host-side controller in the loop: the plant compiled, the controller called from Python.

:func:`simulate_closed_loop` compiles controller and plant into one ``lax.scan``. To check a
controller that lives outside JAX — the exported C of :func:`stickslip.discrete.export_c`
loaded with ``ctypes``, a stateful :class:`~stickslip.control.PSMC` — against that loop, or
to run hardware-style code, :func:`simulate_host_loop` calls the controller once per sample
on the host and advances the plant by the same compiled zero-order-hold interval
(:func:`~stickslip.control._closed_loop.hold`), on the same sample grid.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from .._validation import check_positive
from ..errors import ParameterError, SimulationError
from ..integrate import FIXED_STEP_METHODS, call_program
from ..results import Results
from ._closed_loop import (
    _check_divergence,
    _reference_samples,
    check_substeps,
    hold,
    outputs_kernel,
    sample_grid,
)
from ._loop_options import loop_options, loop_substeps, save_stream
from ._plants import AbstractPlant

if TYPE_CHECKING:
    from ..integrate import Guard, Output, Steps

__all__ = ["simulate_host_loop"]


def _advance(static, method, n_sub, dynamic, t0, T, k, x, u, steps_k, partial_k):
    """One sample interval from t_k = t0 + kT with u held, and the measurement at its end
    (the times formed as in the compiled loop)."""
    plant = eqx.combine(dynamic, static)
    x_next = hold(plant, method, n_sub, T, t0 + k * T, x, u, steps_k, partial_k)
    return x_next, plant.measure(t0 + (k + 1) * T, x_next)


def _measure(static, dynamic, t, x):
    return eqx.combine(dynamic, static).measure(t, x)


def simulate_host_loop(plant: AbstractPlant, controller: Callable, t_end: float,
                       reference: float | Callable = 0.0, *, dt: float | None = None,
                       method: str = "rk4", dt_out: float | None = None,
                       t0: float | None = None, initial: Any = None,
                       output: Output | None = None, guard: Guard | None = None,
                       steps: Steps | None = None, progress: bool | None = None,
                       T: float | None = None, substeps: int | None = None,
                       **options: Any) -> Results:
    """Run a host-side `controller` against `plant`, sample by sample, zero-order hold.

    At each sample t_k = t0 + kT: ``u_k = controller(p_d(t_k), plant.measure(t_k, x_k))``
    (NumPy float64 arguments: scalars, or arrays of shape ``(n_inputs,)`` for a multi-input
    plant), then the plant is integrated over [t_k, t_k + T] with u_k held by the same
    compiled step as :func:`simulate_closed_loop` (`method`, `substeps` per sample; one
    compile per call). The controller keeps its own state between calls.

    Parameters
    ----------
    plant : AbstractPlant
        an :class:`~stickslip.control.AbstractPlant`.
    controller : callable
        a callable ``(p_d, p) -> u`` — a stateful wrapper's ``.step``
        (``ss.control.PSMC(...).step``), exported C through ``ctypes``, …
    t_end : float
        end time [s].
    reference : float or callable, optional
        p_d as for :func:`simulate_closed_loop`.
    T : float, optional
        sample period [s] (default ``controller.T``, or ``controller.__self__.T`` for a bound
        ``.step``).
    dt, method, dt_out, t0, initial, output, guard, steps, progress, substeps
        as for :func:`simulate_closed_loop` (``ss.simulate``'s keywords, honoured or
        refused by name as there: :mod:`stickslip.control._loop_options`).

    Returns
    -------
    Results
        Results with the channels of :func:`simulate_closed_loop` except the controller's
        extras: the plant states and outputs, ``u``, ``p_d`` and ``measured`` (per input,
        ``<input>.u`` …, for a multi-input plant).

    Raises
    ------
    ParameterError
        bad plant, controller, T, reference, method or substeps.
    SimulationError
        the controller returned a non-finite or mis-shaped input (named with
        its sample), or the run diverged.
    """
    # the core's step and span check first, as in the compiled loop
    run = loop_options("simulate_host_loop", plant, t_end, dt=dt, dt_out=dt_out, t0=t0,
                       initial=initial, output=output, guard=guard, steps=steps,
                       progress=progress, options=options)
    t0, t_end = run.t0, run.t_end
    if not isinstance(plant, AbstractPlant):
        raise ParameterError(f"`simulate_host_loop.plant` must be a control plant; got "
                             f"{type(plant).__name__}.")
    if not callable(controller):
        raise ParameterError(f"`simulate_host_loop.controller` must be a callable (p_d, p) -> "
                             f"u; got {type(controller).__name__}.")
    if method not in FIXED_STEP_METHODS:
        raise ParameterError(f"unknown `method` {method!r}; closed-loop runs use a fixed-step "
                             f"method: {list(FIXED_STEP_METHODS)}.")
    if T is None:
        T = getattr(controller, "T", getattr(getattr(controller, "__self__", None), "T", None))
        if T is None:
            raise ParameterError("`simulate_host_loop.T` is required: the controller has no "
                                 "sample period `T`.")
    T = float(T)
    check_positive("simulate_host_loop", "T", T, "Pass the sample period in seconds.")
    check_substeps("simulate_host_loop", substeps)
    substeps = loop_substeps("simulate_host_loop", plant, method, T, substeps, run)
    substeps, grid, ts, per_sample, partial = sample_grid("simulate_host_loop", plant, method, T,
                                                     t0, t_end, substeps)
    n = grid.n_out
    names = plant.input_names
    shape = () if names is None else (len(names),)
    refs = _reference_samples(reference, ts, shape)

    dynamic, static = eqx.partition(plant, eqx.is_array)

    # the plant's arrays are arguments (as in the compiled loop), bound once: each sample
    # then passes only (k, x, u, …) — flattening the plant per call would cost milliseconds
    advance = functools.partial(jax.jit(functools.partial(_advance, static, method,
                                                          substeps)), dynamic)
    x = plant.initial_state() if run.x0 is None else jnp.asarray(run.x0)
    y = np.asarray(jax.jit(functools.partial(_measure, static))(dynamic, jnp.asarray(t0), x))
    xs, us, ys = [], [], []
    start = time.perf_counter()
    for k in range(n + 1):
        u = np.asarray(controller(refs[k], y), dtype=float)
        if u.shape != shape or not np.all(np.isfinite(u)):
            raise SimulationError(
                f"`simulate_host_loop.controller` returned {u!r} at sample k={k} (t={ts[k]:g} "
                f"s); it must return {'a finite number' if not shape else f'{shape} finite'} "
                "efforts.", time=float(ts[k]))
        xs.append(np.asarray(x))
        us.append(u)
        ys.append(y)
        x, y = advance(jnp.asarray(t0), jnp.asarray(T), jnp.asarray(k), x, jnp.asarray(u),
                       jnp.asarray(per_sample[k]), jnp.asarray(partial[k]))
        y = np.asarray(y)
    wall = time.perf_counter() - start
    xs, us, ys = np.stack(xs), np.stack(us), np.stack(ys)
    _check_divergence(plant, ts, xs, us, guard=run.guard)
    channels = {name: xs[..., i] for i, name in enumerate(plant.state_names)}
    outputs = call_program(outputs_kernel, (static,),
                                  (dynamic, jnp.asarray(ts), jnp.asarray(xs), jnp.asarray(us)))
    channels.update({name: np.asarray(v) for name, v in outputs.items()})
    units = dict(plant.units)
    signals = {"u": us, "p_d": refs, "measured": ys}
    if names is None:
        channels.update(signals)
        position_unit = units.get(plant.state_names[0], "m")
        units.update(u="N·m" if position_unit == "rad" else "N", p_d=position_unit,
                     measured=position_unit)
    else:
        for i, name in enumerate(names):
            for signal, values in signals.items():
                channels[f"{name}.{signal}"] = values[:, i]
                units[f"{name}.{signal}"] = (plant.input_units[i] if signal == "u"
                                             else plant.measured_units[i])
    meta = {"system": type(plant).__name__, "controller": repr(controller), "method": method,
            "T": T, "substeps": substeps, "dt": T / substeps, "t0": t0, "t_end": float(t_end),
            "wall_time": wall, "parameters": plant.parameters()}
    return save_stream(Results(ts, channels, units=units, meta=meta, final_state=xs[-1]), run)
