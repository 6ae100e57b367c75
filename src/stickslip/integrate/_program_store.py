"""Compiled runs kept across processes, keyed by what the trace reads: no re-tracing.

JAX's persistent cache (:mod:`stickslip._compile_cache`) spares a new process the XLA
compile, but not the tracing and lowering that come before it — its key *is* the lowered
program, so finding it means building it first: 0.5–3 s for a planar mechanism, every time a
script starts. This store keys a run by the *inputs* of tracing instead:

* the kernel (module and name) and its static arguments — the system's static part (classes,
  static fields, topology, user callables by their code; see :mod:`._fingerprint`) and the
  step rule;
* the tree structure, shapes and dtypes of the traced arguments;
* the versions of Python, JAX, jaxlib, equinox, diffrax, NumPy, SciPy, lineax and
  optimistix (every package whose functions a fingerprint names instead of reading), the
  backend, the JAX settings that change a trace (x64, matmul precision, NaN checks),
  ``XLA_FLAGS``, and stickslip's version and a hash of its own source files
  (:func:`._fingerprint.code_versions`) —

and keeps the *compiled* program (the XLA executable, through
:mod:`jax.experimental.serialize_executable`) in ``<compile cache directory>/stickslip-programs/``.
A process that finds it loads it and runs: no tracing, no lowering, no compile-cache lookup.
Each file also records the whole key it was stored under, and a file whose recorded key is
not the one looked up (a program copied or renamed onto another model's name, a name
prefix shared by two keys) is not run: it is compiled again and replaced.
An executable that calls LAPACK (a least-squares impact solve, an eigenvalue check) has
jaxlib bind its LAPACK kernels first, as any lowering of such an op does; one that does not
(a planar mechanism's run: :func:`stickslip.planar._dynamics.spd_solve`) leaves SciPy unimported.
Measured on the slider–crank, 10 s, in a fresh process on a warm store: 0.44 s from the
first call to its result, against 0.69 s with the StableHLO (:mod:`jax.export`) artifact this
store kept before, which a new process still had to lower and look up in JAX's compile cache
(`benchmarks/results/planar_startup.md`).

The file is a pickle, as JAX's own executable serialization is: like JAX's persistent cache,
the directory must be writable by the user alone.

When the static part cannot be fingerprinted for certain (an object of a user class without
``__stickslip_key__``, a callable that reads a user module, …), when the store is off
(``STICKSLIP_JAX_CACHE=0``) or when the executable cannot be serialized (host callbacks), the run
is traced as before: the store never guesses. A corrupt or unreadable file is rebuilt.

:func:`traces` counts how often a kernel was traced in this process (tests use it to check
that a second run reuses the compiled program).
"""

from __future__ import annotations

import collections
import functools
import hashlib
import logging
import math
import os
import pickle
import platform
import secrets
import sys
from pathlib import Path
from typing import Callable

import equinox as eqx
import jax
import numpy as np
from jax.experimental import serialize_executable

from .._compile_cache import compile_cache_dir
from ._fingerprint import Unfingerprintable, code_versions, fingerprint

__all__ = ["call", "call_with_system", "traces", "store_directory", "clear_memory"]

_log = logging.getLogger(__name__)

_MEMO_SIZE = 256
_MEMO: "collections.OrderedDict" = collections.OrderedDict()
_TRACES: collections.Counter = collections.Counter()

_STORE_VERSION = 3          # 3: each file records its full key
_SUFFIX = ".jaxexec"

# XLA's newer CPU fusion emitters take about twice as long to compile a stickslip kernel as the
# classic ones for the same run time and the same results (friction slider–crank: the RK step
# 2.63 → 1.37 s CPU, first call 6.4 → 4.7 s; slider–crank 3.7 → 2.8 s; warm calls within
# noise: `benchmarks/results/planar_compile_events.md`). Used for every program the store
# compiles, stored or not (a kernel it cannot fingerprint, the store off).
_COMPILER_OPTIONS = {"cpu": {"xla_cpu_use_fusion_emitters": False}}


def traces(kernel: Callable | str) -> int:
    """How many times `kernel` (a function or its name) was traced in this process."""
    return _TRACES[kernel if isinstance(kernel, str) else kernel.__name__]


def clear_memory() -> None:
    """Forget the compiled runs held in this process (the files stay)."""
    _MEMO.clear()


def store_directory() -> Path | None:
    """Where programs are kept (None when the compile cache is off)."""
    base = compile_cache_dir()
    return None if base is None else base / "stickslip-programs"


