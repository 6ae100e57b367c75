"""Body–body volume contact on the JAX engine (SPEC §7 steps 1–5): every potential contact of a
model (each body against the ground, each pair of bodies) in one joint QP, the counterpart of
the numba `_volume_wrench.contact_step` (``patch="projection"``, no restitution).

Pairs are data: static tables of the pairs (A, B) in `SpatialModel._pairs` order (A = −1:
the ground), a padded geometry record per pair (`_volume_jax_geometry.ground_contact`,
`_volume_jax_pair_geometry.pair_contact`; a body pair only while the bounding spheres
overlap, as numba), all padded to one polygon buffer. A contact that is not active takes part
as a decoupled identity block with a zero gradient and no constraint rows, so its wrench is 0
and the others' are those of numba's QP over the active contacts alone (to round-off):

1. the QP (16) with (25) over the stacked wrenches f (6m,): A = J M⁻¹ Jᵀ Δt with J of eq. 6
   (+ for B, − for A), each contact's Q, c per unit area, the 1e-9 relative Tikhonov term,
   eq. 10's λ on each normal force (`_volume_jax_qp.cone_qp`);
2. per contact the static LP (eq. 26–31) or the previous method's tests, the slip directions
   from the normal parts of the joint wrench (eq. 32's norm(v_l)), the kinetic correction
   (eq. 32–34) where static friction fails;
3. up to ``kinetic_iterations`` consistency passes as numba's: the slipping contacts'
   friction fixed, eq. 16 again with their normal parts (f_n, τ_1, τ_2) free and Qn (from the
   first pass's slipping set), the others free; the variables numba drops are decoupled
   identity rows here; stop when the wrenches changed < 1e-10 of their size.

Used by `_volume_jax_route` for models with 2 or 3 bodies (JOINT_MAX_BODIES; the QP has 6
variables per potential contact); more bodies run each against the ground only.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ._volume_jax_contact import rotation
from ._volume_jax_friction import kinetic_correction, static_lp_feasible
from ._volume_jax_geometry import GroundContact, ground_contact, ground_tables
from ._volume_jax_pair_geometry import face_tables, pair_contact
from ._volume_jax_previous import previous_kinetic, previous_static
from ._volume_jax_qp import cone_qp

__all__ = ["JOINT_MAX_BODIES", "JointContactSystem"]

JOINT_MAX_BODIES = 3
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

    rebound = False

    def __init__(self, model, friction: str = "pyramid"):
        self.friction = str(friction)
        self.ground = model.ground is not None
        self.nb = len(model.bodies)
        self.pairs = [(a, b) for a, b, _, _ in model._pairs()]
        self.mu = [(float(ms), float(mk)) for _, _, ms, mk in model._pairs()]
        self.P, self.eps_v = int(model.P), float(model.eps_v)
        self.kinetic_iterations = int(model.kinetic_iterations)
        self.tables = [ground_tables(b.shape) for b in model.bodies]
        self.faces = [face_tables(b.shape) for b in model.bodies]
        self.radius = [float(b.shape.radius) for b in model.bodies]
        self.L = max([PAIR_POLYGON] + [t.max_polygon for t in self.tables])
        self.key = (tuple(self.pairs), tuple(self.mu), self.friction, self.P, self.eps_v,
                    self.kinetic_iterations)

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
                    return _pad(ground_contact(tab._replace(vertices=v, scale=sc), X[b, :3],
                                               R[b], params.height, self.eps_v), self.L)
                parts.append(lax.map(ground, (verts, scale, B)))
                continue
            fa = stack([self.faces[self.pairs[k][0]] for k in index])
            fb = stack([self.faces[self.pairs[k][1]] for k in index])

            def pair(z):
                ta, tb, a, b = z
                near = jnp.sqrt(jnp.sum((X[a, :3] - X[b, :3]) ** 2)) < radius[a] + radius[b]

                def clip():
                    return _pad(pair_contact(ta, X[a, :3], R[a], tb, X[b, :3], R[b],
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
        body is in a contact (nb,), and the records (m, 16) per pair for one step of size
        `dt` from X under the applied F, T (module docstring)."""
        geo = self.geometry(X, params)
        m, nb, L = len(self.pairs), self.nb, self.L
        act = geo.active
        n, pg = geo.normal, geo.centroid
        basis = jnp.stack([n, geo.e1, geo.e2], axis=1)                       # (m, 3, 3)
        area = jnp.where(act, geo.Q[:, 0, 0], 1.0)
        Qs = jnp.where(act[:, None, None], geo.Q / area[:, None, None], 0.0)
        Qn = jnp.where(act[:, None, None], geo.Qn / area[:, None, None], 0.0)
        cn = jnp.where(act[:, None], params.k * geo.nc / area[:, None], 0.0).reshape(-1)
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
        Minv = jnp.zeros((6 * nb, 6 * nb))
        for j in range(nb):
            Minv = Minv.at[6 * j:6 * j + 3, 6 * j:6 * j + 3].set(jnp.eye(3) / params.mass[j])
            Minv = Minv.at[6 * j + 3:6 * j + 6, 6 * j + 3:6 * j + 6].set(Iw[j])
        J = jnp.zeros((6 * m, 6 * nb))
        for i, (a, b) in enumerate(self.pairs):
            for body, sign in ((b, 1.0), (a, -1.0)):
                if body < 0:
                    continue
                blk = jnp.eye(6).at[:3, 3:].set(_skew(X[body, :3] - pg[i])) * sign
                J = J.at[6 * i:6 * i + 6, 6 * body:6 * body + 6].add(
                    jnp.where(act[i], blk, 0.0))
        A = ((J @ Minv) @ J.T) * dt
        bvec = J @ u_free
        Qbig = jax.scipy.linalg.block_diag(*Qs)
        off = jnp.repeat(~act, 6).astype(float)                # inactive: identity rows
        H = A.T @ Qbig @ A
        H = H * (1.0 + 1e-9 * jnp.eye(6 * m))
        for i in range(m):                                                   # eq. 10's λ
            s_n = params.lam * (n[i] @ H[6 * i:6 * i + 3, 6 * i:6 * i + 3] @ n[i])
            H = H.at[6 * i:6 * i + 3, 6 * i:6 * i + 3].add(s_n * jnp.outer(n[i], n[i]))
        H = H + jnp.diag(off)
        g = A.T @ (Qbig @ bvec) - A.T @ cn
        # (24–25): f_n ≥ 0, the centre of pressure in S; rows of inactive contacts zero
        valid = (jnp.arange(L)[None, :] < geo.count[:, None]) & act[:, None]      # (m, L)
        en = jnp.cross(geo.edge_normals, n[:, None, :])
        G = jnp.zeros((m, L + 1, 6 * m))
        for i in range(m):
            rows = jnp.concatenate([
                jnp.concatenate([-n[i], jnp.zeros(3)])[None],
                jnp.concatenate([-geo.edge_offsets[i][:, None] * n[i], en[i]], axis=1)])
            keep = jnp.concatenate([act[i][None], valid[i]])
            G = G.at[i, :, 6 * i:6 * i + 6].set(jnp.where(keep[:, None], rows, 0.0))
        G = G.reshape(m * (L + 1), 6 * m)
        n_rows = jnp.sum(jnp.where(act, geo.count + 1, 0))
        f = cone_qp(H, g, G, n_rows)

        def local(f):
            fv = f.reshape(m, 2, 3)
            return jnp.concatenate([jnp.einsum("mij,mj->mi", basis, fv[:, 0]),
                                    jnp.einsum("mij,mj->mi", basis, fv[:, 1])], axis=1)

        r = geo.polygon - pg[:, None, :]
        r2 = jnp.stack([jnp.einsum("mlj,mj->ml", r, geo.e1),
                        jnp.einsum("mlj,mj->ml", r, geo.e2)], axis=2)
        r2 = jnp.where(valid[..., None], r2, 0.0)
        # eq. 32's norm(v_l): the slip with only the normal parts of the QP's wrenches
        fv = f.reshape(m, 2, 3)
        fn_part = jnp.sum(fv[:, 0] * n, axis=1)[:, None] * n
        tn_part = fv[:, 1] - jnp.sum(fv[:, 1] * n, axis=1)[:, None] * n
        v_trial = (A @ jnp.concatenate([fn_part, tn_part], axis=1).reshape(-1) + bvec
                   ).reshape(m, 2, 3)
        vl = v_trial[:, None, 0] + jnp.cross(v_trial[:, None, 1], r)
        vl2 = jnp.stack([jnp.einsum("mlj,mj->ml", vl, geo.e1),
                         jnp.einsum("mlj,mj->ml", vl, geo.e2)], axis=2)
        speed = jnp.sqrt(jnp.sum(vl2 ** 2, axis=2))
        dirs = jnp.where((speed > self.eps_v)[..., None],
                         -vl2 / jnp.maximum(speed, 1e-300)[..., None], 0.0)
        dirs = jnp.where(valid[..., None], dirs, 0.0)
        mu_s = jnp.asarray([ms for ms, _ in self.mu])
        mu_d = jnp.asarray([mk for _, mk in self.mu])
        if self.ground:           # the ground's μ are parameters (traced), as the one-body path
            ground = jnp.asarray([a < 0 for a, _ in self.pairs])
            mu_s = jnp.where(ground, params.mu_s, mu_s)
            mu_d = jnp.where(ground, params.mu_d, mu_d)
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

        def judge(ws, slipping):
            """Static friction per contact; the kinetic correction (eq. 32–34) of those it
            does not hold, computed only when there is one (a `cond`: its supports are the
            step's largest work)."""
            holds = jax.vmap(holds_one)(ws, r2, count, mu_s)
            stick = ~act | (~slipping & holds)
            kinetic = lax.cond(jnp.any(~stick), lambda: jax.vmap(kinetic_one)(
                ws, r2, count, dirs, mu_d), lambda: ws)
            return jnp.where(stick[:, None], ws, kinetic), stick

        ws, sticks = judge(local(f), jnp.zeros(m, bool))
        # the consistency passes: Hn from the first slipping set (numba computes it once)
        Qs_n = jnp.where(sticks[:, None, None], Qs, Qn)
        AQs = A.T @ jax.scipy.linalg.block_diag(*Qs_n)
        Hn = AQs @ A + (H - A.T @ Qbig @ A)
        gn = AQs @ bvec - A.T @ cn
        e1w, e2w = geo.e1, geo.e2

        def columns(sticks):
            """Z (6m, 6m) and f0 (6m,): sticking contacts free; slipping ones (f_n, τ_1,
            τ_2) along (n, e1, e2), their friction fixed; unused columns zero."""
            Z = jnp.zeros((6 * m, 6 * m))
            for i in range(m):
                slip = jnp.zeros((6, 6)).at[:3, 0].set(n[i]).at[3:, 1].set(e1w[i]) \
                    .at[3:, 2].set(e2w[i])
                Z = Z.at[6 * i:6 * i + 6, 6 * i:6 * i + 6].set(
                    jnp.where(sticks[i], jnp.eye(6), slip))
            return Z

        def one_pass(st):
            it, ws, sticks, _ = st
            Z = columns(sticks)
            f0 = jnp.where(sticks[:, None], 0.0, jnp.concatenate([
                ws[:, 1:2] * e1w + ws[:, 2:3] * e2w, ws[:, 3:4] * n], axis=1)).reshape(-1)
            unused = jnp.where(jnp.repeat(sticks, 6), 0.0,
                               jnp.tile(jnp.array([0.0, 0, 0, 1, 1, 1]), m))
            Hz = Z.T @ Hn @ Z + jnp.diag(unused)
            y = cone_qp(Hz, Z.T @ (Hn @ f0 + gn), G @ Z, n_rows)
            previous = local(f0 + Z @ y)
            new, new_sticks = judge(previous, ~sticks)
            change = jnp.max(jnp.abs(new - previous))
            done = change <= 1e-10 * jnp.max(jnp.abs(new))
            return it + 1, new, new_sticks, done

        _, ws, sticks, _ = lax.while_loop(
            lambda st: (st[0] < self.kinetic_iterations) & ~st[3] & ~jnp.all(st[2]),
            one_pass, (jnp.asarray(0), ws, sticks, jnp.asarray(False)))
        ws = jnp.where(act[:, None], ws, 0.0)
        fw = jnp.einsum("mji,mj->mi", basis, ws[:, :3])
        tw = jnp.einsum("mji,mj->mi", basis, ws[:, 3:])
        fw = jnp.where(geo.overflow[:, None], jnp.nan, fw)
        Fc, Tc = jnp.zeros((nb, 3)), jnp.zeros((nb, 3))
        touching = jnp.zeros(nb, bool)
        for i, (a, b) in enumerate(self.pairs):
            for body, sign in ((b, 1.0), (a, -1.0)):
                if body < 0:
                    continue
                Fc = Fc.at[body].add(sign * fw[i])
                Tc = Tc.at[body].add(sign * (tw[i] + jnp.cross(pg[i] - X[body, :3], fw[i])))
                touching = touching.at[body].set(touching[body] | act[i])
        nan3 = jnp.full(3, jnp.nan)
        rec = jnp.concatenate([
            jnp.stack([act.astype(float), geo.volume], axis=1),
            jnp.where(act[:, None], n, nan3), jnp.where(act[:, None], pg, nan3), fw, tw,
            jnp.stack([jnp.sum(fw * n, axis=1), (act & sticks).astype(float)], axis=1)],
            axis=1)
        rec = jnp.where(geo.overflow[:, None], jnp.nan, rec)
        return Fc, Tc, touching, rec
