"""`sweep`: many runs of one model over a design of parameter points, as one table."""

from __future__ import annotations

import inspect
import math
import numbers
import sys
import time
import warnings
from typing import Any, Callable

import equinox as eqx
import numpy as np
import pandas as pd

from ..errors import ParameterError
from ..integrate import FIXED_STEP_METHODS, METHODS, AbstractSystem, check_time_arguments
from ..integrate import (KNOWN_OPTIONS, as_flag, code_versions, did_you_mean, fingerprint,
                         guard_from_options, merge_options)
from ._analyses import resolve_analyses
from ._backends import (BACKENDS, ChunkResult, Task, as_system, build_stacked, chunk_size, execute,
                        plan_chunks)
from ._grid import as_design
from ._store import Store, point_key

__all__ = ["RESERVED_COLUMNS", "sweep"]

# columns the sweep writes itself (the store's point key, the table's error and trajectory):
# neither a parameter nor an output may take these names
RESERVED_COLUMNS = ("key", "error", "trajectory")

# options of `ss.simulate` a sweep cannot pass on: `chunk` and `progress` are the sweep's
# own arguments, and every point would overwrite one `stream_to` file
_NOT_PER_POINT = {"chunk": "the sweep's own `chunk` (points per chunk) takes this name",
                  "progress": "the sweep's own `progress` (one bar over the points) takes "
                              "this name",
                  "stream_to": "every point would write the same file; keep the runs with "
                               "trajectories=True (and a `store`) instead"}


