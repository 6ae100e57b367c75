"""Results files on disk: atomic writes, the CSV sidecar and its checksum, the readers' checks.

:mod:`stickslip.results` builds on these; nothing here knows the `Results` class — the
writers take the bytes or the table to write, the readers return the parts a `Results` is
built from (``t``, ``channels``, ``units``, ``meta``, ``final_state``).

Every file is written to a temporary file in its own directory (``.<name>.<random>.tmp``),
flushed to disk and moved into place with :func:`os.replace`, so a save killed at any moment
leaves the previous complete file (a stray temporary file may stay behind; nothing reads it).

A CSV and its sidecar are two files, which no rename replaces together. The sidecar records
the sha256 checksum and the row count of the CSV it describes, and a save goes

1. the new sidecar, still carrying the previous one as ``"previous"`` (the entry that matches
   the CSV now on disk);
2. the new CSV;
3. the new sidecar alone,

so that at every moment the CSV on disk matches one entry of the sidecar: the loader takes
the entry whose checksum the CSV has, and a CSV that matches none is damaged
(:class:`~stickslip.errors.ResultsFileError`). A sidecar without a checksum (written before
checksums were recorded) is trusted as it is; a CSV without a sidecar loads as a plain table.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import secrets
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from .errors import MissingDependencyError, ResultsFileError

__all__ = ["FORMAT", "VERSION", "atomic_write", "csv_record", "jsonable", "pyarrow", "read_csv",
           "read_npz", "read_parquet", "sidecar_path", "table_parts", "write_csv",
           "write_csv_sidecar", "write_npz", "write_parquet"]

FORMAT = "stickslip.Results"
VERSION = 1


# --- writing ------------------------------------------------------------------------------
def sidecar_path(path: str | os.PathLike) -> Path:
    """The JSON sidecar of a CSV results file: ``run.csv`` → ``run.csv.json``."""
    path = Path(path)
    return path.with_name(path.name + ".json")


def atomic_write(path: Path, write: Callable[[BinaryIO], object]) -> None:
    """Call ``write(fh)`` on a new temporary file beside `path`, flush it to disk, then move
    it onto `path` (:func:`os.replace`: readers see the old file or the new one, whole). The
    temporary file is removed when `write` fails."""
    while True:
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
        try:        # created with the umask's permissions, as a plain open() would
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0),
                         0o666)
            break
        except FileExistsError:
            continue
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise


def csv_record(data: bytes, rows: int) -> dict:
    """What the sidecar records of its CSV: sha256 of the bytes, data rows, size."""
    return {"sha256": hashlib.sha256(data).hexdigest(), "rows": int(rows), "bytes": len(data)}


def _dump(entry: dict) -> bytes:
    return json.dumps(entry, indent=1).encode("utf-8")


def write_csv(path: Path, data: bytes, description: dict, rows: int) -> None:
    """Write the CSV bytes `data` (`rows` data rows) and its sidecar (module docstring: in an
    order that leaves a loadable pair at every moment)."""
    side = sidecar_path(path)
    entry = {**description, "csv": csv_record(data, rows)}
    previous = _entry_on_disk(path, side)
    first = entry if previous is None else {**entry, "previous": previous}
    atomic_write(side, lambda fh: fh.write(_dump(first)))
    atomic_write(path, lambda fh: fh.write(data))
    if previous is not None:
        atomic_write(side, lambda fh: fh.write(_dump(entry)))


def write_csv_sidecar(path: Path, description: dict, rows: int) -> Path:
    """Write the sidecar of the CSV already at `path` (``simulate(..., stream_to=path)``
    writes the table itself, row block by row block); returns the sidecar's path."""
    side = sidecar_path(path)
    entry = {**description, "csv": csv_record(Path(path).read_bytes(), rows)}
    atomic_write(side, lambda fh: fh.write(_dump(entry)))
    return side


def _entry_on_disk(path: Path, side: Path) -> dict | None:
    """The sidecar entry that describes the CSV now at `path` (for step 1 of a save), or a
    bare entry with its checksum when it has no sidecar; None without a CSV or when the pair
    on disk is already damaged."""
    if not path.is_file():
        return None
    raw = path.read_bytes()
    digest = hashlib.sha256(raw).hexdigest()
    try:
        old = json.loads(side.read_text(encoding="utf-8")) if side.is_file() else None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    if old is None:
        return {"format": FORMAT, "csv": csv_record(raw, _data_rows(raw))}
    if not _entries(old) and isinstance(old, dict) and old.get("format") == FORMAT:
        return {**old, "csv": csv_record(raw, _data_rows(raw))}    # from before checksums
    for entry in _entries(old):
        if entry["csv"].get("sha256") == digest:
            return {k: v for k, v in entry.items() if k != "previous"}
    return None


