"""Where a sweep's chunks run: in this process (``"vmap"``), in a pool of processes on this
machine (``"processes"``), or on a Dask cluster (``"dask"``).

Every backend runs the same function, :func:`run_chunk`, on the same chunks (same points,
same padding), so the results agree to the last bit wherever they were computed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterable, NamedTuple, cast

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pandas as pd

from ..errors import ParameterError, SimulationError
from ..integrate import AbstractSystem, FIXED_STEP_METHODS, largest_stable_step, simulate
from ..integrate import NO_OVERSHOOT, monotone_step_limit
from ..integrate import check_divergence, simulate_batch, stack_systems, step_grid, trajectory
from ..integrate import guard_from_options, run_bounds
from ..laws import AbstractLaw
from ..results import Results
from ._extras import require
from ._store import records_frame

if TYPE_CHECKING:
    import numpy.typing as npt

__all__ = ["Task", "ChunkResult", "run_chunk", "execute", "BACKENDS"]

BACKENDS = ("vmap", "processes", "dask")


class Task(NamedTuple):
    """One chunk of a sweep: everything a worker needs, picklable with cloudpickle."""
    build: Callable
    analyses: dict
    names: tuple
    values: np.ndarray          # (points, parameters)
    keys: tuple
    run: dict                   # t_end, dt, dt_out, method, options
    mode: str                   # "vmap" or "points"
    pad_to: int                 # vmap: rows after padding (one compile for every chunk)
    trajectories: bool


class ChunkResult(NamedTuple):
    frame: pd.DataFrame               # key, parameters, outputs, error
    trajectories: dict                # key -> Results (when asked for)
    evaluated: int                    # points simulated (padding excluded)


def _error_text(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def run_chunk(task: Task) -> ChunkResult:
    """Simulate and analyse one chunk; a failing point is recorded, never raised."""
    if task.mode == "vmap":
        return _run_vmapped(task)
    return _run_points(task)


# --- per-point runs (any model: planar, spatial, Python-built) -------------------------------

def simulate_point(obj: Any, run: dict) -> Results:
    """Run what `build` returned: a Results as is, a system through `ss.simulate`, or a
    model object through its own ``simulate(t_end, dt=..., dt_out=...)`` (planar, spatial)."""
    if isinstance(obj, Results):
        return obj
    if run.get("t_end") is None:
        raise ParameterError("`t_end` is required unless `build` returns finished Results.")
    kwargs = {k: run[k] for k in ("dt", "dt_out") if run.get(k) is not None}
    # the options as the sweep was given them: flat keywords and option objects, unchanged
    options = run.get("forward", run["options"])
    if isinstance(obj, AbstractSystem):
        return simulate(obj, run["t_end"], method=run["method"], **kwargs, **options)
    runner = getattr(obj, "simulate", None)
    if not callable(runner):
        raise ParameterError(f"`build` returned a {type(obj).__name__}; it must return a "
                             "stickslip system, a model with a `simulate` method (planar, "
                             "spatial) or Results.")
    # a planar or spatial model: its simulate returns Results
    return cast(Results, runner(run["t_end"], **kwargs, **options))


def _run_points(task: Task) -> ChunkResult:
    n = len(task.keys)
    outputs = {name: np.full(n, np.nan) for name in task.analyses}
    errors: list = [None] * n
    kept = {}
    for i in range(n):
        try:
            params = dict(zip(task.names, map(float, task.values[i])))
            res = simulate_point(task.build(**params), task.run)
            for name, fn in task.analyses.items():
                value = np.asarray(fn(res), dtype=float)
                if value.shape != ():
                    raise ParameterError(f"analysis {name!r} returned shape {value.shape} for "
                                         "one run; it must reduce to one number (reduce over "
                                         "axis=-1).")
                outputs[name][i] = value
            if task.trajectories:
                kept[task.keys[i]] = res
        except Exception as exc:          # recorded with the point; the study goes on
            errors[i] = _error_text(exc)
            for column in outputs.values():
                column[i] = np.nan
    frame = records_frame(task.keys, task.names, task.values, outputs, errors)
    return ChunkResult(frame, kept, n)


# --- vmapped runs (systems whose parameters are arrays) -------------------------------------

def as_system(obj: Any) -> Any:
    """`obj` as a stickslip system: a model that freezes into one (a class with
    ``to_system()``, e.g. a jointed ``ss.spatial.SpatialModel``) is frozen; anything else is
    returned as it is."""
    if not isinstance(obj, AbstractSystem) and callable(getattr(type(obj), "to_system", None)):
        system = obj.to_system()
        return obj if system is None else system
    return obj


def builds_model(build, names, values) -> bool:
    """Whether `build` returns a host-side model (frozen by `as_system`) rather than a
    system: such a build runs on concrete numbers, point by point, and its frozen systems
    are stacked."""
    first = build(**dict(zip(names, map(float, values[0]))))
    return not isinstance(first, AbstractSystem) and isinstance(as_system(first),
                                                                AbstractSystem)


def build_stacked(build, names, values) -> AbstractSystem:
    """`build` traced once under ``vmap`` over the rows of `values`: one stacked system. A
    build that returns a model (validated host-side, so it cannot be traced) is called on
    each row, frozen and stacked — the run is still one vmapped compile."""
    if builds_model(build, names, values):
        return stack_systems([as_system(build(**dict(zip(names, map(float, row)))))
                              for row in values])
    columns = [jnp.asarray(values[:, j], dtype=float) for j in range(values.shape[1])]
    return eqx.filter_vmap(lambda *c: build(**dict(zip(names, c))))(*columns)


def varying_leaves(build, names, values=None) -> list[bool]:
    """For each array leaf of ``build(**point)`` (in ``jax.tree.leaves`` order): does it
    depend on the swept parameters?

    Read from the traced program of `build` (a leaf no operation connects to the inputs is
    the same for every point), so the answer is the build's structure, not the values of a
    chunk, and every chunk compiles to the same program. The leaves that do not vary
    (masses, stiffnesses, the frequency of a force when only its amplitude is swept) are
    then passed to the vmapped run unbatched: what depends only on them and on time — e.g.
    ``sin(2π·f·t)`` — is computed once per step for the whole chunk, not once per member.
    """
    from jax.extend.core import Literal

    if values is not None and builds_model(build, names, values):
        # a model build is not traceable: a leaf varies if it differs between the members
        stacked = build_stacked(build, names, values)
        return [bool(np.ptp(np.asarray(leaf).reshape(leaf.shape[0], -1), axis=0).max(
                    initial=0.0) > 0) if np.ndim(leaf) else False
                for leaf in jax.tree.leaves(eqx.filter(stacked, eqx.is_array))]

    def arrays(*c):
        return jax.tree.leaves(eqx.filter(build(**dict(zip(names, c))), eqx.is_array))

    jaxpr = jax.make_jaxpr(arrays)(*[jnp.asarray(1.0)] * len(names)).jaxpr
    depends = set(jaxpr.invars)
    for eqn in jaxpr.eqns:               # forward: any input that depends taints all outputs
        if any(not isinstance(v, Literal) and v in depends for v in eqn.invars):
            depends.update(eqn.outvars)
    return [not isinstance(v, Literal) and v in depends for v in jaxpr.outvars]


def _check_law(law: AbstractLaw) -> None:
    for cls in reversed(type(law).__mro__):
        check = cls.__dict__.get("__check_init__")
        if check is not None:
            check(law)


def _law_errors(stacked, n, errors) -> None:
    """Each law's parameter rules on every member at once; members that break one get the
    law's own message (system-level checks ran on the first point)."""
    is_law = lambda x: isinstance(x, AbstractLaw)        # noqa: E731
    for law in (x for x in jax.tree.leaves(stacked, is_leaf=is_law) if is_law(x)):
        try:
            _check_law(law)
            continue
        except ParameterError:
            pass
        for i in range(n):
            try:
                _check_law(jax.tree.map(lambda x: np.asarray(x)[i], law))
            except ParameterError as exc:
                errors[i] = errors[i] or _error_text(exc)


