"""Fixtures of the integrate tests: both output-sample paths of a host, one after the other
(``AbstractSystem.samples_in_stages``), and the comparison of their Results."""

import numpy as np
import pytest


@pytest.fixture
def both_ways(monkeypatch):
    """``both_ways(cls, fn)``: `fn()` with host class `cls` taking its samples from the
    first RK stage, then from a pass after the steps; returns both results."""
    def run(cls, fn):
        monkeypatch.setattr(cls, "samples_in_stages", True)
        staged = fn()
        monkeypatch.setattr(cls, "samples_in_stages", False)
        after = fn()
        monkeypatch.undo()
        return staged, after
    return run


@pytest.fixture
def same_results():
    """``same_results(a, b, atol)``: equal names and times, every channel within `atol`."""
    def check(a, b, atol):
        assert a.names == b.names
        np.testing.assert_array_equal(a.t, b.t)
        for name in a.names:
            np.testing.assert_allclose(a[name], b[name], atol=atol, rtol=0, err_msg=name)
    return check
