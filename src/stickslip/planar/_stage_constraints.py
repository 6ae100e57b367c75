"""Stage functions of a :class:`~._system.PlanarSystem` for its constraints (SPEC §9): the
positions and velocities stage — Φ, Φ_q, ν = −Φ_t and γ — from one grouped evaluation of
every constraint (one ``vmap`` per group of like elements, placed in the rows the
:class:`~._layout.Layout` assigns).

Each is a pure function of the system and the state, ``f(system, q, t, …)``;
``PlanarSystem`` exposes them as methods of the same name.
"""

from __future__ import annotations

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from ._base import stack

__all__ = ["gather_rows", "kinematics_terms", "nu", "per_group", "phi", "phi_q",
           "phi_rate_and_gamma"]


def per_group(system, method, q, t, qd=None):
    """`method` of every constraint, one vmap per group: a list of (rows, output
    stacked over the members) (SPEC §9; STYLE: group by type)."""
    poses = jnp.concatenate([jnp.zeros((1, 3), dtype=q.dtype), q.reshape(-1, 3)])
    rates = None if qd is None else jnp.concatenate(
        [jnp.zeros((1, 3), dtype=qd.dtype), qd.reshape(-1, 3)])
    out = []
    for members, idx_i, idx_j, rows in system.layout.groups:
        args = (poses[idx_i], poses[idx_j]) if rates is None else \
            (poses[idx_i], poses[idx_j], rates[idx_i], rates[idx_j])
        if len(members) == 1:           # a group of one: no stacking, no vmap
            value = getattr(system.constraints[members[0]], method)(
                *(a[0] for a in args), t)
            out.append((members, idx_i, idx_j, rows,
                        jax.tree.map(lambda v: v[None], value)))
            continue
        arrays, static = eqx.partition(stack([system.constraints[k] for k in members]),
                                       eqx.is_array)

        def call(a, *z, static=static):
            return getattr(eqx.combine(a, static), method)(*z, t)
        out.append((members, idx_i, idx_j, rows, jax.vmap(call)(arrays, *args)))
    return out


def gather_rows(system, parts):
    """Stack per-group rows (k, r, …) in the order the elements were added (a static
    permutation: a gather, no scatter — shorter to compile)."""
    values = jnp.concatenate([p[4].reshape((-1,) + p[4].shape[2:]) for p in parts])
    return values[system.layout.row_order]


def phi(system, q, t):
    """Φ(q, t): all constraint rows (kinematic and driving), shape (n_rows,)."""
    if not system.constraints:
        return jnp.zeros(0, dtype=q.dtype)
    return gather_rows(system, per_group(system, "residual", q, t))


def phi_q(system, q, t):
    """Φ_q (n_rows × n_c), assembled from each element's local Jacobians (3 + 3
    columns; the revolute and translational joints read theirs from their hand-written
    ``kinematic_terms``): each member's block is placed in its bodies' columns by a
    one-hot product (static), not a scatter."""
    n_b = len(system.layout.bodies)
    if not system.constraints:
        return jnp.zeros((0, 3 * n_b), dtype=q.dtype)
    eye = np.eye(n_b + 1)
    parts = []
    for members, idx_i, idx_j, rows, (Ji, Jj) in per_group(system, "jacobians", q, t):
        block = (jnp.einsum("kb,krc->krbc", eye[idx_i], Ji)
                 + jnp.einsum("kb,krc->krbc", eye[idx_j], Jj))
        parts.append((members, idx_i, idx_j, rows, block.reshape(*block.shape[:2], -1)))
    return gather_rows(system, parts)[:, 3:]                   # drop the ground's columns


def nu(system, q, t):
    """ν = −Φ_t, the right-hand side of the velocity equation Φ_q q̇ = ν."""
    if not system.constraints:
        return jnp.zeros(0, dtype=q.dtype)
    return -gather_rows(system, per_group(system, "time_derivative", q, t))


def phi_rate_and_gamma(system, q, qd, t, J=None):
    """(Φ̇, γ) with Φ̇ = Φ_q q̇ + Φ_t and γ = −(Φ_q q̇)_q q̇ − 2Φ_qt q̇ − Φ_tt (SPEC §9),
    from one evaluation of each element's ``kinematic_terms`` (a given `J` is used as
    Φ_q; under ``jit`` the unused terms are dead code)."""
    if not system.constraints:
        return jnp.zeros(0, dtype=q.dtype), jnp.zeros(0, dtype=q.dtype)
    _, J_own, nu_, gamma = kinematics_terms(system, q, t, qd)
    J = J_own if J is None else J
    return J @ qd - nu_, gamma


def kinematics_terms(system, q, t, qd=None):
    """(Φ, Φ_q, ν, γ) from one grouped evaluation of every constraint's
    ``kinematic_terms`` (γ is for the rates `qd`; zeros when not given)."""
    n_b = len(system.layout.bodies)
    if not system.constraints:
        empty = jnp.zeros(0, dtype=q.dtype)
        return empty, jnp.zeros((0, 3 * n_b), dtype=q.dtype), empty, empty
    qd = jnp.zeros_like(q) if qd is None else qd
    eye = np.eye(n_b + 1)
    terms = per_group(system, "kinematic_terms", q, t, qd)
    phi, nu, gamma, blocks = [], [], [], []
    for members, idx_i, idx_j, rows, (r, Ji, Jj, r_t, g) in terms:
        head = (members, idx_i, idx_j, rows)
        phi.append((*head, r))
        nu.append((*head, -r_t))
        gamma.append((*head, g))
        block = (jnp.einsum("kb,krc->krbc", eye[idx_i], Ji)
                 + jnp.einsum("kb,krc->krbc", eye[idx_j], Jj))
        blocks.append((*head, block.reshape(*block.shape[:2], -1)))
    return (gather_rows(system, phi), gather_rows(system, blocks)[:, 3:],
            gather_rows(system, nu), gather_rows(system, gamma))
