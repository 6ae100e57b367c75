"""Memory budgets: what a run, a batch or a design would hold, refused before it is allocated.

Every entry point that can be asked for an arbitrarily large result — ``simulate`` (output
samples × channels; every step is kept when `dt_out` is omitted), ``simulate_batch``
(members × samples × channels), the designs of ``stickslip.studies`` (points × parameters)
— estimates the bytes it would hold at its peak and calls :func:`check_memory` before it
allocates them. Above the budget it raises :class:`~stickslip.errors.MemoryBudgetError`
with the estimate, the budget and the fix (a larger `dt_out`, the run in pieces, fewer
members or points), instead of being killed by the operating system minutes later.

The budget
----------
Half the memory available when the check runs (``MemAvailable`` of ``/proc/meminfo``,
else ``os.sysconf``; no check where neither is known). The environment variable
``STICKSLIP_MEMORY_BUDGET`` overrides it for the process (and for the worker processes of a
sweep, which inherit it):

* a size: ``8GB``, ``512MiB``, ``2e9`` (bytes; ``kB``/``MB``/``GB``/``TB`` are powers of
  1000, ``KiB``/``MiB``/``GiB``/``TiB`` of 1024);
* a share of the available memory: ``80%``;
* ``off`` (or ``0``, ``none``, ``inf``): no check.

One variable rather than a keyword on every entry point: the same setting then reaches
``simulate``, batches, sweeps, spec files and the command line alike.

>>> import os
>>> os.environ["STICKSLIP_MEMORY_BUDGET"] = "1MB"
>>> check_memory("simulate", 2e6, "2e+05 samples of 1 channel",
...              "Pass a larger `dt_out`.")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
stickslip.errors.MemoryBudgetError: `simulate` would hold about 2 MB (2e+05 samples of 1 channel), more than its memory budget of 1 MB (STICKSLIP_MEMORY_BUDGET=1MB). Pass a larger `dt_out`. ...
>>> del os.environ["STICKSLIP_MEMORY_BUDGET"]
"""

from __future__ import annotations

import math
import os
import re

from ..errors import MemoryBudgetError, ParameterError

__all__ = ["BUDGET_VARIABLE", "DEFAULT_FRACTION", "FLOAT_BYTES", "available_memory",
           "call_bytes", "check_memory", "check_run_memory", "format_bytes", "memory_budget",
           "nice_at_least"]

BUDGET_VARIABLE = "STICKSLIP_MEMORY_BUDGET"
DEFAULT_FRACTION = 0.5          # of the memory available when the check runs
FLOAT_BYTES = 8                 # float64 everywhere

_UNITS = {"": 1, "b": 1, "k": 1e3, "kb": 1e3, "m": 1e6, "mb": 1e6, "g": 1e9, "gb": 1e9,
          "t": 1e12, "tb": 1e12, "kib": 2 ** 10, "mib": 2 ** 20, "gib": 2 ** 30,
          "tib": 2 ** 40}
_SIZE = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([a-zA-Z]*)\s*$")


def available_memory() -> int | None:
    """The memory available to a new allocation now [bytes] (``MemAvailable`` of
    ``/proc/meminfo``, else free pages × page size from ``os.sysconf``), or None."""
    try:
        with open("/proc/meminfo", encoding="ascii") as info:
            for line in info:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):
        return None


def memory_budget() -> tuple[float, str]:
    """``(bytes, where it comes from)``: the budget the checks use now (module docstring);
    ``math.inf`` when the check is off or the available memory is unknown. Raises
    ParameterError naming the environment variable when it cannot be read."""
    text = os.environ.get(BUDGET_VARIABLE)
    if text is None or not text.strip():
        available = available_memory()
        if available is None:
            return math.inf, "the available memory is unknown: no check"
        source = (f"{DEFAULT_FRACTION:.0%} of the {format_bytes(available)} available; set "
                  f"{BUDGET_VARIABLE} to change it")
        return DEFAULT_FRACTION * available, source
    value = text.strip()
    shown = f"{BUDGET_VARIABLE}={value}"
    if value.lower() in ("off", "none", "inf", "0"):
        return math.inf, shown
    if value.endswith("%"):
        try:
            share = float(value[:-1]) / 100.0
        except ValueError:
            share = math.nan
        if not 0 < share <= 1:
            raise ParameterError(f"`{BUDGET_VARIABLE}` must be a size such as 8GB, a share "
                                 f"of the available memory such as 80%, or off; got "
                                 f"{value!r}.")
        available = available_memory()
        if available is None:
            return math.inf, f"{shown}, but the available memory is unknown: no check"
        return share * available, f"{shown} of the {format_bytes(available)} available"
    match = _SIZE.match(value)
    unit = match.group(2).lower() if match else ""
    if match is None or unit not in _UNITS:
        raise ParameterError(f"`{BUDGET_VARIABLE}` must be a size such as 8GB, 512MiB or "
                             f"2e9 (bytes), a share of the available memory such as 80%, "
                             f"or off; got {value!r}.")
    return float(match.group(1)) * _UNITS[unit], shown


