"""Shared test models: small systems built once and reused across test modules."""

from __future__ import annotations

import equinox as eqx
import jax.numpy as jnp

import stickslip as ss
from stickslip.figures._fig3_stiction import stiction_load
from stickslip.laws._base import as_parameter

F_LEVEL = 0.5      # [N] friction level of the Fig. 3 block (SPEC §2)
K_PROXY = 1e4      # [N/m]
BETA = 1e-3        # [s]


fig3_force = stiction_load   # SPEC §2 Fig. 3 style load, shared with the figure


def sliding_block(law=None, force=fig3_force, M=1.0, **kw):
    law = law if law is not None else ss.laws.CoulombODE(F=F_LEVEL, K=K_PROXY, beta=BETA)
    return ss.systems.FrictionMass(M=M, law=law, force=force, **kw)


class LinearOscillator(ss.systems.AbstractSystem):
    """x'' = −ω² x, x(0) = 1, x'(0) = 0: exact solution cos(ωt) (a smooth order-test problem)."""

    omega: jnp.ndarray = eqx.field(converter=as_parameter, default=2.0)

    @property
    def state_names(self):
        return ("x", "xd")

    def initial_state(self):
        return jnp.array([1.0, 0.0])

    def vector_field(self, t, x):
        return jnp.stack([x[1], -self.omega ** 2 * x[0]])

    def exact(self, t):
        return jnp.cos(self.omega * t)


class BlowUp(ss.systems.AbstractSystem):
    """x' = x² from x(0) = 1: finite-time blow-up at t = 1."""

    @property
    def state_names(self):
        return ("x",)

    def initial_state(self):
        return jnp.array([1.0])

    def vector_field(self, t, x):
        return x * x

    def linear_modes(self):
        return []


class Growth(ss.systems.AbstractSystem):
    """x' = 60 x from x(0) = 1: finite at every time (e^60 ≈ 1e26 at t = 1)."""

    @property
    def state_names(self):
        return ("x",)

    def initial_state(self):
        return jnp.array([1.0])

    def vector_field(self, t, x):
        return 60.0 * x

    def linear_modes(self):
        return []


def rod_chain(n, tilt=0.7):
    """A `SpatialModel` of n rods (0.1 m, 0.1 kg) on revolute joints (z axes), hanging
    straight at `tilt` [rad] from the vertical under gravity −y."""
    import numpy as np

    sp = ss.spatial
    m = sp.SpatialModel(gravity=(0, -9.81, 0))
    d = np.array([np.sin(tilt), -np.cos(tilt), 0.0])
    angle = np.arctan2(d[1], d[0])
    quat = (np.cos(angle / 2), 0.0, 0.0, np.sin(angle / 2))
    previous = "ground"
    for k in range(n):
        a, b = 0.1 * k * d, 0.1 * (k + 1) * d
        m.add_body(f"rod{k}", mass=0.1, inertia=(1e-7, 1e-4, 1e-4), shape=None,
                   position=(a + b) / 2, orientation=quat)
        m.add(sp.RevoluteJoint(previous, f"rod{k}", point=a, axis=(0, 0, 1), name=f"J{k}"))
        previous = f"rod{k}"
    return m
