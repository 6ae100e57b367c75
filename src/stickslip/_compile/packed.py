"""A run's output samples leave its compiled program as one array, unpacked on the host.

A run writes each output sample into slots inside its loop. Written channel by channel that
is one dynamic-update-slice kernel per channel in every pass (57 of the 578 operations of the
Moreau–Jean program of ``spatial.examples.arm_pushes_box``, each also a step of its own in
XLA's CPU runtime), and a sample carried as one flat row but unpacked inside the program
(``ravel_pytree``'s unravel, vmapped) costs one slice kernel per channel after the loop.

Packed, a sample is one row: its channels, raveled and cast to one dtype (as
``jax.flatten_util.ravel_pytree`` does), concatenated in the order of their pytree's leaves;
the loop writes the row in one update. The program returns a :class:`Packed` — the buffer,
with its :class:`SampleLayout` as static pytree data (it travels in the program's output
tree, so a stored program brings it back) — and :func:`unpacked` turns it into the channels
where the program's result arrives: NumPy views of the one buffer on the host (no kernel,
no copy), ``jax.numpy`` slices where the result is still traced (a program called inside
another's trace).

The cast is exact for what samples hold: floating channels in the buffer's own dtype, and
small integer codes (a solver's status) or flags, which float64 represents exactly.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import jax
import jax.core  # jax.core.Tracer below (a submodule: named for static checkers)
import jax.numpy as jnp
import numpy as np

__all__ = ["Packed", "SampleLayout", "unpacked"]


@dataclasses.dataclass(frozen=True)
class SampleLayout:
    """Where each channel of a sample lies in its packed row (hashable, picklable: static
    pytree data).

    treedef: the sample's pytree structure.   shapes, dtypes: each leaf's.   offsets: each
    leaf's first column in the row.   dtype: the row's (the leaves' common result type).
    width: the row's length (the columns of this layout's leaves may be part of a wider
    row: :meth:`child`).
    """

    treedef: Any                    # a jax.tree_util.PyTreeDef
    shapes: tuple[tuple[int, ...], ...]
    dtypes: tuple[np.dtype, ...]
    offsets: tuple[int, ...]
    dtype: np.dtype
    width: int

    @classmethod
    def of(cls, sample) -> SampleLayout:
        """The layout of `sample`, a pytree of arrays or of ``jax.ShapeDtypeStruct``."""
        leaves, treedef = jax.tree_util.tree_flatten(sample)
        shapes = tuple(tuple(int(n) for n in np.shape(v)) for v in leaves)
        dtypes = tuple(np.dtype(v.dtype) for v in leaves)
        sizes = [math.prod(s) for s in shapes]
        offsets = tuple(int(o) for o in np.cumsum([0, *sizes[:-1]])) if leaves else ()
        dtype = np.dtype(jnp.result_type(*dtypes)) if dtypes else np.dtype(float)
        return cls(treedef, shapes, dtypes, offsets, dtype, int(sum(sizes)))

    def row(self, sample) -> jax.Array:
        """`sample` (this layout's structure) as one row of :attr:`width` (traced)."""
        leaves = self.treedef.flatten_up_to(sample)
        if not leaves:
            return jnp.zeros((0,), self.dtype)
        return jnp.concatenate([jnp.ravel(v).astype(self.dtype) for v in leaves])

    def child(self, index: int) -> SampleLayout:
        """The layout of the sample's `index`-th child (a tuple's item) within the same
        row: its leaves keep their columns."""
        children = self.treedef.children()
        start = sum(c.num_leaves for c in children[:index])
        part = slice(start, start + children[index].num_leaves)
        return SampleLayout(children[index], self.shapes[part], self.dtypes[part],
                            self.offsets[part], self.dtype, self.width)

    def unpack(self, rows):
        """The sample pytree from `rows` (..., width): each leaf (..., *shape) — NumPy views
        of `rows` when it is concrete, ``jax.numpy`` slices when it is traced."""
        traced = isinstance(rows, jax.core.Tracer)
        xp = jnp if traced else np
        if not traced:
            rows = np.asarray(rows)
        lead = rows.shape[:-1]
        leaves = []
        for shape, dtype, offset in zip(self.shapes, self.dtypes, self.offsets, strict=True):
            part = rows[..., offset:offset + math.prod(shape)].reshape(*lead, *shape)
            leaves.append(part if dtype == self.dtype else xp.asarray(part).astype(dtype))
        return jax.tree_util.tree_unflatten(self.treedef, leaves)


@jax.tree_util.register_pytree_node_class
class Packed:
    """Samples packed as rows of one array (module docstring): ``rows`` (..., width) and
    their :class:`SampleLayout`; :func:`unpacked` gives back the channels."""

    def __init__(self, rows, layout: SampleLayout):
        self.rows = rows
        self.layout = layout

    def tree_flatten(self):
        return (self.rows,), self.layout

    @classmethod
    def tree_unflatten(cls, layout, children):
        return cls(children[0], layout)

    def unpack(self):
        """The samples' channels (:meth:`SampleLayout.unpack`)."""
        return self.layout.unpack(self.rows)


def unpacked(tree):
    """`tree` with each :class:`Packed` in it replaced by its channels."""
    return jax.tree_util.tree_map(
        lambda node: node.unpack() if isinstance(node, Packed) else node, tree,
        is_leaf=lambda node: isinstance(node, Packed))
