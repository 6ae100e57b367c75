"""The Fig. 8 reproduction is registered and its grid shows the coupling."""

import pytest

from stickslip.figures import FIGURES


def test_fig8_is_registered():
    assert "spatial_fig8" in {spec.name for spec in FIGURES}


@pytest.mark.slow
def test_fig8_regions(tmp_path):
    spec = next(s for s in FIGURES if s.name == "spatial_fig8")
    out = spec.make(tmp_path)
    assert (tmp_path / "spatial_fig8.png").exists() and (tmp_path / "spatial_fig8.csv").exists()
    # the previous method's region is a rectangle that contains the proposed one
    assert out["static_fraction_previous"] > out["static_fraction_proposed"] > 0.3