def call(kernel: Callable, static: tuple, arrays):
    """``kernel(*static, *arrays)``, compiled once per static part and array structure.

    kernel: a plain (not jitted) function of static arguments then traced arrays, returning a
    pytree of arrays.   static: hashable (compared as ``jax.jit`` compares static arguments).
    arrays: a tuple (pytree) of JAX arrays.
    """
    leaves, treedef = jax.tree_util.tree_flatten(arrays)
    avals = tuple((np.shape(x), _dtype(x), _weak(x)) for x in leaves)
    key = (kernel, static, treedef, avals)
    compiled = _MEMO.get(key)
    if compiled is None:
        compiled = _prepare(kernel, static, treedef, leaves)
        _MEMO[key] = compiled
        if len(_MEMO) > _MEMO_SIZE:
            _MEMO.popitem(last=False)
    else:
        _MEMO.move_to_end(key)
    return compiled(*leaves)


def call_with_system(kernel: Callable, system, *arrays, **options):
    """``kernel(system, *arrays, **options)`` through :func:`call`: the system is split into
    its static part (compared, fingerprinted) and its arrays (traced), so a new system of
    the same structure reuses the compiled program — in this process and the next.
    `options` are static settings of the kernel (flags, names: hashable values); each
    value is its own program."""
    dynamic, static = eqx.partition(system, eqx.is_array)
    settings = tuple(sorted(options.items()))
    return call(_split(kernel), (static, settings), (dynamic, *arrays))


@functools.lru_cache(maxsize=None)
def _split(kernel: Callable) -> Callable:
    def split(static, settings, dynamic, *arrays):
        return kernel(eqx.combine(dynamic, static), *arrays, **dict(settings))

    split.__name__, split.__qualname__ = kernel.__name__, kernel.__qualname__
    split.__module__ = kernel.__module__
    return split


def _dtype(x) -> np.dtype:
    return np.dtype(x.dtype) if hasattr(x, "dtype") else np.asarray(x).dtype


def _weak(x) -> bool:
    return bool(getattr(x, "weak_type", False))


