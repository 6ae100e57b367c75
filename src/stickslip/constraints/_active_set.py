"""Exact solution of the piecewise-linear λ-problem by an active-set (mode-pivoting) method.

For blocks whose law is piecewise linear (F = ℝ₊, [−F, F] and the planar friction cone,
SPEC §6) a solution is a combination of block modes (:mod:`._modes`) whose square linear
system G(Aλ − b) + Lλ = f it solves and whose inequalities P[λ; w] + o ≥ 0 it meets. Rather
than solving every combination (:mod:`._enumeration`), this module guesses one combination
from the data, solves its system, and pivots the blocks whose inequalities fail to the mode
that the failed inequality points to:

===============  =====================================  ===================================
mode             failed inequality                      next mode
===============  =====================================  ===================================
separate         w_n ≥ 0 (Anitescu: w_n ≥ μ|w_t|)       slide along the sign of w_t
stick            λ_t ≤ μλ_n  /  −λ_t ≤ μλ_n             slide− / slide+ (both: separate)
slide±           λ_n ≥ 0  /  ±w_t ≥ 0                   separate / stick
ℝ₊ separate      w ≥ 0                                  contact
ℝ₊ contact       λ ≥ 0                                  separate
[−F, F] stick    λ ≤ F  /  −λ ≤ F                       slide− / slide+
[−F, F] slide±   ±w ≥ 0                                 stick
===============  =====================================  ===================================

A block whose own equations cannot be met (an inconsistent system: e.g. two corners that
would both stick while a driver slides them) leaves its stick / contact mode the same way.
The first guess uses the free values w = −b only (no stored state): a contact that would not
penetrate separates, one that would slides along its free tangential value. On the clearance
slider (issue 12) that guess was already the answer at every sampled state (one solve).
All failing blocks pivot at once for the first iterations (block principal pivoting), then
only the first failing block (Murty's least-index rule, which terminates for P-matrices);
the loop is capped (``lax.while_loop``). Its answer is *certified*: the returned
combination's equations hold to round-off and its inequalities within the enumeration's
tolerance (the same functions, :mod:`._combination`), so λ solves the λ-problem exactly.
The loop runs on values only; the λ it found carries the derivative of the found
combination's linear solve (a ``custom_jvp``: the solve is compiled again only where a
derivative is taken), so ``grad`` flows through that solve as it does through the
enumeration.

What one feasible combination does not certify is uniqueness (Painlevé, SPEC §6); see
:func:`stickslip.constraints.solve_lambda` for how that is decided.
"""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from ._combination import CONSISTENCY, RTOL, combination_margins, combination_system, \
    solve_combination
from ._modes import MODE_COUNTS, ROWS, ModeTables, mode_tables, pad_rows

__all__ = ["active_set_solve", "initial_modes", "combination_count"]

# pivots per block kind: (row 0 failed, row 1 failed, both failed, equations failed) for
# each of the 4 (padded) modes; −1: slide along the sign of the block's w_0 (the module
# table). Planar: 0 separate, 1 stick, 2 slide+, 3 slide−; ℝ₊: 0 separate, 1 contact;
# [−F, F]: 0 stick, 1 slide+, 2 slide− (3: unused).
_PIVOT = {
    "planar_contact": ([-1, 3, 0, 0], [-1, 2, 1, 1], [-1, 0, 0, 0], [0, -1, 0, 0]),
    "unilateral": ([1, 0, 1, 1], [1, 0, 1, 1], [1, 0, 1, 1], [0, 0, 0, 0]),
    "coulomb": ([2, 0, 0, 2], [1, 0, 0, 1], [0, 0, 0, 0], [-1, 0, 0, -1]),
}
_ALONG = {"planar_contact": (2, 3), "unilateral": (1, 1), "coulomb": (1, 2)}
_NORMAL_ROW = {"planar_contact": 1, "unilateral": 0, "coulomb": -1}


def combination_count(blocks, formulation) -> int:
    """∏ (modes per block): how many combinations the enumeration solves. `blocks`: the
    blocks or their kinds (static; the count is the same for both formulations)."""
    kinds = [b if isinstance(b, str) else b.kind for b in blocks]
    return int(np.prod([MODE_COUNTS[k] for k in kinds])) if kinds else 1


def initial_modes(tables: ModeTables, b2):
    """The guess that starts the pivoting, from the free values w = −b alone: a contact
    that would not penetrate separates; one that would slides along its free tangential
    value (sticks where that is 0); a friction row [−F, F] sticks."""
    kinds = tables.kinds
    normal = np.array([max(_NORMAL_ROW[k], 0) for k in kinds])
    free_n = -b2[np.arange(len(kinds)), normal]
    free_t = -b2[:, 0]
    slide = jnp.where(free_t > 0, 2, jnp.where(free_t < 0, 3, 1))
    planar = np.array([k == "planar_contact" for k in kinds])
    unilateral = np.array([k == "unilateral" for k in kinds])
    mode = jnp.where(planar, jnp.where(free_n >= 0, 0, slide),
                     jnp.where(unilateral, jnp.where(free_n >= 0, 0, 1), 0))
    return mode.astype(jnp.int32)


