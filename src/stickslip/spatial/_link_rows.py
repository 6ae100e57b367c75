"""Constraint rows of a link system in local form: row k of J (m, 6 n_b) is J_l[k] (12,)
over [v, ω of body b_i[k]; v, ω of body b_j[k]] (:meth:`LinkSystem.joint_rows_local`), and
the products a joint-only λ-stage needs — J ν, Jᵀλ and A = J M⁻¹ Jᵀ — taken row by row
and body by body, O(m) work, where the dense (m, 6 n_b) J costs O(m n_b).

Measured on a chain of 30 rods (150 rows, 180 coordinates; benchmarks/results/
spatial_links.md): the dense J, its M⁻¹Jᵀ and their products were the largest kernels of
the run (XLA's profile: ~0.25 ms of each vector-field evaluation, against ~0.1 ms for all
of it in local form).
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

__all__ = ["LocalRows", "rows_by_body"]


@functools.lru_cache(maxsize=256)
def _rows_by_body_cached(bi: bytes, bj: bytes, n_b: int):
    bi_, bj_ = np.frombuffer(bi, int), np.frombuffer(bj, int)
    m = bi_.size
    lists = [[(k, 0) if bi_[k] == b else (k, 1) for k in range(m) if b in (bi_[k], bj_[k])]
             for b in range(n_b)]
    p = max(1, max((len(rows) for rows in lists), default=0))
    rows = np.full((n_b, p), m)
    sides = np.zeros((n_b, p), int)
    for b, pairs in enumerate(lists):
        for q, (k, side) in enumerate(pairs):
            rows[b, q], sides[b, q] = k, side
    rows.flags.writeable = sides.flags.writeable = False
    return rows, sides


def rows_by_body(bi, bj, n_b):
    """Static (n_b, p) row indices and sides (0: the row's body i, 1: its body j) of the rows
    that touch each body, padded with row m (a zero row) to the largest count p."""
    return _rows_by_body_cached(np.asarray(bi, int).tobytes(), np.asarray(bj, int).tobytes(),
                                n_b)


@jax.tree_util.register_pytree_node_class
class LocalRows:
    """The rows J_l (m, 12) on bodies (b_i, b_j) (static; n_b for the ground) of a system of
    n_b bodies, applied without forming J. A pytree whose one leaf is J_l (it passes through
    ``lax.cond`` and ``vmap`` with the stage's other outputs)."""

    def __init__(self, Jl, bi, bj, n_b: int):
        self.Jl, self.n_b = Jl, n_b
        self.bi, self.bj = np.asarray(bi, int), np.asarray(bj, int)

    def tree_flatten(self):
        return (self.Jl,), (tuple(self.bi.tolist()), tuple(self.bj.tolist()), self.n_b)

    @classmethod
    def tree_unflatten(cls, static, leaves):
        return cls(leaves[0], *static)

    def times(self, nu):
        """J ν (m,) for ν (6 n_b,) (the ground's twist zero)."""
        V = jnp.concatenate([nu.reshape(self.n_b, 6), jnp.zeros((1, 6), nu.dtype)])
        return jnp.sum(self.Jl[:, :6] * V[self.bi] + self.Jl[:, 6:] * V[self.bj], axis=1)

    def dense(self):
        """J (m, 6 n_b), the ground's columns dropped: one-hot columns (static) times the
        rows, elementwise, so it fuses with what computes the rows (a place-by-index would
        be a scatter)."""
        eye = np.eye(self.n_b + 1)[:, :self.n_b]
        oi = jnp.asarray(eye[self.bi], self.Jl.dtype)[:, :, None]
        oj = jnp.asarray(eye[self.bj], self.Jl.dtype)[:, :, None]
        full = oi * self.Jl[:, None, :6] + oj * self.Jl[:, None, 6:]
        return full.reshape(self.Jl.shape[0], 6 * self.n_b)

    def transpose_times(self, lam):
        """Jᵀλ (6 n_b,) for λ (m,): each body's sum over the rows that touch it."""
        m = lam.shape[0]
        rows, sides = rows_by_body(self.bi, self.bj, self.n_b)
        wrench = (self.Jl * lam[:, None]).reshape(m, 2, 6)
        padded = jnp.concatenate([wrench, jnp.zeros((1, 2, 6), wrench.dtype)])
        return jnp.sum(padded[rows, sides], axis=1).reshape(-1)
