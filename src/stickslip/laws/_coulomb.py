"""Coulomb friction as a Lipschitz ODE (SPEC §2, eq. 9)."""

from __future__ import annotations

from typing import ClassVar

import equinox as eqx
import jax.numpy as jnp
import numpy as np

from ..errors import ParameterError
from ..nonsmooth import sat
from .._parameters import FRICTION_COEFFICIENT, FRICTION_LEVEL, STIFFNESS, TIME_CONSTANT, Rule
from ._base import AbstractFrictionLaw, as_parameter

__all__ = ["CoulombODE"]


class CoulombODE(AbstractFrictionLaw):
    """Coulomb friction as a Lipschitz ODE (SPEC §2, eq. 9; Xiong, Kikuuwe & Yamamoto).

    A massless proxy at ``p − a`` is tied to the body by a virtual spring ``K`` and damper
    ``K·beta``; Coulomb friction acts on the proxy. Theorem (4) solves the algebraic loop::

        s    = sat(F/K, a + beta·v)          (eq. 9b: friction magnitude f = K·s)
        da/dt = (s − a)/beta                 (eq. 9a)

    While stuck the body is held by a stiff spring–damper, so it stays within ``F/K`` of
    where it stuck — no creep under any force below F. While sliding the force is exactly
    ``F`` opposing the motion.

    Parameters
    ----------
    F:
        Friction force level [N] (a fixed Coulomb force). Give exactly one of F and mu.
    K:
        Proxy stiffness [N/m] (N·m/rad for rotation); larger means stiffer sticking.
    beta:
        Proxy time constant [s]; the proxy damping is ``K·beta`` [N·s/m].
    mu:
        Friction coefficient [-]; the level is ``mu·N`` with N the normal force the host
        supplies (joint reaction, contact force).

    Notes
    -----
    ``force_and_rate`` returns the force on the body, ``−K·s`` (it opposes the velocity).
    Planar sliding: pass a 2-vector velocity; ``sat`` then clips to a disc (Coulomb's
    isotropic friction), eq. 21.

    Examples
    --------
    >>> import stickslip as ss, jax.numpy as jnp
    >>> law = ss.laws.CoulombODE(F=0.5, K=1e4, beta=1e-3)
    >>> force, rate = law.force_and_rate(law.initial_state(), jnp.asarray(1.0), 1.0)
    >>> float(force)  # sliding at 1 m/s: the full level, opposing the motion
    -0.5
    """

    K: jnp.ndarray = eqx.field(converter=as_parameter)
    beta: jnp.ndarray = eqx.field(converter=as_parameter)
    F: jnp.ndarray | None = eqx.field(converter=as_parameter, default=None)
    mu: jnp.ndarray | None = eqx.field(converter=as_parameter, default=None)

    n_states: ClassVar[int] = 1
    state_names: ClassVar[tuple[str, ...]] = ("a",)
    parameter_rules: ClassVar[dict[str, Rule]] = {
        "F": FRICTION_LEVEL, "mu": FRICTION_COEFFICIENT,
        "K": STIFFNESS.but(hint="Pass a positive proxy stiffness in N/m (e.g. 1e4 for a "
                                "1 kg body)."),
        "beta": TIME_CONSTANT.but(hint="Pass a positive proxy time constant in seconds "
                                       "(e.g. 1e-3)."),
    }

    def __init__(self, F=None, K=None, beta=None, *, mu=None):
        if (F is None) == (mu is None):
            raise ParameterError(
                "`CoulombODE` needs exactly one of `F` (a fixed force level [N]) and `mu` "
                f"(a coefficient times the host's normal force); got F={F!r}, mu={mu!r}. "
                "Pass F=... for a fixed level or mu=... for a load-dependent one.")
        for name, value in (("K", K), ("beta", beta)):
            if value is None:
                raise ParameterError(
                    f"`CoulombODE.{name}` is required; got none. "
                    f"{self.parameter_rules[name].hint}")
        self.F, self.mu, self.K, self.beta = F, mu, K, beta

    @classmethod
    def tuned(cls, mass: float, K: float, *, F=None, mu=None, damping_ratio: float = 1.0
              ) -> "CoulombODE":
        """A CoulombODE whose stick mode on `mass` [kg] has the given damping ratio.

        While stuck the body sits on the proxy spring K and damper K·β, so its stick mode is
        ``M s² + Kβ s + K = 0`` with damping ratio ``ζ = β√(K/M)/2``. A lightly damped stick
        mode (ζ ≪ 1) rings after every stop and overshoots under sudden loads — a load step
        below F can then break the contact loose for a moment. ``β = 2ζ√(M/K)``; ζ = 1
        (critical) is the safe default. See docs/tuning.md for the accuracy trade-off.
        """
        beta = 2.0 * damping_ratio * (mass / K) ** 0.5
        return cls(F=F, K=K, beta=beta, mu=mu)

    @classmethod
    def example(cls) -> "CoulombODE":
        return cls(F=0.5, K=1e4, beta=1e-3)

    def level(self, normal_force):
        if self.F is not None:
            return self.F
        return self.mu * jnp.maximum(normal_force, 0.0)

    def force_and_rate(self, state, velocity, normal_force):
        a = state[0]
        s = sat(self.level(normal_force) / self.K, a + self.beta * velocity)   # eq. 9b
        return -self.K * s, ((s - a) / self.beta)[None]                        # eq. 9a

    def linear_modes(self, mass, normal_force=1.0):
        K, beta = np.asarray(self.K), np.asarray(self.beta)
        disc = np.sqrt((K * beta) ** 2 - 4 * mass * K + 0j)
        stick = np.stack([(-K * beta + disc) / (2 * mass), (-K * beta - disc) / (2 * mass)])
        return [("stick (M s² + Kβ s + K = 0)", stick), ("slip (−1/β)", -1.0 / beta + 0j)]
