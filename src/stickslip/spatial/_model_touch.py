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
face: three or more of its vertices within TOUCH_DEPTH of the ground, or of a face of
another body that looks up (against gravity, up to 80° from vertical: a ramp's slope) and
that it overlaps in plan. It moves the body into its support by its gap plus TOUCH_DEPTH,
along the face's normal, plus what its support was moved (a stack goes down together, each
level TOUCH_DEPTH into the one under it). A box placed exactly on a wedge's 22° slope slid
0.11 m down it in 0.5 s with μ_s = 0.5; it now holds. A body placed slightly into its
support (within round-off of the sum of the placements, 0.15 − 0.05 = 0.09999999999999999,
or by a sliver the start's overlap check lets through) goes down with it and starts at
least TOUCH_DEPTH in. A body placed higher falls, as it should; a body whose foot moves
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

# a body of the model's own initial state whose lowest face is this close to the ground or
# to another body's face [m] is placed on it: it starts this deep in it
TOUCH_DEPTH = 1e-9
# a face a body can rest on: its outward normal at most 80° from straight up (against
# gravity; +z without gravity)
_FACING_UP = float(np.cos(np.radians(80.0)))
# resting, not side by side: the two faces overlap in plan by this much of the smaller
# body's (radius²) at least
_PLAN_OVERLAP = 1e-6


def placed_in_touch(model, X: np.ndarray, *, bodies: bool = True,
                    movable: np.ndarray | None = None) -> np.ndarray:
    """The states X (n_bodies, 13) of `model` (a `SpatialModel`) with each body placed
    exactly on the ground or on another body moved into its support (module docstring).

    bodies: whether bodies rest on each other (False: on the ground only, as where only
    ground contacts are modelled); movable: (n_bodies,) bool, the bodies that may be moved
    (default all; a jointed body is not moved off its joints)."""
    nb = len(model.bodies)
    if nb == 0:
        return X
    polyhedral = np.array([isinstance(b.shape, Polyhedron) for b in model.bodies])
    movable = polyhedral & (True if movable is None else np.asarray(movable, bool))
    R = quat_to_matrix(X[:, 3:7])
    verts = [X[k, :3] + b.shape.vertices @ R[k].T if polyhedral[k] else X[k, None, :3]
             for k, b in enumerate(model.bodies)]
    g = np.asarray(model.gravity, dtype=float)
    up = -g / np.linalg.norm(g) if np.linalg.norm(g) > 0 else np.array([0.0, 0.0, 1.0])
    # supports first: each body's lowest point along `up`
    lowest_up = np.array([np.min(v @ up) for v in verts])
    # a body already in its support (up to 1 % of its width: the start's overlap check
    # allows a sliver) goes down with it
    sunk = np.array([0.01 * b.shape.min_width if polyhedral[k] else 0.0
                     for k, b in enumerate(model.bodies)])
    shift = np.zeros((nb, 3))
    for k in np.argsort(lowest_up, kind="stable"):
        if not movable[k]:
            continue
        best = None
        if model.ground is not None:
            into = _into_face(X, verts, k, None, np.array([0.0, 0.0, 1.0]),
                              float(model.ground["height"]), sunk[k])
            if into is not None:
                best = into * np.array([0.0, 0.0, -1.0])
        for i in range(nb) if bodies else ():
            if i == k or not polyhedral[i] or not lowest_up[i] < lowest_up[k]:
                continue
            moved = _onto_body(model, X, R, verts, i, k, up, sunk[k])
            if moved is not None and (best is None or (shift[i] + moved) @ -up > best @ -up):
                best = shift[i] + moved
        if best is not None:
            shift[k] = best
    if not np.any(shift):
        return X
    out = X.copy()
    out[:, :3] += shift
    return out


def _into_face(X, verts, k, i, n, offset, sunk) -> float | None:
    """How far [m] to move body k along −n so that it starts TOUCH_DEPTH into the face
    {n·x = offset} of body i (None: the ground), when k rests on it: its three or more
    extreme vertices along −n within [−sunk, TOUCH_DEPTH) of the plane, and its foot not
    moving toward it (an impact at t0 stays one). None when it does not rest there."""
    dist = verts[k] @ n - offset
    gap = dist.min()
    foot = dist <= gap + TOUCH_DEPTH
    if not -sunk <= gap < TOUCH_DEPTH or np.sum(foot) < 3:     # on an edge or a vertex
        return None
    point = verts[k][foot].mean(axis=0)
    velocity = X[k, 7:10] + np.cross(X[k, 10:13], point - X[k, :3])
    if i is not None:
        velocity = velocity - X[i, 7:10] - np.cross(X[i, 10:13], point - X[i, :3])
    if velocity @ n < 0.0:
        return None
    return max(gap + TOUCH_DEPTH, 0.0)


def _onto_body(model, X, R, verts, i, k, up, sunk) -> np.ndarray | None:
    """The move (3,) [m] that puts body k TOUCH_DEPTH into a face of body i that it rests on
    (a face looking up, against gravity, that k overlaps in plan), or None."""
    support, body = model.bodies[i], model.bodies[k]
    normals = support.shape.normals @ R[i].T
    offsets = support.shape.offsets + normals @ X[i, :3]
    size = 2.0 * max(body.shape.radius, support.shape.radius)
    smaller = min(body.shape.radius, support.shape.radius)
    for f in np.flatnonzero(normals @ up >= _FACING_UP):
        depth = _into_face(X, verts, k, i, normals[f], offsets[f], sunk)
        if depth is None:
            continue
        # resting on it, not beside it: k moved in overlaps i by (plan overlap) · depth
        moved = verts[k] - depth * normals[f]
        vol = intersect([moved[face] for face in body.shape.faces], (normals, offsets), size)
        if vol is not None and vol.volume >= _PLAN_OVERLAP * smaller**2 * TOUCH_DEPTH:
            return -depth * normals[f]
    return None
