"""The modes of each constraint block: the finite list of linear pieces of its law.

A block of size s in a given mode obeys s linear equations and two linear inequalities

    G w + L λ = f,        P [λ; w] + o ≥ 0,

where w = Aλ − b is the block's part of the relaxed constraint value. The law of the block
(SPEC §6, the normal cone of F in the limit ε → +0 of the metric U_ε) is the union of its
modes. For a planar contact (rows t, n; F = {|λ_t| ≤ μλ_n}):

=========  ============================  =================================================
mode       equations                     inequalities
=========  ============================  =================================================
separate   λ_t = 0, λ_n = 0              w_n ≥ 0            (Anitescu: w_n ≥ μ|w_t|)
stick      w_t = 0, w_n = 0              |λ_t| ≤ μ λ_n
slide ±    λ_t = ∓μλ_n, w_n = 0          λ_n ≥ 0, ±w_t ≥ 0  (Anitescu: w_n = μ|w_t|)
=========  ============================  =================================================

The limit ε → +0 is what makes the seed's law exact: the normal cone of the friction cone
in the metric diag(1, 1/ε) tends to {c(∓1, 0)} on the sliding edge (so w_n = 0: the contact
neither separates nor penetrates while sliding) and to the half-space {w_n ≥ 0} at the apex
(any tangential motion while separating). Without the limit (Anitescu–Tasora, the plain
normal cone N_F) the sliding edge's normal is (∓1, −μ), which lets the contact separate at
w_n = μ|w_t| while sliding — the known artefact of that convexification.
"""

from __future__ import annotations

from typing import NamedTuple

import jax.numpy as jnp
import numpy as np

__all__ = ["ModeTables", "mode_tables", "pad_rows", "FORMULATIONS_WITH_MODES", "ROWS",
           "MODES", "MODE_COUNTS"]

FORMULATIONS_WITH_MODES = ("kikuuwe", "anitescu")
ROWS, MODES = 2, 4     # every block is padded to 2 rows and 4 modes (one array program)
# valid modes per block kind (static: counts need no tables)
MODE_COUNTS = {"planar_contact": 4, "unilateral": 2, "coulomb": 3}


class ModeTables(NamedTuple):
    """The modes of all blocks as padded arrays, affine in each block's parameter p_k (μ for a
    planar contact, the bound F for [−F, F], 0 for ℝ₊): table = T0 + p T1.

    G, L (nb, 4, 2, 2); f (nb, 4, 2); P (nb, 4, 2, 4) acting on [λ_0, λ_1, w_0, w_1];
    o (nb, 4, 2). A block of one row carries a dummy second row (λ = 0, no inequality).
    counts: valid modes per block (static); rows: the real rows' positions in the padded
    vector (static); kinds: the blocks' kinds (static).
    """

    G: jnp.ndarray
    L: jnp.ndarray
    f: jnp.ndarray
    P: jnp.ndarray
    o: jnp.ndarray
    counts: tuple
    rows: tuple
    kinds: tuple


def _planar(formulation):
    """(T0, T1) of a planar contact: modes separate, stick, slide+, slide−."""
    z = lambda *shape: np.zeros(shape)                                        # noqa: E731
    G0, G1, L0, L1 = z(4, 2, 2), z(4, 2, 2), z(4, 2, 2), z(4, 2, 2)
    P0, P1 = z(4, 2, 4), z(4, 2, 4)
    L0[0] = np.eye(2)                                          # separate: λ = 0
    if formulation == "anitescu":                              # w_n ≥ μ|w_t|
        P0[0] = [[0, 0, 0, 1], [0, 0, 0, 1]]
        P1[0] = [[0, 0, -1, 0], [0, 0, 1, 0]]
    else:                                                      # w_n ≥ 0
        P0[0] = [[0, 0, 0, 1], [0, 0, 0, 0]]
    G0[1] = np.eye(2)                                          # stick: w = 0, |λ_t| ≤ μλ_n
    P0[1] = [[-1, 0, 0, 0], [1, 0, 0, 0]]
    P1[1] = [[0, 1, 0, 0], [0, 1, 0, 0]]
    for mode, sgn in ((2, 1.0), (3, -1.0)):                    # slide±: λ_t = ∓μλ_n, w_n = 0
        L0[mode] = [[1, 0], [0, 0]]
        L1[mode] = [[0, sgn], [0, 0]]
        G0[mode] = [[0, 0], [0, 1]]
        if formulation == "anitescu":                          # w_n = μ|w_t| = ±μ w_t
            G1[mode] = [[0, 0], [-sgn, 0]]
        P0[mode] = [[0, 1, 0, 0], [0, 0, sgn, 0]]              # λ_n ≥ 0, ±w_t ≥ 0
    f0, f1, o0, o1 = z(4, 2), z(4, 2), z(4, 2), z(4, 2)
    return (G0, L0, f0, P0, o0), (G1, L1, f1, P1, o1), MODE_COUNTS["planar_contact"]


