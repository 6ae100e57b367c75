"""The table behind :attr:`stickslip.Results.events`: the events an event-driven run located
(``simulate(..., method="events")``), one row each, kept as NumPy columns and turned into a
pandas DataFrame when read (so a run that never reads them pays nothing for pandas)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .errors import ParameterError

__all__ = ["EVENT_COLUMNS", "check_event_columns", "event_frame"]

#: the columns every events table starts with; the state channels after each event follow
EVENT_COLUMNS = ("t", "kind", "name")


def check_event_columns(columns) -> dict[str, np.ndarray] | None:
    """`columns` — ``{name: 1-D array}`` with at least ``t``, ``kind``, ``name``, all of one
    length — as a dict of arrays (None stays None)."""
    if columns is None:
        return None
    if not isinstance(columns, Mapping) or not set(EVENT_COLUMNS) <= set(columns):
        raise ParameterError(f"`Results.events` must be set to a mapping of columns with at "
                             f"least {list(EVENT_COLUMNS)}; got {columns!r:.80}.")
    arrays = {str(k): np.asarray(v) for k, v in columns.items()}
    lengths = {k: v.shape for k, v in arrays.items() if v.ndim != 1} or \
        {k: len(v) for k, v in arrays.items() if len(v) != len(arrays["t"])}
    if lengths:
        raise ParameterError(f"`Results.events` columns must be 1-D and of one length (that "
                             f"of `t`, {len(np.atleast_1d(arrays['t']))}); got {lengths}.")
    return arrays


def event_frame(columns: dict[str, np.ndarray] | None):
    """The DataFrame of `columns` (an empty one with ``t``, ``kind``, ``name`` for None)."""
    import pandas as pd

    if columns is None:
        columns = {"t": np.zeros(0), "kind": np.zeros(0, object), "name": np.zeros(0, object)}
    frame = pd.DataFrame(dict(columns))
    frame.attrs["units"] = {"t": "s"}
    return frame
