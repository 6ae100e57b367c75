"""`Results`: the time axis plus named channels, with units and metadata.

A run of :func:`stickslip.simulate` returns one. Channels are NumPy arrays whose last axis is
time; a batched run (:func:`stickslip.simulate_batch`) adds a leading member axis.

Files: :meth:`Results.save` writes, and :meth:`Results.load` reads back equal (times,
channels, batch axes, units, metadata, ``final_state``):

* ``.npz`` — everything in one NumPy archive;
* ``.csv`` — a plain table any tool reads (``pandas.read_csv(path)`` with no options): a
  header row ``t,<channel>,…`` (``member,t,<channel>,…`` for a batched run, one row per
  member and time), numbers written exactly (round-trip precision). Units, metadata, batch
  shape and ``final_state`` go into a JSON *sidecar* named after the whole file name,
  ``run.csv`` → ``run.csv.json``; ``save`` returns the CSV path and the sidecar is always
  written next to it. A CSV without its sidecar still loads (no units, no final state);
* ``.parquet`` — the same table with the sidecar's content in the file's schema metadata;
  needs ``pyarrow`` (``pip install stickslip[parquet]``).

A truncated or corrupt file raises :class:`~stickslip.errors.ResultsFileError`.

Examples
--------
>>> import numpy as np, stickslip as ss
>>> res = ss.Results(np.array([0.0, 0.1]), {"p": np.array([0.0, 1.0])}, units={"p": "m"})
>>> res.names, float(res["p"][-1])
(['p'], 1.0)
"""

from __future__ import annotations

import difflib
import json
import math
import numbers
import os
import zipfile
from pathlib import Path
from typing import Any, Iterable, Mapping

import numpy as np

from .errors import ChannelError, MissingDependencyError, ParameterError, ResultsFileError

__all__ = ["Results", "write_sidecar", "sidecar_path"]

_FORMAT = "stickslip.Results"
_VERSION = 1
_SUFFIXES = (".csv", ".npz", ".parquet")


