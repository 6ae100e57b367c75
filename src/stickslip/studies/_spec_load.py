"""What a spec file for ``stickslip sweep SPEC`` and ``stickslip fit SPEC`` (YAML or TOML)
holds, and `load_spec`, which checks it into the arguments of `sweep` or `fit`.

A sweep::

    model: friction_mass            # a key of stickslip.studies.MODELS, or "pkg.module:func"
    fixed: {M: 1.0, K: 1.0e4}       # other keywords of the builder
    parameters:                     # the swept ones
      F: [0.2, 0.4, 0.6]            #   values (grid), or
      amplitude: {low: 0.3, high: 0.9, num: 4}   # a range (num points for a grid)
    design: grid                    # or latin_hypercube / random, with samples: and seed:
    simulate: {t_end: 10.0, dt: 1.0e-4, dt_out: 1.0e-2, method: rk4}
    outputs: [stick_fraction, "max_abs(p)", energy_loss]
    backend: vmap                   # or processes (workers: 2) or dask (scheduler: tcp://…)
    store: sweep_store              # resumable Parquet store (optional)
    out: sweep.csv                  # .csv or .parquet

A fit::

    model: lugre_block
    fixed: {amplitude: 3.0}
    data: measured.csv              # a CSV with a column t [s] and the measured channels
    channels: [p, v, f]
    parameters: {mu_s: 0.35, mu_k: 0.15, k0: 5.0e4}   # fitted, with their start values
    bounds: {mu_s: [0.0, 1.0]}      # optional
    simulate: {dt: 1.0e-4}
    out: fit.json                   # estimates and intervals (+ fit.png beside it)

Paths are relative to the spec file. Every problem is reported as
``FILE:LINE: `key` …`` (:class:`SpecError`).
"""

from __future__ import annotations

import difflib
import importlib
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import MemoryBudgetError, ParameterError
from ._extras import require
from ._spec_read import _Reader

__all__ = ["load_spec"]

_COMMON = {"model", "fixed", "parameters", "simulate", "out", "kind"}
_KEYS = {
    "sweep": _COMMON | {"design", "samples", "seed", "outputs", "backend", "workers",
                        "scheduler", "chunk", "store", "retry_failed"},
    "fit": _COMMON | {"data", "channels", "bounds", "weights", "solver", "confidence",
                      "max_steps", "plot"},
}
_SIMULATE = {"sweep": {"t_end", "dt", "dt_out", "method"}, "fit": {"dt", "method"}}


def _builder(reader: _Reader):
    from ._models import MODELS

    name = reader.get(("model",), required=True)
    if not isinstance(name, str):
        raise reader.error(("model",), f"must be a model name; got {name!r}.")
    if ":" in name:
        module, _, attr = name.partition(":")
        try:
            return getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError) as exc:
            raise reader.error(("model",), f"cannot import {name!r}: {exc}.") from None
    if name not in MODELS:
        close = difflib.get_close_matches(name, sorted(MODELS), n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise reader.error(("model",), f"names no known model {name!r}; known: "
                                       f"{sorted(MODELS)} (or 'package.module:function').{hint}")
    return MODELS[name].build


def _keywords(reader, build, names, path):
    import inspect

    try:
        sig = inspect.signature(build)
    except (TypeError, ValueError):
        return
    if any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values()):
        return
    for name in names:
        if name not in sig.parameters:
            close = [p for p in sig.parameters if p.lower() == str(name).lower()] or \
                difflib.get_close_matches(str(name), list(sig.parameters), n=1)
            hint = f" Did you mean `{close[0]}`?" if close else ""
            raise reader.error(path + (name,), f"is not a parameter of model "
                                               f"{reader.get(('model',))!r}; its parameters "
                                               f"are {list(sig.parameters)}.{hint}")


def _fixed(reader, build):
    fixed = reader.mapping(("fixed",))
    reader.check_names(("fixed",), fixed)
    _keywords(reader, build, fixed, ("fixed",))
    return {k: reader.number(("fixed", k), v) for k, v in fixed.items()}


def _sweep_design(reader):
    params = reader.mapping(("parameters",), required=True)
    if not params:
        raise reader.error(("parameters",), "is empty; name at least one swept parameter.")
    reader.check_names(("parameters",), params)
    try:
        return _design_points(reader, params)
    except MemoryBudgetError as exc:      # with the place in the file that asks for it
        design = reader.get(("design",), "grid")
        path = ("parameters",) if design == "grid" else ("samples",)
        where = reader.error(path, "")
        raise MemoryBudgetError(f"{where.file}:{where.line}: `{'.'.join(path)}` asks for "
                                f"too many points: {exc}") from None


