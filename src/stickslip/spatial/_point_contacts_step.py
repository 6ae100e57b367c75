"""One Moreau–Jean step of :class:`stickslip.spatial.PointContacts` (``simulate(...,
method="moreau_jean")``, :mod:`stickslip.integrate._moreau_jean`; issues 20 and 21).

The acceleration-level λ-problem of SPEC §6 becomes an impulse problem over the step
(Moreau–Jean time stepping: Acary & Brogliato 2008, *Numerical Methods for Nonsmooth
Dynamical Systems*, ch. 10; the velocity-level gap term as in Stewart & Trinkle 1996 and
Anitescu & Potra 1997). From the state (q, ν) at t, with ν = (v, ω) per body (world frame),
M the bodies' mass matrix (world-frame inertia R I Rᵀ at the start pose) and h the step:

1. free velocity  ν_free = ν + M⁻¹ (∫ₜ^{t+h} Q_a dτ + h (m g, −ω × I ω))      (Q_a: the
   applied loads, by :func:`~stickslip.integrate._moreau_jean_host.impulse`; the
   gyroscopic term explicit, at the start);
2. the contact rows at the start pose: J (t1, t2, n per contact point, the class's
   ``contact_terms``) and the gaps ψ;
3. the impulses p (one :class:`~stickslip.constraints.SpatialContact` block per point, the
   same μ) solve the SAME λ-problem as the ODE route, ``solve_lambda(ProductSet(blocks), W,
   b, formulation)``, with

       w = W p − b,   W = J M⁻¹ Jᵀ,   b = −(J ν_free + [0, 0, g_k]ₖ),
       g_k = max(ψ_k + h (1 − θ) vₙ,ₖ, 0) / (h θ_g),  θ_g = max(θ, 1/2),
       w ∈ −lim N_F^{U_ε}(p)

   — Coulomb's law at the velocity level: w = J ν⁺ + [0, 0, g] is the post-step contact
   velocity (its normal row shifted by g), p the impulse. A sticking contact ends the step
   with w_t = 0 up to the solver's tolerance (relative to max|b|: ≈ 1e-13·max|b| m/s), a
   sliding one with p_t opposite to w_t and ‖p_t‖ = μ pₙ, and pₙ > 0 only where wₙ = 0.

   With the θ-method position step below, the end-of-step gap (linearised) is
   ψ + h (θ vₙ⁺ + (1 − θ) vₙ) = h θ wₙ for θ ≥ 1/2: a contact still open may close within
   the step (no activation threshold), and wₙ ≥ 0 leaves no penetration at the end of the
   step — exactly at θ = 1 (up to the rotation's second-order terms). Restitution e = 0:
   a closing contact stops, no bounce. A contact already inside (ψ + h (1 − θ) vₙ < 0) is
   stopped, not pushed out (no energy injected). At θ < 1 an impact whose contact the start
   velocity crosses within the first (1 − θ) h of the step (ψ < h (1 − θ) |vₙ|) ends inside
   by up to h (1 − θ) |vₙ|: the trapezoidal position step carries the pre-impact velocity
   over that part of the step (the θ-method's O(h) penetration); pass ``theta=1`` for
   impacts without penetration. Below θ = 1/2 (outside Moreau–Jean's stable range: the
   positions lean on the start velocity, which no impulse changes) nothing keeps the gap
   ≥ 0; θ_g only keeps g of the size of the velocities, where 1/(hθ) would swamp the
   solver's relative tolerance (measured at θ = 0: with 1/(hθ) a dropped box fell through
   the ground with status 0; with θ_g it ends 0.6 mm in);
4. ν⁺ = ν_free + M⁻¹ Jᵀ p;  r⁺ = r + h (θ v⁺ + (1 − θ) v);  the quaternion rotated by
   φ = h (θ ω⁺ + (1 − θ) ω) (world frame): q⁺ = exp(φ/2) ⊗ q, renormalised;
5. the channels ``<body>.fn.k`` … are p/h, the mean contact force over the step [N].

The state keeps the ODE route's layout (bodies' 13 rows, then ``painleve.none``, here the
time [s] spent in steps whose λ-problem was not solved, as the ODE route integrates it), so
a run may continue under either route and :meth:`PointContacts.simulate` raises the same
:class:`~stickslip.PainleveError`. δ and ζ (the ODE route's relaxation) are not used.

**Warm start** (issue 20): the λ-solve of a step is given the previous step's impulses
h·p/h (``solve_lambda(..., init=...)``; the route passes the previous step's forces, as
``AbstractTimeSteppingHost.warm_start`` says), as MuJoCo and Siconos warm start theirs. A box held or sliding steadily meets the law with them already (natural
residual ≤ 1e-12), so its step runs one Newton round (two from 0) and ends solved to
round-off: a held box no longer creeps by the cold solve's stopping error (1.25e-12 m in
1 s before, 9e-15 m now: the first step's, from 0). A change of mode (breakaway, landing, a
box turning) is solved from 0, as before.

**The support problem** (issue 20, speed): a box has 8 corners but rests on 4; the other 4
(ψ = 0.1 m) are open rows that every Newton round of the 24-row problem carries. Each body
touches the plane at most on one face, so the step first solves the problem on the
``support`` lowest points of each body (``PointContacts.support``: its largest face's
vertex count, 1 for a sphere) — 12 rows for a box — with the other points' impulses 0.
That is a solution of the whole problem exactly where every other point then ends the step
with wₙ ≥ 0 (Coulomb's law at p = 0: ŵ = (w_t, wₙ + μ‖w_t‖) in the dual cone ⇔ wₙ ≥ 0 for
the limit law, as SPEC §6's apex case reads; wₙ ≥ μ‖w_t‖ for ``"anitescu"``); the step checks it (and the solve's status)
and else solves the whole problem, as before (a ``while_loop`` that runs no round where
none is needed, also under ``vmap``). Measured (vmap over 21 boxes, h = 1e-2, load 11): a
held box 11.9 → 6.5 µs CPU per step, a box sliding and turning 37.7 → 14.4 µs. Held,
straight-sliding and purely turning boxes end the same to 1e-14 m; a box that slides *and*
turns on four corners has many lawful impulses (the split of its weight among them, and
with it the friction moment), and the 12-row solve picks another of them than the 24-row
one did (x(1 s) apart by 1e-5 … 2e-2 m in the box-under-force protocol, within the spread
of MuJoCo's own results over its step). ``pc.replace(support=())`` solves every point at
every step, as before this change. ``method="nakaoka"`` always does (its projection is not
a law that p = 0 meets by wₙ ≥ 0 alone).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ..constraints import ProductSet, SpatialContact, solve_lambda
from ..integrate import impulse
from ..nonsmooth import safe_norm

__all__ = ["mass_terms", "moreau_jean_step"]


def mass_terms(pc, R):
    """(M⁻¹ (6n_b × 6n_b), world-frame inertias R I Rᵀ (n_b, 3, 3)) at rotations R."""
    n_b = R.shape[0]
    I_world = jnp.einsum("bij,bjk,blk->bil", R, pc.inertias, R)
    Minv = jnp.zeros((6 * n_b, 6 * n_b))
    for k in range(n_b):
        Minv = Minv.at[6 * k:6 * k + 3, 6 * k:6 * k + 3].set(jnp.eye(3) / pc.masses[k])
        Minv = Minv.at[6 * k + 3:6 * k + 6, 6 * k + 3:6 * k + 6].set(
            jnp.linalg.inv(I_world[k]))
    return Minv, I_world


def _rotate(q, phi):
    """exp(φ/2) ⊗ q for a world-frame rotation vector φ [rad], renormalised."""
    angle = safe_norm(phi)
    half = 0.5 * angle
    # sin(|φ|/2)/|φ| = ½ sinc(|φ|/(2π)) with NumPy's normalised sinc: finite at φ = 0
    r = jnp.concatenate([jnp.cos(half)[None], 0.5 * jnp.sinc(half / jnp.pi) * phi])
    rw, rv = r[0], r[1:]
    qw, qv = q[0], q[1:]
    out = jnp.concatenate([(rw * qw - rv @ qv)[None], rw * qv + qw * rv + jnp.cross(rv, qv)])
    return out / jnp.linalg.norm(out)


def _load_impulse(pc, t, X, R, h):
    """∫ over [t, t + h] of the applied loads (F, T) (n_b, 3) each [N·s, N·m·s]: the array
    loads are constant (h times them, the force's moment at the start pose); the ``forces``
    callable is integrated in time (5-point Gauss–Legendre) at the start state."""
    arm_f = jnp.einsum("bij,bj->bi", R, pc.force_point)
    F = h * pc.force
    T = h * (pc.torque + jnp.cross(arm_f, pc.force))
    if pc.forces is not None:
        F_a, T_a = impulse(lambda tau: jnp.stack(jnp.broadcast_arrays(*pc.forces(tau, X))),
                           t, h)
        F, T = F + F_a, T + T_a
    return F, T


def moreau_jean_step(pc, t, x, h, theta, previous=None):
    """One step (module docstring): ``(x_new, {"lam": p/h (n_p, 3), "status": status})``;
    `previous`: the forces of the step before (the warm start's guess), or None."""
    n_b = pc.x0.shape[0]
    guess = None if previous is None else h * previous["lam"].reshape(-1)
    X_new, sol = bodies_step(pc, t, x[:13 * n_b].reshape(n_b, 13), h, theta, guess)
    unsolved = x[-1:] + h * (sol.status != 0).astype(x.dtype)
    x_new = jnp.concatenate([X_new.reshape(-1), unsolved])
    return x_new, {"lam": sol.lam.reshape(-1, 3) / h, "status": sol.status}


def bodies_step(pc, t, X, h, theta, guess=None):
    """(X_new (n_b, 13), the impulse problem's LambdaSolution) of one step from the bodies'
    state X; `guess`: the impulses p (3n_p,) the λ-solve starts from (a warm start)."""
    n_b = X.shape[0]
    psi, J, _, Jnu, R = pc.contact_terms(X)
    Minv, I_world = mass_terms(pc, R)
    v, w = X[:, 7:10], X[:, 10:13]
    # 1. the free velocity (applied impulse, gravity, explicit gyroscopic term)
    F_imp, T_imp = _load_impulse(pc, t, X, R, h)
    F_imp = F_imp + h * pc.masses[:, None] * pc.gravity[None, :]
    T_imp = T_imp - h * jnp.cross(w, jnp.einsum("bij,bj->bi", I_world, w))
    nu = jnp.concatenate([v, w], axis=1).reshape(-1)
    nu_free = nu + Minv @ jnp.concatenate([F_imp, T_imp], axis=1).reshape(-1)
    # 2.–3. the impulse problem: w = W p − b ∈ −lim N_F^{U_ε}(p), the ODE route's solver
    vn = Jnu[2::3]
    gap = jnp.maximum(psi + h * (1.0 - theta) * vn, 0.0) / (h * jnp.maximum(theta, 0.5))
    JM = J @ Minv
    b = -(J @ nu_free).at[2::3].add(gap)
    kept = _kept_points(pc, psi)
    if kept is None:
        sol = _solve(pc, J, JM, b, guess)
    else:
        sol = _solve_supported(pc, J, JM, b, gap, nu_free, guess, kept)
    # 4. the end-of-step velocity and the θ-method position step
    nu_plus = (nu_free + JM.T @ sol.lam).reshape(n_b, 6)
    v_new, w_new = nu_plus[:, :3], nu_plus[:, 3:]
    r_new = X[:, :3] + h * (theta * v_new + (1.0 - theta) * v)
    q_new = jax.vmap(_rotate)(X[:, 3:7], h * (theta * w_new + (1.0 - theta) * w))
    return jnp.concatenate([r_new, q_new, v_new, w_new], axis=1), sol


def _solve(pc, J, JM, b, guess):
    """The impulse problem on every contact point."""
    fset = ProductSet([SpatialContact(mu=pc.mu) for _ in range(b.shape[0] // 3)])
    return solve_lambda(fset, JM @ J.T, b, pc.formulation, init=guess)


def _kept_points(pc, psi):
    """The points of the support's problem: per body its ``support`` lowest (by gap ψ), in
    ascending order; None where that is every point (or the model has no ``support``)."""
    support = pc.support
    if not support or pc.formulation == "nakaoka":
        return None
    owner = np.asarray(pc.owner)
    parts, every = [], True
    for k, count in enumerate(support):
        mine = np.flatnonzero(owner == k)
        if count >= mine.size:
            parts.append(jnp.asarray(mine))
            continue
        every = False
        parts.append(jnp.sort(jnp.asarray(mine)[jnp.argsort(psi[mine])[:count]]))
    return None if every else jnp.concatenate(parts)


def _solve_supported(pc, J, JM, b, gap, nu_free, guess, kept):
    """The impulse problem on the `kept` points only (module docstring, "The support
    problem"); where every other point then meets the law with p = 0, those impulses with 0
    elsewhere solve the whole problem, else it is solved on every point (a ``while_loop``:
    under ``vmap`` it runs no round where no member needs it, where ``lax.cond`` would run
    both branches)."""
    n_p = gap.shape[0]
    rows = (3 * kept[:, None] + jnp.arange(3)).reshape(-1)
    J_k, JM_k = J[rows], JM[rows]
    fset = ProductSet([SpatialContact(mu=pc.mu) for _ in range(kept.shape[0])])
    sol = solve_lambda(fset, JM_k @ J_k.T, b[rows], pc.formulation,
                       init=None if guess is None else guess[rows])
    lam = jnp.zeros(3 * n_p, b.dtype).at[rows].set(sol.lam)
    w = (J @ (nu_free + JM_k.T @ sol.lam)).at[2::3].add(gap)       # = W p − b, every row
    W3 = w.reshape(n_p, 3)
    # p = 0 meets the law where ŵ lies in the dual cone: wₙ ≥ 0 (the limit law), wₙ ≥
    # μ‖w_t‖ (Anitescu's w ∈ −N_F(0))
    margin = W3[:, 2] - (pc.mu * jnp.sqrt(W3[:, 0] ** 2 + W3[:, 1] ** 2)
                         if pc.formulation == "anitescu" else 0.0)
    others = jnp.ones(n_p, bool).at[kept].set(False)
    ok = (sol.status == 0) & jnp.all(jnp.where(others, margin >= 0.0, True))

    def everywhere(c):
        # b tied to the carry's flag (False whenever this runs), so that XLA cannot hoist
        # the solve out of the loop as invariant: it did, and the solve ran at every step
        whole = _solve(pc, J, JM, jnp.where(c[0], jnp.nan, b), guess)
        return True, whole.lam, whole.w, whole.status, whole.residual

    _, lam, w, status, residual = jax.lax.while_loop(
        lambda c: jnp.logical_not(c[0]), everywhere, (ok, lam, w, sol.status, sol.residual))
    return sol._replace(lam=lam, w=w, status=status, residual=residual)