def sweep(build: Callable[..., Any], grid, analysis, *, t_end: float | None = None,
          dt: float | None = None, dt_out: float | None = None, method: str = "rk4",
          backend: str = "vmap", workers: int | None = None, client=None,
          chunk: int | None = None, memory: float = 256e6, store=None,
          retry_failed: bool = False, trajectories: bool = False,
          progress: bool | None = None, **options: Any) -> pd.DataFrame:
    """Run `build(**point)` for every point of `grid` and tabulate the `analysis` outputs.

    Parameters
    ----------
    build
        ``build(**parameters)`` → a stickslip system (``FrictionMass``, …), a model with
        its own ``simulate(t_end, dt=..., dt_out=...)`` (planar, spatial), or finished
        :class:`~stickslip.Results`. Parameters are the design's column names.
    grid
        The points: a DataFrame (:func:`grid`, :func:`latin_hypercube`,
        :func:`random_sample`, or your own) or a ``{name: values}`` mapping (a full grid).
        The names ``key``, ``error`` and ``trajectory`` (:data:`RESERVED_COLUMNS`) are the
        sweep's own columns and are refused as parameter or output names.
    analysis
        The scalar outputs: a function of the Results (reducing over the last axis, see
        :mod:`stickslip.studies._analyses`), a built-in name (``"stick_fraction"``,
        ``"max_abs(p)"``, ``"rest_position"``, ``"energy_loss"``, ``"final(v)"``), or a list
        or ``{column: function}`` mapping of them.
    t_end, dt, dt_out, method
        As for :func:`stickslip.simulate` (end time [s], step [s], output interval [s]),
        checked once before any point runs (a bad value raises ``ParameterError`` naming
        ``sweep.<argument>``; it is not recorded per point). Analyses see the samples every
        `dt_out`, on :func:`stickslip.simulate`'s output grid (the last sample is exactly
        `t_end`) in every mode.
    backend : str, optional
        ``"vmap"`` — chunks in this process; ``"processes"`` — chunks spread over `workers`
        processes on this machine; ``"dask"`` — chunks submitted to a Dask cluster:
        `client` is a ``dask.distributed.Client`` or a scheduler address
        (``"tcp://host:8786"``); without one a ``LocalCluster`` of `workers` processes is
        started and closed. The chunks and the code are the same everywhere, so every backend
        gives the same numbers.
    chunk : int, optional
        Points per chunk. Default: as many as fit `memory` bytes of trajectories (at most
        1024) for vmapped systems, 4 for per-point runs; never more than the points to
        compute (a vmapped chunk is padded to its size).
    memory : float, optional
        Bytes of trajectories one vmapped chunk may hold (a positive number), for the
        default `chunk`.
    store
        A directory, checked writable before any point runs: each finished chunk is written
        there as Parquet, and a rerun with the same store skips the points already in it (so
        a killed sweep resumes). With `retry_failed` the failed points are run again. The
        store is keyed on the study *and on the code that computes it*
        (:mod:`stickslip.studies._store`): a rerun after the code of `build` or of an
        analysis changed — or a global, closure value or default it reads, or the version of
        stickslip (or its source), jax, jaxlib, equinox, diffrax, numpy, scipy, lineax or
        optimistix — is refused with the part that
        differs, never answered with the old values. A `build` or analysis that cannot be
        fingerprinted (an object of your own class without ``__stickslip_key__()``, a
        function that reads a module of your own) is warned about and the store is not used.
        A damaged part is named in a warning, set aside and its points computed again.
    trajectories : bool, optional
        Keep every run's full Results in a ``"trajectory"`` column (and in the store); a
        point reused from the store whose run was not kept is computed again.
    progress : bool, optional
        Show a rich progress bar (default: when stderr is a terminal).
    options : Any, optional
        Passed to ``ss.simulate`` / the model's ``simulate`` (``steps=ss.Steps(...)``,
        ``guard=ss.Guard(...)``, ``output=ss.Output(...)``, or flat: ``check_step``,
        ``t0``, ``max_state``, ``energy_tol``, ``rtol``, …): per point, the objects and flat
        keywords go to each point's simulate unchanged; the vmapped chunks honour the same
        fields (a chunk with options other than ``check_step``, ``max_state`` and
        ``energy_tol`` runs through :func:`stickslip.simulate_batch`; ``initial`` runs point
        by point). An option the points' simulate does not take is refused before any point
        runs ("Did you mean …?"); so are ``stream_to`` (every point would write one file:
        use `trajectories` and `store`), ``Output.chunk`` on vmapped chunks (they run the
        sweep's own `chunk`), and bad values of ``check_step``, ``max_state`` and
        ``energy_tol``. `progress` is the sweep's own bar over the points: the points'
        simulate runs without one.

    Returns
    -------
    pandas.DataFrame
        One row per design point, in the design's order: the parameter columns, one column
        per output, and ``error`` (None, or the point's exception as text; its outputs are
        NaN). ``df.attrs`` holds ``computed`` (points simulated by this call), ``reused``
        (taken from the store), ``mode`` (``"vmap"`` or ``"points"``), ``backend`` and
        ``wall_time`` [s]. A pandas table and not an xarray Dataset: Latin-hypercube and
        random designs are scattered points, not a grid, and the table maps one to one onto
        the Parquet store; a full grid reshapes with
        ``df.set_index(names)[output].unstack()`` (or ``.to_xarray()`` with xarray).

    Notes
    -----
    **How points run.** When `build` returns a stickslip system whose varying parameters are
    arrays (laws and systems are equinox modules), `build` is traced once per chunk under
    ``jax.vmap`` and the whole chunk runs as one compiled program through
    :func:`stickslip.integrate.trajectory` (fixed-step methods) or
    :func:`stickslip.simulate_batch` (adaptive ones); the last chunk is padded, so one
    compile serves them all. In fixed-step runs only the fields `build` computes from the
    swept parameters carry the member axis (read from its traced program); the others are
    passed once per chunk, so terms of time alone (a force's ``sin(2π·f·t)``) are computed
    once per step, not per member. Each law's parameter rules are checked for every point, the
    system's own checks on the first point; a point whose step is outside the method's
    stability region or whose run diverges (the divergence guard of :func:`stickslip.simulate`:
    non-finite, beyond ``max_state``, energy gained) is recorded as failed. Anything else —
    planar and spatial models built in Python, builds with Python branches on the
    parameters, a lambda closing over a parameter — falls back to one ``simulate`` per
    point (``df.attrs["mode"] == "points"``); so does a vmapped chunk that raises, so that
    each failing point gets its own message.

    **Failures** of single points are recorded in the ``error`` column, never raised;
    ``KeyboardInterrupt`` stops the sweep and keeps what the store already holds.

    Examples
    --------
    >>> import stickslip as ss
    >>> from stickslip.studies import friction_mass, grid
    >>> table = ss.sweep(friction_mass, grid(F=[0.3, 0.9], amplitude=[0.6]),
    ...                  ["stick_fraction", "max_abs(p)"], t_end=1.0, dt=1e-4, dt_out=1e-3)
    >>> [round(x, 2) for x in table["stick_fraction"]]    # F = 0.9 > 0.6 N: it never slips
    [0.11, 1.0]
    """
    start = time.perf_counter()
    design = as_design(grid)
    names = tuple(design.columns)
    reserved = [n for n in names if n in RESERVED_COLUMNS]
    if reserved:
        raise ParameterError(
            f"parameter name(s) {reserved} are reserved: the sweep writes columns "
            f"{list(RESERVED_COLUMNS)} itself (the store's point key, the table's error and "
            f"trajectory), which would overwrite them. Rename the parameter and map it in "
            f"`build`, e.g. lambda {reserved[0]}_value, **p: build({reserved[0]}="
            f"{reserved[0]}_value, **p).")
    analyses = resolve_analyses(analysis)
    clash = sorted(set(analyses) & (set(names) | set(RESERVED_COLUMNS)))
    if clash:
        raise ParameterError(f"output names {clash} clash with parameter or reserved column "
                             "names; rename them with a {name: function} mapping.")
    if method not in METHODS:
        raise ParameterError(f"unknown `method` {method!r}; choose one of {list(METHODS)}."
                             + (did_you_mean([method], METHODS) if isinstance(method, str)
                                else ""))
    # simulate's option objects (ss.Steps, ss.Guard, ss.Output) as the flat options the
    # points' simulate and the vmapped chunks read (an option given both ways is refused)
    objects = {k: options.pop(k) for k in ("steps", "guard", "output") if k in options}
    flat = dict(options)                    # the flat keywords, as given
    _check_option_values(flat)
    options = merge_options("sweep", options, check_names=False, **objects)
    _check_output(objects.get("output"))
    _check_option_values({k: v for k, v in options.items() if k != "chunk"})
    if t_end is not None:      # the core's step and span check, once, before any point runs
        check_time_arguments("sweep", t_end, dt, dt_out, options.get("t0"),
                             initial=options.get("initial"),
                             fixed_step=method in FIXED_STEP_METHODS and dt is not None)
    if backend not in BACKENDS:
        raise ParameterError(f"unknown `backend` {backend!r}; choose one of {list(BACKENDS)}.")
    if backend != "dask" and client is not None:
        raise ParameterError(f"`client` is only used with backend='dask'; got backend="
                             f"{backend!r}.")
    if isinstance(memory, bool) or not isinstance(memory, numbers.Real) \
            or not math.isfinite(memory) or memory <= 0:
        raise ParameterError(f"`sweep.memory` must be a positive number of bytes (what one "
                             f"vmapped chunk's trajectories may hold); got memory={memory!r}. "
                             "Pass e.g. memory=256e6, or set `chunk`.")
    if chunk is not None and (isinstance(chunk, bool) or not isinstance(chunk, numbers.Real)
                              or not math.isfinite(chunk) or int(chunk) != chunk or chunk < 1):
        raise ParameterError(f"`chunk` must be a whole number of points >= 1; got {chunk!r}.")
    as_flag("sweep", "trajectories", trajectories)
    as_flag("sweep", "retry_failed", retry_failed)
    # `options`: every option flat (the store's identity, the vmapped chunks); `forward`:
    # what each point's simulate gets — the flat keywords and the objects, unchanged
    run = {"t_end": t_end, "dt": dt, "dt_out": dt_out, "method": method, "options": options,
           "forward": {**flat, **objects}}
    values = design.to_numpy(dtype=float)
    keys = [point_key(row) for row in values]
    mode, per_member, first = _probe(build, names, values, run)
    _check_option_names(first, {**flat, **objects})
    if mode == "vmap" and "chunk" in options:
        raise ParameterError("`sweep`: `Output.chunk` (output=Output(chunk=…)) is not "
                             "honoured by the vmapped chunks: they run the sweep's own "
                             "`chunk` (points per compiled call) and keep every sample. "
                             "Drop it, or pass the sweep's `chunk=`.")

    done: dict[str, dict] = {}
    kept: dict[str, Any] = {}
    db = None
    if store is not None:
        study, unknown = _study(build, names, analyses, run)
        if unknown:
            warnings.warn(f"sweep: the store {str(store)!r} is not used (nothing is read from "
                          f"it or written to it): {'; '.join(unknown)} cannot be fingerprinted, "
                          "so stored values could not be told apart from those of changed "
                          "code. Use module-level functions (closures and globals holding "
                          "numbers, arrays or stickslip objects are fine), or give the class "
                          "of a callable object a `__stickslip_key__()` method returning what "
                          "determines its results.", stacklevel=2)
        else:
            db = Store(store, study)
    if db is not None:
        for row in db.load(names + tuple(analyses)).to_dict("records"):
            if not isinstance(row.get("error"), str):
                row["error"] = None                  # Parquet nulls may come back as NaN
            if row["error"] is None or not retry_failed:
                done[row["key"]] = row
        if trajectories:               # a reused point needs its run: recomputed when missing
            for k in dict.fromkeys(keys):
                if k in done and done[k]["error"] is None:
                    res = db.read_trajectory(k)
                    if res is None:
                        del done[k]
                    else:
                        kept[k] = res
    todo = [i for i, k in enumerate(keys) if k not in done]
    reused = len(keys) - len(todo)
    if chunk is None:
        chunk = chunk_size(per_member, memory, max(len(todo), 1)) if mode == "vmap" else 4
    # never more points per chunk than there are to compute: a chunk is padded to its size
    chunk = max(1, min(int(chunk), len(todo)))
    todo_values = values[todo]
    tasks = [Task(build, analyses, names, todo_values[s], tuple(keys[todo[j]] for j in
                                                              range(s.start, s.stop)),
                  run, mode, chunk if mode == "vmap" else 0, trajectories)
             for s in plan_chunks(len(todo), chunk)]
    computed = 0
    bar = _Progress(progress, len(todo))

    def on_done(result: ChunkResult):
        nonlocal computed
        if db is not None:
            db.write(result.frame)
            for key, res in result.trajectories.items():
                db.write_trajectory(key, res)
        for row in result.frame.to_dict("records"):
            done[row["key"]] = row
        kept.update(result.trajectories)
        computed += result.evaluated
        bar.advance(result.evaluated)

    try:
        execute(tasks, backend, workers=workers, client=client, on_done=on_done)
    finally:
        bar.close()
    table = _table(design, keys, analyses, done, kept if trajectories else None)
    table.attrs.update(computed=computed, reused=reused, mode=mode, backend=backend,
                       chunk=chunk, wall_time=time.perf_counter() - start)
    return table


