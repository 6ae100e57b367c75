"""Stage functions of a :class:`~._system.PlanarSystem` for its joint friction (see
``_friction``): the slide Jacobians and joint geometry per friction group, the joints'
reactions as an affine map of the friction forces, and the laws evaluated on them — what the
reaction ↔ friction Newton loop of :func:`._stage_solve.dynamics` iterates on.

Each is a pure function of the system and the state; ``PlanarSystem`` exposes the public
ones (``slide_jacobian``, ``friction_normals``) as methods of the same name.
"""

from __future__ import annotations

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from ._base import stack
from ._stage_outputs import wrenches

__all__ = ["friction_geometry", "friction_laws", "friction_normals", "friction_wrenches",
           "slide_jacobian"]


def friction_geometry(system, q):
    """Per friction group (one vmap each): the stacked elements, the rows of ∂s/∂q
    (from each joint's ``slide``), and the joint frame's angle and d_ij the normal
    force needs."""
    poses = jnp.concatenate([jnp.zeros((1, 3), dtype=q.dtype), q.reshape(-1, 3)])
    n_b = len(system.layout.bodies)
    eye = np.eye(n_b + 1)
    parts = []
    for members, idx_i, idx_j, idx_b, sign, rows in system.layout.friction_groups:
        group = stack([system.frictions[k] for k in members])
        arrays, static = eqx.partition(group, eqx.is_array)

        def local(a, qi, qj):
            f = eqx.combine(a, static)
            ds_i, ds_j = f.slide_jacobians(qi, qj)
            return ds_i, ds_j, qi[2] + f.joint.frame_i, f.joint._d(qi, qj)

        ds_i, ds_j, angle, d_ij = jax.vmap(local)(arrays, poses[idx_i], poses[idx_j])
        W = (jnp.einsum("kb,kc->kbc", eye[idx_i], ds_i)
             + jnp.einsum("kb,kc->kbc", eye[idx_j], ds_j)).reshape(len(members), -1)
        parts.append({"arrays": arrays, "static": static, "W": W[:, 3:], "angle": angle,
                      "d": d_ij})
    return parts


def friction_wrenches(system, q, J, lams):
    """Each friction's joint reaction on body i (ground-frame force, torque about
    point_i) for the multiplier columns `lams` (m × k): shape (n_f, 3, k), group
    order. Linear in λ, so with λ = λ₀ + L f the loop's reactions are an affine map
    of f computed once."""
    return wrenches(system, q, J, lams, system.layout.friction_table)[0]


def friction_laws(system, parts, s, v, wrenches):
    """``evaluate(f)``: at the friction forces `f` (n_f,), the joint reactions
    ``wrenches[:, :, 0] + wrenches[:, :, 1:] @ f`` and from them, in group order: the
    forces g(f) the laws give, the Jacobian ∂g/∂f (n_f × n_f), the normal forces and
    the law state rates (law-group order). The normal force and its derivative with
    respect to the reaction come from one vmap per friction group (forward mode, three
    tangents); the laws from one vmap per law group (same law class and structure,
    whatever the joint: the pins' and the slider's CoulombODE together), with
    ∂force/∂N by one forward-mode tangent — a law sees the reaction only through N."""
    normal_groups, bounds, start = [], [], 0
    for p in parts:
        static = p["static"]

        def normal(arr, w, angle, d, static=static):
            def h(w):
                n = eqx.combine(arr, static).normal(w[:2], w[2], angle, d)
                return n, n
            return jax.jacfwd(h, has_aux=True)(w)[::-1]
        normal_groups.append((normal, p))
        bounds.append((start, start + p["W"].shape[0]))
        start += p["W"].shape[0]
    viscous = jnp.concatenate([jnp.reshape(p["arrays"].viscous, (-1,)) for p in parts])
    law_groups = []
    in_group_order = [k for g in system.layout.friction_groups for k in g[0]]
    for positions, slots in system.layout.law_groups:
        laws = [system.frictions[in_group_order[pos]].law for pos in positions]
        arrays, static = eqx.partition(laws[0], eqx.is_array)
        stacked = jax.tree.map(lambda *x: jnp.stack(x),
                               *[eqx.filter(law, eqx.is_array) for law in laws])
        law_groups.append((stacked, static, positions, s[slots], v[positions]))
    wrench0, dwrench = wrenches[:, :, 0], wrenches[:, :, 1:]

    def evaluate(f):
        wrench = wrench0 + dwrench @ f
        normals, dnormals = [], []
        for (normal, p), (a, b) in zip(normal_groups, bounds):
            n, dn = jax.vmap(normal)(p["arrays"], wrench[a:b], p["angle"], p["d"])
            normals.append(n)
            dnormals.append(dn)
        normals, dnormals = jnp.concatenate(normals), jnp.concatenate(dnormals)
        forces, slopes, rates = [], [], []
        for stacked, static, positions, state, vk in law_groups:
            def law(arr, state, vk, n, static=static):
                def force_and_rate(n):
                    return eqx.combine(arr, static).force_and_rate(state, vk, n)
                (force, rate), (slope, _) = jax.jvp(force_and_rate, (n,),
                                                    (jnp.ones_like(n),))
                return force, slope, jnp.reshape(rate, (-1,))
            force, slope, rate = jax.vmap(law)(stacked, state, vk, normals[positions])
            forces.append(force)
            slopes.append(slope)
            rates.append(rate.reshape(-1))
        order = system.layout.law_order
        force = jnp.concatenate(forces)[order]
        slope = jnp.concatenate(slopes)[order]
        value = force - viscous * v
        jac = jnp.einsum("kw,kwf->kf", slope[:, None] * dnormals, dwrench)
        return value, jac, normals, jnp.concatenate(rates)
    return evaluate


def slide_jacobian(system, q):
    """∂s/∂q of the frictions' relative coordinates s_k(q) (each joint's ``slide``),
    shape (n_f × n_c), in the order of ``frictions``."""
    parts = friction_geometry(system, q)
    return jnp.concatenate([p["W"] for p in parts])[system.layout.friction_order]


def friction_normals(system, q, J, lam):
    """Normal force each friction law sees at the multipliers `lam` (order of
    ``frictions``)."""
    parts = friction_geometry(system, q)
    wrench = friction_wrenches(system, q, J, lam[:, None])[:, :, 0]
    out = []
    for p, w in zip(parts, jnp.split(wrench, np.cumsum([x["W"].shape[0]
                                                         for x in parts])[:-1])):
        static = p["static"]

        def normal(arr, w, angle, d):
            return eqx.combine(arr, static).normal(w[:2], w[2], angle, d)
        out.append(jax.vmap(normal)(p["arrays"], w, p["angle"], p["d"]))
    return jnp.concatenate(out)[system.layout.friction_order]
