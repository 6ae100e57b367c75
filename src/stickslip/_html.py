"""Jupyter's rich views (``_repr_html_``): `Results`, planar and spatial models, systems.

Each builder returns one small, self-contained HTML fragment — tables and, for results, an
inline SVG plot — built only when a notebook asks for it. Plots are cheap: at most
:data:`PLOT_CHANNELS` channels, each reduced to at most :data:`MAX_POINTS` points (the
minimum and the maximum of each time bucket, so spikes survive), drawn as SVG polylines
with no matplotlib. Everything shown is escaped; nothing here imports JAX.
"""

from __future__ import annotations

import dataclasses
import html
import itertools
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

__all__ = ["MAX_POINTS", "MAX_ROWS", "PLOT_CHANNELS", "downsample", "planar_model_html",
           "results_html", "spatial_model_html", "system_html"]

MAX_POINTS = 500          # points per plotted line
PLOT_CHANNELS = 3         # channels in the inline plot (the first ones: states come first)
MAX_ROWS = 60             # table rows before "… and N more"
_WIDTH, _HEIGHT, _LABEL = 420, 46, 110      # px: plot width, panel height, label column

_STYLE = ("font-family: var(--jp-ui-font-family, sans-serif); font-size: 12px; "
          "line-height: 1.35")
_CELL = "padding: 1px 8px; text-align: left; vertical-align: top"


def _esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _number(value: Any) -> str:
    """A short text for a parameter value: numbers with 6 digits, arrays by shape when long."""
    if isinstance(value, str):
        return value
    if callable(value) and not hasattr(value, "shape"):
        return getattr(value, "__qualname__", type(value).__name__)
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return _short(repr(value))
    if arr.ndim == 0:
        return f"{float(arr):.6g}"
    if arr.size > 6:
        return f"array{arr.shape}"
    if arr.ndim == 1:
        return "(" + ", ".join(f"{x:.6g}" for x in arr) + ")"
    return np.array2string(arr, precision=6, separator=", ")


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _table(headers: Sequence[str], rows: Iterable[Sequence[Any]], more: int = 0) -> str:
    head = "".join(f'<th style="{_CELL}">{_esc(h)}</th>' for h in headers)
    body = "".join("<tr>" + "".join(f'<td style="{_CELL}">{_esc(c)}</td>' for c in row)
                   + "</tr>" for row in rows)
    if more:
        body += (f'<tr><td style="{_CELL}" colspan="{len(headers)}">… and {more} more'
                 "</td></tr>")
    return (f'<table style="border-collapse: collapse; margin: 4px 0"><thead><tr>{head}'
            f"</tr></thead><tbody>{body}</tbody></table>")


def _capped(rows: list) -> tuple[list, int]:
    return rows[:MAX_ROWS], max(len(rows) - MAX_ROWS, 0)


def _box(title: str, lines: Iterable[str], *parts: str) -> str:
    text = "".join(f"<div>{line}</div>" for line in lines if line)
    return f'<div style="{_STYLE}"><div><b>{title}</b></div>{text}{"".join(parts)}</div>'


# --- Results --------------------------------------------------------------------------------

def _extent(values: np.ndarray) -> tuple[str, str]:
    finite = values[np.isfinite(values)] if values.dtype.kind == "f" else values.ravel()
    if finite.size == 0:
        return "—", "—"
    return f"{float(finite.min()):.6g}", f"{float(finite.max()):.6g}"


def downsample(t: np.ndarray, y: np.ndarray, max_points: int = MAX_POINTS
               ) -> tuple[np.ndarray, np.ndarray]:
    """At most `max_points` finite samples of ``y(t)``: each of ``max_points // 2`` time
    buckets keeps its minimum and its maximum, in time order (a spike stays visible)."""
    keep = np.isfinite(t) & np.isfinite(y)
    t, y = t[keep], y[keep]
    if len(t) <= max_points:
        return t, y
    edges = np.linspace(0, len(t), max_points // 2 + 1).astype(int)
    index = []
    for lo, hi in itertools.pairwise(edges):
        if hi > lo:
            pair = lo + np.array([np.argmin(y[lo:hi]), np.argmax(y[lo:hi])])
            index.extend(np.unique(pair))
    index = np.asarray(index)
    return t[index], y[index]


def _sparklines(t: np.ndarray, series: list[tuple[str, str, np.ndarray]]) -> str:
    """One SVG: a panel per channel, its name and range on the left, the line on the right."""
    if len(t) < 2 or not series:
        return ""
    t0, t1 = float(t[0]), float(t[-1])
    panels = []
    for k, (name, unit, y) in enumerate(series):
        ts, ys = downsample(t, y)
        top = k * _HEIGHT
        label = f"{name} [{unit}]" if unit else name
        panels.append(f'<text x="0" y="{top + 18}" font-size="11">{_esc(_short(label, 18))}'
                      "</text>")
        if len(ts) == 0:
            continue
        lo, hi = float(ys.min()), float(ys.max())
        panels.append(f'<text x="0" y="{top + 33}" font-size="9" opacity="0.7">'
                      f"{lo:.3g} … {hi:.3g}</text>")
        span = hi - lo if hi > lo else 1.0
        xs = _LABEL + (ts - t0) / (t1 - t0) * (_WIDTH - _LABEL - 4)
        yy = top + 4 + (1.0 - (ys - lo) / span) * (_HEIGHT - 10)
        if hi == lo:
            yy = np.full_like(xs, top + _HEIGHT / 2)
        points = " ".join(f"{x:.1f},{v:.1f}" for x, v in zip(xs, yy))
        panels.append(f'<polyline fill="none" stroke="currentColor" stroke-width="1" '
                      f'points="{points}"/>')
    height = _HEIGHT * len(series)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{_WIDTH}" height="{height}" '
            f'viewBox="0 0 {_WIDTH} {height}" role="img" '
            f'aria-label="first channels against time">{"".join(panels)}</svg>')