def _prepare(kernel, static, treedef, leaves):
    name = kernel.__name__

    def flat(*flat_leaves):
        _TRACES[name] += 1
        return kernel(*static, *jax.tree_util.tree_unflatten(treedef, flat_leaves))

    flat.__name__ = name
    jitted = _jit(flat)
    directory = store_directory()
    if directory is None:
        return jitted
    try:
        digest = _key(kernel, static, treedef, leaves)
    except Unfingerprintable as exc:
        _log.debug("stickslip: %s traced (not stored): %s", name, exc)
        return jitted
    path = directory / f"{name}-{digest[:40]}{_SUFFIX}"
    loaded = _load(path, len(leaves), digest)
    if loaded is not None:
        return loaded
    try:
        compiled = _compile_afresh(flat, leaves)
    except Exception as exc:           # noqa: BLE001 — the plain call raises it again, named
        _log.debug("stickslip: %s not compiled ahead (%s); traced", name, exc)
        return jitted
    try:
        payload, _, out_tree = serialize_executable.serialize(compiled)
        needs_lapack = "lapack_" in compiled.as_text()
        blob = pickle.dumps((_STORE_VERSION, digest, needs_lapack, out_tree, payload),
                            protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as exc:           # noqa: BLE001 — not serializable: run it, store nothing
        _log.debug("stickslip: %s not storable (%s)", name, exc)
        return compiled
    _save(path, blob)
    return compiled


def _compile_afresh(flat, leaves):
    """``flat`` compiled by XLA, not taken from JAX's persistent cache.

    An executable that JAX loaded from its cache cannot be serialized again: XLA's CPU
    runtime keeps no object code for it, and the copy fails when run ("Function … not
    found"). So the program is lowered under a name of its own (the module name is part of
    JAX's cache key: no entry can match) and JAX is kept from writing it to its cache, where
    no one would look it up: the store holds it.
    """
    name = flat.__name__
    flat.__name__ = f"{name}_{secrets.token_hex(6)}"
    option = "jax_persistent_cache_min_compile_time_secs"
    previous = getattr(jax.config, option)
    jax.config.update(option, math.inf)
    try:
        return _jit(flat).lower(*leaves).compile()
    finally:
        jax.config.update(option, previous)
        flat.__name__ = name


def _jit(flat):
    """``jax.jit(flat)`` with :func:`_compiler_options` where this JAX and XLA take them."""
    options = _compiler_options()
    return jax.jit(flat, compiler_options=options) if options else jax.jit(flat)


@functools.lru_cache(maxsize=1)
def _compiler_options() -> dict | None:
    """:data:`_COMPILER_OPTIONS` for the default backend, or None where this XLA refuses
    them (checked once per process on a one-line program)."""
    options = _COMPILER_OPTIONS.get(jax.default_backend())
    if not options:
        return None
    try:
        jax.jit(lambda x: x + 1.0, compiler_options=options).lower(np.zeros(1)).compile()
    except Exception as exc:           # noqa: BLE001 — a JAX/XLA without it: defaults
        _log.debug("stickslip: compiler options %s refused (%s)", options, exc)
        return None
    return options


def _key(kernel, static, treedef, leaves) -> str:
    structure = jax.tree_util.tree_unflatten(
        treedef, [("leaf", np.shape(x), _dtype(x).str, _weak(x)) for x in leaves])
    parts = (_STORE_VERSION, kernel.__module__, kernel.__qualname__,
             fingerprint(static), fingerprint(structure), _environment())
    return hashlib.sha256(repr(parts).encode()).hexdigest()


def _environment() -> tuple:
    import jaxlib

    config = jax.config
    settings = tuple((name, repr(getattr(config, name, None))) for name in (
        "jax_enable_x64", "jax_default_matmul_precision", "jax_numpy_rank_promotion",
        "jax_debug_nans", "jax_debug_infs", "jax_enable_checks", "jax_default_prng_impl",
        "jax_numpy_dtype_promotion"))
    device = jax.devices()[0]
    return (sys.version, platform.machine(), _cpu_identity(), jax.__version__,
            jaxlib.__version__, device.platform, getattr(device, "device_kind", ""), settings,
            os.environ.get("XLA_FLAGS", ""), tuple(sorted(code_versions().items())))


@functools.lru_cache(maxsize=1)
def _cpu_identity() -> str:
    """The processor model and instruction-set flags: XLA compiles a CPU program for the
    features of the machine it runs on, so a store shared between machines (a network home)
    must not hand one machine's program to another."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return platform.processor()
    keep = [line for line in text.splitlines()
            if line.split(":")[0].strip() in ("model name", "flags", "Features", "CPU part")]
    return hashlib.sha256("\n".join(sorted(set(keep))).encode()).hexdigest()


def _load(path: Path, n_leaves: int, digest: str):
    """The program stored at `path`, or None when there is none, it is unreadable, of
    another store version, or recorded under a key other than `digest` (then it is
    compiled again and the file replaced)."""
    try:
        blob = path.read_bytes()
    except OSError:
        return None
    try:
        record = pickle.loads(blob)
        if not isinstance(record, tuple) or len(record) != 5 or record[0] != _STORE_VERSION:
            return None
        _, stored_key, needs_lapack, out_tree, payload = record
        if stored_key != digest:
            _log.debug("stickslip: stored program %s was stored under another key; "
                       "rebuilding", path)
            return None
        if needs_lapack:
            _initialize_lapack()
        in_tree = jax.tree_util.tree_structure((tuple(range(n_leaves)), {}))
        return serialize_executable.deserialize_and_load(payload, in_tree, out_tree)
    except Exception as exc:           # noqa: BLE001 — a corrupt or foreign file: rebuild
        _log.debug("stickslip: stored program %s unreadable (%s); rebuilding", path, exc)
        return None


@functools.lru_cache(maxsize=1)
def _initialize_lapack() -> None:
    """Make jaxlib bind its LAPACK kernels (it takes them from SciPy on first use), as the
    lowering of any LAPACK-backed op does: a loaded program that calls LAPACK needs them."""
    jax.jit(jax.numpy.linalg.cholesky).lower(np.eye(1))


def _save(path: Path, blob: bytearray) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(bytes(blob))
        os.replace(tmp, path)
    except OSError as exc:
        _log.debug("stickslip: could not store %s (%s)", path, exc)
        return
    _remove_superseded(path.parent)


@functools.lru_cache(maxsize=None)
def _remove_superseded(directory: Path) -> None:
    """Delete the StableHLO files (``*.jaxexport``) of the store's first version, which no
    version reads any more (once per directory and process)."""
    for old in directory.glob("*.jaxexport"):
        try:
            old.unlink()
        except OSError:
            pass
