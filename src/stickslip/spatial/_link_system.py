"""The traced side of a spatial link system: stages from the state to the accelerations.

:class:`LinkSystem` is an immutable :class:`~stickslip.systems.AbstractSystem` with state
x = [X; s], X the bodies' (n_b, 13) rows (r, q = (w, x, y, z), v, ω — world frame) and s
the joint-friction laws' states. Its arrays are traced (masses, anchors, loads, friction
laws, μ: a new value reuses the compiled run; ``vmap`` over them batches), its topology is
the static :class:`LinkLayout`. A revolute joint's angle is a state too, so that it counts
whole turns: its rate is the joint's rate, and the projection after every fixed step snaps it
to the exact angle atan2(…) + 2πk (k the nearest whole turn), so it never drifts. With
contacts, the last state ``contact.unsolved_time`` [s] integrates the indicator of a λ-problem
the solver left unsolved (normalised residual above ``_link_dynamics.UNSOLVED_RESIDUAL``: no solution — the
Painlevé paradox, SPEC §6 — or no convergence), so a
failure between two output samples is not lost: ``SpatialModel.simulate`` raises
:class:`~stickslip.errors.PainleveError` at the first sample after one. One
evaluation runs the stages

    poses → joint rows (Φ, J, Φ̇, γ) → applied forces Q → [joint friction loop] →
    λ-stage (joints, drivers and point contacts) → accelerations

with the Newton–Euler equations (world frame, SPEC §7 eq. 11)

    M ν̇ = Q + Jᵀλ,   Q = [m g + f; τ − ω × I_w ω],   I_w = R I Rᵀ,

and J ν̇ = c on the joint rows, c = −J̇ν − 2αΦ̇ − β²Φ (Baumgarte; the fixed-step methods
also project onto Φ = 0, Φ̇ = 0 after every step). Without contacts λ comes from the Schur
complement S = J M⁻¹ Jᵀ (:func:`._link_dynamics.spd_solve`; S formed by
:func:`._link_dynamics.constraint_matrix`, densely or body by body); with contacts the joint
rows are the bilateral block of one λ-problem (SPEC §6), each contact a
:class:`~stickslip.constraints.SpatialContact` with the relaxation (δ, ζ):
w = J ν̇ + J̇ν + (2ζ/δ) J ν + (1/δ²)[0; 0; ψ] ∈ −lim N_F^{U_ε}(λ).

**Joint friction** (SPEC §9 9-2 in 3-D): along a revolute joint's angle or a prismatic
joint's slide, the law sees the slide rate and the normal force — a·N for a revolute joint
(a the pin radius, N the radial part of the joint's reaction force), N for a prismatic one
(the reaction force's part normal to the axis). The reaction depends on the friction force
f, and with a load-dependent law f depends on N: the loop r(f) = f − g(f) = 0 is solved by
Newton's method (``_link_dynamics.NEWTON_ITERATIONS`` steps, Jacobian by forward mode), as in planar.
"""

from __future__ import annotations

import weakref
from typing import Any, ClassVar, cast

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from .._compile.traced_once import computed_where, traced_once
from .._parameter_arrays import as_parameter
from .._validation import is_traced
from ..systems import AbstractSystem
from ._link_applied import applied_loads
from ._link_dynamics import (
    constraint_matrix,
    inverse3,
    inverse_mass,
    inverse_mass_operator,
    joint_factor,
    joint_reactions,
    lambda_stage,
    slide_rows_at,
    spd_solve,
)
from ._link_kinematics import (
    contact_terms,
    coordinate_jacobian,
    dot3,
    driver_terms,
    joint_coordinate,
    joint_terms,
    mm,
    mv,
)
from ._link_layout import ContactArrays, JointArrays, LinkLayout, SpringArrays
from ._link_outputs import link_channels
from ._link_rows import LocalRows
from ._link_step import LinkTimeStepping
from ._rigid import quat_rate, rotate_quat, rotation

__all__ = ["LinkSystem"]