def _pivot(tables: ModeTables, mode, margins, w2, bad_eq, rtol):
    """(next modes, failing blocks): each failing block's pivot (module table)."""
    nb = len(tables.kinds)
    table = jnp.asarray(np.array([_PIVOT[k] for k in tables.kinds]))       # (nb, 4, 4)
    along = np.array([_ALONG[k] for k in tables.kinds])
    f0, f1 = margins[:, 0] < -rtol, margins[:, 1] < -rtol
    case = jnp.where(bad_eq, 3, jnp.where(f0 & f1, 2, jnp.where(f0, 0, 1)))
    nxt = table[jnp.arange(nb), case, mode]
    resolved = jnp.where(w2[:, 0] >= 0, along[:, 0], along[:, 1])
    nxt = jnp.where(nxt < 0, resolved, nxt)
    failing = f0 | f1 | bad_eq
    return jnp.where(failing, nxt, mode).astype(jnp.int32), failing


def active_set_solve(blocks, A, b, formulation, max_iter=None, rtol=RTOL):
    """(λ, mode, certified, iterations) of the λ-problem w = Aλ − b with the law of
    `blocks` (none bilateral or spatial), by mode pivoting (module docstring).

    `certified`: the returned combination is feasible — λ solves the problem to round-off.
    Where it is False (the cap was reached), λ is the last iterate and means nothing.
    """
    nb = len(blocks)
    if max_iter is None:
        max_iter = 4 * nb + 8
    murty_after = nb + 2
    tables = mode_tables(blocks, formulation)
    A2, b2 = pad_rows(tables, A, b)
    Av, bv = jax.lax.stop_gradient(A2), jax.lax.stop_gradient(b2)
    tab_v = tables._replace(**{k: jax.lax.stop_gradient(getattr(tables, k))
                               for k in ("G", "L", "f", "P", "o")})
    a_max = jnp.maximum(jnp.max(jnp.abs(Av)), 1e-300)
    b_max = jnp.max(jnp.abs(bv))

    def body(state):
        it, mode, _, _ = state
        S, r = combination_system(tab_v, Av, bv, mode)
        lam, res = solve_combination(S, r)
        w = Av @ lam - bv
        margins = combination_margins(tab_v, mode, lam, w, a_max, b_max)
        bad_eq = jnp.any(res.reshape(nb, ROWS) > CONSISTENCY, axis=1)
        ok = (~jnp.any(bad_eq)) & jnp.all(margins >= -rtol)
        new, failing = _pivot(tab_v, mode, margins, w.reshape(nb, ROWS), bad_eq, rtol)
        # Murty's least-index rule after the first sweeps: pivot the first failing block
        single = jnp.where(jnp.arange(nb) == jnp.argmax(failing), new, mode)
        new = jnp.where(it >= murty_after, single, new)
        return it + 1, jnp.where(ok, mode, new), ok, lam

    def cond(state):
        it, _, done, _ = state
        return (~done) & (it < max_iter)

    mode0 = initial_modes(tab_v, bv.reshape(nb, ROWS))
    it, mode, done, lam = jax.lax.while_loop(
        cond, body, (jnp.asarray(0), mode0, jnp.asarray(False), jnp.zeros_like(bv)))
    # λ of the found combination, with the derivative of its linear system's solution
    static = (tables.counts, tables.rows, tables.kinds)
    lam = _combination_solution(static, lam, mode, tables.G, tables.L, tables.f, tables.P,
                                tables.o, A2, b2)
    if len(tables.rows) < lam.shape[0]:                  # drop the one-row blocks' padding
        lam = lam[np.array(tables.rows)]
    return lam, mode, done, it


@partial(jax.custom_jvp, nondiff_argnums=(0,))
def _combination_solution(static, lam, mode, G, L, f, P, o, A, b):
    """λ (the loop's solution of the combination `mode`), differentiable as the solution of
    that combination's system S(A, μ) λ = r(b, …) — the same value and derivative as solving
    the system again, without compiling a second solve where nothing is differentiated."""
    return lam


@_combination_solution.defjvp
def _combination_solution_jvp(static, primals, tangents):
    lam, mode = primals[:2]

    def solve(G, L, f, P, o, A, b):
        S, r = combination_system(ModeTables(G, L, f, P, o, *static), A, b, mode)
        return solve_combination(S, r)[0]

    _, dlam = jax.jvp(solve, primals[2:], tangents[2:])
    return lam, dlam
