"""λ-problems with spatial friction cones: an active-set (semismooth Newton) iteration,
safeguarded by projected Gauss–Seidel.

The law of a spatial contact (rows t1, t2, n) in the limit ε → +0 (SPEC §6) is Coulomb's
law with the sliding direction free in the tangent plane, so its modes are not finite and
:mod:`._enumeration` does not apply. It is written as a fixed point of a projection:

* ``"kikuuwe"`` (the seed's limit law): λ = P_F(λ − ρ ŵ), ŵ = (w_t, w_n + μ‖w_t‖) — De
  Saxcé's modified velocity. At the apex this reads w_n ≥ 0, on the sliding edge w_n = 0
  and w_t = −c λ_t/‖λ_t‖: exactly the limit of N_F^{U_ε}.
* ``"anitescu"``: λ = P_F(λ − ρ w) (the plain normal cone N_F, a convex cone QP).

ρ_k = 1/trace(A_kk) per contact. With the natural map F(λ) = λ − P_F(λ − ρŵ(Aλ − b)), a
solution is a zero of F (SPEC §6: λ − A⁻¹b ∈ −lim A⁻¹N_F^{U_ε}(λ) ⇔ F(λ) = 0). The solve
(:func:`solve_iteratively`):

1. **Semismooth Newton rounds** from λ = 0: λ ← λ − J⁺F(λ), J = ∂F/∂λ = I − P′ + ρP′KA
   (P′ = ∂P_F/∂z, K = ∂ŵ/∂w: one 3×3 block per contact). Where the modes (stick: z inside
   the cone; separate: z in its polar cone; slide on the edge with d = z_t/‖z_t‖) stay
   fixed, F is affine and one round solves them exactly — a box at rest is done in one or
   two rounds, its sticking corners get w_t = 0 to round-off. J is singular where λ is not
   unique (four corners carrying a box in many ways), so J⁺ is a Tikhonov least-squares
   solve (:func:`_least_squares`): the short step. Measured on 306 states of boxes that
   hold, slide, turn and land: 97 % solved within 4 rounds, 99 % within 8.
2. **Safeguard**: where ``ROUNDS`` rounds leave a natural residual above ``CONVERGED``
   (a slip that starts from rest, where the sliding direction is still undecided), block
   Gauss–Seidel sweeps (``CHUNK`` at a time, at most ``SWEEPS`` in all) bring λ near the
   solution and the rounds start again from there. All in ``lax.while_loop``s: a solve pays
   only for what it needs (under ``vmap``, the batch runs until its slowest member is done).

**Warm start** (``init``, issue 20): where a guess — the previous time step's λ — already
solves the problem to about the cold solve's own stopping error (natural residual ≤
``WARM`` = 1e-12: a box held or sliding steadily), the rounds start from it and one round
(at least: a guess within CONVERGED of a solution would leave errors a held box accumulates)
solves it to round-off; the cold solve of the same problem takes two. Any other guess is
dropped and the solve starts from 0, as without one: where λ is not unique (a box sliding
and turning on four corners) a guess merely near would carry its share of the weight into
the next step, and the trajectory would follow another of the (equally lawful) rigid-body
motions than the cold solve's (measured: 0.05 m apart after 1 s), which the relaxed ODE
route approaches as δ → 0.

**Refined steps** (``refine``, issue 20): the Newton step's regularised normal equations
square J's condition number, so where λ is not unique and the problem is kept regular by a
small proximal weight (the Moreau–Jean step of a link system, ``A + εI`` with ε = 1e-8 of
its mean diagonal) the step's component along the near-null directions carries an error of
about 1e-13 · cond² · u ≈ 1e-3 of itself: which member of the solution set is reached is
round-off (measured: a cart's four wheels' split of its weight moved by 1e-4 N of 7 N with
any reordering of the step's arithmetic). One step of iterative refinement on the same
factor (corrected semi-normal equations, Björck 1996, *Numerical Methods for Least Squares
Problems*, §2.5.4: δ ← δ + (JᵀJ + εI)⁻¹(Jᵀ(r − Jδ) − εδ)) brings that error to the size a
QR solve leaves (measured: the split moves by 6e-10 N, agreeing with a QR solve to 5e-10 N).
Off by default (every other caller's results stay bit for bit).

**Guess kept** (``warm``): the threshold under which `init` is used is a parameter; a
caller whose guess solves a nearby problem (the second of a link system's proximal solves
starts from the first's solution: the same A + εI, b shifted by ε p) may pass ``warm=inf``
to always start from it — one round instead of two from 0. Only for a near guess: along
A's near-null directions the regularised steps move λ by a fraction ~σ²/(σ² + 1e-13‖J‖²)
of the way per round, so a far guess would keep its own share of the load there (measured:
a guess of the box's impulses off by 100 % ended at residual 9e-10, another split).

The best λ seen (smallest residual) is returned. Where every block is a spatial contact (the
point contacts of :class:`stickslip.spatial.PointContacts`, a link system's contacts after
the bilateral rows are eliminated) F and J are built on all contacts at once; mixed blocks
(ℝ₊ rows, [−F, F], planar cones beside spatial ones) use the same rounds with J from
``jax.jacfwd``. Where λ is not unique the solution picked is the one the rounds reach (the
earlier Gauss–Seidel-first solver could pick another with the same residual).
"""

