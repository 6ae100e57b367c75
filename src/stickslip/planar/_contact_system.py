"""A planar mechanism with frictional unilateral contacts as one ODE (SPEC §6 on SPEC §9).

State x = [q; q̇; s; n_none; n_several]: the mechanism's coordinates and velocities, its law
states s (contact-law stops'), and two counters that integrate 1 while the λ-problem has no
solution / several solutions (so a Painlevé instant between two output samples is not
missed). At every evaluation of the vector field (SPEC §6):

    M q̈ = Q + Q_s + J_bᵀ λ_b + J_cᵀ λ_c,        (Q_s: the contact-law stops' forces)
    J_b q̈ = γ_b                                     (joints, SPEC §9 eq. 3-5),
    w_c = J_c q̈ + J̇_c q̇ + (2ζ/δ) J_c q̇ + (1/δ²)[0; ψ] ∈ −lim N_F^{U_ε}(λ_c),

which is the λ-problem λ − A⁻¹b ∈ −lim A⁻¹ N_F^{U_ε}(λ) with A = J M⁻¹ Jᵀ, J = [J_b; J_c]
and b = c − J M⁻¹ Q, c = [γ_b; −J̇_c q̇ − (2ζ/δ) J_c q̇ − (1/δ²)[0; ψ]] — solved by
:func:`stickslip.constraints.solve_lambda` with the chosen formulation. The joints' λ_b
here is the seed's sign (force = +J_bᵀλ_b); the planar reactions use λ = −λ_b.

Joint friction and impact stops have no place in this vector field: the ODE routes refuse
them (:meth:`ContactPlanarSystem.route_refusal`, by name); ``method="moreau_jean"`` runs
them with the contacts in one impulse problem per step (:mod:`._mj_step`), and refuses the
contact-law stops instead (their compliant law has no set-valued form there).
"""

from __future__ import annotations

from typing import Any, ClassVar

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from .._parameter_arrays import as_parameter
from ..constraints import Bilateral, PlanarContact, ProductSet, solve_lambda
from ..integrate import AbstractSystem, AbstractTimeSteppingHost
from ..laws import friction_curve
from . import _contact_step, _mj_step
from ._system import PlanarSystem

__all__ = [
    "ContactPlanarSystem",
    "PairGeometry",
    "ProjectedContactPlanarSystem",
    "ode_refusal",
]


def ode_refusal(mech, method: str) -> str | None:
    """Why the ODE route `method` cannot run a model with frictional contacts whose
    mechanism is `mech` (None: it can). Joint friction: its Newton loop (reaction ↔ friction
    law, ``_stage_solve.dynamics``) and the contacts' λ-problem would have to be solved
    together, a nonsmooth fixed point this vector field does not solve exactly. Impact stops:
    the event route that runs them does not see the contacts."""
    joints = [getattr(f.joint, "name", f.name) if hasattr(f, "joint") else f.name
              for f in mech.frictions]
    if joints:
        return (f"the joint friction of {joints} cannot be combined with frictional contacts "
                f"on the ODE route (method={method!r}): use method='moreau_jean' (one "
                "impulse problem per step holds both), or model that friction as a contact")
    stops = [s.name for s in mech.stops]
    if stops:
        return (f"impact stops {stops} cannot be combined with frictional contacts on the "
                f"ODE route (method={method!r}; the event route does not see the contacts): "
                "use method='moreau_jean', or give each stop a contact law")
    return None


