"""The joint QP's slots (SPEC §7 steps 1–5 on the JAX engine): the active contacts of a step
packed, in `SpatialModel._pairs` order, into a fixed number K of slots, so that the joint
QP (16) over the stacked wrenches has 6K variables whatever the number of potential
contacts (each body against the ground, each pair of bodies: n + n(n − 1)/2).

numba's `_volume_wrench.contact_step` solves the QP over the active contacts only, in pair
order; the slots hold the same contacts in the same order, the unused slots after them as
decoupled identity blocks with a zero gradient and no constraint rows (their wrench is 0,
the others' are numba's to round-off). K is static (part of the compiled run's structure):
min(#potential contacts, SLOTS_PER_BODY × #bodies) by default, or the caller's; a step with
more active contacts than slots stops the run (`_volume_jax_route`, a `SimulationError`
naming the contact and the time).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from ..errors import ParameterError

__all__ = ["SLOTS_PER_BODY", "block_diag", "pick_slots", "slot_count", "take"]

# default slots per body: a stack of n on the ground has n active contacts, a row of n
# pushed together 2n − 1, a pile somewhat more than its bodies
SLOTS_PER_BODY = 2


def slot_count(n_pairs: int, n_bodies: int, slots: int | None = None) -> int:
    """K, the number of slots of a model with `n_pairs` potential contacts and `n_bodies`
    bodies (module docstring); `slots`: the caller's choice (1 ≤ slots)."""
    if slots is None:
        return max(1, min(n_pairs, SLOTS_PER_BODY * n_bodies))
    if isinstance(slots, bool) or not isinstance(slots, int) or slots < 1:
        raise ParameterError(f"`simulate.slots` (the JAX engine's contact slots) must be a positive "
                             f"integer; got {slots!r}.")
    return min(n_pairs, slots)


def pick_slots(active, K: int):
    """The pair index in each of the K slots (K,) — the active pairs in order, then m (no
    pair) — and whether the slot holds a contact (K,); `active` (m,) bool."""
    m = active.shape[0]
    idx = jnp.nonzero(active, size=K, fill_value=m)[0]
    return idx, idx < m


def take(tree, idx):
    """The rows `idx` of every array in `tree` (an index m, no pair, reads the last row:
    masked by the caller)."""
    return jax.tree_util.tree_map(lambda v: jnp.take(v, idx, axis=0, mode="clip"), tree)


def block_diag(blocks):
    """The block-diagonal matrix (K r, K c) of `blocks` (K, r, c)."""
    K, r, c = blocks.shape
    return jnp.einsum("ij,iab->iajb", jnp.eye(K, dtype=blocks.dtype), blocks).reshape(
        K * r, K * c)
