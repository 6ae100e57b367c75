"""A planar mechanism with impact stops as a host of the event-driven route (SPEC §9 9-1;
:class:`~stickslip.integrate._event_host.AbstractEventHost`, ``method="events"``).

:class:`PlanarImpactHost` wraps a frozen :class:`~._system.PlanarSystem` and its stops
without a contact law. The route integrates the mechanism's index-reduced DAE between
impacts (DOP853 on the fixed grid, the host putting [q; q̇] back on the joints after every
step — :meth:`PlanarSystem.project`, as the fixed-step route does), locates the instant a gap
closes, and calls the impact there:

* **modes**: one motion (the mechanism's vector field) for every mode; the mode only says
  which gap row took the last impact (0: none yet, k + 1: row k), so ``Results.events``
  can name the stop;
* **guard**: the smallest of the rows' gaps g_k(q), where a row that is inside its stop but
  already separating (g_k < 0 < ġ_k, the row just struck) counts as 0 — so the motion away
  from an impact is not a new crossing, and a row that is inside and still approaching is
  one at once;
* **jump**: on the row with the smallest value, the momentum balance through the
  constraint matrix (:func:`impact_velocity`)::

      [[M, Aᵀ], [A, 0]] [Δq̇; −P] = [0; b],   A = [Φ_q; g_k,q],  b = [0; −(1 + e) g_k,q q̇⁻]

  so that q̇⁺ = q̇⁻ + Δq̇ keeps every joint (Φ_q q̇⁺ = Φ_q q̇⁻) and reverses the normal
  velocity with restitution e (g_k,q q̇⁺ = −e g_k,q q̇⁻);
* **outputs**: the mechanism's channels and each stop's ``<stop>.gap`` rows.

A contact that comes to rest (the Zeno accumulation of bounces) has no rest mode here: its
impacts fill the event buffer and the run stops with a SimulationError (a contact law on the
stop, ``law=UnilateralODE(...)``, represents sustained contact).
"""

from __future__ import annotations

from typing import Any, ClassVar

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

from ..integrate import EVENT_KINDS, AbstractEventHost
from ..systems import AbstractSystem
from ._dynamics import schur_solve
from ._system import PlanarSystem

__all__ = ["PlanarImpactHost", "gap_names", "impact_report", "impact_velocity"]

_IMPACT = EVENT_KINDS.index("impact")


def impact_velocity(system: PlanarSystem, stops, t, x, k, e):
    """x⁺ after an impact on gap row `k` with restitution `e` (module docstring): q̇⁺ from
    the momentum balance through A = [Φ_q; g_k,q] (SPEC §9 9-1). `k` and `e` may be
    traced."""
    n = system.layout.n_coordinates
    q, qd = x[:n], x[n:2 * n]
    G = jax.jacfwd(lambda z: system.gaps(z, stops))(q)[k]
    A = jnp.concatenate([system.phi_q(q, t), G[None, :]])
    b = jnp.zeros(A.shape[0]).at[-1].set(-(1.0 + e) * (G @ qd))
    jump, _ = schur_solve(1.0 / system.masses, A, jnp.zeros(n), b, robust=True)
    return x.at[n:2 * n].set(qd + jump)


def gap_names(stops) -> list[tuple[Any, str]]:
    """(stop, channel name) of every gap row, in row order: ``<stop>.gap`` or
    ``<stop>.gap[k]`` for a stop with two rows."""
    out = []
    for s in stops:
        for k in range(s.n_gaps):
            out.append((s, f"{s.name}.gap" + ("" if s.n_gaps == 1 else f"[{k}]")))
    return out


class PlanarImpactHost(AbstractSystem, AbstractEventHost):
    """A :class:`PlanarSystem` with its event stops, run by ``method="events"`` (module
    docstring). State, units and channels are the mechanism's, plus ``<stop>.gap``.

    system: the frozen mechanism (assembled: :meth:`Model.simulate` does that).
    stops: its stops without a contact law (``Model.stops`` with ``law=None``), bound.
    """

    system: PlanarSystem
    stops: tuple

    event_name: ClassVar[str] = "stop"
    event_details: ClassVar[bool] = True          # the stop's row and the state before

    # --- AbstractSystem -------------------------------------------------------------------
    @property
    def state_names(self):
        return self.system.state_names

    @property
    def units(self):
        return self.system.units

    def initial_state(self):
        return self.system.initial_state()

    def vector_field(self, t, x):
        return self.system.vector_field(t, x)

    def outputs(self, t, x):
        return self.event_outputs(t, x, jnp.asarray(0, jnp.int32))

    def parameters(self) -> dict[str, Any]:
        return {**self.system.parameters(), "stops": [s.name for s in self.stops]}

    # --- the gaps ---------------------------------------------------------------------------
    def restitutions(self):
        """e of every gap row (row order)."""
        return jnp.concatenate([jnp.broadcast_to(jnp.asarray(s.restitution, float),
                                                 (s.n_gaps,)) for s in self.stops])

    def _rows(self, x):
        """Each row's guard value: g_k, or 0 where g_k < 0 < ġ_k (module docstring)."""
        n = self.system.layout.n_coordinates
        g, rate = jax.jvp(lambda q: self.system.gaps(q, self.stops), (x[:n],),
                          (x[n:2 * n],))
        return jnp.where((g < 0.0) & (rate > 0.0), 0.0, g)

    # --- AbstractEventHost ------------------------------------------------------------------
    def event_mode(self, t, x):
        return jnp.asarray(0, jnp.int32)

    def event_field(self, t, x, mode):
        return self.system.vector_field(t, x)

    def event_guard(self, t, x, mode):
        return jnp.min(self._rows(x))

    def event_jump(self, t, x, mode):
        # x is a DOP853 sub-step from a state on the joints (its drift is the step's local
        # error): it is projected after the next step, not here (one projection compiled)
        k = jnp.argmin(self._rows(x))
        x_new = impact_velocity(self.system, self.stops, t, x, k, self.restitutions()[k])
        return x_new, (k + 1).astype(jnp.int32), _IMPACT

    def event_settle(self, t, x, mode):
        return self.system.project(t, x)

    def event_outputs(self, t: ArrayLike, x, mode):   # t: also outputs' (AbstractSystem)
        out = self.system.outputs(t, x)
        gaps = self.system.gaps(x[:self.system.layout.n_coordinates], self.stops)
        out.update({name: gaps[k] for k, (_, name) in enumerate(gap_names(self.stops))})
        return out


def impact_report(system: PlanarSystem, stops, before, after, row):
    """Normal velocity g_k,q q̇ and kinetic energy ½ q̇ᵀ M q̇ before and after one impact on
    row `row` (the entries of ``results.meta["impacts"]``); vmapped by the caller."""
    n = system.layout.n_coordinates
    k = row.astype(jnp.int32)

    def normal(x):
        return jax.jvp(lambda q: system.gaps(q, stops), (x[:n],), (x[n:2 * n],))[1][k]

    def kinetic(x):
        return 0.5 * jnp.sum(system.masses * x[n:2 * n] ** 2)

    return normal(before), normal(after), kinetic(before), kinetic(after)