def member(stacked, i):
    """Member `i` of a stacked system."""
    return jax.tree.map(lambda x: x[i] if eqx.is_array(x) else x, stacked)


def _stability_errors(stacked, n, run, errors) -> None:
    """Members whose step is outside the method's stability region (as `ss.simulate`)."""
    method, dt = run["method"], run["dt"]
    tableau = FIXED_STEP_METHODS.get(method)
    if tableau is None or dt is None or run["options"].get("check_step") is False:
        return
    try:
        modes = stacked.linear_modes()
    except Exception:                  # modes of a stacked system unknown: rely on finiteness
        return
    suspect = np.zeros(n, bool)
    for label, values in modes:
        eig: npt.NDArray[np.complex128] = np.asarray(values, dtype=complex)
        if eig.ndim == 0 or eig.shape[-1] != n:
            continue
        damped = (eig.real <= 0) & (np.abs(eig) > 0)
        bad = damped & (np.abs(tableau.stability(eig * dt)) > 1 + 1e-12)
        if label.endswith(NO_OVERSHOOT):
            # a two-level law's stick mode: the overshoot-free step, as `ss.simulate` checks
            # (the sweep ran such members at a step simulate refuses)
            bad |= damped & (dt > np.vectorize(
                lambda lam: monotone_step_limit(tableau, lam))(eig))
        suspect |= bad.reshape(-1, n).any(axis=0)
    for i in np.nonzero(suspect)[0]:
        limit = largest_stable_step(member(stacked, i), method)
        if dt > limit and errors[i] is None:
            errors[i] = (f"ParameterError: dt={dt:g} s is too large for this point's stiffness: "
                         f"{method} is stable only for dt <= {limit:.3g} s (with a two-level "
                         "friction law: not overshooting its stick mode). Use a smaller dt for "
                         "the sweep or narrow the parameter range.")


