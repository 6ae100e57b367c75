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
four planar contacts.
"""

from __future__ import annotations

import itertools

import jax.numpy as jnp
import numpy as np

from ..errors import ModelError
from ._modes import block_modes

__all__ = ["enumerate_solutions", "MAX_COMBINATIONS", "STATUS_UNIQUE", "STATUS_NONE",
           "STATUS_SEVERAL"]

MAX_COMBINATIONS = 4096
STATUS_UNIQUE, STATUS_NONE, STATUS_SEVERAL = 0, 1, 2


def _combinations(blocks, formulation):
    tables = [block_modes(b, formulation) for b in blocks]
    counts = [len(t) for t in tables]
    total = int(np.prod(counts)) if counts else 1
    if total > MAX_COMBINATIONS:
        raise ModelError(f"the exact λ-solver enumerates {total} mode combinations for "
                         f"{len(blocks)} contact blocks (limit {MAX_COMBINATIONS}); split the "
                         "model's contacts, or use contact_formulation='nakaoka'.")
    index = np.array(list(itertools.product(*[range(c) for c in counts])), dtype=int)
    return tables, index.reshape(total, len(blocks))


def enumerate_solutions(blocks, offsets, A, b, formulation, rtol=1e-9, distinct_rtol=1e-6):
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
    tables, index = _combinations(blocks, formulation)
    n = index.shape[0]
    G = jnp.zeros((n, m, m))
    L = jnp.zeros((n, m, m))
    f = jnp.zeros((n, m))
    P = jnp.zeros((n, 2 * len(blocks), 2 * m))
    o = jnp.zeros((n, 2 * len(blocks)))
    for k, (blk, off, table) in enumerate(zip(blocks, offsets, tables)):
        s = blk.size
        stack = [jnp.stack([mode[1][j] for mode in table]) for j in range(5)]
        Gk, Lk, fk, Pk, ok = (arr[index[:, k]] for arr in stack)
        sl = slice(off, off + s)
        G = G.at[:, sl, sl].set(Gk)
        L = L.at[:, sl, sl].set(Lk)
        f = f.at[:, sl].set(fk)
        rows = slice(2 * k, 2 * k + 2)
        P = P.at[:, rows, sl].set(Pk[:, :, :s])
        P = P.at[:, rows, m + off: m + off + s].set(Pk[:, :, s:])
        o = o.at[:, rows].set(ok)
    system = G @ A + L                                   # (G A + L) λ = f + G b
    rhs = f + G @ b
    lam_lu = jnp.linalg.solve(system, rhs[..., None])[..., 0]
    # singular combinations (redundant rows: static indeterminacy) — least squares with a
    # tiny damping gives the minimum-norm member of the solution family
    scale2 = jnp.maximum(jnp.sum(system ** 2, axis=(1, 2)), 1e-300)
    normal = jnp.swapaxes(system, 1, 2) @ system + (1e-13 * scale2)[:, None, None] * jnp.eye(m)
    lam_ls = jnp.linalg.solve(normal, (jnp.swapaxes(system, 1, 2) @ rhs[..., None]))[..., 0]
    a_max = jnp.maximum(jnp.max(jnp.abs(A)), 1e-300)
    b_max = jnp.max(jnp.abs(b))

    def residual(lam):
        # absolute residual against the size of the data, not of λ: a singular combination
        # solved by LU returns a huge λ whose residual is small relative to ‖S‖‖λ‖ only
        r = jnp.max(jnp.abs(jnp.einsum("nij,nj->ni", system, lam) - rhs), axis=1)
        size = jnp.max(jnp.abs(rhs), axis=1) + b_max + 1e-300
        return r / size

    finite = jnp.all(jnp.isfinite(lam_lu), axis=1)
    lam_lu = jnp.where(finite[:, None], lam_lu, 0.0)
    good_lu = finite & (residual(lam_lu) <= 1e-12)
    lam = jnp.where(good_lu[:, None], lam_lu, lam_ls)
    consistent = residual(lam) <= 1e-9
    w = lam @ A.T - b
    lam_scale = jnp.max(jnp.abs(lam), axis=1) + b_max / a_max
    w_scale = a_max * jnp.max(jnp.abs(lam), axis=1) + b_max
    z = jnp.concatenate([lam, w], axis=1)
    # each inequality is normalised by the size of what it compares (λ in N, w in m/s²)
    col_scale = jnp.concatenate([jnp.repeat(lam_scale[:, None], m, axis=1),
                                 jnp.repeat(w_scale[:, None], m, axis=1)], axis=1)
    row_scale = jnp.einsum("npj,nj->np", jnp.abs(P), col_scale) + jnp.abs(o)
    margins = (jnp.einsum("npj,nj->np", P, z) + o) / jnp.maximum(row_scale, 1e-300)
    violation = jnp.maximum(-jnp.min(margins, axis=1), 0.0)
    feasible = consistent & (violation <= rtol) & jnp.all(jnp.isfinite(lam), axis=1)
    key = jnp.where(feasible, violation, jnp.inf)
    best = jnp.argmin(key)
    lam_best, w_best = lam[best], w[best]
    spread = jnp.max(jnp.abs(w - w_best[None, :]), axis=1) / jnp.maximum(w_scale[best], 1e-300)
    several = jnp.any(feasible & (spread > distinct_rtol))
    n_feasible = jnp.sum(feasible)
    status = jnp.where(n_feasible == 0, STATUS_NONE,
                       jnp.where(several, STATUS_SEVERAL, STATUS_UNIQUE))
    return lam_best, w_best, status, n_feasible, best, violation[best]