from __future__ import annotations

import functools
import math

import equinox as eqx
import jax
import jax.numpy as jnp
import jax.scipy.linalg

from ._sets import _project_cone, _project_cones, _tangent_norm

__all__ = ["modified_velocity", "natural_residual", "solve_iteratively"]

# the most Gauss–Seidel sweeps one solve may take (the safeguard's budget)
SWEEPS = 300
# sweeps between two series of active-set rounds in the safeguard
CHUNK = 25
# Newton rounds per series (each from the previous round's λ)
ROUNDS = 8
# a solve stops once the natural residual is below this (round-off: a mode solved exactly)
CONVERGED = 1e-13
# a warm start (``init``) is used where its natural residual is at most this — about the
# cold solve's own stopping error (up to 1e-13): a held or steadily sliding box, whose λ is
# the last step's; else the solve starts from 0. A box turning while it slides on four
# corners (λ not unique) comes nearer (measured 2e-13 … 1e-6, median 2e-9, at h = 1e-4) but
# is solved from 0, so the choice among its λ stays the cold solve's (module docstring)
WARM = 1e-12


def modified_velocity(blocks, offsets, w, formulation):
    """ŵ: w with μ‖w_t‖ added to each contact's normal row for the seed's limit law."""
    if formulation != "kikuuwe":
        return w
    out = w
    for blk, o in zip(blocks, offsets):
        if blk.kind in ("planar_contact", "spatial_contact"):
            s = blk.size
            wt = w[o:o + s - 1]
            out = out.at[o + s - 1].add(blk.mu * jnp.sqrt(jnp.sum(wt ** 2)))
    return out


def _steps(blocks, offsets, A):
    """ρ_k = 1/trace(A_kk) ≤ 1/λ_max(A_kk): a safe step for each block's projection. A
    block that moves nothing (trace 0: a contact between two bodies the joints hold fixed)
    gets the step of a trace 1e-12 times the largest, so its ρ stays finite (its λ is 0
    where it separates, and unsolvable — reported — where it is pushed in)."""
    traces = [jnp.trace(A[o:o + blk.size, o:o + blk.size]) for blk, o in zip(blocks, offsets)]
    if not traces:
        return []
    floor = jnp.maximum(1e-12 * jnp.max(jnp.stack(traces)), 1e-300)
    return [1.0 / jnp.maximum(t, floor) for t in traces]


def natural_residual(blocks, offsets, A, b, lam, formulation):
    """max_k ‖λ_k − P_Fk(λ_k − ρ_k ŵ_k)‖ / (‖λ‖ + ρ_k‖b‖): 0 exactly at a solution."""
    if not blocks:
        return jnp.zeros(())
    w = A @ lam - b
    what = modified_velocity(blocks, offsets, w, formulation)
    rho = _steps(blocks, offsets, A)
    size = jnp.max(jnp.abs(lam))
    bmax = jnp.max(jnp.abs(b))
    out = []
    for blk, o, r in zip(blocks, offsets, rho):
        sl = slice(o, o + blk.size)
        gap = lam[sl] - blk.project(lam[sl] - r * what[sl])
        out.append(jnp.max(jnp.abs(gap)) / jnp.maximum(size + r * bmax, 1e-300))
    return jnp.max(jnp.stack(out))


