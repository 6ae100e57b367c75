"""One Moreau–Jean step of a spatial link system (:class:`._link_system.LinkSystem`;
``simulate(..., method="moreau_jean")``, :mod:`stickslip.integrate._moreau_jean`; issues 20
and 21).

The link system's λ-stage (joints as bilateral rows, point contacts as
:class:`~stickslip.constraints.SpatialContact` blocks, SPEC §6) at the velocity level, over
one step of length h (Moreau–Jean time stepping: Acary & Brogliato 2008, *Numerical Methods
for Nonsmooth Dynamical Systems*, ch. 10), as :mod:`._point_contacts_step` does for free
bodies. From the state (q, ν) at t, ν = (v, ω) per body (world frame), M the bodies' mass
matrix at the start pose (m I, R I Rᵀ):

1. the applied impulse P = ∫ₜ^{t+h} Q dτ (SPEC §7 eq. 11's Q = [m g + f; τ − ω × I_w ω]:
   gravity, point forces, torques, effort drivers, spring–dampers and the gyroscopic term)
   at the step's θ-point pose predicted from the start twist (r + θh v, exp(θh ω) ⊗ q) with
   the start velocities; a load given as a function of t by 5-point Gauss–Legendre over the
   step (:func:`~stickslip.integrate.impulse`); then ν₀ = ν + M⁻¹P. At θ = 1/2 a linear
   spring is then stepped area-preserving (stable for h ω < 2, its energy error bounded and
   second order: measured on a spherical pendulum held by a spring, 1.0e-5 J over 5 s at
   h = 1 ms); its force at the start pose would gain energy every step (measured: the
   divergence guard stopped that run at 0.7 s);
2. the kept joint and driver rows Φ_q (m × 6 n_b): the joint impulse acts along the rows
   G_θ at the step's θ-point and the rows hold at its end, G_e ν⁺ + τ = 0, with τ their
   time terms at t + h (a driver's −θ̇_d: Φ̇ = G ν + τ); both poses are predicted from the
   start twist (r + s v, exp(s ω) ⊗ q at s = θh and h). Then

       ν_free = ν₀ − M⁻¹G_θᵀ (G_e M⁻¹ G_θᵀ)⁻¹ (G_e ν₀ + τ)

   (a square, nonsymmetric solve). Why two poses: with one pose (Moreau–Jean's usual start
   pose) the end velocity is tangent to the rows at the start, and the projection after the
   step removes its turn: a first-order loss of energy (measured on the frictionless double
   pendulum of tests/spatial/test_link_moreau_jean.py at θ = 1/2: 0.35 J over 2 s at
   h = 1 ms, angles 3.4e-2 rad off rk4). With the impulse at the mid-step rows and the rows
   held at the end, a uniform rotation about a pin keeps its energy exactly, and the run is
   second order (3.4e-4 J, 1.8e-5 rad; 1.7e-7 rad at h = 0.1 ms). Impulses that the
   contacts and frictions of step 3 cause are carried by the rows at the end pose,
   eliminated by the Schur complement S = G_e M⁻¹ G_eᵀ (:func:`._link_dynamics.spd_solve`)
   into the joint-projected inverse mass (:mod:`._volume_links`)

       W = M⁻¹ − M⁻¹G_eᵀ S⁻¹ G_e M⁻¹,   ν⁺ = ν_free + W Jᵀ p,

   symmetric, as the λ-problem needs, with J the contacts' rows (t₁, t₂, n per contact,
   :meth:`LinkSystem.contact_rows`) at the start pose;
3. the contact impulses p solve the SAME λ-problem as the ODE route,
   ``solve_lambda(ProductSet(blocks), A, b)`` with

       w = A p − b,   A = J W Jᵀ,   b = −(J ν_free + [0, 0, g_k]ₖ),
       g_k = max(ψ_k + h (1 − θ) vₙ,ₖ, 0) / (h θ_g),   θ_g = max(θ, 1/2),
       w ∈ −lim N_F^{U_ε}(p)

   (SPEC §6 at the velocity level: w is the end-of-step contact velocity, its normal row
   shifted by g): a sticking contact ends the step with w_t = 0 to the solver's tolerance —
   no creep, no proxy spring; a sliding one with ‖p_t‖ = μ pₙ opposite to w_t; pₙ > 0 only
   where wₙ = 0, so the linearised end-of-step gap ψ + h (θ vₙ⁺ + (1 − θ) vₙ) = h θ wₙ ≥ 0
   for θ ≥ 1/2 (exactly no penetration at θ = 1; at θ < 1 an impact may end inside by up to
   h (1 − θ)|vₙ|, as for :class:`~stickslip.spatial.PointContacts`). Restitution 0. The
   friction bound is the contact's curve μ(|v_t|) (``ss.laws.friction_curve``) at the
   start-of-step slip speed: μ_s for a contact at rest, μ once it slides. The λ-problem is
   solved with a small compliance and a proximal correction (``PROXIMAL_WEIGHT``: A is
   singular where a box rests on four corners, and the plain solve can stall), its Newton
   steps refined so that where the contacts carry a body in many ways the split reached
   does not depend on round-off (``PROXIMAL_REFINE``); the joint impulse gets
   −S⁻¹ G_e M⁻¹ Jᵀ p;
4. positions by the θ-method, r⁺ = r + h (θ v⁺ + (1 − θ) v), quaternions by the exponential
   map of the *world-frame* rotation vector φ = h (θ ω⁺ + (1 − θ) ω): q⁺ = exp(φ/2) ⊗ q
   (:func:`._rigid.rotate_quat`, the package's world-frame convention q̇ = ½ (0, ω) ⊗ q), the
   revolute angles by the same rule; then :meth:`LinkSystem.project` at t + h (unit
   quaternions, one Newton step onto Φ = 0, then the velocities onto Φ̇ = 0 at the corrected
   pose — both on step 3's rows G_e and factor of S at the predicted end pose where step 3
   made them: simplified Newton steps, no factorisation of their own; whole turns of the
   angles);
5. the channels report mean forces over the step, impulse / h (the joint reactions from the
   rows' impulses G_θᵀλ + G_eᵀλ_c of the step, the contacts' p/h, the frictions' P_f/h).

Joint friction (``friction=CoulombODE(...)`` on a revolute or prismatic joint) joins step 3:
one row per friction (the joint's slide rate) with a bound from the joint's reaction impulse,
solved with the contacts as one λ-problem inside a fixed point on the normal forces
(:mod:`._link_step_friction`); other friction laws are refused by name before anything is
traced (:func:`route_refusal`). Springs, dampers and the gyroscopic term are explicit in
the velocities (the start's): a damper c with h c/m ≳ 2 on its lightest body m is not
stable here — use an ODE method for it.
"""

