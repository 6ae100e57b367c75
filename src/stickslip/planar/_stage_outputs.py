"""Stage functions of a :class:`~._system.PlanarSystem` for what a run reports: the joints'
reactions from the multipliers (SPEC §9: F = −Φ_rᵀλ, T = (s'ᵀBᵀΦ_rᵀ − Φ_φᵀ)λ, all joints at
once), the named channels at one instant and the outputs of the vector field's state.

Each is a pure function of the system and the state; ``PlanarSystem`` exposes the public
ones (``reactions``, ``channels``, ``outputs``) as methods of the same name.
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp

from .._compile.traced_once import computed_where
from ._layout import _COORDS

__all__ = ["channels", "outputs", "outputs_of", "reactions", "vector_field_and_outputs",
           "wrenches"]


def outputs(system, t, x):
    """The output channels at the state x = [q; q̇; s] (``AbstractSystem.outputs``): the
    :func:`channels` without the state, the friction and contact forces, and the largest
    position and velocity constraint violations."""
    n = system.layout.n_coordinates
    q, qd, s = x[:n], x[n:2 * n], x[2 * n:]
    return outputs_of(system, t, q, qd, s, system.dynamics(t, q, qd, s))


def vector_field_and_outputs(system, t, x, want=True):
    """(ẋ, :func:`outputs`) from one evaluation of the dynamics (``samples_in_stages``):
    the outputs' own part (reactions, force elements, energy) under ``lax.cond`` only where
    the traced bool `want` holds, zeros elsewhere."""
    n = system.layout.n_coordinates
    q, qd, s = x[:n], x[n:2 * n], x[2 * n:]
    d = system.dynamics(t, q, qd, s)
    def own(t, q, qd, s, d):
        return outputs_of(system, t, q, qd, s, d)

    out = computed_where(want, own, t, q, qd, s, d)
    return jnp.concatenate([qd, d.qdd, d.s_rate]), out


def outputs_of(system, t, q, qd, s, d):
    """:func:`outputs` from the dynamics `d` already evaluated at (t, q, q̇, s)."""
    out = system.channels(t, q, qd, d.qdd, d.lam, include_state=False, J=d.J, s=s)
    for k, f in enumerate(system.frictions):
        out[f"{f.name}.friction"] = d.friction[k]
        out[f"{f.name}.normal"] = d.normal[k]
        if f.reports_force:
            out[f"{f.name}.force"] = d.friction[k]
    start = 0
    for c in system.contacts:
        f = d.contact[start:start + c.n_gaps]
        start += c.n_gaps
        out[f"{c.name}.force"] = f[0] if c.n_gaps == 1 else jnp.sum(f)
    out["constraint.position"] = (jnp.max(jnp.abs(d.phi)) if d.phi.size
                                  else jnp.zeros(()))
    out["constraint.velocity"] = (jnp.max(jnp.abs(d.rate)) if d.rate.size
                                  else jnp.zeros(()))
    return out


def wrenches(system, q, J, lams, table):
    """Reactions of the joints in `table` (indices, slots of body i and of the reacting
    body b, sign, padded rows; see ``Layout._reaction_table``) on their body i for the
    multiplier columns `lams` (m × k): ground-frame force and torque about point_i,
    shape (n, 3, k), and the joint frames' angles (n,). F = −Φ_rᵀλ,
    T = (s'ᵀBᵀΦ_rᵀ − Φ_φᵀ)λ (SPEC §9), from the rows' generalised forces −Φ_qᵀλ
    summed per joint on body i (or, when body i is the ground, on body j, moved to
    point_i and reversed) — all joints at once."""
    members, idx_i, idx_b, sign, rows = table
    n_b = len(system.layout.bodies)
    G = jnp.concatenate([jnp.zeros((J.shape[0], 3), J.dtype), J], axis=1)
    G = -G[:, :, None] * lams[:, None, :]
    G = jnp.concatenate([G, jnp.zeros((1,) + G.shape[1:], J.dtype)])  # the padding row
    w = G.reshape(G.shape[0], n_b + 1, 3, -1)[rows, idx_b[:, None]].sum(axis=1)
    poses = jnp.concatenate([jnp.zeros((1, 3), dtype=q.dtype), q.reshape(-1, 3)])
    qi, qb = poses[idx_i], poses[idx_b]
    joints = [system.constraints[k] for k in members]
    point = jnp.stack([c.point_i for c in joints])
    frame = jnp.stack([jnp.asarray(c.frame_i, dtype=q.dtype) for c in joints])
    c, s = jnp.cos(qi[:, 2]), jnp.sin(qi[:, 2])
    arm = qi[:, :2] - qb[:, :2] + jnp.stack([c * point[:, 0] - s * point[:, 1],
                                             s * point[:, 0] + c * point[:, 1]], axis=1)
    torque = w[:, 2] - (arm[:, 0:1] * w[:, 1] - arm[:, 1:2] * w[:, 0])
    wrench = sign[:, None, None] * jnp.concatenate([w[:, :2], torque[:, None]], axis=1)
    return wrench, qi[:, 2] + frame


def reactions(system, q, J, lam):
    """Reaction of every kinematic joint on its body i in the joint's frame (SPEC §9):
    {constraint index: (Fx, Fy, T)}."""
    if system.layout.reaction_table is None:
        return {}
    wrench, angle = wrenches(system, q, J, lam[:, None], system.layout.reaction_table)
    fx, fy, torque = wrench[:, 0, 0], wrench[:, 1, 0], wrench[:, 2, 0]
    c, s = jnp.cos(angle), jnp.sin(angle)
    local = jnp.stack([c * fx + s * fy, c * fy - s * fx, torque], axis=1)
    return {k: (local[r, 0], local[r, 1], local[r, 2])
            for r, k in enumerate(system.layout.reaction_table[0])}


def channels(system, t, q, qd, qdd, lam, include_state=True, J=None,
             s=None) -> dict[str, Any]:
    """Every named channel at one instant: poses, rates, accelerations, reactions (in
    each joint's frame on body i, SPEC §9), driver efforts, force-element values,
    energy."""
    out: dict[str, Any] = {}
    for k, b in enumerate(system.layout.bodies):
        for c_idx, c in enumerate(_COORDS):
            if include_state:
                out[f"{b.name}.{c}"] = q[3 * k + c_idx]
                out[f"{b.name}.{c}d"] = qd[3 * k + c_idx]
    for k, b in enumerate(system.layout.bodies):
        for c_idx, c in enumerate(_COORDS):
            out[f"{b.name}.{c}dd"] = qdd[3 * k + c_idx]
    J = system.phi_q(q, t) if J is None else J
    reactions = system.reactions(q, J, lam)
    for k, (c, (a, _)) in enumerate(zip(system.constraints, system.layout.rows)):
        if c.is_driver:
            out[f"{c.name}.effort"] = -lam[a]
            continue
        out[f"{c.name}.Fx"], out[f"{c.name}.Fy"], out[f"{c.name}.T"] = reactions[k]
    _, reported = system.applied(q, qd, t)
    for f, value in zip(system.forces, reported):
        out[f"{f.name}.force"] = value
    out["energy"] = system.energy(q, qd, s)
    return out