def _sweeps(blocks, offsets, A, b, formulation, rho, lam0, n):
    if len(blocks) > 1 and all(blk.kind == "spatial_contact" for blk in blocks):
        return _cone_sweeps(blocks, A, b, formulation, rho, lam0, n)

    def sweep(_, lam):
        for blk, o, r in zip(blocks, offsets, rho):
            sl = slice(o, o + blk.size)
            w = A[sl] @ lam - b[sl]
            what = modified_velocity([blk], [0], w, formulation)
            lam = lam.at[sl].set(blk.project(lam[sl] - r * what))
        return lam

    return jax.lax.fori_loop(0, n, sweep, lam0)


def _cone_sweeps(blocks, A, b, formulation, rho, lam0, n):
    """:func:`_sweeps` for spatial contacts only: the contacts visited by a ``fori_loop``
    (one contact's update traced once, whatever their number)."""
    mu = jnp.stack([jnp.asarray(blk.mu, A.dtype) for blk in blocks])
    rho = jnp.stack(rho)
    rows = A.reshape(len(blocks), 3, -1)
    bs = b.reshape(len(blocks), 3)

    def visit(k, lam):
        w = rows[k] @ lam - bs[k]
        what = _cone_what(mu[k][None], w[None], formulation)[0]
        z = jax.lax.dynamic_slice(lam, (3 * k,), (3,)) - rho[k] * what
        return jax.lax.dynamic_update_slice(lam, _one_cone(z, mu[k]), (3 * k,))

    return jax.lax.fori_loop(0, n, lambda _, lam: jax.lax.fori_loop(0, len(blocks), visit,
                                                                     lam), lam0)


def _least_squares(J, r, differentiable=False, refine=0):
    """The Newton step's solution of J δ = r: Tikhonov-regularised normal equations
    (JᵀJ + εI)δ = Jᵀr, ε = 1e-13‖J‖²_F, by Cholesky. J is singular where λ is not unique (the
    four corners of a box carry its weight in many ways): this picks the short step, where
    an LU solve of a numerically singular J would jump far. Where J is regular the error
    (relative 1e-13 · cond(J)²) is removed by the next step. `refine` (static): that many
    steps of iterative refinement on the same factor, δ ← δ + (JᵀJ + εI)⁻¹(Jᵀ(r − Jδ) − εδ)
    (module docstring, *Refined steps*).
    With `differentiable` (the tangent rule below) the same solve by ``cho_factor`` and
    ``cho_solve``, which reverse mode can transpose (a bare ``triangular_solve`` inside the
    transposed scan cannot)."""
    if differentiable:
        gram = J.T @ J
        eps = 1e-13 * jnp.maximum(jnp.trace(gram), 1e-300)
        factor = jax.scipy.linalg.cho_factor(gram + eps * jnp.eye(J.shape[0]))
        return jax.scipy.linalg.cho_solve(factor, J.T @ r)
    n = J.shape[0]
    both = jnp.einsum("ij,ik->jk", J, jnp.concatenate([J, r[:, None]], axis=1))  # [JᵀJ|Jᵀr]
    gram = both[:, :n]
    eps = 1e-13 * jnp.maximum(jnp.trace(gram), 1e-300)
    # LAPACK's factor and two triangular solves on the lower triangle (cho_factor would
    # first symmetrise and mask the matrix: more steps, the same factor up to round-off)
    L = jax.lax.linalg.cholesky(gram + eps * jnp.eye(n), symmetrize_input=False)

    def solve(rhs):
        y = jax.lax.linalg.triangular_solve(L, rhs, left_side=True, lower=True)
        return jax.lax.linalg.triangular_solve(L, y, left_side=True, lower=True,
                                               transpose_a=True)
    delta = solve(both[:, n:])
    for _ in range(refine):
        delta = delta + solve(J.T @ (r[:, None] - J @ delta) - eps * delta)
    return delta[:, 0]


def _safe_norm(x, axis=-1):
    """‖x‖ with derivative 0 (not NaN) at x = 0: a sticking contact's ‖w_t‖ in ŵ."""
    sq = jnp.sum(x ** 2, axis=axis)
    return jnp.where(sq > 0, jnp.sqrt(jnp.where(sq > 0, sq, 1.0)), 0.0)