def _take(x, idx):
    """x[idx] for static indices: a slice where they are consecutive, a broadcast where
    they are all one, the concatenation of a few such runs otherwise (a gather where there
    are more than ``_TAKE_RUNS``): a gather is a step of its own in the compiled program, a
    slice, broadcast or concatenation fuses with its use (the arm of
    ``spatial.examples.arm_pushes_box``: 26 gathers in its Moreau–Jean program before)."""
    idx = np.asarray(idx)
    if idx.size == 0:
        return x[idx]
    if np.all(idx == idx[0]):
        return jnp.broadcast_to(x[int(idx[0])], (idx.size,) + x.shape[1:])
    cuts = np.flatnonzero(np.diff(idx) != 1) + 1
    if cuts.size >= _TAKE_RUNS:
        return x[idx]
    runs = np.split(idx, cuts)
    parts = [x[int(run[0]):int(run[-1]) + 1] for run in runs]
    return parts[0] if len(parts) == 1 else jnp.concatenate(parts)


_TAKE_RUNS = 8       # at most this many runs of consecutive indices are concatenated


def _driven(const, fn, t, derivatives):
    """(value, rate, acceleration) of a driver's target at t: the traced constant (rates
    0), or the user's function of t and its time derivatives by forward mode (the second
    only with `derivatives`)."""
    zero = jnp.zeros_like(const)
    if fn is None:
        return const, zero, zero

    def value(s):
        return jnp.asarray(fn(t + s), dtype=float) + 0.0 * const

    def rate(s):
        return jax.jvp(value, (s,), (jnp.ones_like(s),))
    s0 = jnp.zeros((), dtype=float)
    if not derivatives:
        return (*rate(s0), zero)
    (val, vel), (_, acc) = jax.jvp(rate, (s0,), (jnp.ones_like(s0),))
    return val, vel, acc


