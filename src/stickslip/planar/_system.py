"""The traced side of a planar mechanism: Φ, Φ_q, ν, γ, the index-reduced DAE and the
channels (SPEC §9).

:class:`PlanarSystem` is an immutable :class:`~stickslip.systems.AbstractSystem` with state
x = [q; q̇; s], q = [x_1, y_1, φ_1, …, x_nb, y_nb, φ_nb] and s the friction and contact
laws' states. It holds the bound elements as pytree fields (their arrays traced) and the
topology in the static :class:`Layout`. Its vector field solves the index-reduced DAE
(SPEC §9, eq. 3-5)

    [[M, Φ_qᵀ], [Φ_q, 0]] [q̈; λ] = [Q^A; γ − 2α Φ̇ − β² Φ]

(Baumgarte stabilisation, gains α, β [1/s]) with :func:`~._dynamics.schur_solve`, the one
solver shared with the projection and the impulses. Φ, Φ_q, ν = −Φ_t and
γ = −(Φ_q q̇)_q q̇ − 2Φ_qt q̇ − Φ_tt come from one grouped call of each constraint's
``kinematic_terms`` (hand-written for revolute and translational joints; forward-mode
derivatives of Φ otherwise: γ = −d²/ds² Φ(q + s q̇, t + s) at s = 0). Like elements
(constraints, frictions) are evaluated by one ``vmap`` per group; the joint reactions of all
joints at once from the rows' generalised forces −Φ_qᵀλ.
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from ..laws._base import as_parameter
from ..systems import AbstractSystem
from ._base import group_key, stack
from ._body import Body
from ._dynamics import ConstrainedEquations, Dynamics, schur_solve
from ._friction import NEWTON_ITERATIONS, JointFriction, newton_solve, stored_energy
from ._modes import mechanism_modes

__all__ = ["Layout", "PlanarSystem", "ProjectedPlanarSystem"]

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
        """Index tables of the joints `members` for :meth:`PlanarSystem._wrenches`: their
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