def _fixed_point_map(blocks, offsets, A, b, formulation, rho):
    """F(λ) = λ − P_F(λ − ρŵ(Aλ − b)), block by block: 0 exactly at a solution."""
    def F(lam):
        w = A @ lam - b
        parts = []
        for blk, o, r in zip(blocks, offsets, rho):
            s = blk.size
            what = w[o:o + s]
            if formulation == "kikuuwe" and blk.kind in ("planar_contact", "spatial_contact"):
                what = what.at[s - 1].add(blk.mu * _safe_norm(what[:s - 1]))
            parts.append(lam[o:o + s] - blk.project(lam[o:o + s] - r * what))
        return jnp.concatenate(parts)

    return F


def _cone_what(mu, W, formulation):
    """ŵ of k contacts, W (k, 3): w_n + μ‖w_t‖ for the seed's limit law."""
    if formulation != "kikuuwe":
        return W
    return jnp.stack([W[:, 0], W[:, 1], W[:, 2] + mu * _tangent_norm(W)], axis=1)


def _one_cone(z, mu):
    return _project_cone(z[:2], z[2], mu)


def _cone_steps(A, k):
    """:func:`_steps` for k spatial contacts at once: ρ (k,) from the traces of A's 3×3
    diagonal blocks (the same floor)."""
    traces = jnp.sum(jnp.diagonal(A).reshape(k, 3), axis=1)
    floor = jnp.maximum(1e-12 * jnp.max(traces), 1e-300)
    return 1.0 / jnp.maximum(traces, floor)


def _cone_derivatives(Z, W, mu, formulation):
    """P′ = ∂P/∂z (k, 3, 3) of the cone projection at Z (k, 3) and P′K, K = ∂ŵ/∂w at W,
    written out (what ``jax.jacfwd`` of :func:`_one_cone` and :func:`_cone_what` gives, in
    a few elementwise operations instead of three tangents through every branch):

        inside: P′ = I;  polar: P′ = 0;  on the surface, u = t/‖t‖, c = 1/(1 + μ²),
        s = c(μ‖t‖ + n):  ∂t′/∂t = μ²c uuᵀ + (μs/‖t‖)(I − uuᵀ),  ∂t′/∂n = μc u,
        ∂n′/∂t = μc uᵀ,  ∂n′/∂n = c;
        K = I + μ e₃ vᵀ (v = w_t/‖w_t‖, 0 at w_t = 0) for the seed's limit law.
    """
    t, n = Z[:, :2], Z[:, 2]
    norm = _tangent_norm(Z)
    inside = (norm <= mu * n) & (n >= 0)
    polar = mu * norm <= -n
    c = 1.0 / (1.0 + mu ** 2)
    s = (mu * norm + n) * c
    safe = jnp.where(norm > 0, norm, 1.0)
    u = jnp.where((norm > 0)[:, None], t / safe[:, None], 0.0)                    # (k, 2)
    uu = u[:, :, None] * u[:, None, :]
    tt = ((mu ** 2 * c)[:, None, None] * uu
          + jnp.where(norm > 0, mu * s / safe, 0.0)[:, None, None] * (jnp.eye(2) - uu))
    tn = (mu * c)[:, None] * u
    surface = jnp.concatenate([
        jnp.concatenate([tt, tn[:, :, None]], axis=2),
        jnp.concatenate([tn, c[:, None]], axis=1)[:, None, :]], axis=1)
    P = jnp.where(inside[:, None, None], jnp.eye(3),
                  jnp.where(polar[:, None, None], 0.0, surface))
    if formulation != "kikuuwe":
        return P, P
    wnorm = _tangent_norm(W)
    v = jnp.where((wnorm > 0)[:, None], W[:, :2] / jnp.where(wnorm > 0, wnorm, 1.0)[:, None],
                  0.0)
    # P K = P + P[:, :, 2] (μ v)ᵀ in the tangential columns
    PK = P.at[:, :, :2].add(P[:, :, 2:3] * (mu[:, None] * v)[:, None, :])
    return P, PK


