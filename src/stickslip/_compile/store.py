"""The program store: compiled programs kept on disk, keyed by what their trace reads.

JAX's persistent cache (:mod:`.jax_cache`, opt-in) spares a new process the XLA compile,
but not the tracing and lowering that come before it — its key *is* the lowered program, so
finding it means building it first: 0.5–3 s for a planar mechanism, every time a script
starts. A :class:`ProgramStore` keys a program by the *inputs* of tracing instead:

* the kernel (module and name) and its static arguments, through the store's `fingerprint`
  (stickslip's: the system's static part — classes, static fields, topology, user callables
  by their code; :mod:`stickslip.integrate._fingerprint` — and the step rule);
* the tree structure, shapes and dtypes of the traced arguments;
* the versions of Python, JAX and jaxlib and of the packages the store's `versions` names
  (stickslip's: equinox, diffrax, NumPy, SciPy, lineax, optimistix, stickslip's own
  source hash and its module constants changed at run time), the processor, the backend, the JAX settings that change a trace (x64,
  matmul precision, NaN checks) and ``XLA_FLAGS`` —

and keeps the *compiled* program (the XLA executable, through
:mod:`jax.experimental.serialize_executable`) in one file per key in its directory. A process
that finds it loads it and runs: no tracing, no lowering, no compile.

**Files.** ``<kernel>-<first 40 hex digits of the key>.jaxexec``: a header naming the store
format, the SHA-256 of the rest, then a pickle of (the whole key, whether the program calls
LAPACK, its output tree, the executable). An entry is used only when its header, checksum
and recorded key all match; otherwise it is *removed* and the program compiled again and
stored anew (the store is a cache: nothing in it is worth keeping aside, unlike a sweep's
parts). That covers an entry of an older format, a damaged one (random bytes, a truncated
file: the checksum), a foreign one (another key's program copied or renamed onto this name)
and one that XLA refuses to load. A damaged or foreign entry is logged as a warning.

**Concurrency.** An entry is written to a temporary file in the same directory (named by
process and a random token) and renamed onto its name, an atomic replace: a reader sees a
whole old entry or a whole new one, never part of one. Processes that compile the same key
at once each write a whole entry and the last rename wins; an entry is removed as unusable
only if it is still the file that was read (so a fresh entry another process just renamed
there survives). Temporary files a killed process left are deleted after a day.

The files are pickles, as JAX's own executable serialization is: like JAX's persistent
cache, the directory must be writable by the user alone.

When the static part cannot be fingerprinted for certain (the store's `unkeyable`
exception), when the store is off (its directory is None) or when the executable cannot be
serialized (host callbacks), the program is traced and compiled as a plain ``jax.jit``: the
store never guesses.
"""

from __future__ import annotations

import collections
import contextlib
import functools
import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import logging
import math
import os
import pickle
import platform
import secrets
import sys
import time
from collections.abc import Callable
from pathlib import Path

import equinox as eqx
import jax
import numpy as np
from jax.experimental import serialize_executable

from .options import compiler_options, is_run_once, runs_once
from .packed import unpacked

__all__ = ["ProgramStore", "split_system"]

_log = logging.getLogger(__name__)

_STORE_VERSION = 4          # 3: each file records its full key; 4: header and checksum
_MAGIC = b"stickslip program store 4\n"
_SUFFIX = ".jaxexec"
_STALE_TMP_SECONDS = 24 * 3600



