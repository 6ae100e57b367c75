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
    assert res.names[:2] == ["p", "v"] and {"f", "fe", "a"} <= set(res.names)
    assert res.units["p"] == "m" and res.units["f"] == "N"
    assert res.meta["method"] == "rk4" and res.meta["dt"] == 1e-4
    assert res.meta["parameters"]["law"] == "CoulombODE"
    assert res.meta["wall_time"] > 0
    assert len(res.t) == 51 and res.t[-1] == pytest.approx(0.5)


def test_unknown_channel_suggests_close_names(res):
    with pytest.raises(KeyError, match="Did you mean 'fe'"):
        res["fex"]


@pytest.mark.parametrize("suffix", [".npz", ".csv"])
def test_save_load_round_trip(res, tmp_path, suffix):
    path = res.save(tmp_path / f"run{suffix}")
    back = ss.Results.load(path)
    np.testing.assert_array_equal(back.t, res.t)
    for name in res.names:
        np.testing.assert_allclose(back[name], res[name], rtol=1e-15)
    assert back.units == res.units and back.meta["method"] == "rk4"


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