class PairGeometry(eqx.Module):
    """The point–line pairs of all contacts, stacked (static body indices, array geometry).

    body_i, body_j: index of each pair's bodies in [ground, body 1, …] (0 = ground).
    point_j, line_point_i, line_axis_i: (n_pairs, 2) body-frame geometry.
    """

    body_i: tuple = eqx.field(static=True)
    body_j: tuple = eqx.field(static=True)
    point_j: jnp.ndarray = eqx.field(converter=as_parameter)
    line_point_i: jnp.ndarray = eqx.field(converter=as_parameter)
    line_axis_i: jnp.ndarray = eqx.field(converter=as_parameter)

    def _poses(self, q):
        return jnp.concatenate([jnp.zeros((1, 3), dtype=q.dtype), q.reshape(-1, 3)])

    def gaps(self, q):
        """ψ(q) [m], one per pair."""
        poses = self._poses(q)
        qi, qj = poses[np.array(self.body_i)], poses[np.array(self.body_j)]
        return jax.vmap(_gap)(qi, qj, self.point_j, self.line_point_i, self.line_axis_i)

    def sliding_velocities(self, q, qd):
        """v_t(q, q̇) [m/s], one per pair (linear in q̇)."""
        poses, rates = self._poses(q), self._poses(qd)
        i, j = np.array(self.body_i), np.array(self.body_j)
        return jax.vmap(_sliding)(poses[i], poses[j], rates[i], rates[j], self.point_j,
                                  self.line_axis_i)

    def kinematics(self, q, qd):
        """The rows of every pair in closed form (module docstring of ``_contact``), for
        u = t (tangential) and u = n (normal), both of the form u · v_rel with v_rel = ṙ_P −
        ṙ_i*, the velocity of P relative to body i's material point under it:

            row J_u (∂/∂q̇):  ẋ_j ↦ u,  φ̇_j ↦ u · ⊥(R_j p),  ẋ_i ↦ −u,  φ̇_i ↦ −u · ⊥(r_P − x_i)
            J̇_u q̇ = φ̇_i ⊥(u) · v_rel − u · (φ̇_j² R_j p + φ̇_i ⊥(v_P − ẋ_i))

        (the derivative of u · v_rel at q̈ = 0, u turning with body i). The normal row is
        ∂ψ/∂q because ψ̇ = n · v_rel. Returns ψ, J_n, J_n q̇, J̇_n q̇, v_t, J_t, J̇_t q̇:
        arrays (n_pairs,) and Jacobians (n_pairs, n). A side that is the ground for every
        pair (the usual guide or floor) contributes no terms at all."""
        side_i, side_j = _Side(self.body_i, q.shape[0]), _Side(self.body_j, q.shape[0])
        qi, qj = side_i.take(q), side_j.take(q)
        vi, vj = side_i.take(qd), side_j.take(qd)
        arm = _rotate(qj, self.point_j)                              # R_j p
        r_p = arm if qj is None else qj[:, :2] + arm
        rho = r_p if qi is None else r_p - qi[:, :2]                 # r_P − x_i
        t = _rotate(qi, self.line_axis_i)
        n = _perp2(t)
        psi = jnp.sum(n * (rho - _rotate(qi, self.line_point_i)), axis=1)
        v_p = 0.0 if vj is None else vj[:, :2] + vj[:, 2:] * _perp2(arm)
        v_rel = v_p if vi is None else v_p - vi[:, :2] - vi[:, 2:] * _perp2(rho)
        accel = 0.0 if vj is None else vj[:, 2:] ** 2 * arm           # (at q̈ = 0, sign −)
        if vi is not None:
            accel = accel + vi[:, 2:] * _perp2(v_p - vi[:, :2])
        out = []
        for u in (n, t):
            J = 0.0
            if qj is not None:
                J = side_j.place(jnp.concatenate(
                    [u, jnp.sum(u * _perp2(arm), axis=1, keepdims=True)], 1))
            if qi is not None:
                J = J - side_i.place(jnp.concatenate(
                    [u, jnp.sum(u * _perp2(rho), axis=1, keepdims=True)], 1))
            rate = jnp.sum(u * v_rel, axis=1)
            jdot = -jnp.sum(u * accel, axis=1)
            if vi is not None:
                jdot = jdot + vi[:, 2] * jnp.sum(_perp2(u) * v_rel, axis=1)
            out.append((J, rate, jdot))
        (Jn, psi_d, jdot_n), (Jt, vt, jdot_t) = out
        return psi, Jn, psi_d, jdot_n, vt, Jt, jdot_t


class _Side:
    """One side (body i or body j) of every pair, read from q (static body indices):
    ``take`` gives the bodies' (x, y, φ) rows (None where every pair has the ground
    there), ``place`` puts per-pair rows over those bodies' columns of a Jacobian. One
    body for all pairs (a slider's four corners) is a slice and a pad; mixed bodies use a
    static selection tensor."""

    def __init__(self, bodies, n):
        self.n, self.count = n, len(bodies)
        self.ground = all(k == 0 for k in bodies)
        self.single = None if len(set(bodies)) != 1 or self.ground else bodies[0]
        E = np.zeros((len(bodies), 3, n))
        for p, k in enumerate(bodies):
            if k:
                E[p, :, 3 * (k - 1):3 * k] = np.eye(3)
        self.E = E

    def take(self, vec):
        if self.ground:
            return None
        if self.single is not None:
            k = self.single
            return jnp.broadcast_to(vec[3 * (k - 1):3 * k], (self.count, 3))
        return self.E @ vec

    def place(self, rows):
        if self.single is not None:
            k = self.single
            return jnp.pad(rows, ((0, 0), (3 * (k - 1), self.n - 3 * k)))
        return jnp.einsum("pk,pkn->pn", rows, self.E)


