"""Rigid unilateral contact as a Lipschitz ODE (SPEC §3, eq. 15)."""

from __future__ import annotations

from typing import ClassVar

import equinox as eqx
import jax.numpy as jnp
import numpy as np

from .._parameters import STIFFNESS, TIME_CONSTANT, Rule
from .._validation import check_at_most, check_finite_matrix
from ._base import AbstractContactLaw, as_parameter

__all__ = ["UnilateralODE"]


class UnilateralODE(AbstractContactLaw):
    """Rigid contact as a Lipschitz ODE (SPEC §3, eq. 14-15; Xiong, Kikuuwe & Yamamoto).

    The ideal diode ``f ∈ dio(p)`` is relaxed through a proxy with state ``e``, a spring
    ``K``, damper ``K·beta`` and the extra term ``alpha·ė`` that makes theorem (5) apply::

        de/dt = max(−e/beta, −(p + e)/alpha)            (eq. 15a)
        f     = K·max(0, e − beta·(p + e)/alpha)        (eq. 15b)

    The force is continuous in p, ṗ and e and never negative: the wall pushes, never pulls.
    ``α = β`` gives a pure spring (restitution 1); smaller α adds high-frequency damping
    and lowers the restitution (Fig. 5). See :mod:`stickslip.laws.contact_tuning` for the
    restitution and penetration as functions of (M, K, β, α).

    Parameters
    ----------
    K : Array, optional
        Contact stiffness [N/m]; a static load W penetrates by W/K.
    beta : Array, optional
        Proxy time constant [s] (damping ``K·beta`` [N·s/m]).
    alpha : Array, optional
        Low-pass time constant [s] of the contact force, ``0 < alpha <= beta``.

    Examples
    --------
    >>> import stickslip as ss, jax.numpy as jnp
    >>> law = ss.laws.UnilateralODE(K=1e5, beta=1e-3, alpha=5e-4)
    >>> f, _ = law.force_and_rate(jnp.asarray([0.0]), jnp.asarray(0.1), jnp.asarray(-1.0))
    >>> float(f)  # not touching: no force, whatever the velocity
    0.0
    """

    K: jnp.ndarray = eqx.field(converter=as_parameter)
    beta: jnp.ndarray = eqx.field(converter=as_parameter)
    alpha: jnp.ndarray = eqx.field(converter=as_parameter)

    n_states: ClassVar[int] = 1
    state_names: ClassVar[tuple[str, ...]] = ("e",)
    parameter_rules: ClassVar[dict[str, Rule]] = {
        "K": STIFFNESS.but(hint="Pass a positive contact stiffness in N/m (e.g. 1e5)."),
        "beta": TIME_CONSTANT.but(hint="Pass a positive proxy time constant in seconds "
                                       "(e.g. 1e-3)."),
        "alpha": TIME_CONSTANT.but(hint="Pass a positive filter time constant in seconds, "
                                        "at most beta."),
    }

    def __check_init__(self):
        check_at_most("UnilateralODE", "alpha", self.alpha, "beta", self.beta,
                      "alpha > beta makes the contact gain energy (restitution above 1); "
                      "use alpha = beta for an elastic contact, smaller for a damped one.")

    @classmethod
    def example(cls) -> "UnilateralODE":
        return cls(K=1e5, beta=1e-3, alpha=5e-4)

    def force_and_rate(self, state, gap, gap_rate):
        e = state[0]
        f = self.K * jnp.maximum(0.0, e - self.beta * (gap + e) / self.alpha)   # eq. 15b
        e_rate = jnp.maximum(-e / self.beta, -(gap + e) / self.alpha)           # eq. 15a
        return f, e_rate[None]

    def resting_state(self, load):
        depth = load / self.K          # ė = 0 and f = K e = load ⇒ e = −p = load/K
        return -depth, jnp.reshape(depth, (1,))

    def contact_matrix(self, mass):
        """Jacobian of d/dt [p, ṗ, e] for a mass in the pressing branch (eq. 16, linear)."""
        K, beta, alpha = (np.asarray(x, dtype=float) for x in (self.K, self.beta, self.alpha))
        return np.array([
            [0.0, 1.0, 0.0],
            [-K * beta / (alpha * mass), 0.0, K * (1.0 - beta / alpha) / mass],
            [-1.0 / alpha, 0.0, -1.0 / alpha],
        ])

    def linear_modes(self, mass, normal_force=1.0):
        K, beta, alpha = (np.broadcast_arrays(*(np.asarray(x, dtype=float)
                          for x in (self.K, self.beta, self.alpha))))
        pressing = []
        for k, b, a in zip(K.ravel(), beta.ravel(), alpha.ravel()):
            law = UnilateralODE(K=k, beta=b, alpha=a)
            matrix = check_finite_matrix("UnilateralODE", "contact_matrix(mass)",
                                         law.contact_matrix(mass),
                                         f"The host passed mass={mass!r}; pass a finite mass > 0.")
            pressing.append(np.linalg.eigvals(matrix))
        return [("pressing (eq. 16)", np.concatenate(pressing)),
                ("released (−1/β)", (-1.0 / beta).ravel() + 0j)]