@eqx.filter_jit
def _batched_trajectories(varying, shared, t_end, dt, dt_out, method):
    """Every member's run: `varying` holds the stacked leaves that differ between members
    (the others None), `shared` the rest of the system, one copy for all members. Returns
    the states, the outputs and the energy the divergence guard watches (None for systems
    that report none)."""
    def one(v):
        system = eqx.combine(v, shared)
        ts, xs = trajectory(system, t_end, dt, dt_out, method=method)
        return (xs, jax.vmap(system.outputs)(ts, xs),
                jax.vmap(system.passive_energy)(ts, xs))
    return eqx.filter_vmap(one)(varying)


# options the compiled fixed-step chunk honours itself (the guard's two on the host, as
# `ss.simulate` does): with any other option (t0, projection, trace_stages_once, …) a chunk
# runs through `ss.simulate_batch`, which takes the options `ss.simulate` takes
_FAST_PATH_OPTIONS = frozenset({"check_step", "max_state", "energy_tol"})


def split_varying(stacked, varying: list[bool] | None):
    """``(varying, shared)`` halves of a stacked system for :func:`_batched_trajectories`:
    the leaves flagged in `varying` keep their member axis, the others are taken from
    member 0 (they are equal for every member). ``None``: every array leaf varies."""
    leaves, treedef = jax.tree.flatten(stacked)
    if varying is not None:              # a leaf read as shared must be equal in every member
        arrays = [leaf for leaf in leaves if eqx.is_array(leaf)]
        if len(arrays) != len(varying) or any(
                not flag and not bool(jnp.all(leaf == leaf[:1]))
                for leaf, flag in zip(arrays, varying)):
            varying = None
    flags = iter(varying) if varying is not None else None
    mask, shared_leaves = [], []
    for leaf in leaves:
        batched = eqx.is_array(leaf) and (flags is None or next(flags))
        mask.append(batched)
        shared_leaves.append(leaf[0] if eqx.is_array(leaf) and not batched else leaf)
    split = jax.tree.unflatten(treedef, mask)
    system = jax.tree.unflatten(treedef, shared_leaves)
    return eqx.partition(system, split)


