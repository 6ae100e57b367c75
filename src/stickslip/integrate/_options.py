"""The option set of :func:`~stickslip.simulate` and :func:`~stickslip.simulate_batch` as
small typed objects (issue 23, item 2), in the style of diffrax's ``SaveAt`` /
``PIDController``: what to keep (:class:`Output`), when to stop a run that diverges
(:class:`~stickslip.integrate.Guard`), how to step (:class:`Steps`), and a ``progress``
flag::

    ss.simulate(system, 10.0, dt=1e-3, dt_out=1e-2,
                steps=ss.Steps(rtol=1e-10, check=False),
                guard=ss.Guard(max_state=1e6),
                output=ss.Output(stream_to="run.csv"), progress=True)

Each object validates its fields when built (a `ParameterError` naming ``Steps.theta`` …),
so a typo or a bad value fails where it is written, not deep in a run. The flat keywords of
earlier releases (``rtol=1e-10``, ``check_step=False``, ``stream_to=…``) still work; giving
one both ways is refused. :func:`merge_options` turns both forms into the one dict the
routes read, so every host — core systems, planar, spatial (its volume routes refuse by
name what they cannot honour), ``PointContacts``, the closed-loop hosts, ``ss.sweep`` — takes
the same keywords with the same defaults and forwards the objects unchanged
(``tests/test_simulate_signature.py``).

The time arguments after ``t_end`` are keyword-only; positional ``dt, method, dt_out`` are
still accepted with a `DeprecationWarning` (:func:`legacy_positionals`).
"""

from __future__ import annotations

import dataclasses
import math
import os
import warnings
from typing import Any

from ..errors import ParameterError
from ._arguments import did_you_mean
from ._guard import Guard

__all__ = ["KNOWN_OPTIONS", "Output", "Steps", "legacy_positionals", "merge_options"]


def _flag(owner, name, value):
    if value is not None and not isinstance(value, bool):
        raise ParameterError(f"`{owner}.{name}` must be True or False; got {value!r}.")


def _positive(owner, name, value, integer=False):
    if value is None:
        return
    kind = int if integer else (int, float)
    if isinstance(value, bool) or not isinstance(value, kind) or not (
            math.isfinite(value) and value > 0):
        what = "a positive integer" if integer else "a finite number > 0"
        raise ParameterError(f"`{owner}.{name}` must be {what}; got {name}={value!r}.")


@dataclasses.dataclass(frozen=True)
class Output:
    """What a run keeps and where it writes it.

    Parameters
    ----------
    chunk : int, optional
        Largest number of output samples per compiled call (default 16 384); longer runs
        are split, and `stream_to` gets each chunk as soon as it is done.
    stream_to : str or os.PathLike, optional
        A ``.csv`` file written as the run goes (checked, finite rows), with its JSON
        sidecar at the end (:meth:`~stickslip.Results.save`).

    Examples
    --------
    >>> import stickslip as ss
    >>> ss.Output(chunk=4096)
    Output(chunk=4096, stream_to=None)
    """

    chunk: int | None = None
    stream_to: str | os.PathLike | None = None

    def __post_init__(self):
        _positive("Output", "chunk", self.chunk, integer=True)
        if self.stream_to is not None and not isinstance(self.stream_to, (str, os.PathLike)):
            raise ParameterError(f"`Output.stream_to` must be a path (str or pathlib.Path); "
                                 f"got {type(self.stream_to).__name__}.")

    def flat(self) -> dict[str, Any]:
        """The flat options this object stands for (fields left at None are omitted)."""
        return {k: v for k, v in dataclasses.asdict(self).items() if v is not None}


@dataclasses.dataclass(frozen=True)
class Steps:
    """How a run steps; a field left at None keeps the route's default.

    Parameters
    ----------
    check : bool, optional
        Fixed-step methods: refuse a step outside the method's stability region for the
        system's stiff modes (default True).
    projection : bool, optional
        Fixed-step methods: call ``system.project`` after every step (default: the
        system's ``projects_after_step``).
    trace_stages_once : bool, optional
        Run the Runge–Kutta stages in a loop, tracing the vector field once (less compile
        time for large models; default: the system's class variable).
    rtol, atol : float, optional
        Adaptive methods: relative and absolute tolerances (1e-8, 1e-10).
    max_steps : int, optional
        Adaptive methods: the step cap (10⁶).
    theta : float, optional
        ``moreau_jean``: the θ of the smooth forces, in [0, 1] (0.5).
    max_events : int, optional
        ``events``: the capacity of the event buffer (10 000).

    Examples
    --------
    >>> import stickslip as ss
    >>> ss.Steps(rtol=1e-10, atol=1e-12)
    Steps(check=None, projection=None, trace_stages_once=None, rtol=1e-10, atol=1e-12, max_steps=None, theta=None, max_events=None)
    """

    check: bool | None = None
    projection: bool | None = None
    trace_stages_once: bool | None = None
    rtol: float | None = None
    atol: float | None = None
    max_steps: int | None = None
    theta: float | None = None
    max_events: int | None = None

    def __post_init__(self):
        for name in ("check", "projection", "trace_stages_once"):
            _flag("Steps", name, getattr(self, name))
        for name in ("rtol", "atol"):
            _positive("Steps", name, getattr(self, name))
        for name in ("max_steps", "max_events"):
            _positive("Steps", name, getattr(self, name), integer=True)
        theta = self.theta
        if theta is not None and (isinstance(theta, bool) or not isinstance(theta, (int, float))
                                  or not 0.0 <= theta <= 1.0):
            raise ParameterError(f"`Steps.theta` must be a number in [0, 1] (0.5: the "
                                 f"midpoint rule, 1: backward Euler); got theta={theta!r}.")

    def flat(self) -> dict[str, Any]:
        """The flat options this object stands for (``check`` is ``check_step``)."""
        names = {"check": "check_step"}
        return {names.get(k, k): v for k, v in dataclasses.asdict(self).items()
                if v is not None}


