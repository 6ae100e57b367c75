"""The resumable store of a sweep: one Parquet file per finished chunk of points.

Layout of a store directory::

    study.json                  what was swept (parameter names, outputs, run settings)
    part-<uuid>.parquet         one finished chunk: key, parameters, outputs, error
    trajectories/<hash>.npz     full runs, when the sweep keeps them

A part is written to a temporary name and renamed, so a sweep killed at any moment leaves
only whole parts; a rerun reads them and skips their points.
"""

from __future__ import annotations

import hashlib
import json
import os
import uuid
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import ParameterError
from ..results import Results
from ._extras import require

__all__ = ["Store", "point_key"]


def point_key(values) -> str:
    """A point's identity: the exact float64 values of its parameters, in column order."""
    return "|".join(float(v).hex() for v in values)


class Store:
    """A sweep's Parquet store at `path` (a directory, created on first use)."""

    def __init__(self, path, study: dict):
        require("pyarrow", "Sweep stores (Parquet files)", alternative=", or run without "
                "`store`")
        self.path = Path(path)
        if self.path.exists() and not self.path.is_dir():
            raise ParameterError(f"`store` must be a directory path; {str(self.path)!r} is a "
                                 "file. Pass a new directory name, e.g. 'sweep.parquet/'.")
        self.path.mkdir(parents=True, exist_ok=True)
        meta = self.path / "study.json"
        study = json.loads(json.dumps(study))
        if meta.exists():
            old = json.loads(meta.read_text())
            for key in sorted(set(old) | set(study)):
                if old.get(key) != study.get(key):
                    raise ParameterError(
                        f"the store {str(self.path)!r} holds a different study: `{key}` was "
                        f"{old.get(key)!r}, now {study.get(key)!r}. Use a new store path, or "
                        "delete the old one to start over.")
        else:
            meta.write_text(json.dumps(study, indent=1))

    def load(self) -> pd.DataFrame:
        """Every stored point (empty when none), one row per key (the latest wins)."""
        parts = sorted(self.path.glob("part-*.parquet"), key=os.path.getmtime)
        if not parts:
            return pd.DataFrame()
        frame = pd.concat([pd.read_parquet(p) for p in parts], ignore_index=True)
        return frame.drop_duplicates("key", keep="last").reset_index(drop=True)

    def write(self, records: pd.DataFrame) -> None:
        """Add one finished chunk (atomically)."""
        name = f"part-{uuid.uuid4().hex}.parquet"
        tmp = self.path / f".{name}.tmp"
        records.to_parquet(tmp, index=False)
        os.replace(tmp, self.path / name)

    def _trajectory_path(self, key: str) -> Path:
        return self.path / "trajectories" / (hashlib.sha1(key.encode()).hexdigest() + ".npz")

    def write_trajectory(self, key: str, res: Results) -> None:
        path = self._trajectory_path(key)
        path.parent.mkdir(exist_ok=True)
        tmp = path.with_name(path.stem + ".tmp.npz")
        res.save(tmp)
        os.replace(tmp, path)

    def read_trajectory(self, key: str) -> Results | None:
        path = self._trajectory_path(key)
        return Results.load(path) if path.exists() else None


def records_frame(keys, names, values, outputs: dict, errors) -> pd.DataFrame:
    """The table rows of a chunk: key, parameters, outputs (NaN where failed), error."""
    frame = pd.DataFrame({"key": list(keys)})
    values = np.asarray(values, dtype=float)
    for j, name in enumerate(names):
        frame[name] = values[:, j]
    for name, column in outputs.items():
        frame[name] = np.asarray(column, dtype=float)
    frame["error"] = pd.Series(list(errors), dtype="object")
    return frame
