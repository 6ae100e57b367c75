"""The λ-stage of a spatial link system (see :mod:`._link_system`): the joints' Schur solve
or, with contacts, one λ-problem (SPEC §6) with the joints as its bilateral block; the joint
friction loop r(f) = f − g(f) = 0 around it (SPEC §9 9-2 in 3-D); the joints' reactions and
the normal forces the friction laws see; and the mass-matrix helpers these need.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import jax.scipy.linalg
import numpy as np

from ..constraints import Bilateral, ProductSet, SpatialContact, eliminate_solve, solve_lambda
from ..laws import friction_curve

__all__ = ["lambda_stage", "joint_reactions", "normal_forces", "loop_needed", "spd_solve",
           "CHOLESKY_ROWS", "NEWTON_ITERATIONS", "UNSOLVED_RESIDUAL", "inverse3",
           "inverse_mass", "slide_rows_at"]

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


def spd_solve(S, b):
    """x of S x = b for the joints' symmetric positive definite Schur complement S (m, m):
    elimination below ``CHOLESKY_ROWS`` rows, Cholesky from there. A singular S (a lock-up)
    gives inf/NaN, which the divergence guard reports."""
    if S.shape[0] < CHOLESKY_ROWS:
        return eliminate_solve(S, b, pivoting=False)
    return jax.scipy.linalg.cho_solve(jax.scipy.linalg.cho_factor(S), b)


def inverse3(A):
    """The inverse of a 3×3 matrix by its adjugate (a handful of multiplications to
    compile, where ``jnp.linalg.inv`` brings an LU factorisation)."""
    c0, c1, c2 = jnp.cross(A[1], A[2]), jnp.cross(A[2], A[0]), jnp.cross(A[0], A[1])
    return jnp.stack([c0, c1, c2], axis=1) / (A[0] @ c0)


def slide_rows_at(system, X):
    from ..integrate import call_with_system

    return call_with_system(slide_rows_kernel, system, X)


def slide_rows_kernel(system, X):
    return system.slide_rows(X, [jk for jk, _ in system.layout.frictions])


def inverse_mass(system, X) -> np.ndarray:
    """M⁻¹ (6 n_b, 6 n_b) at the body states X (NumPy)."""
    n_b = system.layout.n_bodies
    out = np.zeros((6 * n_b, 6 * n_b))
    for k in range(n_b):
        w, x, y, z = X[k, 3:7] / np.linalg.norm(X[k, 3:7])
        R = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                      [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                      [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])
        out[6 * k:6 * k + 3, 6 * k:6 * k + 3] = np.eye(3) / float(system.masses[k])
        out[6 * k + 3:6 * k + 6, 6 * k + 3:6 * k + 6] = \
            R @ np.linalg.inv(np.asarray(system.inertias[k])) @ R.T
    return out


def lambda_stage(system, t, X, s):
    """Everything one evaluation gives: ν̇ (n_b, 6), joint multipliers, contact forces,
    friction forces/normals/rates, Φ, Φ̇, springs."""
    layout = system.layout
    n_b = layout.n_bodies
    nu = X[:, 7:13].reshape(-1)
    Minv_rot, _ = system.inverse_inertias(X)
    minv = 1.0 / system.masses

    def apply_minv(G):                   # G (..., 6 n_b) -> M⁻¹ G
        G = G.reshape(G.shape[:-1] + (n_b, 6))
        lin = G[..., :3] * minv[:, None]
        ang = jnp.einsum("bij,...bj->...bi", Minv_rot, G[..., 3:])
        return jnp.concatenate([lin, ang], axis=-1).reshape(G.shape[:-2] + (6 * n_b,))

    Q, lengths, tensions = system.applied(t, X)
    Q = Q.reshape(-1)
    phi, J, rate, second = system.joint_terms(t, X)
    c_joint = -second - 2.0 * system.alpha * rate - system.beta ** 2 * phi
    m = J.shape[0]
    n_c = len(layout.contacts)
    if n_c:
        psi, Jc, uc, udc = system.contact_rows(X)
        gap_rows = jnp.zeros((n_c, 3)).at[:, 2].set(psi).reshape(-1)
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
        J_all, c_all = J, c_joint
    MJt = apply_minv(J_all).T                       # (6 n_b, rows)
    A = J_all @ MJt

    def solve(Qt):
        """(λ of all rows, ν̇) for the generalised forces Qt."""
        if J_all.shape[0] == 0:
            return jnp.zeros(0), apply_minv(Qt), jnp.zeros((), int)
        b = c_all - MJt.T @ Qt
        if n_c:
            sol = solve_lambda(fset, A, b, layout.formulation, certify="none",
                               fallback=False)
            # unsolved: a normalised residual above UNSOLVED_RESIDUAL (module docstring)
            lam, status = sol.lam, (sol.residual > UNSOLVED_RESIDUAL).astype(int)
        else:
            lam, status = spd_solve(A, b), jnp.zeros((), int)
        return lam, apply_minv(Qt + J_all.T @ lam), status

    frictions = layout.frictions
    if frictions:
        joints = [jk for jk, _ in frictions]
        Wf = system.slide_rows(X, joints)
        vf = Wf @ nu
        normal_of = normal_forces(system, X, joints)

        def g(f):
            lam, _, _ = solve(Q + Wf.T @ f)
            N = normal_of(J_all[:m], lam[:m])
            forces, rates = [], []
            for k, (law, (_, sl)) in enumerate(zip(system.laws, frictions)):
                force, rate_k = law.force_and_rate(s[sl[0]:sl[1]], vf[k], N[k])
                forces.append(force)
                rates.append(jnp.reshape(rate_k, (-1,)))
            return jnp.stack(forces), (N, jnp.concatenate(rates) if rates else
                                       jnp.zeros(0))

        def newton(_, f):
            value, aux = g(f)
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
    return {"nud": nud, "lam": lam[:m], "contact": lam[m:], "J": J_all[:m], "phi": phi,
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
    of mass T [N·m], world frame, from its rows' generalised force Jᵀλ."""
    layout = system.layout
    lo, hi = layout.rows[jk]
    kept = layout.kept
    mask = (kept >= lo) & (kept < hi)
    if not mask.any():
        return jnp.zeros(3), jnp.zeros(3)
    rows = np.nonzero(mask)[0]
    G = J[rows].T @ lam[rows]
    i, j = layout.joints[jk][2], layout.joints[jk][3]
    n_b = layout.n_bodies
    if j < n_b:
        return G[6 * j:6 * j + 3], G[6 * j + 3:6 * j + 6]
    # body j is the ground: the reaction on j is minus the one on body i (moved to r_i)
    return -G[6 * i:6 * i + 3], -G[6 * i + 3:6 * i + 6]

def normal_forces(system, X, joints):
    """``normal_of(J, lam)``: the normal force each friction law sees (module
    docstring)."""
    layout = system.layout
    r, R, _, _ = system.poses(X)

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
