"""Catch the λ-problem a stickslip host solves at one state (SPEC §6), as plain arrays.

Used by ``make_bank.py`` (not by the suite). A host's vector field calls
``solve_lambda(fset, A, b, ...)`` through the name its module imported; :func:`captured`
swaps that name for a spy that hands (A, b, μ or F of each block) to the host as concrete
values (``jax.debug.callback``), evaluates the vector field once (jitted), and puts the real
solver back.
"""

from __future__ import annotations

import contextlib

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

__all__ = ["block_records", "captured"]


def _parameter(blk):
    """A block's coefficient: μ of a contact, F of a Coulomb bound, else 0."""
    if blk.kind in ("planar_contact", "spatial_contact"):
        return blk.mu
    return blk.bound if blk.kind == "coulomb" else 0.0


def block_records(kinds, values):
    """The bank's description of a ProductSet: one dict per block (kind, size, μ or F)."""
    out = []
    for (kind, size), value in zip(kinds, values):
        rec = {"kind": kind, "size": int(size)}
        if kind in ("planar_contact", "spatial_contact"):
            rec["mu"] = float(value)
        elif kind == "coulomb":
            rec["bound"] = float(value)
        out.append(rec)
    return out


@contextlib.contextmanager
def _spy(module):
    calls = []
    real = module.solve_lambda

    def spy(fset, A, b, *args, **kwargs):
        kinds = [(blk.kind, blk.size) for blk in fset.blocks]

        def keep(A, b, *values):
            calls.append((block_records(kinds, values), np.array(A, dtype=float),
                          np.array(b, dtype=float)))
        jax.debug.callback(keep, A, b, *[_parameter(blk) for blk in fset.blocks])
        return real(fset, A, b, *args, **kwargs)

    module.solve_lambda = spy
    try:
        yield calls
    finally:
        module.solve_lambda = real


def captured(module, system, t, x):
    """(blocks, A, b) of the first λ-problem `system.vector_field(t, x)` solves through
    `module.solve_lambda`.

    Parameters
    ----------
    module : module
        The host module that imported ``solve_lambda`` (its name is swapped for a spy).
    system : object
        The host system (``vector_field(t, x)``).
    t : float
        Time [s].
    x : array_like
        The state vector.

    Returns
    -------
    tuple
        (blocks, A, b): block records, A (m, m) and b (m,) as NumPy arrays.
    """
    with _spy(module) as calls:
        out = eqx.filter_jit(lambda s, t, x: s.vector_field(t, x))(
            system, jnp.asarray(float(t)), jnp.asarray(x, dtype=float))
        jax.block_until_ready(out)
        jax.effects_barrier()
    if not calls:
        raise RuntimeError(f"{type(system).__name__}.vector_field solved no λ-problem "
                           f"through {module.__name__}.solve_lambda")
    return calls[0]