def write_npz(path: Path, arrays: dict) -> None:
    """An uncompressed NumPy archive of `arrays`, written atomically."""
    # into an open file: np.savez would append .npz to other names
    atomic_write(path, lambda fh: np.savez(fh, **arrays))


def write_parquet(path: Path, frame, description: dict) -> None:
    """`frame` as a Parquet file (page checksums on) with `description` in the schema
    metadata, written atomically."""
    pa, pq = pyarrow()
    table = pa.Table.from_pandas(frame, preserve_index=False)
    table = table.replace_schema_metadata(
        {**(table.schema.metadata or {}), b"stickslip": json.dumps(description).encode()})
    atomic_write(path, lambda fh: pq.write_table(table, fh, write_page_checksum=True))


# --- reading ------------------------------------------------------------------------------
def _error(path: Path, what: str) -> ResultsFileError:
    return ResultsFileError(f"`Results.load`: {str(path)!r} {what}")


def _entries(side: Any) -> list[dict]:
    """The sidecar's entries that carry a CSV checksum: itself, then its ``previous``."""
    out = []
    while isinstance(side, dict) and len(out) < 2:
        if isinstance(side.get("csv"), dict):
            out.append(side)
        side = side.get("previous")
    return out


def _data_rows(raw: bytes) -> int:
    return max(raw.count(b"\n") - 1, 0)


def read_csv(path: Path) -> tuple[Any, dict | None]:
    """(table, description) of the CSV `path`; the description comes from the sidecar entry
    whose checksum the CSV has (None without a sidecar)."""
    import pandas as pd

    raw = path.read_bytes()
    if not raw.strip():
        raise _error(path, "is empty.")
    if not raw.endswith(b"\n"):
        raise _error(path, "does not end with a line break: it was truncated while being "
                           "written.")
    description = _sidecar_entry(path, raw)
    try:
        frame = pd.read_csv(io.BytesIO(raw))         # the bytes checked, not a reread
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise _error(path, f"is not a readable CSV table ({exc}).") from None
    if frame.isna().to_numpy().any() and not _nan_written(raw):
        raise _error(path, "has empty fields (a truncated or damaged file).")
    return frame, description