class Results:
    """Time series of a run: ``res.t``, ``res[name]``, ``res.names``, units and metadata.

    Parameters
    ----------
    t: sample times [s], shape (n_t,).
    channels: ``{name: array}``; each array's last axis has length n_t.
    units: ``{name: unit}`` (missing names are unitless).
    meta: metadata: ``system``, ``method``, ``dt``, ``dt_out``, ``parameters``,
        ``wall_time`` [s], ``compiled`` (whether this call compiled), …
    final_state: the full state vector at ``t[-1]`` (per member for batches), so that a run
        can be continued exactly: ``ss.simulate(system, t_end, initial=res)``.
    """

    def __init__(self, t: np.ndarray, channels: Mapping[str, np.ndarray], *,
                 units: Mapping[str, str] | None = None, meta: Mapping[str, Any] | None = None,
                 final_state: np.ndarray | None = None):
        self.t = _numeric("t", t)
        if self.t.ndim != 1:
            raise ParameterError(f"`Results.t` must be a 1-D array of sample times; got shape "
                                 f"{self.t.shape}.")
        if not isinstance(channels, Mapping):
            raise ParameterError(f"`Results.channels` must be a mapping {{name: array}}; got "
                                 f"{type(channels).__name__}.")
        self._channels = {}
        for name, value in channels.items():
            if not isinstance(name, str):
                raise ParameterError(f"`Results.channels` names must be strings; got "
                                     f"{name!r}.")
            value = _numeric(f"channels[{name!r}]", value)
            if value.shape[-1:] != self.t.shape:
                raise ParameterError(f"channel {name!r} has shape {value.shape}; its last axis "
                                     f"must match `Results.t` (length {self.t.shape[0]}).")
            self._channels[name] = value
        if units is not None and not isinstance(units, Mapping):
            raise ParameterError(f"`Results.units` must be a mapping {{name: unit}}; got "
                                 f"{type(units).__name__}.")
        if meta is not None and not isinstance(meta, Mapping):
            raise ParameterError(f"`Results.meta` must be a mapping; got "
                                 f"{type(meta).__name__}.")
        self.units = {name: str((units or {}).get(name, "")) for name in self._channels}
        self.meta = dict(meta or {})
        self.final_state = None if final_state is None else _numeric("final_state",
                                                                     final_state)

    # --- access -------------------------------------------------------------------------
    @property
    def names(self) -> list[str]:
        """Channel names, in order."""
        return list(self._channels)

    def __getitem__(self, name: str) -> np.ndarray:
        try:
            return self._channels[name]
        except (KeyError, TypeError):
            close = difflib.get_close_matches(name, self.names, n=3) \
                if isinstance(name, str) else []
            hint = f" Did you mean {', '.join(map(repr, close))}?" if close else ""
            raise ChannelError(f"no channel {name!r} in these results; channels are "
                               f"{self.names}.{hint}") from None

    def __contains__(self, name: str) -> bool:
        return name in self._channels

    def __len__(self) -> int:
        return self.t.shape[0]

    @property
    def batch_shape(self) -> tuple[int, ...]:
        """Leading member axes of a batched run (``()`` for a single run)."""
        first = next(iter(self._channels.values()), None)
        return () if first is None else first.shape[:-1]

    def member(self, index: int) -> "Results":
        """One member of a batched run as its own `Results`."""
        if not self.batch_shape:
            raise ParameterError("`Results.member`: these results are not batched; there is "
                                 "one member (use the Results itself).")
        n = self.batch_shape[0]
        if isinstance(index, (bool, np.bool_)) or not isinstance(index, numbers.Integral) \
                or not -n <= index < n:
            raise ParameterError(f"`Results.member.index` must be a whole number in "
                                 f"[{-n}, {n - 1}] (the batch has {n} members); got "
                                 f"{index!r}.")
        index = int(index)
        final = None if self.final_state is None else self.final_state[index]
        return Results(self.t, {k: v[index] for k, v in self._channels.items()},
                       units=self.units, meta={**self.meta, "member": index},
                       final_state=final)

    def __repr__(self) -> str:
        span = f"t = {self.t[0]:g} … {self.t[-1]:g} s, {len(self.t)} samples" if len(self.t) \
            else "empty"
        batch = f", batch {self.batch_shape}" if self.batch_shape else ""
        return f"Results({span}{batch}; channels: {', '.join(self.names)})"

    # --- conversion and storage -----------------------------------------------------------
    def to_pandas(self):
        """A DataFrame indexed by time (single run) or by (member, t) (batched run)."""
        import pandas as pd

        shape = self._table_batch_shape()
        if not shape:
            frame = pd.DataFrame(self._channels, index=pd.Index(self.t, name="t"))
        else:
            n = math.prod(shape)
            index = pd.MultiIndex.from_product([range(n), self.t], names=["member", "t"])
            frame = pd.DataFrame(
                {k: np.broadcast_to(v, (*shape, len(self.t))).reshape(n, -1).ravel()
                 for k, v in self._channels.items()}, index=index)
        frame.attrs["units"] = dict(self.units)
        frame.attrs["meta"] = dict(self.meta)
        return frame

    def save(self, path: str | os.PathLike) -> Path:
        """Write to ``.csv`` (+ its JSON sidecar ``<path>.json``), ``.npz`` or ``.parquet``;
        returns `path`. See the module docstring for what each format holds; every one
        loads back equal with :meth:`load`."""
        path = _as_path("Results.save", path)
        suffix = path.suffix.lower()
        if suffix not in _SUFFIXES:
            raise ParameterError(f"`Results.save.path`: cannot save results as "
                                 f"{suffix or 'a file without suffix'!r}: use a path ending "
                                 "in .csv, .npz or .parquet.")
        path.parent.mkdir(parents=True, exist_ok=True)
        if suffix == ".csv":
            self._table().to_csv(path, index=False, na_rep="nan")
            write_sidecar(path, self)
        elif suffix == ".npz":
            extra = {} if self.final_state is None else {"__final_state__": self.final_state}
            with open(path, "wb") as fh:       # np.savez would append .npz to other names
                np.savez(fh, __t__=self.t, __units__=json.dumps(self.units),
                         __meta__=json.dumps(_jsonable(self.meta)),
                         __names__=json.dumps(self.names), **extra,
                         **{f"ch:{k}": v for k, v in self._channels.items()})
        else:
            pa, pq = _pyarrow()
            table = pa.Table.from_pandas(self._table(), preserve_index=False)
            table = table.replace_schema_metadata(
                {**(table.schema.metadata or {}),
                 b"stickslip": json.dumps(self._description()).encode()})
            pq.write_table(table, path)
        return path

    @classmethod
    def load(cls, path: str | os.PathLike) -> "Results":
        """Read results written by :meth:`save` (``.npz``, ``.csv`` with or without its
        sidecar, ``.parquet``). Raises `ResultsFileError` for a missing, truncated or corrupt
        file, naming the path and what is wrong."""
        path = _as_path("Results.load", path)
        suffix = path.suffix.lower()
        if suffix not in _SUFFIXES:
            raise ParameterError(f"`Results.load.path`: cannot load results from "
                                 f"{suffix or 'a file without suffix'!r}: use .csv, .npz or "
                                 ".parquet.")
        if not path.is_file():
            raise ResultsFileError(f"`Results.load.path`: no file {str(path)!r}.")
        if suffix == ".npz":
            return cls._load_npz(path)
        if suffix == ".csv":
            return cls._load_csv(path)
        return cls._load_parquet(path)

    # --- file formats (private) ---------------------------------------------------------
    def _table_batch_shape(self) -> tuple[int, ...]:
        try:
            return np.broadcast_shapes(*(v.shape[:-1] for v in self._channels.values()))
        except ValueError:
            raise ParameterError("these Results' channels have leading (member) axes that do "
                                 "not broadcast together; save them as .npz.") from None

    def _table(self):
        """The long table written to CSV/Parquet: t (and member) plus the channels."""
        import pandas as pd

        shape = self._table_batch_shape()
        n_t = len(self.t)
        if not shape:
            return pd.DataFrame({"t": self.t, **self._channels})
        n = math.prod(shape)
        columns = {"member": np.repeat(np.arange(n), n_t), "t": np.tile(self.t, n)}
        for k, v in self._channels.items():
            columns[k] = np.broadcast_to(v, (*shape, n_t)).reshape(-1)
        return pd.DataFrame(columns)

    def _description(self) -> dict:
        """What a table cannot carry: units, metadata, shapes and the final state."""
        return {"format": _FORMAT, "version": _VERSION, "channels": self.names,
                "samples": len(self.t), "batch_shape": list(self._table_batch_shape()),
                "units": dict(self.units), "meta": _jsonable(self.meta),
                "final_state": None if self.final_state is None else self.final_state.tolist()}

    @classmethod
    def _from_table(cls, frame, description: dict | None, path: Path) -> "Results":
        def fail(what):
            raise ResultsFileError(f"`Results.load`: {str(path)!r} {what}")

        description = description or {}
        if "t" not in frame.columns:
            fail("has no `t` column; it was not written by Results.save (columns: "
                 f"{list(frame.columns)[:8]}).")
        names = description.get("channels",
                                [c for c in frame.columns if c not in ("t", "member")])
        missing = [n for n in names if n not in frame.columns]
        if missing:
            fail(f"lacks the channels {missing} its sidecar lists; the file is damaged.")
        for column in ["t", *names]:
            if frame[column].dtype.kind not in "fiu":
                fail(f"has non-numeric values in column {column!r} (a damaged or truncated "
                     "file?).")
        batched = "member" in frame.columns
        shape = tuple(description.get("batch_shape", ()))
        n_rows = len(frame)
        if batched:
            members = frame["member"].to_numpy()
            n = int(members.max()) + 1 if n_rows else 0
            shape = shape or (n,)
            n_t = n_rows // max(n, 1)
            if n * n_t != n_rows or math.prod(shape) != n:
                fail(f"has {n_rows} rows, which is not {n} members × whole time series: it "
                     "is truncated or damaged.")
            t = frame["t"].to_numpy()[:n_t]
        else:
            t = frame["t"].to_numpy()
            n_t = n_rows
        if "samples" in description and description["samples"] != n_t:
            fail(f"has {n_t} samples per member but its sidecar says "
                 f"{description['samples']}: it is truncated or damaged.")
        channels = {}
        for name in names:
            value = frame[name].to_numpy()
            channels[name] = value.reshape(*shape, n_t) if batched else value
        final = description.get("final_state")
        return cls(t, channels, units=description.get("units"), meta=description.get("meta"),
                   final_state=None if final is None else np.asarray(final, dtype=float))

    @classmethod
    def _load_npz(cls, path: Path) -> "Results":
        try:
            with np.load(path, allow_pickle=False) as data:
                channels = {k[3:]: data[k] for k in data.files if k.startswith("ch:")}
                if "__names__" in data.files:
                    order = json.loads(str(data["__names__"]))
                    channels = {k: channels[k] for k in order}
                final = data["__final_state__"] if "__final_state__" in data.files else None
                return cls(data["__t__"], channels, units=json.loads(str(data["__units__"])),
                           meta=json.loads(str(data["__meta__"])), final_state=final)
        except (zipfile.BadZipFile, EOFError, OSError, KeyError, ValueError) as exc:
            raise ResultsFileError(f"`Results.load`: {str(path)!r} is not a complete results "
                                   f"archive (truncated or damaged: {exc}).") from None

    @classmethod
    def _load_csv(cls, path: Path) -> "Results":
        import pandas as pd

        raw = path.read_bytes()
        if not raw.strip():
            raise ResultsFileError(f"`Results.load`: {str(path)!r} is empty.")
        if not raw.endswith(b"\n"):
            raise ResultsFileError(f"`Results.load`: {str(path)!r} does not end with a line "
                                   "break: it was truncated while being written.")
        description = None
        side = sidecar_path(path)
        if side.is_file():
            try:
                description = json.loads(side.read_text(encoding="utf-8"))
            except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                raise ResultsFileError(f"`Results.load`: the sidecar {str(side)!r} of "
                                       f"{str(path)!r} is not valid JSON ({exc}).") from None
            if not isinstance(description, dict) or description.get("format") != _FORMAT:
                raise ResultsFileError(f"`Results.load`: {str(side)!r} is not a stickslip "
                                       "results sidecar.")
        try:
            frame = pd.read_csv(path)
        except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
            raise ResultsFileError(f"`Results.load`: {str(path)!r} is not a readable CSV "
                                   f"table ({exc}).") from None
        if frame.isna().to_numpy().any() and not _nan_written(path):
            raise ResultsFileError(f"`Results.load`: {str(path)!r} has empty fields (a "
                                   "truncated or damaged file).")
        return cls._from_table(frame, description, path)

    @classmethod
    def _load_parquet(cls, path: Path) -> "Results":
        pa, pq = _pyarrow()
        try:
            table = pq.read_table(path)
        except (pa.ArrowException, OSError) as exc:
            raise ResultsFileError(f"`Results.load`: {str(path)!r} is not a readable Parquet "
                                   f"file (truncated or damaged: {exc}).") from None
        meta = (table.schema.metadata or {}).get(b"stickslip")
        description = json.loads(meta) if meta else None
        return cls._from_table(table.to_pandas(), description, path)

    # --- plotting ------------------------------------------------------------------------
    def plot(self, names: Iterable[str] | None = None, *, axes=None, title: str | None = None,
             **line_kwargs):
        """Plot channels against time, one panel per unit; returns the matplotlib Figure.

        `names` defaults to every channel. Batched results draw one line per member.
        """
        import matplotlib.pyplot as plt

        if isinstance(names, str):
            names = [names]
        names = list(names) if names is not None else self.names
        if not names:
            raise ParameterError("`Results.plot.names` is empty; pass channel names, e.g. "
                                 f"{self.names[:2]}, or omit it for every channel.")
        for name in names:
            self[name]  # raises a helpful ChannelError for a typo
        groups: dict[str, list[str]] = {}
        for name in names:
            groups.setdefault(self.units.get(name, ""), []).append(name)
        if axes is None:
            fig, axes = plt.subplots(len(groups), 1, sharex=True, squeeze=False,
                                     figsize=(7, 2.2 * len(groups) + 0.8))
            axes = axes[:, 0]
        else:
            axes = np.atleast_1d(axes)
            if axes.dtype == object and len(axes) >= len(groups) \
                    and all(hasattr(ax, "plot") for ax in axes):
                fig = axes[0].figure
            else:
                raise ParameterError(f"`Results.plot.axes` must hold {len(groups)} matplotlib "
                                     f"Axes (one per unit: {list(groups)}); got {axes!r:.80}.")
        for ax, (unit, group) in zip(axes, groups.items()):
            for name in group:
                data = self[name].reshape(-1, len(self.t))
                for k, row in enumerate(data):
                    ax.plot(self.t, row, label=name if k == 0 else None, **line_kwargs)
            ax.set_ylabel(f"[{unit}]" if unit else "")
            ax.legend(loc="best", fontsize="small")
            ax.grid(True, alpha=0.3)
        axes[-1].set_xlabel("t [s]")
        if title or "system" in self.meta:
            fig.suptitle(title or f"{self.meta.get('system')} ({self.meta.get('method', '')})")
        fig.tight_layout()
        return fig


