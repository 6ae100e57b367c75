"""The contact wrench of one body on the ground for one step (SPEC §7 steps 1–5), pure JAX:
the stage `_volume_jax` runs for a free body and `_volume_links` for a body of a jointed
system (with the joint-projected inverse mass).

The solvers are traced once each per program point that needs them, not once per call
(compile time; the numba path calls them one after the other), in two loops whose passes
all do the same kind of work (so that under ``vmap`` the lanes stay in step):

1. two passes sharing one NNLS (6 rows × max(Lmax·P, Lmax + 1) columns; zero columns change
   neither the solution nor the NNLS's steps): the QP (16) with f_n ≥ 0 and the centre of
   pressure (24) in S (25) on the full 6-axis wrench (its dual), with the slip directions
   (eq. 32's norm(v_l)) from its normal parts; then the static LP (eq. 26–31) of its wrench
   by NNLS feasibility — if feasible (or no contact), that wrench is the answer;
2. the kinetic passes, sharing one NNLS (3 rows × (Lmax + 1) columns): the kinetic
   correction (eq. 32–34) of the QP's wrench on the first pass; on the later ones of the
   wrench whose friction is the last correction's and whose normal parts (f_n, τ_1, τ_2)
   solve eq. 16 again with the normal part Qn of eq. 4's error (3 variables). The kinetic
   LP's supports are enumerated; when none is feasible, a FALLBACK pass solves it by NNLS.
   Stop when the wrench changed < 1e-10 of its size (not on the first correction) or after
   ``iterations + 1`` corrections. A pass runs only its own work (``lax.cond``). Each
   correction's friction is cut to the share that does not reverse the slip
   (`_friction_kinetic.slip_stopping_share`, as numba).
"""

from __future__ import annotations

from typing import NamedTuple

import jax.numpy as jnp
import numpy as np
from jax import lax

from ._friction_kinetic import slip_stopping_share
from ._volume_jax_friction import (
    kinetic_problem,
    kinetic_wrench,
    small_lp_choose,
    small_lp_supports,
    static_lp_problem,
    static_lp_verdict,
)
from ._volume_jax_previous import previous_kinetic, previous_static
from ._volume_jax_qp import QPDual, nnls, qp_dual, qp_primal
from ._volume_jax_section import ground_geometry
from ._volume_wrench import RESTING_SPEED_STEPS, rebound_speed

__all__ = ["body_contact", "rotation"]

# the stages of the kinetic passes (module docstring)
_KINETIC, _FALLBACK = np.int32(0), np.int32(1)


class _Passes(NamedTuple):
    stage: jnp.ndarray       # _KINETIC or _FALLBACK
    ws: jnp.ndarray          # the wrench so far (contact frame)
    previous: jnp.ndarray    # the wrench the last correction started from
    passes: jnp.ndarray      # kinetic corrections done
    done: jnp.ndarray


