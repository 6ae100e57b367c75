"""The frictional contacts of a frozen planar model, stacked per point–line pair (SPEC §6).

:class:`PairGeometry` is the field ``pairs`` of :class:`~._system.PlanarSystem`: every
:class:`~._contact.PointLineContact` and :class:`~._contact.ClearanceSlider` of the model,
their pairs stacked in the order added — the body indices (static), the body-frame
geometry, the friction coefficients μ, μ_s, v_stribeck and the relaxation δ, ζ per pair and
Newton's e of ``method="moreau_jean"`` (traced arrays: a μ sweep under ``vmap`` compiles
once and nothing is re-wrapped per evaluation), the channel names and the λ-solve's
options (static). Per pair, with P on body j and the line (L, t) on body i, n = t turned
by +90° (module docstring of ``_contact``):

    ψ(q) = n · (r_P − r_L),      v_t = t · (ṙ_P − ṙ_i*),      ψ̇ = n · (ṙ_P − ṙ_i*).

The λ-stage that uses them is :mod:`._stage_lambda`; the Moreau–Jean rows
:mod:`._contact_step`.
"""

from __future__ import annotations

from typing import Any

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from .._parameter_arrays import as_parameter
from ..constraints import Bilateral, PlanarContact, ProductSet
from ..laws import friction_curve

__all__ = ["PairGeometry", "gap_and_sliding", "stack_contacts"]


class PairGeometry(eqx.Module):
    """The point–line pairs of all frictional contacts, stacked (module docstring).

    body_i, body_j: index of each pair's bodies in [ground, body 1, …] (0 = ground).
    point_j, line_point_i, line_axis_i: (n_pairs, 2) body-frame geometry.
    mu, delta, zeta: (n_pairs,) the kinetic coefficient and the relaxation.
    mu_s, v_stribeck: (n_pairs,) the static coefficient and the sliding speed over which the
    bound falls from it to mu (None: mu everywhere — no contact has a distinct μ_s).
    restitution: Newton's e [-] of the contacts under ``method="moreau_jean"``.
    names: per pair, (gap, fn, ft) channel names; contact_names: per pair, the label
    messages use (the element's name, ``"<name> (corner k)"`` for a slider's corners).
    formulation: ``"kikuuwe"`` | ``"anitescu"`` | ``"nakaoka"`` (SPEC §6).
    certify, fallback: ``solve_lambda``'s options — how the vector field checks that the
    λ-problem's solution is unique (``"auto"``, ``"full"``, ``"none"``) and whether the
    enumeration takes over where the active set finds no solution (False compiles a
    smaller vector field whose failures count as "no solution": Model.simulate then runs
    again with it).
    """

    body_i: tuple = eqx.field(static=True)
    body_j: tuple = eqx.field(static=True)
    point_j: jnp.ndarray = eqx.field(converter=as_parameter)
    line_point_i: jnp.ndarray = eqx.field(converter=as_parameter)
    line_axis_i: jnp.ndarray = eqx.field(converter=as_parameter)
    mu: Any = eqx.field(converter=as_parameter, default=None)
    delta: Any = eqx.field(converter=as_parameter, default=None)
    zeta: Any = eqx.field(converter=as_parameter, default=None)
    mu_s: Any = eqx.field(converter=as_parameter, default=None)
    v_stribeck: Any = eqx.field(converter=as_parameter, default=None)
    restitution: Any = eqx.field(converter=as_parameter, default=None)
    names: tuple = eqx.field(static=True, default=())
    contact_names: tuple = eqx.field(static=True, default=())
    formulation: str = eqx.field(static=True, default="kikuuwe")
    certify: str = eqx.field(static=True, default="auto")
    fallback: bool = eqx.field(static=True, default=True)

    @property
    def n_pairs(self) -> int:
        return len(self.body_i)

    # --- the λ-problem's set ----------------------------------------------------------------
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

    def linear_modes(self):
        """The relaxation's modes −ζ/δ ± √(ζ² − 1)/δ [1/s] of each pair (SPEC §6): a fixed
        step must resolve them."""
        modes = []
        for k, zeta, delta in zip(range(len(self.names)), np.asarray(self.zeta),
                                  np.asarray(self.delta)):
            root = np.sqrt(complex(zeta ** 2 - 1.0))
            label = (f"contact {self.contact_names[k]} relaxation (δ={delta:g} s, "
                     f"ζ={zeta:g})")
            modes.append((label, np.array([(-zeta + root) / delta, (-zeta - root) / delta])))
        return modes

    def parameters(self) -> dict[str, Any]:
        return {"contact_formulation": self.formulation, "mu": np.asarray(self.mu).tolist(),
                "delta": np.asarray(self.delta).tolist(),
                "zeta": np.asarray(self.zeta).tolist()}

    # --- kinematics -------------------------------------------------------------------------
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


