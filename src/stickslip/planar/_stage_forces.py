"""Stage functions of a :class:`~._system.PlanarSystem` for its applied forces: gravity and
the force elements (Q^A), the energy, and the contact-law stops' gaps, forces and law-state
rates (SPEC §9, SPEC §3 eq. 15).

Each is a pure function of the system and the state, ``f(system, q, qd, …)``;
``PlanarSystem`` exposes them as methods of the same name.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from ._friction import stored_energy

__all__ = ["applied", "contact_terms", "element_force", "energy", "gaps"]


def element_force(system, f, q, qd, t):
    """The generalised force Q (n_c,) of one force element `f` and its reported value."""
    bodies = f.bodies()
    gen, value = f.generalized_force([system._pose(q, b) for b in bodies],
                                     [system._pose(qd, b) for b in bodies], t)
    Q = jnp.zeros(system.layout.n_coordinates, dtype=q.dtype)
    for b, g in zip(bodies, gen):
        if not b.is_ground:
            k = system.layout.index[id(b)]
            Q = Q.at[3 * k: 3 * k + 3].add(g)
    return Q, value


def applied(system, q, qd, t):
    """Q^A (gravity, force elements) and the force elements' reported values."""
    n_b = len(system.layout.bodies)
    weight = system.masses.reshape(n_b, 3)[:, 0:1] * system.gravity[None, :]
    Q = jnp.concatenate([weight, jnp.zeros((n_b, 1))], axis=1).reshape(-1)
    reported = []
    for f in system.forces:
        Q_f, value = system.element_force(f, q, qd, t)
        Q = Q + Q_f
        reported.append(value)
    return Q, reported


def energy(system, q, qd, s=None):
    """Kinetic + gravitational + spring energy [J] (+ energy stored in the friction
    laws' springs when their states `s` are given)."""
    n_b = len(system.layout.bodies)
    kinetic = 0.5 * jnp.sum(system.masses * qd ** 2)
    r = q.reshape(n_b, 3)[:, :2]
    m = system.masses.reshape(n_b, 3)[:, 0]
    potential = -jnp.sum(m * (r @ system.gravity))
    for f in system.forces:
        potential = potential + f.potential([system._pose(q, b) for b in f.bodies()])
    if s is not None:
        for f, (a, b) in zip(system.frictions, system.layout.friction_slots):
            potential = potential + stored_energy(f.law, s[a:b])
    return kinetic + potential


def gaps(system, q, stops):
    """Stacked gap rows g(q) of `stops` (empty stops: shape (0,))."""
    if not stops:
        return jnp.zeros(0)
    return jnp.concatenate([c.gaps(lambda b: system._pose(q, b)) for c in stops])


def contact_terms(system, q, qd, s):
    """(Q of the contact-law stops, their forces, their law state rates)."""
    n = system.layout.n_coordinates
    if not system.contacts:
        return jnp.zeros(n), jnp.zeros(0), jnp.zeros(0)
    Q, forces, rates = jnp.zeros(n), [], []
    for c, (a, b) in zip(system.contacts, system.layout.contact_slots):
        def gap(z, c=c):
            return c.gaps(lambda body: system._pose(z, body))
        g, gd = jax.jvp(gap, (q,), (qd,))
        G = jax.jacfwd(gap)(q)
        state = s[a:b].reshape(c.law.n_states, c.n_gaps)
        f, r = jax.vmap(c.law.force_and_rate, in_axes=(1, 0, 0), out_axes=(0, 1))(
            state, g, gd)
        Q = Q + G.T @ f
        forces.append(f)
        rates.append(jnp.reshape(r, (-1,)))
    return Q, jnp.concatenate(forces), jnp.concatenate(rates)
