"""Rigid contact with Newton's impact law, for the time-stepping route (issue 21)."""

from __future__ import annotations

from typing import ClassVar

import equinox as eqx
import jax.numpy as jnp
import numpy as np

from .._parameters import Rule
from .._validation import concrete
from ..errors import ParameterError
from ._base import AbstractContactLaw, as_parameter

__all__ = ["NewtonImpact"]

_ROUTES = ("`NewtonImpact` is a rigid contact without a force law: it runs only under the "
           "time-stepping route ss.simulate(..., method='moreau_jean', dt=...) and the "
           "event-driven route method='events'. For an ODE method (rk4, tsit5, …) "
           "use UnilateralODE (rigid contact as an ODE) or a penalty law instead.")


class NewtonImpact(AbstractContactLaw):
    """Rigid unilateral contact with Newton's restitution law (Moreau 1988; Acary &
    Brogliato 2008, §7.2), for ``simulate(..., method="moreau_jean")``.

    The wall occupies gap ≤ 0 and never pulls. When the contact closes with normal velocity
    ``v⁻ < 0`` the body leaves it with ``v⁺ = −e·v⁻``; at the velocity level (what the
    time-stepping route solves at each step whose predicted gap is ≤ 0)::

        0 ≤ v⁺ + e·min(v⁻, 0)  ⊥  P ≥ 0            (P: the contact impulse [N·s])

    whose solution for a free (impulse-less) end-of-step velocity ``v_free`` is
    :meth:`velocity_after` ``= max(v_free, −e·min(v⁻, 0))`` — the projection onto the
    admissible velocities (theorem (5) at the velocity level). A body that is separating
    (v⁻ ≥ 0) is only kept from approaching, so a bouncing ball comes to rest exactly (v = 0)
    once its bounces are shorter than a step: the Zeno accumulation costs nothing.

    Parameters
    ----------
    e : Array, optional
        Coefficient of restitution [-], 0 ≤ e ≤ 1 (0: plastic, the body stays on the wall;
        1: elastic).

    Notes
    -----
    There is no force as a function of the gap, so :meth:`force_and_rate` raises: an ODE
    method cannot run this law (``simulate`` says so before tracing anything). Not in
    :data:`stickslip.laws.ALL_LAWS` (the ODE-law conformance suite) for that reason.

    Examples
    --------
    >>> import stickslip as ss
    >>> law = ss.laws.NewtonImpact(e=0.8)
    >>> float(law.velocity_after(-4.5, -4.4))     # hits at 4.4 m/s, leaves at 0.8 × 4.4
    3.5200000000000005
    >>> float(law.velocity_after(-1e-3, 0.0))     # resting on the wall: stays there
    0.0
    """

    e: jnp.ndarray = eqx.field(converter=as_parameter)

    n_states: ClassVar[int] = 0
    state_names: ClassVar[tuple[str, ...]] = ()
    parameter_rules: ClassVar[dict[str, Rule]] = {
        "e": Rule("nonnegative", "Pass a coefficient of restitution in [0, 1] (0: plastic, "
                                 "1: elastic).", scalar=True)}

    def __check_init__(self):
        e = concrete(self.e)
        if e is not None and np.all(np.isfinite(e)) and not np.all(e <= 1.0):
            raise ParameterError(
                f"`NewtonImpact.e` must be <= 1; got e={float(np.max(e))!r}. A restitution "
                "above 1 adds energy at every impact; pass e in [0, 1] (0: plastic, "
                "1: elastic).")

    @classmethod
    def example(cls) -> NewtonImpact:
        return cls(e=0.8)

    def velocity_after(self, v_free, v_before):
        """The normal velocity at the end of a step with the contact active [m/s]:
        ``max(v_free, −e·min(v_before, 0))`` (class docstring). The impulse on the body is
        ``M·(velocity_after − v_free)`` ≥ 0."""
        v_free, v_before = jnp.asarray(v_free, dtype=float), jnp.asarray(v_before, dtype=float)
        approach = jnp.where(v_before < 0.0, -self.e * v_before, 0.0)   # +0.0 at rest
        return jnp.maximum(v_free, approach)

    def force_and_rate(self, state, gap, gap_rate):
        raise ParameterError(_ROUTES)

    def resting_state(self, load):
        load = jnp.asarray(load, dtype=float)
        return jnp.zeros_like(load), jnp.zeros((0,))
