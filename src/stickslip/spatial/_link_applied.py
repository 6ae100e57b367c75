"""The applied generalised forces of a spatial link system (:class:`._link_system.LinkSystem`,
SPEC §7 eq. 11): Q = [m g + f; τ − ω × I_w ω] per body, with the point forces, body torques,
spring–dampers and effort drivers added to their bodies' rows."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from ._link_kinematics import mv

__all__ = ["applied_loads", "load_value"]


def load_value(const, fn, t):
    """A load's value at t: the traced constant, or the user's function of t."""
    return const if fn is None else jnp.asarray(fn(t), dtype=float) + 0.0 * const


def applied_loads(system, t, X):
    """(Q (n_b, 6), spring lengths, spring tensions) at time t and body states X: gravity,
    point forces, torques, springs, effort drivers, gyroscopic terms (world frame)."""
    layout = system.layout
    n_b = layout.n_bodies
    r, R, v, w = system.poses(X)
    _, Iw = system.inverse_inertias(X)
    F = system.masses[:, None] * system.gravity[None, :]
    T = -jnp.cross(X[:, 10:13], mv(Iw, X[:, 10:13]))
    # each load added to its body's row by a static one-hot column (elementwise: it fuses
    # with what computes the load, where a place-by-index is a step of its own); the
    # ground's column (index n_b) is dropped
    eye = np.eye(n_b + 1)[:, :n_b]

    def on(b, f):
        return jnp.asarray(eye[b], f.dtype)[:, None] * f[None, :]
    for k, (b, fn) in enumerate(layout.forces):
        f = load_value(system.force_values[k], fn, t)
        arm = mv(R[b], system.force_points[k])
        F = F + on(b, f)
        T = T + on(b, jnp.cross(arm, f))
    for k, (b, fn) in enumerate(layout.torques):
        T = T + on(b, load_value(system.torque_values[k], fn, t))
    lengths, tensions = [], []
    s = system.springs
    for k, (_, i, j) in enumerate(layout.springs):
        ai, aj = mv(R[i], s["s_i"][k]), mv(R[j], s["s_j"][k])
        d = r[j] + aj - r[i] - ai
        length = jnp.sqrt(jnp.sum(d * d) + 1e-300)
        e = d / length
        ldot = e @ ((v[j] + jnp.cross(w[j], aj)) - (v[i] + jnp.cross(w[i], ai)))
        tension = s["k"][k] * (length - s["l0"][k]) + s["c"][k] * ldot
        F = F + on(i, tension * e) + on(j, -tension * e)
        T = T + on(i, jnp.cross(ai, tension * e)) + on(j, jnp.cross(aj, -tension * e))
        lengths.append(length)
        tensions.append(tension)
    Q = jnp.concatenate([F, T], axis=1)
    for (_, jk, mode, fn, slot) in layout.drivers:
        if mode == "effort":
            Q = Q + system._effort(X, jk, load_value(system.driver_values[slot], fn, t))
    return Q, lengths, tensions