class ProgramStore:
    """Compiled programs of ``kernel(*static, *arrays)``, in memory and in a directory.

    directory: a callable returning the directory (read at each new program, so a setting
    changed later is followed), or None for a store that keeps nothing on disk.
    fingerprint: a stable text of a static value (raises `unkeyable` when it cannot be sure).
    versions: a callable returning ``{package: version}`` of the code the fingerprint names
    instead of reading.   unkeyable: the exception class(es) `fingerprint` raises.
    memo_size: how many compiled programs are held in memory (least recently used dropped).
    """

    def __init__(self, directory: Callable[[], Path | None] | None, fingerprint: Callable,
                 *, versions: Callable[[], dict] = dict,
                 unkeyable: type[Exception] | tuple = (), memo_size: int = 256):
        self._directory = directory
        self._fingerprint = fingerprint
        self._versions = versions
        self._unkeyable = unkeyable
        self.memo_size = memo_size
        self.memo: collections.OrderedDict = collections.OrderedDict()
        # the same programs by their stored key: a model rebuilt with fresh closures of equal
        # code and values misses `memo` (callables compare by identity) but not this
        self.by_digest: collections.OrderedDict = collections.OrderedDict()
        self.trace_counts: collections.Counter = collections.Counter()

    def directory(self) -> Path | None:
        """Where programs are kept now (None: nowhere on disk)."""
        return None if self._directory is None else self._directory()

    def traces(self, kernel: Callable | str) -> int:
        """How many times `kernel` (a function or its name) was traced in this process."""
        return self.trace_counts[kernel if isinstance(kernel, str) else kernel.__name__]

    def clear_memory(self) -> None:
        """Forget the compiled programs held in this process (the files stay)."""
        self.memo.clear()
        self.by_digest.clear()

    def call(self, kernel: Callable, static: tuple, arrays):
        """``kernel(*static, *arrays)``, compiled once per static part and array structure.

        kernel: a plain (not jitted) function of static arguments then traced arrays,
        returning a pytree of arrays (a :class:`~.packed.Packed` in it comes back as its
        channels: :func:`~.packed.unpacked`).   static: hashable (compared as ``jax.jit``
        compares static arguments).   arrays: a tuple (pytree) of JAX arrays.
        """
        leaves, treedef = jax.tree_util.tree_flatten(arrays)
        avals = tuple((np.shape(x), _dtype(x), _weak(x)) for x in leaves)
        key = (kernel, static, treedef, avals)
        compiled = self.memo.get(key)
        if compiled is None:
            compiled = self._prepare(kernel, static, treedef, leaves)
            self.memo[key] = compiled
            if len(self.memo) > self.memo_size:
                self.memo.popitem(last=False)
        else:
            self.memo.move_to_end(key)
        return unpacked(compiled(*leaves))

    def call_with_system(self, kernel: Callable, system, *arrays, **options):
        """``kernel(system, *arrays, **options)`` through :meth:`call` (see
        :func:`split_system`)."""
        return self.call(*split_system(kernel, system, arrays, options))

    # --- one new program ------------------------------------------------------------------

    def _prepare(self, kernel, static, treedef, leaves):
        name = kernel.__name__
        counts = self.trace_counts

        def flat(*flat_leaves):
            counts[name] += 1
            return kernel(*static, *jax.tree_util.tree_unflatten(treedef, flat_leaves))

        flat.__name__ = name
        once = is_run_once(kernel)
        try:
            digest = self.key(kernel, static, treedef, leaves)
        except self._unkeyable as exc:
            _log.debug("stickslip: %s traced (not stored): %s", name, exc)
            return _jit(flat, once)
        held = self.by_digest.get(digest)
        if held is not None:               # compiled or loaded already in this process
            self.by_digest.move_to_end(digest)
            return held
        directory = self.directory()
        if directory is None:              # the store is off: kept in this process only (a
            # model rebuilt with new closures of the same code reuses it, as with the store)
            return self._hold(digest, _jit(flat, once))
        path = directory / f"{name}-{digest[:40]}{_SUFFIX}"
        loaded = self.load(path, len(leaves), digest)
        if loaded is not None:
            return self._hold(digest, loaded)
        try:
            compiled = _compile_afresh(flat, leaves, once)
        except Exception as exc:           # noqa: BLE001 — the plain call raises it again, named
            _log.debug("stickslip: %s not compiled ahead (%s); traced", name, exc)
            return _jit(flat, once)
        try:
            blob = _entry(digest, compiled)
        except Exception as exc:           # noqa: BLE001 — not serializable: run, store nothing
            _log.debug("stickslip: %s not storable (%s)", name, exc)
            return self._hold(digest, compiled)
        self.save(path, blob)
        return self._hold(digest, compiled)

    def _hold(self, digest: str, program):
        """Keep `program` in memory under its stored key (least recently used dropped)."""
        self.by_digest[digest] = program
        if len(self.by_digest) > self.memo_size:
            self.by_digest.popitem(last=False)
        return program

    def key(self, kernel, static, treedef, leaves) -> str:
        """The hex SHA-256 a program is stored under (raises `unkeyable`)."""
        structure = jax.tree_util.tree_unflatten(
            treedef, [("leaf", np.shape(x), _dtype(x).str, _weak(x)) for x in leaves])
        parts = (_STORE_VERSION, kernel.__module__, kernel.__qualname__,
                 self._fingerprint(static), self._fingerprint(structure),
                 _environment(), tuple(sorted(self._versions().items())))
        return hashlib.sha256(repr(parts).encode()).hexdigest()

    # --- files ----------------------------------------------------------------------------

    def load(self, path: Path, n_leaves: int, digest: str):
        """The program stored at `path` under `digest`, or None: none there, or an entry
        that cannot be used (then it is removed; see the module docstring)."""
        try:
            with open(path, "rb") as file:
                identity = _identity(os.fstat(file.fileno()))
                blob = file.read()
        except OSError:
            return None
        record, problem = _read_entry(blob)
        if record is not None and record[0] != digest:
            record, problem = None, ("foreign: it was stored under another key (copied or "
                                     "renamed from another program)")
        if record is None:
            self._discard(path, identity, problem)
            return None
        _, needs_lapack, out_tree, payload = record
        try:
            if needs_lapack:
                _initialize_lapack()
            in_tree = jax.tree_util.tree_structure((tuple(range(n_leaves)), {}))
            return serialize_executable.deserialize_and_load(payload, in_tree, out_tree)
        except Exception as exc:           # noqa: BLE001 — XLA refuses it: compile again
            self._discard(path, identity, f"damaged: XLA could not load it ({exc})")
            return None

    def save(self, path: Path, blob: bytes) -> None:
        """Write an entry atomically (a temporary file renamed onto `path`)."""
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_bytes(blob)
            os.replace(tmp, path)
        except OSError as exc:
            _log.debug("stickslip: could not store %s (%s)", path, exc)
            with contextlib.suppress(OSError):
                tmp.unlink()
            return
        _tidy(path.parent)

    @staticmethod
    def _discard(path: Path, identity: tuple, problem: str) -> None:
        level = logging.INFO if problem.startswith("of another") else logging.WARNING
        try:
            if _identity(os.stat(path)) == identity:      # not replaced since it was read
                path.unlink()
            where = "removed"
        except FileNotFoundError:                          # another process removed it
            where = "removed"
        except OSError:
            where = "left (it could not be removed)"
        _log.log(level, "stickslip: the stored program %s is not used: %s; %s, compiling "
                 "it again", path, problem, where)