def _rotate(pose, v):
    """R(φ) v for each pair's row of v (n_pairs, 2); v itself where `pose` is None (ground)."""
    if pose is None:
        return v
    c, s = jnp.cos(pose[:, 2:]), jnp.sin(pose[:, 2:])
    return jnp.concatenate([c * v[:, :1] - s * v[:, 1:], s * v[:, :1] + c * v[:, 1:]], axis=1)


def _perp2(v):
    """Each row (x, y) of v turned by +90°: (−y, x)."""
    return jnp.concatenate([-v[:, 1:], v[:, :1]], axis=1)


def _rot(phi):
    c, s = jnp.cos(phi), jnp.sin(phi)
    return jnp.array([[c, -s], [s, c]])


def _perp(v):
    return jnp.array([-v[1], v[0]])


def _gap(qi, qj, point_j, line_point_i, axis_i):
    r_p = qj[:2] + _rot(qj[2]) @ point_j
    r_l = qi[:2] + _rot(qi[2]) @ line_point_i
    n = _rot(qi[2]) @ _perp(axis_i)
    return n @ (r_p - r_l)


def _sliding(qi, qj, qdi, qdj, point_j, axis_i):
    arm_j = _rot(qj[2]) @ point_j
    r_p = qj[:2] + arm_j
    v_p = qdj[:2] + qdj[2] * _perp(arm_j)
    v_i = qdi[:2] + qdi[2] * _perp(r_p - qi[:2])
    t = _rot(qi[2]) @ axis_i
    return t @ (v_p - v_i)