def _design_points(reader, params):
    from ._grid import check_design_memory, grid, latin_hypercube, random_sample

    design = reader.get(("design",), "grid")
    if design not in ("grid", "latin_hypercube", "random"):
        raise reader.error(("design",), f"must be grid, latin_hypercube or random; got "
                                        f"{design!r}.")
    axes, ranges = {}, {}
    for name, spec in params.items():
        path = ("parameters", name)
        if isinstance(spec, list):
            if design != "grid":
                raise reader.error(path, f"lists values, which only a grid design takes; give "
                                         f"{{low: …, high: …}} for {design}.")
            if not spec:
                raise reader.error(path, "is an empty list; give at least one value.")
            axes[name] = [reader.number(path + (i,), v) for i, v in enumerate(spec)]
        elif isinstance(spec, dict):
            for key in spec:
                if key not in ("low", "high", "num"):
                    raise reader.error(path + (key,), "is not a known key; a range has low, "
                                                      "high and (for a grid) num.")
            low = reader.number(path + ("low",), required=True)
            high = reader.number(path + ("high",), required=True)
            if high < low:
                raise reader.error(path, f"has high < low ({high} < {low}); swap them.")
            ranges[name] = (low, high)
            if design == "grid":
                num = reader.number(path + ("num",), integer=True, positive=True,
                                    required=True)
                axes[name] = (low, high, num)          # made once the size is checked
        else:
            raise reader.error(path, f"must be a list of values or {{low:, high:, num:}}; got "
                                     f"{spec!r}.")
    if design == "grid":
        check_design_memory("grid", [len(v) if isinstance(v, list) else v[2]
                                     for v in axes.values()])
        return grid(**{name: v if isinstance(v, list) else np.linspace(*v)
                       for name, v in axes.items()})
    n = reader.number(("samples",), integer=True, positive=True, required=True)
    seed = reader.number(("seed",), integer=True, default=0)
    if seed < 0:
        raise reader.error(("seed",), f"must be a whole number >= 0 (the random generator "
                                      f"takes no negative seed); got {seed}.")
    sample = latin_hypercube if design == "latin_hypercube" else random_sample
    return sample(n, seed=seed, **ranges)


def _simulate(reader, kind):
    sim = reader.mapping(("simulate",), required=True)
    reader.check_keys(("simulate",), _SIMULATE[kind])
    out = {}
    for key in ("t_end", "dt", "dt_out"):
        if key in _SIMULATE[kind]:
            out[key] = reader.number(("simulate", key), positive=True,
                                     required=(key in ("t_end", "dt") and kind == "sweep")
                                     or (key == "dt"))
    method = sim.get("method", "rk4")
    from ..integrate import FIXED_STEP_METHODS, METHODS

    allowed = METHODS if kind == "sweep" else tuple(FIXED_STEP_METHODS)
    if method not in allowed:
        raise reader.error(("simulate", "method"), f"must be one of {list(allowed)}; got "
                                                   f"{method!r}.")
    out["method"] = method
    return out