def split_system(kernel: Callable, system, arrays: tuple, options: dict):
    """``(kernel, static, arrays)`` for :meth:`ProgramStore.call` from ``kernel(system, *arrays,
    **options)``: the system is split into its static part (compared, fingerprinted) and its
    arrays (traced), so a new system of the same structure reuses the compiled program — in
    this process and the next. `options` are static settings of the kernel (flags, names:
    hashable values); each value is its own program."""
    dynamic, static = eqx.partition(system, eqx.is_array)
    settings = tuple(sorted(options.items()))
    return _split(kernel), (static, settings), (dynamic, *arrays)


@functools.cache
def _split(kernel: Callable) -> Callable:
    def split(static, settings, dynamic, *arrays):
        return kernel(eqx.combine(dynamic, static), *arrays, **dict(settings))

    split.__name__, split.__qualname__ = kernel.__name__, kernel.__qualname__
    split.__module__ = kernel.__module__
    if is_run_once(kernel):
        runs_once(split)
    return split


def _dtype(x) -> np.dtype:
    return np.dtype(x.dtype) if hasattr(x, "dtype") else np.asarray(x).dtype


def _weak(x) -> bool:
    return bool(getattr(x, "weak_type", False))


def _identity(stat: os.stat_result) -> tuple:
    return stat.st_ino, stat.st_dev, stat.st_size, stat.st_mtime_ns


# --- the entry format -------------------------------------------------------------------

