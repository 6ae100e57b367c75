"""The traced side of a planar mechanism: Φ, Φ_q, ν, γ, the index-reduced DAE and the
channels (SPEC §9).

:class:`PlanarSystem` is an immutable :class:`~stickslip.systems.AbstractSystem` with state
x = [q; q̇; s], q = [x_1, y_1, φ_1, …, x_nb, y_nb, φ_nb] and s the friction and contact
laws' states. It holds the bound elements as pytree fields (their arrays traced) and the
topology in the static :class:`Layout`. Its vector field solves the index-reduced DAE
(SPEC §9, eq. 3-5)

    [[M, Φ_qᵀ], [Φ_q, 0]] [q̈; λ] = [Q^A; γ − 2α Φ̇ − β² Φ]

(Baumgarte stabilisation, gains α, β [1/s]) with :func:`~._dynamics.schur_solve`, the one
solver shared with the projection and the impulses. Φ_q, ν = −Φ_t and
γ = −(Φ_q q̇)_q q̇ − 2Φ_qt q̇ − Φ_tt come from forward-mode derivatives of Φ:
γ = −d²/ds² Φ(q + s q̇, t + s) at s = 0.
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
from ._body import Body, cross2, global_point, rotation
from ._dynamics import ConstrainedEquations, Dynamics, schur_solve
from ._friction import NEWTON_ITERATIONS, JointFriction, stored_energy

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

    # --- forces -----------------------------------------------------------------------------
    def applied(self, q, qd, t):
        """Q^A (gravity, force elements) and the force elements' reported values."""
        n_b = len(self.layout.bodies)
        weight = self.masses.reshape(n_b, 3)[:, 0:1] * self.gravity[None, :]
        Q = jnp.concatenate([weight, jnp.zeros((n_b, 1))], axis=1).reshape(-1)
        reported = []
        for f in self.forces:
            bodies = f.bodies()
            gen, value = f.generalized_force([self._pose(q, b) for b in bodies],
                                             [self._pose(qd, b) for b in bodies], t)
            for b, g in zip(bodies, gen):
                if not b.is_ground:
                    k = self.layout.index[id(b)]
                    Q = Q.at[3 * k: 3 * k + 3].add(g)
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
        J = self.phi_q(q, t)
        phi = self.phi(q, t)
        rate, gamma = self.phi_rate_and_gamma(q, qd, t, J)
        if stabilise:
            gamma = gamma - 2.0 * self.alpha * rate - self.beta ** 2 * phi
        return ConstrainedEquations(1.0 / self.masses, Q + Qc, J, gamma), phi, rate, \
            c_forces, c_rates

    def dynamics(self, t, q, qd, s=None, stabilise=True) -> Dynamics:
        """Accelerations, multipliers, friction and contact forces at one instant (SPEC §9,
        eq. 3-5). With joint friction the reaction ↔ friction loop is solved by Newton's
        method on r(f) = f − g(f) (λ is affine in f: λ = λ₀ + L f; see _friction.py)."""
        s = jnp.zeros(self.layout.n_law_states) if s is None else s
        eq, phi, rate, c_forces, c_rates = self.equations(t, q, qd, s, stabilise)
        if not self.frictions:
            qdd, lam = schur_solve(eq.minv, eq.J, eq.Q, eq.gamma)
            empty = jnp.zeros(0)
            return Dynamics(qdd, lam, phi, rate, eq.J, c_rates, empty, empty, empty, empty,
                            c_forces)
        W = jax.jacfwd(self.slides)(q)                   # ∂s/∂q, (n_f × n_c)
        v = W @ qd
        n_f = v.shape[0]
        # one factorisation: columns [Q, Wᵀ] give λ₀ and L (λ = λ₀ + L f)
        rhs_gamma = jnp.concatenate([eq.gamma[:, None], jnp.zeros((eq.J.shape[0], n_f))],
                                    axis=1)
        _, lams = schur_solve(eq.minv, eq.J, jnp.concatenate([eq.Q[:, None], W.T], axis=1),
                              rhs_gamma)
        lam0, L = lams[:, 0], lams[:, 1:]

        def g(f):
            return self.friction_laws(s, v, self.friction_normals(q, eq.J, lam0 + L @ f))[0]

        eye = jnp.eye(n_f)

        def newton(_, f):
            step = jnp.linalg.solve(eye - jax.jacfwd(g)(f), f - g(f))
            # a singular Jacobian (a self-locking, jammed joint) leaves f where it is
            return jnp.where(jnp.all(jnp.isfinite(step)), f - step, f)

        f = jax.lax.fori_loop(0, NEWTON_ITERATIONS, newton, g(jnp.zeros_like(v)))
        normals = self.friction_normals(q, eq.J, lam0 + L @ f)
        f, s_rate = self.friction_laws(s, v, normals)
        lam = lam0 + L @ f
        qdd = eq.minv * (eq.Q + W.T @ f - eq.J.T @ lam)
        return Dynamics(qdd, lam, phi, rate, eq.J, jnp.concatenate([s_rate, c_rates]), f,
                        normals, v, f - g(f), c_forces)

    def accelerations(self, t, q, qd, stabilise=True, s=None):
        """(q̈, λ, Φ, Φ̇): a shorthand of :meth:`dynamics`."""
        d = self.dynamics(t, q, qd, s, stabilise)
        return d.qdd, d.lam, d.phi, d.rate

    # --- joint friction (see _friction.py) -------------------------------------------------
    def slides(self, q):
        """The frictions' relative coordinates s_k(q) (rad or m), shape (n_f,): each
        joint's own ``slide``."""
        return jnp.stack([f.slide(self._pose(q, f.joint.body_i), self._pose(q, f.joint.body_j))
                          for f in self.frictions])

    def friction_normals(self, q, J, lam):
        """Normal force each friction law sees, from its joint's multipliers."""
        out = []
        for f, jk in zip(self.frictions, self.layout.friction_joint):
            c = self.constraints[jk]
            a, z = self.layout.rows[jk]
            force, torque, angle = self._reaction(c, q, J[a:z], lam[a:z])
            d_ij = c._d(self._pose(q, c.body_i), self._pose(q, c.body_j))
            out.append(f.normal(force, torque, angle, d_ij))
        return jnp.stack(out)

    def friction_laws(self, s, v, normals):
        """(forces on body j along s_k, law state rates) at normal forces `normals`."""
        forces, rates = [], []
        for f, (a, b), vk, nk in zip(self.frictions, self.layout.friction_slots, v, normals):
            force, rate = f.law.force_and_rate(s[a:b], vk, nk)
            forces.append(force - f.viscous * vk)
            rates.append(jnp.reshape(rate, (b - a,)))
        rates = jnp.concatenate(rates) if rates else jnp.zeros(0)
        return jnp.stack(forces), rates

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
        through :func:`schur_solve`."""
        n = self.layout.n_coordinates
        if self.layout.n_rows == 0:
            return x
        q, qd, s = x[:n], x[n:2 * n], x[2 * n:]
        minv = 1.0 / self.masses
        zero = jnp.zeros(n)
        q = q + schur_solve(minv, self.phi_q(q, t), zero, -self.phi(q, t))[0]
        J = self.phi_q(q, t)
        qd = qd + schur_solve(minv, J, zero, self.nu(q, t) - J @ qd)[0]
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
        d = self.dynamics(t, q, qd, s)
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

    def _reaction(self, c, q, J_k, lam_k):
        """Force (ground frame) and torque about point_i that constraint `c` applies to its
        body i, and the joint frame's angle: F = −Φ_rᵀλ, T = (s'ᵀBᵀΦ_rᵀ − Φ_φᵀ)λ (SPEC §9).
        When body i is the ground, the wrench on body j is transferred to point_i and
        reversed (action and reaction)."""
        if not c.body_i.is_ground:
            k = self.layout.index[id(c.body_i)]
            cols = J_k[:, 3 * k: 3 * k + 3]
            qi = q[3 * k: 3 * k + 3]
            force = -cols[:, :2].T @ lam_k
            arm = global_point(qi, c.point_i) - qi[:2]
            torque = -cols[:, 2] @ lam_k - cross2(arm, force)
            return force, torque, qi[2] + c.frame_i
        k = self.layout.index[id(c.body_j)]
        cols = J_k[:, 3 * k: 3 * k + 3]
        qj = q[3 * k: 3 * k + 3]
        force_j = -cols[:, :2].T @ lam_k
        torque_j = -cols[:, 2] @ lam_k - cross2(c.point_i - qj[:2], force_j)
        return -force_j, -torque_j, jnp.asarray(c.frame_i)

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
        for c, (a, z) in zip(self.constraints, self.layout.rows):
            lam_k = lam[a:z]
            if c.is_driver:
                out[f"{c.name}.effort"] = -lam_k[0]
                continue
            force, torque, angle = self._reaction(c, q, J[a:z], lam_k)
            local = rotation(angle).T @ force
            out[f"{c.name}.Fx"] = local[0]
            out[f"{c.name}.Fy"] = local[1]
            out[f"{c.name}.T"] = torque
        _, reported = self.applied(q, qd, t)
        for f, value in zip(self.forces, reported):
            out[f"{f.name}.force"] = value
        out["energy"] = self.energy(q, qd, s)
        return out

    def linear_modes(self):
        """The stiff modes a fixed step must resolve: the Baumgarte modes
        −α ± √(α² − β²) [1/s], and — when the model has force elements (springs, dampers,
        which can be stiff) — the eigenvalues of the vector field's Jacobian at the initial
        state. Without force elements the remaining modes are gravity's, slow for any
        practical link; they are not linearised (that compile costs seconds)."""
        alpha, beta = float(self.alpha), float(self.beta)
        root = np.sqrt(complex(alpha ** 2 - beta ** 2))
        modes = [("Baumgarte stabilisation", np.array([-alpha + root, -alpha - root]))]
        if self.forces or self.layout.has_laws:
            jac = np.asarray(_jacobian_at_start(self))
            if not np.all(np.isfinite(jac)):
                from ..errors import SimulationError
                raise SimulationError(
                    f"planar model {self.layout.name!r}: the equations of motion are not "
                    f"finite at the initial state; {self._non_finite_forces()}. Check the "
                    "callables and parameters named.", time=0.0)
            modes.append(("linearisation at the initial state", np.linalg.eigvals(jac)))
        return modes

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
    """A :class:`PlanarSystem` whose state the core's fixed-step integrators project back
    onto Φ = 0, Φ_q q̇ = ν after every step (``projects_after_step``; see
    :meth:`PlanarSystem.project`)."""

    projects_after_step: ClassVar[bool] = True


@eqx.filter_jit
def _jacobian_at_start(system: PlanarSystem):
    x0 = system.initial_state()
    return jax.jacfwd(lambda x: system.vector_field(jnp.asarray(0.0), x))(x0)


def joint_frictions(constraints) -> list:
    """The JointFriction elements of the joints whose ``friction=`` slot is filled."""
    return [JointFriction(c) for c in constraints
            if type(c).supports_friction and c.friction is not None]
