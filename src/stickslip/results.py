"""`Results`: the time axis plus named channels, with units and metadata.

A run of :func:`stickslip.simulate` returns one. Channels are NumPy arrays whose last axis is
time; a batched run (:func:`stickslip.simulate_batch`) adds a leading member axis.

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
import os
from pathlib import Path
from typing import Any, Iterable, Mapping

import numpy as np

__all__ = ["Results"]


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
        self.t = np.asarray(t)
        self._channels = {name: np.asarray(value) for name, value in channels.items()}
        for name, value in self._channels.items():
            if value.shape[-1:] != self.t.shape:
                raise ValueError(f"channel {name!r} has shape {value.shape}; its last axis "
                                 f"must match t (length {self.t.shape[0]}).")
        self.units = {name: (units or {}).get(name, "") for name in self._channels}
        self.meta = dict(meta or {})
        self.final_state = None if final_state is None else np.asarray(final_state)

    # --- access -------------------------------------------------------------------------
    @property
    def names(self) -> list[str]:
        """Channel names, in order."""
        return list(self._channels)

    def __getitem__(self, name: str) -> np.ndarray:
        try:
            return self._channels[name]
        except KeyError:
            close = difflib.get_close_matches(name, self.names, n=3)
            hint = f" Did you mean {', '.join(map(repr, close))}?" if close else ""
            raise KeyError(f"no channel {name!r} in these results; channels are "
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
            raise IndexError("these results are not batched; there is one member.")
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

        if not self.batch_shape:
            frame = pd.DataFrame(self._channels, index=pd.Index(self.t, name="t"))
        else:
            n = int(np.prod(self.batch_shape))
            index = pd.MultiIndex.from_product([range(n), self.t], names=["member", "t"])
            frame = pd.DataFrame({k: v.reshape(n, -1).ravel() for k, v in self._channels.items()},
                                 index=index)
        frame.attrs["units"] = dict(self.units)
        frame.attrs["meta"] = dict(self.meta)
        return frame

    def save(self, path: str | os.PathLike) -> Path:
        """Write to ``.csv`` (units in a header row comment, metadata in a ``.json`` beside it),
        ``.npz`` (everything in one file) or ``.parquet`` (needs pyarrow)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        suffix = path.suffix.lower()
        if suffix == ".csv":
            frame = self.to_pandas()
            with open(path, "w", encoding="utf-8") as fh:
                fh.write("# units: " + json.dumps(self.units) + "\n")
                frame.to_csv(fh)
            path.with_suffix(".json").write_text(json.dumps(_jsonable(self.meta), indent=2))
        elif suffix == ".npz":
            extra = {} if self.final_state is None else {"__final_state__": self.final_state}
            np.savez(path, __t__=self.t, __units__=json.dumps(self.units),
                     __meta__=json.dumps(_jsonable(self.meta)), **extra,
                     **{f"ch:{k}": v for k, v in self._channels.items()})
        elif suffix == ".parquet":
            self.to_pandas().to_parquet(path)
        else:
            raise ValueError(f"cannot save results as {suffix!r}: use a path ending in .csv, "
                             ".npz or .parquet.")
        return path

    @classmethod
    def load(cls, path: str | os.PathLike) -> "Results":
        """Read results written by :meth:`save` (``.npz`` or single-run ``.csv``)."""
        path = Path(path)
        if path.suffix.lower() == ".npz":
            with np.load(path, allow_pickle=False) as data:
                channels = {k[3:]: data[k] for k in data.files if k.startswith("ch:")}
                final = data["__final_state__"] if "__final_state__" in data.files else None
                return cls(data["__t__"], channels, units=json.loads(str(data["__units__"])),
                           meta=json.loads(str(data["__meta__"])), final_state=final)
        if path.suffix.lower() == ".csv":
            import pandas as pd

            with open(path, encoding="utf-8") as fh:
                first = fh.readline()
            units = json.loads(first.split(":", 1)[1]) if first.startswith("# units:") else {}
            frame = pd.read_csv(path, comment="#", index_col=0)
            meta_path = path.with_suffix(".json")
            meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
            return cls(frame.index.to_numpy(), {c: frame[c].to_numpy() for c in frame},
                       units=units, meta=meta)
        raise ValueError(f"cannot load results from {path.suffix!r}: use .npz or .csv.")

    # --- plotting ------------------------------------------------------------------------
    def plot(self, names: Iterable[str] | None = None, *, axes=None, title: str | None = None,
             **line_kwargs):
        """Plot channels against time, one panel per unit; returns the matplotlib Figure.

        `names` defaults to every channel. Batched results draw one line per member.
        """
        import matplotlib.pyplot as plt

        names = list(names) if names is not None else self.names
        for name in names:
            self[name]  # raises a helpful KeyError for a typo
        groups: dict[str, list[str]] = {}
        for name in names:
            groups.setdefault(self.units.get(name, ""), []).append(name)
        if axes is None:
            fig, axes = plt.subplots(len(groups), 1, sharex=True, squeeze=False,
                                     figsize=(7, 2.2 * len(groups) + 0.8))
            axes = axes[:, 0]
        else:
            axes = np.atleast_1d(axes)
            fig = axes[0].figure
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
