"""Regularised (smoothed) Coulomb friction — a baseline the papers argue against."""

from __future__ import annotations

from typing import ClassVar

import equinox as eqx
import jax.numpy as jnp
import numpy as np

from .._parameters import FRICTION_COEFFICIENT, FRICTION_LEVEL, Rule
from ..errors import ParameterError
from ..nonsmooth import safe_norm
from ._base import AbstractFrictionLaw, as_parameter

__all__ = ["TanhCoulomb"]


class TanhCoulomb(AbstractFrictionLaw):
    """Coulomb friction smoothed by tanh: ``force = −F·tanh(v/v_eps)`` (baseline).

    The usual workaround for ``F·sign(v)`` in general-purpose simulators (Simscape, Adams
    transition velocities). It has no sticking: any load below F makes the body creep at
    ``v = v_eps·atanh(load/F)`` — the drift that SPEC §2 Fig. 3 shows and `CoulombODE` removes.

    Parameters
    ----------
    F
        friction force level [N] (or give mu).
    v_eps
        transition velocity [m/s] (1e-3 by default).
    mu
        friction coefficient [-]; the level is ``mu·N`` from the host's normal force.
    """

    v_eps: jnp.ndarray = eqx.field(converter=as_parameter)
    F: jnp.ndarray | None = eqx.field(converter=as_parameter, default=None)
    mu: jnp.ndarray | None = eqx.field(converter=as_parameter, default=None)

    n_states: ClassVar[int] = 0
    state_names: ClassVar[tuple[str, ...]] = ()
    parameter_rules: ClassVar[dict[str, Rule]] = {
        "F": FRICTION_LEVEL, "mu": FRICTION_COEFFICIENT,
        "v_eps": Rule("positive", "Pass a positive transition velocity in m/s (e.g. 1e-3)."),
    }

    def __init__(self, F=None, v_eps=1e-3, *, mu=None):
        if (F is None) == (mu is None):
            raise ParameterError(
                "`TanhCoulomb` needs exactly one of `F` (a fixed force level [N]) and `mu`; "
                f"got F={F!r}, mu={mu!r}. Pass F=... or mu=....")
        # v_eps a number here: the field converter (as_parameter) runs after __init__
        self.F, self.mu = F, mu
        self.v_eps = v_eps  # pyright: ignore[reportAttributeAccessIssue]

    @classmethod
    def example(cls) -> "TanhCoulomb":
        return cls(F=0.5, v_eps=1e-3)

    def level(self, normal_force):
        if self.F is not None:
            return self.F
        return self._mu() * jnp.maximum(normal_force, 0.0)

    def _mu(self) -> jnp.ndarray:
        if self.mu is None:     # __init__ takes exactly one of F and mu
            raise ParameterError("`TanhCoulomb` has neither F nor mu (built around __init__?). "
                                 "Build it with TanhCoulomb(F=...) or TanhCoulomb(mu=...).")
        return self.mu

    def force_and_rate(self, state, velocity, normal_force):
        bound = self.level(normal_force)
        if jnp.ndim(velocity) == 0:
            force = -bound * jnp.tanh(velocity / self.v_eps)
        else:
            speed = safe_norm(velocity)
            scale = jnp.tanh(speed / self.v_eps) / jnp.where(speed > 0, speed, 1.0)
            scale = jnp.where(speed > 0, scale, 1.0 / self.v_eps)
            force = -(bound * scale)[..., None] * velocity
        return force, state

    def linear_modes(self, mass, normal_force=1.0):
        bound = np.asarray(self.F if self.F is not None else self._mu() * normal_force)
        return [("sliding through v = 0 (−F/(v_eps M))",
                 -bound / (np.asarray(self.v_eps) * mass) + 0j)]
