"""Bodies placed exactly in touch start in contact (the volume contact's resting start).

The volume contact engages only where bodies overlap (SPEC §7 steps 1–3). A body placed at
zero depth on the ground, or on another body, therefore falls for its first step and lands
with an impact: eq. 3's target removes the landing depth in one step and leaves the body
moving up, so the next step's normal force is about half the weight. Static friction then
holds about half of what it should. A 1 kg box placed on the ground and pushed by
4 N < μ_s m g broke loose and slid on at μ_k (0.53 m in 1 s); a 1 kg box placed on another
and pushed by 4 N slid 0.047 m in 0.3 s. Started TOUCH_DEPTH into their support, they are
in contact from the first step, carry their weight at once and hold (1e-10 m).

:func:`placed_in_touch` finds each body of the model's own initial state that rests on a
face, its lowest face within TOUCH_DEPTH above an upward face of the ground or of another
body and overlapping it in plan, and lowers it by its gap plus TOUCH_DEPTH plus what its
support was lowered (a stack goes down together, each level TOUCH_DEPTH into the one
under it). A body placed slightly into its support (within round-off of the sum of the
placements, 0.15 - 0.05 = 0.09999999999999999, or by a sliver the start's overlap check
lets through) goes down with it and starts at least TOUCH_DEPTH in. A body placed higher falls, as it should; a body whose lowest point moves
toward its support lands (an impact at t0 stays one); a body on an edge or a vertex is left
as placed (it would start with a sliver TOUCH_DEPTH deep, and it does not rest anyway). A
continued run or an ``initial=`` state is taken as given (the callers do not call it).
"""

from __future__ import annotations

import numpy as np

from ._dynamics import quat_to_matrix
from ._shapes import Polyhedron
from ._volume import intersect

__all__ = ["TOUCH_DEPTH", "placed_in_touch"]

# a body of the model's own initial state whose lowest face is this close above the ground
# or above another body's upward face [m] is placed on it: it starts this deep in it
TOUCH_DEPTH = 1e-9
# an upward face: its outward normal's z component at least this (tilted by < 0.1 mrad)
_UPWARD = 1.0 - 5e-9
# resting, not side by side: the two faces overlap in plan by this much of the smaller
# body's (radius²) at least
_PLAN_OVERLAP = 1e-6


def placed_in_touch(model, X: np.ndarray, *, bodies: bool = True,
                    movable: np.ndarray | None = None) -> np.ndarray:
    """The states X (n_bodies, 13) of `model` (a `SpatialModel`) with each body placed
    exactly on the ground or on another body lowered into its support (module docstring).

    bodies: whether bodies rest on each other (False: on the ground only, as where only
    ground contacts are modelled); movable: (n_bodies,) bool, the bodies that may be moved
    (default all; a jointed body is not moved off its joints)."""
    nb = len(model.bodies)
    if nb == 0:
        return X
    polyhedral = np.array([isinstance(b.shape, Polyhedron) for b in model.bodies])
    movable = polyhedral & (True if movable is None else np.asarray(movable, bool))
    R = quat_to_matrix(X[:, 3:7])
    arms = [b.shape.vertices @ R[k].T if polyhedral[k] else np.zeros((1, 3))
            for k, b in enumerate(model.bodies)]
    lowest = np.array([X[k, 2] + arms[k][:, 2].min() for k in range(nb)])
    # a body already in its support (up to 1 % of its width: the start's overlap check
    # allows a sliver) goes down with it
    sunk = np.array([0.01 * b.shape.min_width if polyhedral[k] else 0.0
                     for k, b in enumerate(model.bodies)])
    drop = np.zeros(nb)
    for k in np.argsort(lowest, kind="stable"):
        if not movable[k]:
            continue
        foot = arms[k][:, 2] <= arms[k][:, 2].min() + TOUCH_DEPTH
        if np.sum(foot) < 3:                      # on an edge or a vertex
            continue
        point = X[k, :3] + arms[k][foot].mean(axis=0)    # the foot's centre (world)
        v_foot = X[k, 7:10] + np.cross(X[k, 10:13], point - X[k, :3])
        best = None
        if model.ground is not None:
            gap = lowest[k] - float(model.ground["height"])
            if -sunk[k] <= gap < TOUCH_DEPTH and v_foot[2] >= 0.0:
                best = max(gap + TOUCH_DEPTH, 0.0)
        for i in range(nb) if bodies else ():
            if i == k or not polyhedral[i] or not lowest[i] < lowest[k]:
                continue
            gap = _gap_on(model, X, R, i, k, lowest[k], sunk[k])
            v_top = X[i, 7:10] + np.cross(X[i, 10:13], point - X[i, :3])
            if gap is not None and v_foot[2] - v_top[2] >= 0.0:
                lowered = drop[i] + max(gap + TOUCH_DEPTH, 0.0)
                best = lowered if best is None else max(best, lowered)
        if best is not None:
            drop[k] = best
    if not np.any(drop):
        return X
    out = X.copy()
    out[:, 2] -= drop
    return out


def _gap_on(model, X, R, i, k, low_k, sunk) -> float | None:
    """How far body k's lowest face is above an upward face of body i that it overlaps in
    plan, when that is in [-sunk, TOUCH_DEPTH); else None."""
    support, body = model.bodies[i], model.bodies[k]
    normals = support.shape.normals @ R[i].T
    offsets = support.shape.offsets + normals @ X[i, :3]
    up = np.flatnonzero(normals[:, 2] >= _UPWARD)
    if up.size == 0:
        return None
    f = up[np.argmax(offsets[up] / normals[up, 2])]
    gap = low_k - offsets[f] / normals[f, 2]
    if not -sunk <= gap < TOUCH_DEPTH:
        return None
    # resting on it, not beside it: k at least TOUCH_DEPTH in overlaps i by a volume of
    # (plan overlap) · depth
    shift = np.array([0.0, 0.0, max(gap + TOUCH_DEPTH, 0.0)])
    verts = X[k, :3] - shift + body.shape.vertices @ R[k].T
    size = 2.0 * max(body.shape.radius, support.shape.radius)
    vol = intersect([verts[face] for face in body.shape.faces], (normals, offsets), size)
    smaller = min(body.shape.radius, support.shape.radius)
    if vol is None or vol.volume < _PLAN_OVERLAP * smaller**2 * TOUCH_DEPTH:
        return None
    return gap