def _check_option_values(options: dict) -> None:
    """The options a sweep reads itself, checked once (not recorded per point)."""
    for name, why in _NOT_PER_POINT.items():
        if name in options:
            raise ParameterError(f"`sweep` does not pass `{name}` to each point's simulate: "
                                 f"{why}.")
    if "check_step" in options:
        as_flag("sweep", "check_step", options["check_step"])
    guard_from_options(options, "sweep")          # max_state, energy_tol


def _check_output(output) -> None:
    """``output=Output(stream_to=…)`` is refused as the flat keyword is (one file for every
    point); ``Output(chunk=…)`` is the points' own (checked against the mode later)."""
    if output is not None and output.stream_to is not None:
        raise ParameterError(f"`sweep` does not pass `Output.stream_to` to each point's "
                             f"simulate: {_NOT_PER_POINT['stream_to']}.")


def _check_option_names(first, options: dict) -> None:
    """Every option is one the points' simulate takes, in every mode: `ss.simulate`'s for
    systems, the model's own ``simulate`` keywords for models (planar, spatial). Not
    checked when none of the first points builds (`first` None: each point records why)."""
    if first is None:
        return
    known = set(KNOWN_OPTIONS) - set(_NOT_PER_POINT) | {"output", "guard", "steps"}
    runner = None if isinstance(first, AbstractSystem) else getattr(first, "simulate", None)
    if callable(runner):
        try:
            parameters = inspect.signature(runner).parameters.values()
        except (TypeError, ValueError):
            return
        named = {p.name for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD,
                                                          p.KEYWORD_ONLY)}
        named -= {"t_end", "dt", "dt_out", "method"}
        if any(p.kind == p.VAR_KEYWORD for p in parameters):
            known |= named
        else:
            known = named
    unknown = sorted(set(options) - known)
    if unknown:
        what = "ss.simulate" if runner is None else f"{type(first).__name__}.simulate"
        raise ParameterError(f"`sweep` got option(s) {unknown}, which {what} does not take; "
                             f"nothing was run. Its options are {sorted(known)}."
                             f"{did_you_mean(unknown, known)}")


