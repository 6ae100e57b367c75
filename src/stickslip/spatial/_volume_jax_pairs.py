"""Pairs of free bodies on the JAX volume route (SPEC §7): which could touch within a step.

With two bodies or more the JAX route solves every active contact in the joint QP
(`_volume_jax_joint`); a pair's geometry is clipped only while the bounding spheres overlap
(numba's `_volume_wrench.contact_geometries` looks at a pair only then). The swept test of
two bodies not in contact is the host loop's (`_volume_host.check_swept`): a step that
closes them by more than MAX_STEP_PENETRATION_BODIES of the thinner one's smallest width is
tunnelling. :func:`meeting_pair` names the first pair within reach (for messages and tests).
"""

from __future__ import annotations

from typing import NamedTuple

import jax.numpy as jnp
import numpy as np

from ._volume_host import MAX_STEP_PENETRATION_BODIES

__all__ = ["BodyPairs", "bodies_meet", "body_pairs", "meeting_pair"]


class BodyPairs(NamedTuple):
    """Static table of the body pairs i < j (in `SpatialModel._pairs` order): indices,
    the sum of their bounding radii [m], their radii, the thinner smallest width [m]."""

    i: np.ndarray
    j: np.ndarray
    reach: np.ndarray
    radius_i: np.ndarray
    radius_j: np.ndarray
    thin: np.ndarray


def body_pairs(model) -> BodyPairs:
    """The pair table of `model`'s bodies (empty arrays for one body)."""
    n = len(model.bodies)
    ij = [(i, j) for i in range(n) for j in range(i + 1, n)]
    i = np.array([p[0] for p in ij], dtype=np.int64)
    j = np.array([p[1] for p in ij], dtype=np.int64)
    radius = np.array([b.shape.radius for b in model.bodies], dtype=float)
    width = np.array([b.shape.min_width for b in model.bodies], dtype=float)
    return BodyPairs(i, j, radius[i] + radius[j], radius[i], radius[j],
                     np.minimum(width[i], width[j]))


def bodies_meet(X, h, pairs: BodyPairs):
    """Per pair (P,): whether the bounding spheres meet within a step of size h from state X
    (n, 13) at constant velocities, and whether that step tunnels (the host loop's swept test,
    `_volume_host.check_swept`)."""
    if len(pairs.i) == 0:
        return jnp.zeros(0, bool), jnp.zeros(0, bool)
    Xi, Xj = X[pairs.i], X[pairs.j]
    d = Xj[:, :3] - Xi[:, :3]
    u = Xj[:, 7:10] - Xi[:, 7:10]
    uu = jnp.sum(u * u, axis=1)
    du = jnp.sum(d * u, axis=1)
    s = jnp.where(uu == 0, 0.0, jnp.clip(-du / jnp.where(uu == 0, 1.0, uu), 0.0, h))
    gap = d + s[:, None] * u
    near = jnp.sqrt(jnp.sum(gap * gap, axis=1)) < pairs.reach
    dist = jnp.sqrt(jnp.sum(d * d, axis=1))
    closing = jnp.where(dist > 0, jnp.maximum(0.0, -du / jnp.where(dist > 0, dist, 1.0)),
                        jnp.sqrt(uu)) \
        + jnp.sqrt(jnp.sum(Xj[:, 10:13] ** 2, axis=1)) * pairs.radius_j \
        + jnp.sqrt(jnp.sum(Xi[:, 10:13] ** 2, axis=1)) * pairs.radius_i
    return near, near & (closing * h > MAX_STEP_PENETRATION_BODIES * pairs.thin)


def meeting_pair(model, X, h: float = 0.0) -> tuple[str, str] | None:
    """The names of the first pair of `model`'s bodies whose bounding spheres meet within a
    step of size h from state X (h = 0: overlap in X), or None."""
    pairs = body_pairs(model)
    near, _ = bodies_meet(jnp.asarray(np.asarray(X, dtype=float)), h, pairs)
    hit = np.flatnonzero(np.asarray(near))
    if not hit.size:
        return None
    k = int(hit[0])
    return model.bodies[int(pairs.i[k])].name, model.bodies[int(pairs.j[k])].name
