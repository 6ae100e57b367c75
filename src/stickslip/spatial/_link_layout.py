"""The static side of a frozen spatial link system: its topology (`LinkLayout`) and the
bundles of per-element arrays the traced stages read (`JointArrays`, `SpringArrays`,
`ContactArrays`). Built by :mod:`._link_build`; read by :mod:`._link_system`.
"""

from __future__ import annotations

from typing import Any, NamedTuple, cast

import numpy as np

from ._elements import JOINT_ROW_COUNTS

__all__ = ["LinkLayout", "JointArrays", "SpringArrays", "ContactArrays", "STATE", "UNITS"]

STATE = ("x", "y", "z", "qw", "qx", "qy", "qz", "vx", "vy", "vz", "wx", "wy", "wz")
UNITS = ("m", "m", "m", "-", "-", "-", "-", "m/s", "m/s", "m/s", "rad/s", "rad/s",
          "rad/s")


class _JointArrays(NamedTuple):
    """Per joint (stacked): anchors s_i, s_j [m] in the body frames; frame_i, frame_j: the
    columns (u, e₁, e₂) of the joint frame in each body frame; C = R_i0ᵀ R_j0."""

    s_i: Any
    s_j: Any
    frame_i: Any
    frame_j: Any
    C: Any


class _SpringArrays(NamedTuple):
    """Per spring–damper: k [N/m], c [N·s/m], l0 [m], anchors s_i, s_j (body frames)."""

    k: Any
    c: Any
    l0: Any
    s_i: Any
    s_j: Any


class _ContactArrays(NamedTuple):
    """Per contact: a vertex of body b (body frame) [m], radii of a and b [m], half extents
    of box a [m], the ground height [m], the kinetic μ [-], the static μ_s [-] and the
    Stribeck velocity over which the bound falls from μ_s to μ [m/s]."""

    point: Any
    radius_a: Any
    radius_b: Any
    half_a: Any
    height: Any
    mu: Any
    mu_s: Any
    v_stribeck: Any


class _ByName:
    """Item access by field name too (``a["s_i"]``), else by position (mixed into the
    NamedTuples below)."""

    __slots__ = ()

    def __getitem__(self, key: str | int | slice) -> Any:
        if isinstance(key, str):
            return getattr(self, key)
        return tuple.__getitem__(cast(tuple, self), key)


class JointArrays(_ByName, _JointArrays):
    __doc__ = _JointArrays.__doc__
    __slots__ = ()


class SpringArrays(_ByName, _SpringArrays):
    __doc__ = _SpringArrays.__doc__
    __slots__ = ()


class ContactArrays(_ByName, _ContactArrays):
    __doc__ = _ContactArrays.__doc__
    __slots__ = ()


class LinkLayout:
    """Static topology of a frozen model (compared by value: a model frozen again with the
    same structure reuses the compiled run).

    bodies: names. joints: (name, kind, i, j) with i, j body indices (n_b: the ground).
    joint_groups: (kind, member indices). rows: (start, stop) of each joint's rows in the
    full row list. drivers: (name, joint index, mode, callable or None, slot in the
    constants). kept: the independent rows (joints then drivers) after redundancy
    removal, holonomic: which kept rows have a position-level Φ. frictions: (joint index,
    state slice). forces: (body, callable or None) for point forces, torques alike.
    springs: (name, i, j). contacts: (name, kind, a, b, group) and contact_groups:
    (kind, member indices).
    """

    def __init__(self, *, name, bodies, joints, drivers, kept, holonomic, frictions,
                 law_state_names, forces, torques, springs, contacts, formulation,
                 redundant):
        self.name = name
        self.bodies = tuple(bodies)
        self.joints = tuple(joints)
        groups: dict = {}
        for k, (_, kind, _, _) in enumerate(self.joints):
            if kind != "FreeJoint":
                groups.setdefault(kind, []).append(k)
        self.joint_groups = tuple((kind, tuple(m)) for kind, m in groups.items())
        self.drivers = tuple(drivers)
        self.kept = np.asarray(kept, dtype=int)
        self.holonomic = np.asarray(holonomic, dtype=bool)
        self.frictions = tuple(frictions)
        self.law_state_names = tuple(law_state_names)
        self.forces = tuple(forces)
        self.torques = tuple(torques)
        self.springs = tuple(springs)
        self.contacts = tuple(contacts)
        cgroups: dict = {}
        for k, c in enumerate(self.contacts):
            cgroups.setdefault(c[1], []).append(k)
        self.contact_groups = tuple((kind, tuple(m)) for kind, m in cgroups.items())
        self.formulation = formulation
        self.redundant = tuple(redundant)
        starts, start = [], 0
        for (_, kind, _, _) in self.joints:
            starts.append((start, start + JOINT_ROW_COUNTS[kind]))
            start += JOINT_ROW_COUNTS[kind]
        self.rows = tuple(starts)
        self.n_joint_rows = start
        self.n_rows = start + sum(1 for d in self.drivers if d[2] != "effort")
        self.n_law_states = len(self.law_state_names)
        # revolute joints carry their angle as a state (unwrapped; module docstring)
        self.revolutes = tuple(k for k, j in enumerate(self.joints) if j[1] == "RevoluteJoint")
        # with contacts, the time spent with an unsolved λ-problem is a state (module docstring)
        self._key = (self.name, self.bodies, self.joints, self.drivers,
                     tuple(self.kept.tolist()), tuple(self.holonomic.tolist()),
                     self.frictions, self.law_state_names, self.forces, self.torques,
                     self.springs, self.contacts, self.formulation, self.redundant)

    @property
    def n_bodies(self) -> int:
        return len(self.bodies)

    def state_names(self) -> tuple[str, ...]:
        names = [f"{b}.{c}" for b in self.bodies for c in STATE]
        return (tuple(names) + self.law_state_names
                + tuple(f"{self.joints[k][0]}.angle" for k in self.revolutes)
                + (("contact.unsolved_time",) if self.contacts else ()))

    def units(self) -> dict[str, str]:
        out = {f"{b}.{c}": u for b in self.bodies for c, u in zip(STATE, UNITS)}
        for (name, kind, _, _) in self.joints:
            if kind == "RevoluteJoint":
                out.update({f"{name}.angle": "rad", f"{name}.rate": "rad/s",
                            f"{name}.friction": "N·m", f"{name}.normal": "N·m"})
            elif kind == "PrismaticJoint":
                out.update({f"{name}.position": "m", f"{name}.rate": "m/s",
                            f"{name}.friction": "N", f"{name}.normal": "N"})
            out.update({f"{name}.f{c}": "N" for c in "xyz"})
            out.update({f"{name}.t{c}": "N·m" for c in "xyz"})
        for (name, _, _, _, _) in self.contacts:
            out.update({f"{name}.gap": "m", f"{name}.fn": "N", f"{name}.ft": "N"})
        for (name, _, _) in self.springs:
            out.update({f"{name}.length": "m", f"{name}.tension": "N"})
        out.update({"energy": "J", "constraint.position": "m", "constraint.velocity": "m/s",
                    "contact.unsolved_time": "s", "contact.status": "-"})
        return out


    def __hash__(self) -> int:
        return hash(self._key)

    def __eq__(self, other) -> bool:
        return self is other or (type(other) is LinkLayout and other._key == self._key)

    def __stickslip_key__(self):
        """What ``__eq__`` compares (by value; callables by identity), for the stored-program
        fingerprint (:mod:`stickslip.integrate._fingerprint`): a model frozen again with the
        same structure reuses the compiled run."""
        return self._key
