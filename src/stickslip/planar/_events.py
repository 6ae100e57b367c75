"""Forward dynamics with impact events on stops without a contact law (SPEC §9 9-1).

The run is the core's event-driven route (:mod:`stickslip.integrate._event_route`, one
compiled ``lax.while_loop`` per chunk of outputs, no Python stepping) on
:class:`~._event_stops.PlanarImpactHost`: DOP853 steps of the mechanism's index-reduced DAE
on the fixed grid ``t0 + k·dt``, each followed by the projection onto the joints; where a gap
closes inside a step, the impact time is located to round-off and the momentum balance
through the constraint matrix gives the velocity jump::

    [[M, Aᵀ], [A, 0]] [Δq̇; −P] = [0; b],   A = [Φ_q; g_q],  b = [0; −(1 + e) g_q q̇⁻]

(:func:`~._event_stops.impact_velocity`). Each impact is a row of ``results.events`` (kind
``impact``, ``name`` the stop, the state just after) and an entry of
``results.meta["impacts"]`` (time, stop, gap row, restitution, the normal velocity and the
kinetic energy before and after). The samples stay on the grid ``t0 + k·dt_out`` (an impact
adds no sample), so a run split in two equals one run and a new `t_end`, `dt` or `dt_out`
reuses the compiled program.
"""

from __future__ import annotations

import jax
import numpy as np

from .. import integrate
from ..errors import ParameterError, SimulationError
from ..integrate import padded_length
from ._event_stops import PlanarImpactHost, gap_names, impact_report, impact_velocity
from ._kernels import host_call

__all__ = ["impact_velocity", "simulate_events"]

#: the default event buffer: a run with more impacts stops (a contact coming to rest)
MAX_IMPACTS = 1000
_OPTIONS = {"t0", "initial", "max_events", "chunk"}


def simulate_events(system, stops, t_end, dt, method, dt_out, options):
    """Run `system` with its event `stops` to `t_end` (module docstring); returns Results
    with the mechanism's channels, ``<stop>.gap``, ``events`` and ``meta["impacts"]``."""
    if method not in ("rk4", "events") or dt is None:
        raise ParameterError(f"a model with event stops ({', '.join(s.owner for s in stops)}"
                             f") runs with a fixed dt on the event-driven route (method="
                             f"'rk4', the default, or 'events'); got method={method!r}, "
                             f"dt={dt!r}.")
    unknown = set(options) - _OPTIONS
    if unknown:
        raise ParameterError(f"options {sorted(unknown)} are not supported with event "
                             f"stops (only {sorted(_OPTIONS)}).")
    # the core's step and span check (a zero step hung the old event loop, a negative one
    # ran it backwards): t0 < t_end, dt > 0 and dt_out a whole multiple of dt, all finite
    integrate.check_time_arguments("planar.Model.simulate", t_end, dt, dt_out,
                                   options.get("t0"), initial=options.get("initial"),
                                   fixed_step=True)
    host = PlanarImpactHost(system, tuple(stops))
    options = dict(options)
    max_events = options.pop("max_events", MAX_IMPACTS)
    try:
        res = integrate.simulate(host, t_end, dt=dt, method="events", dt_out=dt_out,
                                 max_events=max_events, **options)
    except SimulationError as exc:
        if "max_events" not in str(exc):
            raise
        raise SimulationError(
            f"{system.layout.name!r}: more than max_events={max_events} impacts by "
            f"t={exc.time:.9g} s (a chattering or resting contact: events cannot represent "
            "sustained contact). Use a contact law on the stop (law=UnilateralODE(...)), a "
            "restitution closer to 1, or raise `max_events`.",
            time=exc.time, state=exc.state) from exc
    _name_impacts(host, res)
    return res


def _name_impacts(host, res) -> None:
    """``meta["impacts"]`` from the route's events, and the events table with each stop's
    name (the state after each impact; the mode and the state before go into the impacts)."""
    columns = res._events            # the arrays, without building the DataFrame (pandas)
    names = list(host.state_names)
    rows = np.asarray(columns["mode"], dtype=int) - 1
    owners = gap_names(host.stops)
    restitution = np.asarray(host.restitutions())
    impacts = []
    if len(rows):
        before = np.stack([columns[f"{k}_before"] for k in names], axis=1)
        after = np.stack([columns[k] for k in names], axis=1)
        n = len(rows)
        report = host_call(_impact_report, host, *(_padded(a) for a in (before, after, rows)))
        vn0, vn1, ke0, ke1 = (np.asarray(a)[:n] for a in report)
        for i, (t, k) in enumerate(zip(columns["t"], rows)):
            impacts.append({"t": float(t), "stop": owners[k][0].name, "row": int(k),
                            "restitution": float(restitution[k]),
                            "normal_velocity_before": float(vn0[i]),
                            "normal_velocity_after": float(vn1[i]),
                            "kinetic_energy_before": float(ke0[i]),
                            "kinetic_energy_after": float(ke1[i])})
    table = {"t": columns["t"], "kind": columns["kind"],
             "name": np.array([owners[k][0].name for k in rows], dtype=object)}
    table.update({k: columns[k] for k in names})
    res.events = table
    res.meta["impacts"] = impacts


def _impact_report(host, before, after, rows):
    return jax.vmap(lambda b, a, r: impact_report(host.system, host.stops, b, a, r))(
        before, after, rows)


def _padded(a) -> np.ndarray:
    """`a` with its last row repeated to a power-of-two length (one compile per bucket)."""
    a = np.asarray(a, dtype=float)
    extra = padded_length(len(a)) - len(a)
    return np.concatenate([a, np.repeat(a[-1:], extra, axis=0)]) if extra else a
