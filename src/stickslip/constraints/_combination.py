"""One combination of block modes (:mod:`._modes`): its linear system and its inequalities.

For modes ``mode`` (one index per block, any leading batch axes) the combination's
equations G(Aλ − b) + Lλ = f form the square system S λ = r, solved as λ = S⁺r (the
minimum-norm solution where S is singular: static indeterminacy, several corners on one
wall); the combination holds at (λ, w = Aλ − b) when S λ = r to round-off and its
inequalities P[λ; w] + o ≥ 0 within a normalised tolerance. The active-set solver and the
enumeration share these functions, so they accept exactly the same solutions.
"""

from __future__ import annotations

import jax.numpy as jnp

from ._modes import MODES, ROWS, ModeTables

__all__ = ["select", "combination_system", "solve_combination", "combination_margins",
           "RTOL", "CONSISTENCY", "SINGULAR"]

RTOL = 1e-9            # normalised inequality tolerance
CONSISTENCY = 1e-9     # normalised residual of a combination's equations
SINGULAR = 1e-11       # relative singular-value cut of a combination's system


def select(tables: ModeTables, mode):
    """The five tables of the combination `mode` (…, nb): arrays (…, nb, …). A one-hot
    contraction over the (padded) modes rather than an indexed gather: the same values,
    a few dot products to compile instead of five gathers with their index arithmetic."""
    one_hot = (mode[..., None] == jnp.arange(MODES)).astype(tables.G.dtype)   # (…, nb, 4)
    nb = len(tables.counts)
    return tuple(jnp.einsum("...km,kmr->...kr", one_hot, t.reshape(nb, MODES, -1)).reshape(
        mode.shape + t.shape[2:]) for t in (tables.G, tables.L, tables.f, tables.P, tables.o))


def combination_system(tables: ModeTables, A, b, mode):
    """(S, r) of the combination(s) `mode`, on the padded A (2nb, 2nb) and b (2nb,)."""
    nb = len(tables.counts)
    G, L, f, _, _ = select(tables, mode)
    A4 = A.reshape(nb, ROWS, nb, ROWS)
    eye = jnp.eye(nb, dtype=A.dtype)[:, None, :, None]
    S = jnp.einsum("...kij,kjlm->...kilm", G, A4) + eye * L[..., :, :, None, :]
    r = f + jnp.einsum("...kij,kj->...ki", G, b.reshape(nb, ROWS))
    batch = mode.shape[:-1]
    return S.reshape(batch + (ROWS * nb, ROWS * nb)), r.reshape(batch + (ROWS * nb,))


def solve_combination(S, r):
    """λ = S⁺r from one SVD, singular values below ``SINGULAR`` × the largest taken as 0
    (``jnp.linalg.pinv``, whose derivative is exact at constant rank), and the normalised
    residual ‖Sλ − r‖∞ / ‖r‖∞: round-off exactly when the system is consistent."""
    lam = (jnp.linalg.pinv(S, rtol=SINGULAR) @ r[..., None])[..., 0]
    lam = jnp.where(jnp.isfinite(lam), lam, 0.0)
    res = jnp.abs((S @ lam[..., None])[..., 0] - r)
    return lam, res / (jnp.max(jnp.abs(r), axis=-1, keepdims=True) + 1e-300)


def combination_margins(tables: ModeTables, mode, lam, w, a_max, b_max):
    """Normalised margins (…, nb, 2) of the combination's inequalities at (λ, w): each is
    divided by the size of what it compares (λ in N, w in m/s²)."""
    nb = len(tables.counts)
    _, _, _, P, o = select(tables, mode)
    batch = lam.shape[:-1]
    lam2, w2 = lam.reshape(batch + (nb, ROWS)), w.reshape(batch + (nb, ROWS))
    big = jnp.max(jnp.abs(lam), axis=-1)[..., None, None]
    lam_scale = big + b_max / a_max
    w_scale = a_max * big + b_max
    z = jnp.concatenate([lam2, w2], axis=-1)
    scale = (jnp.sum(jnp.abs(P[..., :ROWS]), axis=-1) * lam_scale
             + jnp.sum(jnp.abs(P[..., ROWS:]), axis=-1) * w_scale + jnp.abs(o))
    return (jnp.einsum("...kij,...kj->...ki", P, z) + o) / jnp.maximum(scale, 1e-300)