def load_spec(path, *, kind: str | None = None) -> dict:
    """Read and validate a spec file; returns the arguments of `sweep` or `fit` plus
    ``kind`` (``"sweep"`` or ``"fit"``, from the ``kind:`` key or the keys present) and
    ``out``. Raises :class:`SpecError` (``FILE:LINE: `key` …``) on the first problem."""
    reader = _Reader(Path(path))
    declared = reader.get(("kind",))
    if declared is not None and declared not in _KEYS:
        raise reader.error(("kind",), f"must be sweep or fit; got {declared!r}.")
    if kind is not None and declared is not None and declared != kind:
        raise reader.error(("kind",), f"says {declared!r}, but this is `stickslip {kind}`.")
    if not kind:                # `declared` is one of _KEYS (checked above) when given
        kind = str(declared) if declared else ("fit" if "data" in reader.data else "sweep")
    reader.check_keys((), _KEYS[kind])
    build = _builder(reader)
    spec: dict[str, Any] = {"kind": kind, "build": build, "fixed": _fixed(reader, build),
                            "simulate": _simulate(reader, kind)}
    spec["out"] = reader.resolve("out") if "out" in reader.data else None
    if kind == "sweep":
        design = _sweep_design(reader)
        _keywords(reader, build, design.columns, ("parameters",))
        clash = sorted(set(design.columns) & set(spec["fixed"]))
        if clash:
            raise reader.error(("fixed", clash[0]), "is both fixed and swept; keep it in one.")
        spec["design"] = design
        outputs = reader.get(("outputs",), required=True)
        if isinstance(outputs, str):
            outputs = [outputs]
        if not isinstance(outputs, list) or not outputs:
            raise reader.error(("outputs",), f"must be a list of analyses; got {outputs!r}.")
        from ._analyses import resolve_analyses

        for i, item in enumerate(outputs):
            try:
                resolve_analyses([item])
            except ParameterError as exc:
                raise reader.error(("outputs", i), str(exc)) from None
        spec["outputs"] = outputs
        backend = reader.get(("backend",), "vmap")
        if backend not in ("vmap", "processes", "dask"):
            raise reader.error(("backend",), f"must be vmap, processes or dask; got "
                                             f"{backend!r}.")
        spec["backend"] = backend
        spec["workers"] = reader.number(("workers",), integer=True, positive=True)
        spec["chunk"] = reader.number(("chunk",), integer=True, positive=True)
        scheduler = reader.get(("scheduler",))
        if scheduler is not None and (backend != "dask" or not isinstance(scheduler, str)):
            raise reader.error(("scheduler",), "is a Dask scheduler address such as "
                                               "'tcp://host:8786' and needs backend: dask.")
        spec["scheduler"] = scheduler
        spec["store"] = reader.resolve("store") if "store" in reader.data else None
        spec["retry_failed"] = bool(reader.get(("retry_failed",), False))
        if spec["out"] is not None and spec["out"].suffix.lower() not in (".csv", ".parquet"):
            raise reader.error(("out",), f"must end in .csv or .parquet; got "
                                         f"{spec['out'].name!r}.")
        if spec["out"] is not None and spec["out"].suffix.lower() == ".parquet":
            require("pyarrow", "Parquet tables", alternative=", or give `out` a .csv name")
    else:
        params = reader.mapping(("parameters",), required=True)
        if not params:
            raise reader.error(("parameters",), "is empty; name the parameters to fit with "
                                                "their start values.")
        reader.check_names(("parameters",), params)
        _keywords(reader, build, params, ("parameters",))
        spec["params"] = {k: reader.number(("parameters", k), v) for k, v in params.items()}
        clash = sorted(set(spec["params"]) & set(spec["fixed"]))
        if clash:
            raise reader.error(("fixed", clash[0]), "is both fixed and fitted; keep it in one.")
        data_path = reader.resolve("data")
        if not data_path.exists():
            raise reader.error(("data",), f"names a file that does not exist: {data_path}.")
        spec["data"] = _read_data(reader, data_path)
        channels = reader.get(("channels",))
        if channels is not None:
            if isinstance(channels, str):
                channels = [channels]
            for i, c in enumerate(channels):
                if c not in spec["data"]:
                    raise reader.error(("channels", i), f"names {c!r}, which is not a column "
                                                        f"of {data_path.name} "
                                                        f"({sorted(spec['data'])}).")
        spec["channels"] = channels
        bounds = {}
        for name, pair in reader.mapping(("bounds",)).items():
            path = ("bounds", name)
            if name not in spec["params"]:
                raise reader.error(path, f"bounds a parameter that is not fitted; fitted: "
                                         f"{sorted(spec['params'])}.")
            if not isinstance(pair, list) or len(pair) != 2:
                raise reader.error(path, f"must be [low, high] (either may be null); got "
                                         f"{pair!r}.")
            bounds[name] = tuple(None if v is None else reader.number(path + (i,), v)
                                 for i, v in enumerate(pair))
        spec["bounds"] = bounds
        spec["weights"] = {k: reader.number(("weights", k), v, positive=True)
                           for k, v in reader.mapping(("weights",)).items()}
        confidence = reader.number(("confidence",), default=0.95)   # a number: has a default
        if confidence is None or not 0 < confidence < 1:
            raise reader.error(("confidence",), f"must be between 0 and 1; got {confidence}.")
        spec["confidence"] = confidence
        spec["solver"] = reader.get(("solver",), "levenberg_marquardt")
        if spec["solver"] not in ("levenberg_marquardt", "optimistix_lm", "gauss_newton"):
            raise reader.error(("solver",), "must be levenberg_marquardt, optimistix_lm or gauss_newton; got "
                                            f"{spec['solver']!r}.")
        spec["max_steps"] = reader.number(("max_steps",), integer=True, positive=True,
                                          default=200)
        spec["plot"] = bool(reader.get(("plot",), True))
        if spec["out"] is not None and spec["out"].suffix.lower() != ".json":
            raise reader.error(("out",), f"must end in .json; got {spec['out'].name!r}.")
    return spec


def _read_data(reader, path: Path) -> dict:
    import pandas as pd

    try:
        frame = pd.read_csv(path, comment="#")
    except Exception as exc:
        raise reader.error(("data",), f"cannot be read as CSV: {exc}.") from None
    if "t" not in frame.columns:
        raise reader.error(("data",), f"file {path.name} has no column `t` (time [s]); its "
                                      f"columns are {list(frame.columns)}.")
    return {c: frame[c].to_numpy(dtype=float) for c in frame.columns}