def _identity(obj) -> str | None:
    """The fingerprint of `obj` (its code and what it reads), or None when it has none."""
    try:
        return fingerprint(obj)
    except Exception:                  # noqa: BLE001 — Unfingerprintable, a deep structure
        return None


def _option_identity(value):
    """An option as the study records it: plain values by their text, others (an initial
    state array, a Results) by their fingerprint; None when they have none."""
    plain = (bool, int, float, str, type(None))
    if isinstance(value, plain):
        return repr(_plain(value))
    if isinstance(value, (tuple, list)) and all(isinstance(v, plain) for v in value):
        return repr(tuple(_plain(v) for v in value))
    return _identity(value)


def _plain(value):
    """A Python number for a NumPy scalar subclass (np.float64(0.1) is recorded as 0.1)."""
    for kind in (bool, int, float):
        if isinstance(value, kind):
            return kind(value)
    return value


def _study(build, names, analyses, run) -> tuple[dict, list[str]]:
    """The study a store holds (see :mod:`._store`), and what in it cannot be fingerprinted
    (then the store is not used)."""
    unknown = []
    code = {"build": _identity(build), "analyses": {}}
    if code["build"] is None:
        unknown.append(f"`build` ({_describe(build)})")
    for name, fn in analyses.items():
        code["analyses"][name] = _identity(fn)
        if code["analyses"][name] is None:
            unknown.append(f"the analysis {name!r} ({type(fn).__name__})")
    options = {}
    for key, value in sorted(run["options"].items()):
        options[key] = _option_identity(value)
        if options[key] is None:
            unknown.append(f"the option `{key}` ({type(value).__name__})")
    study = {"model": _describe(build), "parameters": list(names), "outputs": list(analyses),
             "t_end": run["t_end"], "dt": run["dt"], "dt_out": run["dt_out"],
             "method": run["method"], "options": options, "code": code,
             "versions": code_versions()}
    return study, unknown