def _batched_results(stacked, run, varying=None):
    """``(Results, energy)`` of a stacked chunk; `energy` (members × samples, or None) is
    for the divergence guard when the chunk ran on the fast path (simulate_batch guards its
    own runs and raises for a diverging member)."""
    t_end, dt, dt_out, method = run["t_end"], run["dt"], run["dt_out"], run["method"]
    if method in FIXED_STEP_METHODS and set(run["options"]) <= _FAST_PATH_OPTIONS:
        batched, shared = split_varying(stacked, varying)
        xs, outputs, energy = _batched_trajectories(
            batched, shared, float(t_end), float(dt), None if dt_out is None else
            float(dt_out), method)
        xs = np.asarray(xs)
        # simulate's output grid (that of `trajectory`): the last sample is exactly t_end
        grid = step_grid(0.0, float(t_end), float(dt), None if dt_out is None else
                         float(dt_out), owner="sweep")
        channels = {name: xs[..., k] for k, name in enumerate(stacked.state_names)}
        channels.update({k: np.asarray(v) for k, v in outputs.items()})
        res = Results(grid.times(), channels, units=stacked.units,
                      meta={"system": type(stacked).__name__, "method": method, "dt": dt,
                            "dt_out": grid.dt_out}, final_state=xs[:, -1])
        return res, None if energy is None else np.asarray(energy)
    options = {k: v for k, v in run["options"].items() if k != "check_step"}
    return simulate_batch(stacked, t_end, dt=dt, method=method, dt_out=dt_out,
                          check_step=False, **options), None


def _guard_errors(stacked, res, energy, n, run, errors) -> None:
    """The divergence guard of `ss.simulate` (non-finite, beyond `max_state`, energy gain,
    a state past its bound) on each member of a fast-path chunk, with the message `ss.simulate` gives."""
    guard = guard_from_options(run["options"], "sweep")
    names = stacked.state_names
    for i in range(n):
        if errors[i] is not None:
            continue
        xs = np.stack([np.asarray(res[c][i], dtype=float) for c in names], axis=-1)
        try:
            check_divergence(type(stacked).__name__, names, res.t, xs, guard=guard,
                             energy=None if energy is None else energy[i],
                             bounds=run_bounds(stacked, xs[0], member=i))
        except SimulationError as exc:
            errors[i] = _error_text(exc)


def _run_vmapped(task: Task) -> ChunkResult:
    n = len(task.keys)
    values = np.asarray(task.values, dtype=float)
    if task.pad_to > n:                  # repeat the last point: the same compiled program
        values = np.concatenate([values, np.repeat(values[-1:], task.pad_to - n, axis=0)])
    errors: list = [None] * n
    outputs = {name: np.full(n, np.nan) for name in task.analyses}
    try:
        stacked = build_stacked(task.build, task.names, values)
        varying = varying_leaves(task.build, task.names, values)
        _law_errors(stacked, n, errors)
        _stability_errors(stacked, n, task.run, errors)
        res, energy = _batched_results(stacked, task.run, varying)
    except Exception:                    # the whole chunk failed: its points one by one, so
        return _run_points(task._replace(mode="points"))   # each failure gets its own message
    _guard_errors(stacked, res, energy, n, task.run, errors)
    finite = np.ones(values.shape[0], bool)
    for name in res.names:
        finite &= np.all(np.isfinite(res[name]), axis=-1).reshape(-1)
    for i in np.nonzero(~finite[:n])[0]:
        bad = np.nonzero(~np.all([np.isfinite(res[c][i]) for c in res.names], axis=0))[0][0]
        errors[i] = errors[i] or (f"SimulationError: the run diverged (NaN or infinite state) "
                                  f"near t={res.t[bad]:.6g} s. Reduce dt or check the "
                                  "parameters.")
    for name, fn in task.analyses.items():
        try:
            value = np.asarray(fn(res), dtype=float)
            if value.shape != (values.shape[0],):
                raise ParameterError(f"analysis {name!r} returned shape {value.shape} for a "
                                     f"batch of {values.shape[0]} runs; reduce over the last "
                                     "(time) axis only, e.g. np.max(res['p'], axis=-1).")
            outputs[name] = value[:n].copy()
        except Exception as exc:
            text = _error_text(exc)
            errors = [e or f"analysis {name!r}: {text}" for e in errors]
    failed = np.array([e is not None for e in errors])
    for column in outputs.values():
        column[failed] = np.nan
    kept = {task.keys[i]: res.member(i) for i in range(n)
            if task.trajectories and not failed[i]}
    return ChunkResult(records_frame(task.keys, task.names, task.values, outputs, errors),
                       kept, n)