def gap_and_sliding(qi, qj, qdi, qdj, point_j, line_point_i, axis_i):
    """One pair at the poses qi (body i), qj (body j) and rates qdi, qdj: (ψ, v_t, ψ̇), the gap
    [m], the sliding velocity of P over body i [m/s] and the gap's rate [m/s]."""
    arm = _rot(qj[2]) @ point_j
    r_p = qj[:2] + arm
    rot_i = _rot(qi[2])
    t = rot_i @ axis_i
    n = _perp(t)
    v_rel = qdj[:2] + qdj[2] * _perp(arm) - qdi[:2] - qdi[2] * _perp(r_p - qi[:2])
    return n @ (r_p - qi[:2] - rot_i @ line_point_i), t @ v_rel, n @ v_rel


def stack_contacts(contacts, bodies, *, formulation: str = "kikuuwe", certify: str = "auto",
                   fallback: bool = True, restitution=None) -> PairGeometry:
    """The bound contacts' pairs stacked into one :class:`PairGeometry` (host NumPy: no
    compile); `bodies` the model's bodies (index k + 1 in q). μ_s and v_stribeck are kept
    only where some contact's μ_s differs from its μ. `restitution`: Newton's e of
    ``method="moreau_jean"`` (None: e(ζ) of the first contact, :mod:`._contact_step`)."""
    from ._contact_step import check_restitution, default_restitution

    index = {id(b): k + 1 for k, b in enumerate(bodies)}
    bi, bj, pj, lp, la, names, owners = ([] for _ in range(7))
    mu, mu_s, v_stribeck, delta, zeta = ([] for _ in range(5))
    for c in contacts:
        gaps, fns, fts = (c.channel_names(q) for q in ("gap", "fn", "ft"))
        point, line_point, axis = c.pair_geometry(np)
        for k in range(c.n_pairs):
            bi.append(0 if getattr(c.body_i, "is_ground", False) else index[id(c.body_i)])
            bj.append(0 if getattr(c.body_j, "is_ground", False) else index[id(c.body_j)])
            pj.append(point[k])
            lp.append(line_point[k])
            la.append(axis[k])
            for out, value in ((mu, c.mu), (mu_s, c.mu_s), (v_stribeck, c.v_stribeck),
                               (delta, c.delta), (zeta, c.zeta)):
                out.append(float(np.asarray(value)))
            names.append((gaps[k], fns[k], fts[k]))
            owners.append(c.name if c.n_pairs == 1 else f"{c.name} (corner {k + 1})")
    static = mu_s != mu
    e = (default_restitution(zeta[0]) if restitution is None
         else check_restitution("contact_system", restitution))
    return PairGeometry(body_i=tuple(bi), body_j=tuple(bj), point_j=np.array(pj),
                        line_point_i=np.array(lp), line_axis_i=np.array(la),
                        mu=np.array(mu), delta=np.array(delta), zeta=np.array(zeta),
                        mu_s=np.array(mu_s) if static else None,
                        v_stribeck=np.array(v_stribeck) if static else None,
                        restitution=e, names=tuple(names), contact_names=tuple(owners),
                        formulation=formulation, certify=certify, fallback=bool(fallback))
