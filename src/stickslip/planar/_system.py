"""The traced side of a planar mechanism: Φ, Φ_q, ν, γ, the index-reduced DAE and the
channels (SPEC §9).

:class:`PlanarSystem` is an ordinary :class:`~stickslip.systems.AbstractSystem` with state
x = [q; q̇], q = [x_1, y_1, φ_1, …, x_nb, y_nb, φ_nb]. Its vector field solves the
index-reduced DAE (SPEC §9, eq. 3-5)

    [[M, Φ_qᵀ], [Φ_q, 0]] [q̈; λ] = [Q^A; γ − 2α Φ̇ − β² Φ]

(Baumgarte stabilisation, gains α, β [1/s]) through the Schur complement Φ_q M⁻¹ Φ_qᵀ, which
is cheap because M is diagonal. Φ_q, ν = −Φ_t and γ = −(Φ_q q̇)_q q̇ − 2Φ_qt q̇ − Φ_tt come
from forward-mode derivatives of Φ: γ = −d²/ds² Φ(q + s q̇, t + s) at s = 0.
"""

from __future__ import annotations

from typing import Any, ClassVar

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from ..laws._base import as_parameter
from ..systems import AbstractSystem
from ._body import cross2, global_point, rotation
from ._friction import NEWTON_ITERATIONS, LuGreFriction, stored_energy

__all__ = ["Layout", "PlanarSystem", "ProjectedPlanarSystem"]

_COORDS = ("x", "y", "phi")


class Layout:
    """Static topology of a model: bodies, constraint rows, force elements (hashable by
    identity, so a compiled run is reused while the model does not change)."""

    def __init__(self, bodies, constraints, forces, frictions=(), contacts=()):
        self.bodies = tuple(bodies)
        self.constraints = tuple(constraints)
        self.forces = tuple(forces)
        self.frictions = tuple(frictions)
        # friction k: (index of its joint in `constraints`, slice of the friction states)
        self.friction_joint = tuple(next(i for i, c in enumerate(self.constraints)
                                         if c is f.joint) for f in self.frictions)
        slots, start = [], 0
        for f in self.frictions:
            slots.append((start, start + f.law.n_states))
            start += f.law.n_states
        self.friction_slots = tuple(slots)
        self.n_friction_states = start
        # contact-law stops: their law states follow the friction states
        self.contacts = tuple(contacts)
        slots = []
        for c in self.contacts:
            slots.append((start, start + c.law.n_states * c.n_gaps))
            start += c.law.n_states * c.n_gaps
        self.contact_slots = tuple(slots)
        self.n_law_states = start
        self.has_laws = bool(self.frictions or self.contacts)
        self.index = {id(b): k for k, b in enumerate(self.bodies)}
        rows, start = [], 0
        for c in self.constraints:
            rows.append((start, start + c.n_equations))
            start += c.n_equations
        self.rows = tuple(rows)
        self.n_rows = start
        self.n_kinematic = sum(c.n_equations for c in self.constraints if not c.is_driver)
        self.groups, self.row_order = self._group()
        self.n_coordinates = 3 * len(self.bodies)

    def _group(self):
        """Constraint groups (same class and key), each evaluated by one vmapped residual,
        and the permutation that puts their stacked rows back in the order of addition."""
        keyed: dict = {}
        for k, c in enumerate(self.constraints):
            keyed.setdefault(c.group_key(), []).append(k)
        groups, order = [], []
        for members in keyed.values():
            elements = [self.constraints[k] for k in members]
            proto = elements[0]
            slot = lambda b: 0 if b.is_ground else self.index[id(b)] + 1  # noqa: E731
            idx_i = np.array([slot(e.body_i) for e in elements])
            idx_j = np.array([slot(e.body_j) for e in elements])
            params = None
            if proto.traced_parameters is not None and len(elements) > 1:
                params = {name: np.stack([np.asarray(getattr(e, name), dtype=float)
                                          for e in elements])
                          for name in proto.traced_parameters}
            groups.append((proto, elements, idx_i, idx_j, params))
            for k in members:
                order.extend(range(*self.rows[k]))
        inverse = np.empty(len(order), dtype=int)
        inverse[np.asarray(order, dtype=int)] = np.arange(len(order))
        return tuple(groups), inverse

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
                out[f"{c.name}.effort"] = "N·m" if type(c).__name__ == "RotationalDriver" or \
                    getattr(c, "coordinate", "") == "phi" else "N"
            else:
                out.update({f"{c.name}.Fx": "N", f"{c.name}.Fy": "N", f"{c.name}.T": "N·m"})
        for f in self.forces:
            out[f"{f.name}.force"] = f.unit
        for c in self.contacts:
            out[f"{c.name}.force"] = "N·m" if type(c).__name__ == "RevoluteStop" else "N"
        for f in self.frictions:
            rot = f.kind == "revolute"
            out[f"{f.name}.friction"] = "N·m" if rot else "N"
            out[f"{f.name}.normal"] = "N·m" if rot else "N"
            for state in f.law.state_names:
                out[f"{f.name}.{state}"] = "rad" if rot else "m"
        out.update({"energy": "J", "constraint.position": "m", "constraint.velocity": "m/s"})
        return out