from __future__ import annotations

import jax.numpy as jnp

from ..constraints import ProductSet, SpatialContact, eliminate_solve, solve_lambda
from ..integrate import AbstractTimeSteppingHost, impulse
from ..laws import friction_curve
from ._link_dynamics import (
    CHOLESKY_ROWS,
    UNSOLVED_RESIDUAL,
    constraint_matrix,
    inverse_mass_operator,
    joint_factor,
    joint_general_solve,
    normal_forces,
)
from ._link_outputs import link_channels
from ._link_rows import LocalRows
from ._link_step_friction import REST, friction_refusal, solve_with_friction
from ._rigid import rotate_quat

# the contact impulse problem is solved with the compliance ε = PROXIMAL_WEIGHT · trace(A)/n
# added to A, twice, the second time with b shifted by ε times the first solution (a proximal
# point step): measured on the arm pushing the box (tests/spatial/test_link_moreau_jean.py),
# the plain solve of its first step stalls at a normalised residual 2.1e-5 with ε = 0 or
# 1e-10 (four sliding corners and the tip carry the box in many ways: A is singular), and
# the corners' w_n are off by 5e-4 m/s (the box pitches into the ground); with ε = 1e-8 it
# converges to 1e-16. The second solve removes the bias ε p of the first (a sticking contact
# would creep at ε|p_t|): what is left is ε (p₂ − p₁). The second solve starts from the
# first's p, which solves a problem ε p away (``warm=inf``: one Newton round where the modes
# stay, two from 0; it keeps p₁'s part along A's null space, as the proximal step should).
# The first solve's Newton steps are refined once (``refine=PROXIMAL_REFINE``): with
# A + εI of condition ~1/ε the plain normal equations left the part of p along A's null
# space (the cart's four wheels' split of its weight) to round-off — ~1e-4 N of 7 N moved
# with any reordering of the step's arithmetic; refined, 1e-9 N (constraints._iterative,
# *Refined steps*). The second solve's steps are of size ε|p|, whose error along the null
# space is below that: not refined. The first solve stops
# at a natural residual of PROXIMAL_START (one Newton round from 0 leaves ~4e-12 where the
# modes are right, and a second round would only confirm them): its p only starts the
# second solve, whose round from there removes that error with the shift ε p (the bias
# ε (p₂ − p₁) changes by ε times that error, ~1e-20). The first solve also runs without
# the solver's Gauss–Seidel safeguard (``safeguard=False``), which the second keeps: where
# the first stops short, the second, from its p, still has it. The safeguard's loops were
# compiled and loaded twice: without the first copy the arm example's stored Moreau–Jean
# programs take 3.21 instead of 3.47 MB (2026-11-26)
PROXIMAL_WEIGHT = 1e-8
PROXIMAL_SOLVES = 2
PROXIMAL_REFINE = 1
PROXIMAL_START = 1e-10

