"""What every spatial example shares: the :class:`Example` record (runs, key numbers, figure
data, plot) and two small helpers. The examples themselves are in ``_examples_contact``
(sphere, gripper) and ``_examples_links`` (four-bar, arm and box); the registry is
:mod:`stickslip.spatial.examples`."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from ..errors import ParameterError

__all__ = ["G", "Example"]

G = 9.81                                   # gravity [m/s²] of every example


@dataclass
class Example:
    """One example's runs, key numbers and figure.

    name: the registered name. runs: label → :class:`~stickslip.results.Results`.
    numbers: the key numbers (measured values, their closed forms, wall time [s]).
    table: the figure's data, column → 1-D array (equal lengths; NaN pads a shorter run).
    plot: ``plot(example) -> matplotlib Figure``.
    """

    name: str
    runs: dict
    numbers: dict
    table: dict
    plot: Callable = field(repr=False)

    def figure(self):
        """The figure (matplotlib is imported here, not at module import)."""
        return self.plot(self)

    def save(self, out) -> list[Path]:
        """Write ``<name>.png``, ``<name>.csv`` and ``<name>.json`` into directory `out`
        (created if missing); returns the paths."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import pandas as pd

        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        fig = self.figure()
        png = out / f"{self.name}.png"
        fig.savefig(png, dpi=120)
        plt.close(fig)
        csv = out / f"{self.name}.csv"
        pd.DataFrame(self.table).to_csv(csv, index=False, na_rep="nan")
        js = out / f"{self.name}.json"
        js.write_text(json.dumps({"example": self.name, **self.numbers}, indent=2,
                                 default=float))
        return [png, csv, js]


def _positive(owner, **values):
    for key, value in values.items():
        if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
            raise ParameterError(f"`{owner}.{key}` must be a finite number > 0; got "
                                 f"{key}={value!r}.")


def _pad(values, n):
    """`values` as a float array of length `n`, NaN-padded."""
    out = np.full(n, np.nan)
    out[:len(values)] = values
    return out