def _cone_fixed_point_map(mu, rho, A, b, formulation):
    """(F, ∂F/∂λ) of :func:`_fixed_point_map` for k spatial contacts (μ, ρ: shape (k,)),
    all at once, as ``F_aux(λ) -> (F, aux)`` and ``jacobian_aux(aux)``. The Jacobian is assembled from 3×3 blocks (no m tangents through A):

        F = λ − P(z),  z = λ − ρ ŵ(Aλ − b)  ⇒  ∂F/∂λ = I − P′ + ρ P′ K A,

    P′ = ∂P/∂z and K = ∂ŵ/∂w block diagonal (one 3×3 block per contact, written out by
    :func:`_cone_derivatives`)."""
    k = mu.shape[0]
    m = 3 * k
    eye = jnp.eye(m)
    A3 = A.reshape(k, 3, m)

    def parts(lam):
        W = (A @ lam - b).reshape(k, 3)
        return lam.reshape(k, 3), W, lam.reshape(k, 3) - rho[:, None] * _cone_what(
            mu, W, formulation)

    def F_aux(lam):
        """F(λ) and what its Jacobian needs (w, z), so a Newton round does not form them
        again."""
        L, W, Z = parts(lam)
        return (L - _project_cones(Z, mu)).reshape(-1), (W, Z)

    def jacobian_aux(aux):
        W, Z = aux
        P, PK = _cone_derivatives(Z, W, mu, formulation)
        C = rho[:, None, None] * PK
        diag = jnp.eye(k)[:, None, :, None]
        P_bd = (diag * P[:, :, None, :]).reshape(m, m)                       # block diagonal
        # C A row block by row block, elementwise (a (k, 3, 3) by (k, 3, m) batched product
        # would be a separate library call)
        CA = jnp.sum(C[:, :, :, None] * A3[:, None, :, :], axis=2).reshape(m, m)
        return eye - P_bd + CA

    return F_aux, jacobian_aux


def solve_iteratively(blocks, offsets, A, b, formulation, sweeps=SWEEPS, init=None,
                      warm=WARM, refine=0, tolerance=CONVERGED):
    """(λ, w, residual) of the λ-problem: Newton rounds, safeguarded by projected
    Gauss–Seidel (module docstring); at most `sweeps` sweeps. The residual is
    :func:`natural_residual`'s.

    `init` (shape (m,), optional): a warm start, e.g. the previous time step's λ. Where it
    solves the problem to natural residual ≤ ``WARM`` (a box held or sliding steadily) the
    rounds start from it, one round at least; any other guess is dropped and the solve
    starts from 0, as without one (module docstring). It has no derivative (the solution
    does not depend on where the iteration started, except which of several solutions a
    non-unique problem picks). `warm`: the guess's threshold (``WARM``; ``inf``: always
    start from the guess — for a guess that solves a nearby problem, module docstring). `refine` (static): steps
    of iterative refinement in each Newton step (:func:`_least_squares`). `tolerance`: the
    natural residual at which the solve stops (``CONVERGED``; a looser one for a solve whose
    λ only starts another, e.g. the first of a link step's proximal solves).

    Differentiable in A, b and the blocks' parameters (μ) in forward and reverse mode, by
    the implicit function theorem at the solution (the loops themselves are not
    differentiated): F(λ; A, b, μ) = 0 gives dλ = −(∂F/∂λ)⁺ (∂F/∂(A, b, μ)) d(A, b, μ),
    with the same regularised least-squares solve as the Newton steps (where λ is not
    unique it picks the smallest change). The steps ρ are held fixed: a solution is a zero
    of F for every ρ > 0."""
    arrays, static = eqx.partition(tuple(blocks), eqx.is_array)
    if init is not None:
        init = jax.lax.stop_gradient(jnp.asarray(init, A.dtype))
    options = (int(sweeps), float(warm), int(refine), float(tolerance))
    lam, res = _solve(static, tuple(offsets), formulation, options, arrays, A, b, init)
    return lam, A @ lam - b, res


@functools.partial(jax.custom_jvp, nondiff_argnums=(0, 1, 2, 3))
def _solve(static, offsets, formulation, options, arrays, A, b, init):
    sweeps, warm, refine, tolerance = options
    lam, _, res = _solve_loops(eqx.combine(arrays, static), offsets, A, b, formulation,
                               sweeps, init, warm, refine, tolerance)
    return lam, res


@_solve.defjvp
def _solve_jvp(static, offsets, formulation, options, primals, tangents):
    arrays, A, b, init = primals
    lam, res = _solve(static, offsets, formulation, options, arrays, A, b, init)
    rho = [jax.lax.stop_gradient(r) for r in _steps(eqx.combine(arrays, static), offsets, A)]

    def F(lam, arrays, A, b):
        blocks = eqx.combine(arrays, static)
        return _fixed_point_map(blocks, offsets, A, b, formulation, rho)(lam)

    J = jax.jacfwd(F)(lam, arrays, A, b)
    _, dF = jax.jvp(lambda a, A_, b_: F(lam, a, A_, b_), (arrays, A, b), tangents[:3])
    dlam = -_least_squares(J, dF, differentiable=True)
    return (lam, res), (dlam, jnp.zeros_like(res))


