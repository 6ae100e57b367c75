"""The LuGre friction model (SPEC §8; Canudas de Wit et al. 1995)."""

from __future__ import annotations

import math
from typing import ClassVar

import equinox as eqx
import jax.numpy as jnp
import numpy as np

from .._parameters import DAMPING, FRICTION_COEFFICIENT, STIFFNESS, Rule
from .._validation import keyword_alias
from ..nonsmooth import safe_norm
from ._base import AbstractFrictionLaw, as_parameter

__all__ = ["LUGRE_G_FLOOR", "LuGre"]

LUGRE_G_FLOOR = 1e-12
"""[m] The floor of :class:`LuGre`'s bristle deflection scale g(v) = F(v)/k0: guards N = 0
(no load, no bristles). The C of :func:`stickslip.discrete.export_c` floors it the same."""
_K1 = math.sqrt(1e5)  # [N·s/m] the tutorial's bristle damping


class LuGre(AbstractFrictionLaw):
    """LuGre bristle friction (SPEC §8, the MotionSolve composite element; Canudas de Wit 1995).

    With v the sliding velocity and N the normal force::

        F_c = mu_k·N,  F_s = mu_s·N                       (SPEC §8, with the [fix] F_s = mu_s·N)
        g(v) = (F_c + (F_s − F_c)·exp(−(v/vs)²)) / k0
        dz/dt = v − |v|·z / g(v)
        force = −(k0·z + k1·dz/dt + k2·v)

    LuGre is the comparison model of SPEC §2 Fig. 3: below the static level it still creeps
    (drifts without bound under an oscillating load) — the behaviour `CoulombODE` removes.

    Parameters (defaults are the tutorial's, SPEC §8)
    ----------
    mu_s: static friction coefficient μ_s [-] (0.3).
    mu_k: kinetic (Coulomb) friction coefficient μ_k [-], ``mu_k <= mu_s`` (0.2); SPEC §8
        and the tutorial call it μ_d, "dynamic".
    vs: Stribeck velocity [m/s] (1e-3).
    k0: bristle stiffness [N/m] (1e5).
    k1: bristle damping [N·s/m] (√1e5).
    k2: viscous friction coefficient [N·s/m] (0.4).
    mus, mud: the old spellings of mu_s and mu_k (deprecated: they warn, as do the
        attributes ``law.mus``, ``law.mud`` and ``law.replace(mus=...)``).

    Notes
    -----
    For planar sliding (2-vector v) the isotropic form is used: |v| → ‖v‖, z a 2-vector.

    Examples
    --------
    >>> import stickslip as ss
    >>> law = ss.laws.LuGre(mu_s=0.5, mu_k=0.3)
    >>> float(law.level(10.0)), float(law.replace(mu_k=0.4).mu_k)
    (5.0, 0.4)
    """

    mu_s: jnp.ndarray = eqx.field(converter=as_parameter)
    mu_k: jnp.ndarray = eqx.field(converter=as_parameter)
    vs: jnp.ndarray = eqx.field(converter=as_parameter)
    k0: jnp.ndarray = eqx.field(converter=as_parameter)
    k1: jnp.ndarray = eqx.field(converter=as_parameter)
    k2: jnp.ndarray = eqx.field(converter=as_parameter)

    n_states: ClassVar[int] = 1
    state_names: ClassVar[tuple[str, ...]] = ("z",)
    parameter_rules: ClassVar[dict[str, Rule]] = {
        "mu_s": FRICTION_COEFFICIENT.but(hint="Pass a static friction coefficient >= 0 "
                                              "(tutorial default 0.3)."),
        "mu_k": FRICTION_COEFFICIENT.but(hint="Pass a kinetic friction coefficient >= 0 "
                                              "(tutorial default 0.2)."),
        "vs": Rule("positive", "Pass a positive Stribeck velocity in m/s (tutorial default "
                               "1e-3)."),
        "k0": STIFFNESS.but(hint="Pass a positive bristle stiffness in N/m (tutorial default "
                                 "1e5)."),
        "k1": DAMPING.but(hint="Pass a bristle damping >= 0 in N·s/m (tutorial default "
                               "sqrt(1e5))."),
        "k2": DAMPING.but(hint="Pass a viscous coefficient >= 0 in N·s/m (tutorial default "
                               "0.4)."),
    }
    friction_pairs: ClassVar[tuple[tuple[str, str], ...]] = (("mu_s", "mu_k"),)
    renamed_parameters: ClassVar[dict[str, str]] = {"mus": "mu_s", "mud": "mu_k"}

    def __init__(self, mu_s=None, mu_k=None, vs=1e-3, k0=1e5, k1=_K1, k2=0.4, *,
                 mus=None, mud=None):
        mu_s = keyword_alias("LuGre", "mu_s", mu_s, "mus", mus, deprecated=True)
        mu_k = keyword_alias("LuGre", "mu_k", mu_k, "mud", mud, deprecated=True)
        # numbers here: the field converter (as_parameter) makes them arrays after __init__
        self.mu_s = 0.3 if mu_s is None else mu_s  # pyright: ignore[reportAttributeAccessIssue]
        self.mu_k = 0.2 if mu_k is None else mu_k  # pyright: ignore[reportAttributeAccessIssue]
        self.vs = vs  # pyright: ignore[reportAttributeAccessIssue]
        self.k0, self.k1 = k0, k1  # pyright: ignore[reportAttributeAccessIssue]
        self.k2 = k2  # pyright: ignore[reportAttributeAccessIssue]

    @classmethod
    def example(cls) -> "LuGre":
        return cls()

    def level(self, normal_force):
        return self.mu_s * jnp.maximum(normal_force, 0.0)

    def force_and_rate(self, state, velocity, normal_force):
        z = state[0]
        n = jnp.maximum(normal_force, 0.0)
        speed = jnp.abs(velocity) if jnp.ndim(velocity) == 0 else safe_norm(velocity)[..., None]
        f_c, f_s = self.mu_k * n, self.mu_s * n
        g = (f_c + (f_s - f_c) * jnp.exp(-(speed / self.vs) ** 2)) / self.k0
        z_rate = velocity - speed * z / jnp.maximum(g, LUGRE_G_FLOOR)
        force = -(self.k0 * z + self.k1 * z_rate + self.k2 * velocity)
        return force, z_rate[None]

    def state_bounds(self, normal_force=1.0):
        """|z| ≤ g_max = max(μ_s, μ_k)·N / k0 (Canudas de Wit et al. 1995, property 1: the
        bristle deflection never leaves the largest g(v)), for a constant N ≥ 0."""
        n = np.maximum(np.asarray(normal_force, dtype=float), 0.0)
        mu_top = np.maximum(np.asarray(self.mu_s), np.asarray(self.mu_k))
        k0 = np.asarray(self.k0, dtype=float)
        bound = mu_top * n / k0
        if np.ndim(bound) == 0 and float(n) > 0 and float(np.asarray(self.mu_k)) > 0:
            at_1 = f" ({2.79 * float(np.asarray(self.mu_k)) * float(n) / float(k0):.3g} s at 1 m/s)"
        else:
            at_1 = ""
        why = ("LuGre's bristle deflection stays within |z| <= max(mu_s, mu_k)*N/k0 (Canudas de "
               "Wit et al. 1995). A fixed step passes it when it is too large for the bristle's "
               "relaxation while sliding at speed |v|, eigenvalue -|v|*k0/F(v) with F -> mu_k*N "
               "(rk4 needs dt <= 2.79*mu_k*N/(k0*|v|)" + at_1 + "); the step check at the start "
               "sees the mode at rest only")
        return {"z": (bound, why)}

    def linear_modes(self, mass, normal_force=1.0):
        k0 = np.asarray(self.k0)
        c = np.asarray(self.k1) + np.asarray(self.k2)
        disc = np.sqrt(c ** 2 - 4 * mass * k0 + 0j)
        return [("stick (M s² + (k1+k2) s + k0 = 0)",
                 np.stack([(-c + disc) / (2 * mass), (-c - disc) / (2 * mass)]))]
