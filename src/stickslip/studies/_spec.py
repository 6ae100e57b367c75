"""Spec files for ``stickslip sweep SPEC`` and ``stickslip fit SPEC`` (YAML or TOML).

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
import json
import re
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import MemoryBudgetError, MissingDependencyError, ParameterError
from ._extras import require

__all__ = ["DOCS_PAGE", "SpecError", "load_spec", "run_spec"]

DOCS_PAGE = "Studies: sweeps and friction identification"   # docs/studies.md, by its title


class SpecError(ParameterError):
    """A spec file is invalid; the message starts with ``FILE:LINE:`` and names the key."""

    def __init__(self, message: str, *, file: str, line: int | None, key: str):
        where = f"{file}:{line}" if line else file
        super().__init__(f"{where}: {message}")
        self.file, self.line, self.key = file, line, key


_COMMON = {"model", "fixed", "parameters", "simulate", "out", "kind"}
_KEYS = {
    "sweep": _COMMON | {"design", "samples", "seed", "outputs", "backend", "workers",
                        "scheduler", "chunk", "store", "retry_failed"},
    "fit": _COMMON | {"data", "channels", "bounds", "weights", "solver", "confidence",
                      "max_steps", "plot"},
}
_SIMULATE = {"sweep": {"t_end", "dt", "dt_out", "method"}, "fit": {"dt", "method"}}


# --- reading with line numbers ------------------------------------------------------------

# what a spec file may hold: its size, and the values it expands to through YAML aliases
# (`*name` repeats the value anchored `&name`: nine aliases of nine aliases … nine levels
# deep — the "billion laughs" — are 9⁹ values from a few hundred bytes)
_MAX_BYTES = 1_000_000
_MAX_VALUES = 100_000


def _decode(raw: bytes, file: str) -> str:
    """The text of a spec file: UTF-8 (with or without a byte-order mark), or UTF-16/32
    with one; anything else is refused with what it looks like and the fix."""
    for bom, codec in ((b"\xef\xbb\xbf", "utf-8-sig"), (b"\xff\xfe\x00\x00", "utf-32"),
                       (b"\x00\x00\xfe\xff", "utf-32"), (b"\xff\xfe", "utf-16"),
                       (b"\xfe\xff", "utf-16")):
        if raw.startswith(bom):
            break
    else:
        codec = "utf-8"
    fix = "Save the spec as UTF-8 text (an editor's 'Save with encoding' → UTF-8)."
    if codec == "utf-8" and b"\x00" in raw:
        raise SpecError(f"is not text: it holds NUL bytes (a binary file, or UTF-16 without "
                        f"a byte-order mark). {fix}", file=file,
                        line=raw[: raw.index(b"\x00")].count(b"\n") + 1, key="")
    try:
        text = raw.decode(codec)
    except UnicodeDecodeError as exc:
        if codec != "utf-8":
            raise SpecError(f"starts with a {codec.upper()} byte-order mark but is not "
                            f"{codec.upper()} text. {fix}", file=file, line=None,
                            key="") from None
        raise SpecError(f"is not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset "
                        f"{exc.start} is not valid UTF-8: Latin-1 or Windows-1252?). {fix}",
                        file=file, line=raw[: exc.start].count(b"\n") + 1, key="") from None
    if "\x00" in text:
        raise SpecError(f"is not text: it holds NUL characters (a binary file?). {fix}",
                        file=file, line=text[: text.index("\x00")].count("\n") + 1, key="")
    return text


def _yaml_marks(text: str, file: str = "") -> tuple[Any, dict]:
    yaml = require("yaml", "YAML spec files", alternative=", or write the spec as .toml")
    marks: dict[tuple, int] = {}
    root = yaml.compose(text, Loader=yaml.SafeLoader)
    if root is None:
        return None, marks
    _check_expansion(yaml, root, file)

    def walk(node, path):
        marks.setdefault(path, node.start_mark.line + 1)
        if isinstance(node, yaml.MappingNode):
            seen: dict = {}
            for key, value in node.value:
                if key.tag == "tag:yaml.org,2002:merge":      # `<<: *defaults`
                    walk(value, path)
                    continue
                name = str(key.value)
                sub = path + (name,)
                if name in seen:
                    full = ".".join(map(str, sub))
                    raise SpecError(f"`{full}` is given twice (lines {seen[name]} and "
                                    f"{key.start_mark.line + 1}); keep one (the later value "
                                    "would silently replace the first).", file=file,
                                    line=key.start_mark.line + 1, key=full)
                seen[name] = key.start_mark.line + 1
                marks[sub] = key.start_mark.line + 1
                walk(value, sub)
        elif isinstance(node, yaml.SequenceNode):
            for i, value in enumerate(node.value):
                walk(value, path + (i,))

    walk(root, ())
    return yaml.safe_load(text), marks


def _check_expansion(yaml, root, file: str) -> None:
    """Refuse a YAML document that expands to more than ``_MAX_VALUES`` values through its
    aliases — counted on the node graph, each node once, before anything is expanded."""
    sizes: dict[int, int] = {}
    stack = [(root, False)]
    while stack:                       # post-order, without recursion
        node, ready = stack.pop()
        if id(node) in sizes:
            continue
        if isinstance(node, yaml.MappingNode):
            children = [n for pair in node.value for n in pair]
        elif isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        else:
            children = []
        if ready:
            sizes[id(node)] = 1 + sum(sizes.get(id(c), 0) for c in children)
            if sizes[id(node)] > _MAX_VALUES:
                raise SpecError(f"expands to more than {_MAX_VALUES:,} values through its "
                                "YAML aliases (*name repeating &name: a 'billion laughs' "
                                "document); a spec needs a few dozen. Write the values out, "
                                "or use a {low:, high:, num:} range.", file=file,
                                line=node.start_mark.line + 1, key="")
        else:
            stack.append((node, True))
            stack.extend((c, False) for c in children if id(c) not in sizes)


def _toml_duplicate(text: str, line: int | None, problem: str) -> str | None:
    """The key or table that tomllib refuses as defined twice ("Cannot overwrite a value",
    "Cannot declare ('simulate',) twice"), or None for another problem."""
    declared = re.match(r"Cannot declare \(([^)]*)\) twice", problem)
    if declared:
        return ".".join(p.strip().strip("'\"") for p in declared.group(1).split(",")
                        if p.strip())
    if "Cannot overwrite a value" not in problem or not line:
        return None
    lines = text.splitlines()
    if not 0 < line <= len(lines):
        return None
    found = re.match(r'^\s*\[*\s*"?([A-Za-z0-9_.\-]+)"?\s*[\]=]', lines[line - 1])
    return found.group(1) if found else None


def _toml_marks(text: str) -> tuple[Any, dict]:
    import tomllib

    data = tomllib.loads(text)
    lines = text.splitlines()
    marks: dict[tuple, int] = {}
    section: tuple = ()
    for number, line in enumerate(lines, start=1):
        header = re.match(r"^\s*\[\s*([^\]]+?)\s*\]\s*$", line)
        if header:
            section = tuple(p.strip().strip('"') for p in header.group(1).split("."))
            marks.setdefault(section, number)
            continue
        key = re.match(r'^\s*"?([A-Za-z0-9_.\-]+)"?\s*=', line)
        if key:
            path = section + tuple(key.group(1).split("."))
            marks.setdefault(path, number)
            for inner in re.finditer(r'([A-Za-z_][A-Za-z0-9_]*)\s*=', line[key.end():]):
                marks.setdefault(path + (inner.group(1),), number)
    return data, marks


class _Reader:
    """Typed access to a spec's values; every error names the file, line and key."""

    def __init__(self, path: Path):
        self.path = path
        self.file = str(path)
        try:
            size = path.stat().st_size
            if size > _MAX_BYTES:
                raise SpecError(f"is {size:,} bytes; a spec file is a few kB (at most "
                                f"{_MAX_BYTES:,} bytes are read). Put measured data in the "
                                "CSV file that `data:` names, and long value lists in a "
                                "{low:, high:, num:} range.", file=self.file, line=None,
                                key="")
            raw = path.read_bytes()
        except OSError as exc:
            raise SpecError(f"cannot read the spec file: {exc.strerror}.", file=self.file,
                            line=None, key="") from None
        text = _decode(raw, self.file)
        try:
            if path.suffix.lower() == ".toml":
                self.data, self.marks = _toml_marks(text)
            elif path.suffix.lower() in (".yaml", ".yml"):
                self.data, self.marks = _yaml_marks(text, self.file)
            else:
                raise SpecError(f"unknown spec format {path.suffix!r}; use .yaml, .yml or "
                                ".toml.", file=self.file, line=None, key="")
        except (SpecError, MissingDependencyError):
            raise
        except RecursionError:
            raise SpecError("nests its values too deeply to be a spec (lists or mappings "
                            "inside each other thousands of levels down); write it as the "
                            f"format on the docs page {DOCS_PAGE!r} shows.", file=self.file,
                            line=None, key="") from None
        except Exception as exc:           # a syntax error: the parser knows the line
            mark = getattr(exc, "problem_mark", None)
            line = mark.line + 1 if mark is not None else getattr(exc, "lineno", None)
            problem = getattr(exc, "problem", None) or exc
            at = re.search(r"\(at line (\d+), column \d+\)", str(problem))
            if line is None and at:                  # tomllib says where in its message
                line = int(at.group(1))
            twice = _toml_duplicate(text, line, str(problem))
            if twice is not None:
                raise SpecError(f"`{twice}` is given twice; keep one (a later value would "
                                "silently replace the first).", file=self.file, line=line,
                                key=twice) from None
            raise SpecError(f"not valid {path.suffix[1:].upper()}: {problem}.",
                            file=self.file, line=line, key="") from None
        if not isinstance(self.data, dict):
            raise SpecError("the spec must be a mapping of keys (model:, parameters:, …).",
                            file=self.file, line=1, key="")

    def error(self, path: tuple, message: str) -> SpecError:
        line = None
        for k in range(len(path), -1, -1):
            if path[:k] in self.marks:
                line = self.marks[path[:k]]
                break
        key = ".".join(map(str, path))
        return SpecError(f"`{key}` {message}", file=self.file, line=line, key=key)

    def get(self, path: tuple, default=None, *, required=False):
        node = self.data
        for k, part in enumerate(path):
            if not isinstance(node, dict) or part not in node:
                if not required:
                    return default
                parent = path[:k]
                key = ".".join(map(str, path))
                where = f"under `{'.'.join(map(str, parent))}`" if parent else "in the spec"
                return_line = self.marks.get(parent) if parent else None
                raise SpecError(f"`{key}` is missing {where}; add it (the format is on the "
                                f"docs page {DOCS_PAGE!r}).", file=self.file,
                                line=return_line, key=key)
            node = node[part]
        return node

    def number(self, path, value=None, *, positive=False, integer=False, default=None,
               required=False):
        value = self.get(path, default, required=required) if value is None else value
        if value is None:
            return None
        try:
            if isinstance(value, bool):
                raise ValueError
            number = float(value)       # YAML 1.1 reads 1e-4 (no dot) as text: accept it
        except (TypeError, ValueError):
            raise self.error(path, f"must be a number; got {value!r}.") from None
        if not np.isfinite(number) or (positive and number <= 0):
            raise self.error(path, f"must be a {'positive ' if positive else ''}finite number; "
                                   f"got {value!r}.")
        if integer:
            if number != int(number):
                raise self.error(path, f"must be a whole number; got {value!r}.")
            return int(number)
        return number

    def mapping(self, path, *, required=False):
        value = self.get(path, None, required=required)
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise self.error(path, f"must be a mapping (key: value lines); got {value!r}.")
        return value

    def check_keys(self, path, allowed):
        node = self.data if not path else self.mapping(path)
        for key in node:
            if key not in allowed:
                close = difflib.get_close_matches(str(key), sorted(allowed), n=1)
                hint = f" Did you mean `{close[0]}`?" if close else ""
                raise self.error(path + (key,), f"is not a known key; known: "
                                                f"{sorted(allowed)}.{hint}")

    def check_names(self, path: tuple, names) -> None:
        """Every key under `path` names a parameter: a string that is a Python identifier
        (they are passed to the model as keyword arguments)."""
        for name in names:
            if isinstance(name, str) and name.isidentifier():
                continue
            if isinstance(name, bool):
                why = (f"{name!r} (YAML reads an unquoted true, false, yes, no, on or off as "
                       "true or false)")
            elif not isinstance(name, str):
                why = f"the number {name!r} (YAML reads an unquoted {name!r} as a number)"
            else:
                why = repr(name)
            raise self.error(path + (str(name),),
                             f"is not a parameter name: parameters are passed to the model "
                             f"as keyword arguments, so their names must be identifiers "
                             f"such as `F` or `amplitude`; got {why}. Use the model's "
                             f"parameter name.")

    def resolve(self, path_key: str) -> Path:
        value = self.get((path_key,))
        if not isinstance(value, str) or not value:
            raise self.error((path_key,), f"must be a file path; got {value!r}.")
        path = Path(value)
        return path if path.is_absolute() else self.path.parent / path