def _solve_loops(blocks, offsets, A, b, formulation, sweeps=SWEEPS, init=None, warm=WARM,
                 refine=0, tolerance=CONVERGED):
    """The loops of :func:`solve_iteratively` (not differentiable themselves), from λ = 0 or
    from `init` (where its residual is at most `warm`), until the residual is at most
    `tolerance`."""
    m = A.shape[0]
    if all(blk.kind == "spatial_contact" for blk in blocks):
        mu = jnp.stack([jnp.asarray(blk.mu, A.dtype) for blk in blocks])
        rho_k = _cone_steps(A, len(blocks))
        rho = [rho_k[i] for i in range(len(blocks))]           # for the safeguard's sweeps
        F_aux, jacobian_aux = _cone_fixed_point_map(mu, rho_k, A, b, formulation)
        rho_rows = jnp.repeat(rho_k, 3)
    else:
        rho = _steps(blocks, offsets, A)
        F_plain = _fixed_point_map(blocks, offsets, A, b, formulation, rho)

        def F_aux(lam):
            return F_plain(lam), lam
        jacobian_aux = jax.jacfwd(F_plain)
        rho_rows = jnp.concatenate([jnp.full(blk.size, r) for blk, r in zip(blocks, rho)])
    bmax = jnp.max(jnp.abs(b))

    def residual(lam, value):                       # natural_residual from F(λ)
        scale = jnp.max(jnp.abs(lam)) + rho_rows * bmax
        return jnp.max(jnp.abs(value) / jnp.maximum(scale, 1e-300))

    def F(lam):
        return F_aux(lam)[0]

    lam0 = jnp.zeros(m, A.dtype)
    least = 0
    if init is None:
        res0 = residual(lam0, F(lam0))
    else:
        # a warm start where the guess nearly solves the problem (natural residual ≤ WARM),
        # else from 0 as without one; a guess with NaN/inf entries (a failed previous
        # step) counts as far
        guess = jnp.where(jnp.all(jnp.isfinite(init)), init, lam0)
        res_guess = residual(guess, F(guess))
        # one round at least from a guess: within CONVERGED of a solution it still leaves
        # errors of that size, which a held box accumulates step after step (it tips:
        # measured, its tilt rate grew ×1.2 a step up to 1e-11 rad/s); one round from the
        # right modes solves them to round-off, as the start from 0 ends
        if math.isinf(warm):        # always from the (finite) guess: no residual at 0
            lam0, res0, least = guess, res_guess, 1
        else:
            res0 = residual(lam0, F(lam0))
            near = res_guess <= warm
            lam0, res0 = jnp.where(near, guess, lam0), jnp.where(near, res_guess, res0)
            least = near.astype(jnp.int32)

    def rounds(lam, best, best_res):
        """Up to ROUNDS Newton steps from `lam`; the best λ so far and its residual."""
        def cond(c):
            i, _, _, _, _, res = c
            return (i < ROUNDS) & ((res > tolerance) | (i < least))

        def body(c):
            i, lam, value, aux, best, res = c
            lam = lam - _least_squares(jacobian_aux(aux), value, refine=refine)  # Newton
            value, aux = F_aux(lam)
            r = residual(lam, value)
            better = jnp.isfinite(r) & (r < res)
            return (i + 1, lam, value, aux, jnp.where(better, lam, best),
                    jnp.where(better, r, res))

        value, aux = F_aux(lam)
        _, _, _, _, best, best_res = jax.lax.while_loop(
            cond, body, (0, lam, value, aux, best, best_res))
        return best, best_res

    lam, res = rounds(lam0, lam0, res0)

    def unfinished(c):
        done, _, res = c
        return (done < sweeps) & (res > tolerance)

    def safeguard(c):
        done, lam, res = c
        swept = _sweeps(blocks, offsets, A, b, formulation, rho, lam, CHUNK)
        r = residual(swept, F(swept))
        better = r < res
        lam, res = jnp.where(better, swept, lam), jnp.where(better, r, res)
        lam, res = rounds(swept, lam, res)
        return done + CHUNK, lam, res

    if sweeps > 0:         # none: the loop is left out of the program (solve_lambda's doc)
        _, lam, res = jax.lax.while_loop(unfinished, safeguard, (0, lam, res))
    return lam, A @ lam - b, res
