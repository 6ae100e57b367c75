"""Named models for sweeps, fits and spec files: ``build(**parameters) -> system``.

Each builder takes only numbers as keyword arguments and writes them into array fields, so
`sweep` can trace it under ``jax.vmap`` (one compiled run for a whole chunk of points) and
`fit` can differentiate through it. A spec file names a builder by its key in
:data:`MODELS` or by an import path ``"package.module:function"``.
"""

from __future__ import annotations

import math
from typing import Callable, NamedTuple

import equinox as eqx
import jax.numpy as jnp

from .._parameters import MASS, STIFFNESS, check_parameters
from .._validation import keyword_alias
from ..laws import CoulombODE, LuGre
from .._parameter_arrays import as_parameter
from ..systems import FrictionMass

__all__ = ["SineForce", "friction_mass", "lugre_block", "MODELS", "ModelEntry"]


class SineForce(eqx.Module):
    """Applied force ``bias + amplitude·sin(2π·frequency·t)`` [N] as a parameter object.

    Unlike a lambda closing over its numbers, its fields are arrays: a sweep can vary them
    across a vmapped batch and `fit` can differentiate through them.

    amplitude: [N].  frequency: [Hz].  bias: constant part [N].
    """

    amplitude: jnp.ndarray = eqx.field(converter=as_parameter)
    frequency: jnp.ndarray = eqx.field(converter=as_parameter, default=1.0)
    bias: jnp.ndarray = eqx.field(converter=as_parameter, default=0.0)

    def __call__(self, t):
        return self.bias + self.amplitude * jnp.sin(2 * jnp.pi * self.frequency * t)


def friction_mass(F: float = 0.5, K: float = 1e4, beta: float | None = None, M: float = 1.0,
                  amplitude: float = 0.6, frequency: float = 1.0, bias: float = 0.0
                  ) -> FrictionMass:
    """Eq. 10 (SPEC §2): a mass `M` [kg] with `CoulombODE` friction `F` [N] (proxy stiffness
    `K` [N/m], time constant `beta` [s], critically damped ``2·sqrt(M/K)`` when omitted),
    pushed by ``bias + amplitude·sin(2π·frequency·t)`` [N]. Starts at rest at p = 0.

    `M` and `K` are checked before β is derived from them, so a sweep point with ``M=-1``
    fails naming `M` (not ``beta=nan``); traced values (a vmapped sweep chunk) are skipped."""
    check_parameters("friction_mass", {"M": MASS, "K": STIFFNESS}, M=M, K=K)
    time_constant = (2.0 * jnp.sqrt(jnp.asarray(M, float) / jnp.asarray(K, float))
                     if beta is None else beta)
    return FrictionMass(M=M, law=CoulombODE(F=F, K=K, beta=time_constant),
                        force=SineForce(amplitude, frequency, bias))


def lugre_block(mu_s: float | None = None, mu_k: float | None = None, vs: float = 1e-3,
                k0: float = 1e5, k1: float = math.sqrt(1e5), k2: float = 0.4, M: float = 1.0,
                N: float = 9.8, amplitude: float = 3.0, frequency: float = 1.0,
                bias: float = 0.0, *,
                mus: float | None = None, mud: float | None = None) -> FrictionMass:
    """The sliding block of the LuGre tutorial (SPEC §8): a block `M` [kg] pressed with
    `N` [N] (9.8 N: 1 kg under gravity) on a `LuGre` surface (parameters as in
    :class:`~stickslip.laws.LuGre`; μ_s = `mu_s`, default 0.3, μ_k = `mu_k`, default 0.2),
    pushed by ``bias + amplitude·sin(2π·frequency·t)`` [N]. `mus`, `mud`: the old spellings
    of `mu_s`, `mu_k` (deprecated: they warn; older spec files and fits naming them run)."""
    mu_s = keyword_alias("lugre_block", "mu_s", mu_s, "mus", mus, deprecated=True)
    mu_k = keyword_alias("lugre_block", "mu_k", mu_k, "mud", mud, deprecated=True)
    law = LuGre(mu_s=mu_s, mu_k=mu_k, vs=vs, k0=k0, k1=k1, k2=k2)
    return FrictionMass(M=M, N=N, law=law, force=SineForce(amplitude, frequency, bias))


class ModelEntry(NamedTuple):
    build: Callable
    title: str


MODELS: dict[str, ModelEntry] = {
    "friction_mass": ModelEntry(friction_mass, "mass with CoulombODE friction (Xiong, Kikuuwe & Yamamoto, eq. 10)"),
    "lugre_block": ModelEntry(lugre_block, "LuGre sliding block (Altair MotionSolve tutorial MV-9003)"),
}