# --- validation ---------------------------------------------------------------------------

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
    kind = kind or declared or ("fit" if "data" in reader.data else "sweep")
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
        spec["confidence"] = reader.number(("confidence",), default=0.95)
        if not 0 < spec["confidence"] < 1:
            raise reader.error(("confidence",), f"must be between 0 and 1; got "
                                                f"{spec['confidence']}.")
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


# --- running ------------------------------------------------------------------------------

def run_spec(path, *, progress: bool | None = None, kind: str | None = None):
    """Validate and run a spec file; write its ``out`` file(s). Returns the sweep's table or
    the :class:`~stickslip.studies.FitResult`. With `kind` (``"sweep"``/``"fit"``, as the
    CLI passes) a spec of the other kind is refused."""
    spec = load_spec(path, kind=kind)
    if spec["kind"] == "sweep":
        return _run_sweep(spec, progress)
    return _run_fit(spec)


def _check_outputs(spec, plot: bool = False) -> None:
    """Refuse an `out:` that cannot be written before the study runs (not after it, losing
    the results): its directory is created and probed, an existing read-only file named."""
    from ._store import check_writable_file

    out = spec["out"]
    if out is not None:
        check_writable_file(out, "out")
        if plot:
            check_writable_file(out.with_suffix(".png"), "out")


