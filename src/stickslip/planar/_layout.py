"""The static topology of a planar mechanism: :class:`Layout`.

Bodies, the constraint rows each element fills, the groups of like elements (each evaluated
by one ``vmap``), the joints' reaction tables and the friction and contact laws' state slots
— integer index arrays computed once on the host when :meth:`Model.system` freezes a model
(MJX's static model: topology as index tables). :class:`~._system.PlanarSystem` holds it as
a static field; the stage functions (``_stage_*``) read it.
"""

from __future__ import annotations

import dataclasses

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from ._base import group_key
from ._body import Body

__all__ = ["Layout"]


_COORDS = ("x", "y", "phi")


class Layout:
    """Static topology of a model: bodies, constraint rows, groups, law-state slots
    (hashed by identity: a compiled run is reused while the model's structure does not
    change). Its elements are the host copies, for names and messages."""

    def __init__(self, name, bodies, constraints, forces, frictions=(), contacts=()):
        self.name = name
        self.bodies = tuple(bodies)
        self.constraints = tuple(constraints)
        self.forces = tuple(forces)
        self.frictions = tuple(frictions)
        self.contacts = tuple(contacts)
        self.index = {id(b): k for k, b in enumerate(self.bodies)}
        # friction k: (index of its joint in `constraints`, slice of its law states)
        self.friction_joint = tuple(next(i for i, c in enumerate(self.constraints)
                                         if c.name == f.joint.name) for f in self.frictions)
        slots, start = [], 0
        for f in self.frictions:
            slots.append((start, start + f.law.n_states))
            start += f.law.n_states
        self.friction_slots = tuple(slots)
        self.n_friction_states = start
        slots = []
        for c in self.contacts:
            slots.append((start, start + c.law.n_states * c.n_gaps))
            start += c.law.n_states * c.n_gaps
        self.contact_slots = tuple(slots)
        self.n_law_states = start
        self.has_laws = bool(self.frictions or self.contacts)
        rows, start = [], 0
        for c in self.constraints:
            rows.append((start, start + c.n_equations))
            start += c.n_equations
        self.rows = tuple(rows)
        self.n_rows = start
        self.n_kinematic = sum(c.n_equations for c in self.constraints if not c.is_driver)
        self.n_coordinates = 3 * len(self.bodies)
        self.groups = self._group()
        self.reaction_table = self._reaction_table(
            [k for k, c in enumerate(self.constraints) if not c.is_driver])
        self.friction_groups, self.friction_order = self._group_frictions()
        self.friction_table = self._reaction_table(   # the frictions' joints, group order
            [self.friction_joint[k] for g in self.friction_groups for k in g[0]])
        self.law_groups, self.law_order, self.law_state_order = self._group_laws()
        self._key = self._signature()

    def _signature(self):
        """Everything the traced code reads from the layout, by value: body names and,
        per element, its class, name, static configuration, array shapes and bodies."""
        def element(e):
            refs = tuple(getattr(e, f.name).name for f in dataclasses.fields(e)
                         if f.metadata.get("static", False)
                         and isinstance(getattr(e, f.name), Body))
            return (e.name, group_key(e), refs)
        return (self.name, tuple(b.name for b in self.bodies),
                *(tuple(element(e) for e in group) for group in
                  (self.constraints, self.forces, self.frictions, self.contacts)))

    def __eq__(self, other) -> bool:
        return self is other or (type(other) is Layout and other._key == self._key)

    def __hash__(self) -> int:
        return hash(self._key)

    def __stickslip_key__(self):
        """What ``__eq__`` compares, for the stored-program fingerprint
        (:mod:`stickslip.integrate._fingerprint`)."""
        return self._key

    def slot(self, body) -> int:
        """Row of `body` in the padded pose table (0: the ground)."""
        return 0 if body.is_ground else self.index[id(body)] + 1

    def _group(self):
        """Constraint groups (same `group_key`), each evaluated by one vmap: member
        indices, pose-table slots of bodies i and j, and the rows of Φ they fill."""
        keyed: dict = {}
        for k, c in enumerate(self.constraints):
            keyed.setdefault(group_key(c), []).append(k)
        groups, order = [], []
        for members in keyed.values():
            elements = [self.constraints[k] for k in members]
            idx_i = np.array([self.slot(e.body_i) for e in elements])
            idx_j = np.array([self.slot(e.body_j) for e in elements])
            rows = np.array([np.arange(*self.rows[k]) for k in members])
            groups.append((tuple(members), idx_i, idx_j, rows))
            order.extend(rows.reshape(-1))
        self.row_order = np.empty(len(order), dtype=int)      # group order → addition order
        self.row_order[np.asarray(order, dtype=int)] = np.arange(len(order))
        return tuple(groups)

    def _reacting(self, joints):
        """Pose-table slots of the body each joint's reaction is computed on (body i, or
        body j when body i is the ground) and the sign that turns it into the reaction on
        body i."""
        on_j = np.array([c.body_i.is_ground for c in joints])
        idx = np.array([self.slot(c.body_j if g else c.body_i) for c, g in zip(joints, on_j)])
        return idx, np.where(on_j, -1.0, 1.0)

    def _reaction_table(self, members):
        """Index tables of the joints `members` for :func:`._stage_outputs.wrenches`: their
        indices, pose-table slots of body i and of the reacting body b, the sign, and
        their rows of Φ padded with `n_rows` (a zero row) to the longest joint."""
        if not members:
            return None
        joints = [self.constraints[k] for k in members]
        idx_b, sign = self._reacting(joints)
        width = max(c.n_equations for c in joints)
        rows = np.full((len(members), width), self.n_rows)
        for r, k in enumerate(members):
            a, z = self.rows[k]
            rows[r, :z - a] = np.arange(a, z)
        idx_i = np.array([self.slot(c.body_i) for c in joints])
        return tuple(members), idx_i, idx_b, sign, rows

    def _group_frictions(self):
        """Friction groups (same class, law class and array structure), each evaluated by
        one vmap: member indices, pose-table slots of the joint's bodies i and j and of the
        body its reaction is computed on (body i, or body j with sign −1 when body i is the
        ground) and the joint's rows of Φ. Plus the static permutation from group order
        back to the order of `frictions`. (Their laws are grouped on their own:
        :meth:`_group_laws`.)"""
        keyed: dict = {}
        for k, f in enumerate(self.frictions):
            leaves = jax.tree_util.tree_flatten_with_path(eqx.filter(f, eqx.is_array))[0]
            key = (group_key(f), tuple(jax.tree_util.keystr(path) for path, _ in leaves))
            keyed.setdefault(key, []).append(k)
        groups, order = [], []
        for members in keyed.values():
            joints = [self.constraints[self.friction_joint[k]] for k in members]
            idx_i = np.array([self.slot(c.body_i) for c in joints])
            idx_j = np.array([self.slot(c.body_j) for c in joints])
            idx_b, sign = self._reacting(joints)
            rows = np.array([np.arange(*self.rows[self.friction_joint[k]]) for k in members])
            groups.append((tuple(members), idx_i, idx_j, idx_b, sign, rows))
            order.extend(members)
        friction_order = np.empty(len(order), dtype=int)
        friction_order[np.asarray(order, dtype=int)] = np.arange(len(order))
        return tuple(groups), friction_order

    def _group_laws(self):
        """Law groups: the frictions' laws of one class and array structure (whatever their
        joints), each evaluated by one vmap. Per group: the members' positions in group
        order (the order of ``friction_groups``) and their law-state indices. Plus the
        static permutations from law-group order back to group order and of the states
        the groups' rates come in back to the order of ``s``."""
        in_group_order = [k for g in self.friction_groups for k in g[0]]
        keyed: dict = {}
        for pos, k in enumerate(in_group_order):
            law = self.frictions[k].law
            arrays, static = eqx.partition(law, eqx.is_array)
            leaves, structure = jax.tree_util.tree_flatten(arrays)
            key = (type(law), structure, jax.tree_util.tree_structure(static),
                   tuple(jnp.shape(x) for x in leaves))
            keyed.setdefault(key, []).append(pos)
        groups, order, states = [], [], []
        for positions in keyed.values():
            members = [in_group_order[p] for p in positions]
            slots = np.array([np.arange(*self.friction_slots[k]) for k in members],
                             dtype=int).reshape(len(members), -1)
            groups.append((np.array(positions), slots))
            order.extend(positions)
            states.extend(slots.reshape(-1))
        law_order = np.empty(len(order), dtype=int)
        law_order[np.asarray(order, dtype=int)] = np.arange(len(order))
        state_order = np.empty(len(states), dtype=int)
        state_order[np.asarray(states, dtype=int)] = np.arange(len(states))
        return tuple(groups), law_order, state_order

    def row_owner(self, row: int):
        for c, (a, b) in zip(self.constraints, self.rows):
            if a <= row < b:
                return c, row - a
        raise IndexError(row)

    def state_names(self) -> tuple[str, ...]:
        q = [f"{b.name}.{c}" for b in self.bodies for c in _COORDS]
        qd = [f"{b.name}.{c}d" for b in self.bodies for c in _COORDS]
        law = [f"{f.name}.{s}" for f in self.frictions for s in f.law.state_names]
        for c in self.contacts:
            law += [f"{c.name}.{s}" if c.n_gaps == 1 else f"{c.name}.{s}[{k}]"
                    for s in c.law.state_names for k in range(c.n_gaps)]
        return tuple(q + qd + law)

    def units(self) -> dict[str, str]:
        out = {}
        for b in self.bodies:
            out.update({f"{b.name}.x": "m", f"{b.name}.y": "m", f"{b.name}.phi": "rad",
                        f"{b.name}.xd": "m/s", f"{b.name}.yd": "m/s",
                        f"{b.name}.phid": "rad/s", f"{b.name}.xdd": "m/s²",
                        f"{b.name}.ydd": "m/s²", f"{b.name}.phidd": "rad/s²"})
        for c in self.constraints:
            if c.is_driver:
                out[f"{c.name}.effort"] = c.effort_unit
            else:
                out.update({f"{c.name}.Fx": "N", f"{c.name}.Fy": "N", f"{c.name}.T": "N·m"})
        for f in self.forces:
            out[f"{f.name}.force"] = f.unit
        for c in self.contacts:
            out[f"{c.name}.force"] = "N·m" if c.unit == "rad" else "N"
        for f in self.frictions:
            out[f"{f.name}.friction"] = f.unit
            out[f"{f.name}.normal"] = f.unit
            for state in f.law.state_names:
                out[f"{f.name}.{state}"] = type(f.joint).slide_unit
        out.update({"energy": "J", "constraint.position": "m", "constraint.velocity": "m/s"})
        return out