def _run_pickled(payload: bytes) -> ChunkResult:
    import cloudpickle

    return run_chunk(cloudpickle.loads(payload))


# --- executors ----------------------------------------------------------------------------

def execute(tasks: list[Task], backend: str, *, workers: int | None, client,
            on_done: Callable[[ChunkResult], None]) -> None:
    """Run every task on `backend` and hand each result to `on_done` as it finishes."""
    if backend == "vmap":
        for task in tasks:
            on_done(run_chunk(task))
    elif backend == "processes":
        _execute_processes(tasks, workers, on_done)
    elif backend == "dask":
        _execute_dask(tasks, workers, client, on_done)
    else:
        raise ParameterError(f"unknown `backend` {backend!r}; choose one of {list(BACKENDS)}.")


def _execute_processes(tasks, workers, on_done):
    import multiprocessing
    import os
    from concurrent.futures import ProcessPoolExecutor, as_completed

    import cloudpickle

    workers = workers or os.cpu_count() or 1
    pool = ProcessPoolExecutor(max_workers=min(workers, max(len(tasks), 1)),
                               mp_context=multiprocessing.get_context("spawn"))
    try:
        futures = [pool.submit(_run_pickled, cloudpickle.dumps(t)) for t in tasks]
        for future in as_completed(futures):
            on_done(future.result())
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _execute_dask(tasks, workers, client, on_done):
    distributed = require("distributed", "Dask sweeps (backend='dask')", alternative=", or use "
                          "backend='processes'")
    Client, LocalCluster = distributed.Client, distributed.LocalCluster
    as_completed = distributed.as_completed
    own = None
    if client is None:
        own = LocalCluster(n_workers=workers or 2, threads_per_worker=1,
                           dashboard_address=None)
        client = Client(own)
    elif isinstance(client, str):
        client = Client(client)
        own = client
    elif not isinstance(client, Client):
        raise ParameterError("`client` must be a dask.distributed.Client or a scheduler "
                             f"address such as 'tcp://host:8786'; got {type(client).__name__}.")
    try:
        futures = [client.submit(run_chunk, t, pure=False) for t in tasks]
        try:
            for future in as_completed(futures):
                on_done(future.result())
        finally:
            client.cancel([f for f in futures if not f.done()])
    finally:
        if own is not None:
            if isinstance(own, Client):
                own.close()
            else:
                client.close()
                own.close()


def chunk_size(per_member_bytes: int, memory: float, n_points: int, cap: int = 1024) -> int:
    """Members per vmapped chunk so that the chunk's outputs fit in `memory` bytes."""
    fit = max(1, int(memory // max(per_member_bytes, 1)))
    return max(1, min(cap, fit, n_points))


def plan_chunks(n_points: int, size: int) -> Iterable[slice]:
    for start in range(0, n_points, size):
        yield slice(start, min(start + size, n_points))

