"""The output channels of a 3-D link system (:class:`._link_system.LinkSystem`): what a
run records at a sample, from one evaluation of the λ-stage."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from ..errors import ModelError
from ._link_kinematics import joint_coordinate

__all__ = ["link_channels"]


class _Channels(dict):
    """The channels by name, refusing a name given twice: an element named like one of the
    run's own channels ("energy", "constraint.position", "contact.status") would otherwise
    replace it, or be replaced, without a word."""

    def __setitem__(self, name, value):
        if name in self:
            raise ModelError(f"two output channels are named {name!r}: an element's name "
                             f"({name.split('.')[0]!r}) clashes with another channel. "
                             "Rename the joint, spring or contact.")
        super().__setitem__(name, value)


def link_channels(system, x, X, d):
    """The output channels of a link system at one evaluation `d` of its λ-stage
    (:meth:`LinkSystem.outputs`): energy, joint coordinates, rates and reactions (the
    torque about the joint point), joint friction, contact gaps and forces, springs, and
    the constraint residuals."""
    layout = system.layout
    r, R, v, w = system.poses(X)
    out = _Channels(energy=system.energy(X))
    friction_of = {jk: k for k, (jk, _) in enumerate(layout.frictions)}
    for jk, (name, kind, i, j) in enumerate(layout.joints):
        if kind == "FreeJoint":
            continue
        a = jax.tree.map(lambda z: z[jk], system.joint_arrays)
        if kind in ("RevoluteJoint", "PrismaticJoint"):
            def coord(A, B, C, D, a=a, kind=kind):
                return joint_coordinate(kind, A, B, C, D, a)
            W = system.slide_rows(X, [jk])[0]
            if kind == "PrismaticJoint":         # a revolute's angle is a state
                out[f"{name}.position"] = coord(r[i], R[i], r[j], R[j])
            out[f"{name}.rate"] = W @ X[:, 7:13].reshape(-1)
        F, T = system.joint_reactions(X, jk, d["rows"], d["lam"])
        # torque about the joint point instead of body j's centre of mass
        point = r[i] + R[i] @ a["s_i"]
        body = r[j] if j < layout.n_bodies else r[i]
        T = T - jnp.cross(point - body, F)
        for c, val in zip("xyz", F):
            out[f"{name}.f{c}"] = val
        for c, val in zip("xyz", T):
            out[f"{name}.t{c}"] = val
        if jk in friction_of:
            k = friction_of[jk]
            out[f"{name}.friction"] = d["friction"][k]
            out[f"{name}.normal"] = d["normal"][k]
            out[f"{name}.slip"] = d["slip"][k] - _proxy_rate(system, k, d)
    if layout.contacts:
        out["contact.status"] = d["status"].astype(x.dtype)
    for k, (name, _, _, _, _) in enumerate(layout.contacts):
        lam = d["contact"][3 * k:3 * k + 3]
        out[f"{name}.gap"] = d["psi"][k]
        out[f"{name}.fn"] = lam[2]
        out[f"{name}.ft"] = jnp.sqrt(lam[0] ** 2 + lam[1] ** 2 + 1e-300)
    for k, (name, _, _) in enumerate(layout.springs):
        out[f"{name}.length"] = d["lengths"][k]
        out[f"{name}.tension"] = d["tensions"][k]
    out["constraint.position"] = (jnp.max(jnp.abs(d["phi"][layout.holonomic]))
                                  if layout.holonomic.any() else jnp.zeros(()))
    out["constraint.velocity"] = (jnp.max(jnp.abs(d["rate"])) if d["rate"].size
                                  else jnp.zeros(()))
    return dict(out)


def _proxy_rate(system, k, d):
    """The friction law's proxy rate ȧ where it has one (CoulombODE: the slip is
    ṡ − ȧ, exactly 0 while stuck), else 0."""
    _, (lo, hi) = system.layout.frictions[k]
    names = system.layout.law_state_names[lo:hi]
    if names and names[0].endswith(".a"):
        return d["s_rate"][lo]
    return jnp.zeros(())