class PlanarSystem(AbstractSystem):
    """A planar mechanism as an ODE on [q; q̇] (built by :meth:`Model.system`).

    Its Runge–Kutta stages run in a loop (``trace_stages_once``): the vector field holds
    Φ_q and γ by automatic differentiation and is costly to compile once per stage.
    """

    trace_stages_once: ClassVar[bool] = True

    masses: jnp.ndarray = eqx.field(converter=as_parameter)      # diagonal of M
    gravity: jnp.ndarray = eqx.field(converter=as_parameter)     # [m/s²]
    q0: jnp.ndarray = eqx.field(converter=as_parameter)
    qd0: jnp.ndarray = eqx.field(converter=as_parameter)
    alpha: jnp.ndarray = eqx.field(converter=as_parameter)       # Baumgarte [1/s]
    beta: jnp.ndarray = eqx.field(converter=as_parameter)        # Baumgarte [1/s]
    layout: Layout = eqx.field(static=True)
    laws: tuple = ()          # friction laws, one per layout.frictions (traced parameters)
    contact_laws: tuple = ()  # contact laws, one per layout.contacts

    # --- coordinates ----------------------------------------------------------------------
    def _pose(self, q, body):
        if body.is_ground:
            return jnp.zeros(3, dtype=q.dtype)
        k = self.layout.index[id(body)]
        return q[3 * k: 3 * k + 3]

    # --- constraints ------------------------------------------------------------------------
    def phi(self, q, t):
        """Φ(q, t): all constraint rows (kinematic and driving), shape (n_rows,)."""
        if not self.layout.constraints:
            return jnp.zeros(0)
        poses = jnp.concatenate([jnp.zeros((1, 3), dtype=q.dtype), q.reshape(-1, 3)])
        parts = []
        for proto, elements, idx_i, idx_j, params in self.layout.groups:
            if params is None:
                parts.extend(e.residual(poses[a], poses[b], t)
                             for e, a, b in zip(elements, idx_i, idx_j))
            else:
                rows = jax.vmap(lambda p, qi, qj: proto.with_parameters(p).residual(qi, qj, t))(
                    params, poses[idx_i], poses[idx_j])
                parts.append(rows.reshape(-1))
        return jnp.concatenate(parts)[self.layout.row_order]

    def phi_q(self, q, t):
        """Φ_q (n_rows × n_c) by forward-mode differentiation."""
        return jax.jacfwd(self.phi, argnums=0)(q, t)

    def nu(self, q, t):
        """ν = −Φ_t, the right-hand side of the velocity equation Φ_q q̇ = ν."""
        return -jax.jvp(lambda s: self.phi(q, s), (t,), (jnp.ones_like(t),))[1]

    def phi_rate_and_gamma(self, q, qd, t):
        """(Φ̇, γ) with Φ̇ = Φ_q q̇ + Φ_t and γ = −(Φ_q q̇)_q q̇ − 2Φ_qt q̇ − Φ_tt (SPEC §9)."""
        def along(s):
            return self.phi(q + s * qd, t + s)

        def rate(s):
            return jax.jvp(along, (s,), (jnp.ones_like(s),))[1]

        zero = jnp.zeros_like(t)
        rate0, second = jax.jvp(rate, (zero,), (jnp.ones_like(zero),))
        return rate0, -second

    # --- forces -----------------------------------------------------------------------------
    def applied(self, q, qd, t):
        """Q^A (gravity, force elements) and the force elements' reported values."""
        n_b = len(self.layout.bodies)
        weight = self.masses.reshape(n_b, 3)[:, 0:1] * self.gravity[None, :]
        Q = jnp.concatenate([weight, jnp.zeros((n_b, 1))], axis=1).reshape(-1)
        reported = []
        for f in self.layout.forces:
            bodies = f.bodies()
            qs = [self._pose(q, b) for b in bodies]
            qds = [self._pose(qd, b) for b in bodies]
            gen, value = f.generalized_force(qs, qds, t)
            for b, g in zip(bodies, gen):
                if not b.is_ground:
                    k = self.layout.index[id(b)]
                    Q = Q.at[3 * k: 3 * k + 3].add(g)
            reported.append(value)
        return Q, reported

    def energy(self, q, qd):
        """Kinetic + gravitational + spring energy [J]."""
        n_b = len(self.layout.bodies)
        kinetic = 0.5 * jnp.sum(self.masses * qd ** 2)
        r = q.reshape(n_b, 3)[:, :2]
        m = self.masses.reshape(n_b, 3)[:, 0]
        potential = -jnp.sum(m * (r @ self.gravity))
        for f in self.layout.forces:
            potential = potential + f.potential([self._pose(q, b) for b in f.bodies()])
        return kinetic + potential

    # --- dynamics ---------------------------------------------------------------------------
    def accelerations(self, t, q, qd, stabilise=True, s=None):
        """(q̈, λ, Φ, Φ̇) from the index-reduced DAE (SPEC §9, eq. 3-5); `s` the friction
        laws' states (zeros when omitted)."""
        if self.layout.has_laws:
            d = self.dynamics(t, q, qd, self._law_states(s), stabilise)
            return d["qdd"], d["lam"], d["phi"], d["rate"]
        Q, _ = self.applied(q, qd, t)
        J = self.phi_q(q, t)
        phi = self.phi(q, t)
        rate, gamma = self.phi_rate_and_gamma(q, qd, t)
        if stabilise:
            gamma = gamma - 2.0 * self.alpha * rate - self.beta ** 2 * phi
        minv = 1.0 / self.masses
        if J.shape[0] == 0:
            return minv * Q, jnp.zeros(0), phi, rate
        JM = J * minv[None, :]
        schur = JM @ J.T
        lam = jnp.linalg.solve(schur, JM @ Q - gamma)
        qdd = minv * (Q - J.T @ lam)
        return qdd, lam, phi, rate

    # --- joint friction (see _friction.py for the method) -----------------------------------
    def _law_states(self, s):
        return jnp.zeros(self.layout.n_law_states) if s is None else s

    def slides(self, q):
        """The frictions' relative coordinates s_k(q) (rad or m), shape (n_f,)."""
        return jnp.stack([f.slide(self._pose(q, f.joint.body_i), self._pose(q, f.joint.body_j))
                          for f in self.layout.frictions])

    def friction_normals(self, q, J, lam):
        """Normal force each friction law sees, from its joint's multipliers."""
        out = []
        for f, jk in zip(self.layout.frictions, self.layout.friction_joint):
            c = self.layout.constraints[jk]
            a, z = self.layout.rows[jk]
            force, torque, angle = self._reaction(c, q, J[a:z], lam[a:z])
            d_ij = c._d(self._pose(q, c.body_i), self._pose(q, c.body_j))
            out.append(f.normal(force, torque, angle, d_ij))
        return jnp.stack(out)

    def friction_laws(self, s, v, normals):
        """(forces on body j along s_k, law state rates) at normal forces `normals`."""
        forces, rates = [], []
        for f, law, (a, b), vk, nk in zip(self.layout.frictions, self.laws,
                                          self.layout.friction_slots, v, normals):
            force, rate = law.force_and_rate(s[a:b], vk, nk)
            forces.append(force - f.viscous * vk)
            rates.append(jnp.reshape(rate, (b - a,)))
        rates = jnp.concatenate(rates) if rates else jnp.zeros(0)
        return jnp.stack(forces), rates

    def dynamics(self, t, q, qd, s, stabilise=True):
        """Accelerations, multipliers and friction forces with the reaction ↔ friction loop
        solved by Newton's method on r(f) = f − g(f) (λ is affine in f: λ = λ₀ + L f)."""
        Q, _ = self.applied(q, qd, t)
        Qc, c_forces, c_rates = self.contact_terms(q, qd, s)
        Q = Q + Qc
        J = self.phi_q(q, t)
        phi = self.phi(q, t)
        rate, gamma = self.phi_rate_and_gamma(q, qd, t)
        if stabilise:
            gamma = gamma - 2.0 * self.alpha * rate - self.beta ** 2 * phi
        minv = 1.0 / self.masses
        if not self.layout.frictions:
            lam = (jnp.linalg.solve((J * minv[None, :]) @ J.T, (J * minv[None, :]) @ Q - gamma)
                   if J.shape[0] else jnp.zeros(0))
            qdd = minv * (Q - J.T @ lam) if J.shape[0] else minv * Q
            return {"qdd": qdd, "lam": lam, "phi": phi, "rate": rate, "J": J,
                    "s_rate": c_rates, "contact": c_forces}
        W = jax.jacfwd(self.slides)(q)                   # ∂s/∂q, (n_f × n_c)
        v = W @ qd
        if J.shape[0]:
            JM = J * minv[None, :]
            chol = jax.scipy.linalg.cho_factor(JM @ J.T)
            lam0 = jax.scipy.linalg.cho_solve(chol, JM @ Q - gamma)
            L = jax.scipy.linalg.cho_solve(chol, JM @ W.T)
        else:
            lam0, L = jnp.zeros(0), jnp.zeros((0, W.shape[0]))

        def g(f):
            return self.friction_laws(s, v, self.friction_normals(q, J, lam0 + L @ f))[0]

        f = g(jnp.zeros_like(v))
        eye = jnp.eye(v.shape[0])
        for _ in range(NEWTON_ITERATIONS):
            r = f - g(f)
            step = jnp.linalg.solve(eye - jax.jacfwd(g)(f), r)
            # a singular Jacobian (a self-locking, jammed joint) leaves f where it is
            f = jnp.where(jnp.all(jnp.isfinite(step)), f - step, f)
        normals = self.friction_normals(q, J, lam0 + L @ f)
        f, s_rate = self.friction_laws(s, v, normals)
        lam = lam0 + L @ f
        Qt = Q + W.T @ f
        qdd = minv * (Qt - J.T @ lam) if J.shape[0] else minv * Qt
        return {"qdd": qdd, "lam": lam, "phi": phi, "rate": rate, "friction": f,
                "normal": normals, "s_rate": jnp.concatenate([s_rate, c_rates]), "J": J,
                "velocity": v, "residual": f - g(f), "contact": c_forces}

    def gaps(self, q, stops):
        """Stacked gap rows g(q) of `stops` (empty stops: shape (0,))."""
        if not stops:
            return jnp.zeros(0)
        return jnp.concatenate([c.gaps(self, q) for c in stops])

    def contact_terms(self, q, qd, s):
        """(Q of the contact-law stops, their forces, their law state rates)."""
        n = self.layout.n_coordinates
        if not self.layout.contacts:
            return jnp.zeros(n), jnp.zeros(0), jnp.zeros(0)
        Q, forces, rates = jnp.zeros(n), [], []
        for c, law, (a, b) in zip(self.layout.contacts, self.contact_laws,
                                  self.layout.contact_slots):
            g, gd = jax.jvp(lambda z: c.gaps(self, z), (q,), (qd,))
            G = jax.jacfwd(lambda z: c.gaps(self, z))(q)
            state = s[a:b].reshape(law.n_states, c.n_gaps)
            f, r = jax.vmap(law.force_and_rate, in_axes=(1, 0, 0), out_axes=(0, 1))(
                state, g, gd)
            Q = Q + G.T @ f
            forces.append(f)
            rates.append(jnp.reshape(r, (-1,)))
        return Q, jnp.concatenate(forces), jnp.concatenate(rates)

    def project(self, t, x):
        """Project [q; q̇] back onto Φ = 0 and Φ_q q̇ = ν: one mass-weighted Newton step
        for each (q ← q − M⁻¹Φ_qᵀ(Φ_q M⁻¹Φ_qᵀ)⁻¹Φ, then the same for the velocity)."""
        n = self.layout.n_coordinates
        if self.layout.n_rows == 0:
            return x
        q, qd, s = x[:n], x[n:2 * n], x[2 * n:]
        minv = 1.0 / self.masses
        J = self.phi_q(q, t)
        JM = J * minv[None, :]
        chol = jax.scipy.linalg.cho_factor(JM @ J.T)
        q = q - minv * (J.T @ jax.scipy.linalg.cho_solve(chol, self.phi(q, t)))
        J = self.phi_q(q, t)
        JM = J * minv[None, :]
        chol = jax.scipy.linalg.cho_factor(JM @ J.T)
        qd = qd - minv * (J.T @ jax.scipy.linalg.cho_solve(chol, J @ qd - self.nu(q, t)))
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
        if self.layout.has_laws:
            d = self.dynamics(t, q, qd, s)
            return jnp.concatenate([qd, d["qdd"], d["s_rate"]])
        qdd, _, _, _ = self.accelerations(t, q, qd)
        return jnp.concatenate([qd, qdd])

    def outputs(self, t, x):
        n = self.layout.n_coordinates
        q, qd, s = x[:n], x[n:2 * n], x[2 * n:]
        if self.layout.has_laws:
            d = self.dynamics(t, q, qd, s)
            qdd, lam, phi, rate = d["qdd"], d["lam"], d["phi"], d["rate"]
        else:
            qdd, lam, phi, rate = self.accelerations(t, q, qd)
        out = self.channels(t, q, qd, qdd, lam, include_state=False)
        if self.layout.frictions:
            stored = 0.0
            for k, (f, law, (a, b)) in enumerate(zip(self.layout.frictions, self.laws,
                                                     self.layout.friction_slots)):
                out[f"{f.name}.friction"] = d["friction"][k]
                out[f"{f.name}.normal"] = d["normal"][k]
                if isinstance(f, LuGreFriction):
                    out[f"{f.name}.force"] = d["friction"][k]
                stored = stored + stored_energy(law, s[a:b])
            out["energy"] = out["energy"] + stored
        start = 0
        for c in self.layout.contacts:
            f = d["contact"][start:start + c.n_gaps]
            start += c.n_gaps
            out[f"{c.name}.force"] = f[0] if c.n_gaps == 1 else jnp.sum(f)
        out["constraint.position"] = jnp.max(jnp.abs(phi)) if phi.size else jnp.zeros(())
        out["constraint.velocity"] = jnp.max(jnp.abs(rate)) if rate.size else jnp.zeros(())
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
        torque_j = -cols[:, 2] @ lam_k - cross2(jnp.asarray(c.point_i) - qj[:2], force_j)
        return -force_j, -torque_j, jnp.asarray(c.frame_i)

    def channels(self, t, q, qd, qdd, lam, include_state=True, J=None) -> dict[str, Any]:
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
        for c, (a, z) in zip(self.layout.constraints, self.layout.rows):
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
        for f, value in zip(self.layout.forces, reported):
            out[f"{f.name}.force"] = value
        out["energy"] = self.energy(q, qd)
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
        if self.layout.forces or self.layout.has_laws:
            jac = _jacobian_at_start(self)
            modes.append(("linearisation at the initial state",
                          np.linalg.eigvals(np.asarray(jac))))
        return modes

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