def _run_sweep(spec, progress):
    from functools import partial

    from ._sweep import sweep

    _check_outputs(spec)
    build = partial(spec["build"], **spec["fixed"]) if spec["fixed"] else spec["build"]
    table = sweep(build, spec["design"], spec["outputs"], **spec["simulate"],
                  backend=spec["backend"], workers=spec["workers"], chunk=spec["chunk"],
                  client=spec["scheduler"], store=spec["store"],
                  retry_failed=spec["retry_failed"], progress=progress)
    out = spec["out"]
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        frame = table.drop(columns=["trajectory"], errors="ignore")
        frame.to_csv(out, index=False) if out.suffix.lower() == ".csv" \
            else frame.to_parquet(out, index=False)
    return table


def _run_fit(spec):
    from ._fit import fit

    _check_outputs(spec, plot=bool(spec["plot"]))
    result = fit(spec["build"], spec["data"], spec["params"], fixed=spec["fixed"],
                 channels=spec["channels"], bounds=spec["bounds"] or None,
                 weights=spec["weights"] or None, confidence=spec["confidence"],
                 solver=spec["solver"], max_steps=spec["max_steps"], **spec["simulate"])
    out = spec["out"]
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps({
            "estimates": result.estimates, "intervals": result.intervals,
            "stderr": result.stderr, "confidence": result.confidence,
            "residual_norm": result.residual_norm, "converged": result.converged,
            "steps": result.steps, "n_data": result.n_data}, indent=1))
        if spec["plot"]:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt

            fig = result.plot()
            fig.savefig(out.with_suffix(".png"), dpi=120)
            plt.close(fig)
    return result
