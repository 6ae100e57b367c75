"""The λ-stage of a spatial link system (see :mod:`._link_system`): the joints' Schur solve
or, with contacts, one λ-problem (SPEC §6) with the joints as its bilateral block; the joint
friction loop r(f) = f − g(f) = 0 around it (SPEC §9 9-2 in 3-D); the joints' reactions and
the normal forces the friction laws see; and the mass-matrix helpers these need.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import jax.scipy.linalg
import numpy as np

from .._compile.options import runs_once
from ..constraints import (
    Bilateral,
    ProductSet,
    SpatialContact,
    eliminate_solve,
)
from ..constraints import lambda_stage as prepare_lambda_stage
from ..constraints._block_factor import BlockPlan, block_factor, block_lu, row_block_plan
from ..laws import friction_curve
from ._link_kinematics import mv
from ._link_rows import LocalRows, rows_by_body

__all__ = [
    "CHOLESKY_ROWS",
    "NEWTON_ITERATIONS",
    "SPARSE_FRACTION",
    "UNSOLVED_RESIDUAL",
    "constraint_matrix",
    "inverse3",
    "inverse_mass",
    "inverse_mass_operator",
    "joint_factor",
    "joint_general_solve",
    "joint_reactions",
    "lambda_stage",
    "loop_needed",
    "normal_forces",
    "slide_rows_at",
    "spd_factor",
    "spd_solve",
]

NEWTON_ITERATIONS = 5
# a contact solve whose normalised natural residual stays above this counts as unsolved: the
# solver's own acceptance (1e-6) is met by all but a few onset-of-slip states of boxes on
# four corners, where its rounds stall at 1e-6…1e-5 — a force error of that relative size,
# not a missing solution
UNSOLVED_RESIDUAL = 1e-4

# from this many joint rows on, the Schur complement is solved by LAPACK's Cholesky rather than
# the pure-JAX elimination: measured per solve (benchmarks/results/spatial_links.md) 2.6×
# slower at m = 10 but 9× and 24× faster at m = 30 and 60; below it, no LAPACK call in the
# compiled run (a new process spares SciPy's import)
CHOLESKY_ROWS = 16

# A = J M⁻¹ Jᵀ is assembled body by body (:func:`constraint_matrix`) where the most rows
# that touch one body are fewer than this fraction of all rows, else by the dense product:
# the body-by-body route does n_b·p² products plus a scatter of as many entries, the dense
# one m²·6 n_b; measured (benchmarks/results/spatial_links.md) the body-by-body route is
# faster for chains (p = 10: 6 bodies, m = 30, 1.2×; 12 bodies 1.3×; 30 bodies 1.3–1.5×)
# and 2.5× slower for the 6-body cart, whose chassis carries 25 of its 37 rows
SPARSE_FRACTION = 0.4


# The joints' Schur complement is factored block by block (:mod:`stickslip.constraints.
# _block_factor`: O(n) for a chain or tree) instead of by the dense Cholesky where it has at
# least BLOCK_ROWS rows and its elimination takes at most BLOCK_LEVELS of its blocks in levels
# (a chain of 30 joints: 30 blocks in 5 levels; the 6-body cart's chassis couples its five
# joints: 5 levels for 5 blocks, dense). Measured on chains of n rods (RK4, 1 ms, fresh
# processes, cache off; benchmarks/results/spatial_links.md §1, two runs on 2026-11-27):
# n = 30 (150 rows) 1.41–1.69 ms per step dense (its LAPACK factor on two threads: CPU 2 ×
# wall) against 0.70–0.94 ms block (one thread); n = 45 (225 rows) 1.9–2.8 against
# 1.05–1.30 ms. The block factor's unrolled levels compile longer (first call +0–3.4 s at
# n = 30): a first call repays it after 2 000–6 600 steps, a call on the program store at
# once. Below 150 rows it is no faster per factor (60 rows: 1.6× slower; the cart: 3×).
BLOCK_ROWS = 150
BLOCK_LEVELS = 0.5


def joint_factor(system, X, Jl, bi, bj, J=None, MJ=None):
    """``solve(b)`` of the joints' Schur complement S = J M⁻¹ Jᵀ (rows in local form as in
    :func:`constraint_matrix`), factored block by block where that pays (``BLOCK_ROWS``),
    else by :func:`spd_factor`."""
    S = constraint_matrix(system, X, Jl, bi, bj, J, MJ)
    plan = _joint_plan(system, bi, bj)
    return block_factor(S, plan) if plan is not None else spd_factor(S)


def joint_general_solve(system, S, bi, bj):
    """``solve(b)`` of a joints' nonsymmetric S = G_e M⁻¹ G_θᵀ (the rows on bodies (bi, bj)
    at two nearby poses): block LU on the joints' plan where :func:`joint_factor` would
    factor block by block, else None (the caller's dense solve)."""
    plan = _joint_plan(system, bi, bj)
    return None if plan is None else block_lu(S, plan)


def _joint_plan(system, bi, bj) -> BlockPlan | None:
    """The block plan of the rows on bodies (bi, bj), or None where the dense factor is the
    faster: read at each call with the thresholds of the moment (a benchmark or a test that
    sets ``BLOCK_ROWS`` gets its choice, not one cached under the old value)."""
    return _block_plan(np.asarray(bi, int).tobytes(), np.asarray(bj, int).tobytes(),
                       system.layout.n_bodies, BLOCK_ROWS, BLOCK_LEVELS)


@functools.lru_cache(maxsize=64)
def _block_plan(bi: bytes, bj: bytes, n_b: int, min_rows: int,
                max_levels: float) -> BlockPlan | None:
    """:func:`_joint_plan` for rows given as int64 bytes, cached by everything it reads."""
    rows_i, rows_j = np.frombuffer(bi, int), np.frombuffer(bj, int)
    if rows_i.size < min_rows:
        return None
    plan = row_block_plan(rows_i, rows_j, ground=n_b)
    return plan if len(plan.levels) <= max_levels * len(plan.rows) else None


def spd_solve(S, b):
    """x of S x = b for the joints' symmetric positive definite Schur complement S (m, m):
    elimination below ``CHOLESKY_ROWS`` rows, Cholesky from there. A singular S (a lock-up)
    gives inf/NaN, which the divergence guard reports."""
    return spd_factor(S)(b)


def spd_factor(S):
    """``solve(b)``: x of S x = b (b (m,) or (m, k)) for S as in :func:`spd_solve`, with
    S factored once for every right-hand side (LAPACK's Cholesky from ``CHOLESKY_ROWS``
    rows; below, each call eliminates)."""
    if S.shape[0] < CHOLESKY_ROWS:
        return lambda b: eliminate_solve(S, b, pivoting=False)
    # LAPACK's factor of the lower triangle and two triangular solves (cho_factor and
    # cho_solve add symmetrising and masking steps: the same solution up to round-off)
    L = jax.lax.linalg.cholesky(S, symmetrize_input=False)

    def solve(b):
        B = b[:, None] if b.ndim == 1 else b
        Y = jax.lax.linalg.triangular_solve(L, B, left_side=True, lower=True)
        X = jax.lax.linalg.triangular_solve(L, Y, left_side=True, lower=True,
                                            transpose_a=True)
        return X[:, 0] if b.ndim == 1 else X
    return solve


def inverse3(A):
    """The inverse of a 3×3 matrix by its adjugate (a handful of multiplications to
    compile, where ``jnp.linalg.inv`` brings an LU factorisation); A (..., 3, 3)."""
    a0, a1, a2 = A[..., 0, :], A[..., 1, :], A[..., 2, :]
    c0, c1, c2 = jnp.cross(a1, a2), jnp.cross(a2, a0), jnp.cross(a0, a1)
    det = jnp.einsum("...i,...i->...", a0, c0)
    return jnp.stack([c0, c1, c2], axis=-1) / det[..., None, None]


def inverse_mass_operator(system, X):
    """``apply_minv(G)``: M⁻¹ G for G (..., 6 n_b), M block diagonal (m I, R I Rᵀ per body),
    elementwise (no dense M⁻¹)."""
    n_b = system.layout.n_bodies
    Minv_rot, _ = system.inverse_inertias(X)
    minv = 1.0 / system.masses
    return _apply_minv(n_b, minv, Minv_rot)


def _apply_minv(n_b, minv, Minv_rot):

    def apply_minv(G):
        G = G.reshape(G.shape[:-1] + (n_b, 6))
        lin = G[..., :3] * minv[:, None]
        ang = mv(Minv_rot, G[..., 3:])
        return jnp.concatenate([lin, ang], axis=-1).reshape(G.shape[:-2] + (6 * n_b,))
    return apply_minv


def constraint_matrix(system, X, Jl, bi, bj, J=None, MJ=None, right=None):
    """A = J M⁻¹ Jᵀ (m, m) of rows given in local form (J_l (m, 12) over [body b_i; body
    b_j], :meth:`LinkSystem.joint_rows_local`); with `right` (local rows (m, 12) on the
    same bodies, e.g. the same joints at another pose), A = J M⁻¹ J_rightᵀ. Where no body carries ``SPARSE_FRACTION`` of
    the rows it is assembled body by body, A = Σ_b J_b M_b⁻¹ J_bᵀ with J_b (p_b, 6) the rows that touch body b: work
    Σ_b p_b² against m²·6 n_b for the dense product (a chain of n bodies: O(n) against
    O(n³)); else the dense product J (M⁻¹Jᵀ) with J (m, 6 n_b) (`J`, or built from J_l),
    which is faster there (benchmarks/results/spatial_links.md)."""
    m = Jl.shape[0]
    n_b = system.layout.n_bodies
    Minv_rot, _ = system.inverse_inertias(X)
    minv = 1.0 / system.masses
    rows, sides = rows_by_body(bi, bj, n_b)
    if rows.shape[1] >= SPARSE_FRACTION * m:
        if J is None:
            J = system._scatter_rows(Jl, bi, bj)
        if right is not None:
            MJ = _apply_minv(n_b, minv, Minv_rot)(system._scatter_rows(right, bi, bj))
        elif MJ is None:
            MJ = _apply_minv(n_b, minv, Minv_rot)(J)
        return jnp.einsum("ri,si->rs", J, MJ)

    def by_body(rows_local):
        padded = jnp.concatenate([rows_local, jnp.zeros((1, 12), Jl.dtype)])
        return padded.reshape(m + 1, 2, 6)[rows, sides]                  # (n_b, p, 6)
    Jb = by_body(Jl)
    Rb = Jb if right is None else by_body(right)
    Gb = jnp.concatenate([Jb[..., :3] * minv[:, None, None],
                          mv(Minv_rot[:, None], Jb[..., 3:])], axis=-1)  # J_b M_b⁻¹
    # a sum of six outer products (XLA's CPU backend runs a batched dot block by block)
    Ab = sum(Gb[:, :, i, None] * Rb[:, None, :, i] for i in range(6))
    A = jnp.zeros((m + 1, m + 1), Jl.dtype).at[rows[:, :, None], rows[:, None, :]].add(Ab)
    return A[:m, :m]


def slide_rows_at(system, X):
    from ..integrate import call_with_system

    return call_with_system(slide_rows_kernel, system, X)


@runs_once
def slide_rows_kernel(system, X):
    return system.slide_rows(X, [jk for jk, _ in system.layout.frictions])


def inverse_mass(system, X) -> np.ndarray:
    """M⁻¹ (6 n_b, 6 n_b) at the body states X (NumPy)."""
    n_b = system.layout.n_bodies
    out = np.zeros((6 * n_b, 6 * n_b))
    # on the host: indexing the system's JAX arrays would compile a program per index shape
    masses, inertias = np.asarray(system.masses), np.asarray(system.inertias)
    for k in range(n_b):
        w, x, y, z = X[k, 3:7] / np.linalg.norm(X[k, 3:7])
        R = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                      [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                      [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])
        out[6 * k:6 * k + 3, 6 * k:6 * k + 3] = np.eye(3) / float(masses[k])
        out[6 * k + 3:6 * k + 6, 6 * k + 3:6 * k + 6] = \
            R @ np.linalg.inv(inertias[k]) @ R.T
    return out


def lambda_stage(system, t, X, s):
    """Everything one evaluation gives: ν̇ (n_b, 6), joint multipliers, contact forces,
    friction forces/normals/rates, Φ, Φ̇, springs."""
    layout = system.layout
    nu = X[:, 7:13].reshape(-1)
    apply_minv = inverse_mass_operator(system, X)

    Q, lengths, tensions = system.applied(t, X)
    Q = Q.reshape(-1)
    phi, Jl, rate, second, bi, bj = system.joint_rows_local(t, X)
    joint_rows = LocalRows(Jl, bi, bj, layout.n_bodies)
    c_joint = -second - 2.0 * system.alpha * rate - system.beta ** 2 * phi
    m = Jl.shape[0]
    n_c = len(layout.contacts)
    if n_c:
        J = system._scatter_rows(Jl, bi, bj)
        psi, Jcl, uc, udc, ba, bb = system.contact_rows_local(X)
        Jc = system._scatter_rows(Jcl, ba, bb)
        Jl, bi, bj = jnp.concatenate([Jl, Jcl]), np.concatenate([bi, ba]), \
            np.concatenate([bj, bb])
        gap_rows = (psi[:, None] * jnp.array([0.0, 0.0, 1.0])).reshape(-1)
        c_contact = -udc - (2.0 * system.zeta / system.delta) * uc - gap_rows / system.delta ** 2
        J_all = jnp.concatenate([J, Jc])
        c_all = jnp.concatenate([c_joint, c_contact])
        # the bound: μ_s while a contact sticks, μ once it slides (ContactPair, mu_s)
        arrays = system.contact_arrays
        squared = jnp.sum(uc.reshape(n_c, 3)[:, :2] ** 2, axis=1)
        slide_speed = jnp.where(squared > 0, jnp.sqrt(jnp.where(squared > 0, squared, 1.0)),
                                0.0)                       # a gradient at rest too
        mu = friction_curve(slide_speed, arrays["mu"], arrays["mu_s"], arrays["v_stribeck"])
        blocks = ([Bilateral(m)] if m else []) + [SpatialContact(mu=mu[k]) for k in range(n_c)]
        fset = ProductSet(blocks)
    else:
        psi = jnp.zeros(0)
        c_all = c_joint
    if n_c:                                         # the λ-stage every contact host shares
        MJt = apply_minv(J_all).T                   # (6 n_b, rows)
        A = constraint_matrix(system, X, Jl, bi, bj, J_all, MJt.T)
        stage = prepare_lambda_stage(fset, J_all, MJt.T, c_all, apply_minv,
                                     layout.formulation, A=A, certify="none", fallback=False)
    elif m:                 # the joints alone: their rows in local form, S by joint_factor
        solve_joints = joint_factor(system, X, Jl, bi, bj)

    def solve(Qt):
        """(λ of all rows, ν̇) for the generalised forces Qt."""
        if n_c:
            sol, nud = stage(Qt)
            # unsolved: a normalised residual above UNSOLVED_RESIDUAL (module docstring)
            return sol.lam, nud, (sol.residual > UNSOLVED_RESIDUAL).astype(int)
        free = apply_minv(Qt)
        if not m:
            return jnp.zeros(0), free, jnp.zeros((), int)
        lam = solve_joints(c_all - joint_rows.times(free))
        return lam, free + apply_minv(joint_rows.transpose_times(lam)), jnp.zeros((), int)

    frictions = layout.frictions
    if frictions:
        joints = [jk for jk, _ in frictions]
        Wf = system.slide_rows(X, joints)
        vf = Wf @ nu
        normal_of = normal_forces(system, X, joints)

        def g(f):
            lam, _, _ = solve(Q + Wf.T @ f)
            N = normal_of(joint_rows, lam[:m])
            forces, rates = [], []
            for k, (law, (_, sl)) in enumerate(zip(system.laws, frictions)):
                force, rate_k = law.force_and_rate(s[sl[0]:sl[1]], vf[k], N[k])
                forces.append(force)
                rates.append(jnp.reshape(rate_k, (-1,)))
            return jnp.stack(forces), (N, jnp.concatenate(rates) if rates else
                                       jnp.zeros(0))

        def newton(_, f):
            value, _ = g(f)
            jac = jax.jacfwd(lambda z: g(z)[0])(f)
            step = eliminate_solve(jnp.eye(f.shape[0]) - jac, f - value, pivoting=True)
            return jnp.where(jnp.all(jnp.isfinite(step)), f - step, f)

        f0 = jnp.zeros(len(frictions))
        if loop_needed(system):
            f0 = jax.lax.fori_loop(0, NEWTON_ITERATIONS, newton, f0)
        f, (normals, s_rate) = g(f0)
        Qt = Q + Wf.T @ f
    else:
        f = normals = vf = jnp.zeros(0)
        s_rate = jnp.zeros(0)
        Qt = Q
    lam, nud, status = solve(Qt)
    return {"nud": nud, "lam": lam[:m], "contact": lam[m:], "rows": joint_rows, "phi": phi,
            "status": status,
            "rate": rate, "friction": f, "normal": normals, "slip": vf, "s_rate": s_rate,
            "psi": psi, "lengths": lengths, "tensions": tensions, "Q": Q}


def loop_needed(system) -> bool:
    """Whether a friction law's level depends on the normal force (else g is constant
    in f and one evaluation is exact)."""
    return any(getattr(law, "mu", None) is not None or not hasattr(law, "F")
               for law in system.laws)

def joint_reactions(system, X, jk, J, lam):
    """The reaction of joint `jk` on its body j: force F [N] and torque about its centre
    of mass T [N·m], world frame, from its rows' generalised force Jᵀλ. `J`: the kept rows,
    dense (m, 6 n_b) or a :class:`LocalRows`."""
    layout = system.layout
    lo, hi = layout.rows[jk]
    kept = layout.kept
    mask = (kept >= lo) & (kept < hi)
    if not mask.any():
        return jnp.zeros(3), jnp.zeros(3)
    rows = np.nonzero(mask)[0]
    i, j = layout.joints[jk][2], layout.joints[jk][3]
    n_b = layout.n_bodies
    if isinstance(J, LocalRows):
        if np.all(J.bi[rows] == i) and np.all(J.bj[rows] == j):
            # the joint's rows all act on (i, j) in that order: their halves are the forces
            G = J.Jl[rows].T @ lam[rows]
            return (G[6:9], G[9:12]) if j < n_b else (-G[0:3], -G[3:6])
        J = J.dense()                  # (not met by today's rows; checked, not assumed)
    G = J[rows].T @ lam[rows]
    if j < n_b:
        return G[6 * j:6 * j + 3], G[6 * j + 3:6 * j + 6]
    # body j is the ground: the reaction on j is minus the one on body i (moved to r_i)
    return -G[6 * i:6 * i + 3], -G[6 * i + 3:6 * i + 6]


def normal_forces(system, X, joints):
    """``normal_of(J, lam)``: the normal force each friction law sees (module
    docstring)."""
    layout = system.layout
    _, R, _, _ = system.poses(X)

    def normal_of(J, lam):
        out = []
        for k, jk in enumerate(joints):
            F, _ = joint_reactions(system, X, jk, J, lam)
            i = layout.joints[jk][2]
            u = R[i] @ system.joint_arrays["frame_i"][jk][:, 0]
            radial = F - (F @ u) * u
            N = jnp.sqrt(jnp.sum(radial * radial) + 1e-30)
            out.append(system.pin_radii[k] * N if layout.joints[jk][1] == "RevoluteJoint"
                       else N)
        return jnp.stack(out)
    return normal_of
