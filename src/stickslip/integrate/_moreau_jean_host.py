"""The host side of the time-stepping route (``method="moreau_jean"``,
:mod:`._moreau_jean`): the contract a system implements, the route check, and the load
impulse by quadrature. Kept apart from the runner so that defining a host imports neither
the program store nor the kernels."""

from __future__ import annotations

import abc
from collections.abc import Callable
from typing import ClassVar

import equinox as eqx
import jax
import jax.numpy as jnp

# 5-point Gauss–Legendre on [0, 1] (exact for polynomials of degree 9), shared with export_c
from .._quadrature import NODES as _NODES
from .._quadrature import WEIGHTS as _WEIGHTS
from ._adaptive import ADAPTIVE_METHODS
from ._tableaus import FIXED_STEP_METHODS

__all__ = [
    "ODE_METHODS",
    "TIME_STEPPING_METHODS",
    "AbstractTimeSteppingHost",
    "impulse",
]

TIME_STEPPING_METHODS = ("moreau_jean",)
ODE_METHODS = tuple(FIXED_STEP_METHODS) + tuple(ADAPTIVE_METHODS)



class AbstractTimeSteppingHost(eqx.Module):
    """A host that ``simulate(..., method="moreau_jean")`` can step (mixin of a system).

    Contract (pure ``jax.numpy`` for the two step methods; host-side Python for the checks):

    * ``moreau_jean_step(t, x, h, theta) -> (x_new, forces)`` — one step from time t [s] and
      state x to t + h: the new state (same layout as the ODE state, so a run may continue
      under another route) and ``forces``, a dict of the contact/friction forces of the step
      as *mean forces* [N] (impulse / h) — the channel values the ODE route reports as
      forces.
    * ``moreau_jean_outputs(t, x, forces) -> dict`` — the extra channels at a sample (the
      ODE route's ``outputs`` names), given the forces of the step that ended there (of the
      first step at the start of a run).
    * ``route_refusal(method) -> str | None`` — why *this instance* cannot run `method` (its
      law has no set-valued form, or no ODE), or None. The default accepts every route.
    * ``check_time_step(dt)`` — host-side checks that depend on the step (e.g. a Stribeck
      drop steeper than M/h makes the slip speed non-unique); raises ParameterError.
    * ``warm_start`` (class variable, default False) — True makes the route call
      ``moreau_jean_step(t, x, h, theta, previous=forces)`` with the forces of the step before
      (zeros before a run's first step), for a host whose impulse solve starts from the last
      solution (as MuJoCo and Siconos warm-start theirs). A host must treat `previous` as a
      guess only: the step's result may not depend on it beyond the solver's tolerance.
    """

    warm_start: ClassVar[bool] = False

    @abc.abstractmethod
    def moreau_jean_step(self, t: jax.Array, x: jax.Array, h: jax.Array,
                         theta: jax.Array) -> tuple[jax.Array, dict[str, jax.Array]]:
        """One time step (class docstring)."""

    @abc.abstractmethod
    def moreau_jean_outputs(self, t: jax.Array, x: jax.Array,
                            forces: dict[str, jax.Array]) -> dict[str, jax.Array]:
        """The extra channels at a sample (class docstring)."""

    def route_refusal(self, method: str) -> str | None:
        """Why this instance cannot run `method`, or None (every route is accepted)."""
        return None

    def check_time_step(self, dt: float) -> None:
        """Host-side checks of the step `dt` [s] (none by default)."""


def impulse(force: Callable[[jax.Array], jax.Array], t, h) -> jax.Array:
    """The load's impulse ∫ force(τ) dτ over the step from t to t + h, in N·s, by 5-point
    Gauss–Legendre quadrature (no node on the ends, so a load that jumps at a step boundary
    is integrated exactly)."""
    taus = t + h * jnp.asarray(_NODES)
    values = jax.vmap(force)(taus)
    return h * jnp.tensordot(jnp.asarray(_WEIGHTS), values, axes=1)


def _refusal(system, method):
    if isinstance(system, AbstractTimeSteppingHost):
        return system.route_refusal(method)
    if method in TIME_STEPPING_METHODS:
        return "it has no time-stepping step yet (it does not implement AbstractTimeSteppingHost)"
    return None