class LinkSystem(AbstractSystem, LinkTimeStepping):
    """A frozen spatial link system (module docstring). Build it with
    ``SpatialModel.link_system()``; run it with ``ss.simulate`` (an ODE method, or
    ``method="moreau_jean"``: :mod:`._link_step`) or ``SpatialModel.simulate``."""

    trace_stages_once: ClassVar[bool] = True
    projects_after_step: ClassVar[bool] = True
    samples_in_stages: ClassVar[bool] = True      # outputs share the λ-stage: one copy

    x0: jnp.ndarray = eqx.field(converter=as_parameter)            # (n_b, 13)
    masses: jnp.ndarray = eqx.field(converter=as_parameter)        # (n_b,)
    inertias: jnp.ndarray = eqx.field(converter=as_parameter)      # (n_b, 3, 3) body frame
    gravity: jnp.ndarray = eqx.field(converter=as_parameter)
    joint_arrays: JointArrays                                      # per joint, stacked
    driver_values: jnp.ndarray = eqx.field(converter=as_parameter)  # (n_d,)
    force_values: jnp.ndarray = eqx.field(converter=as_parameter)   # (n_pf, 3)
    force_points: jnp.ndarray = eqx.field(converter=as_parameter)   # (n_pf, 3) body frame
    torque_values: jnp.ndarray = eqx.field(converter=as_parameter)  # (n_bt, 3)
    springs: SpringArrays
    laws: tuple                                                    # friction laws
    pin_radii: jnp.ndarray = eqx.field(converter=as_parameter)     # (n_f,) 0: prismatic
    contact_arrays: ContactArrays                                  # per contact, stacked
    delta: jnp.ndarray = eqx.field(converter=as_parameter)
    zeta: jnp.ndarray = eqx.field(converter=as_parameter)
    alpha: jnp.ndarray = eqx.field(converter=as_parameter)
    beta: jnp.ndarray = eqx.field(converter=as_parameter)
    s0: jnp.ndarray = eqx.field(converter=as_parameter)
    layout: LinkLayout = eqx.field(static=True)

    # --- stage 1: poses ----------------------------------------------------------------------
    def poses(self, X):
        """(r, R, v, ω) of every body with the ground appended at index n_b."""
        zero = jnp.zeros((1, 3), X.dtype)
        r = jnp.concatenate([X[:, 0:3], zero])
        R = jnp.concatenate([rotation(X[:, 3:7]), jnp.eye(3)[None]])
        v = jnp.concatenate([X[:, 7:10], zero])
        w = jnp.concatenate([X[:, 10:13], zero])
        return r, R, v, w

    def _scatter(self, blocks, i, j):
        """Rows (k, 12) over [body i; body j] into (k, 6 n_b) columns (ground dropped)."""
        n_b = self.layout.n_bodies
        # one-hot columns (static) times the blocks: elementwise, so it fuses with what
        # computes the blocks (a place-by-index would be a scatter)
        eye = np.eye(n_b + 1)[:, :n_b]
        oi = jnp.asarray(eye[np.asarray(i)], blocks.dtype)[:, None, :, None]
        oj = jnp.asarray(eye[np.asarray(j)], blocks.dtype)[:, None, :, None]
        full = oi * blocks[:, :, None, :6] + oj * blocks[:, :, None, 6:]
        return full.reshape(blocks.shape[0], blocks.shape[1], 6 * n_b)

    # --- stage 2: joint and driver rows ----------------------------------------------------
    def joint_terms(self, t, X, derivatives: bool = True):
        """(Φ, J, Φ̇, J̇ν − time terms) of the kept joint and driver rows; without
        `derivatives`, Φ̇ = J ν (the time terms left out) and J̇ν = 0 — what the projection
        and the build's checks need, at a fraction of the compile."""
        phi, Jl, rate, second, bi, bj = self.joint_rows_local(t, X, derivatives)
        return phi, self._scatter_rows(Jl, bi, bj), rate, second

    def _scatter_rows(self, Jl, bi, bj):
        """Local rows (m, 12) over [body bi; body bj] into (m, 6 n_b) columns."""
        return LocalRows(Jl, bi, bj, self.layout.n_bodies).dense()

    def joint_rows_local(self, t, X, derivatives: bool = True):
        """:meth:`joint_terms` with J in local form: (Φ, J_l (m, 12), Φ̇, J̇ν, b_i, b_j), row
        k of J_l over [v, ω of body b_i[k]; v, ω of body b_j[k]] (b_i, b_j static NumPy
        indices, n_b for the ground).

        Inside a trace, evaluated through one :func:`traced_once` wrapper per system object
        and `derivatives` (:func:`_rows_once`): a Moreau–Jean run evaluates the rows five
        times (the step's θ-point and end poses, the projection's two, the samples), with the
        same shapes each time, and traced them five times — over half of that program's
        tracing (the arm of ``spatial.examples.arm_pushes_box``, cProfile, 2026-11-26). Once
        now: the arm's tracing 3.70–4.11 → 3.24–3.40 s, its cold first call 15.1–16.2 →
        13.4–14.3 s (``jax_log_compiles``, fresh processes alternating, two each), every
        result channel the same to the bit."""
        if is_traced((t, X)):
            return _rows_once(self, derivatives)(t, X)
        return self._joint_rows_local(t, X, derivatives)

    def joint_rows_each(self, ts, Xs, derivatives: bool = True):
        """:meth:`joint_rows_local` at each (ts[k], Xs[k]) in one batched evaluation:
        (Φ, J_l, Φ̇, J̇ν) with a leading axis over k, and b_i, b_j. Where a program needs
        the rows at several poses known together, this is one set of kernels instead of one
        per pose (the Moreau–Jean step's θ-point and end poses:
        ``benchmarks/program_census.py``)."""
        bodies = {}

        def one(t, X):
            phi, Jl, rate, second, bi, bj = self.joint_rows_local(t, X, derivatives)
            bodies["b"] = (bi, bj)
            return phi, Jl, rate, second
        return (*jax.vmap(one)(ts, Xs), *bodies["b"])

    def _joint_rows_local(self, t, X, derivatives: bool = True):
        """:meth:`joint_rows_local`, evaluated directly."""
        layout = self.layout
        r, R, v, w = self.poses(X)
        n_j = len(layout.joints)        # slots filled group by group below
        phi, J, rate, second = (cast("list[Any]", [None] * n_j) for _ in range(4))
        for kind, members in layout.joint_groups:
            idx = np.array(members)
            i = np.array([layout.joints[k][2] for k in members])
            j = np.array([layout.joints[k][3] for k in members])
            arrays = jax.tree.map(lambda x, idx=idx: _take(x, idx), self.joint_arrays)

            def one(a, ri, Ri, vi, wi, rj, Rj, vj, wj, kind=kind):
                # Φ, J, Φ̇ = J ν and J̇ν written out (_link_kinematics.joint_terms); without
                # `derivatives` the unused J̇ν is dropped by the compiler
                p, Jl, rate, second = joint_terms(kind, ri, Ri, vi, wi, rj, Rj, vj, wj, a)
                return p, Jl, rate, (second if derivatives else jnp.zeros_like(p))
            p, Jl, rt, sc = jax.vmap(one)(arrays, *(_take(z, i) for z in (r, R, v, w)),
                                          *(_take(z, j) for z in (r, R, v, w)))
            for pos, k in enumerate(members):
                phi[k], J[k], rate[k], second[k] = p[pos], Jl[pos], rt[pos], sc[pos]
        parts = [(phi[k], J[k], rate[k], second[k]) for k in range(len(layout.joints))
                 if phi[k] is not None]
        bodies = [(layout.joints[k][2], layout.joints[k][3], phi[k].shape[0])
                  for k in range(len(layout.joints)) if phi[k] is not None]
        for (_, jk, mode, fn, slot) in layout.drivers:
            if mode == "effort":
                continue
            kind, i, j = layout.joints[jk][1], layout.joints[jk][2], layout.joints[jk][3]
            a = jax.tree.map(lambda x, jk=jk: x[jk], self.joint_arrays)
            target = _driven(self.driver_values[slot], fn, t, derivatives)
            if mode == "velocity":          # the driven value is the rate: (·, θ̇_d, θ̈_d)
                target = (jnp.zeros_like(target[0]), target[0], target[1])
            p, Jl, rt, sc = driver_terms(kind, mode, r[i], R[i], v[i], w[i], r[j], R[j],
                                         v[j], w[j], a, target)
            if not derivatives:
                sc = jnp.zeros_like(p)
            parts.append((p, Jl, rt, sc))
            bodies.append((i, j, 1))
        if not parts:
            empty = jnp.zeros((0,), X.dtype)
            none = np.zeros(0, int)
            return empty, jnp.zeros((0, 12), X.dtype), empty, empty, none, none
        bi = np.concatenate([np.full(k, i) for i, _, k in bodies])[layout.kept]
        bj = np.concatenate([np.full(k, j) for _, j, k in bodies])[layout.kept]
        phi = _take(jnp.concatenate([p[0] for p in parts]), layout.kept)
        Jl = _take(jnp.concatenate([p[1] for p in parts]), layout.kept)
        rate = _take(jnp.concatenate([p[2] for p in parts]), layout.kept)
        second = _take(jnp.concatenate([p[3] for p in parts]), layout.kept)
        return phi, Jl, rate, second, bi, bj

    # --- stage 3: applied forces -------------------------------------------------------------
    def inverse_inertias(self, X):
        """(R I⁻¹ Rᵀ, R I Rᵀ) (n_b, 3, 3) of every body: world-frame inverse inertia and
        inertia."""
        R = rotation(X[:, 3:7])
        Rt = jnp.swapaxes(R, 1, 2)
        Iinv = inverse3(self.inertias)
        return mm(mm(R, Iinv), Rt), mm(mm(R, self.inertias), Rt)

    def applied(self, t, X):
        """Q (n_b, 6): gravity, point forces, torques, springs, effort drivers,
        gyroscopic terms; and the springs' (length, tension)
        (:func:`._link_applied.applied_loads`)."""
        return applied_loads(self, t, X)

    def slide_rows(self, X, joints):
        """∂ṡ/∂ν (len(joints), 6 n_b) of the coordinates of `joints` and their rates."""
        layout = self.layout
        r, R, _, _ = self.poses(X)
        rows = []
        for jk in joints:
            kind, i, j = layout.joints[jk][1], layout.joints[jk][2], layout.joints[jk][3]
            a = jax.tree.map(lambda x, jk=jk: x[jk], self.joint_arrays)

            Jl = coordinate_jacobian(kind, r[i], R[i], r[j], R[j], a)
            rows.append(self._scatter(Jl[None], np.array([i]), np.array([j]))[0, 0])
        if not rows:
            return jnp.zeros((0, 6 * layout.n_bodies))
        return jnp.stack(rows)

    def _effort(self, X, jk, value):
        W = self.slide_rows(X, [jk])[0]
        return (W * value).reshape(self.layout.n_bodies, 6)

    # --- stage 4: contacts --------------------------------------------------------------------
    def contact_rows(self, X):
        """(ψ, J (3 n_c, 6 n_b), Jν, J̇ν) of the point contacts, rows (t₁, t₂, n) each."""
        psi, Jl, u, ud, ba, bb = self.contact_rows_local(X)
        return psi, self._scatter_rows(Jl, ba, bb), u, ud

    def contact_rows_local(self, X):
        """:meth:`contact_rows` with J in local form (see :meth:`joint_rows_local`):
        (ψ, J_l (3 n_c, 12), Jν, J̇ν, b_a, b_b)."""
        layout = self.layout
        r, R, v, w = self.poses(X)
        n_c = len(layout.contacts)
        psi, J, u, ud = (cast("list[Any]", [None] * n_c) for _ in range(4))
        for kind, members in layout.contact_groups:
            idx = np.array(members)
            a = np.array([layout.contacts[k][2] for k in members])
            b = np.array([layout.contacts[k][3] for k in members])
            arrays = jax.tree.map(lambda x, idx=idx: _take(x, idx), self.contact_arrays)

            def one(c, ra, Ra, va, wa, rb, Rb, vb, wb, kind=kind):
                return contact_terms(kind, ra, Ra, va, wa, rb, Rb, vb, wb, c)
            p, Jl, uu, udd = jax.vmap(one)(arrays, *(_take(z, a) for z in (r, R, v, w)),
                                           *(_take(z, b) for z in (r, R, v, w)))
            for pos, k in enumerate(members):
                psi[k], J[k], u[k], ud[k] = p[pos], Jl[pos], uu[pos], udd[pos]
        ba = np.repeat([c[2] for c in layout.contacts], 3)
        bb = np.repeat([c[3] for c in layout.contacts], 3)
        return (jnp.stack(psi), jnp.concatenate(J), jnp.concatenate(u),
                jnp.concatenate(ud), ba, bb)

    # --- stage 5: the λ-stage and accelerations ----------------------------------------------
    def dynamics(self, t, X, s):
        """Everything one evaluation gives: ν̇ (n_b, 6), joint multipliers, contact forces,
        friction forces/normals/rates, Φ, Φ̇, springs (:func:`._link_dynamics.lambda_stage`)."""
        return lambda_stage(self, t, X, s)

    def linear_modes(self):
        """The stiff modes the step check needs, without linearising the whole vector field
        (which would compile it op by op): each joint-friction law's own modes on the
        effective inertia of its joint, m_eff = 1/(W M⁻¹ Wᵀ) at the initial pose, and each
        contact's relaxation, s² + (2ζ/δ) s + 1/δ² = 0 (SPEC §6)."""
        if np.ndim(self.masses) > 1:          # a stacked batch: member 0's modes
            return jax.tree.map(lambda a: a[0] if eqx.is_array(a) else a,
                                self).linear_modes()
        modes = []
        layout = self.layout
        if layout.frictions:
            X = np.asarray(self.x0)
            W = np.asarray(slide_rows_at(self, jnp.asarray(X)))
            minv = inverse_mass(self, X)
            for k, (jk, _) in enumerate(layout.frictions):
                m_eff = 1.0 / float(W[k] @ minv @ W[k])
                name = layout.joints[jk][0]
                for regime, eig in self.laws[k].linear_modes(mass=m_eff, normal_force=1.0):
                    modes.append((f"{name}: {regime}", np.asarray(eig)))
        if layout.contacts:
            delta, zeta = float(self.delta), float(self.zeta)
            root = np.sqrt(complex(zeta ** 2 - 1.0))
            modes.append(("contact relaxation (δ, ζ)",
                          np.array([(-zeta + root) / delta, (-zeta - root) / delta])))
        return modes

    def joint_reactions(self, X, jk, J, lam):
        """Joint `jk`'s reaction on its body j (:func:`._link_dynamics.joint_reactions`)."""
        return joint_reactions(self, X, jk, J, lam)

    # --- energy, projection -------------------------------------------------------------------
    def energy(self, X):
        """Kinetic + gravitational + spring potential energy [J]."""
        _, Iw = self.inverse_inertias(X)
        v, w = X[:, 7:10], X[:, 10:13]
        kinetic = 0.5 * jnp.sum(self.masses * jnp.sum(v * v, axis=1)) + 0.5 * jnp.sum(
            jnp.einsum("bi,bij,bj->b", w, Iw, w))
        potential = -jnp.sum(self.masses * (X[:, 0:3] @ self.gravity))
        r, R, _, _ = self.poses(X)
        for k, (_, i, j) in enumerate(self.layout.springs):
            s = self.springs
            d = r[j] + R[j] @ s["s_j"][k] - r[i] - R[i] @ s["s_i"][k]
            length = jnp.sqrt(jnp.sum(d * d))
            potential = potential + 0.5 * s["k"][k] * (length - s["l0"][k]) ** 2
        return kinetic + potential

    def project(self, t, x, position_rows=None):
        """Renormalise the quaternions, then one mass-weighted Newton step onto Φ = 0 (the
        holonomic rows) and one onto Φ̇ = 0 (every row): δ = −M⁻¹Jᵀ(J M⁻¹ Jᵀ)⁻¹ Φ.

        S = J M⁻¹ Jᵀ is factored once, before the step onto Φ = 0, and serves the step onto
        Φ̇ = 0 (Φ̇ at the corrected pose) too: it leaves (relative correction) × Φ̇, after a
        Runge–Kutta step ~1e-13 × 1e-10.

        `position_rows` (optional, every kept row holonomic): ``(J, M⁻¹Jᵀ, solve)`` of the
        rows at a nearby pose, ``solve`` applying (J M⁻¹ Jᵀ)⁻¹ — the Moreau–Jean step's own,
        at the pose it predicts for the step's end — for both steps instead of a factor at
        x (simplified Newton steps: each leaves (relative change of J between the poses,
        ~h² |ν̇|) × its residual, and the next step projects again). Measured on the
        Moreau–Jean route over 2 s at h = 1 ms, against factoring S again at the corrected
        pose for the step onto Φ̇ = 0 (as this did until 2026-11-27): the joints' largest
        velocity residual 4.9e-13 against 1.7e-16 m/s on the cart of
        ``benchmarks/spatial_links.py``, 7.2e-12 against 8.9e-16 on its double pendulum, the
        position residual ~4e-15 m either way, the states 3e-7 / 3e-9 apart (far inside
        the route's own O(h²) error: the double pendulum's angles are 1.8e-5 rad off RK4),
        its energy change over 2 s the same to four digits; one constraint build and one
        25 × 25 factorisation fewer a step: the cart's step 16 % faster (both compiled in one
        process and timed alternately, paired median of 6 rounds). With a factor at x
        (no `position_rows`) the joints' largest position residual over 2 s on the cart was
        1.6e-16 m against 4.2e-15 m with the end pose's, and its step 145 → 128 µs."""
        layout = self.layout
        n_b = layout.n_bodies
        X = x[:13 * n_b].reshape(n_b, 13)
        q = X[:, 3:7]
        X = X.at[:, 3:7].set(q / jnp.linalg.norm(q, axis=1, keepdims=True))
        rest = x[13 * n_b:]
        if layout.kept.size == 0:
            return jnp.concatenate([X.reshape(-1), rest])
        apply_minv = inverse_mass_operator(self, X)
        phi, Jl, rate, _, bi, bj = self.joint_rows_local(t, X, derivatives=False)
        hol = np.nonzero(layout.holonomic)[0]
        rows = LocalRows(Jl, bi, bj, n_b)
        if position_rows is not None and hol.size == Jl.shape[0]:
            _, MJt, solve = position_rows
        else:                                  # the rows in local form (._link_rows)
            MJt, solve = None, joint_factor(self, X, Jl, bi, bj)

        def back(y):                           # M⁻¹Jᵀy
            return MJt @ y if MJt is not None else apply_minv(rows.transpose_times(y))
        if hol.size:
            if hol.size == Jl.shape[0]:
                dxi = -back(solve(phi))
            else:                              # velocity drivers: a block of their own
                held = LocalRows(_take(Jl, hol), bi[hol], bj[hol], n_b)
                dxi = -apply_minv(held.transpose_times(spd_solve(
                    constraint_matrix(self, X, _take(Jl, hol), bi[hol], bj[hol]),
                    _take(phi, hol))))
            dxi = dxi.reshape(n_b, 6)
            X = X.at[:, 0:3].add(dxi[:, :3])
            X = X.at[:, 3:7].set(rotate_quat(X[:, 3:7], dxi[:, 3:]))
            rate = self.joint_rows_local(t, X, derivatives=False)[2]
        dnu = -back(solve(rate))
        X = X.at[:, 7:13].add(dnu.reshape(n_b, 6))
        n_s = layout.n_law_states
        if layout.revolutes:
            n_r = len(layout.revolutes)
            wrapped = self.revolute_angles(X)
            tracked = rest[n_s:n_s + n_r]
            turns = jnp.round((tracked - wrapped) / (2 * jnp.pi))
            rest = jnp.concatenate([rest[:n_s], wrapped + 2 * jnp.pi * turns,
                                    rest[n_s + n_r:]])
        return jnp.concatenate([X.reshape(-1), rest])

    # --- AbstractSystem ------------------------------------------------------------------------
    @property
    def state_names(self):
        return self.layout.state_names()

    @property
    def units(self):
        return self.layout.units()

    def initial_state(self):
        return jnp.concatenate([jnp.reshape(self.x0, (-1,)), self.s0,
                                self.revolute_angles(self.x0),
                                jnp.zeros(1 if self.layout.contacts else 0)])

    def _split(self, x):
        n_b = self.layout.n_bodies
        n_s = self.layout.n_law_states
        return x[:13 * n_b].reshape(n_b, 13), x[13 * n_b:13 * n_b + n_s]

    def _revolute_frames(self, X):
        """(r_i, R_i, r_j, R_j, ω_i, ω_j, arrays) of the revolute joints, stacked."""
        layout = self.layout
        r, R, _, w = self.poses(X)
        idx = np.array(layout.revolutes)
        i = np.array([layout.joints[k][2] for k in layout.revolutes])
        j = np.array([layout.joints[k][3] for k in layout.revolutes])
        a = jax.tree.map(lambda z: _take(z, idx), self.joint_arrays)
        return (_take(r, i), _take(R, i), _take(r, j), _take(R, j), _take(w, i), _take(w, j),
                a)

    def revolute_angles(self, X):
        """The revolute joints' angles in (−π, π] [rad]."""
        if not self.layout.revolutes:
            return jnp.zeros(0)
        ri, Ri, rj, Rj, _, _, a = self._revolute_frames(X)
        return jax.vmap(lambda *p: joint_coordinate("RevoluteJoint", *p))(ri, Ri, rj, Rj, a)

    def revolute_rates(self, X):
        """The revolute joints' rates u·(ω_j − ω_i) [rad/s] (u the axis in body i)."""
        if not self.layout.revolutes:
            return jnp.zeros(0)
        _, Ri, _, _, wi, wj, a = self._revolute_frames(X)
        return dot3(mv(Ri, a["frame_i"][:, :, 0]), wj - wi)

    def vector_field(self, t, x):
        X, s = self._split(x)
        return self._rates(x, X, self.dynamics(t, X, s))

    def vector_field_and_outputs(self, t, x, want=True):
        """(ẋ, outputs) from one λ-stage (``samples_in_stages``): the outputs' own part (joint
        reactions, coordinates, contact channels) only where the traced bool `want` holds."""
        X, s = self._split(x)
        d = self.dynamics(t, X, s)
        return self._rates(x, X, d), computed_where(want, self._channels, x, X, d)

    def _rates(self, x, X, d):
        qd = quat_rate(X[:, 3:7], X[:, 10:13])
        Xd = jnp.concatenate([X[:, 7:10], qd, d["nud"].reshape(-1, 6)], axis=1)
        angle_rate = self.revolute_rates(X)
        unsolved = ((d["status"] != 0).astype(x.dtype)[None] if self.layout.contacts
                    else jnp.zeros(0))
        return jnp.concatenate([Xd.reshape(-1), d["s_rate"], angle_rate, unsolved])

    def passive_energy(self, t, x):
        """The energy the divergence guard watches: `energy` plus a constant, the model's
        gravitational energy scale Σ m |g| L (L the extent of its bodies' initial centres,
        at least 1 m). The guard allows a gain of a fraction of E₀, and a chain released at
        zero potential has E₀ = 0 while kinetic and potential energies of many joules trade
        places: against 0 J it would stop a sound run at the first µJ of integration error;
        against the scale it stops a run that really gains energy."""
        layout = self.layout
        if layout.forces or layout.torques or layout.drivers:
            return None
        X = self._split(x)[0]
        extent = jnp.maximum(jnp.max(jnp.ptp(self.x0[:, 0:3], axis=0)), 1.0)
        scale = jnp.sum(self.masses) * jnp.sqrt(jnp.sum(self.gravity ** 2)) * extent
        return self.energy(X) + scale

    def outputs(self, t, x):
        X, s = self._split(x)
        return self._channels(x, X, self.dynamics(t, X, s))

    def _channels(self, x, X, d):
        return link_channels(self, x, X, d)

    def parameters(self) -> dict[str, Any]:
        return {"model": self.layout.name, "bodies": list(self.layout.bodies),
                "joints": [j[0] for j in self.layout.joints],
                "redundant_rows": list(self.layout.redundant)}