def _unilateral():
    """ℝ₊ (row 0; row 1 a dummy): separate, contact."""
    G0, L0, P0 = np.zeros((4, 2, 2)), np.zeros((4, 2, 2)), np.zeros((4, 2, 4))
    L0[:] = np.eye(2)                                          # separate (and unused modes)
    P0[:, 0] = [0, 0, 1, 0]                                    # w ≥ 0
    G0[1] = [[1, 0], [0, 0]]                                   # contact: w = 0, λ ≥ 0
    L0[1] = [[0, 0], [0, 1]]
    P0[1, 0] = [1, 0, 0, 0]
    zero = (np.zeros((4, 2, 2)), np.zeros((4, 2, 2)), np.zeros((4, 2)), np.zeros((4, 2, 4)),
            np.zeros((4, 2)))
    return (G0, L0, np.zeros((4, 2)), P0, np.zeros((4, 2))), zero, MODE_COUNTS["unilateral"]


def _coulomb():
    """[−F, F] (row 0; row 1 a dummy): stick, slide+ (λ = −F, w ≥ 0), slide− (λ = F, w ≤ 0)."""
    G0, L0, P0 = np.zeros((4, 2, 2)), np.zeros((4, 2, 2)), np.zeros((4, 2, 4))
    f1, o1 = np.zeros((4, 2)), np.zeros((4, 2))
    for mode in (0, 3):                                        # stick (mode 3: unused copy)
        G0[mode] = [[1, 0], [0, 0]]
        L0[mode] = [[0, 0], [0, 1]]
        P0[mode] = [[-1, 0, 0, 0], [1, 0, 0, 0]]
        o1[mode] = [1, 1]                                      # |λ| ≤ F
    for mode, sgn in ((1, 1.0), (2, -1.0)):
        L0[mode] = np.eye(2)
        f1[mode] = [-sgn, 0]
        P0[mode, 0] = [0, 0, sgn, 0]
    return ((G0, L0, np.zeros((4, 2)), P0, np.zeros((4, 2))),
            (np.zeros((4, 2, 2)), np.zeros((4, 2, 2)), f1, np.zeros((4, 2, 4)), o1),
            MODE_COUNTS["coulomb"])


def mode_tables(blocks, formulation: str) -> ModeTables:
    """The padded, affine mode tables of `blocks` (none bilateral or spatial)."""
    T0, T1, counts, params, rows, kinds = [], [], [], [], [], []
    for k, blk in enumerate(blocks):
        if blk.kind == "planar_contact":
            t0, t1, c = _planar(formulation)
            params.append(blk.mu)
        elif blk.kind == "unilateral":
            t0, t1, c = _unilateral()
            params.append(jnp.zeros(()))
        elif blk.kind == "coulomb":
            t0, t1, c = _coulomb()
            params.append(blk.bound)
        else:
            raise ValueError(f"no finite mode list for block kind {blk.kind!r}")
        T0.append(t0)
        T1.append(t1)
        counts.append(c)
        kinds.append(blk.kind)
        rows.extend(ROWS * k + j for j in range(blk.size))
    p = jnp.stack([jnp.asarray(v, dtype=float) for v in params])
    out = []
    for j in range(5):
        base = np.stack([t[j] for t in T0])
        slope = np.stack([t[j] for t in T1])
        extra = (None,) * (base.ndim - 1)
        out.append(jnp.asarray(base) + p[(slice(None),) + extra] * jnp.asarray(slope)
                   if np.any(slope) else jnp.asarray(base))
    return ModeTables(*out, counts=tuple(counts), rows=tuple(rows), kinds=tuple(kinds))


def pad_rows(tables: ModeTables, A, b):
    """A and b with a zero dummy row (and column) after each one-row block."""
    nb = len(tables.counts)
    if len(tables.rows) == ROWS * nb:
        return A, b
    idx = np.array(tables.rows)
    A_pad = jnp.zeros((ROWS * nb, ROWS * nb), A.dtype).at[np.ix_(idx, idx)].set(A)
    return A_pad, jnp.zeros(ROWS * nb, b.dtype).at[idx].set(b)
