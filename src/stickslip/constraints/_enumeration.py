"""Exact solution of the λ-problem by enumerating the modes of every block (small problems).

For blocks whose law is piecewise linear (F = ℝ₊, [−F, F] and the planar friction cone,
SPEC §6), every solution of λ − A⁻¹b ∈ −lim A⁻¹ N_F^{U_ε}(λ) lies in one combination of
block modes (:mod:`._modes`), where it solves a square linear system and satisfies that
combination's inequalities. Solving all combinations (a batch of small systems, one jitted
program) therefore finds *every* solution — which is the certificate: no feasible
combination means the λ-problem has no solution, feasible combinations with different
accelerations mean it has several (Painlevé, SPEC §6). Solutions that differ in λ only by a
null vector of A (static indeterminacy, e.g. two corners resting on one wall) give the same
w = Aλ − b, hence the same motion, and count once.

Cost: ∏ (modes per block) systems of the contact rows' size — 256 systems of 8 rows for
four planar contacts, one batched SVD. It is the fallback and the uniqueness check of the
active-set solver (:mod:`._active_set`), with which it shares the combination algebra
(:mod:`._combination`).
"""

from __future__ import annotations

import itertools

import jax.numpy as jnp
import numpy as np

from ..errors import ModelError
from ._combination import CONSISTENCY, RTOL, combination_margins, combination_system, \
    solve_combination
from ._modes import mode_tables, pad_rows

__all__ = ["enumerate_solutions", "MAX_COMBINATIONS", "STATUS_UNIQUE", "STATUS_NONE",
           "STATUS_SEVERAL"]

MAX_COMBINATIONS = 4096
STATUS_UNIQUE, STATUS_NONE, STATUS_SEVERAL = 0, 1, 2


def _combinations(counts, n_blocks):
    total = int(np.prod(counts)) if counts else 1
    if total > MAX_COMBINATIONS:
        raise ModelError(f"the exact λ-solver enumerates {total} mode combinations for "
                         f"{n_blocks} contact blocks (limit {MAX_COMBINATIONS}); split the "
                         "model's contacts, or use contact_formulation='nakaoka'.")
    index = np.array(list(itertools.product(*[range(c) for c in counts])), dtype=np.int32)
    return index.reshape(total, n_blocks)


def enumerate_solutions(blocks, A, b, formulation, rtol=RTOL, distinct_rtol=1e-6):
    """All mode combinations of the λ-problem w = Aλ − b, law of `blocks` (none bilateral).

    Returns (lam, w, status, n_feasible, combination, violation): the chosen solution (the
    feasible combination with the smallest normalised violation), the status
    (``STATUS_UNIQUE`` / ``STATUS_NONE`` / ``STATUS_SEVERAL``), the number of feasible
    combinations, the chosen combination's index and its violation.
    """
    m = A.shape[0]
    if m == 0:
        z = jnp.zeros(0, dtype=A.dtype)
        return z, z, jnp.asarray(STATUS_UNIQUE), jnp.asarray(1), jnp.asarray(0), jnp.zeros(())
    tables = mode_tables(blocks, formulation)
    index = jnp.asarray(_combinations(tables.counts, len(blocks)))
    A2, b2 = pad_rows(tables, A, b)
    S, r = combination_system(tables, A2, b2, index)
    lam, res = solve_combination(S, r)
    a_max = jnp.maximum(jnp.max(jnp.abs(A2)), 1e-300)
    b_max = jnp.max(jnp.abs(b2))
    w = lam @ A2.T - b2
    margins = combination_margins(tables, index, lam, w, a_max, b_max)
    violation = jnp.maximum(-jnp.min(margins, axis=(1, 2)), 0.0)
    consistent = jnp.max(res, axis=1) <= CONSISTENCY
    feasible = consistent & (violation <= rtol)
    best = jnp.argmin(jnp.where(feasible, violation, jnp.inf))
    rows = np.array(tables.rows)
    lam, w = lam[:, rows], w[:, rows]
    lam_best, w_best = lam[best], w[best]
    w_scale = a_max * jnp.max(jnp.abs(lam_best)) + b_max
    spread = jnp.max(jnp.abs(w - w_best[None, :]), axis=1) / jnp.maximum(w_scale, 1e-300)
    several = jnp.any(feasible & (spread > distinct_rtol))
    n_feasible = jnp.sum(feasible)
    status = jnp.where(n_feasible == 0, STATUS_NONE,
                       jnp.where(several, STATUS_SEVERAL, STATUS_UNIQUE))
    return lam_best, w_best, status, n_feasible, best, violation[best]