class ContactPlanarSystem(AbstractSystem, AbstractTimeSteppingHost):
    """A :class:`PlanarSystem` plus frictional unilateral contacts (module docstring).

    mechanism: the planar system of the bodies, joints, drivers and force elements.
    pairs: the contacts' point–line pairs.   mu, delta, zeta: per pair (arrays).
    mu_s, v_stribeck: per pair, the static coefficient and the sliding speed over which the
    bound falls from it to mu (None: mu everywhere).
    formulation: ``"kikuuwe"`` | ``"anitescu"`` | ``"nakaoka"`` (SPEC §6).
    certify: how the vector field checks that the λ-problem's solution is unique
    (``solve_lambda``'s ``certify``: ``"auto"``, ``"full"``, ``"none"``).
    fallback: whether the vector field's solve falls back on the enumeration where the
    active set finds no solution (``solve_lambda``'s ``fallback``; default True).
    names: per pair, (gap, fn, ft) channel names; contact_names: per pair, the element name.
    restitution: Newton's e [-] of the contacts under ``method="moreau_jean"`` (module
    :mod:`._contact_step`; None: that route is refused).
    """

    trace_stages_once: ClassVar[bool] = True

    mechanism: PlanarSystem
    pairs: PairGeometry
    mu: jnp.ndarray = eqx.field(converter=as_parameter)
    delta: jnp.ndarray = eqx.field(converter=as_parameter)
    zeta: jnp.ndarray = eqx.field(converter=as_parameter)
    formulation: str = eqx.field(static=True)
    names: tuple = eqx.field(static=True)
    contact_names: tuple = eqx.field(static=True)
    certify: str = eqx.field(static=True, default="auto")
    # whether the vector field's λ-solve lets the enumeration take over where the active set
    # finds no solution (``solve_lambda``'s ``fallback``); False compiles a smaller vector
    # field, whose failures count as "no solution" (simulate_contacts then runs again)
    fallback: bool = eqx.field(static=True, default=True)
    # project the joints after every fixed step (contacts are not projected); see
    # PlanarSystem.projection
    projection: bool = eqx.field(static=True, default=False)
    mu_s: jnp.ndarray | None = eqx.field(converter=as_parameter, default=None)
    v_stribeck: jnp.ndarray | None = eqx.field(converter=as_parameter, default=None)
    restitution: jnp.ndarray | None = eqx.field(converter=as_parameter, default=None)

    @property
    def projects_after_step(self) -> bool:
        return self.projection

    # --- the λ-problem -------------------------------------------------------------------
    def friction_bounds(self, sliding):
        """μ per pair at the sliding velocities `sliding`: the curve from μ_s (sticking) to μ
        (sliding) of ``ss.laws.friction_curve``; μ where no static coefficient is given."""
        if self.mu_s is None:
            return self.mu
        return friction_curve(sliding, self.mu, self.mu_s, self.v_stribeck)

    def admissible_set(self, n_bilateral: int, mu=None) -> ProductSet:
        """The λ-problem's set: the joints' rows, then one PlanarContact per pair with the
        bound `mu` (default the kinetic μ)."""
        mu = self.mu if mu is None else mu
        blocks = [Bilateral(n_bilateral)] if n_bilateral else []
        blocks += [PlanarContact(mu=mu[k]) for k in range(len(self.names))]
        labels = (["joints"] if n_bilateral else []) + list(self.contact_names)
        return ProductSet(blocks, labels)

    def dynamics(self, t, q, qd, checked: bool = True, s=None):
        """q̈, the joints' multipliers (planar sign), the contact forces and the λ-problem's
        solution at (t, q, q̇). `checked`: the λ-problem's status is decided as `certify`
        says, with the enumeration as fallback where `fallback` is set; ``False`` (the output samples, which the
        integrators evaluate under ``vmap``, where ``lax.cond`` would run the enumeration for
        every sample) keeps the certified active-set solution and reports status 1 where
        the active set found none — the Painlevé stop reads the vector field's counters.
        `s`: the mechanism's law states (None: zero)."""
        mech = self.mechanism
        # the planar seam (SPEC §9): M q̈ = Q − J_bᵀλ, J_b q̈ = γ_b (Baumgarte included),
        # the contact-law stops' forces in Q
        eqs, phi, rate, c_forces, c_rates = mech.equations(t, q, qd, s)
        minv, Q, Jb, gamma = eqs.minv, eqs.Q, eqs.J, eqs.gamma
        n_b = Jb.shape[0]
        psi, Jn, psi_d, jdot_n, vt, Jt, jdot_t = self.pairs.kinematics(q, qd)
        k = 2.0 * self.zeta / self.delta
        c_t = -(jdot_t + k * vt)
        c_n = -(jdot_n + k * psi_d + psi / self.delta ** 2)
        n_p = psi.shape[0]
        Jc = jnp.stack([Jt, Jn], axis=1).reshape(2 * n_p, -1)     # rows t1, n1, t2, n2, …
        cc = jnp.stack([c_t, c_n], axis=1).reshape(-1)
        J = jnp.concatenate([Jb, Jc])
        c = jnp.concatenate([gamma, cc])
        JM = J * minv[None, :]
        A = JM @ J.T
        b = c - JM @ Q
        sol = solve_lambda(self.admissible_set(n_b, self.friction_bounds(vt)), A, b,
                           self.formulation,
                           certify=self.certify if checked else "none",
                           fallback=checked and self.fallback)
        qdd = minv * (Q + J.T @ sol.lam)
        lam_c = sol.lam[n_b:].reshape(n_p, 2)
        return {"qdd": qdd, "lam_planar": -sol.lam[:n_b], "ft": lam_c[:, 0],
                "fn": lam_c[:, 1], "gap": psi, "sliding": vt, "status": sol.status,
                "phi": phi, "rate": rate, "J": Jb, "residual": sol.residual,
                "stop_forces": c_forces, "s_rate": c_rates}

    # --- AbstractSystem -------------------------------------------------------------------
    @property
    def _n_mechanism(self) -> int:
        """Length of the mechanism's part [q; q̇; s] of the state."""
        layout = self.mechanism.layout
        return 2 * layout.n_coordinates + layout.n_law_states

    @property
    def state_names(self):
        return tuple(self.mechanism.state_names) + ("painleve.none", "painleve.several")

    @property
    def units(self):
        out = dict(self.mechanism.units)
        for gap, fn, ft in self.names:
            out.update({gap: "m", fn: "N", ft: "N"})
        out.update({"painleve.none": "s", "painleve.several": "s", "painleve.status": "-"})
        return out

    def initial_state(self):
        m = self.mechanism
        return jnp.concatenate([m.q0, m.qd0, jnp.zeros(m.layout.n_law_states), jnp.zeros(2)])

    def vector_field(self, t, x):
        n, m = self.mechanism.layout.n_coordinates, self._n_mechanism
        q, qd, s = x[:n], x[n:2 * n], x[2 * n:m]
        d = self.dynamics(t, q, qd, s=s)
        flags = jnp.stack([d["status"] == 1, d["status"] == 2]).astype(x.dtype)
        return jnp.concatenate([qd, d["qdd"], d["s_rate"], flags])

    def project(self, t, x):
        m = self._n_mechanism
        if self.mechanism.layout.n_rows == 0:
            return x
        y = self.mechanism.project(t, x[:m])
        return jnp.concatenate([y, x[m:]])

    def outputs(self, t, x):
        n, m = self.mechanism.layout.n_coordinates, self._n_mechanism
        q, qd, s = x[:n], x[n:2 * n], x[2 * n:m]
        d = self.dynamics(t, q, qd, checked=False, s=s)
        out = self.mechanism.channels(t, q, qd, d["qdd"], d["lam_planar"],
                                      include_state=False, J=d["J"], s=s)
        start = 0
        for stop in self.mechanism.contacts:              # the contact-law stops
            f = d["stop_forces"][start:start + stop.n_gaps]
            start += stop.n_gaps
            out[f"{stop.name}.force"] = f[0] if stop.n_gaps == 1 else jnp.sum(f)
        for k, (gap, fn, ft) in enumerate(self.names):
            out[gap] = d["gap"][k]
            out[fn] = d["fn"][k]
            out[ft] = d["ft"][k]
        out["painleve.status"] = d["status"].astype(x.dtype)
        phi, rate = d["phi"], d["rate"]
        out["constraint.position"] = jnp.max(jnp.abs(phi)) if phi.size else jnp.zeros(())
        out["constraint.velocity"] = jnp.max(jnp.abs(rate)) if rate.size else jnp.zeros(())
        return out

    # --- method="moreau_jean" (stickslip.integrate._moreau_jean; module ._contact_step) ----
    def route_refusal(self, method):
        """``moreau_jean`` needs a restitution, the exact Coulomb law, CoulombODE joint
        frictions and rigid stops (:func:`._mj_step.route_refusal`); the ODE methods refuse
        joint friction and impact stops (:func:`ode_refusal`)."""
        if method != "moreau_jean":
            return ode_refusal(self.mechanism, method)
        refusal = _mj_step.route_refusal(self.mechanism, method)
        if refusal is not None:
            return refusal
        if self.formulation != "kikuuwe":
            return (f"its contact_formulation is {self.formulation!r}; the time-stepping step "
                    "solves the exact Coulomb law: build it with "
                    "contact_formulation='kikuuwe'")
        if self.restitution is None:
            return ("it has no `restitution`; build it with planar.Model.simulate or "
                    "contact_system, or set restitution= (Newton's e in [0, 1])")
        return None

    def contact_rows(self, qm, v):
        """The contact pairs' rows of the step (:func:`._contact_step.contact_rows`)."""
        return _contact_step.contact_rows(self, qm, v)

    def moreau_jean_step(self, t, x, h, theta):
        """One step of :mod:`._mj_step` with the contact pairs:
        :func:`._contact_step.moreau_jean_step`."""
        return _contact_step.moreau_jean_step(self, t, x, h, theta)

    def moreau_jean_outputs(self, t, x, forces):
        """``<contact>.gap/.fn/.ft`` and ``painleve.status``:
        :func:`._contact_step.moreau_jean_outputs`."""
        return _contact_step.moreau_jean_outputs(self, t, x, forces)

    def linear_modes(self):
        """The relaxation's modes −ζ/δ ± √(ζ² − 1)/δ [1/s] of each contact (SPEC §6): a
        fixed step must resolve them."""
        modes = []
        for k, zeta, delta in zip(range(len(self.names)), np.asarray(self.zeta),
                                  np.asarray(self.delta)):
            root = np.sqrt(complex(zeta ** 2 - 1.0))
            label = (f"contact {self.contact_names[k]} relaxation (δ={delta:g} s, "
                     f"ζ={zeta:g})")
            modes.append((label, np.array([(-zeta + root) / delta,
                                                    (-zeta - root) / delta])))
        return modes

    def parameters(self) -> dict[str, Any]:
        out = self.mechanism.parameters()
        out.update(contact_formulation=self.formulation, mu=np.asarray(self.mu).tolist(),
                   delta=np.asarray(self.delta).tolist(), zeta=np.asarray(self.zeta).tolist())
        return out


class ProjectedContactPlanarSystem(ContactPlanarSystem):
    """A :class:`ContactPlanarSystem` with ``projection=True`` by default (kept for code that
    names the class; the contact simulation sets the field on a plain ContactPlanarSystem)."""

    projection: bool = eqx.field(static=True, default=True)