__all__ = ["PROXIMAL_REFINE", "PROXIMAL_SOLVES", "PROXIMAL_START", "PROXIMAL_WEIGHT",
           "LinkTimeStepping", "moreau_jean_outputs", "moreau_jean_step", "route_refusal"]


class LinkTimeStepping(AbstractTimeSteppingHost):
    """The time-stepping side of :class:`._link_system.LinkSystem` (the contract of
    :class:`~stickslip.integrate._moreau_jean_host.AbstractTimeSteppingHost`; module
    docstring)."""

    def moreau_jean_step(self, t, x, h, theta):
        """One Moreau–Jean step: :func:`moreau_jean_step`."""
        return moreau_jean_step(self, t, x, h, theta)

    def moreau_jean_outputs(self, t, x, forces):
        """The ODE route's channels at a sample: :func:`moreau_jean_outputs`."""
        return moreau_jean_outputs(self, t, x, forces)

    def route_refusal(self, method):
        """Why this link system cannot run `method`: :func:`route_refusal`."""
        return route_refusal(self, method)


def route_refusal(system, method: str) -> str | None:
    """Why `system` cannot run `method`, or None: ``moreau_jean`` needs every joint
    friction law to be a ``CoulombODE`` (:func:`._link_step_friction.friction_refusal`)."""
    if method == "moreau_jean":
        return friction_refusal(system)
    return None


def _timed(layout) -> bool:
    """Whether a load is a function of t (then its impulse needs the quadrature)."""
    return (any(fn is not None for _, fn in layout.forces)
            or any(fn is not None for _, fn in layout.torques)
            or any(d[3] is not None for d in layout.drivers if d[2] == "effort"))


def _load_impulse(system, t, X, h):
    """P = ∫ₜ^{t+h} Q dτ (6 n_b,) at the state X (the step's θ-point pose, step 1): h·Q, or
    the 5-point rule over the step where a load is a function of t."""
    if _timed(system.layout):
        return impulse(lambda tau: system.applied(tau, X)[0].reshape(-1), t, h)
    return h * system.applied(t, X)[0].reshape(-1)


def _contact_bound(system, uc):
    """μ of each contact at its start-of-step slip speed (``friction_curve``)."""
    n_c = len(system.layout.contacts)
    arrays = system.contact_arrays
    squared = jnp.sum(uc.reshape(n_c, 3)[:, :2] ** 2, axis=1)
    speed = jnp.where(squared > 0, jnp.sqrt(jnp.where(squared > 0, squared, 1.0)), 0.0)
    return friction_curve(speed, arrays["mu"], arrays["mu_s"], arrays["v_stribeck"])


