"""A save killed at a random moment leaves a file that loads whole (issue 25).

A subprocess overwrites a complete results file with other results and is killed with
SIGKILL at a random moment of the save, 20 times per format; after each kill the path must
load as the previous results or the new ones — equal arrays, never a partial mix and never a
`ResultsFileError`. A stray temporary file may stay behind; it must not be what loads. The
last round lets the save finish, so the saver is known to write the new results.

The savers are forked by one fresh Python (no JAX: single-threaded, safe to fork) that
imports :mod:`stickslip.results` once and maps both results' numbers from reference files, so
a round costs a fork and the save, not an interpreter start: 20 kills take a few seconds per
format.
"""

import inspect
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import stickslip
from stickslip.results import Results

KILLS = 20
# (samples, channels): one save takes ~0.3 s on the 2-core CI machine (the NPZ, written at
# disk speed, ~0.15 s: 64 MB; twice that would double the disk traffic of the test)
SIZES = {".csv": (20_000, 10), ".npz": (400_000, 20), ".parquet": (150_000, 20)}


def reference(directory, which, n_t, n_ch):
    """Write the numbers of results "A" or "B" to ``<which>.npy`` in `directory`: row 0 the
    times, then the channels, then the final state (first three entries)."""
    rng = np.random.default_rng({"A": 1, "B": 2}[which])
    rows = rng.random((n_ch + 2, n_t))
    rows[0] = np.arange(n_t) * {"A": 1e-3, "B": 2e-3}[which]
    np.save(directory / f"{which}.npy", rows)


def build(directory, which):
    """Results "A" or "B" from their reference numbers (memory-mapped: a child starts fast)."""
    import numpy as np

    from stickslip.results import Results

    rows = np.load(f"{directory}/{which}.npy", mmap_mode="r")
    channels = {f"c{k}": rows[k + 1] for k in range(rows.shape[0] - 2)}
    return Results(rows[0], channels, units={"c0": which}, meta={"which": which},
                   final_state=rows[-1, :3])


SPAWNER = inspect.getsource(build) + """
import os, sys, time
path, directory = sys.argv[1], sys.argv[2]
if path.endswith((".csv", ".parquet")):
    import pandas
if path.endswith(".parquet"):
    import pyarrow.parquet
versions = {w: build(directory, w) for w in "AB"}
print("ready", flush=True)
for line in sys.stdin:                       # one round per line: "A" or "B" to save
    pid = os.fork()
    if pid == 0:                             # the saver: reports, saves, waits to be killed
        print(f"go {os.getpid()}", flush=True)
        versions[line.strip()].save(path)
        print("done", flush=True)
        time.sleep(120)
        os._exit(0)
    os.waitpid(pid, 0)
    print("reaped", flush=True)
"""