class PlanarSystem(AbstractSystem):
    """A planar mechanism as an ODE on [q; q̇; s] (built by :meth:`Model.system`).

    Fields: the diagonal of M (``masses``), ``gravity``, the initial ``q0``, ``qd0``, the
    Baumgarte gains ``alpha``, ``beta`` (arrays, traced), the bound elements
    (``constraints``, ``forces``, ``frictions``, ``contacts``: their arrays traced) and
    the static ``layout``. Its Runge–Kutta stages run in a loop (``trace_stages_once``):
    the vector field holds Φ_q and γ by automatic differentiation and is costly to compile
    once per stage.
    """

    trace_stages_once: ClassVar[bool] = True

    masses: jnp.ndarray = eqx.field(converter=as_parameter)      # diagonal of M
    gravity: jnp.ndarray = eqx.field(converter=as_parameter)     # [m/s²]
    q0: jnp.ndarray = eqx.field(converter=as_parameter)
    qd0: jnp.ndarray = eqx.field(converter=as_parameter)
    alpha: jnp.ndarray = eqx.field(converter=as_parameter)       # Baumgarte [1/s]
    beta: jnp.ndarray = eqx.field(converter=as_parameter)        # Baumgarte [1/s]
    constraints: tuple = ()
    forces: tuple = ()
    frictions: tuple = ()
    contacts: tuple = ()
    layout: Layout = eqx.field(static=True, default=None)
    # after every fixed step, put [q; q̇] back on Φ = 0, Φ_q q̇ = ν (:meth:`project`): a
    # static field the core's step rule reads through ``projects_after_step``
    projection: bool = eqx.field(static=True, default=False)

    @property
    def projects_after_step(self) -> bool:
        return self.projection

    # --- coordinates ----------------------------------------------------------------------
    def _pose(self, q, body):
        if body.is_ground:
            return jnp.zeros(3, dtype=q.dtype)
        k = self.layout.index[id(body)]
        return q[3 * k: 3 * k + 3]

    def with_state(self, q0, qd0) -> "PlanarSystem":
        """The same mechanism starting from (q0, q̇0)."""
        return eqx.tree_at(lambda s: (s.q0, s.qd0), self, (as_parameter(q0),
                                                           as_parameter(qd0)))

    # --- constraints ------------------------------------------------------------------------
    def _per_group(self, method, q, t, qd=None):
        """`method` of every constraint, one vmap per group: a list of (rows, output
        stacked over the members) (SPEC §9; STYLE: group by type)."""
        poses = jnp.concatenate([jnp.zeros((1, 3), dtype=q.dtype), q.reshape(-1, 3)])
        rates = None if qd is None else jnp.concatenate(
            [jnp.zeros((1, 3), dtype=qd.dtype), qd.reshape(-1, 3)])
        out = []
        for members, idx_i, idx_j, rows in self.layout.groups:
            args = (poses[idx_i], poses[idx_j]) if rates is None else \
                (poses[idx_i], poses[idx_j], rates[idx_i], rates[idx_j])
            if len(members) == 1:           # a group of one: no stacking, no vmap
                value = getattr(self.constraints[members[0]], method)(
                    *(a[0] for a in args), t)
                out.append((members, idx_i, idx_j, rows,
                            jax.tree.map(lambda v: v[None], value)))
                continue
            arrays, static = eqx.partition(stack([self.constraints[k] for k in members]),
                                           eqx.is_array)

            def call(a, *z):
                return getattr(eqx.combine(a, static), method)(*z, t)
            out.append((members, idx_i, idx_j, rows, jax.vmap(call)(arrays, *args)))
        return out

    def _rows(self, parts):
        """Stack per-group rows (k, r, …) in the order the elements were added (a static
        permutation: a gather, no scatter — shorter to compile)."""
        values = jnp.concatenate([p[4].reshape((-1,) + p[4].shape[2:]) for p in parts])
        return values[self.layout.row_order]

    def phi(self, q, t):
        """Φ(q, t): all constraint rows (kinematic and driving), shape (n_rows,)."""
        if not self.constraints:
            return jnp.zeros(0, dtype=q.dtype)
        return self._rows(self._per_group("residual", q, t))

    def phi_q(self, q, t):
        """Φ_q (n_rows × n_c), assembled from each element's local Jacobians (3 + 3
        columns, hand-written for revolute and translational joints): each member's block
        is placed in its bodies' columns by a one-hot product (static), not a scatter."""
        n_b = len(self.layout.bodies)
        if not self.constraints:
            return jnp.zeros((0, 3 * n_b), dtype=q.dtype)
        eye = np.eye(n_b + 1)
        parts = []
        for members, idx_i, idx_j, rows, (Ji, Jj) in self._per_group("jacobians", q, t):
            block = (jnp.einsum("kb,krc->krbc", eye[idx_i], Ji)
                     + jnp.einsum("kb,krc->krbc", eye[idx_j], Jj))
            parts.append((members, idx_i, idx_j, rows, block.reshape(*block.shape[:2], -1)))
        return self._rows(parts)[:, 3:]                   # drop the ground's columns

    def nu(self, q, t):
        """ν = −Φ_t, the right-hand side of the velocity equation Φ_q q̇ = ν."""
        if not self.constraints:
            return jnp.zeros(0, dtype=q.dtype)
        return -self._rows(self._per_group("time_derivative", q, t))

    def phi_rate_and_gamma(self, q, qd, t, J=None):
        """(Φ̇, γ) with Φ̇ = Φ_q q̇ + Φ_t and γ = −(Φ_q q̇)_q q̇ − 2Φ_qt q̇ − Φ_tt (SPEC §9),
        from each element's local γ."""
        J = self.phi_q(q, t) if J is None else J
        if not self.constraints:
            return jnp.zeros(0, dtype=q.dtype), jnp.zeros(0, dtype=q.dtype)
        rate = J @ qd - self.nu(q, t)
        return rate, self._rows(self._per_group("gamma", q, t, qd))

    def kinematics_terms(self, q, t, qd=None):
        """(Φ, Φ_q, ν, γ) from one grouped evaluation of every constraint's
        ``kinematic_terms`` (γ is for the rates `qd`; zeros when not given)."""
        n_b = len(self.layout.bodies)
        if not self.constraints:
            empty = jnp.zeros(0, dtype=q.dtype)
            return empty, jnp.zeros((0, 3 * n_b), dtype=q.dtype), empty, empty
        qd = jnp.zeros_like(q) if qd is None else qd
        eye = np.eye(n_b + 1)
        terms = self._per_group("kinematic_terms", q, t, qd)
        phi, nu, gamma, blocks = [], [], [], []
        for members, idx_i, idx_j, rows, (r, Ji, Jj, r_t, g) in terms:
            head = (members, idx_i, idx_j, rows)
            phi.append((*head, r))
            nu.append((*head, -r_t))
            gamma.append((*head, g))
            block = (jnp.einsum("kb,krc->krbc", eye[idx_i], Ji)
                     + jnp.einsum("kb,krc->krbc", eye[idx_j], Jj))
            blocks.append((*head, block.reshape(*block.shape[:2], -1)))
        return (self._rows(phi), self._rows(blocks)[:, 3:], self._rows(nu),
                self._rows(gamma))

    # --- forces -----------------------------------------------------------------------------
    def element_force(self, f, q, qd, t):
        """The generalised force Q (n_c,) of one force element `f` and its reported value."""
        bodies = f.bodies()
        gen, value = f.generalized_force([self._pose(q, b) for b in bodies],
                                         [self._pose(qd, b) for b in bodies], t)
        Q = jnp.zeros(self.layout.n_coordinates, dtype=q.dtype)
        for b, g in zip(bodies, gen):
            if not b.is_ground:
                k = self.layout.index[id(b)]
                Q = Q.at[3 * k: 3 * k + 3].add(g)
        return Q, value

    def applied(self, q, qd, t):
        """Q^A (gravity, force elements) and the force elements' reported values."""
        n_b = len(self.layout.bodies)
        weight = self.masses.reshape(n_b, 3)[:, 0:1] * self.gravity[None, :]
        Q = jnp.concatenate([weight, jnp.zeros((n_b, 1))], axis=1).reshape(-1)
        reported = []
        for f in self.forces:
            Q_f, value = self.element_force(f, q, qd, t)
            Q = Q + Q_f
            reported.append(value)
        return Q, reported

    def energy(self, q, qd, s=None):
        """Kinetic + gravitational + spring energy [J] (+ energy stored in the friction
        laws' springs when their states `s` are given)."""
        n_b = len(self.layout.bodies)
        kinetic = 0.5 * jnp.sum(self.masses * qd ** 2)
        r = q.reshape(n_b, 3)[:, :2]
        m = self.masses.reshape(n_b, 3)[:, 0]
        potential = -jnp.sum(m * (r @ self.gravity))
        for f in self.forces:
            potential = potential + f.potential([self._pose(q, b) for b in f.bodies()])
        if s is not None:
            for f, (a, b) in zip(self.frictions, self.layout.friction_slots):
                potential = potential + stored_energy(f.law, s[a:b])
        return kinetic + potential

    # --- the constrained equations (see _dynamics.py) -------------------------------------
    def equations(self, t, q, qd, s=None, stabilise=True):
        """(ConstrainedEquations, Φ, Φ̇, contact-law forces, their state rates): M q̈ = Q − Jᵀλ,
        J q̈ = γ − 2αΦ̇ − β²Φ with the contact-law stops' forces in Q."""
        s = jnp.zeros(self.layout.n_law_states) if s is None else s
        Q, _ = self.applied(q, qd, t)
        Qc, c_forces, c_rates = self.contact_terms(q, qd, s)
        phi, J, nu, gamma = self.kinematics_terms(q, t, qd)
        rate = J @ qd - nu
        if stabilise:
            gamma = gamma - 2.0 * self.alpha * rate - self.beta ** 2 * phi
        return ConstrainedEquations(1.0 / self.masses, Q + Qc, J, gamma), phi, rate, \
            c_forces, c_rates

    def dynamics(self, t, q, qd, s=None, stabilise=True, *, cholesky=False) -> Dynamics:
        """Accelerations, multipliers, friction and contact forces at one instant (SPEC §9,
        eq. 3-5). With joint friction the reaction ↔ friction loop is solved by Newton's
        method on r(f) = f − g(f) (λ is affine in f: λ = λ₀ + L f; see _friction.py)."""
        s = jnp.zeros(self.layout.n_law_states) if s is None else s
        eq, phi, rate, c_forces, c_rates = self.equations(t, q, qd, s, stabilise)
        if not self.frictions:
            qdd, lam = schur_solve(eq.minv, eq.J, eq.Q, eq.gamma, cholesky=cholesky)
            empty = jnp.zeros(0)
            return Dynamics(qdd, lam, phi, rate, eq.J, c_rates, empty, empty, empty, empty,
                            c_forces)
        parts = self._friction_geometry(q)
        W = jnp.concatenate([p["W"] for p in parts])     # ∂s/∂q in group order (n_f × n_c)
        v = W @ qd
        n_f = v.shape[0]
        # one factorisation: columns [Q, Wᵀ] give λ₀ and L (λ = λ₀ + L f)
        rhs_gamma = jnp.concatenate([eq.gamma[:, None], jnp.zeros((eq.J.shape[0], n_f))],
                                    axis=1)
        _, lams = schur_solve(eq.minv, eq.J, jnp.concatenate([eq.Q[:, None], W.T], axis=1),
                              rhs_gamma, cholesky=cholesky)
        wrenches = self._friction_wrenches(q, eq.J, lams)        # (n_f, 3, 1 + n_f)
        evaluate = self._friction_laws(parts, s, v, wrenches)
        eye = jnp.eye(n_f)

        def newton(_, carry):
            f = carry[0]
            value, jac, normals, s_rate = evaluate(f)
            step = newton_solve(eye - jac, f - value)
            # a singular Jacobian (a self-locking, jammed joint) leaves f where it is
            return (jnp.where(jnp.all(jnp.isfinite(step)), f - step, f), f, value, normals,
                    s_rate)

        # NEWTON_ITERATIONS steps, then one more pass only for the laws at the last iterate
        # (its step is not used): the laws are traced once, in the loop
        zero = jnp.zeros_like(v)
        start = (zero, zero, zero, zero, jnp.zeros(self.layout.n_friction_states))
        _, f, g, normals, s_rate = jax.lax.fori_loop(0, NEWTON_ITERATIONS + 1, newton, start)
        residual = f - g
        lam = lams[:, 0] + lams[:, 1:] @ g
        qdd = eq.minv * (eq.Q + W.T @ g - eq.J.T @ lam)
        order = self.layout.friction_order
        return Dynamics(qdd, lam, phi, rate, eq.J,
                        jnp.concatenate([s_rate[self.layout.law_state_order], c_rates]),
                        g[order], normals[order], v[order], residual[order], c_forces)

    def accelerations(self, t, q, qd, stabilise=True, s=None):
        """(q̈, λ, Φ, Φ̇): a shorthand of :meth:`dynamics`."""
        d = self.dynamics(t, q, qd, s, stabilise)
        return d.qdd, d.lam, d.phi, d.rate

    # --- joint friction (see _friction.py) -------------------------------------------------
    def _friction_geometry(self, q):
        """Per friction group (one vmap each): the stacked elements, the rows of ∂s/∂q
        (from each joint's ``slide``), and the joint frame's angle and d_ij the normal
        force needs."""
        poses = jnp.concatenate([jnp.zeros((1, 3), dtype=q.dtype), q.reshape(-1, 3)])
        n_b = len(self.layout.bodies)
        eye = np.eye(n_b + 1)
        parts = []
        for members, idx_i, idx_j, idx_b, sign, rows in self.layout.friction_groups:
            group = stack([self.frictions[k] for k in members])
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

    def _friction_wrenches(self, q, J, lams):
        """Each friction's joint reaction on body i (ground-frame force, torque about
        point_i) for the multiplier columns `lams` (m × k): shape (n_f, 3, k), group
        order. Linear in λ, so with λ = λ₀ + L f the loop's reactions are an affine map
        of f computed once."""
        return self._wrenches(q, J, lams, self.layout.friction_table)[0]

    def _friction_laws(self, parts, s, v, wrenches):
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
        in_group_order = [k for g in self.layout.friction_groups for k in g[0]]
        for positions, slots in self.layout.law_groups:
            laws = [self.frictions[in_group_order[pos]].law for pos in positions]
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
            order = self.layout.law_order
            force = jnp.concatenate(forces)[order]
            slope = jnp.concatenate(slopes)[order]
            value = force - viscous * v
            jac = jnp.einsum("kw,kwf->kf", slope[:, None] * dnormals, dwrench)
            return value, jac, normals, jnp.concatenate(rates)
        return evaluate

    def slide_jacobian(self, q):
        """∂s/∂q of the frictions' relative coordinates s_k(q) (each joint's ``slide``),
        shape (n_f × n_c), in the order of ``frictions``."""
        parts = self._friction_geometry(q)
        return jnp.concatenate([p["W"] for p in parts])[self.layout.friction_order]

    def friction_normals(self, q, J, lam):
        """Normal force each friction law sees at the multipliers `lam` (order of
        ``frictions``)."""
        parts = self._friction_geometry(q)
        wrench = self._friction_wrenches(q, J, lam[:, None])[:, :, 0]
        out = []
        for p, w in zip(parts, jnp.split(wrench, np.cumsum([x["W"].shape[0]
                                                             for x in parts])[:-1])):
            static = p["static"]

            def normal(arr, w, angle, d):
                return eqx.combine(arr, static).normal(w[:2], w[2], angle, d)
            out.append(jax.vmap(normal)(p["arrays"], w, p["angle"], p["d"]))
        return jnp.concatenate(out)[self.layout.friction_order]

    # --- stops ------------------------------------------------------------------------------
    def gaps(self, q, stops):
        """Stacked gap rows g(q) of `stops` (empty stops: shape (0,))."""
        if not stops:
            return jnp.zeros(0)
        return jnp.concatenate([c.gaps(lambda b: self._pose(q, b)) for c in stops])

    def contact_terms(self, q, qd, s):
        """(Q of the contact-law stops, their forces, their law state rates)."""
        n = self.layout.n_coordinates
        if not self.contacts:
            return jnp.zeros(n), jnp.zeros(0), jnp.zeros(0)
        Q, forces, rates = jnp.zeros(n), [], []
        for c, (a, b) in zip(self.contacts, self.layout.contact_slots):
            def gap(z, c=c):
                return c.gaps(lambda body: self._pose(z, body))
            g, gd = jax.jvp(gap, (q,), (qd,))
            G = jax.jacfwd(gap)(q)
            state = s[a:b].reshape(c.law.n_states, c.n_gaps)
            f, r = jax.vmap(c.law.force_and_rate, in_axes=(1, 0, 0), out_axes=(0, 1))(
                state, g, gd)
            Q = Q + G.T @ f
            forces.append(f)
            rates.append(jnp.reshape(r, (-1,)))
        return Q, jnp.concatenate(forces), jnp.concatenate(rates)

    def project(self, t, x):
        """Project [q; q̇] back onto Φ = 0 and Φ_q q̇ = ν: one mass-weighted Newton step
        for each (q ← q − M⁻¹Φ_qᵀ(Φ_q M⁻¹Φ_qᵀ)⁻¹Φ, then the same for the velocity), both
        through :func:`schur_solve` (Cholesky: the vector field's LU already stops a run
        at a lock-up)."""
        n = self.layout.n_coordinates
        if self.layout.n_rows == 0:
            return x
        q, qd, s = x[:n], x[n:2 * n], x[2 * n:]
        minv = 1.0 / self.masses
        zero = jnp.zeros(n)
        phi, J, _, _ = self.kinematics_terms(q, t)
        q = q + schur_solve(minv, J, zero, -phi, cholesky=True)[0]
        _, J, nu, _ = self.kinematics_terms(q, t)
        qd = qd + schur_solve(minv, J, zero, nu - J @ qd, cholesky=True)[0]
        return jnp.concatenate([q, qd, s])

    # --- AbstractSystem ---------------------------------------------------------------------
    @property
    def state_names(self):
        return self.layout.state_names()

    @property
    def units(self):
        return self.layout.units()

    def initial_state(self):
        return jnp.concatenate([self.q0, self.qd0, jnp.zeros(self.layout.n_law_states)])

    def vector_field(self, t, x):
        n = self.layout.n_coordinates
        q, qd, s = x[:n], x[n:2 * n], x[2 * n:]
        d = self.dynamics(t, q, qd, s)
        return jnp.concatenate([qd, d.qdd, d.s_rate])

    def outputs(self, t, x):
        n = self.layout.n_coordinates
        q, qd, s = x[:n], x[n:2 * n], x[2 * n:]
        d = self.dynamics(t, q, qd, s, cholesky=True)
        out = self.channels(t, q, qd, d.qdd, d.lam, include_state=False, J=d.J, s=s)
        for k, f in enumerate(self.frictions):
            out[f"{f.name}.friction"] = d.friction[k]
            out[f"{f.name}.normal"] = d.normal[k]
            if f.reports_force:
                out[f"{f.name}.force"] = d.friction[k]
        start = 0
        for c in self.contacts:
            f = d.contact[start:start + c.n_gaps]
            start += c.n_gaps
            out[f"{c.name}.force"] = f[0] if c.n_gaps == 1 else jnp.sum(f)
        out["constraint.position"] = (jnp.max(jnp.abs(d.phi)) if d.phi.size
                                      else jnp.zeros(()))
        out["constraint.velocity"] = (jnp.max(jnp.abs(d.rate)) if d.rate.size
                                      else jnp.zeros(()))
        return out

    def _wrenches(self, q, J, lams, table):
        """Reactions of the joints in `table` (indices, slots of body i and of the reacting
        body b, sign, padded rows; see ``Layout._reaction_table``) on their body i for the
        multiplier columns `lams` (m × k): ground-frame force and torque about point_i,
        shape (n, 3, k), and the joint frames' angles (n,). F = −Φ_rᵀλ,
        T = (s'ᵀBᵀΦ_rᵀ − Φ_φᵀ)λ (SPEC §9), from the rows' generalised forces −Φ_qᵀλ
        summed per joint on body i (or, when body i is the ground, on body j, moved to
        point_i and reversed) — all joints at once."""
        members, idx_i, idx_b, sign, rows = table
        n_b = len(self.layout.bodies)
        G = jnp.concatenate([jnp.zeros((J.shape[0], 3), J.dtype), J], axis=1)
        G = -G[:, :, None] * lams[:, None, :]
        G = jnp.concatenate([G, jnp.zeros((1,) + G.shape[1:], J.dtype)])  # the padding row
        w = G.reshape(G.shape[0], n_b + 1, 3, -1)[rows, idx_b[:, None]].sum(axis=1)
        poses = jnp.concatenate([jnp.zeros((1, 3), dtype=q.dtype), q.reshape(-1, 3)])
        qi, qb = poses[idx_i], poses[idx_b]
        joints = [self.constraints[k] for k in members]
        point = jnp.stack([c.point_i for c in joints])
        frame = jnp.stack([jnp.asarray(c.frame_i, dtype=q.dtype) for c in joints])
        c, s = jnp.cos(qi[:, 2]), jnp.sin(qi[:, 2])
        arm = qi[:, :2] - qb[:, :2] + jnp.stack([c * point[:, 0] - s * point[:, 1],
                                                 s * point[:, 0] + c * point[:, 1]], axis=1)
        torque = w[:, 2] - (arm[:, 0:1] * w[:, 1] - arm[:, 1:2] * w[:, 0])
        wrench = sign[:, None, None] * jnp.concatenate([w[:, :2], torque[:, None]], axis=1)
        return wrench, qi[:, 2] + frame

    def reactions(self, q, J, lam):
        """Reaction of every kinematic joint on its body i in the joint's frame (SPEC §9):
        {constraint index: (Fx, Fy, T)}."""
        if self.layout.reaction_table is None:
            return {}
        wrench, angle = self._wrenches(q, J, lam[:, None], self.layout.reaction_table)
        fx, fy, torque = wrench[:, 0, 0], wrench[:, 1, 0], wrench[:, 2, 0]
        c, s = jnp.cos(angle), jnp.sin(angle)
        local = jnp.stack([c * fx + s * fy, c * fy - s * fx, torque], axis=1)
        return {k: (local[r, 0], local[r, 1], local[r, 2])
                for r, k in enumerate(self.layout.reaction_table[0])}

    def channels(self, t, q, qd, qdd, lam, include_state=True, J=None,
                 s=None) -> dict[str, Any]:
        """Every named channel at one instant: poses, rates, accelerations, reactions (in
        each joint's frame on body i, SPEC §9), driver efforts, force-element values,
        energy."""
        out: dict[str, Any] = {}
        for k, b in enumerate(self.layout.bodies):
            for c_idx, c in enumerate(_COORDS):
                if include_state:
                    out[f"{b.name}.{c}"] = q[3 * k + c_idx]
                    out[f"{b.name}.{c}d"] = qd[3 * k + c_idx]
        for k, b in enumerate(self.layout.bodies):
            for c_idx, c in enumerate(_COORDS):
                out[f"{b.name}.{c}dd"] = qdd[3 * k + c_idx]
        J = self.phi_q(q, t) if J is None else J
        reactions = self.reactions(q, J, lam)
        for k, (c, (a, _)) in enumerate(zip(self.constraints, self.layout.rows)):
            if c.is_driver:
                out[f"{c.name}.effort"] = -lam[a]
                continue
            out[f"{c.name}.Fx"], out[f"{c.name}.Fy"], out[f"{c.name}.T"] = reactions[k]
        _, reported = self.applied(q, qd, t)
        for f, value in zip(self.forces, reported):
            out[f"{f.name}.force"] = value
        out["energy"] = self.energy(q, qd, s)
        return out

    def linear_modes(self):
        """The stiff modes a fixed step must resolve, element by element (Baumgarte
        stabilisation, force elements, joint-friction and contact laws): see
        :mod:`._modes`."""
        return mechanism_modes(self)

    def _non_finite_forces(self) -> str:
        """Which force elements give NaN/inf at the initial state (host-side diagnosis)."""
        t = jnp.asarray(0.0)
        bad = []
        for f in self.forces:
            bodies = f.bodies()
            gen, value = f.generalized_force([self._pose(self.q0, b) for b in bodies],
                                             [self._pose(self.qd0, b) for b in bodies], t)
            if not all(np.all(np.isfinite(np.asarray(g))) for g in [*gen, value]):
                bad.append(f"{type(f).__name__} {f.name!r}")
        return (f"force element(s) {', '.join(bad)} return NaN/inf there" if bad else
                "a friction or contact law returns NaN/inf there")

    def parameters(self) -> dict[str, Any]:
        return {"bodies": [b.name for b in self.layout.bodies],
                "constraints": [c.name for c in self.layout.constraints],
                "forces": [f.name for f in self.layout.forces],
                "gravity": np.asarray(self.gravity).tolist(),
                "baumgarte": [float(self.alpha), float(self.beta)]}


class ProjectedPlanarSystem(PlanarSystem):
    """A :class:`PlanarSystem` with ``projection=True`` by default (kept for code that names
    the class; ``Model.system(projection=True)`` returns a plain :class:`PlanarSystem` with
    the field set)."""

    projection: bool = eqx.field(static=True, default=True)


def joint_frictions(constraints) -> list:
    """The JointFriction elements of the joints whose ``friction=`` slot is filled."""
    return [JointFriction(c) for c in constraints
            if type(c).supports_friction and c.friction is not None]
