"""The host side of the event-driven route (``method="events"``, :mod:`._event_route`): the
contract a system implements, the event kinds, and the route check over every route. Kept
apart from the runner so that defining a host imports neither the program store nor the
kernel (as :mod:`._moreau_jean_host` for the time-stepping route)."""

from __future__ import annotations

import abc
from typing import ClassVar

import equinox as eqx
import jax

from ..errors import ParameterError
from ._moreau_jean_host import (
    ODE_METHODS,
    TIME_STEPPING_METHODS,
    AbstractTimeSteppingHost,
)
from ._moreau_jean_host import _refusal as _time_stepping_refusal

__all__ = ["EVENT_KINDS", "EVENT_METHODS", "ROUTES", "AbstractEventHost", "check_route",
           "check_step_in_span", "supported_routes"]

EVENT_METHODS = ("events",)
# every route simulate knows, in the order the messages list them
ROUTES = ODE_METHODS + EVENT_METHODS + TIME_STEPPING_METHODS

#: the `kind` column of ``Results.events``; a host's :meth:`AbstractEventHost.event_jump`
#: returns an index into this tuple
EVENT_KINDS = ("impact", "stick", "slip", "rest", "liftoff")


class AbstractEventHost(eqx.Module):
    """A host that ``simulate(..., method="events")`` can integrate (mixin of a system).

    The host is a small hybrid automaton: in each *mode* (an integer: flight or rest of a
    contact; stick, or slip in either sense, of a friction law) its motion is a smooth ODE
    on the ODE route's state vector, and the mode lasts while one *guard* stays ≥ 0. The
    route integrates the mode's ODE, locates the instant the guard falls below 0 and calls
    the jump there. Contract (pure ``jax.numpy``; `mode` is a traced int32 scalar):

    * ``event_name: str`` — the contact or law, for the ``name`` column of
      ``Results.events`` (a class variable or a static field).
    * ``event_mode(t, x) -> mode`` — the mode a state starts in (the initial state, or the
      last state of an earlier run being continued: it must read the mode off the state,
      e.g. stick when the sliding velocity is exactly 0 and the static level holds).
    * ``event_field(t, x, mode) -> dx/dt`` — the smooth motion in `mode`.
    * ``event_guard(t, x, mode) -> g`` — a scalar, ≥ 0 while `mode` lasts; the mode ends
      where g crosses below 0. It may start at exactly 0 (a contact just left, a slip just
      started); it must then grow.
    * ``event_jump(t, x, mode) -> (x⁺, mode⁺, kind)`` — the state and mode just after the
      event at (t, x) (x taken just past the crossing); `kind` an index into
      :data:`EVENT_KINDS`. Restitution, the Zeno rule and the stick test live here.
    * ``event_settle(t, x, mode) -> x`` — applied after every step (a stuck contact is put
      exactly on its surface's velocity, a resting one exactly on the wall).
    * ``event_outputs(t, x, mode) -> dict`` — the extra channels at a sample, with the ODE
      route's names.
    * ``event_details: bool`` (class variable, default False) — ``Results.events`` also lists
      the mode after each event (``mode``) and the state just before it
      (``<channel>_before``): for a host whose events have several sources (the mode says
      which) or whose report needs the state before the jump (a planar impact's approach
      velocity and kinetic energy).
    """

    event_name: eqx.AbstractClassVar[str]
    event_details: ClassVar[bool] = False

    @abc.abstractmethod
    def event_mode(self, t: jax.Array, x: jax.Array) -> jax.Array:
        """The mode `x` starts in (class docstring)."""

    @abc.abstractmethod
    def event_field(self, t: jax.Array, x: jax.Array, mode: jax.Array) -> jax.Array:
        """dx/dt in `mode` (class docstring)."""

    @abc.abstractmethod
    def event_guard(self, t: jax.Array, x: jax.Array, mode: jax.Array) -> jax.Array:
        """≥ 0 while `mode` lasts (class docstring)."""

    @abc.abstractmethod
    def event_jump(self, t: jax.Array, x: jax.Array,
                   mode: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
        """``(x⁺, mode⁺, kind)`` at an event (class docstring)."""

    @abc.abstractmethod
    def event_settle(self, t: jax.Array, x: jax.Array, mode: jax.Array) -> jax.Array:
        """The state after a step, put exactly on the mode's constraint (class docstring)."""

    @abc.abstractmethod
    def event_outputs(self, t: jax.Array, x: jax.Array,
                      mode: jax.Array) -> dict[str, jax.Array]:
        """The extra channels at a sample (class docstring)."""


def _refusal(system, method):
    if method not in EVENT_METHODS:
        return _time_stepping_refusal(system, method)
    if not isinstance(system, AbstractEventHost):
        return "it has no event-driven form yet (it does not implement AbstractEventHost)"
    if isinstance(system, AbstractTimeSteppingHost):     # the host's own per-instance rule
        return system.route_refusal(method)
    return None


def supported_routes(system) -> list[str]:
    """The `method` names `system` accepts: ODE methods, ``events``, ``moreau_jean``."""
    return [method for method in ROUTES if _refusal(system, method) is None]


def check_route(system, method: str, owner: str = "simulate") -> None:
    """Raise ParameterError naming the host and every route it supports when `system` cannot
    run `method` (checked before anything is traced; the time-stepping route's check
    extended to ``events``)."""
    why = _refusal(system, method)
    if why is None:
        return
    routes = supported_routes(system)
    supports = f"It supports {routes}." if routes else "It supports no route as built."
    raise ParameterError(f"{type(system).__name__} does not support method={method!r} "
                         f"(`{owner}.method`): {why}. {supports}")


def check_step_in_span(owner: str, method: str, dt: float, t0: float, t_end: float) -> None:
    """The step `dt` [s] of ``moreau_jean`` and ``events`` is at most the span ``t_end −
    t0`` (both routes end exactly at `t_end` with a last shorter step; a step longer than
    the whole run is a mistaken argument, e.g. ``dt`` and ``t_end`` swapped)."""
    span = t_end - t0
    if dt > span * (1.0 + 1e-12):
        raise ParameterError(
            f"`{owner}.dt` must be at most the span t_end − t0 = {span:g} s for "
            f"method={method!r}; got dt={dt:g}. Pass a smaller step (e.g. "
            f"dt={span / 100:g}).")