def format_bytes(n: float) -> str:
    """``n`` bytes in decimal units, two or three significant figures: '29.8 GB'."""
    for unit, size in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n:.0f} B"


def check_memory(owner: str, nbytes: float, what: str, fix: str) -> None:
    """Raise :class:`~stickslip.errors.MemoryBudgetError` when `nbytes` is above the budget.

    Parameters
    ----------
    owner : str
        The entry point as the message names it (``"simulate"``, ``"grid"``).
    nbytes : float
        The estimated peak [bytes] of what it is about to allocate.
    what : str
        What those bytes hold, in words (``"1e+09 samples of 4 channels"``).
    fix : str
        How to ask for less, in words (the arguments to change, with values).
    """
    budget, source = memory_budget()
    if not nbytes > budget:
        return
    raise MemoryBudgetError(
        f"`{owner}` would hold about {format_bytes(nbytes)} ({what}), more than its memory "
        f"budget of {format_bytes(budget)} ({source}). {fix} (Refused before anything was "
        f"allocated; {BUDGET_VARIABLE}=off turns the check off.)")


def nice_at_least(x: float, step: float | None = None) -> float:
    """`x` > 0 rounded UP to one significant figure (1.2e-4 → 2e-4), then up to a whole
    multiple of `step` when given (a fixed step's `dt_out`)."""
    exponent = math.floor(math.log10(x))
    value = math.ceil(x / 10.0 ** exponent * (1 - 1e-12)) * 10.0 ** exponent
    if step:
        value = math.ceil(value / step * (1 - 1e-12)) * step
    return float(f"{value:.12g}")


# per output sample, whatever the channels: the time axis and the Results' check of it
# (np.diff, np.isfinite)
_TIME_BYTES = 2 * FLOAT_BYTES + 1
# a compiled call's output slots are held about four times while they are made and read
# back: the scanned states, the states with the initial one prepended, the extra channels,
# and the host copy
_CALL_COPIES = 4


def call_bytes(capacity: int, channels: int, members: int = 1) -> int:
    """The working memory [bytes] of one compiled call with `capacity` output slots of
    `channels` float64 values per member."""
    return _CALL_COPIES * members * (capacity + 1) * channels * FLOAT_BYTES


def check_run_memory(owner: str, *, samples: int, channels: int, members: int = 1,
                     copies: int = 1, extra: float = 0.0, extra_what: str = "",
                     extra_fix: str = "", span: float | None = None, dt: float | None = None,
                     every_step: bool = False, pieces: bool = True,
                     likely_channels: int | None = None) -> None:
    """:func:`check_memory` for a run's output: `samples` × `channels` float64 values per
    member, held `copies` times at the peak (plus the time axis), and `extra` bytes of
    working memory; with the fixes worked out — the `dt_out` that fits (a whole multiple of
    `dt` when given), the members per call that fit, the run in pieces (`pieces`), and
    `extra_fix` when `extra` alone is half the budget or more. `likely_channels`: where
    `channels` is a lower bound (the extra channels not known yet), a generous count used
    for the suggested `dt_out` and members, so that following them fits."""
    per_sample = copies * members * channels * FLOAT_BYTES + _TIME_BYTES
    need = samples * per_sample + extra
    budget, _ = memory_budget()
    if not need > budget:
        return
    fixes = []
    room = budget - extra
    channels_fit = max(channels, likely_channels or 0)
    per_sample_fit = copies * members * channels_fit * FLOAT_BYTES + _TIME_BYTES
    if span is not None and room > 2 * per_sample_fit:
        n_fit = int(room // per_sample_fit) - 1
        dt_out = nice_at_least(span / n_fit, dt)
        omitted = " (every step is kept when it is omitted)" if every_step else ""
        fixes.append(f"pass a larger `dt_out`{omitted}: dt_out={dt_out:g} s keeps about "
                     f"{_count(math.ceil(span / dt_out) + 1)} samples")
    if members > 1:
        per_member = copies * samples * channels_fit * FLOAT_BYTES + extra / members
        fit = int((budget - samples * _TIME_BYTES) // per_member)
        fixes.append(f"split the batch: about {max(fit, 0):,} of its {members:,} members fit "
                     "in one call" if fit >= 1 else
                     "split the batch: not even one member fits with these samples")
    if pieces:
        fixes.append("run it in pieces: simulate to an earlier t_end, keep or save those "
                     "Results (res.save), and continue from them with initial=res")
    if extra_fix and extra >= budget / 2:
        fixes.insert(0, extra_fix)
    what = (f"{_count(samples)} samples of {channels} channel{'s' * (channels != 1)}"
            + (f" for {members:,} members" if members > 1 else "")
            + (f", held {copies} times" if copies > 1 else "")
            + (f", plus {format_bytes(extra)} of {extra_what}" if extra and extra_what else ""))
    fix = "; or ".join(fixes)
    check_memory(owner, need, what, fix[:1].upper() + fix[1:] + "." if fix else "")


def _count(n: float) -> str:
    """A count as people read it: '16,385' below a million, '1e+09' above."""
    return f"{int(n):,}" if n < 1e6 else f"{n:.3g}"
