""":class:`FitResult`: what `fit` found (estimates, intervals, the fitted system and run),
as a table (`to_frame`), a text (`repr`) and a figure of fit against data (`plot`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..results import Results

__all__ = ["FitResult"]


@dataclasses.dataclass
class FitResult:
    """What :func:`fit` found.

    Attributes
    ----------
    names
        the fitted parameters, in order.
    estimates
        ``{name: value}`` at the optimum.
    intervals
        ``{name: (low, high)}`` confidence intervals at level `confidence`, from the
        Gauss–Newton covariance ``σ²(JᵀJ)⁻¹`` of the fit variables (log space for positive
        parameters, so the intervals stay positive and are asymmetric there).
    stderr
        ``{name: standard error}`` by the delta method.
    covariance : np.ndarray
        covariance of the fit variables u (the solver's coordinates).
    sigma2 : float
        residual variance ``‖r‖²/(m − n)`` of the weighted residuals.
    residual_norm : float
        ``‖r‖`` at the optimum (weighted).
    cost_start : float
        ``‖r‖`` at the start.
    n_data : int
        residual count m.
    steps : int
        solver steps.
    converged : bool
        the solver's verdict.
    system : Any
        the model with the estimates.
    fitted : Results
        its run sampled at the data times.
    data : tuple
        ``(t, {channel: values})`` that was fitted.
    wall_time : float
        [s].
    """

    names: list[str]
    estimates: dict[str, float]
    intervals: dict[str, tuple[float, float]]
    stderr: dict[str, float]
    covariance: np.ndarray
    sigma2: float
    residual_norm: float
    cost_start: float
    n_data: int
    steps: int
    converged: bool
    confidence: float
    system: Any
    fitted: Results
    data: tuple
    channels: list[str]
    wall_time: float

    def to_frame(self):
        """A table: estimate, standard error and interval per parameter."""
        import pandas as pd

        return pd.DataFrame({"estimate": self.estimates, "stderr": self.stderr,
                             "low": {k: v[0] for k, v in self.intervals.items()},
                             "high": {k: v[1] for k, v in self.intervals.items()}})

    def __repr__(self):
        lines = [f"FitResult({'converged' if self.converged else 'NOT converged'} in "
                 f"{self.steps} steps, residual {self.cost_start:.4g} -> "
                 f"{self.residual_norm:.4g}, {self.n_data} residuals)"]
        pct = round(100 * self.confidence)
        for name in self.names:
            lo, hi = self.intervals[name]
            lines.append(f"  {name:>12s} = {self.estimates[name]:.6g}   {pct}% CI "
                         f"[{lo:.6g}, {hi:.6g}]")
        return "\n".join(lines)

    def plot(self, channels: Sequence[str] | None = None):
        """Fitted run against the data, one panel per channel (and the residual); returns
        the matplotlib Figure."""
        import matplotlib.pyplot as plt

        channels = list(channels or self.channels)
        t, measured = self.data
        fig, axes = plt.subplots(len(channels), 1, sharex=True, squeeze=False,
                                 figsize=(7, 2.2 * len(channels) + 0.8))
        for ax, name in zip(axes[:, 0], channels):
            unit = self.fitted.units.get(name, "")
            ax.plot(t, measured[name], ".", ms=2, color="0.6", label=f"{name} measured")
            ax.plot(self.fitted.t, self.fitted[name], "-", lw=1.2, label=f"{name} fitted")
            ax.set_ylabel(f"{name} [{unit}]" if unit else name)
            ax.legend(loc="best", fontsize="small")
            ax.grid(True, alpha=0.3)
        axes[-1, 0].set_xlabel("t [s]")
        text = ", ".join(f"{k}={v:.4g}" for k, v in self.estimates.items())
        fig.suptitle(f"fit: {text}", fontsize="small")
        fig.tight_layout()
        return fig