def _probe(build, names, values, run):
    """``("vmap", bytes per member, first)`` when `build` traces under vmap to the same
    structure as an eager build of the first point; ``("points", 0, first)`` otherwise
    (`first`: what the first point that builds returned, or None)."""
    if not callable(build):
        raise ParameterError(f"`build` must be a function of the parameters {list(names)}; "
                             f"got {type(build).__name__}.")
    first = None
    for row in values[:8]:          # the first point that builds (a bad one is recorded later)
        try:
            first = build(**dict(zip(names, map(float, row))))
            break
        except TypeError as exc:
            raise ParameterError(f"`build` does not take the sweep's parameters "
                                 f"{list(names)}: {exc}") from None
        except Exception:
            continue
    if first is None:
        return "points", 0, None
    first = as_system(first)
    if not isinstance(first, AbstractSystem):
        return "points", 0, first
    if run["t_end"] is None:
        raise ParameterError("`t_end` [s] is required to simulate the systems `build` "
                             "returns; pass e.g. t_end=10.0.")
    if run["method"] in ("rk4", "rk_gill", "euler") and run["dt"] is None:
        raise ParameterError("fixed-step methods need `dt` [s]; pass e.g. dt=1e-4.")
    if "initial" in run["options"]:       # a batch takes no initial state: run each point
        return "points", 0, first
    try:
        stacked = build_stacked(build, names, values[:2])
        static_ok = eqx.partition(stacked, eqx.is_array)[1] == \
            eqx.partition(first, eqx.is_array)[1]
    except Exception:
        return "points", 0, first
    if not static_ok:
        return "points", 0, first
    step = run["dt_out"] or run["dt"] or (run["t_end"] / 1000)
    n_out = math.ceil(run["t_end"] / step) + 1
    n_channels = len(first.state_names) + len(first.outputs(0.0, first.initial_state()))
    return "vmap", 8 * 3 * n_out * n_channels, first


def _describe(build) -> str:
    """What `build` is, for the store's identity check (module, name, bound keywords)."""
    import functools

    if isinstance(build, functools.partial):
        bound = ", ".join(f"{k}={v!r}" for k, v in sorted(build.keywords.items()))
        return f"{_describe(build.func)}({bound})"
    return f"{getattr(build, '__module__', '?')}.{getattr(build, '__qualname__', repr(build))}"


def _table(design, keys, analyses, done, kept):
    rows = [done.get(k) for k in keys]
    table = design.copy()
    for name in analyses:
        table[name] = [np.nan if r is None else r.get(name, np.nan) for r in rows]
    table["error"] = pd.Series([("not run" if r is None else r.get("error")) for r in rows],
                               dtype="object")
    if kept is not None:
        table["trajectory"] = pd.Series([kept.get(k) for k in keys], dtype="object")
    return table


class _Progress:
    """A rich progress bar over points, or nothing."""

    def __init__(self, enabled, total):
        enabled = sys.stderr.isatty() if enabled is None else enabled
        self.bar = None
        if enabled and total:
            from rich.progress import (BarColumn, MofNCompleteColumn, Progress,
                                       TimeRemainingColumn)

            self.bar = Progress("sweep", BarColumn(), MofNCompleteColumn(),
                                TimeRemainingColumn(), transient=True)
            self.bar.start()
            self.task = self.bar.add_task("sweep", total=total)

    def advance(self, n):
        if self.bar:
            self.bar.advance(self.task, n)

    def close(self):
        if self.bar:
            self.bar.stop()
