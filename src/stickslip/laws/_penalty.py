"""Penalty contact laws — baselines the papers argue against (SPEC §3)."""

from __future__ import annotations

from typing import ClassVar

import equinox as eqx
import jax.numpy as jnp
import numpy as np

from .._parameters import DAMPING, STIFFNESS, Rule
from ._base import AbstractContactLaw, as_parameter

__all__ = ["KelvinVoigt", "HuntCrossley"]


class KelvinVoigt(AbstractContactLaw):
    """Linear spring–damper penalty contact (baseline): ``f = −k·p − c·ṗ`` while p < 0.

    The force jumps when contact starts with a nonzero velocity (discontinuous in p) and it
    pulls the body back (f < 0) while it separates fast — the two defects SPEC §3 lists and
    `UnilateralODE` removes. Kept as it is for the comparison figures.

    Parameters
    ----------
    k : Array, optional
        penalty stiffness [N/m].
    c : Array, optional
        penalty damping [N·s/m].
    """

    k: jnp.ndarray = eqx.field(converter=as_parameter)
    c: jnp.ndarray = eqx.field(converter=as_parameter)

    n_states: ClassVar[int] = 0
    state_names: ClassVar[tuple[str, ...]] = ()
    parameter_rules: ClassVar[dict[str, Rule]] = {
        "k": STIFFNESS.but(hint="Pass a positive penalty stiffness in N/m."),
        "c": DAMPING.but(hint="Pass a penalty damping >= 0 in N·s/m."),
    }

    @classmethod
    def example(cls) -> "KelvinVoigt":
        return cls(k=1e5, c=50.0)

    def force_and_rate(self, state, gap, gap_rate):
        return jnp.where(gap < 0, -self.k * gap - self.c * gap_rate, 0.0), state

    def resting_state(self, load):
        return -load / self.k, jnp.zeros(0)

    def potential(self, gap):
        """½·k·p² while p < 0 (the damper stores nothing)."""
        return jnp.where(gap < 0, 0.5 * self.k * gap ** 2, 0.0)

    def linear_modes(self, mass, normal_force=1.0):
        k, c = np.asarray(self.k), np.asarray(self.c)
        disc = np.sqrt(c ** 2 - 4 * mass * k + 0j)
        return [("pressing (M s² + c s + k = 0)",
                 np.stack([(-c + disc) / (2 * mass), (-c - disc) / (2 * mass)]))]


class HuntCrossley(AbstractContactLaw):
    """Hunt–Crossley nonlinear penalty contact (baseline): ``f = δⁿ·(k + lam·δ̇)``, δ = −p > 0.

    Continuous at first touch but it can still pull (f < 0 when ``δ̇ < −k/lam``, a fast
    separation), SPEC §3. ``lam = 1.5·k·(1 − e)/v_in`` is the classical choice for a
    restitution e at impact speed v_in (Hunt & Crossley 1975, Marhefka & Orin 1999).

    Parameters
    ----------
    k : Array, optional
        stiffness [N/mⁿ].
    lam : Array, optional
        damping [N·s/m^(n+1)].
    n : Array, optional
        exponent [-] (1.5, Hertz).
    """

    k: jnp.ndarray = eqx.field(converter=as_parameter)
    lam: jnp.ndarray = eqx.field(converter=as_parameter)
    n: jnp.ndarray = eqx.field(converter=as_parameter, default=1.5)

    n_states: ClassVar[int] = 0
    state_names: ClassVar[tuple[str, ...]] = ()
    parameter_rules: ClassVar[dict[str, Rule]] = {
        "k": STIFFNESS.but(hint="Pass a positive stiffness in N/m^n."),
        "lam": DAMPING.but(hint="Pass a damping >= 0 in N·s/m^(n+1)."),
        "n": Rule("positive", "Pass a positive exponent (1.5 for Hertzian contact)."),
    }

    @classmethod
    def example(cls) -> "HuntCrossley":
        return cls(k=1e7, lam=1e6, n=1.5)

    def force_and_rate(self, state, gap, gap_rate):
        depth = jnp.maximum(-gap, 0.0)
        f = depth ** self.n * (self.k - self.lam * gap_rate)
        return jnp.where(gap < 0, f, 0.0), state

    def resting_state(self, load):
        return -((load / self.k) ** (1.0 / self.n)), jnp.zeros(0)

    def linear_modes(self, mass, normal_force=1.0):
        """Eigenvalues of a mass pressed by `normal_force` [N] (the load the contact carries).

        The contact is nonlinear: linearised at the depth δ0 = (load/k)^(1/n) that carries
        the load, its stiffness is ``n·k·δ0^(n−1)`` and its damping ``lam·δ0^n``, both growing
        with the load — a host should pass the largest force it expects (an impact's peak,
        not just the weight; `ContactMass` estimates it from the drop energy).
        """
        k, lam, n = (np.asarray(x, dtype=float) for x in (self.k, self.lam, self.n))
        load = max(float(np.max(normal_force)), 1e-12)
        depth = (load / k) ** (1.0 / n)
        stiffness = n * k * depth ** (n - 1.0)
        damping = lam * depth ** n
        disc = np.sqrt(damping ** 2 - 4 * mass * stiffness + 0j)
        return [(f"pressing at {load:.3g} N (M s² + λδ0ⁿ s + nkδ0ⁿ⁻¹ = 0)",
                 np.stack([(-damping + disc) / (2 * mass), (-damping - disc) / (2 * mass)]))]

    def potential(self, gap):
        """k·δⁿ⁺¹/(n + 1), δ = −p > 0 (the lam·δⁿ·δ̇ term only dissipates while δ̇ > 0
        pushes in, and can pull — the defect of SPEC §3 — but stores nothing)."""
        depth = jnp.maximum(-gap, 0.0)
        return self.k * depth ** (self.n + 1.0) / (self.n + 1.0)