# traced_once wrappers of LinkSystem.joint_rows_local by (id of the system object,
# derivatives), each dropped with its system (a system made of a program's traced arrays
# lives as long as that program's trace)
_ROWS_ONCE: dict[tuple[int, bool], Any] = {}


def _rows_once(system: LinkSystem, derivatives: bool):
    """``(t, X) -> joint_rows_local(t, X, derivatives)`` of `system`, traced once per argument
    shapes (:meth:`LinkSystem.joint_rows_local`). The wrapper holds the system weakly and
    returns b_i, b_j (static NumPy) from what its trace recorded."""
    key = (id(system), derivatives)
    entry = _ROWS_ONCE.get(key)
    if entry is not None and entry[0]() is system:
        return entry[1]
    ref = weakref.ref(system)
    bodies: dict[str, Any] = {}

    @traced_once
    def arrays(t, X):
        alive = ref()
        assert alive is not None               # called only while its system is traced
        phi, Jl, rate, second, bi, bj = alive._joint_rows_local(t, X, derivatives)
        bodies["b"] = (bi, bj)                 # static: the same for every trace
        return phi, Jl, rate, second

    def rows(t, X):
        # a weakly typed time (t + h of a step) would be traced apart from a strong one
        phi, Jl, rate, second = arrays(jax.lax.convert_element_type(t, X.dtype), X)
        return (phi, Jl, rate, second, *bodies["b"])

    _ROWS_ONCE[key] = (ref, rows)
    weakref.finalize(system, _ROWS_ONCE.pop, key, None)
    return rows