def _sidecar_entry(path: Path, raw: bytes) -> dict | None:
    side = sidecar_path(path)
    if not side.is_file():
        return None
    try:
        description = json.loads(side.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ResultsFileError(f"`Results.load`: the sidecar {str(side)!r} of {str(path)!r} "
                               f"is not valid JSON ({exc}).") from None
    if not isinstance(description, dict) or description.get("format") != FORMAT:
        raise ResultsFileError(f"`Results.load`: {str(side)!r} is not a stickslip results "
                               "sidecar.")
    entries = _entries(description)
    if not entries:                       # a sidecar from before checksums: trusted
        return description
    digest = hashlib.sha256(raw).hexdigest()
    for entry in entries:
        if entry["csv"].get("sha256") == digest:
            return {k: v for k, v in entry.items() if k not in ("previous", "csv")}
    record, rows = entries[0]["csv"], _data_rows(raw)
    fix = (" Restore the CSV and its sidecar from the same save, or delete the sidecar to read "
           "the table alone (without units, metadata and final state).")
    if record.get("rows") != rows:
        raise _error(path, f"has {rows} data rows but its sidecar says "
                           f"{record.get('rows')} ({str(side)!r}): the CSV is truncated or "
                           f"was changed after it was saved.{fix}")
    raise _error(path, f"does not match the sha256 checksum in its sidecar {str(side)!r} "
                       f"({digest[:16]}… instead of {str(record.get('sha256'))[:16]}…, with "
                       f"the {rows} rows it records): it was changed after it was saved.{fix}")


def _nan_written(raw: bytes) -> bool:
    """True when every empty-looking value in the CSV is a written NaN (``nan``), not a
    missing field."""
    lines = raw.decode("utf-8", errors="replace").splitlines()
    width = len(lines[0].split(","))
    return all(len(fields) == width and "" not in fields
               for fields in (line.split(",") for line in lines[1:]))


def read_npz(path: Path) -> dict:
    """The parts (t, channels, units, meta, final_state) of a results archive."""
    try:
        with np.load(path, allow_pickle=False) as data:
            channels = {k[3:]: data[k] for k in data.files if k.startswith("ch:")}
            if "__names__" in data.files:
                order = json.loads(str(data["__names__"]))
                channels = {k: channels[k] for k in order}
            final = data["__final_state__"] if "__final_state__" in data.files else None
            return {"t": data["__t__"], "channels": channels,
                    "units": json.loads(str(data["__units__"])),
                    "meta": json.loads(str(data["__meta__"])), "final_state": final}
    except (zipfile.BadZipFile, EOFError, OSError, KeyError, ValueError) as exc:
        raise _error(path, f"is not a complete results archive (truncated or damaged: "
                           f"{exc}).") from None


def read_parquet(path: Path) -> tuple[Any, dict | None]:
    """(table, description) of a Parquet results file; its page checksums are verified."""
    pa, pq = pyarrow()
    try:
        table = pq.read_table(path, page_checksum_verification=True)
        frame = table.to_pandas()
    except (pa.ArrowException, OSError) as exc:
        raise _error(path, f"is not a readable Parquet file (truncated or damaged: "
                           f"{exc}).") from None
    meta = (table.schema.metadata or {}).get(b"stickslip")
    try:
        description = json.loads(meta) if meta else None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise _error(path, f"has damaged stickslip metadata ({exc}).") from None
    return frame, description


def table_parts(frame, description: dict | None, path: Path) -> dict:
    """The parts (t, channels, units, meta, final_state) of a long table read from a CSV or
    Parquet file (``t`` and, for a batch, ``member`` columns, then the channels)."""
    description = description or {}
    if "t" not in frame.columns:
        raise _error(path, "has no `t` column; it was not written by Results.save "
                           f"(columns: {list(frame.columns)[:8]}).")
    names = description.get("channels",
                            [c for c in frame.columns if c not in ("t", "member")])
    missing = [n for n in names if n not in frame.columns]
    if missing:
        raise _error(path, f"lacks the channels {missing} its sidecar lists; the file is "
                           "damaged.")
    for column in ["t", *names]:
        if frame[column].dtype.kind not in "fiu":
            raise _error(path, f"has non-numeric values in column {column!r} (a damaged "
                               "or truncated file?).")
    batched = "member" in frame.columns
    shape = tuple(description.get("batch_shape", ()))
    n_rows = len(frame)
    if batched:
        members = frame["member"].to_numpy()
        n = int(members.max()) + 1 if n_rows else 0
        shape = shape or (n,)
        n_t = n_rows // max(n, 1)
        if n * n_t != n_rows or math.prod(shape) != n:
            raise _error(path, f"has {n_rows} rows, which is not {n} members × whole time "
                               "series: it is truncated or damaged.")
        t = frame["t"].to_numpy()[:n_t]
    else:
        t = frame["t"].to_numpy()
        n_t = n_rows
    if "samples" in description and description["samples"] != n_t:
        raise _error(path, f"has {n_t} samples per member but its sidecar says "
                           f"{description['samples']}: it is truncated or damaged.")
    channels = {}
    for name in names:
        value = frame[name].to_numpy()
        channels[name] = value.reshape(*shape, n_t) if batched else value
    final = description.get("final_state")
    return {"t": t, "channels": channels, "units": description.get("units"),
            "meta": description.get("meta"),
            "final_state": None if final is None else np.asarray(final, dtype=float)}


# --- helpers ------------------------------------------------------------------------------
def pyarrow():
    """(pyarrow, pyarrow.parquet), or a MissingDependencyError with the install hint."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise MissingDependencyError("Parquet files need pyarrow: `pip install "
                                     "stickslip[parquet]` (or pyarrow); or save as .npz or "
                                     ".csv.") from None
    return pa, pq


def jsonable(value: Any) -> Any:
    """`value` with NumPy arrays and scalars as lists and numbers (others as their repr)."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (np.floating, np.integer)):
        return value.item()
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return repr(value)