def _predicted(X, s):
    """The pose reached from X after a time s [s] at X's own twist (r + s v, exp(s ω) ⊗ q;
    the velocities kept): where the step's joint rows are evaluated (step 2)."""
    r = X[:, 0:3] + s * X[:, 7:10]
    q = rotate_quat(X[:, 3:7], s * X[:, 10:13])
    return jnp.concatenate([r, q, X[:, 7:13]], axis=1)


def _general_solve(S, b):
    """x of S x = b for the step's (nonsymmetric) joint matrix G_e M⁻¹ G_θᵀ."""
    if S.shape[0] < CHOLESKY_ROWS:
        return eliminate_solve(S, b, pivoting=True)
    return jnp.linalg.solve(S, b)


def _proximal_solve(fset, A, b, formulation):
    """(p, residual) of w = A p − b ∈ −lim N_F^{U_ε}(p) by ``PROXIMAL_SOLVES`` proximal-point
    solves (A + εI) p_{k+1} − (b + ε p_k) ∈ −lim N_F^{U_ε}(p_{k+1}) from p_0 = 0, ε =
    ``PROXIMAL_WEIGHT`` · trace(A)/n (module docstring, step 3), each from p_k."""
    eps = PROXIMAL_WEIGHT * jnp.trace(A) / A.shape[0]
    A_eps = A + eps * jnp.eye(A.shape[0], dtype=A.dtype)

    # unrolled: each solve has its own options (start, refinement, tolerance), and a
    # fori_loop of the two measured 6.6 % slower per step (spatial_links.md, 2026-11-26)
    p, residual = jnp.zeros_like(b), jnp.zeros((), b.dtype)
    for k in range(PROXIMAL_SOLVES):
        sol = solve_lambda(fset, A_eps, b + eps * p, formulation, certify="none",
                           fallback=False, init=p if k else None, warm=float("inf"),
                           refine=0 if k else PROXIMAL_REFINE,
                           tolerance=None if k == PROXIMAL_SOLVES - 1 else PROXIMAL_START,
                           safeguard=k == PROXIMAL_SOLVES - 1)
        p, residual = sol.lam, sol.residual
    return p, residual