# the flat keywords (each a field of Output, Guard or Steps, or an explicit keyword)
KNOWN_OPTIONS = frozenset({"t0", "initial", "rtol", "atol", "max_steps", "check_step", "chunk",
                           "stream_to", "progress", "max_state", "energy_tol",
                           "trace_stages_once", "projection", "theta", "max_events"})


def _guard_flat(owner: str, guard: Guard) -> dict[str, Any]:
    if not isinstance(guard, Guard):
        raise ParameterError(f"`{owner}.guard` must be a stickslip.Guard (e.g. "
                             f"ss.Guard(max_state=1e6)); got {type(guard).__name__}.")
    return {"max_state": None if guard.max_state == math.inf else guard.max_state,
            "energy_tol": (None if math.inf in (guard.energy_rtol, guard.energy_atol)
                           else (guard.energy_rtol, guard.energy_atol))}


def merge_options(owner: str, options: dict[str, Any], *, output: Output | None = None,
                  guard: Guard | None = None, steps: Steps | None = None,
                  progress: bool | None = None, t0: float | None = None,
                  initial: Any = None, check_names: bool = True) -> dict[str, Any]:
    """The one flat dict of options the routes read: `options` (the flat keywords) with the
    fields of the option objects and the explicit keywords added.

    Raises
    ------
    ParameterError
        An object of the wrong type, an option given both as a flat keyword and in an
        object (the message names both), or a flat keyword that is no option (named, with
        the closest known one), unless `check_names` is False (``ss.sweep``, whose points
        may be models with keywords of their own, checks the names itself). A misspelled
        option is never run past: ``dtout=`` would have sampled every step.
    """
    unknown = set(options) - KNOWN_OPTIONS
    if unknown and check_names:
        hint = did_you_mean(sorted(unknown), KNOWN_OPTIONS | {"t_end", "dt", "dt_out", "method"})
        raise ParameterError(f"`{owner}` got unknown option(s) {sorted(unknown)}; known "
                             f"options are {sorted(KNOWN_OPTIONS)}.{hint}")
    merged = dict(options)
    parts: list[tuple[str, dict[str, Any]]] = []
    for name, obj, kind in (("output", output, Output), ("steps", steps, Steps)):
        if obj is None:
            continue
        if not isinstance(obj, kind):
            raise ParameterError(f"`{owner}.{name}` must be a stickslip.{kind.__name__} "
                                 f"(e.g. ss.{kind.__name__}()); got {type(obj).__name__}.")
        parts.append((f"{name}={kind.__name__}(...)", obj.flat()))
    if guard is not None:
        parts.append(("guard=Guard(...)", _guard_flat(owner, guard)))
    explicit = {k: v for k, v in (("progress", progress), ("t0", t0), ("initial", initial))
                if v is not None}
    parts.append(("keyword", explicit))
    for where, values in parts:
        for key, value in values.items():
            if key in merged:
                raise ParameterError(f"`{owner}`: `{key}` is given twice — as the keyword "
                                     f"`{key}=` and in {where}; pass it once.")
            merged[key] = value
    return merged


def legacy_positionals(owner: str, args: tuple, dt, method, dt_out, *,
                       leading: tuple[str, ...] = ("system", "t_end"), stacklevel: int = 3):
    """``(dt, method, dt_out)`` with the deprecated positional form folded in: `args` are
    the positionals after ``t_end``, in the order of earlier releases; `leading` names the
    positionals before them (a model's ``simulate`` has only ``t_end``), `stacklevel` points
    the DeprecationWarning at the caller's line."""
    if not args:
        return dt, method, dt_out
    if len(args) > 3:
        allowed = ", ".join((*leading, "dt", "method", "dt_out"))
        raise ParameterError(f"`{owner}` takes at most {len(leading) + 3} positional "
                             f"arguments ({allowed}); got {len(leading) + len(args)}. Pass "
                             "the options by keyword.")
    names = ("dt", "method", "dt_out")[:len(args)]
    given = {"dt": dt, "method": method, "dt_out": dt_out}
    defaults = {"dt": None, "method": "rk4", "dt_out": None}
    for name, value in zip(names, args):
        if given[name] is not defaults[name] and given[name] != defaults[name]:
            raise ParameterError(f"`{owner}.{name}` is given twice — positionally and as "
                                 "a keyword; pass it once, by keyword.")
        given[name] = value
    warnings.warn(f"{owner}: pass {', '.join(names)} by keyword ({names[0]}=…); positional "
                  "arguments after t_end are deprecated.", DeprecationWarning,
                  stacklevel=stacklevel)
    return given["dt"], given["method"], given["dt_out"]