def rotation(q):
    """The rotation matrix of a unit quaternion q = (w, x, y, z)."""
    w, x, y, z = q[0], q[1], q[2], q[3]
    return jnp.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                      [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                      [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def body_contact(tables, x, F, T, mass, inertia, inv_i, params, dt, P, eps_v, iterations,
                 motion=None, rebound: bool = False, friction: str = "pyramid"):
    """The contact wrench on one body (force, torque about its centre of mass, world) for one
    step of size `dt` from state `x` (13,) under the applied F, T (SPEC §7 steps 1–5), and
    its record (`_volume_jax.CONTACT_FIELDS`).

    motion: None for a free body, or ``(Minv, u_free)`` — the body's 6×6 inverse mass and its
    twist (v, ω) at the step's end without contact forces, world frame about its centre of
    mass — for a body of a jointed system (eq. 13–15 with H⁻¹ the joint-projected inverse
    mass; `_volume_links`); then F, T, mass, inertia and inv_i are not used.

    friction: "pyramid" (eq. 26–34) or "previous" (the previous method's separate force and
    torque tests and corrections, `_volume_jax_previous`; a static choice)."""
    R = rotation(x[3:7])
    geo = ground_geometry(tables, x[:3], R, params.height, eps_v)      # tables.patch's S
    active = geo.active
    n, e1, e2, pg = geo.normal, geo.e1, geo.e2, geo.centroid
    L = geo.count
    basis = jnp.stack([n, e1, e2])

    def solve(_):
        area = jnp.where(active, geo.Q[0, 0], 1.0)
        Qs = geo.Q / area                                     # per unit area (docs/spatial.md 6)
        cn = params.k * geo.nc / area
        if rebound:                      # eq. 3's target: the rebound v⁺ n uniform over S
            v_in = -(n @ (x[7:10] + jnp.cross(x[10:13], pg - x[:3])))
            v_rest = RESTING_SPEED_STEPS * jnp.sqrt(jnp.sum(params.gravity ** 2)) * dt
            cn_pen = cn
            # the energy-consistent rebound (`_volume_wrench.rebound_speed`)
            cn = rebound_speed(params.restitution, v_in, v_rest, -(n @ params.gravity),
                               (geo.nc[:3] @ n) / area, dt, jnp) * (Qs[:, :3] @ n)
        if motion is None:
            # free motion over the step (eq. 13 without contact forces), eq. 6 and eq. 15
            w = x[10:13]
            wb = R.T @ w
            rb = R.T @ T - jnp.cross(wb, inertia @ wb)
            alpha = R @ (inv_i @ rb)
            u_free = jnp.concatenate([x[7:10] + dt * (F / mass + params.gravity),
                                      w + dt * alpha])
            Iw = (R @ inv_i) @ R.T
            Minv = jnp.zeros((6, 6)).at[:3, :3].set(jnp.eye(3) / mass).at[3:, 3:].set(Iw)
        else:
            Minv, u_free = motion
        d = x[:3] - pg
        sk = jnp.array([[0.0, -d[2], d[1]], [d[2], 0.0, -d[0]], [-d[1], d[0], 0.0]])
        J = jnp.eye(6).at[:3, 3:].set(sk)
        A = ((J @ Minv) @ J.T) * dt                                                 # eq. 15
        bvec = J @ u_free
        Lmax = tables.max_polygon
        valid = jnp.arange(Lmax) < L
        en = jnp.cross(geo.edge_normals, n)
        G = jnp.concatenate([jnp.concatenate([-n, jnp.zeros(3)])[None],            # f_n >= 0
                             jnp.concatenate([-geo.edge_offsets[:, None] * n, en], axis=1)])
        G = jnp.where(jnp.concatenate([jnp.array([True]), valid])[:, None], G, 0.0)  # (24–25)
        AQ = A.T @ Qs
        H = AQ @ A
        H = H.at[jnp.diag_indices(6)].multiply(1.0 + 1e-9)   # Tikhonov, as numba
        s_n = params.lam * (n @ H[:3, :3] @ n)                                      # eq. 10's λ
        H = H.at[:3, :3].add(s_n * jnp.outer(n, n))
        if motion is not None:
            # a jointed body: wrench directions the joints carry leave eq. 4's error unchanged
            # (A is singular there); eq. 10's λ on those directions only picks their
            # least-norm value (torques per radius, f̃ = (f, τ/ℓ)); a body with A of full
            # rank gets nothing added
            ell = 0.5 * tables.scale
            sc = jnp.concatenate([jnp.ones(3), jnp.full(3, ell)])
            As = sc[:, None] * A * sc[None, :]
            ev, V = jnp.linalg.eigh(0.5 * (As + As.T))
            null = ev <= 1e-9 * jnp.max(jnp.abs(ev))
            Hs = H * sc[:, None] * sc[None, :]                 # H in f̃: S H S
            r = params.lam * jnp.max(jnp.diagonal(Hs))
            Pn = (V * jnp.where(null, r, 0.0)[None, :]) @ V.T
            H = H + Pn / sc[:, None] / sc[None, :]            # back to f: S⁻¹ P S⁻¹
        g = AQ @ bvec - A.T @ cn                                                    # eq. 16

        def to_local(f):
            return jnp.concatenate([basis @ f[:3], basis @ f[3:]])

        r = geo.polygon - pg
        r2 = jnp.stack([r @ e1, r @ e2], axis=1)
        r2 = jnp.where(valid[:, None], r2, 0.0)

        def slip_directions(f):
            # eq. 32's norm(v_l): the step's slip with only the normal parts of the wrench
            f_normal = jnp.concatenate([(f[:3] @ n) * n, f[3:] - (f[3:] @ n) * n])
            v_trial = A @ f_normal + bvec
            vl = v_trial[:3] + jnp.cross(v_trial[3:], r)
            vl2 = jnp.stack([vl @ e1, vl @ e2], axis=1)
            speed = jnp.sqrt(jnp.sum(vl2 ** 2, axis=1))
            dirs = jnp.where((speed > eps_v)[:, None],
                             -vl2 / jnp.maximum(speed, 1e-300)[:, None], 0.0)
            return jnp.where(valid[:, None], dirs, 0.0)

        # the QP (16) and the static LP: two passes of one loop, one NNLS (6 rows, the
        # static LP's Lmax·P columns; the QP's dual padded with zero columns)
        wide = max(Lmax * P, Lmax + 1)

        def qp_then_static(i, st):
            w_qp, dirs, stick = st
            dual = qp_dual(H, g, G)
            static = static_lp_problem(w_qp, r2, L, params.mu_s, P)
            M = jnp.where(i == 0, jnp.zeros((6, wide)).at[:, :Lmax + 1].set(dual.M), static.M)
            y = jnp.where(i == 0, dual.b, static.y)
            mu, residual = nnls(M, y, jnp.where(i == 0, 10 * (L + 1 + 6), static.max_iter))
            f = qp_primal(dual, mu[:Lmax + 1])
            return (jnp.where(i == 0, to_local(f), w_qp),
                    jnp.where(i == 0, slip_directions(f), dirs),
                    jnp.where(i == 1, verdict(w_qp, static, residual) | ~active, stick))

        def verdict(w_qp, static, residual):
            if friction == "previous":
                return previous_static(w_qp, r2, L, params.mu_s)
            return static_lp_verdict(static, residual)

        w_qp, dirs, stick = lax.fori_loop(
            0, 2, qp_then_static, (jnp.zeros(6), jnp.zeros((Lmax, 2)), jnp.asarray(False)))

        # the kinetic passes (slipping only): after the first, eq. 16 again for the normal
        # parts (f_n, τ_1, τ_2) = Z y with the friction fixed and Qn; the kinetic LP's
        # supports; its NNLS fallback (the next pass) when none is feasible. One NNLS (3 rows,
        # Lmax + 1 columns) for the 3-variable QP and the fallback.
        Qn_s = geo.Qn / area
        AQs = A.T @ Qn_s
        Hn = AQs @ A + (H - (A.T @ Qs) @ A)
        gn = AQs @ bvec - A.T @ cn
        Z = jnp.zeros((6, 3)).at[:3, 0].set(n).at[3:, 1].set(e1).at[3:, 2].set(e2)
        Hz = (Z.T @ Hn) @ Z
        Gz = G @ Z
        no_dual = QPDual(jnp.asarray(False), jnp.ones(3), jnp.eye(3), jnp.zeros((3, Lmax + 1)),
                         jnp.zeros(3))

        Tm = jnp.zeros((3, 6)).at[0, :3].set(e1).at[1, :3].set(e2).at[2, 3:].set(n)

        def slip_stopped(w):
            # the friction (f_1, f_2, τ_n) cut to the share that does not reverse the slip
            phi = w[1:4]
            f_all = jnp.concatenate([basis.T @ w[:3], basis.T @ w[3:]])
            v_free = Tm @ (A @ (f_all - Tm.T @ phi) + bvec)
            return w.at[1:4].multiply(slip_stopping_share(phi, v_free, Tm @ A @ Tm.T, jnp))

        def kinetic_pass(st: _Passes) -> _Passes:
            in_kinetic = st.stage == _KINETIC
            qp3 = in_kinetic & (st.passes > 0)
            f0 = jnp.concatenate([st.ws[1] * e1 + st.ws[2] * e2, st.ws[3] * n])
            dual = lax.cond(qp3, lambda: qp_dual(Hz, Z.T @ (Hn @ f0 + gn), Gz), lambda: no_dual)
            fallback = kinetic_problem(st.previous, r2, L, dirs, params.mu_d)
            M = jnp.where(in_kinetic, dual.M, jnp.zeros((3, Lmax + 1)).at[:, :Lmax].set(
                fallback.A))
            y = jnp.where(in_kinetic, dual.b, fallback.b)
            # the NNLS (not on the first correction: it corrects the QP's wrench)
            mu, _ = lax.cond(qp3 | ~in_kinetic, lambda: nnls(M, y, jnp.where(
                in_kinetic, 10 * (L + 1 + 3), 3 * L)), lambda: (jnp.zeros(Lmax + 1), jnp.zeros(())))
            y3 = qp_primal(dual, mu)
            previous = jnp.where(in_kinetic, jnp.where(qp3, to_local(f0 + Z @ y3), st.ws),
                                 st.previous)
            if friction == "previous":       # force and torque clamped separately
                corrected = jnp.asarray(True)
                new = previous_kinetic(previous, r2, L, params.mu_d)
            else:
                kinetic = kinetic_problem(previous, r2, L, dirs, params.mu_d)
                x, found = lax.cond(in_kinetic, lambda: small_lp_supports(
                    kinetic.w, kinetic.A, kinetic.b, L), lambda: (jnp.zeros(Lmax),
                                                                  jnp.asarray(False)))
                # a correction (eq. 32): from a feasible support, or the fallback's NNLS
                corrected = found | ~in_kinetic
                new = jnp.where(in_kinetic, kinetic_wrench(kinetic, x), kinetic_wrench(
                    fallback, small_lp_choose(x, False, mu[:Lmax], L)))
            new = slip_stopped(new)
            change = jnp.max(jnp.abs(new - previous))
            converged = (st.passes > 0) & (change <= 1e-10 * jnp.max(jnp.abs(new)))
            passes = st.passes + corrected
            done = corrected & (converged | (passes > iterations))
            return _Passes(jnp.where(corrected, _KINETIC, _FALLBACK),
                           jnp.where(corrected, new, st.ws), previous, passes, done)

        st = lax.while_loop(lambda st: ~stick & ~st.done, kinetic_pass, _Passes(
            jnp.asarray(_KINETIC, jnp.int32), w_qp, jnp.zeros(6), jnp.asarray(0),
            jnp.asarray(False)))
        if not rebound:
            return st.ws, stick, jnp.zeros(6)
        # the position-only correction: the QP (16) with the free motion removed (b = 0),
        # the target k h of eq. 3, the same constraints (25), without eq. 10's λ
        Hp = A.T @ Qs @ A
        Hp = Hp.at[jnp.diag_indices(6)].multiply(1.0 + 1e-9)
        dual = qp_dual(Hp, -(A.T @ cn_pen), G)
        mu, _ = nnls(dual.M, dual.b, 10 * (L + 1 + 6))
        fp = qp_primal(dual, mu)
        Tp = fp[3:] + jnp.cross(pg - x[:3], fp[:3])
        pseudo = jnp.concatenate([fp[:3] / mass, (R @ inv_i) @ (R.T @ Tp)]) * dt
        return st.ws, stick, pseudo

    # no contact: nothing to solve (under vmap both branches run, selected per lane)
    ws, stick, pseudo = lax.cond(active, solve, lambda _: (jnp.zeros(6), jnp.asarray(True),
                                                            jnp.zeros(6)), None)
    ws = jnp.where(active, ws, 0.0)
    fw, tw = basis.T @ ws[:3], basis.T @ ws[3:]
    # an overflowing polygon buffer (more corners than `max_polygon`) poisons the run with
    # NaN rather than dropping the contact silently
    Fc = jnp.where(geo.overflow, jnp.nan, fw)
    Tc = tw + jnp.cross(pg - x[:3], Fc)
    nan3 = jnp.full(3, jnp.nan)
    record = jnp.concatenate([
        jnp.stack([active.astype(float), geo.volume]),
        jnp.where(active, n, nan3), jnp.where(active, pg, nan3), fw, tw,
        jnp.stack([fw @ n, jnp.where(active, stick, False).astype(float)])])
    record = jnp.where(geo.overflow, jnp.nan, record)
    if rebound:
        return Fc, Tc, active, record, jnp.where(active, pseudo, 0.0)
    return Fc, Tc, active, record
