"""The output grid of a run: one rule for every analysis — the last sample is exactly `t_end`.

Rule (fixed step `dt`, output interval `dt_out` = `n_sub`·`dt`):

* samples at ``t0 + k·dt_out`` for ``k = 0 … n_out − 1`` and a last one at exactly ``t_end``;
* every output interval takes `n_sub` steps of `dt`, except the last: it takes the whole
  steps that fit (``n_last``, 0 … n_sub) and, when `dt` does not divide ``t_end − t0``, one
  shorter final step ``h_last`` (0 < h_last < dt) that lands on `t_end`. A shorter step of an
  explicit Runge–Kutta method is at least as stable as `dt` for the damped modes the step
  check looks at, so no new stability condition arises.
* Adaptive methods sample at ``t0 + k·dt_out`` and at exactly `t_end` (a shorter last
  interval) — :func:`output_times`.

So ``simulate(system, 1.05, dt=1e-3, dt_out=0.1)`` samples 0, 0.1, …, 1.0, 1.05 (the last
interval has 50 steps), and the Results' ``final_state`` is the state at 1.05. Hosts other
than :func:`stickslip.simulate` (planar events, spatial, closed loop, the sweep) build their
grids with :func:`step_grid` / :func:`output_times` so they sample the same way, and check
their time arguments with :func:`check_time_arguments` before they build or compile anything,
so a bad step is refused with the same message by every host.

>>> g = step_grid(0.0, 1.05, 1e-3, 0.1)
>>> g.n_sub, g.n_out, g.n_last, g.h_last, float(g.times()[-1])
(100, 11, 50, 0.0, 1.05)
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..errors import ParameterError
from ._arguments import as_time

__all__ = ["StepGrid", "TimeArguments", "check_time_arguments", "output_times", "step_grid"]

# relative slack when deciding whether a ratio of times is a whole number (round-off of
# decimal steps such as 1.05 / 1e-3 = 1049.9999999999998)
_WHOLE = 1e-9


class StepGrid(NamedTuple):
    """A fixed-step output grid (all plain Python numbers, hashable).

    t0, t_end: start and end [s].   dt: the step [s].   n_sub: steps per output interval.
    n_out: number of output intervals (samples after t0).   n_last: whole steps in the last
    interval (0 … n_sub).   h_last: a final shorter step [s] ending at t_end (0 when none).
    """

    t0: float
    t_end: float
    dt: float
    n_sub: int
    n_out: int
    n_last: int
    h_last: float

    @property
    def dt_out(self) -> float:
        return self.n_sub * self.dt

    @property
    def n_steps(self) -> int:
        """Steps taken in all, the short final step included."""
        return (self.n_out - 1) * self.n_sub + self.n_last + (self.h_last > 0)

    def times(self) -> np.ndarray:
        """The sample times: ``t0 + k·dt_out``, the last exactly `t_end`."""
        ts = self.t0 + np.arange(self.n_out + 1) * self.dt_out
        ts[-1] = self.t_end
        return ts


def _whole(ratio: float) -> int | None:
    """`ratio` as an int when it is one up to round-off, else None."""
    r = round(ratio)
    return r if abs(ratio - r) <= _WHOLE * max(1.0, abs(ratio)) else None


def step_grid(t0: float, t_end: float, dt, dt_out=None, *, owner: str = "simulate") -> StepGrid:
    """The fixed-step grid from `t0` to `t_end` (see the module docstring for the rule).

    `dt_out` must be a whole multiple of `dt` (default: `dt`, a sample per step); `t_end`
    need not be a multiple of either. Raises `ParameterError` naming `owner.dt`/`dt_out`.
    """
    if dt is None:
        raise ParameterError(f"fixed-step methods need `dt` [s] (`{owner}.dt`); pass e.g. dt=1e-4 "
                             "(the message of a too-large step says the largest stable one), "
                             "or use an adaptive method such as method='tsit5'.")
    dt = as_time(owner, "dt", dt, positive=True, hint="Pass a positive step in seconds.")
    dt_out = dt if dt_out is None else as_time(
        owner, "dt_out", dt_out, positive=True, hint="Pass a positive output interval in seconds.")
    t0, t_end = float(t0), float(t_end)
    n_sub = _whole(dt_out / dt)
    if n_sub is None or n_sub < 1:
        fix = max(1, round(dt_out / dt)) * dt
        raise ParameterError(f"`{owner}.dt_out` must be a whole multiple of `dt` for "
                             f"fixed-step methods; got dt_out={dt_out:g}, dt={dt:g}. Use "
                             f"dt_out={fix:g}.")
    span = t_end - t0
    ratio = span / dt
    n_whole = _whole(ratio)
    if n_whole is None:
        n_whole = math.floor(ratio)
        h_last = span - n_whole * dt
    else:
        h_last = 0.0
    n_full, rem = divmod(n_whole, n_sub)
    if rem == 0 and h_last == 0.0:
        n_out, n_last = n_full, n_sub
    else:
        n_out, n_last = n_full + 1, rem
    return StepGrid(t0, t_end, dt, n_sub, n_out, n_last, float(h_last))


def output_times(t0: float, t_end: float, dt_out: float) -> np.ndarray:
    """Adaptive-method sample times: ``t0 + k·dt_out`` while before `t_end`, then exactly
    `t_end` (the last interval may be shorter)."""
    t0, t_end = float(t0), float(t_end)
    ratio = (t_end - t0) / dt_out
    n_whole = _whole(ratio)
    n_out = n_whole if n_whole is not None else math.ceil(ratio)
    ts = t0 + np.arange(max(n_out, 1) + 1) * dt_out
    ts[-1] = t_end
    return ts


class TimeArguments(NamedTuple):
    """The checked time arguments of a run: `t0`, `t_end`, `dt`, `dt_out` [s] as floats
    (`dt` and `dt_out` None where they were omitted)."""

    t0: float
    t_end: float
    dt: float | None
    dt_out: float | None


def check_time_arguments(owner: str, t_end, dt=None, dt_out=None, t0=None, *, initial=None,
                         fixed_step: bool = False) -> TimeArguments:
    """The step and span check every host runs first: ``ss.simulate``, ``simulate_batch``,
    the planar and spatial models' ``simulate``, the closed loop and ``ss.sweep``.

    It does no JAX work, so a bad argument is refused before anything is built or compiled
    (a zero step used to hang the planar event loop; a negative one ran it backwards).

    Parameters
    ----------
    owner : str
        The host, as the messages name it (``"simulate"``, ``"planar.Model.simulate"``, …).
    t_end
        End time [s]: finite and after `t0`.
    dt
        Step [s]: finite and > 0, or None. With `fixed_step` (the Runge–Kutta methods) it
        is required and `dt_out` must be a whole multiple of it (the rule of
        :func:`step_grid`); a route with rules of its own (adaptive, ``moreau_jean``)
        checks what is left after this.
    dt_out
        Output interval [s]: finite and > 0, or None (the host's default).
    t0
        Start time [s]: finite; default the end of `initial` when that is a
        :class:`~stickslip.Results` (a continued run), else 0.

    Returns
    -------
    TimeArguments
        TimeArguments with the values as floats.

    Raises
    ------
    ParameterError
        naming ``owner.<argument>``, the value and the fix.

    Examples
    --------
    >>> check_time_arguments("simulate", 1.0, 1e-3, 0.01, fixed_step=True)
    TimeArguments(t0=0.0, t_end=1.0, dt=0.001, dt_out=0.01)
    >>> check_time_arguments("simulate", 1.0, 0.0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    stickslip.errors.ParameterError: `simulate.dt` must be > 0; got dt=0.0. ...
    """
    if t0 is None:
        from ..results import Results  # light: numpy only

        ended = isinstance(initial, Results) and len(initial.t) > 0
        t0 = float(initial.t[-1]) if ended and initial is not None else 0.0
    t0 = as_time(owner, "t0", t0)
    t_end = as_time(owner, "t_end", t_end)
    if not t_end > t0:
        raise ParameterError(f"`{owner}.t_end` must be a finite time after t0={t0:g} s; got "
                             f"t_end={t_end:g}. Pass a later end time.")
    if fixed_step:
        step_grid(t0, t_end, dt, dt_out, owner=owner)      # dt required, dt_out a multiple
    if dt is not None:
        dt = as_time(owner, "dt", dt, positive=True,
                     hint="Pass a positive step in seconds (for adaptive methods the "
                          "initial step, which may be omitted).")
    if dt_out is not None:
        dt_out = as_time(owner, "dt_out", dt_out, positive=True,
                         hint="Pass a positive output interval in seconds.")
    return TimeArguments(t0, t_end, dt, dt_out)