def start_spawner(path, directory):
    """A fresh Python (single-threaded: no JAX) that imports stickslip.results once and forks
    one saver per round, so a round costs a fork, not an interpreter start."""
    paths = [str(Path(stickslip.__file__).resolve().parents[1]), os.environ.get("PYTHONPATH")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p)}
    return subprocess.Popen([sys.executable, "-c", SPAWNER, str(path), str(directory)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)


def read_line(proc, word):
    """The next line of `proc`, which must start with `word`."""
    line = proc.stdout.readline().strip()
    if not line.startswith(word):
        proc.kill()
        raise AssertionError(f"spawner said {line!r} instead of {word!r}: "
                             f"{proc.stderr.read()}")
    return line


def same(a, b):
    return (np.array_equal(a.t, b.t) and a.names == b.names
            and all(np.array_equal(a[k], b[k]) for k in a.names)
            and a.units == b.units and a.meta == b.meta
            and np.array_equal(a.final_state, b.final_state))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the savers are forked")
@pytest.mark.parametrize("suffix", list(SIZES))
def test_a_killed_save_leaves_the_previous_or_the_new_file(tmp_path, suffix):
    if suffix == ".parquet":
        pytest.importorskip("pyarrow")
    n_t, n_ch = SIZES[suffix]
    rng = random.Random(25)
    refs = tmp_path / "refs"
    refs.mkdir()
    for which in "AB":
        reference(refs, which, n_t, n_ch)
    versions = {w: build(refs, w) for w in "AB"}
    files = tmp_path / "files"
    files.mkdir()
    path = files / f"run{suffix}"
    versions["A"].save(path)
    start = time.perf_counter()
    versions["A"].save(path)                       # an overwrite, as in the rounds below
    duration = time.perf_counter() - start
    on_disk, kept = "A", 0
    spawner = start_spawner(path, refs)
    try:
        read_line(spawner, "ready")
        for round_ in range(KILLS + 1):
            new = "B" if on_disk == "A" else "A"
            spawner.stdin.write(new + "\n")
            spawner.stdin.flush()
            saver = int(read_line(spawner, "go").split()[1])
            if round_ < KILLS:          # stratified random moments over 1.25 × one save
                time.sleep(duration * 1.25 * (round_ + rng.random()) / KILLS)
            else:                       # the last save finishes: the saver does write
                read_line(spawner, "done")
            os.kill(saver, signal.SIGKILL)
            while not read_line(spawner, "").startswith("reaped"):   # skip a late "done"
                pass
            loaded = Results.load(path)            # never a ResultsFileError
            matches = [w for w in "AB" if same(loaded, versions[w])]
            assert matches, f"round {round_}: {path.name} loaded neither the previous nor " \
                            "the new results"
            kept += matches[0] == on_disk
            on_disk = matches[0]
            strays = [p.name for p in files.iterdir()
                      if p.name not in (path.name, path.name + ".json")]
            assert all(n.startswith(f".{path.name}") and n.endswith(".tmp")
                       for n in strays), strays
    finally:
        spawner.kill()
        spawner.wait()
        spawner.stdout.close(), spawner.stderr.close(), spawner.stdin.close()
    assert on_disk == new                          # the last, finished save wrote it
    assert kept >= 1, "no kill landed before a save completed: the test tests nothing"


class Stop(BaseException):
    """Stands for a kill: raised by the patched writer, caught by the test."""


@pytest.mark.parametrize("suffix", list(SIZES))
def test_a_save_stopped_at_any_file_operation_loads_whole(tmp_path, suffix, monkeypatch):
    """The random kills above rarely land between the CSV and its sidecar (a few ms); here
    the save is stopped deterministically before each atomic write it makes, and in the
    middle of each (after half the bytes), over a complete file of other results."""
    if suffix == ".parquet":
        pytest.importorskip("pyarrow")
    from stickslip import _results_files as files

    rng = np.random.default_rng(0)
    old = Results(np.arange(30.0), {"p": rng.random(30)}, units={"p": "m"}, meta={"v": 1},
                  final_state=np.ones(2))
    new = Results(np.arange(40.0) / 2, {"p": rng.random(40), "q": rng.random(40)},
                  units={"q": "N"}, meta={"v": 2}, final_state=np.zeros(2))
    real = files.atomic_write
    stops = []
    for count in range(1, 4):
        for where in ("before", "midway"):
            path = tmp_path / f"{count}-{where}" / f"run{suffix}"
            old.save(path, parents=True)
            old.save(path)                  # an overwrite leaves a sidecar of one entry
            calls = []

            def stopping(target, write, count=count, where=where, calls=calls):
                calls.append(target)
                if len(calls) < count:
                    return real(target, write)
                if where == "before":
                    raise Stop

                def half(fh):               # write half the bytes, then stop
                    class Half:
                        def __init__(self):
                            self.buffer = bytearray()

                        def write(self, data):
                            self.buffer += data
                            return len(data)

                        def __getattr__(self, name):
                            return getattr(fh, name)

                    sink = Half()
                    write(sink)
                    fh.write(bytes(sink.buffer[:len(sink.buffer) // 2]))
                    fh.flush()
                    raise Stop
                return real(target, half)

            monkeypatch.setattr(files, "atomic_write", stopping)
            try:
                new.save(path)
                stopped = False
            except Stop:
                stopped = True
            monkeypatch.setattr(files, "atomic_write", real)
            loaded = Results.load(path)
            assert same(loaded, old) or same(loaded, new), (count, where)
            stops.append((count, where, stopped, "old" if same(loaded, old) else "new"))
    # every write the save makes was stopped once (the CSV makes three, the others one)
    n_writes = 3 if suffix == ".csv" else 1
    assert [s[2] for s in stops] == [c <= n_writes for c, _, _, _ in stops], stops