def moreau_jean_step(system, t, x, h, theta):
    """One step (module docstring): ``(x_new, forces)`` with forces ``{"rows": each kept
    joint row's mean generalised force over the step (m, 6 n_b), "contact": p / h
    (3 n_c,), "friction": P_f / h (n_f,), "normal": the frictions' normal forces (n_f,),
    "status": 0 solved, 1 the λ-problem's residual above UNSOLVED_RESIDUAL}``; x_new is NaN
    where the joint frictions' fixed point did not converge."""
    layout = system.layout
    n_b, n_c = layout.n_bodies, len(layout.contacts)
    # joints without contacts or joint frictions: step 3 adds nothing, and the joints'
    # rows stay in local form (as on the ODE route: _link_dynamics.lambda_stage)
    local = not (n_c or layout.frictions)
    X, _ = system._split(x)
    nu = X[:, 7:13].reshape(-1)
    apply_minv = inverse_mass_operator(system, X)
    # 1. the applied impulse at the θ-point pose (a spring's force there: with θ = 1/2 a
    # linear spring is stepped area-preserving, where its force at the start pose would
    # gain energy every step)
    Xm = _predicted(X, theta * h)
    P = _load_impulse(system, t, Xm, h)
    nu_free = nu + apply_minv(P)
    # 2. the joint impulse acts along the rows at the θ-point of the step, the rows hold at
    # its end: G_e ν⁺ + τ = 0 (both poses predicted from the start twist)
    Xe = _predicted(X, h)
    m = layout.kept.size
    if m:      # both poses' rows in one batched evaluation (one set of kernels, not two)
        _, Jl2, rate2, _, bi, bj = system.joint_rows_each(
            jnp.stack([t + h, t + theta * h]).astype(X.dtype), jnp.stack([Xe, Xm]),
            derivatives=False)
        Jel, Jml, rate = Jl2[0], Jl2[1], rate2[0]
        if local:      # joints alone: their rows in local form (._link_rows), no dense G
            Ge_rows, Gm_rows = (LocalRows(J, bi, bj, n_b) for J in (Jel, Jml))
            S = constraint_matrix(system, X, Jel, bi, bj, right=Jml)         # G_e M⁻¹G_θᵀ
            rhs = -(rate - Ge_rows.times(nu) + Ge_rows.times(nu_free))
            block = joint_general_solve(system, S, bi, bj)    # block LU from BLOCK_ROWS
            lam = block(rhs) if block is not None else _general_solve(S, rhs)
            nu_free = nu_free + apply_minv(Gm_rows.transpose_times(lam))
            Ge, rows = None, lam[:, None] * Jml                              # (m, 12)
        else:
            Ge = system._scatter_rows(Jel, bi, bj)
            Gm = system._scatter_rows(Jml, bi, bj)
            MGm = apply_minv(Gm).T                                           # M⁻¹G_θᵀ
            lam = _general_solve(Ge @ MGm, -(rate - Ge @ nu + Ge @ nu_free))  # τ = Φ̇ − Gν
            nu_free = nu_free + MGm @ lam
            rows = lam[:, None] * Gm
    else:
        _, Jel, _, _, bi, bj = system.joint_rows_local(t + h, Xe, derivatives=False)
        Ge = system._scatter_rows(Jel, bi, bj)
        rows = jnp.zeros((0, 6 * n_b), X.dtype)
    nu_plus, rows, contact, friction, normal, status, converged, end_rows = _impulses(
        system, t, X, Xe, nu_free, apply_minv, (Ge, Jel, bi, bj, rows), h, theta)
    # 4. the θ-method position step, then the projection at t + h
    new = nu_plus.reshape(n_b, 6)
    v, w = X[:, 7:10], X[:, 10:13]
    r = X[:, 0:3] + h * (theta * new[:, :3] + (1.0 - theta) * v)
    q = rotate_quat(X[:, 3:7], h * (theta * new[:, 3:] + (1.0 - theta) * w))
    X_new = jnp.concatenate([r, q, new], axis=1)
    n_s, n_r = layout.n_law_states, len(layout.revolutes)
    rest = x[13 * n_b:]
    if n_r:
        turned = h * (theta * system.revolute_rates(X_new) + (1.0 - theta)
                      * system.revolute_rates(X))
        rest = rest.at[n_s:n_s + n_r].add(turned)
    if n_c:
        rest = rest.at[-1].add(h * (status != 0).astype(x.dtype))
    # the position step of the projection on the rows and factor at the predicted end pose
    # (step 3's, where it made them): one factorisation fewer (LinkSystem.project)
    x_new = system.project(t + h, jnp.concatenate([X_new.reshape(-1), rest]),
                           position_rows=end_rows)
    # a joint-friction fixed point that did not converge stops the run (the guard)
    x_new = jnp.where(converged, x_new, jnp.nan)
    rows = LocalRows(rows / h, bi, bj, n_b) if local and m else rows / h
    return x_new, {"rows": rows, "contact": contact / h, "status": status,
                   "friction": friction / h, "normal": normal}


