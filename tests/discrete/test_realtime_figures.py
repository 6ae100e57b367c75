"""The real-time algorithms' figures: their claims (fast checks) and the files (slow, via the
CLI)."""

import json

import jax.numpy as jnp
import numpy as np
import pytest
from typer.testing import CliRunner

from stickslip.cli import app
from stickslip.figures._da_stick_slip import KINETIC, LEVELS, run_chain

NAMES = ["psmc_chattering", "psmc_step_response", "da_stick_slip", "brush_tire"]


def test_da_relaxation_chain_sticks_and_slips_within_each_friction_level():
    p, v, f, sliding = (np.asarray(x) for x in run_chain(jnp.asarray(LEVELS)))
    for i, level in enumerate(LEVELS):
        starts = np.sum(np.diff((~sliding[:, i]).astype(int)) == 1)
        assert starts >= 3, f"block {i} never sticks again"         # stick–slip, repeatedly
        assert np.max(np.abs(f[:, i])) <= level * (1 + 1e-12)
        slid_before = np.concatenate([[False], sliding[:-1, i]])
        assert np.all(np.abs(f[slid_before, i]) <= KINETIC * level * (1 + 1e-12))
        stuck = ~sliding[:, i]
        # while stuck only the relaxation spring K (damped by B) lets it move: < 1 cm/s,
        # against ~0.1 m/s while sliding
        assert np.max(np.abs(v[stuck, i])) < 0.01


@pytest.mark.slow
def test_realtime_figures_are_written_with_their_claims(tmp_path):
    args = ["figures", "--out", str(tmp_path)]
    for name in NAMES:
        args += ["--only", name]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    for name in NAMES:
        assert (tmp_path / f"{name}.png").stat().st_size > 10_000
        assert (tmp_path / f"{name}.csv").stat().st_size > 1_000
    summary = json.loads((tmp_path / "summary.json").read_text())
    flips = summary["psmc_chattering"]["force_sign_flips_after_1s"]
    assert flips["naive SMC"] > 100 and flips["PSMC"] == 0
    steps = summary["psmc_step_response"]
    assert steps["small/PSMC"]["overshoot_percent"] == pytest.approx(
        steps["small/PID"]["overshoot_percent"], abs=1e-6)
    assert steps["large/PSMC"]["overshoot_percent"] < 0.1 < steps["large/PID"]["overshoot_percent"]
    assert steps["large/PSMC"]["peak_force_N"] <= 20.0
    tire = summary["brush_tire"]
    assert tire["max_deviation_from_brush_model_N"] < 0.01 * 4000
    ends = list(tire["stick_region_end_over_L"].values())
    assert all(a > b for a, b in zip(ends, ends[1:]))                # more slip, less stick
