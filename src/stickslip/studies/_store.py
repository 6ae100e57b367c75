"""The resumable store of a sweep: one Parquet file per finished chunk of points.

Layout of a store directory::

    study.json                  what was swept and what computed it (see below)
    part-<uuid>.parquet         one finished chunk: key, parameters, outputs, error
    trajectories/<hash>.npz     full runs, when the sweep keeps them

A part is written to a temporary name and renamed, so a sweep killed at any moment leaves
only whole parts; a rerun reads them and skips their points.

**Identity.** ``study.json`` holds the study: the parameter and output names, the run
settings, a fingerprint of the code of `build` and of every analysis (byte code, closure
values, the globals it reads: :func:`stickslip.integrate._fingerprint.fingerprint`) and the
versions of the code behind them (stickslip's version and source hash; jax, jaxlib, equinox,
diffrax, numpy and the other packages whose functions a fingerprint names instead of reading:
:func:`~stickslip.integrate._fingerprint.code_versions`). A sweep whose study differs in any
of these is refused, naming the difference, so a store never serves values that changed
code would not compute. Each part records the digest of its study in its Parquet metadata
and each trajectory file is named by it: a part copied from another store, or left from
before a damaged ``study.json`` was deleted, is set aside (renamed ``*.foreign``) and its
points computed again. A part that cannot be read (truncated, corrupt) is set aside as
``*.damaged`` and its points computed again; a damaged ``study.json`` is refused with the
file to delete.
"""

from __future__ import annotations

import hashlib
import json
import os
import uuid
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import ParameterError, ResultsFileError
from ..results import Results
from ._extras import require

__all__ = ["Store", "check_writable_directory", "check_writable_file", "point_key",
           "study_digest"]

_STUDY_KEY = b"stickslip.study"

# why a key of the study differs, for the refusal
_WHY = {
    "code": " (the code of `build` or of an analysis, or a value it reads — a global, a "
            "closure cell, a default — changed since the store was written: its stored values "
            "would be stale)",
    "versions": " (the stored values were computed by another version of that package)",
}


def point_key(values) -> str:
    """A point's identity: the exact float64 values of its parameters, in column order."""
    return "|".join(float(v).hex() for v in values)


def study_digest(study: dict) -> str:
    """A hash of a study (its JSON form, keys sorted): what each part records."""
    return hashlib.sha256(json.dumps(study, sort_keys=True).encode()).hexdigest()


