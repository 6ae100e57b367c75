"""Results: access, conversion, storage round trips, plotting."""

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import stickslip as ss  # noqa: E402
from models import sliding_block  # noqa: E402


@pytest.fixture(scope="module")
def res():
    return ss.simulate(sliding_block(), 0.5, dt=1e-4, dt_out=1e-2)


def test_channels_units_and_metadata(res):
    assert res.names[:2] == ["p", "v"] and {"f", "fe", "proxy_offset"} <= set(res.names)
    assert res.units["p"] == "m" and res.units["f"] == "N"
    assert res.meta["method"] == "rk4" and res.meta["dt"] == 1e-4
    assert res.meta["parameters"]["law"] == "CoulombODE"
    assert res.meta["wall_time"] > 0
    assert len(res.t) == 51 and res.t[-1] == pytest.approx(0.5)


def test_unknown_channel_suggests_close_names(res):
    with pytest.raises(KeyError, match="Did you mean 'fe'") as err:
        res["fex"]
    assert isinstance(err.value, ss.ChannelError) and str(err.value).startswith("no channel")


@pytest.fixture(scope="module")
def batch():
    return ss.simulate_batch([sliding_block(M=1.0), sliding_block(M=2.0),
                              sliding_block(M=3.0)], 0.105, dt=1e-4, dt_out=1e-2)


def assert_equal_results(back, res):
    """Equal in every part a file can hold: times, channels (exactly), batch axes, units,
    metadata (as JSON), final state."""
    import json

    np.testing.assert_array_equal(back.t, res.t)
    assert back.names == res.names and back.batch_shape == res.batch_shape
    for name in res.names:
        np.testing.assert_array_equal(back[name], res[name])
    assert back.units == res.units
    assert json.dumps(back.meta, sort_keys=True) == \
        json.dumps(ss.results._jsonable(res.meta), sort_keys=True)
    np.testing.assert_array_equal(back.final_state, res.final_state)


@pytest.mark.parametrize("suffix", [".npz", ".csv", ".parquet"])
@pytest.mark.parametrize("which", ["single", "batch"])
def test_every_format_loads_back_equal(res, batch, tmp_path, suffix, which):
    original = res if which == "single" else batch
    path = original.save(tmp_path / f"run{suffix}")
    assert path == tmp_path / f"run{suffix}"
    back = ss.Results.load(path)
    assert_equal_results(back, original)
    if which == "batch":
        assert back.member(2)["p"].shape == (len(original.t),)


def test_csv_is_a_plain_table_with_a_named_sidecar(res, batch, tmp_path):
    import json

    import pandas as pd

    res.save(tmp_path / "run.csv")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.csv", "run.csv.json"]
    frame = pd.read_csv(tmp_path / "run.csv")          # no options
    assert list(frame.columns) == ["t", *res.names]
    np.testing.assert_array_equal(frame["p"], res["p"])
    side = json.loads((tmp_path / "run.csv.json").read_text())
    assert side["units"]["p"] == "m" and len(side["final_state"]) == 3
    batch.save(tmp_path / "batch.csv")
    frame = pd.read_csv(tmp_path / "batch.csv")
    assert list(frame.columns[:2]) == ["member", "t"] and len(frame) == 3 * len(batch.t)
    np.testing.assert_array_equal(frame["p"][frame["member"] == 1], batch["p"][1])


def test_continuing_from_a_loaded_csv_equals_one_run(tmp_path):
    block = sliding_block()
    whole = ss.simulate(block, 0.4, dt=1e-4, dt_out=1e-2)
    first = ss.simulate(block, 0.2, dt=1e-4, dt_out=1e-2)
    loaded = ss.Results.load(first.save(tmp_path / "first.csv"))
    second = ss.simulate(block, 0.4, dt=1e-4, dt_out=1e-2, initial=loaded)
    np.testing.assert_allclose(second["p"], whole["p"][20:], rtol=1e-12, atol=1e-15)


def test_a_csv_without_sidecar_still_loads(res, tmp_path):
    path = res.save(tmp_path / "run.csv")
    (tmp_path / "run.csv.json").unlink()
    back = ss.Results.load(path)
    np.testing.assert_array_equal(back["v"], res["v"])
    assert back.final_state is None and back.units["v"] == ""


@pytest.mark.parametrize("suffix", [".npz", ".csv", ".parquet"])
def test_truncated_files_raise_a_clear_error(res, tmp_path, suffix):
    path = res.save(tmp_path / f"run{suffix}")
    data = path.read_bytes()
    for cut in (len(data) // 2, len(data) - 7):
        path.write_bytes(data[:cut])
        with pytest.raises(ss.ResultsFileError, match=r"run\.(csv|npz|parquet)"):
            ss.Results.load(path)


def test_csv_cut_at_a_line_break_is_caught_by_the_sidecar(res, tmp_path):
    path = res.save(tmp_path / "run.csv")
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:-5]))
    with pytest.raises(ss.ResultsFileError, match="sidecar says 51"):
        ss.Results.load(path)


