"""Starting overlaps of a `SpatialModel` are refused: a body inside the ground or two bodies
interpenetrating by more than 1e-6 of the smaller volume raise `ModelError` naming the bodies,
the overlap volume and how far to move them (SPEC §7 eq. 3 would launch them apart). The
overlap is the general contact volume of :func:`._volume.intersect`.
"""

from __future__ import annotations

import numpy as np

from ..errors import ModelError
from ._dynamics import quat_to_matrix
from ._volume import intersect

__all__ = ["reject_overlaps"]


def reject_overlaps(model, X: np.ndarray, *, where: str = "simulate") -> None:
    """Raise `ModelError` when the bodies of `model` (a `SpatialModel`) in state `X`
    (n_bodies, 13) start interpenetrating (each other or the ground) by more than 1e-6 of
    the smaller body's volume. Checked when a run starts (not at `add_body`: the model may
    be built in any order, and `contact_geometries` of overlapping placements is a
    legitimate query). Rejected, not warned: the run's result would be wrong from its first
    step. Eq. 3 would push them apart at k·depth
    (tens of m/s for centimetres at k = 1000), and coincident bodies have no contact
    normal (eq. 2 sums to zero) and pass through each other. A resting contact
    (penetration λ g Δt / k ≈ 1e-8 m) is far below the threshold."""
    if len(model.bodies) == 0:
        return
    R = quat_to_matrix(X[:, 3:7])
    verts = [X[i, :3] + b.shape.vertices @ R[i].T for i, b in enumerate(model.bodies)]
    for j, body in enumerate(model.bodies):
        tol = 1e-6 * body.shape.volume
        if model.ground is not None:
            h = model.ground["height"]
            depth = h - verts[j][:, 2].min()
            if depth > 0:
                vol = intersect([verts[j][f] for f in body.shape.faces],
                                (np.array([[0.0, 0.0, 1.0]]), np.array([h])),
                                2.0 * body.shape.radius)
                v = 0.0 if vol is None else vol.volume
                if v > tol:
                    raise ModelError(
                        f"body {body.name!r} starts {depth:.4g} m inside the ground "
                        f"(overlap volume {v:.3g} m^3, {v / body.shape.volume:.2%} of the "
                        f"body; checked at `{where}`): eq. 3 would launch it at about "
                        f"k·depth = {model.k * depth:.3g} m/s. Raise its position z by "
                        f"{depth:.4g} m (to rest on the ground: its lowest point at "
                        f"z = {h}).")
        for i in range(j):
            other = model.bodies[i]
            gap = np.linalg.norm(X[i, :3] - X[j, :3])
            if gap >= body.shape.radius + other.shape.radius:
                continue
            nw = other.shape.normals @ R[i].T
            vol = intersect([verts[j][f] for f in body.shape.faces],
                            (nw, other.shape.offsets + nw @ X[i, :3]),
                            2.0 * max(body.shape.radius, other.shape.radius))
            v = 0.0 if vol is None else vol.volume
            if v > 1e-6 * min(body.shape.volume, other.shape.volume):
                assert vol is not None, "v > 0 only where the bodies intersect"
                u = X[j, :3] - X[i, :3]
                u = u / gap if gap > 1e-12 else np.array([0.0, 0.0, 1.0])
                proj = np.concatenate(vol.faces) @ u
                raise ModelError(
                    f"bodies {other.name!r} and {body.name!r} start overlapping (overlap "
                    f"volume {v:.3g} m^3{', coincident centres' if gap <= 1e-12 else ''}; "
                    f"checked at `{where}`): eq. 3 would push them apart at tens of m/s "
                    "(or, coincident, see no contact at all). Move them apart: e.g. "
                    f"{body.name!r} by {np.ptp(proj):.4g} m along "
                    f"{np.round(u, 4).tolist()}.")
