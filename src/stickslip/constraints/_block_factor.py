"""The Schur complement S = J M⁻¹ Jᵀ of a mechanism's joints factored block by block, in
O(n) work for a chain or tree of n bodies, where the dense Cholesky takes O(n³).

With M block diagonal (one block per body), the rows of two joints couple in S only where
the joints share a body: S is block sparse, its graph the joints' adjacency. Gaussian
elimination on that graph (Baraff, "Linear-time dynamics using Lagrange multipliers",
SIGGRAPH 1996, does it on the bodies-and-joints graph of the whole KKT system; the same
order argument holds here) creates no fill when a joint is eliminated whose remaining
neighbours are already coupled — the leaves of a tree — and one fill block per eliminated
link of a chain otherwise. This module plans that elimination once, from the static rows'
bodies (:class:`BlockPlan`), and runs it with every row's value traced
(:func:`block_factor`).

The plan eliminates in *levels*: each level a set of mutually uncoupled blocks of at most
two remaining neighbours (or, where none is left, of the fewest), all factored at once by
batched operations. A chain of n joints is then cyclic reduction: ⌊log₂ n⌋ + 1 levels, each
a handful of batched kernels, instead of n sequential block steps; a tree's leaves and its
unbranched runs go the same way. A coupled cluster (a body carrying many joints: all of them
couple) is eliminated one block per level, which is why the plan reports its levels and
the caller keeps the dense factor where it is faster (``stickslip.spatial._link_dynamics``).

Blocks are padded to one size P with identity rows (solved to zero and dropped), so each
level is one batched Cholesky, triangular solve and product over its blocks, and one
scatter-add of the Schur updates; the block store keeps both (i, j) and (j, i) of each
coupled pair (twice the update work of a triangle, no transposes to track). The same plan
and store serve :func:`block_lu`, the block LU of a matrix with that pattern that is not
symmetric (a link system's G_e M⁻¹ G_θᵀ: the joints' rows at two nearby poses).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np

__all__ = ["BlockPlan", "block_factor", "block_lu", "row_block_plan"]


@dataclass(frozen=True, eq=False)
class _Level:
    """One level of the elimination: the pivot blocks `pivots` (K,) and their diagonal slots
    `diagonal` (K,); the couplings (E,) from pivot `edge_pivot` (an index into the level's
    pivots) to remaining block `edge_block`, stored at slot `edge_slot`; and the Schur updates
    (U,): slot `update_slot` −= L[`update_a`] L[`update_b`]ᵀ (indices into the couplings)."""

    pivots: np.ndarray
    diagonal: np.ndarray
    edge_pivot: np.ndarray
    edge_block: np.ndarray
    edge_slot: np.ndarray
    edge_slot_t: np.ndarray
    update_a: np.ndarray
    update_b: np.ndarray
    update_slot: np.ndarray


@dataclass(frozen=True, eq=False)
class BlockPlan:
    """The static elimination of a block-sparse symmetric positive definite (m, m) matrix.

    ``rows`` (n_g, P): the matrix rows of each block, padded with m; ``slot_rows``,
    ``slot_cols`` (n_s, P): the rows and columns each stored block gathers (pads m), and
    ``slot_pad`` (n_s, P, P): 1 on a diagonal block's padded diagonal; ``levels``: the
    elimination, level by level (:class:`_Level`)."""

    m: int
    rows: np.ndarray
    slot_rows: np.ndarray
    slot_cols: np.ndarray
    slot_pad: np.ndarray
    levels: tuple[_Level, ...]

    @property
    def size(self) -> int:
        """P, the padded block size."""
        return self.rows.shape[1]

    @property
    def largest_level(self) -> int:
        """The most pivots a level factors at once."""
        return max(len(level.pivots) for level in self.levels)


def row_block_plan(bodies_i, bodies_j, ground: int) -> BlockPlan:
    """The plan for S = J M⁻¹ Jᵀ of rows acting on bodies (`bodies_i`[k], `bodies_j`[k])
    (static integer arrays; `ground`, the index that stands for the fixed world, couples
    nothing). Rows on the same pair of bodies form one block; two blocks couple where they
    share a body other than the ground."""
    bi, bj = np.asarray(bodies_i, int), np.asarray(bodies_j, int)
    m = bi.size
    pairs = {}
    for k in range(m):
        pairs.setdefault(tuple(sorted((int(bi[k]), int(bj[k])))), []).append(k)
    groups = list(pairs.values())
    bodies = [set(pair) - {ground} for pair in pairs]
    coupled = {g: {h for h in range(len(groups)) if h != g and bodies[g] & bodies[h]}
               for g in range(len(groups))}
    return plan_elimination(groups, coupled, m)


def plan_elimination(groups, coupled, m: int) -> BlockPlan:
    """The plan for blocks of rows `groups` (lists of row indices partitioning range(m))
    coupled as `coupled` ({block: set of blocks}, symmetric), levels as in the module
    docstring."""
    n_g = len(groups)
    P = max(len(g) for g in groups)
    rows = np.full((n_g, P), m)
    for g, members in enumerate(groups):
        rows[g, :len(members)] = members
    adjacency = {g: set(coupled[g]) for g in range(n_g)}
    slots: dict[tuple[int, int], int] = {}

    def slot(i, j):
        return slots.setdefault((i, j), len(slots))
    for g in range(n_g):
        slot(g, g)
        for h in adjacency[g]:
            slot(g, h)
    remaining, levels = set(range(n_g)), []
    while remaining:
        degree = {g: len(adjacency[g]) for g in remaining}
        limit = max(2, min(degree.values()))
        chosen, blocked = [], set()
        for g in sorted(remaining, key=lambda g: (degree[g], g)):
            if degree[g] > limit:
                break
            if g not in blocked:
                chosen.append(g)
                blocked |= adjacency[g]
        edge_pivot, edge_block, edge_slot, edge_slot_t = [], [], [], []
        update_a, update_b, update_slot = [], [], []
        for q, k in enumerate(chosen):
            first = len(edge_block)
            neighbours = sorted(adjacency[k])
            for i in neighbours:
                edge_pivot.append(q)
                edge_block.append(i)
                edge_slot.append(slot(i, k))
                edge_slot_t.append(slot(k, i))
            for (a, i), (b, j) in itertools.product(enumerate(neighbours), repeat=2):
                update_a.append(first + a)
                update_b.append(first + b)
                update_slot.append(slot(i, j))           # a fill block is created here
            for i in neighbours:
                adjacency[i] |= set(neighbours) - {i}
                adjacency[i].discard(k)
        levels.append(_Level(*(np.asarray(v, int) for v in (
            chosen, [slots[(k, k)] for k in chosen], edge_pivot, edge_block, edge_slot,
            edge_slot_t, update_a, update_b, update_slot))))
        remaining -= set(chosen)
    keys = sorted(slots, key=lambda key: slots[key])
    slot_rows = rows[[i for i, _ in keys]]
    slot_cols = rows[[j for _, j in keys]]
    pad = rows == m
    slot_pad = np.zeros((len(keys), P, P))
    for s, (i, j) in enumerate(keys):
        if i == j:
            slot_pad[s][pad[i], pad[i]] = 1.0
    return BlockPlan(m, rows, slot_rows, slot_cols, slot_pad, tuple(levels))


def block_factor(S, plan: BlockPlan):
    """``solve(b)``: x of S x = b (b (m,) or (m, k)) for S (m, m) symmetric positive definite
    with the sparsity of `plan`, factored once by the plan's levels. Only the entries of
    S inside the plan's blocks are read. A singular S gives inf/NaN (as the dense Cholesky
    does), which the divergence guard reports.

    The levels are unrolled: each is its own few kernels with static indices. One
    ``lax.scan`` over levels padded to one shape compiles to fewer kernels (a chain of 30
    rods: XLA 8.2 against 10.1 s for its whole run) but ran its step 1.6× slower than this
    (1.41 against 0.86 ms), slower than the dense factor (1.03–1.24 ms)."""
    m = plan.m
    B = (jnp.pad(S, ((0, 1), (0, 1)))[plan.slot_rows[:, :, None], plan.slot_cols[:, None, :]]
         + plan.slot_pad)
    factors = []
    for level in plan.levels:
        L = _cholesky(B[level.diagonal])
        if level.edge_slot.size:
            # L_ik = B_ik L_kk⁻ᵀ, i.e. L_ikᵀ = L_kk⁻¹ B_ikᵀ
            Lik = _swap(_lower_solve(L[level.edge_pivot], _swap(B[level.edge_slot])))
            update = _product(Lik[level.update_a], _swap(Lik[level.update_b]))
            B = B.at[level.update_slot].add(-update)
        else:
            Lik = None
        factors.append((L, Lik))

    def solve(b):
        B_ = b[:, None] if b.ndim == 1 else b
        Y = jnp.pad(B_, ((0, 1), (0, 0)))[plan.rows]                     # (n_g, P, k)
        for level, (L, Lik) in zip(plan.levels, factors):                 # L y = b
            y = _lower_solve(L, Y[level.pivots])
            Y = Y.at[level.pivots].set(y)
            if Lik is not None:
                Y = Y.at[level.edge_block].add(-_product(Lik, y[level.edge_pivot]))
        for level, (L, Lik) in zip(reversed(plan.levels), reversed(factors)):   # Lᵀ x = y
            z = Y[level.pivots]
            if Lik is not None:
                back = _product(_swap(Lik), Y[level.edge_block])
                z = z - jax.ops.segment_sum(back, level.edge_pivot,
                                            num_segments=len(level.pivots))
            Y = Y.at[level.pivots].set(_upper_solve(L, z))
        X = jnp.zeros((m + 1, B_.shape[1]), B_.dtype).at[plan.rows].set(Y)[:m]
        return X[:, 0] if b.ndim == 1 else X
    return solve


def block_lu(S, plan: BlockPlan):
    """``solve(b)``: x of S x = b (b (m,) or (m, k)) for S (m, m) with the sparsity of `plan`
    but not symmetric — block Gaussian elimination S = L U in the plan's levels, L unit
    block-lower with L_ik = S_ik D_k⁻¹, U block-upper with the pivot blocks D_k (inverted by
    LAPACK's LU with partial pivoting inside each block) and U_kj = S_kj. No pivoting between
    blocks: meant for matrices close to symmetric positive definite, such as a link system's
    G_e M⁻¹ G_θᵀ (the same joints' rows at two nearby poses: ``spatial._link_step``). A
    singular pivot block gives inf/NaN, which the divergence guard reports."""
    m = plan.m
    B = (jnp.pad(S, ((0, 1), (0, 1)))[plan.slot_rows[:, :, None], plan.slot_cols[:, None, :]]
         + plan.slot_pad)
    factors = []
    for level in plan.levels:
        Dinv = jnp.linalg.inv(B[level.diagonal])
        if level.edge_slot.size:
            W = _product(B[level.edge_slot], Dinv[level.edge_pivot])          # S_ik D_k⁻¹
            U = B[level.edge_slot_t]                                          # S_ki
            B = B.at[level.update_slot].add(-_product(W[level.update_a], U[level.update_b]))
        else:
            W = U = None
        factors.append((Dinv, W, U))

    def solve(b):
        B_ = b[:, None] if b.ndim == 1 else b
        Y = jnp.pad(B_, ((0, 1), (0, 0)))[plan.rows]                     # (n_g, P, k)
        for level, (_, W, _) in zip(plan.levels, factors):                # L y = b
            if W is not None:
                y = Y[level.pivots]
                Y = Y.at[level.edge_block].add(-_product(W, y[level.edge_pivot]))
        for level, (Dinv, _, U) in zip(reversed(plan.levels), reversed(factors)):  # U x = y
            z = Y[level.pivots]
            if U is not None:
                z = z - jax.ops.segment_sum(_product(U, Y[level.edge_block]),
                                            level.edge_pivot, num_segments=len(level.pivots))
            Y = Y.at[level.pivots].set(_product(Dinv, z))
        X = jnp.zeros((m + 1, B_.shape[1]), B_.dtype).at[plan.rows].set(Y)[:m]
        return X[:, 0] if b.ndim == 1 else X
    return solve


# The small dense operations on stacks of P × P blocks (P: a joint's row count, ≤ 6 and its
# drivers). Products are written out as sums of outer products: XLA's CPU backend runs a
# batched ``dot`` block by block (60 products of 5 × 5 blocks: 26 µs as a batched matmul,
# 1–2 µs as these sums, which fuse into one loop). Factors and triangular solves are
# LAPACK's batched calls: written out entry by entry they ran no faster in a chain of 30
# rods and its program compiled 6 s longer (one custom call against ~60 operations).

def _swap(A):
    return jnp.swapaxes(A, -1, -2)


def _product(A, B):
    """A @ B for stacks A (..., p, r), B (..., r, q), as a sum of r outer products."""
    out = A[..., :, 0, None] * B[..., None, 0, :]
    for r in range(1, A.shape[-1]):
        out = out + A[..., :, r, None] * B[..., None, r, :]
    return out


def _cholesky(A):
    """The lower Cholesky factor of each block of A (K, P, P) (LAPACK's, block by block)."""
    return jax.lax.linalg.cholesky(A, symmetrize_input=False)


def _lower_solve(L, B):
    """X of L X = B for each block, L (K, P, P) lower triangular, B (K, P, q)."""
    return jax.lax.linalg.triangular_solve(L, B, left_side=True, lower=True)


def _upper_solve(L, B):
    """X of Lᵀ X = B for each block, L (K, P, P) lower triangular, B (K, P, q)."""
    return jax.lax.linalg.triangular_solve(L, B, left_side=True, lower=True, transpose_a=True)