def results_html(res) -> str:
    """`Results` as HTML: where it came from, the time span, the samples, the members of a
    batch, a small plot of the first channels and a table of every channel with its unit
    and range. Deprecated aliases are not shown (they are not channels)."""
    t = np.asarray(res.t)
    meta = res.meta
    origin = " · ".join(_esc(v) for v in (meta.get("system"), meta.get("method")) if v)
    step = f" · dt = {meta['dt']:g} s" if isinstance(meta.get("dt"), (int, float)) else ""
    span = (f"t = {t[0]:g} … {t[-1]:g} s · {len(t)} samples" if len(t) else "no samples")
    batch = res.batch_shape
    members = (f"batch of {int(np.prod(batch))} members (shape {batch})" if batch else "")
    names = res.names
    plotted = []
    for name in names[:PLOT_CHANNELS] if len(t) > 1 else []:
        values = np.asarray(res[name])
        if values.dtype.kind in "biuf":         # member 0 of a batch
            plotted.append((name, res.units.get(name, ""),
                            values.reshape(-1, len(t))[0].astype(float)))
    caption = (f"<div style='opacity: 0.7'>first channels{' (member 0)' if batch else ''}"
               "</div>") if plotted else ""
    rows = [(n, res.units.get(n, ""), *_extent(np.asarray(res[n]))) for n in names]
    rows, more = _capped(rows)
    return _box(f"Results{' — ' + origin if origin else ''}",
                [_esc(span) + _esc(step), _esc(members), f"{len(names)} channels"],
                caption, _sparklines(t, plotted),
                _table(["channel", "unit", "min", "max"], rows, more))


# --- models and systems ---------------------------------------------------------------------

def _element_details(element) -> str:
    """The fields of a dataclass element that are set (numbers short, arrays by value or
    shape, callables by name), else its repr."""
    if dataclasses.is_dataclass(element) and not isinstance(element, type):
        parts = []
        for field in dataclasses.fields(element):
            value = getattr(element, field.name)
            if value is None or field.name == "name":
                continue
            parts.append(f"{field.name}={_number(value)}")
        return _short(", ".join(parts))
    return _short(repr(element))


def planar_model_html(model) -> str:
    """A planar `Model` as HTML: gravity, then one row per body, joint, driver, force
    element, joint friction, stop and frictional contact."""
    rows = [("body", b.name, "Body", (f"m={b.mass:g} kg, J={b.inertia:g} kg·m², "
                                      f"pose (x, y, φ)=({b.x:g}, {b.y:g}, {b.phi:g})"))
            for b in model.bodies]
    groups = [("joint", model.joints), ("driver", model.drivers), ("force", model.forces),
              ("friction", model.frictions), ("stop", model.stops),
              ("contact", getattr(model, "frictional_contacts", []))]
    for kind, elements in groups:
        rows += [(kind, getattr(e, "name", "") or "", type(e).__name__, _short(repr(e)))
                 for e in elements]
    plural = {"body": "bodies"}
    counts = ", ".join(f"{n} {k if n == 1 else plural.get(k, k + 's')}" for k, n in
                       [("body", len(model.bodies))] + [(k, len(g)) for k, g in groups] if n)
    rows, more = _capped(rows)
    g = model.gravity
    return _box(f"planar Model {_esc(repr(model.name))}",
                [f"gravity ({g[0]:g}, {g[1]:g}) m/s² · {_esc(counts or 'empty')}"],
                _table(["kind", "name", "type", "details"], rows, more))


def spatial_model_html(model) -> str:
    """A `SpatialModel` as HTML: its settings, the ground, then one row per body and per
    element (joints, drivers, loads, spring–dampers, contact pairs)."""
    rows = []
    if model.ground is not None:
        ground = model.ground
        rows.append(("ground", "ground", "half-space z ≤ height",
                     ", ".join(f"{k}={_number(v)}" for k, v in ground.items() if v is not None)))
    for b in model.bodies:
        shape = "no shape" if b.shape is None else _short(repr(b.shape), 60)
        position = _number(np.asarray(b.state[:3]))
        rows.append(("body", b.name, shape, f"m={b.mass:g} kg, position={position}"))
    for e in model.elements:
        rows.append(("element", getattr(e, "name", None) or "—", type(e).__name__,
                     _element_details(e)))
    rows, more = _capped(rows)
    g = model.gravity
    settings = (f"gravity ({g[0]:g}, {g[1]:g}, {g[2]:g}) m/s² · k={model.k:g} 1/s · "
                f"λ={model.lam:g} · P={model.P} · μ_s={model.mu_s:g}, μ_k={model.mu_k:g} "
                f"between bodies")
    counts = (f"{len(model.bodies)} bodies, {len(model.elements)} elements, "
              f"{'a' if model.ground is not None else 'no'} ground")
    return _box("SpatialModel", [_esc(settings), _esc(counts)],
                _table(["kind", "name", "type", "details"], rows, more))


def system_html(system) -> str:
    """A system as HTML: its parameters (``system.parameters()``) and its states with
    their units."""
    units = system.units
    states = ", ".join(f"{n} [{units[n]}]" if units.get(n) else n for n in system.state_names)
    rows = [(name, _number(value)) for name, value in system.parameters().items()]
    rows, more = _capped(rows)
    return _box(_esc(type(system).__name__), [f"states: {_esc(states)}"],
                _table(["parameter", "value"], rows, more))
