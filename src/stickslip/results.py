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
  ``run.csv`` → ``run.csv.json``, with the sha256 checksum and the row count of the CSV
  (``"csv": {"sha256", "rows", "bytes"}``); ``save`` returns the CSV path and the sidecar is
  always written next to it. A CSV without its sidecar still loads (no units, no final
  state); one that does not match its sidecar's checksum does not;
* ``.parquet`` — the same table with the sidecar's content in the file's schema metadata
  (and page checksums); needs ``pyarrow`` (``pip install stickslip[parquet]``).

Saving is atomic: each file is written to a temporary file in the same directory and moved
into place, so a save interrupted at any moment (even ``kill -9``) leaves the previous
complete file, which still loads (a stray ``.<name>.<random>.tmp`` may stay; nothing reads
it). ``save`` writes into an existing directory; ``parents=True`` creates it. A truncated,
corrupt or partial file — or a CSV that no longer matches its sidecar — raises
:class:`~stickslip.errors.ResultsFileError` naming the file and what is wrong.

The time axis must be finite and strictly increasing, and the channel names ``t`` and
``member`` (the table's own columns), the empty name and names with a comma or a line break
(which a CSV header cannot carry plainly) are refused when a `Results` is built.

Renamed channels keep their old name as a deprecated alias (:data:`DEPRECATED_CHANNELS`,
``Results.aliases``): ``res[old]`` still reads the new channel, with a
``DeprecationWarning`` naming it, but the old name is in no listing — not ``names``, not
the CSV/Parquet/NPZ columns, not ``to_pandas()``.

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
import warnings
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from . import _results_files as files
from ._results_files import jsonable as _jsonable
from ._results_files import sidecar_path
from .errors import ChannelError, ParameterError, ResultsFileError

__all__ = ["DEPRECATED_CHANNELS", "Results", "sidecar_path", "write_sidecar"]

#: Renamed channels, old name → new name: ``res[old]`` returns ``res[new]`` with a
#: ``DeprecationWarning`` wherever the new channel exists (and the old is not a channel).
DEPRECATED_CHANNELS: dict[str, str] = {
    "a": "proxy_offset",      # FrictionMass: CoulombODE's state `a` is the proxy offset [m]
}

_SUFFIXES = (".csv", ".npz", ".parquet")
# channel names the CSV/Parquet table would mangle: its own columns, and names a CSV header
# cannot carry plainly (pandas reads "" back as "Unnamed: 1"; commas and line breaks break
# the check for written NaNs)
_TABLE_COLUMNS = {"t": "the sample times", "member": "the member index of a batched run"}
_HEADER_BREAKERS = (",", "\n", "\r")


class Results:
    """Time series of a run: ``res.t``, ``res[name]``, ``res.names``, units and metadata.

    Parameters
    ----------
    t : np.ndarray
        sample times [s], shape (n_t,), finite and strictly increasing.
    channels
        ``{name: array}``; each array's last axis has length n_t. Names are strings;
        ``t``, ``member``, ``""`` and names with a comma or a line break are refused (the
        CSV/Parquet table could not carry them back).
    units
        ``{name: unit}`` (missing names are unitless).
    meta
        metadata: ``system``, ``method``, ``dt``, ``dt_out``, ``parameters``,
        ``wall_time`` [s], ``compiled`` (whether this call compiled), …
    final_state : np.ndarray, optional
        the full state vector at ``t[-1]`` (per member for batches), so that a run
        can be continued exactly: ``ss.simulate(system, t_end, initial=res)``.
    aliases
        more deprecated names ``{old: new}`` besides :data:`DEPRECATED_CHANNELS`.
        ``res.aliases`` holds those that apply (``new`` is a channel, ``old`` is not):
        ``res[old]`` warns and returns ``res[new]``; ``old`` is listed nowhere. Files do
        not keep them (the :data:`DEPRECATED_CHANNELS` apply again on load).
    """

    def __init__(self, t: np.ndarray, channels: Mapping[str, np.ndarray], *,
                 units: Mapping[str, str] | None = None, meta: Mapping[str, Any] | None = None,
                 final_state: np.ndarray | None = None,
                 aliases: Mapping[str, str] | None = None):
        self.t = _check_times(_numeric("t", t))
        if not isinstance(channels, Mapping):
            raise ParameterError(f"`Results.channels` must be a mapping {{name: array}}; got "
                                 f"{type(channels).__name__}.")
        self._channels = {}
        for name, value in channels.items():
            _check_channel_name(name)
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
        self.aliases = {old: new for old, new in {**DEPRECATED_CHANNELS,
                                                  **dict(aliases or {})}.items()
                        if new in self._channels and old not in self._channels}

    # --- access -------------------------------------------------------------------------
    @property
    def names(self) -> list[str]:
        """Channel names, in order."""
        return list(self._channels)

    def __getitem__(self, name: str) -> np.ndarray:
        try:
            return self._channels[name]
        except (KeyError, TypeError):
            if isinstance(name, str) and name in self.aliases:
                new = self.aliases[name]
                warnings.warn(f"channel {name!r} is a deprecated alias of {new!r} (the same "
                              f"values) and will be removed; read res[{new!r}] instead.",
                              DeprecationWarning, stacklevel=2)
                return self._channels[new]
            close = difflib.get_close_matches(name, self.names, n=3) \
                if isinstance(name, str) else []
            hint = f" Did you mean {', '.join(map(repr, close))}?" if close else ""
            raise ChannelError(f"no channel {name!r} in these results; channels are "
                               f"{self.names}.{hint}") from None

    def __contains__(self, name: str) -> bool:
        return name in self._channels or name in self.aliases

    @property
    def events(self):
        """The events an event-driven run located (``simulate(..., method="events")``): a
        pandas DataFrame, one row per event — ``t`` [s], ``kind`` ("impact", "stick",
        "slip", "rest", "liftoff"), ``name`` (the contact or law) and the state channels
        just after it; a batch (``simulate_batch``) puts a ``member`` column first. Empty,
        with those columns, for the other routes. Not kept in files."""
        from ._results_events import event_frame

        return event_frame(getattr(self, "_events", None))

    @events.setter
    def events(self, columns) -> None:
        from ._results_events import check_event_columns

        self._events = check_event_columns(columns)

    def __len__(self) -> int:
        return self.t.shape[0]

    @property
    def batch_shape(self) -> tuple[int, ...]:
        """Leading member axes of a batched run (``()`` for a single run)."""
        first = next(iter(self._channels.values()), None)
        return () if first is None else first.shape[:-1]

    def member(self, index: int) -> Results:
        """One member of a batched run as its own `Results` (with its own ``events``)."""
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
        alone = Results(self.t, {k: v[index] for k, v in self._channels.items()},
                        units=self.units, meta={**self.meta, "member": index},
                        final_state=final, aliases=self.aliases)
        events = getattr(self, "_events", None)
        if events is not None and "member" in events:       # a batch's table: its rows
            rows = events["member"] == index % n
            alone.events = {k: v[rows] for k, v in events.items() if k != "member"}
        return alone

    def __repr__(self) -> str:
        span = f"t = {self.t[0]:g} … {self.t[-1]:g} s, {len(self.t)} samples" if len(self.t) \
            else "empty"
        batch = f", batch {self.batch_shape}" if self.batch_shape else ""
        return f"Results({span}{batch}; channels: {', '.join(self.names)})"

    def _repr_html_(self) -> str:
        """Jupyter's view: channels with units and ranges, time span, samples, members, a
        small plot of the first channels (:func:`stickslip._html.results_html`)."""
        from ._html import results_html

        return results_html(self)

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

    def save(self, path: str | os.PathLike, *, parents: bool = False) -> Path:
        """Write to ``.csv`` (+ its JSON sidecar ``<path>.json``), ``.npz`` or ``.parquet``;
        returns `path`. See the module docstring for what each format holds; every one
        loads back equal with :meth:`load`. The CSV's sidecar records the sha256 checksum
        and the row count of the CSV, which :meth:`load` checks.

        The write is atomic (a temporary file in the same directory, moved into place): an
        interrupted save leaves the previous file complete. The directory must exist, as
        for ``numpy.save`` and ``DataFrame.to_csv``; ``parents=True`` creates it (and its
        parents).

        Raises
        ------
        ParameterError
            a path that is not a str/Path or has another suffix.
        ResultsFileError
            the directory is missing (without ``parents=True``) or is not a
            directory.
        """
        path = _as_path("Results.save", path)
        suffix = path.suffix.lower()
        if suffix not in _SUFFIXES:
            raise ParameterError(f"`Results.save.path`: cannot save results as "
                                 f"{suffix or 'a file without suffix'!r}: use a path ending "
                                 "in .csv, .npz or .parquet.")
        _check_directory(path.parent, parents)
        if suffix == ".csv":
            frame = self._table()
            data = frame.to_csv(index=False, na_rep="nan").encode("utf-8")
            files.write_csv(path, data, self._description(), rows=len(frame))
        elif suffix == ".npz":
            extra = {} if self.final_state is None else {"__final_state__": self.final_state}
            files.write_npz(path, {"__t__": self.t, "__units__": json.dumps(self.units),
                                   "__meta__": json.dumps(_jsonable(self.meta)),
                                   "__names__": json.dumps(self.names), **extra,
                                   **{f"ch:{k}": v for k, v in self._channels.items()}})
        else:
            files.pyarrow()                     # the install hint before building the table
            files.write_parquet(path, self._table(), self._description())
        return path

    @classmethod
    def load(cls, path: str | os.PathLike) -> Results:
        """Read results written by :meth:`save` (``.npz``, ``.csv`` with or without its
        sidecar, ``.parquet``). Raises `ResultsFileError` for a missing, truncated, corrupt
        or partial file, or a CSV that does not match its sidecar's checksum, naming the
        path and what is wrong. Temporary files left by an interrupted save are never read."""
        path = _as_path("Results.load", path)
        suffix = path.suffix.lower()
        if suffix not in _SUFFIXES:
            raise ParameterError(f"`Results.load.path`: cannot load results from "
                                 f"{suffix or 'a file without suffix'!r}: use .csv, .npz or "
                                 ".parquet.")
        if not path.is_file():
            raise ResultsFileError(f"`Results.load.path`: no file {str(path)!r}.")
        if suffix == ".npz":
            parts = files.read_npz(path)
        else:
            frame, description = (files.read_csv if suffix == ".csv"
                                  else files.read_parquet)(path)
            parts = files.table_parts(frame, description, path)
        try:
            return cls(parts["t"], parts["channels"], units=parts["units"],
                       meta=parts["meta"], final_state=parts["final_state"])
        except ParameterError as exc:
            raise ResultsFileError(f"`Results.load`: {str(path)!r} does not hold valid "
                                   f"results: {exc}") from None

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
        return {"format": files.FORMAT, "version": files.VERSION, "channels": self.names,
                "samples": len(self.t), "batch_shape": list(self._table_batch_shape()),
                "units": dict(self.units), "meta": _jsonable(self.meta),
                "final_state": None if self.final_state is None else self.final_state.tolist()}

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
            self[name]  # raises a helpful ChannelError for a typo (warns for an alias)
        names = [self.aliases.get(n, n) if n not in self._channels else n for n in names]
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


def write_sidecar(path: str | os.PathLike, results: Results) -> Path:
    """Write the sidecar of the CSV `path` for `results` (used by ``simulate(...,
    stream_to=path)``, which writes the CSV itself); it records the checksum and the row
    count of the CSV now at `path`. Returns the sidecar's path."""
    rows = math.prod(results._table_batch_shape()) * len(results.t)
    return files.write_csv_sidecar(Path(path), results._description(), rows)


def _check_directory(directory: Path, parents: bool) -> None:
    """The directory a file is saved into exists (or is created with `parents`)."""
    if directory.is_dir():
        return
    if directory.exists():
        raise ResultsFileError(f"`Results.save.path`: {str(directory)!r} is not a directory; "
                               "save into a directory.")
    if not parents:
        raise ResultsFileError(f"`Results.save.path`: the directory {str(directory)!r} does "
                               "not exist. Create it first, or pass `parents=True` to create "
                               "it.")
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ResultsFileError(f"`Results.save.path`: cannot create the directory "
                               f"{str(directory)!r} ({exc}).") from None


def _check_times(t: np.ndarray) -> np.ndarray:
    """`t` if it is a 1-D, finite, strictly increasing time axis; else a ParameterError
    naming the first offending sample."""
    if t.ndim != 1:
        raise ParameterError(f"`Results.t` must be a 1-D array of sample times; got shape "
                             f"{t.shape}.")
    if t.dtype.kind == "b":
        raise ParameterError("`Results.t` must be numeric sample times [s]; got booleans.")
    if t.size == 0:
        return t
    bad = np.flatnonzero(~np.isfinite(t))
    if bad.size:
        k = int(bad[0])
        raise ParameterError(f"`Results.t` must be finite; got t[{k}]={t[k].item()!r}. Pass "
                             "finite sample times [s] (drop or fill the samples of a failed "
                             "run).")
    bad = np.flatnonzero(np.diff(t) <= 0)
    if bad.size:
        k = int(bad[0])
        raise ParameterError(f"`Results.t` must be strictly increasing; got "
                             f"t[{k}]={t[k].item()!r} then t[{k + 1}]={t[k + 1].item()!r}. "
                             "Sort the samples (with their channels) and drop repeated "
                             "times.")
    return t


def _check_channel_name(name) -> None:
    if not isinstance(name, str):
        raise ParameterError(f"`Results.channels` names must be strings; got {name!r}.")
    if name in _TABLE_COLUMNS:
        raise ParameterError(f"`Results.channels`: the channel name {name!r} is reserved: the "
                             f"CSV and Parquet tables use a `{name}` column for "
                             f"{_TABLE_COLUMNS[name]}. Rename the channel, e.g. to "
                             f"{name + '_value'!r}.")
    if not name or any(c in name for c in _HEADER_BREAKERS):
        raise ParameterError(f"`Results.channels`: the channel name {name!r} cannot be saved "
                             "as a CSV column (it is empty or has a comma or a line break). "
                             "Rename the channel, e.g. with '.' or '_' instead.")


def _as_path(owner: str, path) -> Path:
    if not isinstance(path, (str, os.PathLike)):
        raise ParameterError(f"`{owner}.path` must be a file path (str or Path); got "
                             f"{type(path).__name__}.")
    return Path(path)


def _numeric(name: str, value) -> np.ndarray:
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):         # ragged lists and the like
        arr = np.asarray(value, dtype=object)
    if arr.dtype.kind not in "fiub" and arr.size:
        raise ParameterError(f"`Results.{name}` must be numeric; got an array of dtype "
                             f"{arr.dtype}.")
    return arr
