"""Designs: grid order, Latin-hypercube strata, reproducible samples."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from stickslip.studies import grid, latin_hypercube, random_sample


def test_grid_is_full_factorial_with_the_last_axis_fastest():
    d = grid(a=[1, 2], b=[10, 20, 30])
    assert d.values.tolist() == [[1, 10], [1, 20], [1, 30], [2, 10], [2, 20], [2, 30]]


@given(n=st.integers(1, 60), seed=st.integers(0, 2 ** 31), low=st.floats(-5, 5),
       width=st.floats(0.1, 10))
def test_latin_hypercube_puts_one_point_in_every_stratum(n, seed, low, width):
    d = latin_hypercube(n, seed=seed, x=(low, low + width), y=(0.0, 1.0))
    for column, (lo, w) in (("x", (low, width)), ("y", (0.0, 1.0))):
        strata = np.floor((d[column].to_numpy() - lo) / w * n).astype(int)
        assert sorted(np.clip(strata, 0, n - 1)) == list(range(n))


def test_samples_are_reproducible_with_a_seed_and_inside_the_ranges():
    a = random_sample(50, seed=4, F=(0.2, 0.8))
    b = random_sample(50, seed=4, F=(0.2, 0.8))
    assert a.equals(b) and a["F"].between(0.2, 0.8).all()
    assert not a.equals(random_sample(50, seed=5, F=(0.2, 0.8)))
    assert latin_hypercube(5, seed=1, F=(0, 1)).equals(latin_hypercube(5, seed=1, F=(0, 1)))
