"""The volume route's contact wrench for one step (SPEC §7 steps 1–7, host side): the
active contacts' geometry (eq. 1–9), the QP (16) with the centre of pressure in S (24–25),
the static friction check (the pyramid LP of eq. 26–31, or the separate limits of the
"previous" method) and the kinetic correction (eq. 32–34), with an optional restitution
(eq. 3's target split into a rebound speed and a position-only part k h,
:func:`_position_correction`).
The numba kernels (`_volume`, `_contact_qp`, `_qp`, `_friction`) do the arithmetic; this
module orchestrates them for one `SpatialModel` state.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._contact_qp import contact_qp
from ._dynamics import quat_to_matrix
from ._friction_kinetic import kinetic_correction_host, slip_stopping_share
from ._friction_previous import previous_kinetic_host, previous_static_host
from ._friction_static import static_lp_feasible
from ._qp import cone_qp
from ._shapes import cross3
from ._volume import (
    ContactGeometry,
    contact_geometry,
    ground_contact_geometry,
    intersect,
    pair_contact_geometry,
)

__all__ = ["RESTING_SPEED_STEPS", "ContactRecord", "contact_geometries", "contact_step",
           "rebound_speed"]

# with a restitution, contacts approaching slower than the speed gravity gives in this many
# steps (0.1 m/s at Δt = 1 ms) do not bounce
RESTING_SPEED_STEPS = 10.0


@dataclass
class ContactRecord:
    """One active contact at one step: its geometry, the QP's wrench and the final wrench
    (on body B at p_g, world frame), and whether static friction held."""

    pair: int
    geometry: ContactGeometry
    wrench_qp: np.ndarray      # (6,) f, tau from eq. 16
    wrench: np.ndarray         # (6,) after the friction check / correction
    stick: bool


def contact_geometries(model, X: np.ndarray) -> list[tuple[int, ContactGeometry]]:
    """Active contacts of state `X`: (pair index, geometry) (SPEC §7 steps 1–3)."""
    R = quat_to_matrix(X[:, 3:7])
    verts = [X[i, :3] + b.shape.vertices @ R[i].T for i, b in enumerate(model.bodies)]

    def planes(i):
        nw = model.bodies[i].shape.normals @ R[i].T
        return nw, model.bodies[i].shape.offsets + nw @ X[i, :3]

    out = []
    for k, (a, bj, _, _) in enumerate(model._pairs()):
        body = model.bodies[bj]
        vb = verts[bj]
        scale = 2.0 * body.shape.radius
        if a < 0:
            h = model.ground["height"]
            if vb[:, 2].min() >= h:
                continue
            if model.patch == "projection":
                geo = ground_contact_geometry(body.shape, vb, h, scale)
                if geo is not None:
                    out.append((k, geo))
                continue
            vol = intersect([vb[f] for f in body.shape.faces],
                            (np.array([[0.0, 0.0, 1.0]]), np.array([h])), scale)
            if vol is not None:
                vol.origin = 1 - vol.origin          # the ground is A, the body B
        else:
            bod_a = model.bodies[a]
            if np.linalg.norm(X[a, :3] - X[bj, :3]) >= bod_a.shape.radius + body.shape.radius:
                continue
            scale = max(scale, 2.0 * bod_a.shape.radius)
            if model.patch == "projection":
                geo = pair_contact_geometry(verts[a], bod_a.shape, planes(a), verts[bj],
                                            body.shape, planes(bj), scale, model.eps_v)
                if geo is not None:
                    out.append((k, geo))
                continue
            vol = intersect([verts[a][f] for f in bod_a.shape.faces], planes(bj), scale)
        if vol is None:
            continue
        geo = contact_geometry(vol, scale, model.eps_v, model.patch)
        if geo is not None:
            out.append((k, geo))
    return out

# --- forces ------------------------------------------------------------------------------


def contact_step(model, X, F_app, T_app, dt, friction, lp_solver):
    """`contact_wrenches` plus the position-only pseudo-velocity (n, 6) that removes the
    penetration of contacts with a restitution (zeros otherwise)."""
    nb = len(model.bodies)
    Fc, Tc = np.zeros((nb, 3)), np.zeros((nb, 3))
    pseudo = np.zeros((nb, 6))
    geos = model.contact_geometries(X)
    if not geos:
        return Fc, Tc, [], pseudo
    pairs = model._pairs_e()
    m = len(geos)
    L_max = max(len(g.edge_offsets) for _, g in geos)
    edge_normals, edge_offsets = np.zeros((m, L_max, 3)), np.zeros((m, L_max))
    for i, (_, g) in enumerate(geos):
        edge_normals[i, :len(g.edge_offsets)] = g.edge_normals
        edge_offsets[i, :len(g.edge_offsets)] = g.edge_offsets
    mass, inertia, inv_i = model._mass_arrays()
    # each contact's Q, c per unit area of its polygon (the mean of eq. 4's error over S,
    # not its integral): with the integral, a contact of 1e-16 m^3 has almost no weight,
    # and the QP used it as a free actuator for its neighbours' targets (random hulls
    # gained up to 280 J in a second; see docs/spatial.md). One contact: same optimum.
    area = [g.Q[0, 0] for _, g in geos]
    es = [pairs[k][4] for k, _ in geos]
    # eq. 3's target per contact as k·nᵀc (per unit area): the paper's k h n, or, with a
    # restitution e, the rebound v⁺ n uniform over S (`rebound_speed`; ∫_S Jᵀn dA =
    # Q[:, :3] n) with the penetration left to the position-only solve below
    split = any(e is not None for e in es)
    if not split:
        ncs = np.array([model.k * g.nc / a for (_, g), a in zip(geos, area)])
    else:
        v_rest = RESTING_SPEED_STEPS * float(np.linalg.norm(model.gravity)) * dt
        ncs = np.array([model.k * g.nc / a if e is None
                        else rebound_speed(
                            e, -_normal_velocity(X, pairs[k][0], pairs[k][1], g), v_rest,
                            _approach_acceleration(model.gravity, pairs[k][0], g.normal),
                            g.nc[:3] @ g.normal / a, dt) * (g.Q[:, :3] @ g.normal) / a
                        for (k, g), a, e in zip(geos, area, es)])
    Hq, grad, rows, A, bvec, Q, cn = contact_qp(
        X, F_app, T_app, mass, inertia, inv_i, model.gravity, float(dt), 1.0, model.lam,
        np.array([pairs[k][0] for k, _ in geos]), np.array([pairs[k][1] for k, _ in geos]),
        np.array([g.normal for _, g in geos]), np.array([g.centroid for _, g in geos]),
        np.array([g.Q / a for (_, g), a in zip(geos, area)]), ncs,
        np.array([len(g.edge_offsets) for _, g in geos]), edge_normals, edge_offsets)
    f = cone_qp(Hq, grad, rows)
    bases = [np.stack([g.normal, g.e1, g.e2]) for _, g in geos]
    ws = [np.concatenate([bases[i] @ f[6 * i:6 * i + 3], bases[i] @ f[6 * i + 3:6 * i + 6]])
          for i in range(m)]                             # (f_n, f_1, f_2, τ_n, τ_1, τ_2)
    dirs_cache: list = []

    def slip_directions(i):
        """Unit friction directions at S's vertices: opposite the slip the step would
        have with only the normal parts of the QP's wrenches (eq. 32's norm(v_l))."""
        if not dirs_cache:
            f_normal = f.copy()
            for j, (_, gj) in enumerate(geos):
                fj, tj = f[6 * j:6 * j + 3], f[6 * j + 3:6 * j + 6]
                f_normal[6 * j:6 * j + 3] = (fj @ gj.normal) * gj.normal
                f_normal[6 * j + 3:6 * j + 6] = tj - (tj @ gj.normal) * gj.normal
            v_trial = A @ f_normal + bvec
            for j, (_, gj) in enumerate(geos):
                vl = v_trial[6 * j:6 * j + 3] + cross3(v_trial[6 * j + 3:6 * j + 6],
                                                       gj.polygon - gj.centroid)
                vl2 = np.column_stack([vl @ gj.e1, vl @ gj.e2])
                speed = np.sqrt((vl2 ** 2).sum(axis=1))
                dirs_cache.append(np.where(speed[:, None] > model.eps_v,
                                           -vl2 / np.maximum(speed, 1e-300)[:, None], 0.0))
        return dirs_cache[i]
    w_qp = [w.copy() for w in ws]

    def judge(ws, slipping=()):
        out_w, out_s = [], []
        for i, (k, g) in enumerate(geos):
            mu_s, mu_k = pairs[k][2], pairs[k][3]
            w = ws[i]
            if friction == "pyramid":
                stick = (i not in slipping
                         and static_lp_feasible(w, g.r, mu_s, model.P, solver=lp_solver))
                if not stick:
                    w = kinetic_correction_host(w, g.r, slip_directions(i), mu_k)  # eq. 32–34
            else:
                stick = i not in slipping and previous_static_host(w, g.r, mu_s)
                if not stick:
                    w = previous_kinetic_host(w, g.r, mu_k)
            out_w.append(w)
            out_s.append(stick)
        return slip_stopped(out_w, out_s), out_s

    friction_rows: dict = {}

    def slip_stopped(ws, sticks):
        """The slipping ground contacts' friction cut, one after the other, to the share
        that does not reverse their slip (`slip_stopping_share`): the twist each sees is
        the step's end with every wrench so far but its own friction. Not between two
        bodies: there the cut let the vertical friction of boxes pushed in a row stop
        their (indeterminate) relative slip and carry weight, and the row slid 6 % fast
        (`test_boxes_pushed_into_a_row_slide_together_at_the_closed_form_acceleration`)."""
        cut = [i for i in range(m) if not sticks[i] and pairs[geos[i][0]][0] < 0]
        if not cut:
            return ws
        f = np.empty(6 * m)
        for j, w in enumerate(ws):
            f[6 * j:6 * j + 3], f[6 * j + 3:6 * j + 6] = w[:3] @ bases[j], w[3:] @ bases[j]
        v = A @ f + bvec                     # every contact's step-end twist, all wrenches
        ws = [w.copy() for w in ws]
        for i in cut:
            if i not in friction_rows:       # (3, 6): the twist's (v_1, v_2, ω_n) at i
                n, e1, e2 = bases[i]
                T = np.zeros((3, 6))
                T[0, :3], T[1, :3], T[2, 3:] = e1, e2, n
                friction_rows[i] = T, T @ A[6 * i:6 * i + 6, 6 * i:6 * i + 6] @ T.T
            T, A_tt = friction_rows[i]
            phi = ws[i][1:4].copy()
            v_free = T @ v[6 * i:6 * i + 6] - A_tt @ phi
            share = slip_stopping_share(phi, v_free, A_tt)
            if share < 1.0:
                ws[i][1:4] *= share
                v -= (1.0 - share) * (A[:, 6 * i:6 * i + 6] @ (T.T @ phi))
        return ws

    ws, sticks = judge(ws)
    Hn = None
    for _ in range(model.kinetic_iterations if not all(sticks) else 0):
        # consistency pass: with the slipping contacts' friction fixed, re-solve eq. 16
        # for their normal parts (f_n, τ_1, τ_2), then correct again
        f0 = np.zeros(6 * m)
        cols = []
        for i, (k, g) in enumerate(geos):
            if sticks[i]:
                cols += [6 * i + j for j in range(6)]
                continue
            n, e1, e2 = bases[i]
            f0[6 * i:6 * i + 3] = ws[i][1] * e1 + ws[i][2] * e2
            f0[6 * i + 3:6 * i + 6] = ws[i][3] * n
            cols.append((i, n, e1, e2))
        Z = np.zeros((6 * m, sum(1 if isinstance(c, int) else 3 for c in cols)))
        j = 0
        for c in cols:
            if isinstance(c, int):
                Z[c, j] = 1.0
                j += 1
            else:
                i, n, e1, e2 = c
                Z[6 * i:6 * i + 3, j] = n
                Z[6 * i + 3:6 * i + 6, j + 1] = e1
                Z[6 * i + 3:6 * i + 6, j + 2] = e2
                j += 3
        if Hn is None:
            # slipping contacts: only the normal part of eq. 4's error (n·v_k − k h_k)
            Qs = Q.copy()
            for i, (k, g) in enumerate(geos):
                if not sticks[i]:
                    Qs[6 * i:6 * i + 6, 6 * i:6 * i + 6] = g.Qn / area[i]
            AQs = A.T @ Qs
            Hn = AQs @ A
            Hn += Hq - (A.T @ Q) @ A                                 # the same λ terms
            gn = AQs @ bvec - A.T @ cn
        y = cone_qp(Z.T @ Hn @ Z, Z.T @ (Hn @ f0 + gn), rows @ Z)
        f = f0 + Z @ y
        ws = [np.concatenate([bases[i] @ f[6 * i:6 * i + 3], bases[i] @ f[6 * i + 3:6 * i + 6]])
              for i in range(m)]
        previous = ws
        ws, sticks = judge(ws, {i for i in range(m) if not sticks[i]})
        change = max(np.abs(a - b).max() for a, b in zip(ws, previous))
        if change <= 1e-10 * max(np.abs(w).max() for w in ws):
            break
    records = []
    for i, (k, g) in enumerate(geos):
        a, b = pairs[k][0], pairs[k][1]
        basis = bases[i]
        fq = np.concatenate([basis.T @ w_qp[i][:3], basis.T @ w_qp[i][3:]])
        fw, tw = basis.T @ ws[i][:3], basis.T @ ws[i][3:]
        records.append(ContactRecord(k, g, fq, np.concatenate([fw, tw]), bool(sticks[i])))
        # force on B (+) and on A (−) at p_g, moved to the centres of mass (eq. 11)
        for body, sign in ((b, 1.0), (a, -1.0)):
            if body < 0:
                continue
            Fc[body] += sign * fw
            Tc[body] += sign * (tw + cross3(g.centroid - X[body, :3], fw))
    if split:
        pseudo = _position_correction(model, X, geos, area, es, pairs, Q, rows, A, dt)
    return Fc, Tc, records, pseudo


def _position_correction(model, X, geos, area, es, pairs, Q, rows, A, dt):
    """Pseudo-velocities (n, 6) [m/s, rad/s] that remove the penetration of contacts with
    a restitution in one step: the QP (16) with the free motion removed (b = 0) and the
    target k h n of eq. 3 at those contacts (0 at the others), same constraints (25).
    Positions advance with them; velocities do not keep them (a split of eq. 3 into
    its velocity part, e·v_in, and its position part, k h)."""
    cpen = np.concatenate([np.zeros(6) if e is None else model.k * g.nc / a
                           for (_, g), a, e in zip(geos, area, es)])
    # without eq. 10's λ term: with it only (1 − λ) of the depth would go per step, and
    # a resting body would settle ~g Δt² / λ deep (7e-6 m for a box, not 1e-8 m)
    Hp = A.T @ Q @ A
    Hp[np.diag_indices_from(Hp)] *= 1.0 + 1e-9
    f = cone_qp(Hp, -(A.T @ cpen), rows)
    nb = len(model.bodies)
    Fp, Tp = np.zeros((nb, 3)), np.zeros((nb, 3))
    for i, (k, g) in enumerate(geos):
        fw, tw = f[6 * i:6 * i + 3], f[6 * i + 3:6 * i + 6]
        for body, sign in ((pairs[k][1], 1.0), (pairs[k][0], -1.0)):
            if body >= 0:
                Fp[body] += sign * fw
                Tp[body] += sign * (tw + cross3(g.centroid - X[body, :3], fw))
    mass, _, inv_i = model._mass_arrays()
    R = quat_to_matrix(X[:, 3:7])
    pseudo = np.zeros((nb, 6))
    pseudo[:, :3] = Fp / mass[:, None] * dt
    for b in range(nb):
        pseudo[b, 3:] = R[b] @ (inv_i[b] @ (R[b].T @ Tp[b])) * dt
    return pseudo

# --- simulation -----------------------------------------------------------------------


def rebound_speed(e, v_in, v_rest, a_n, depth, dt, xp=np):
    """Target separation speed v⁺ [m/s] at the end of the step of a contact approaching at
    v_in [m/s] with a restitution e, `depth` [m] deep, under the free normal acceleration
    a_n [m/s^2] toward the contact (gravity's, on the ground); 0 (plastic) below v_rest, the
    speed gravity gives in RESTING_SPEED_STEPS steps: a body resting on a contact approaches
    it at g Δt every step, and bouncing that back made it hop ever higher (the hop lasts
    about one step, and the position correction returns the depth it sank).

    Energy-consistent: the body met the surface at v_s = √(v_in² − 2 a_n d) (v_in was
    gained `depth` below it), leaves it at e·v_s, and v⁺ is the speed whose end-of-step
    state has the energy of that departure: the step advances the position by Δt·v⁺ from
    the surface (the correction lifts the depth), so ½v⁺² + a_n Δt v⁺ = ½(e v_s)²,
    v⁺ = (e v_s)² / (√((e v_s)² + (a_n Δt)²) + a_n Δt). With v⁺ = e·v_in instead, each
    bounce gained m a_n (d + Δt v⁺): a box bouncing with e = 1 from 10 cm gained 1.5 % of
    its energy a bounce (15 % in 3 s at Δt = 1 ms). Between two bodies a_n = 0: v⁺ = e·v_in
    (Newton's law; momentum is kept). `xp`: NumPy or jax.numpy (the engines share it)."""
    a_n = xp.maximum(a_n, 0.0)
    u2 = e * e * xp.maximum(v_in * v_in - 2.0 * a_n * depth, 0.0)
    c = a_n * dt
    # the floor keeps the square root's derivative finite at 0 (e = 0 between two bodies,
    # or a contact not approaching): a gradient through the run stays a number
    return xp.where(v_in > v_rest,
                    u2 / (xp.sqrt(xp.maximum(u2 + c * c, 1e-300)) + c), 0.0)


def _approach_acceleration(gravity, a: int, normal) -> float:
    """The free normal acceleration [m/s^2] of B toward A: gravity's on the ground (A = −1),
    0 between two bodies (both fall alike)."""
    return -float(np.dot(gravity, normal)) if a < 0 else 0.0


def _normal_velocity(X: np.ndarray, a: int, b: int, g: ContactGeometry) -> float:
    """n·(v_B − v_A) at the volume's centroid p_g (negative while B approaches A)."""
    v = np.zeros(3)
    for body, sign in ((b, 1.0), (a, -1.0)):
        if body >= 0:
            v += sign * (X[body, 7:10] + cross3(X[body, 10:13], g.centroid - X[body, :3]))
    return float(v @ g.normal)
