"""Bad input to `Results` and its files (issue 25): the time axis and the channel names are
checked where a `Results` is built; `save` refuses a missing directory; `load` refuses a CSV
that no longer matches its sidecar's checksum or row count, and truncated, corrupt or partial
NPZ and Parquet files.

Each case is a zero-argument callable that must raise the named error type with a message
that names the thing at fault (argument, channel, directory or file).
"""

import json
import tempfile
import zipfile
from pathlib import Path

import numpy as np
import pytest

import stickslip as ss

TMP = Path(tempfile.mkdtemp(prefix="stickslip-bad-results-"))
T = np.array([0.0, 0.1, 0.2])
P = np.array([0.0, 1.0, 4.0])


def results(n=50, seed=0, **channels):
    rng = np.random.default_rng(seed)
    channels = channels or {"p": rng.normal(size=n), "v": rng.normal(size=n)}
    return ss.Results(np.arange(n) * 0.01, channels, units={"p": "m", "v": "m/s"},
                      meta={"system": "test"}, final_state=np.array([1.0, 2.0]))


def saved(name, res=None):
    """A fresh directory holding `name` saved from `res`; returns the path."""
    directory = Path(tempfile.mkdtemp(dir=TMP))
    return (res or results()).save(directory / name)


def csv_with_changed_digit():
    path = saved("run.csv")
    text = path.read_text()
    head, rows = text.split("\n", 1)
    k = rows.index("1")                                  # one digit changed, same rows
    path.write_text(head + "\n" + rows[:k] + "2" + rows[k + 1:])
    return path


def csv_cut_at_a_line():
    path = saved("run.csv")
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:-3]))
    return path


def csv_with_a_row_added():
    path = saved("run.csv")
    with open(path, "a") as fh:
        fh.write("0.5,1.0,2.0\n")
    return path


def csv_with_the_sidecar_of_another_run():
    path = saved("run.csv")
    other = saved("other.csv", results(seed=1))
    ss.results.sidecar_path(path).write_bytes(ss.results.sidecar_path(other).read_bytes())
    return path


def cut(path, keep):
    data = path.read_bytes()
    path.write_bytes(data[:int(len(data) * keep)])
    return path


def npz_without_times():
    path = saved("run.npz")
    with zipfile.ZipFile(path) as src:
        members = {n: src.read(n) for n in src.namelist() if n != "__t__.npy"}
    with zipfile.ZipFile(path, "w") as dst:
        for name, data in members.items():
            dst.writestr(name, data)
    return path


def npz_with_repeated_times():
    path = Path(tempfile.mkdtemp(dir=TMP)) / "run.npz"
    with open(path, "wb") as fh:                      # written by hand, not by Results.save
        np.savez(fh, __t__=np.array([0.0, 0.1, 0.1]), __units__="{}", __meta__="{}",
                 **{"ch:p": np.zeros(3)})
    return path


def flipped(path, at):
    data = bytearray(path.read_bytes())
    data[at] ^= 0xFF
    path.write_bytes(bytes(data))
    return path


def load(make):
    return lambda: ss.Results.load(make())