def _entry(digest: str, compiled) -> bytes:
    """The bytes of a file holding `compiled` under `digest`."""
    payload, _, out_tree = serialize_executable.serialize(compiled)
    # an executable that calls LAPACK (a least-squares impact solve, an eigenvalue check)
    # needs jaxlib to bind its LAPACK kernels first, as any lowering of such an op does; one
    # that does not (a planar mechanism's run: stickslip.planar._dynamics.spd_solve) leaves
    # SciPy unimported when loaded
    needs_lapack = "lapack_" in compiled.as_text()
    body = pickle.dumps((digest, needs_lapack, out_tree, payload),
                        protocol=pickle.HIGHEST_PROTOCOL)
    return _MAGIC + hashlib.sha256(body).digest() + body


def _read_entry(blob: bytes) -> tuple[tuple | None, str]:
    """``((key, needs_lapack, out_tree, payload), "")`` from an entry's bytes, or
    ``(None, why it cannot be used)``."""
    if not blob.startswith(_MAGIC):
        return None, "of another store format (or not a stored program)"
    checksum, body = blob[len(_MAGIC):len(_MAGIC) + 32], blob[len(_MAGIC) + 32:]
    if hashlib.sha256(body).digest() != checksum:
        return None, f"damaged: its checksum does not match ({len(blob)} bytes; truncated?)"
    try:
        record = pickle.loads(body)
    except Exception as exc:           # noqa: BLE001 — written by another pickle: unusable
        return None, f"damaged: it cannot be read ({type(exc).__name__}: {exc})"
    if not (isinstance(record, tuple) and len(record) == 4 and isinstance(record[0], str)):
        return None, "damaged: not a program record"
    return record, ""


# --- compiling ----------------------------------------------------------------------------

def _compile_afresh(flat, leaves, once: bool = False):
    """``flat`` compiled by XLA, never taken from (nor written to) JAX's persistent cache.

    An executable that JAX loaded from its cache cannot be serialized again: XLA's CPU
    runtime keeps no object code for it, and the copy fails when run ("Function … not
    found"). So the program is lowered under a name of its own: the module name begins JAX's
    cache key, so no entry can match. And the entry JAX would write for that name, which no
    one would look up (the store holds the program), is not written: JAX's minimum compile
    time for its cache is raised to infinity for this call only (:func:`_no_jax_cache_write`).
    """
    def fresh(*flat_leaves):
        return flat(*flat_leaves)

    fresh.__name__ = fresh.__qualname__ = f"{flat.__name__}_{secrets.token_hex(6)}"
    with _no_jax_cache_write():
        return _jit(fresh, once).lower(*leaves).compile()


def _no_jax_cache_write():
    """A context in which JAX writes no persistent-cache entry: its option
    ``jax_persistent_cache_min_compile_time_secs`` as a *context manager*, which sets the value
    for the current thread and the block only (no process-wide change; other threads and
    the global value are untouched). JAX offers that context manager on its config object,
    not under a public name; where this JAX lacks it, the unique module name alone keeps
    the entry from ever being read, and JAX may write it (when its cache is on)."""
    try:
        from jax._src import config as jax_config

        return jax_config.persistent_cache_min_compile_time_secs(math.inf)
    except (ImportError, AttributeError, TypeError):
        return contextlib.nullcontext()


def _jit(flat, once: bool = False):
    """``jax.jit(flat)`` with stickslip's XLA options (:func:`.options.compiler_options`:
    XLA's elemental CPU emitters, about half the compile time; `once`: a program marked
    :func:`~.options.runs_once`, compiled for compile speed) where this XLA takes them.
    Used for every program the store compiles, stored or not (a kernel it cannot
    fingerprint, the store off)."""
    options = compiler_options(once)
    return jax.jit(flat, compiler_options=options) if options else jax.jit(flat)


