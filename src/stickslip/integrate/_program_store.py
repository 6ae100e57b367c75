"""stickslip's program store: its compiled runs, kept across processes, keyed by the model.

The store itself — key, file format and checks, memory, concurrency — is
:class:`stickslip._compile.store.ProgramStore`; this module makes stickslip's instance,
:data:`STORE`, and gives it what only this layer knows: how to fingerprint a model's static
part (:mod:`._fingerprint`: classes, static fields, topology, user callables by their code)
and the versions of the code that fingerprint names instead of reading (equinox, diffrax,
NumPy, SciPy, lineax, optimistix, and stickslip's version and source hash, and the module
constants a process changed at run time: :func:`._fingerprint.code_versions`).

Its directory is ``<stickslip's cache directory>/stickslip-programs/``
(:func:`stickslip._compile.jax_cache.compile_cache_dir`: ``~/.cache/stickslip/jax`` on Linux,
``$STICKSLIP_JAX_CACHE`` to move it, ``STICKSLIP_JAX_CACHE=0`` to turn the store off). It
needs no JAX setting: JAX's own persistent cache is opt-in (:mod:`stickslip._compile.jax_cache`).
Measured on the slider–crank, 10 s, in a fresh process on a warm store: 0.44 s from the
first call to its result, against 0.69 s with the StableHLO (:mod:`jax.export`) artifact this
store kept before, which a new process still had to lower and look up in JAX's compile cache
(`benchmarks/results/planar_startup.md`).

The names below (:func:`call`, :func:`call_with_system`, :func:`traces`,
:func:`clear_memory`, :func:`store_directory`) are what the hosts and the tests use;
:func:`traces` counts how often a kernel was traced in this process (tests use it to check
that a second run reuses the compiled program).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from .._compile.jax_cache import compile_cache_dir
from .._compile.store import ProgramStore, split_system
from ._fingerprint import Unfingerprintable, code_versions, fingerprint

__all__ = ["STORE", "call", "call_program", "call_with_system", "traces", "store_directory", "clear_memory"]


def store_directory() -> Path | None:
    """Where programs are kept (None when the compile cache is off)."""
    base = compile_cache_dir()
    return None if base is None else base / "stickslip-programs"


# the directory through this module's name, looked up at each new program: a test that
# replaces `store_directory` here moves the store
STORE = ProgramStore(lambda: store_directory(), fingerprint, versions=code_versions,
                     unkeyable=Unfingerprintable)

_MEMO = STORE.memo
_TRACES = STORE.trace_counts
traces = STORE.traces
clear_memory = STORE.clear_memory


def call(kernel: Callable, static: tuple, arrays):
    """``kernel(*static, *arrays)``, compiled once per static part and array structure
    (:meth:`ProgramStore.call <stickslip._compile.store.ProgramStore.call>` of :data:`STORE`).

    kernel: a plain (not jitted) function of static arguments then traced arrays, returning a
    pytree of arrays.   static: hashable (compared as ``jax.jit`` compares static arguments).
    arrays: a tuple (pytree) of JAX arrays.
    """
    return STORE.call(kernel, static, arrays)


def call_program(kernel: Callable, static: tuple, arrays):
    """``kernel(*static, *arrays)`` compiled once per static part and array structure, in
    this process and the next (``stickslip.integrate.call_program``; the program store's
    :meth:`ProgramStore.call <stickslip._compile.store.ProgramStore.call>`).

    kernel: a plain (not jitted) function of static arguments then traced arrays, returning a
    pytree of arrays.   static: hashable (compared as ``jax.jit`` compares static arguments).
    arrays: a tuple (pytree) of JAX arrays.
    """
    return STORE.call(kernel, static, arrays)


def call_with_system(kernel: Callable, system, *arrays, **options):
    """``kernel(system, *arrays, **options)`` through :func:`call`: the system is split into
    its static part (compared, fingerprinted) and its arrays (traced), so a new system of
    the same structure reuses the compiled program — in this process and the next.
    `options` are static settings of the kernel (flags, names: hashable values); each
    value is its own program."""
    return call(*split_system(kernel, system, arrays, options))