def _impulses(system, t, X, Xe, nu_free, apply_minv, joint_rows, h, theta):
    """Step 3 (module docstring): the contacts' and joint frictions' impulses on the joints'
    projected inverse mass. Returns ``(ν⁺, rows, p, P_f, N, status, converged)`` (rows: each
    joint row's generalised impulse, P_f the frictions' impulses, N their normal forces) and
    ``end_rows``: (G_e, M⁻¹G_eᵀ, S_e⁻¹) where S_e was factored, else None."""
    layout = system.layout
    Ge, Jel, bi, bj, rows = joint_rows
    m, n_c, n_f = Jel.shape[0], len(layout.contacts), len(layout.frictions)
    empty = jnp.zeros(0, X.dtype)
    if not (n_c or n_f):
        return (nu_free, rows, empty, empty, empty, jnp.zeros((), int), jnp.asarray(True),
                None)
    nu = X[:, 7:13].reshape(-1)
    parts, gap, blocks = [], jnp.zeros(0, X.dtype), []
    if n_f:                    # the slide rows at the (predicted) end of the step
        joints = [jk for jk, _ in layout.frictions]
        parts.append(system.slide_rows(Xe, joints))
        gap = jnp.zeros(n_f, X.dtype)
    if n_c:
        psi, Jcl, uc, _, ba, bb = system.contact_rows_local(X)
        parts.append(system._scatter_rows(Jcl, ba, bb))
        vn = uc[2::3]
        g = jnp.maximum(psi + h * (1.0 - theta) * vn, 0.0) / (h * jnp.maximum(theta, 0.5))
        gap = jnp.concatenate([gap, jnp.zeros((n_c, 3), X.dtype).at[:, 2].set(g).reshape(-1)])
        mu = _contact_bound(system, uc)
        blocks = [SpatialContact(mu=mu[k]) for k in range(n_c)]
    R = jnp.concatenate(parts)
    WRt = apply_minv(R).T                                                    # M⁻¹Rᵀ
    if m:
        MGe = apply_minv(Ge).T
        solve_e = joint_factor(system, X, Jel, bi, bj, Ge, MGe.T)
        Y = solve_e(Ge @ WRt)                                                # S⁻¹ G M⁻¹ Rᵀ
        WRt = WRt - MGe @ Y
        end_rows = (Ge, MGe, solve_e)
    else:
        end_rows = None
    A = R @ WRt
    A = 0.5 * (A + A.T)
    b = -(R @ nu_free + gap)

    def solve(fset, A, b):
        return _proximal_solve(fset, A, b, layout.formulation)
    if n_f:
        Wf0 = system.slide_rows(X, joints)
        rates = Wf0 @ nu
        # at rest: a rate that is round-off of the velocities and of what the step's loads
        # add to them (a joint stuck from rest has ν ≈ 1e-20, its rate all of it)
        rest = jnp.abs(rates) <= REST * (jnp.abs(Wf0) @ (jnp.abs(nu) + jnp.abs(nu_free - nu)))
        normal_of = normal_forces(system, X, joints)
        ones = jnp.ones(m, X.dtype)

        def normals(P):
            return normal_of((rows - (Y @ P)[:, None] * Ge) / h, ones)
        P, residual, normal, converged = solve_with_friction(
            solve, system.laws, blocks, A, b, normals, h, rates, rest)
    else:
        P, residual = solve(ProductSet(blocks), A, b)
        normal, converged = empty, jnp.asarray(True)
    status = ((residual > UNSOLVED_RESIDUAL).astype(int) if n_c
              else jnp.zeros((), int))
    if m:
        rows = rows - (Y @ P)[:, None] * Ge
    return (nu_free + WRt @ P, rows, P[n_f:], P[:n_f], normal, status, converged, end_rows)


def moreau_jean_outputs(system, t, x, forces):
    """The ODE route's channels (:func:`._link_outputs.link_channels`) at a sample: the pose
    quantities (coordinates, gaps, springs, constraint residuals, energy) at (t, x), the
    forces those of the step that ended there (mean forces, impulse / h)."""
    layout = system.layout
    X, _ = system._split(x)
    phi, _, rate, _, _, _ = system.joint_rows_local(t, X, derivatives=False)
    _, lengths, tensions = system.applied(t, X)
    psi = system.contact_rows_local(X)[0] if layout.contacts else jnp.zeros(0, X.dtype)
    empty = jnp.zeros(0, X.dtype)
    joints = [jk for jk, _ in layout.frictions]
    slip = (system.slide_rows(X, joints) @ X[:, 7:13].reshape(-1)) if joints else empty
    # the reactions (joint_reactions: Σ over a joint's rows of J_rᵀ λ_r) from each row's
    # generalised force of the step, λ_r J_r summed over the step's two row poses
    rows = forces["rows"]
    d = {"rows": rows, "lam": jnp.ones(layout.kept.size, X.dtype), "contact": forces["contact"],
         "status": forces["status"], "phi": phi, "rate": rate, "psi": psi,
         "lengths": lengths, "tensions": tensions, "friction": forces["friction"],
         "normal": forces["normal"], "slip": slip,
         "s_rate": jnp.zeros(layout.n_law_states, X.dtype)}
    return link_channels(system, x, X, d)

