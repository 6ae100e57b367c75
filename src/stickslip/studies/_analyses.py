"""Scalar outputs of a run, for sweeps: named analysis functions.

An *analysis* is any function ``analysis(res) -> value`` of a :class:`~stickslip.Results`
that reduces each channel over its last (time) axis — ``np.max(np.abs(res["p"]), axis=-1)``
— so the same function serves one run (a scalar) and a batch of runs (one value per
member). Write your own the same way; the built-ins below can be named by string in
:func:`~stickslip.studies.sweep` and in spec files: ``"stick_fraction"``,
``"max_abs(p)"``, ``"stick_fraction(slider.xd, tol=1e-3)"``.
"""

from __future__ import annotations

import ast
import inspect
import re
from typing import Callable, Mapping

import numpy as np

from ..errors import ParameterError
from ..results import Results

__all__ = ["stick_fraction", "max_abs", "rest_position", "final", "energy_loss",
           "ANALYSES", "resolve_analyses"]


def stick_fraction(res: Results, velocity: str = "v", tol: float = 1e-3) -> np.ndarray:
    """Fraction [-] of the samples in which the body is stuck: ``|velocity| <= tol`` [m/s].

    With `CoulombODE` a stuck body still moves on its proxy spring (SPEC §2, eq. 9), at
    speeds of order ``F/(K·β)``·(load change); `tol` should sit well above that and well
    below the sliding speeds.
    """
    return np.mean(np.abs(res[velocity]) <= tol, axis=-1)


def max_abs(res: Results, channel: str) -> np.ndarray:
    """Largest magnitude of `channel` over the run (e.g. ``max_abs(p)``, a constraint
    residual, a joint angle Φ)."""
    return np.max(np.abs(res[channel]), axis=-1)


def rest_position(res: Results, position: str = "p") -> np.ndarray:
    """Where the body ends up: `position` at the last sample [m]."""
    return res[position][..., -1]


def final(res: Results, channel: str) -> np.ndarray:
    """`channel` at the last sample."""
    return res[channel][..., -1]


def energy_loss(res: Results, force: str = "f", velocity: str = "v") -> np.ndarray:
    """Energy dissipated by friction [J]: ``−∫ f·v dt`` (trapezoid rule on the samples), with
    `force` the friction force on the body and `velocity` its sliding velocity. It is ≥ 0
    because friction opposes sliding (SPEC §2, eq. 7)."""
    power = -res[force] * res[velocity]
    return np.trapezoid(power, res.t, axis=-1)


ANALYSES: dict[str, Callable] = {f.__name__: f for f in (
    stick_fraction, max_abs, rest_position, final, energy_loss)}

_CALL = re.compile(r"^\s*([A-Za-z_]\w*)\s*(?:\((.*)\))?\s*$")


def _parse(text: str) -> Callable:
    """``"max_abs(p)"`` → ``partial(max_abs, "p")``; arguments are channel names or
    Python literals (``tol=1e-3``)."""
    match = _CALL.match(text)
    if not match or match.group(1) not in ANALYSES:
        raise ParameterError(f"unknown analysis {text!r}; built-ins are {sorted(ANALYSES)} "
                             "(arguments in parentheses, e.g. 'max_abs(p)'), or pass a "
                             "function of the Results.")
    fn = ANALYSES[match.group(1)]
    args, kwargs = [], {}
    for part in filter(None, (p.strip() for p in (match.group(2) or "").split(","))):
        key, _, value = part.rpartition("=")
        try:
            value = ast.literal_eval(value.strip())
        except (ValueError, SyntaxError):
            value = value.strip()              # a bare channel name such as p or slider.xd
        if key:
            kwargs[key.strip()] = value
        else:
            args.append(value)
    try:
        inspect.signature(fn).bind(None, *args, **kwargs)
    except TypeError as exc:
        raise ParameterError(f"analysis {text!r}: {exc}; see help(stickslip.studies."
                             f"{fn.__name__}).") from None
    return _Bound(fn, tuple(args), kwargs)


class _Bound:
    """A built-in analysis with its arguments after the Results (picklable, unlike a
    lambda, so it travels to process and Dask workers)."""

    def __init__(self, fn, args, kwargs):
        self.fn, self.args, self.kwargs = fn, args, kwargs

    def __call__(self, res):
        return self.fn(res, *self.args, **self.kwargs)

    def __repr__(self):
        inner = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs.items()]
        return f"{self.fn.__name__}({', '.join(inner)})"

    def __stickslip_key__(self):
        """What it computes, for a sweep store's identity (the function is stickslip's own,
        pinned by its source hash): the function and its arguments."""
        return (self.fn, self.args, self.kwargs)


def resolve_analyses(analysis) -> dict[str, Callable]:
    """``{output name: function}`` from a function, a string, a list of them, or a mapping."""
    if analysis is None:
        raise ParameterError("a sweep needs `analysis`: a function of the Results, a built-in "
                             f"name ({sorted(ANALYSES)}), or a list / {{name: function}} "
                             "mapping of them.")
    if isinstance(analysis, Mapping):
        items = list(analysis.items())
    else:
        seq = [analysis] if callable(analysis) or isinstance(analysis, str) else list(analysis)
        items = []
        for a in seq:
            if isinstance(a, str):
                items.append((a.replace(" ", ""), a))
            elif callable(a) and getattr(a, "__name__", "<lambda>") != "<lambda>":
                items.append((a.__name__, a))
            else:
                raise ParameterError(f"analysis {a!r} has no name; pass a {{name: function}} "
                                     "mapping for lambdas and partials.")
    out = {}
    for name, fn in items:
        if not isinstance(name, str) or not name:
            raise ParameterError(f"analysis names must be non-empty strings; got {name!r}.")
        if name in out:
            raise ParameterError(f"analysis name {name!r} appears twice; names become "
                                 "table columns and must be unique.")
        fn = _parse(fn) if isinstance(fn, str) else fn
        if not callable(fn):
            raise ParameterError(f"analysis {name!r} must be a function of the Results; got "
                                 f"{type(fn).__name__}.")
        out[name] = fn
    return out
