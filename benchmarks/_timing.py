"""The timing rule shared by the benchmark scripts: the best of a few wall-clock runs (the
machines are noisy; the minimum is the least disturbed run)."""

from __future__ import annotations

import math
import time


def best_of(fn, repeats: int = 5, warm_up: bool = False):
    """(best wall time [s], the last return value) of `repeats` calls of `fn`; with
    `warm_up`, one untimed call first (compilation)."""
    if warm_up:
        fn()
    best, out = math.inf, None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out
