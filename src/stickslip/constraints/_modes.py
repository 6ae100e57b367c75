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

import jax.numpy as jnp

__all__ = ["block_modes", "FORMULATIONS_WITH_MODES"]

FORMULATIONS_WITH_MODES = ("kikuuwe", "anitescu")


def _mode(G, L, f, P, o):
    return (jnp.asarray(G, dtype=float), jnp.asarray(L, dtype=float),
            jnp.asarray(f, dtype=float), jnp.asarray(P, dtype=float),
            jnp.asarray(o, dtype=float))


def block_modes(block, formulation: str):
    """[(name, (G, L, f, P, o)), …] for one non-bilateral block (entries may be traced)."""
    zero = jnp.zeros(())
    if block.kind == "unilateral":
        return [("separate", _mode([[0.0]], [[1.0]], [0.0], [[0.0, 1.0], [0.0, 0.0]],
                                   [0.0, 0.0])),
                ("contact", _mode([[1.0]], [[0.0]], [0.0], [[1.0, 0.0], [0.0, 0.0]],
                                  [0.0, 0.0]))]
    if block.kind == "coulomb":
        F = block.bound
        return [("stick", (jnp.ones((1, 1)), jnp.zeros((1, 1)), jnp.zeros(1),
                           jnp.asarray([[-1.0, 0.0], [1.0, 0.0]]), jnp.stack([F, F]))),
                ("slide+", (jnp.zeros((1, 1)), jnp.ones((1, 1)), jnp.reshape(-F, (1,)),
                            jnp.asarray([[0.0, 1.0], [0.0, 0.0]]), jnp.zeros(2))),
                ("slide-", (jnp.zeros((1, 1)), jnp.ones((1, 1)), jnp.reshape(F, (1,)),
                            jnp.asarray([[0.0, -1.0], [0.0, 0.0]]), jnp.zeros(2)))]
    if block.kind == "planar_contact":
        mu = block.mu
        one = jnp.ones(())
        if formulation == "anitescu":
            sep_P = jnp.stack([jnp.stack([zero, zero, -mu, one]),
                               jnp.stack([zero, zero, mu, one])])
        else:
            sep_P = jnp.asarray([[0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, 0.0]])
        modes = [("separate", (jnp.zeros((2, 2)), jnp.eye(2), jnp.zeros(2), sep_P,
                               jnp.zeros(2))),
                 ("stick", (jnp.eye(2), jnp.zeros((2, 2)), jnp.zeros(2),
                            jnp.stack([jnp.stack([-one, mu, zero, zero]),
                                       jnp.stack([one, mu, zero, zero])]),
                            jnp.zeros(2)))]
        for s, label in ((1.0, "slide+"), (-1.0, "slide-")):
            if formulation == "anitescu":
                G = jnp.stack([jnp.zeros(2), jnp.stack([-s * mu, one])])
            else:
                G = jnp.asarray([[0.0, 0.0], [0.0, 1.0]])
            L = jnp.stack([jnp.stack([one, s * mu]), jnp.zeros(2)])
            P = jnp.asarray([[0.0, 1.0, 0.0, 0.0], [0.0, 0.0, s, 0.0]])
            modes.append((label, (G, L, jnp.zeros(2), P, jnp.zeros(2))))
        return modes
    raise ValueError(f"no finite mode list for block kind {block.kind!r}")