def sidecar_path(path: str | os.PathLike) -> Path:
    """The JSON sidecar of a CSV results file: ``run.csv`` → ``run.csv.json``."""
    path = Path(path)
    return path.with_name(path.name + ".json")


def write_sidecar(path: str | os.PathLike, results: Results) -> Path:
    """Write the sidecar of the CSV `path` for `results` (used by ``save`` and by
    ``simulate(..., stream_to=path)``); returns the sidecar's path."""
    side = sidecar_path(path)
    side.write_text(json.dumps(results._description(), indent=1), encoding="utf-8")
    return side


def _nan_written(path: Path) -> bool:
    """True when every empty-looking value in the CSV is a written NaN (``nan``), not a
    missing field."""
    with open(path, encoding="utf-8") as fh:
        header = fh.readline().rstrip("\n").split(",")
        for line in fh:
            fields = line.rstrip("\n").split(",")
            if len(fields) != len(header) or any(f == "" for f in fields):
                return False
    return True


def _pyarrow():
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise MissingDependencyError("Parquet files need pyarrow: `pip install "
                                     "stickslip[parquet]` (or pyarrow); or save as .npz or "
                                     ".csv.") from None
    return pa, pq


def _as_path(owner: str, path) -> Path:
    if not isinstance(path, (str, os.PathLike)):
        raise ParameterError(f"`{owner}.path` must be a file path (str or Path); got "
                             f"{type(path).__name__}.")
    return Path(path)


def _numeric(name: str, value) -> np.ndarray:
    try:
        arr = np.asarray(value)
    except Exception:                       # ragged lists and the like
        arr = np.asarray(value, dtype=object)
    if arr.dtype.kind not in "fiub" and arr.size:
        raise ParameterError(f"`Results.{name}` must be numeric; got an array of dtype "
                             f"{arr.dtype}.")
    return arr


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (np.floating, np.integer)):
        return value.item()
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return repr(value)