@functools.lru_cache(maxsize=1)
def _initialize_lapack() -> None:
    """Make jaxlib bind its LAPACK kernels (it takes them from SciPy on first use), as the
    lowering of any LAPACK-backed op does: a loaded program that calls LAPACK needs them.
    jaxlib's own initializer where this jaxlib has it (the lowering it replaces cost 0.06 s
    of a warm first call, measured 2026-11-26), else that lowering.

    jaxlib imports ``scipy.linalg.cython_blas`` and ``scipy.linalg.cython_lapack`` for the
    kernels' addresses, and importing them runs ``scipy.linalg``'s package first: 0.24 s
    of the 3-D arm example's warm first call (``examples.arm_pushes_box``, cProfile,
    2026-11-26), for two extension modules that load in 0.011 s. :func:`_preload_scipy_lapack`
    loads the two on their own first, so jaxlib finds them imported; a later ``import
    scipy.linalg`` binds them as its attributes (:class:`_BindPreloaded`). Where that fails
    (another SciPy layout), jaxlib imports them itself, as before."""
    try:
        from jaxlib.cpu import _lapack

        initialize = _lapack.initialize
    except (ImportError, AttributeError):   # another jaxlib: lower a LAPACK op instead
        jax.jit(jax.numpy.linalg.cholesky).lower(np.eye(1))
        return
    try:
        _preload_scipy_lapack()
    except Exception as exc:                # noqa: BLE001 — jaxlib's own import then
        _log.debug("stickslip: SciPy's LAPACK modules not preloaded (%s)", exc)
    initialize()


_PRELOADED = ("cython_blas", "cython_lapack")


def _preload_scipy_lapack() -> None:
    """Import SciPy's ``linalg.cython_blas`` and ``linalg.cython_lapack`` extension modules
    from their files, under their own names, without running ``scipy.linalg``'s package
    (:func:`_initialize_lapack`). Nothing where ``scipy.linalg`` is already imported."""
    if "scipy.linalg" in sys.modules or any(isinstance(f, _BindPreloaded)
                                            for f in sys.meta_path):
        return
    import scipy

    folders = [os.path.join(folder, "linalg") for folder in scipy.__path__]
    finder = importlib.machinery.FileFinder(
        folders[0], (importlib.machinery.ExtensionFileLoader,
                     importlib.machinery.EXTENSION_SUFFIXES))
    for name in _PRELOADED:
        spec = finder.find_spec(f"scipy.linalg.{name}")
        if spec is None or spec.loader is None:
            raise ImportError(f"no {name} extension in {folders[0]}")
        if spec.name in sys.modules:
            continue
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[spec.name]
            raise
        if not any(isinstance(f, _BindPreloaded) for f in sys.meta_path):
            sys.meta_path.insert(0, _BindPreloaded())


class _BindPreloaded(importlib.abc.MetaPathFinder):
    """Waits for ``import scipy.linalg`` after :func:`_preload_scipy_lapack`, then sets the
    preloaded modules as the package's attributes, as importing them through the package
    would have (``scipy.linalg.cython_lapack``); it leaves ``sys.meta_path`` at that import.
    It finds nothing itself: the package is found and loaded by the finders after it."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "scipy.linalg":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        loader = spec.loader
        run_package = loader.exec_module

        def exec_module(module):
            run_package(module)
            for name in _PRELOADED:
                child = sys.modules.get(f"{fullname}.{name}")
                if child is not None and not hasattr(module, name):
                    setattr(module, name, child)
        loader.exec_module = exec_module      # type: ignore[method-assign]  # this spec's own
        return spec


# --- the key's environment ----------------------------------------------------------------

def _environment() -> tuple:
    import jaxlib.version as jaxlib_version

    config = jax.config
    settings = tuple((name, repr(getattr(config, name, None))) for name in (
        "jax_enable_x64", "jax_default_matmul_precision", "jax_numpy_rank_promotion",
        "jax_debug_nans", "jax_debug_infs", "jax_enable_checks", "jax_default_prng_impl",
        "jax_numpy_dtype_promotion"))
    device = jax.devices()[0]
    return (sys.version, platform.machine(), _cpu_identity(), jax.__version__,
            jaxlib_version.__version__, device.platform, getattr(device, "device_kind", ""),
            settings, os.environ.get("XLA_FLAGS", ""))


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


@functools.cache
def _tidy(directory: Path) -> None:
    """Once per directory and process: delete the StableHLO files (``*.jaxexport``) of the
    store's first version, which no version reads any more, and temporary files older than
    a day (left by a process killed while writing)."""
    for old in directory.glob("*.jaxexport"):
        with contextlib.suppress(OSError):
            old.unlink()
    now = time.time()
    for tmp in directory.glob(f".*{_SUFFIX}.*.tmp"):
        with contextlib.suppress(OSError):
            if now - tmp.stat().st_mtime > _STALE_TMP_SECONDS:
                tmp.unlink()
