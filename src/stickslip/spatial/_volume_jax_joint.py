"""Body–body volume contact on the JAX engine (SPEC §7 steps 1–5): the active contacts of a
step (bodies against the ground, pairs of bodies) in one joint QP, the counterpart of the numba
`_volume_wrench.contact_step` (``patch="projection"`` or ``"section"``: the ground and pair
geometry of `_volume_jax_section`; with or without a restitution).

Pairs are data: static tables of the pairs (A, B) in `SpatialModel._pairs` order (A = −1:
the ground) and a padded geometry record per pair (`_volume_jax_geometry.ground_contact`,
`_volume_jax_pair_geometry.pair_contact`; a body pair only while the bounding spheres
overlap, as numba), all padded to one polygon buffer. The active ones are packed in order
into K slots (`_volume_jax_slots`: K static, the QP has 6K variables whatever the number of
potential contacts); an empty slot takes part as a decoupled identity block with a zero
gradient and no constraint rows, so its wrench is 0 and the others' are those of numba's QP
over the active contacts alone (to round-off):

1. the QP (16) with (25) over the stacked wrenches f (6K,): A = J M⁻¹ Jᵀ Δt with J of eq. 6
   (+ for B, − for A), each contact's Q, c per unit area, the 1e-9 relative Tikhonov term,
   eq. 10's λ on each normal force (`_volume_jax_qp.cone_qp`); with a restitution, eq. 3's
   target split (`_volume_jax_restitution`);
2. per contact the static LP (eq. 26–31) or the previous method's tests, the slip directions
   from the normal parts of the joint wrench (eq. 32's norm(v_l)), the kinetic correction
   (eq. 32–34) where static friction fails, a ground contact's friction cut to the share
   that does not reverse the slip (`_friction_kinetic.slip_stopping_share`, slot after slot,
   as numba);
3. up to ``kinetic_iterations`` consistency passes as numba's: the slipping contacts'
   friction fixed, eq. 16 again with their normal parts (f_n, τ_1, τ_2) free and Qn (from the
   first pass's slipping set), the others free; the variables numba drops are decoupled
   identity rows here; stop when the wrenches changed < 1e-10 of their size. Step 1's QP
   and step 2's verdict are pass 0 of the same loop (every contact counted as sticking: Z = I,
   f0 = 0, the same arithmetic), so the program holds one copy of the NNLS and of the friction
   tests — the two-box stack's run 2697 → 2137 kernels (`benchmarks/program_census.py`);
4. with a restitution, the position-only solve's pseudo-velocities.

Used by `_volume_jax_route` for models with 2 bodies or more. A step with more active
contacts than slots reports them all in its records (field 0) and the route stops the run.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ._friction_kinetic import slip_stopping_share
from ._volume_jax_contact import rotation
from ._volume_jax_friction import kinetic_correction, static_lp_feasible
from ._volume_jax_geometry import GroundContact, ground_tables
from ._volume_jax_pair_geometry import face_tables, pair_contact
from ._volume_jax_previous import previous_kinetic, previous_static
from ._volume_jax_qp import cone_qp
from ._volume_jax_restitution import body_wrenches, position_correction, rebound_targets
from ._volume_jax_section import ground_geometry, pair_section_contact
from ._volume_jax_slots import block_diag, pick_slots, slot_count, take

__all__ = ["JointContactSystem"]

PAIR_POLYGON = 16          # polygon buffer of a body pair (an overflow poisons with NaN)


def _pad(geo: GroundContact, L: int) -> GroundContact:
    """`geo` with its polygon buffers padded to L corners."""
    extra = L - geo.polygon.shape[0]
    if extra == 0:
        return geo
    return geo._replace(
        polygon=jnp.concatenate([geo.polygon, jnp.broadcast_to(geo.centroid, (extra, 3))]),
        edge_normals=jnp.concatenate([geo.edge_normals, jnp.zeros((extra, 3))]),
        edge_offsets=jnp.concatenate([geo.edge_offsets, jnp.zeros(extra)]))


def _skew(d):
    z = jnp.zeros_like(d[0])
    return jnp.array([[z, -d[2], d[1]], [d[2], z, -d[0]], [-d[1], d[0], z]])


class JointContactSystem:
    """The static description of a model's potential contacts for the joint solve (module
    docstring); :meth:`contact` is the pure step function `_volume_jax_route` calls."""

    def __init__(self, model, friction: str = "pyramid", slots: int | None = None):
        self.friction = str(friction)
        self.ground = model.ground is not None
        self.nb = len(model.bodies)
        self.pairs = [(a, b) for a, b, _, _ in model._pairs()]
        self.mu = [(float(ms), float(mk)) for _, _, ms, mk in model._pairs()]
        self.P, self.eps_v = int(model.P), float(model.eps_v)
        self.kinetic_iterations = int(model.kinetic_iterations)
        self.patch = str(model.patch)     # S of SPEC §7: "projection" or "section"
        self.tables = [ground_tables(b.shape, patch=self.patch) for b in model.bodies]
        self.faces = [face_tables(b.shape) for b in model.bodies]
        self.radius = [float(b.shape.radius) for b in model.bodies]
        self.L = max([PAIR_POLYGON] + [t.max_polygon for t in self.tables])
        self.e = [p[4] for p in model._pairs_e()]
        self.rebound = any(e is not None for e in self.e)
        self.slots = slot_count(len(self.pairs), self.nb, slots)
        self.key = (tuple(self.pairs), tuple(self.mu), tuple(self.e), self.friction, self.P,
                    self.eps_v, self.kinetic_iterations, self.slots, self.patch)

    def geometry(self, X, params):
        """Per pair (m,): the padded geometry records, stacked. Pairs of the same shape
        topologies share one traced geometry (`lax.map` over their data: compile time)."""
        R = jax.vmap(rotation)(X[:, 3:7])
        groups: dict = {}
        for k, (a, b) in enumerate(self.pairs):
            key = (a < 0, self._topology(b)) if a < 0 else \
                (False, self._topology(a), self._topology(b))
            groups.setdefault(key, []).append(k)
        parts, order = [], []
        radius = jnp.asarray(self.radius)
        clip_pair = pair_section_contact if self.patch == "section" else pair_contact

        def stack(items):
            return jax.tree_util.tree_map(lambda *z: jnp.stack(z), *items)
        for index in groups.values():
            order += index
            A = jnp.asarray([max(self.pairs[k][0], 0) for k in index])
            B = jnp.asarray([self.pairs[k][1] for k in index])
            if self.pairs[index[0]][0] < 0:
                tab = self.tables[self.pairs[index[0]][1]]
                verts = jnp.asarray([self.tables[self.pairs[k][1]].vertices for k in index])
                scale = jnp.asarray([self.tables[self.pairs[k][1]].scale for k in index])

                def ground(z, tab=tab):
                    v, sc, b = z
                    return _pad(ground_geometry(tab._replace(vertices=v, scale=sc), X[b, :3],
                                               R[b], params.height, self.eps_v), self.L)
                parts.append(lax.map(ground, (verts, scale, B)))
                continue
            fa = stack([self.faces[self.pairs[k][0]] for k in index])
            fb = stack([self.faces[self.pairs[k][1]] for k in index])

            def pair(z):
                ta, tb, a, b = z
                near = jnp.sqrt(jnp.sum((X[a, :3] - X[b, :3]) ** 2)) < radius[a] + radius[b]

                def clip():
                    return _pad(clip_pair(ta, X[a, :3], R[a], tb, X[b, :3], R[b],
                                             2.0 * jnp.maximum(radius[a], radius[b]),
                                             self.eps_v, PAIR_POLYGON), self.L)
                # bodies out of reach: no clipping at all (numba skips the pair too)
                return lax.cond(near, clip, lambda: jax.tree_util.tree_map(
                    lambda v: jnp.zeros(v.shape, v.dtype), jax.eval_shape(clip)))
            parts.append(lax.map(pair, (fa, fb, A, B)))
        back = np.argsort(np.asarray(order))
        return jax.tree_util.tree_map(lambda *z: jnp.concatenate(z)[back], *parts)

    def _topology(self, i):
        t, f = self.tables[i], self.faces[i]
        return (t.vertices.shape, t.max_polygon, f.faces.tobytes(), f.counts.tobytes()) + \
            tuple(np.asarray(x).tobytes() for x in (t.ei, t.ej, t.ef, t.fp, t.ui, t.uj))

    def contact(self, X, F, T, dt, params):
        """Contact forces and torques (nb, 3) on the centres of mass (world), whether each
        body is in a contact (nb,), the records (m, 16) per pair for one step of size `dt`
        from X under the applied F, T (module docstring) and, with a restitution, the
        position-only pseudo-velocities (nb, 6)."""
        every = self.geometry(X, params)
        m, nb, L, K = len(self.pairs), self.nb, self.L, self.slots
        idx, on = pick_slots(every.active, K)
        geo = take(every, idx)
        act = on & geo.active
        a = jnp.take(jnp.asarray([p[0] for p in self.pairs]), idx, mode="clip")
        b = jnp.take(jnp.asarray([p[1] for p in self.pairs]), idx, mode="clip")
        n, pg = geo.normal, geo.centroid
        basis = jnp.stack([n, geo.e1, geo.e2], axis=1)                       # (K, 3, 3)
        area = jnp.where(act, geo.Q[:, 0, 0], 1.0)
        Qs = jnp.where(act[:, None, None], geo.Q / area[:, None, None], 0.0)
        Qn = jnp.where(act[:, None, None], geo.Qn / area[:, None, None], 0.0)
        cn_pen = jnp.where(act[:, None], params.k * geo.nc / area[:, None], 0.0)
        has_e = jnp.zeros(K, bool)
        if self.rebound:
            e = jnp.take(jnp.asarray([0.0 if v is None else float(v) for v in self.e]), idx,
                         mode="clip")
            has_e = act & jnp.take(jnp.asarray([v is not None for v in self.e]), idx,
                                   mode="clip")
            cn = rebound_targets(X, a, b, n, pg, Qs, e, has_e, cn_pen, dt, params)
        else:
            cn = cn_pen
        cn = cn.reshape(-1)
        # free motion (eq. 13 without contact forces), M⁻¹, J (eq. 6), A, b (eq. 15)
        R = jax.vmap(rotation)(X[:, 3:7])
        w = X[:, 10:13]
        wb = jnp.einsum("nji,nj->ni", R, w)
        rb = jnp.einsum("nji,nj->ni", R, T) - jnp.cross(
            wb, jnp.einsum("nij,nj->ni", params.inertia, wb))
        alpha = jnp.einsum("nij,nj->ni", R, jnp.einsum("nij,nj->ni", params.inv_inertia, rb))
        u_free = jnp.concatenate([X[:, 7:10] + dt * (F / params.mass[:, None]
                                                     + params.gravity),
                                  w + dt * alpha], axis=1).reshape(-1)
        Iw = jnp.einsum("nij,njk,nlk->nil", R, params.inv_inertia, R)
        eye3 = jnp.broadcast_to(jnp.eye(3), (nb, 3, 3))
        Minv = block_diag(jnp.zeros((nb, 6, 6)).at[:, :3, :3].set(
            eye3 / params.mass[:, None, None]).at[:, 3:, 3:].set(Iw))
        bodies = jnp.arange(nb)[None, :]
        on_b = ((b[:, None] == bodies) & act[:, None]).astype(float)          # (K, nb)
        on_a = ((a[:, None] == bodies) & act[:, None]).astype(float)

        def blocks(body):
            d = X[jnp.maximum(body, 0), :3] - pg
            return jnp.broadcast_to(jnp.eye(6), (K, 6, 6)).at[:, :3, 3:].set(
                jax.vmap(_skew)(d))
        J = (jnp.einsum("kj,kab->kajb", on_b, blocks(b))
             - jnp.einsum("kj,kab->kajb", on_a, blocks(a))).reshape(6 * K, 6 * nb)
        A = ((J @ Minv) @ J.T) * dt
        bvec = J @ u_free
        Qbig = block_diag(Qs)
        off = jnp.repeat(~act, 6).astype(float)                # empty slots: identity rows
        H = A.T @ Qbig @ A
        H = H * (1.0 + 1e-9 * jnp.eye(6 * K))
        Hd = H.reshape(K, 6, K, 6)[jnp.arange(K), :, jnp.arange(K), :]       # (K, 6, 6)
        s_n = params.lam * jnp.einsum("ka,kab,kb->k", n, Hd[:, :3, :3], n)  # eq. 10's λ
        H = H + block_diag(jnp.zeros((K, 6, 6)).at[:, :3, :3].set(
            s_n[:, None, None] * jnp.einsum("ka,kb->kab", n, n))) + jnp.diag(off)
        g = A.T @ (Qbig @ bvec) - A.T @ cn
        # (24–25): f_n ≥ 0, the centre of pressure in S; rows of empty slots zero
        valid = (jnp.arange(L)[None, :] < geo.count[:, None]) & act[:, None]      # (K, L)
        en = jnp.cross(geo.edge_normals, n[:, None, :])
        rows = jnp.concatenate([
            jnp.concatenate([-n, jnp.zeros((K, 3))], axis=1)[:, None],
            jnp.concatenate([-geo.edge_offsets[..., None] * n[:, None, :], en], axis=2)],
            axis=1)
        keep = jnp.concatenate([act[:, None], valid], axis=1)
        G = block_diag(jnp.where(keep[..., None], rows, 0.0))             # (K (L + 1), 6K)
        n_rows = jnp.sum(jnp.where(act, geo.count + 1, 0))
        def local(f):
            fv = f.reshape(K, 2, 3)
            return jnp.concatenate([jnp.einsum("mij,mj->mi", basis, fv[:, 0]),
                                    jnp.einsum("mij,mj->mi", basis, fv[:, 1])], axis=1)

        r = geo.polygon - pg[:, None, :]
        r2 = jnp.stack([jnp.einsum("mlj,mj->ml", r, geo.e1),
                        jnp.einsum("mlj,mj->ml", r, geo.e2)], axis=2)
        r2 = jnp.where(valid[..., None], r2, 0.0)

        def slip_directions(f):
            """Eq. 32's norm(v_l): the slip with only the normal parts of the QP's wrenches."""
            fv = f.reshape(K, 2, 3)
            fn_part = jnp.sum(fv[:, 0] * n, axis=1)[:, None] * n
            tn_part = fv[:, 1] - jnp.sum(fv[:, 1] * n, axis=1)[:, None] * n
            v_trial = (A @ jnp.concatenate([fn_part, tn_part], axis=1).reshape(-1) + bvec
                       ).reshape(K, 2, 3)
            vl = v_trial[:, None, 0] + jnp.cross(v_trial[:, None, 1], r)
            vl2 = jnp.stack([jnp.einsum("mlj,mj->ml", vl, geo.e1),
                             jnp.einsum("mlj,mj->ml", vl, geo.e2)], axis=2)
            speed = jnp.sqrt(jnp.sum(vl2 ** 2, axis=2))
            dirs = jnp.where((speed > self.eps_v)[..., None],
                             -vl2 / jnp.maximum(speed, 1e-300)[..., None], 0.0)
            return jnp.where(valid[..., None], dirs, 0.0)
        mu_s = jnp.asarray([ms for ms, _ in self.mu])
        mu_d = jnp.asarray([mk for _, mk in self.mu])
        if self.ground:           # the ground's μ are parameters (traced), as the one-body path
            ground = jnp.asarray([p[0] < 0 for p in self.pairs])
            mu_s = jnp.where(ground, params.mu_s, mu_s)
            mu_d = jnp.where(ground, params.mu_d, mu_d)
        mu_s = jnp.take(mu_s, idx, mode="clip")
        mu_d = jnp.take(mu_d, idx, mode="clip")
        count = jnp.where(act, geo.count, 0)
        P, friction = self.P, self.friction

        def holds_one(w, r2, cnt, ms):
            if friction == "pyramid":
                return static_lp_feasible(w, r2, cnt, ms, P)
            return previous_static(w, r2, cnt, ms)

        def kinetic_one(w, r2, cnt, d, md):
            if friction == "pyramid":
                return kinetic_correction(w, r2, cnt, d, md)
            return previous_kinetic(w, r2, cnt, md)

        def judge(ws, slipping, dirs):
            """Static friction per contact; the kinetic correction (eq. 32–34) of those it
            does not hold, computed only when there is one (a `cond`: its supports are the
            step's largest work)."""
            holds = jax.vmap(holds_one)(ws, r2, count, mu_s)
            stick = ~act | (~slipping & holds)
            kinetic = lax.cond(jnp.any(~stick), lambda: slip_stopped(jnp.where(
                stick[:, None], ws, jax.vmap(kinetic_one)(ws, r2, count, dirs, mu_d)), stick),
                lambda: ws)
            return jnp.where(stick[:, None], ws, kinetic), stick

        # the friction part (f_1, f_2, τ_n) of slot k's wrench and twist: rows of Tf[k] (3, 6K)
        Tf = jnp.zeros((K, 3, K, 6))
        Tf = Tf.at[jnp.arange(K), 0, jnp.arange(K), :3].set(geo.e1)
        Tf = Tf.at[jnp.arange(K), 1, jnp.arange(K), :3].set(geo.e2)
        Tf = Tf.at[jnp.arange(K), 2, jnp.arange(K), 3:].set(n).reshape(K, 3, 6 * K)

        def slip_stopped(ws, stick):
            """The slipping ground contacts' friction cut, one after the other, to the share
            that does not reverse their slip (`_friction_kinetic.slip_stopping_share`; not
            between two bodies, as numba's `contact_step`)."""
            def one(k, st):
                ws, f = st
                phi = ws[k, 1:4]
                f_own = Tf[k].T @ phi
                v_free = Tf[k] @ (A @ (f - f_own) + bvec)
                share = jnp.where(stick[k] | (a[k] >= 0), 1.0, slip_stopping_share(
                    phi, v_free, Tf[k] @ A @ Tf[k].T, jnp))
                return ws.at[k, 1:4].multiply(share), f - (1.0 - share) * f_own
            f = jnp.concatenate([jnp.einsum("mji,mj->mi", basis, ws[:, :3]),
                                 jnp.einsum("mji,mj->mi", basis, ws[:, 3:])], axis=1)
            return lax.fori_loop(0, K, one, (ws, f.reshape(-1)))[0]

        def consistency(sticks):
            """Hn, gn of the consistency passes, from the first pass's slipping set (numba
            computes them once)."""
            AQs = A.T @ block_diag(jnp.where(sticks[:, None, None], Qs, Qn))
            return AQs @ A + (H - A.T @ Qbig @ A), AQs @ bvec - A.T @ cn
        e1w, e2w = geo.e1, geo.e2
        slip_cols = jnp.zeros((K, 6, 6)).at[:, :3, 0].set(n).at[:, 3:, 1].set(e1w) \
            .at[:, 3:, 2].set(e2w)

        def one_pass(st):
            """One QP (16) and its friction verdict. Pass 0 is the QP itself: every contact
            counts as sticking, so Z = I, f0 = 0 and (Hn, gn) = (H, g) — the same numbers as a
            separate first solve, in one copy of the NNLS and of the friction tests (compile
            time). Later passes: sticking contacts free; slipping ones (f_n, τ_1, τ_2) along
            (n, e1, e2), their friction fixed; unused columns zero (identity rows)."""
            p, ws, sticks, _, dirs, Hn, gn = st
            Z = block_diag(jnp.where(sticks[:, None, None], jnp.eye(6), slip_cols))
            f0 = jnp.where(sticks[:, None], 0.0, jnp.concatenate([
                ws[:, 1:2] * e1w + ws[:, 2:3] * e2w, ws[:, 3:4] * n], axis=1)).reshape(-1)
            unused = jnp.where(jnp.repeat(sticks, 6), 0.0,
                               jnp.tile(jnp.array([0.0, 0, 0, 1, 1, 1]), K))
            Hz = Z.T @ Hn @ Z + jnp.diag(unused)
            f = f0 + Z @ cone_qp(Hz, Z.T @ (Hn @ f0 + gn), G @ Z, n_rows)
            first = p == 0
            dirs = jnp.where(first, slip_directions(f), dirs)
            previous = local(f)
            new, new_sticks = judge(previous, ~sticks, dirs)
            change = jnp.max(jnp.abs(new - previous))
            done = ~first & (change <= 1e-10 * jnp.max(jnp.abs(new)))
            Hn, gn = lax.cond(first, lambda: consistency(new_sticks), lambda: (Hn, gn))
            return p + 1, new, new_sticks, done, dirs, Hn, gn

        # pass 0, then up to kinetic_iterations consistency passes while one slips
        _, ws, sticks, *_ = lax.while_loop(
            lambda st: (st[0] == 0) | ((st[0] <= self.kinetic_iterations) & ~st[3]
                                       & ~jnp.all(st[2])),
            one_pass, (jnp.asarray(0), jnp.zeros((K, 6)), jnp.ones(K, bool),
                       jnp.asarray(False), jnp.zeros((K, L, 2)), H, g))
        ws = jnp.where(act[:, None], ws, 0.0)
        fw = jnp.einsum("mji,mj->mi", basis, ws[:, :3])
        tw = jnp.einsum("mji,mj->mi", basis, ws[:, 3:])
        poisoned = on & geo.overflow
        fw = jnp.where(poisoned[:, None], jnp.nan, fw)
        Fc, Tc = body_wrenches(X, a, b, pg, jnp.concatenate([fw, tw], axis=1), nb)
        touching = jnp.any((on_a + on_b) > 0, axis=0)
        nan3 = jnp.full(3, jnp.nan)
        rec = jnp.concatenate([
            jnp.stack([act.astype(float), geo.volume], axis=1),
            jnp.where(act[:, None], n, nan3), jnp.where(act[:, None], pg, nan3), fw, tw,
            jnp.stack([jnp.sum(fw * n, axis=1), (act & sticks).astype(float)], axis=1)],
            axis=1)
        rec = jnp.where(poisoned[:, None], jnp.nan, rec)
        # every pair's record: field 0 the geometry's activity (a contact beyond the slots
        # shows as active without a wrench: the route stops the run), then the slots'
        records = jnp.zeros((m, 16)).at[:, 2:8].set(jnp.nan).at[:, 0].set(
            every.active.astype(float)).at[:, 1].set(jnp.where(every.active, every.volume,
                                                               0.0))
        records = records.at[idx].set(rec, mode="drop")
        if not self.rebound:
            return Fc, Tc, touching, records
        cpen = jnp.where(has_e[:, None], cn_pen, 0.0).reshape(-1)
        return Fc, Tc, touching, records, position_correction(
            X, a, b, pg, A, Qbig, off, G, n_rows, cpen, dt, params)
