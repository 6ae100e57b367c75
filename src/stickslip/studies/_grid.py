"""Designs of experiments: which parameter points a sweep visits.

Every design is a :class:`pandas.DataFrame` with one column per named parameter and one row
per point, so a user may also pass any DataFrame of points of their own to
:func:`~stickslip.studies.sweep`.
"""

from __future__ import annotations

import math
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from ..errors import ParameterError

__all__ = ["as_design", "check_design_memory", "grid", "latin_hypercube", "random_sample"]


def grid(**axes: Sequence[float]) -> pd.DataFrame:
    """Full-factorial grid: every combination of the given values, the last axis fastest.

    >>> from stickslip.studies import grid
    >>> grid(F=[0.1, 0.2], amplitude=[0.3, 0.4, 0.5]).shape
    (6, 2)
    """
    if not axes:
        raise ParameterError("`grid` needs at least one named axis, e.g. grid(F=[0.1, 0.2]).")
    columns = {}
    for name, values in axes.items():
        values = np.atleast_1d(np.asarray(values, dtype=float))
        if values.ndim != 1 or values.size == 0 or not np.all(np.isfinite(values)):
            raise ParameterError(f"`grid` axis `{name}` must be a non-empty list of finite "
                                 f"numbers; got {values!r}.")
        columns[name] = values
    check_design_memory("grid", [len(v) for v in columns.values()])
    # column by column (the last axis fastest, as itertools.product): a list of row tuples
    # would cost ~15 times the table
    n = math.prod(len(v) for v in columns.values())
    inner = n
    for name, values in columns.items():
        inner //= len(values)
        columns[name] = np.tile(np.repeat(values, inner), n // (inner * len(values)))
    return pd.DataFrame(columns)


# a design is held about four times while it is made and checked: its columns, the
# DataFrame's block, the checked copy and the float table of `as_design`
_DESIGN_COPIES = 4


def check_design_memory(kind: str, axes: Sequence[int] | int, n_columns: int | None = None,
                        fix: str | None = None, copies: int = _DESIGN_COPIES) -> None:
    """Refuse a design whose table would not fit the memory budget (:func:`stickslip.
    integrate.check_memory`), before it is made: `axes` the values per axis of a grid (or
    the number of points), `n_columns` the parameters (default: one per axis), `copies`
    how many times the table is held at the peak."""
    from ..integrate import check_memory

    counts = [int(axes)] if isinstance(axes, (int, np.integer)) else [int(a) for a in axes]
    n_points = math.prod(counts)
    n_columns = len(counts) if n_columns is None else int(n_columns)
    shape = " × ".join(f"{c:,}" for c in counts)
    what = (f"{n_points:,} points of {n_columns} parameter{'s' * (n_columns != 1)}"
            + (f", {shape}" if len(counts) > 1 else ""))
    if fix is None:
        fix = ("Give fewer values per axis" if len(counts) > 1 else "Ask for fewer points")
        fix += (" (a sweep runs every point: sweep a coarse design first and refine where "
                "it matters).")
    check_memory(kind, copies * 8.0 * n_points * max(n_columns, 1), what, fix)


def _ranges(kind: str, ranges: Mapping[str, Sequence[float]]):
    if not ranges:
        raise ParameterError(f"`{kind}` needs at least one named range, e.g. F=(0.1, 1.0).")
    lows, highs = [], []
    for name, bounds in ranges.items():
        try:
            low, high = (float(b) for b in bounds)
        except (TypeError, ValueError):
            raise ParameterError(f"`{kind}` range `{name}` must be two numbers (low, high); "
                                 f"got {bounds!r}.") from None
        if not (np.isfinite(low) and np.isfinite(high) and low <= high):
            raise ParameterError(f"`{kind}` range `{name}` must be finite with low <= high; "
                                 f"got ({low}, {high}).")
        lows.append(low)
        highs.append(high)
    return list(ranges), np.array(lows), np.array(highs)


def _check_count(kind, n):
    if int(n) != n or n < 1:
        raise ParameterError(f"`{kind}` needs a whole number of points n >= 1; got n={n!r}.")
    return int(n)


def latin_hypercube(n: int, *, seed: int, **ranges: Sequence[float]) -> pd.DataFrame:
    """`n` points of a Latin hypercube over the given ``name=(low, high)`` ranges: each range
    is cut into `n` equal strata and every stratum holds exactly one point
    (:class:`scipy.stats.qmc.LatinHypercube`, reproducible with `seed`).

    >>> from stickslip.studies import latin_hypercube
    >>> d = latin_hypercube(8, seed=0, F=(0.0, 1.0))
    >>> sorted((d["F"] * 8).astype(int))   # one point per stratum
    [0, 1, 2, 3, 4, 5, 6, 7]
    """
    from scipy.stats import qmc

    n = _check_count("latin_hypercube", n)
    names, lows, highs = _ranges("latin_hypercube", ranges)
    # scipy's sampler holds a permutation and a draw per value besides the table
    check_design_memory("latin_hypercube", n, len(names), copies=_DESIGN_COPIES + 2)
    # `seed=`: every SciPy >= 1.11 takes it (newer ones through a decorator that renames it
    # to `rng`, which the checker does not see; 1.11 has no `rng`)
    sampler = qmc.LatinHypercube(
        d=len(names), seed=np.random.default_rng(seed))  # pyright: ignore[reportCallIssue]
    unit = sampler.random(n)
    return pd.DataFrame(lows + unit * (highs - lows), columns=names)


def random_sample(n: int, *, seed: int, **ranges: Sequence[float]) -> pd.DataFrame:
    """`n` points drawn uniformly and independently over ``name=(low, high)`` ranges
    (NumPy's default generator with `seed`)."""
    n = _check_count("random_sample", n)
    names, lows, highs = _ranges("random_sample", ranges)
    check_design_memory("random_sample", n, len(names))
    unit = np.random.default_rng(seed).random((n, len(names)))
    return pd.DataFrame(lows + unit * (highs - lows), columns=names)


def as_design(points) -> pd.DataFrame:
    """A design from a DataFrame of points or a ``{name: values}`` mapping (a full grid)."""
    if isinstance(points, pd.DataFrame):
        design = points.reset_index(drop=True)
    elif isinstance(points, Mapping):
        design = grid(**points)
    else:
        raise ParameterError("a sweep's `grid` must be a DataFrame of points (from grid, "
                             "latin_hypercube, random_sample) or a {name: values} mapping; got "
                             f"{type(points).__name__}.")
    if design.empty or design.shape[1] == 0:
        raise ParameterError("a sweep's `grid` has no points; give at least one named "
                             "parameter with at least one value.")
    bad = [c for c in design.columns if not isinstance(c, str) or not c.isidentifier()]
    if bad:
        raise ParameterError(f"parameter names must be Python identifiers (they are passed to "
                             f"`build` as keyword arguments); got {bad}.")
    values = design.to_numpy(dtype=float)
    if not np.all(np.isfinite(values)):
        row = int(np.argmax(~np.all(np.isfinite(values), axis=1)))
        raise ParameterError(f"point {row} of the sweep's `grid` is not finite: "
                             f"{design.iloc[row].to_dict()}.")
    return design.astype(float)