def check_writable_directory(path, owner: str) -> Path:
    """Create directory `path` (and its parents) and check that a file can be written there,
    before any work; a ParameterError naming `owner`, the path and the reason otherwise."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise ParameterError(f"`{owner}` must be a directory path; {str(path)!r} is a "
                             "file. Pass a new directory name, e.g. 'sweep.parquet/'.")
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / f".write-check-{uuid.uuid4().hex}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise ParameterError(f"`{owner}`: cannot write to the directory {str(path)!r} "
                             f"({type(exc).__name__}: {exc.strerror or exc}); nothing was run. "
                             "Pass a directory you can write to.") from None
    return path


def check_writable_file(path, owner: str) -> Path:
    """Check, before any work, that the file `path` can be written (its directory is created;
    an existing file is left as it is); a ParameterError naming `owner` otherwise."""
    path = Path(path)
    if path.is_dir():
        raise ParameterError(f"`{owner}`: {str(path)!r} is a directory; name a file.")
    check_writable_directory(path.parent, owner)
    if path.exists() and not os.access(path, os.W_OK):
        raise ParameterError(f"`{owner}`: the file {str(path)!r} exists and cannot be "
                             "overwritten (no write permission); nothing was run. Pass "
                             "another path or make it writable.")
    return path


def _difference(old, new, prefix: str = ""):
    """The first key where two studies differ: ``(dotted key, old value, new value)``."""
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key, "<absent>"), new.get(key, "<absent>")
        if a != b:
            if isinstance(a, dict) and isinstance(b, dict):
                return _difference(a, b, f"{prefix}{key}.")
            return f"{prefix}{key}", a, b
    return None


def _shown(value):
    """A fingerprint (64 hex digits) shortened for a message; anything else as it is."""
    if isinstance(value, str) and len(value) == 64 and all(c in "0123456789abcdef"
                                                           for c in value):
        return f"fingerprint {value[:12]}…"
    return repr(value)


class Store:
    """A sweep's Parquet store at `path` (a directory, created on first use) for `study`."""

    def __init__(self, path, study: dict):
        require("pyarrow", "Sweep stores (Parquet files)", alternative=", or run without "
                "`store`")
        self.path = check_writable_directory(path, "store")
        meta = self.path / "study.json"
        study = json.loads(json.dumps(study))
        self.digest = study_digest(study)
        if meta.exists():
            old = self._read_study(meta)
            diff = _difference(old, study)
            if diff is not None:
                key, was, now = diff
                why = _WHY.get(key.split(".")[0], "")
                raise ParameterError(
                    f"the store {str(self.path)!r} holds a different study: `{key}` was "
                    f"{_shown(was)}, now {_shown(now)}{why}. Use a new store path, or delete "
                    "the old one to start over.")
        else:
            tmp = self.path / f".study.json.{uuid.uuid4().hex}.tmp"
            tmp.write_text(json.dumps(study, indent=1), encoding="utf-8")
            os.replace(tmp, meta)

    def _read_study(self, meta: Path) -> dict:
        try:
            old = json.loads(meta.read_text(encoding="utf-8"))
            problem = None if isinstance(old, dict) else \
                f"it holds a JSON {type(old).__name__}, not a study"
        except (OSError, ValueError) as exc:          # JSONDecodeError, UnicodeDecodeError
            problem = f"{type(exc).__name__}: {exc}"
        if problem is not None:
            raise ParameterError(
                f"the store {str(self.path)!r} cannot be resumed: its study file "
                f"{str(meta)!r} is damaged ({problem}). Delete that file and run again (each "
                "stored part records its study: only the parts of this study are reused, the "
                "others are set aside), or use a new store path.")
        return old

    def load(self, columns=()) -> pd.DataFrame:
        """Every stored point of this study (empty when none), one row per key (the latest
        wins). A part that cannot be read, lacks one of `columns` or was written for another
        study is set aside with a warning naming it; its points are computed again."""
        import pyarrow.parquet as pq

        parts = sorted(self.path.glob("part-*.parquet"), key=os.path.getmtime)
        frames = []
        for part in parts:
            try:
                table = pq.read_table(part)
                recorded = (table.schema.metadata or {}).get(_STUDY_KEY, b"").decode()
                frame = table.to_pandas()
            except Exception as exc:               # noqa: BLE001 — ArrowInvalid, OSError, …
                self._set_aside(part, "damaged", f"it cannot be read ({type(exc).__name__}: "
                                                 f"{str(exc)[:200]})")
                continue
            if recorded != self.digest:
                self._set_aside(part, "foreign", "it was written for another study (copied "
                                                 "from another store, or older than this "
                                                 "store's study.json)")
                continue
            missing = [c for c in ("key", *columns, "error") if c not in frame.columns]
            if missing:
                self._set_aside(part, "damaged", f"it lacks the columns {missing}")
                continue
            frames.append(frame)
        if not frames:
            return pd.DataFrame()
        frame = pd.concat(frames, ignore_index=True)
        return frame.drop_duplicates("key", keep="last").reset_index(drop=True)

    def _set_aside(self, part: Path, kind: str, why: str) -> None:
        aside = part.with_name(f"{part.name}.{kind}")
        try:
            os.replace(part, aside)
            where = f"It was renamed to {str(aside)!r}; delete that file when you no longer " \
                    "need it."
        except OSError:
            where = f"Delete {str(part)!r}."
        warnings.warn(f"sweep store: the part {str(part)!r} is not used: {why}. Its points "
                      f"are computed again. {where}", stacklevel=4)

    def write(self, records: pd.DataFrame) -> None:
        """Add one finished chunk (atomically), recording this store's study."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        name = f"part-{uuid.uuid4().hex}.parquet"
        tmp = self.path / f".{name}.tmp"
        table = pa.Table.from_pandas(records, preserve_index=False)
        table = table.replace_schema_metadata({**(table.schema.metadata or {}),
                                               _STUDY_KEY: self.digest.encode()})
        try:
            pq.write_table(table, tmp)
            os.replace(tmp, self.path / name)
        except OSError as exc:
            raise ResultsFileError(f"the sweep store {str(self.path)!r} could not take a "
                                   f"finished chunk ({type(exc).__name__}: {exc}); the parts "
                                   "written before are kept, so a rerun with the same store "
                                   "resumes once there is room.") from None

    def _trajectory_path(self, key: str) -> Path:
        name = hashlib.sha1(f"{self.digest}|{key}".encode()).hexdigest()
        return self.path / "trajectories" / f"{name}.npz"

    def write_trajectory(self, key: str, res: Results) -> None:
        path = self._trajectory_path(key)
        path.parent.mkdir(exist_ok=True)
        res.save(path)                                  # atomic (a temporary file, renamed)

    def read_trajectory(self, key: str) -> Results | None:
        """The stored run of point `key`, or None (not stored, or damaged: then a warning
        names the file, which the recomputed run replaces)."""
        path = self._trajectory_path(key)
        if not path.exists():
            return None
        try:
            return Results.load(path)
        except Exception as exc:                   # noqa: BLE001 — ResultsFileError and kin
            warnings.warn(f"sweep store: the trajectory file {str(path)!r} cannot be read "
                          f"({type(exc).__name__}: {str(exc)[:200]}); its point is computed "
                          "again and the file replaced.", stacklevel=3)
            return None


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
