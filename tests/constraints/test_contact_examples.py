"""The frictional-contact examples run through `stickslip examples run` (their runners return
what run_example unpacks) and keep their key numbers."""

import pytest

from stickslip.planar.examples import run_example


@pytest.mark.slow
@pytest.mark.parametrize("name", ["clearance_slider", "incline", "painleve_rod",
                                  "box_on_ground"])
def test_contact_example_runs(name, tmp_path):
    summary = run_example(name, tmp_path, animation=False)
    assert (tmp_path / f"{name}.csv").exists() and (tmp_path / f"{name}_trajectory.png").exists()
    if name == "clearance_slider":             # corners stay within the clearance
        assert summary["min_gap_m"] > -1e-9 and summary["max_gap_m"] < 2e-3 + 1e-9
    if name == "incline":                      # sticks below, slides at the closed form above
        assert abs(summary["drift_at_20deg_m"]) < 1e-12
        assert summary["slide_at_35deg_m"] == pytest.approx(summary["closed_form_m"],
                                                            rel=1e-6)
    if name == "painleve_rod":
        assert "several solutions" in summary["mu_2.5_error"]
