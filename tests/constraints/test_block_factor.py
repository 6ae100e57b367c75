"""The joints' Schur complement factored block by block (stickslip.constraints._block_factor,
and its LU for the nonsymmetric G_e M⁻¹ G_θᵀ)
and the rows in local form (stickslip.spatial._link_rows): the same solution as the dense
solve for any joint topology (trees, loops, bodies between several joints), O(n) storage
and O(log n) levels for chains and trees (the reason it exists), and J ν, Jᵀλ equal to the
dense J's."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from models import rod_chain

from stickslip.constraints._block_factor import block_factor, block_lu, row_block_plan
from stickslip.spatial._link_rows import LocalRows

jax.config.update("jax_enable_x64", True)


def _topology(rng, n, loops, rows_max):
    """Rows (b_i, b_j) of a random tree of n bodies (body k hangs from an earlier one or the
    ground, index n) plus `loops` joints closing loops, each joint 1…rows_max rows."""
    joints = [(int(rng.integers(-1, k)) % (n + 1) if k else n, k) for k in range(n)]
    for _ in range(loops):
        a, b = rng.choice(n + 1, size=2, replace=False)
        joints.append((int(a), int(b)))
    bi, bj = [], []
    for a, b in joints:
        count = int(rng.integers(1, rows_max + 1))
        bi += [a] * count
        bj += [b] * count
    return np.array(bi), np.array(bj)


def _schur(rng, bi, bj, n, tilt=0.0):
    """S = J M⁻¹ Jᵀ with random rows and random SPD body blocks, and J (dense); with `tilt`,
    S = J M⁻¹ J'ᵀ, J' = J plus `tilt` times random entries where J has them (the same rows
    at a nearby pose: nonsymmetric, the same pattern)."""
    m = bi.size
    J = np.zeros((m, 6 * n))
    for k in range(m):
        for b in (bi[k], bj[k]):
            if b < n:
                J[k, 6 * b:6 * b + 6] = rng.normal(size=6)
    Minv = np.zeros((6 * n, 6 * n))
    for b in range(n):
        G = rng.normal(size=(6, 6))
        Minv[6 * b:6 * b + 6, 6 * b:6 * b + 6] = G @ G.T + np.eye(6)
    right = J + tilt * np.where(J != 0, rng.normal(size=J.shape), 0.0)
    return J @ Minv @ right.T + 1e-3 * np.eye(m), J


@settings(max_examples=5, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(1, 9), st.integers(0, 2), st.integers(1, 6))
def test_the_block_factor_solves_like_the_dense_solve(seed, n, loops, rows_max):
    rng = np.random.default_rng(seed)
    bi, bj = _topology(rng, n, loops, rows_max)
    S, _ = _schur(rng, bi, bj, n)
    b = rng.normal(size=(bi.size, 2))
    plan = row_block_plan(bi, bj, ground=n)

    N, _ = _schur(rng, bi, bj, n, tilt=0.1)

    def both(S, N, b):                 # one compile: matrix and vector right sides, and LU
        solve = block_factor(S, plan)
        return solve(b), solve(b[:, 0]), block_lu(N, plan)(b)
    x, x1, y = (np.asarray(v) for v in jax.jit(both)(S, N, b))
    # the block LU of the nonsymmetric N (no pivoting between blocks: N is near S)
    assert np.abs(N @ y - b).max() <= 1e-11 * np.abs(N).max() * np.abs(y).max()
    exact = np.linalg.solve(S, b)
    # backward error of the size the dense Cholesky leaves
    scale = np.abs(S).max() * np.abs(x).max()
    assert np.abs(S @ x - b).max() <= 1e-13 * scale
    np.testing.assert_allclose(x, exact, rtol=0, atol=1e-12 * np.linalg.cond(S)
                               * np.abs(exact).max())
    # a vector right-hand side gives the same as the matrix one's first column
    np.testing.assert_allclose(x1, x[:, 0], rtol=0, atol=1e-12 * np.abs(x).max())


def test_the_plan_of_a_chain_is_cyclic_reduction():
    """A chain of n joints: ⌊log₂ n⌋ + 1 levels, and the stored blocks stay O(n) (each
    eliminated link adds at most one fill block)."""
    for n in range(1, 65):
        bi = np.repeat([n] + list(range(n - 1)), 5)
        bj = np.repeat(np.arange(n), 5)
        plan = row_block_plan(bi, bj, ground=n)
        assert len(plan.levels) == math.floor(math.log2(n)) + 1
        couplings = 2 * (n - 1)
        assert len(plan.slot_rows) <= n + 2 * couplings
        assert sorted(np.concatenate([level.pivots for level in plan.levels])) == \
            list(range(n))


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(2, 80))
def test_a_binary_tree_takes_logarithmic_levels_and_linear_storage(seed, n):
    """Body k hangs from body (k − 1) // 2: at most 2 ⌊log₂ n⌋ + 2 levels, and the stored
    blocks at most a constant times the tree's own couplings (no dense fill)."""
    bi = np.array([n] + [(k - 1) // 2 for k in range(1, n)])
    bj = np.arange(n)
    rows = np.random.default_rng(seed).integers(1, 6, size=n)
    plan = row_block_plan(np.repeat(bi, rows), np.repeat(bj, rows), ground=n)
    assert len(plan.levels) <= 2 * math.floor(math.log2(n)) + 2
    assert len(plan.slot_rows) <= 12 * n


def test_a_singular_matrix_gives_non_finite_values_not_a_silent_answer():
    n = 3
    bi, bj = np.repeat([3, 0, 1], 2), np.repeat([0, 1, 2], 2)
    S = np.eye(6)
    S[4:, 4:] = 0.0                                        # the last joint's block vanishes
    plan = row_block_plan(bi, bj, ground=n)
    x = np.asarray(jax.jit(lambda S, b: block_factor(S, plan)(b))(S, np.ones(6)))
    assert not np.all(np.isfinite(x))


@settings(max_examples=4, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_rows_in_local_form_apply_like_the_dense_rows(seed):
    rng = np.random.default_rng(seed)
    n = 5
    bi, bj = _topology(rng, n, 1, 6)
    _, J = _schur(rng, bi, bj, n)
    Jl = np.stack([np.concatenate([J[k, 6 * a:6 * a + 6] if a < n else np.zeros(6),
                                   J[k, 6 * b:6 * b + 6] if b < n else np.zeros(6)])
                   for k, (a, b) in enumerate(zip(bi, bj))])
    nu, lam = rng.normal(size=6 * n), rng.normal(size=bi.size)

    def apply(Jl, nu, lam):
        rows = LocalRows(Jl, bi, bj, n)
        return rows.times(nu), rows.transpose_times(lam)
    Jnu, Jtlam = jax.jit(apply)(Jl, nu, lam)
    np.testing.assert_allclose(np.asarray(Jnu), J @ nu, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(np.asarray(Jtlam), J.T @ lam, rtol=1e-13, atol=1e-13)


def test_a_link_system_on_the_block_factor_moves_as_on_the_dense_one(monkeypatch):
    """A chain of 8 rods (40 rows) with the block factor and block LU forced on gives the
    dense route's vector field, projection and Moreau–Jean step (the route itself is taken
    from ``BLOCK_ROWS`` rows on: benchmarks/results/spatial_links.md)."""
    from stickslip.spatial import _link_dynamics

    system = rod_chain(8, np.pi / 4).link_system()
    x = jnp.asarray(system.initial_state())
    x = x.at[7:13].set(0.3)                    # off the velocity manifold: a real projection

    def evaluate():
        return [np.asarray(v) for v in jax.jit(lambda x: (
            system.vector_field(0.0, x), system.project(0.0, x),
            system.moreau_jean_step(0.0, x, 1e-3, 0.5)[0]))(x)]
    dense = evaluate()
    _, _, _, _, bi, bj = system.joint_rows_local(0.0, np.asarray(x[:13 * 8]).reshape(8, 13))
    assert _link_dynamics._joint_plan(system, bi, bj) is None
    monkeypatch.setattr(_link_dynamics, "BLOCK_ROWS", 1)
    plan = _link_dynamics._joint_plan(system, bi, bj)
    assert plan is not None and len(plan.levels) == 4
    block = evaluate()
    for a, b in zip(dense, block):
        np.testing.assert_allclose(b, a, rtol=1e-10, atol=1e-10 * np.abs(a).max())


def test_gradients_through_the_block_factor_are_the_dense_solves():
    """d(cᵀx)/dS and d(cᵀx)/db for x = S⁻¹b: the block factor differentiates (its Cholesky,
    triangular solves, gathers and scatters) to the dense solve's gradient. It reads each
    coupled pair of S's entries once (S is symmetric), so along a symmetric change δS the
    gradient's (i, j) and (j, i) together give the dense −(x̄ᵢxⱼ + x̄ⱼxᵢ), x̄ = S⁻¹c, on
    every block it stores (couplings and fill); entries outside them do not move it."""
    rng = np.random.default_rng(7)
    n = 5
    bi, bj = np.repeat([n, 0, 1, 2, 3], 3), np.repeat(np.arange(n), 3)
    S, _ = _schur(rng, bi, bj, n)
    b, c = rng.normal(size=bi.size), rng.normal(size=bi.size)
    plan = row_block_plan(bi, bj, ground=n)
    dS, db = (np.asarray(v) for v in jax.jit(jax.grad(
        lambda S, b: c @ block_factor(S, plan)(b), argnums=(0, 1)))(S, b))
    x, xbar = np.linalg.solve(S, b), np.linalg.solve(S, c)
    # the blocks the factor stores: the couplings and the fill of its elimination
    read = np.zeros((bi.size + 1, bi.size + 1), bool)
    read[plan.slot_rows[:, :, None], plan.slot_cols[:, None, :]] = True
    read = read[:-1, :-1]
    np.testing.assert_allclose((dS + dS.T)[read],
                               -(np.outer(xbar, x) + np.outer(x, xbar))[read],
                               rtol=1e-9, atol=1e-12)
    assert np.all(dS[~read] == 0.0) and (~read).any()
    np.testing.assert_allclose(db, xbar, rtol=1e-10, atol=1e-12)