def test_corrupt_files_raise_a_clear_error(res, tmp_path):
    path = res.save(tmp_path / "run.csv")
    (tmp_path / "run.csv.json").write_text("{not json")
    with pytest.raises(ss.ResultsFileError, match="not valid JSON"):
        ss.Results.load(path)
    (tmp_path / "run.csv.json").unlink()
    path.write_text("t,p\n0.0,abc\n")
    with pytest.raises(ss.ResultsFileError, match="non-numeric values in column 'p'"):
        ss.Results.load(path)
    (tmp_path / "run.npz").write_bytes(b"PK\x03\x04 not a zip")
    with pytest.raises(ss.ResultsFileError, match="not a complete results archive"):
        ss.Results.load(tmp_path / "run.npz")
    with pytest.raises(ss.ResultsFileError, match="no file"):
        ss.Results.load(tmp_path / "missing.npz")


def test_missing_pyarrow_gives_the_install_hint(res, tmp_path, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "pyarrow", None)
    with pytest.raises(ss.MissingDependencyError, match=r"stickslip\[parquet\]"):
        res.save(tmp_path / "run.parquet")


def test_to_pandas_indexed_by_time(res):
    frame = res.to_pandas()
    assert frame.index.name == "t" and list(frame.columns) == res.names
    assert frame.attrs["units"]["v"] == "m/s"


def test_batched_results_to_pandas_and_member():
    batch = ss.simulate_batch([sliding_block(M=1.0), sliding_block(M=2.0)], 0.1, dt=1e-4,
                              dt_out=1e-2)
    frame = batch.to_pandas()
    assert frame.index.names == ["member", "t"] and len(frame) == 2 * 11
    assert batch.member(1)["p"].shape == (11,)


def test_plot_returns_a_figure_with_a_panel_per_unit(res):
    fig = res.plot(["p", "v", "f", "fe"])
    assert len(fig.axes) == 3     # m, m/s, N


def test_save_rejects_unknown_format(res, tmp_path):
    with pytest.raises(ValueError, match="use a path ending in .csv, .npz or .parquet"):
        res.save(tmp_path / "run.xlsx")


# --- deprecated channel aliases (issue 24) ---------------------------------------------------

def test_deprecated_alias_a_is_hidden_from_listings_and_warns_on_access(res, batch):
    # FrictionMass's old name `a` of `proxy_offset`: no duplicated channel anywhere
    assert "a" not in res.names and "proxy_offset" in res.names
    assert res.aliases == {"a": "proxy_offset"} and "a" in res
    assert "a" not in res.to_pandas().columns and "a" not in batch.to_pandas().columns
    with pytest.warns(DeprecationWarning, match=r"'a' is a deprecated alias of "
                                                r"'proxy_offset'.*res\['proxy_offset'\]"):
        np.testing.assert_array_equal(res["a"], res["proxy_offset"])
    with pytest.warns(DeprecationWarning, match="proxy_offset"):
        np.testing.assert_array_equal(batch.member(1)["a"], batch["proxy_offset"][1])


@pytest.mark.parametrize("suffix", [".npz", ".csv", ".parquet"])
def test_deprecated_alias_is_in_no_file_and_still_reads_after_load(res, tmp_path, suffix):
    import pandas as pd

    path = res.save(tmp_path / f"run{suffix}")
    if suffix == ".npz":
        with np.load(path) as archive:
            assert "ch:a" not in archive.files and "ch:proxy_offset" in archive.files
    else:
        columns = (pd.read_csv(path) if suffix == ".csv" else pd.read_parquet(path)).columns
        assert "a" not in columns and "proxy_offset" in columns
    back = ss.Results.load(path)
    assert "a" not in back.names
    with pytest.warns(DeprecationWarning, match="proxy_offset"):
        np.testing.assert_array_equal(back["a"], res["proxy_offset"])


def test_aliases_apply_only_where_the_new_channel_exists_and_the_old_is_none():
    t = np.array([0.0, 1.0])
    own = ss.Results(t, {"a": np.zeros(2), "proxy_offset": np.ones(2)})
    assert own.aliases == {} and own.names == ["a", "proxy_offset"]   # a real channel wins
    np.testing.assert_array_equal(own["a"], np.zeros(2))
    other = ss.Results(t, {"z": np.ones(2)}, aliases={"bristle": "z"})
    assert other.aliases == {"bristle": "z"} and other.names == ["z"]
    with pytest.warns(DeprecationWarning, match="'bristle' is a deprecated alias of 'z'"):
        other["bristle"]
    with pytest.raises(ss.ChannelError, match="no channel 'a'"):
        other["a"]