CASES = {
    # the time axis
    "t with NaN": (lambda: ss.Results(np.array([0.0, np.nan, 0.2]), {"p": P}),
                   ss.ParameterError, ["Results.t", "t[1]", "finite"]),
    "t with inf": (lambda: ss.Results(np.array([0.0, 0.1, np.inf]), {"p": P}),
                   ss.ParameterError, ["Results.t", "t[2]"]),
    "t decreasing": (lambda: ss.Results(np.array([0.0, 0.2, 0.1]), {"p": P}),
                     ss.ParameterError, ["Results.t", "strictly increasing", "t[1]=0.2"]),
    "t repeated": (lambda: ss.Results(np.array([0.0, 0.1, 0.1]), {"p": P}),
                   ss.ParameterError, ["Results.t", "t[2]=0.1", "repeated"]),
    "t of booleans": (lambda: ss.Results(np.array([False, True]), {}),
                      ss.ParameterError, ["Results.t"]),
    # channel names the CSV/Parquet table would mangle
    "channel named t": (lambda: ss.Results(T, {"t": P}),
                        ss.ParameterError, ["'t'", "reserved", "Rename"]),
    "channel named member": (lambda: ss.Results(T, {"p": P, "member": P}),
                             ss.ParameterError, ["'member'", "reserved", "Rename"]),
    "empty channel name": (lambda: ss.Results(T, {"": P}),
                           ss.ParameterError, ["Results.channels", "''", "Rename"]),
    "channel name with a comma": (lambda: ss.Results(T, {"a,b": P}),
                                  ss.ParameterError, ["'a,b'", "comma"]),
    "channel name with a line break": (lambda: ss.Results(T, {"a\nb": P}),
                                       ss.ParameterError, ["'a\\nb'", "line break"]),
    "member() keeps the checks": (lambda: ss.Results(T, {"p": np.zeros((2, 3))}).member(5),
                                  ss.ParameterError, ["Results.member.index"]),
    # save: the directory
    "save into a missing directory": (
        lambda: results().save(TMP / "missing" / "deeper" / "run.csv"),
        ss.ResultsFileError, [str(TMP / "missing" / "deeper"), "parents=True"]),
    "save npz into a missing directory": (
        lambda: results().save(TMP / "absent" / "run.npz"),
        ss.ResultsFileError, [str(TMP / "absent"), "does not exist"]),
    "save below a file": (
        lambda: results().save(saved("run.npz") / "run.csv", parents=True),
        ss.ResultsFileError, ["run.npz", "not a directory"]),
    # load: a CSV that does not match its sidecar
    "csv changed after saving": (load(csv_with_changed_digit), ss.ResultsFileError,
                                 ["run.csv", "sha256", "run.csv.json", "changed"]),
    "csv cut at a line break": (load(csv_cut_at_a_line), ss.ResultsFileError,
                                ["run.csv", "47 data rows", "sidecar says 50", "truncated"]),
    "csv with a row added": (load(csv_with_a_row_added), ss.ResultsFileError,
                             ["run.csv", "51 data rows", "sidecar says 50"]),
    "csv with another run's sidecar": (load(csv_with_the_sidecar_of_another_run),
                                       ss.ResultsFileError, ["run.csv", "sha256"]),
    # load: truncated, corrupt or partial archives
    "npz truncated": (load(lambda: cut(saved("run.npz"), 0.6)), ss.ResultsFileError,
                      ["run.npz", "truncated"]),
    "npz with a flipped byte": (load(lambda: flipped(saved("run.npz"), 120)),
                                ss.ResultsFileError, ["run.npz", "CRC"]),
    "npz without its time axis": (load(npz_without_times), ss.ResultsFileError,
                                  ["run.npz", "__t__"]),
    "npz with repeated times": (load(npz_with_repeated_times), ss.ResultsFileError,
                                ["run.npz", "strictly increasing"]),
    "parquet truncated": (load(lambda: cut(saved("run.parquet"), 0.7)), ss.ResultsFileError,
                          ["run.parquet", "truncated"]),
    "parquet with a flipped byte": (load(lambda: flipped(saved("run.parquet"), 200)),
                                    ss.ResultsFileError, ["run.parquet", "checksum"]),
}


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_bad_results_input_raises_naming_the_culprit(case):
    if "parquet" in case:
        pytest.importorskip("pyarrow")
    call, error, needles = CASES[case]
    with pytest.raises(error) as err:
        call()
    for needle in needles:
        assert needle in str(err.value), f"{case}: message {str(err.value)!r} lacks {needle!r}"


def test_save_with_parents_creates_the_directory():
    path = results().save(TMP / "new" / "deeper" / "run.csv", parents=True)
    assert ss.Results.load(path).names == ["p", "v"]


def test_the_sidecar_records_checksum_and_rows():
    import hashlib

    path = saved("run.csv")
    side = json.loads(ss.results.sidecar_path(path).read_text())
    assert side["csv"]["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert side["csv"]["rows"] == 50 and "previous" not in side


def test_a_sidecar_without_checksum_still_loads():
    # sidecars written before checksums were recorded are trusted as they are
    path = saved("run.csv")
    side = ss.results.sidecar_path(path)
    entry = json.loads(side.read_text())
    del entry["csv"]
    side.write_text(json.dumps(entry))
    back = ss.Results.load(path)
    assert back.units["p"] == "m" and back.final_state.tolist() == [1.0, 2.0]


def test_a_csv_without_sidecar_still_loads_after_an_overwrite():
    path = saved("run.csv")
    results(seed=3).save(path)                          # an overwrite: the sidecar follows
    ss.results.sidecar_path(path).unlink()
    np.testing.assert_array_equal(ss.Results.load(path)["p"], results(seed=3)["p"])


def test_no_temporary_files_are_left_by_a_finished_save():
    path = saved("run.csv")
    for suffix in (".csv", ".npz", ".parquet"):
        results(seed=2).save(path.with_suffix(suffix))
        results(seed=3).save(path.with_suffix(suffix))
    assert sorted(p.name for p in path.parent.iterdir()) == [
        "run.csv", "run.csv.json", "run.npz", "run.parquet"]


def test_there_are_enough_cases():
    assert len(CASES) >= 20
