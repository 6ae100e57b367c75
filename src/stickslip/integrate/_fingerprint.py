"""A stable fingerprint of everything a trace reads that is not an array.

A compiled run is fixed by the *static* part of a system (its classes, static fields,
user callables, topology), the shapes and dtypes of its arrays, and the code that traces it.
Inside one process `jax.jit` tells two static parts apart with ``__eq__``/``__hash__``;
across processes (:mod:`._program_store`) we need the same distinction as a string. This
module computes it, and refuses when it cannot be sure:

* numbers, strings, bytes, None, ``...``; tuples, lists, dicts, sets, slices, ranges — by
  value;
* NumPy/JAX arrays — dtype, shape and a hash of the bytes (as abstract ``(shape, dtype)``
  where the caller passes the traced side, see ``arrays=``);
* dataclasses and equinox modules — their class and every field, recursively;
* objects that define ``__stickslip_key__()`` — their class and that key (for classes whose
  ``__eq__`` compares a key, such as a planar ``Body`` compared by name: the fingerprint must
  separate at least what ``__eq__`` separates);
* classes, functions and objects of stickslip, JAX, NumPy, equinox, SciPy and the standard
  library named by module and qualified name (their code is pinned by the versions that
  :mod:`._program_store` adds to the key);
* other functions (a user's force or driver callable, a lambda) — by their code: byte code,
  constants, names, defaults, closure cells and the module globals the code names, each
  fingerprinted in turn; other classes — by their methods and class attributes.

Anything else — an instance of a class outside those packages without
``__stickslip_key__``, a user module referenced from a callable, a generator — raises
:class:`Unfingerprintable`, and the caller falls back to tracing (never to a guess).
"""

from __future__ import annotations

import ast
import dataclasses
import enum
import functools
import hashlib
import re
import sys
import types
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["Unfingerprintable", "changed_constants", "code_versions", "fingerprint",
           "source_hash"]

# the packages whose code computes a run or its analysis, by version: a new version may
# compute other numbers from the same user code (jax, jaxlib, equinox, diffrax: the traced
# program; numpy: the analyses on the host) — and every other package of `_PINNED` whose
# functions a fingerprint names instead of walking
_VERSIONED = ("jax", "jaxlib", "equinox", "diffrax", "numpy", "scipy", "lineax",
              "optimistix")

# packages whose code is pinned by the versions in the store key (stickslip by a hash of its
# source): their classes and functions are named, not walked
_PINNED = frozenset({
    "stickslip", "jax", "jaxlib", "numpy", "equinox", "scipy", "diffrax", "lineax",
    "optimistix", "builtins", "math", "cmath", "functools", "operator", "itertools",
    "collections", "typing", "abc", "enum", "numbers", "dataclasses", "types", "_operator",
    "_functools", "warnings",
})

# class attributes that do not change what a class's instances compute
_CLASS_NOISE = frozenset({
    "__dict__", "__weakref__", "__doc__", "__module__", "__qualname__", "__annotations__",
    "__dataclass_fields__", "__dataclass_params__", "__match_args__", "__slots__",
    "__parameters__", "__orig_bases__", "__abstractmethods__", "_abc_impl",
    "__firstlineno__", "__static_attributes__", "__type_params__",
    "__annotate_func__", "__annotations_cache__",
})

_SCALARS = (type(None), bool, int, float, complex, str, bytes, type(Ellipsis),
            type(NotImplemented))


class Unfingerprintable(Exception):
    """The static part contains something whose meaning a fingerprint cannot pin."""


def fingerprint(obj, *, arrays: str = "values") -> str:
    """A hex digest that is equal for two objects that trace to the same program.

    arrays: ``"values"`` hashes array contents (static data baked into a program);
    ``"abstract"`` keeps only shape and dtype (the traced side of a system).
    Raises :class:`Unfingerprintable` (see the module docstring).
    """
    walker = _Walker(abstract_arrays=(arrays == "abstract"))
    canonical = walker.walk(obj)
    return hashlib.sha256(repr(canonical).encode()).hexdigest()


def code_versions() -> dict[str, str]:
    """What pins the code this module names instead of walking (see the module docstring):
    stickslip's version and a hash of its source files, and the versions of the packages in
    ``_VERSIONED``. Read at every call (a package's ``__version__`` where it is imported, so
    a test can change one), except the source hash (once per process); with the module
    constants changed at run time (:func:`changed_constants`)."""
    from .._version import __version__

    versions = {"stickslip": __version__, "stickslip source": source_hash()}
    for name in _VERSIONED:
        versions[name] = _version(name)
    changed = changed_constants()
    if changed:                    # absent when none is: the keys of plain runs stay as they were
        versions["stickslip constants"] = repr(changed)
    return versions


def _version(name: str) -> str:
    module = sys.modules.get(name)
    version = getattr(module, "__version__", None)
    return str(version) if version is not None else _installed_version(name)


@functools.cache
def _installed_version(name: str) -> str:
    """The version of a package that is not imported, without importing it: from the name
    of its ``*.dist-info`` directory beside it (a few ms for all of `_VERSIONED`; a plain
    ``importlib.metadata.version`` scans every distribution: ~90 ms, on every start of a
    process that uses the program store), else from the metadata."""
    import importlib.util
    from importlib import metadata

    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        spec = None
    if spec is None:
        return "not installed"
    if spec.origin:
        found = sorted(Path(spec.origin).parent.parent.glob(f"{name}-*.dist-info"))
        if len(found) == 1:
            return found[0].name[len(name) + 1:-len(".dist-info")]
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "unknown"


def source_hash() -> str:
    """A hash of every stickslip source file (its path and bytes)."""
    return _source()[0]


# a module-level constant: an upper-case name (a leading underscore allowed) given a literal
_CONSTANT = re.compile(r"^(_?[A-Z][A-Z0-9_]*)[ \t]*(?::[^=\n]*)?=[ \t]*([^#\n]+?)[ \t]*(?:#.*)?$",
                       re.MULTILINE)
_LITERALS = (int, float, str, bool, bytes, tuple, complex)


@functools.lru_cache(maxsize=1)
def _source() -> tuple[str, dict[str, dict[str, Any]]]:
    """(The source hash, the literal module constants of each module by its name), in one
    pass over the files (once per process)."""
    root = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256()
    constants: dict[str, dict[str, Any]] = {}
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root)
        text = path.read_bytes()
        digest.update(str(relative).encode())
        digest.update(text)
        parts = (root.name,) + relative.with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found = {}
        for match in _CONSTANT.finditer(text.decode("utf-8", "replace")):
            try:
                value = ast.literal_eval(match[2])
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                continue                         # not a literal (an expression, a call)
            if isinstance(value, _LITERALS):
                found[match[1]] = value
        if found:
            constants[module] = found
    return digest.hexdigest(), constants


def changed_constants() -> tuple:
    """The module constants of stickslip that differ in this process from their literal in
    the source: ``((module, name, repr(value)), ...)``, sorted; empty when none does.

    A trace reads module constants — a threshold that picks a factorisation
    (``spatial._link_dynamics.BLOCK_ROWS``), the number of proximal solves — and bakes their
    values into the program. The source hash pins the values written in the files; a value
    set at run time (a benchmark's route table, a test forcing a route) is not in it, so the
    program store would hand out a program traced with the other value. Only constants that
    differ enter the key: a process that changes none has the same keys whichever modules
    it imported. A constant set to something that is not a plain literal raises
    :class:`Unfingerprintable` (the store then traces and compiles; it never guesses)."""
    changed = []
    for name, constants in _source()[1].items():
        module = sys.modules.get(name)
        if module is None:
            continue
        for constant, literal in constants.items():
            value = module.__dict__.get(constant, _Missing)
            if value is _Missing:
                continue
            try:                       # a literal's own value, or a tuple holding arrays
                plain = ast.literal_eval(repr(value)) == value
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                plain = False
            if not (isinstance(value, _LITERALS) and plain):
                raise Unfingerprintable(f"{name}.{constant} was set to a "
                                        f"{type(value).__name__}, not a literal")
            if type(value) is type(literal) and value == literal:
                continue
            changed.append((name, constant, repr(value)))
    return tuple(sorted(changed))


def _pinned(module) -> bool:
    return isinstance(module, str) and module.split(".")[0] in _PINNED


def _named(obj) -> bool:
    """A top-level object of a pinned package, reachable by module and qualified name."""
    qualname = getattr(obj, "__qualname__", None)
    return (_pinned(getattr(obj, "__module__", None)) and isinstance(qualname, str)
            and "<locals>" not in qualname and "<lambda>" not in qualname)


class _Walker:
    def __init__(self, abstract_arrays: bool):
        self.abstract = abstract_arrays
        self.active: dict[int, int] = {}          # id → position, for cycles (recursion)

    def walk(self, obj: Any):
        if type(obj) in _SCALARS:
            return (type(obj).__name__, repr(obj))
        if obj is _Missing:
            return ("missing",)
        key = id(obj)
        if key in self.active:
            return ("cycle", self.active[key])
        self.active[key] = len(self.active)
        try:
            return self._walk(obj)
        finally:
            del self.active[key]

    def _walk(self, obj: Any):
        if isinstance(obj, np.generic):
            return ("np-scalar", obj.dtype.str, obj.tobytes())
        if isinstance(obj, np.ndarray) or _is_jax_array(obj):
            return self._array(obj)
        if isinstance(obj, enum.Enum):
            return ("enum", self.walk(type(obj)), obj.name)
        if isinstance(obj, type):
            return self._class(obj)
        if hasattr(type(obj), "__stickslip_key__"):          # (a class returned above)
            return ("keyed", self.walk(type(obj)), self.walk(obj.__stickslip_key__()))
        if issubclass(type(obj), tuple) and hasattr(type(obj), "_fields"):    # namedtuple
            return ("namedtuple", self.walk(type(obj)), tuple(self.walk(v) for v in obj))
        if type(obj) in (slice, range):                    # x[..., 1:], range(3)
            return (type(obj).__name__, self.walk(obj.start), self.walk(obj.stop),
                    self.walk(obj.step))
        if type(obj) in (tuple, list):
            return (type(obj).__name__, tuple(self.walk(v) for v in obj))
        if type(obj) is dict:
            items = [(self.walk(k), self.walk(v)) for k, v in obj.items()]
            return ("dict", tuple(sorted(items, key=repr)))
        if type(obj) in (set, frozenset):
            return ("set", tuple(sorted((self.walk(v) for v in obj), key=repr)))
        if dataclasses.is_dataclass(obj):                 # equinox modules are dataclasses
            fields = tuple((f.name, self.walk(getattr(obj, f.name, _Missing)))
                           for f in dataclasses.fields(obj))
            return ("dataclass", self.walk(type(obj)), fields)
        if isinstance(obj, types.FunctionType):
            return self._function(obj)
        if isinstance(obj, types.MethodType):
            return ("method", self.walk(obj.__func__), self.walk(obj.__self__))
        if isinstance(obj, functools.partial):
            return ("partial", self.walk(obj.func), self.walk(obj.args),
                    self.walk(obj.keywords))
        if isinstance(obj, (staticmethod, classmethod)):
            return (type(obj).__name__, self.walk(obj.__func__))
        if isinstance(obj, property):
            return ("property", self.walk(obj.fget), self.walk(obj.fset))
        if isinstance(obj, types.ModuleType):
            if _pinned(obj.__name__):
                return ("module", obj.__name__)
            raise Unfingerprintable(f"a callable refers to module {obj.__name__!r}")
        if isinstance(obj, np.ufunc):
            return ("ufunc", obj.__name__)
        if _named(obj):                 # builtins, jitted library functions, singletons
            return ("named", obj.__module__, obj.__qualname__)
        if _pinned(type(obj).__module__) and hasattr(obj, "method") and \
                type(obj).__module__.startswith("equinox"):
            return ("eqx-method", self.walk(obj.method))        # equinox's method wrapper
        raise Unfingerprintable(f"{type(obj).__module__}.{type(obj).__qualname__} "
                                f"object {obj!r:.80}")

    def _array(self, obj):
        array = np.asarray(obj)
        if self.abstract:
            return ("array", array.dtype.str, array.shape)
        return ("array", array.dtype.str, array.shape,
                hashlib.sha256(np.ascontiguousarray(array).tobytes()).hexdigest())

    def _class(self, cls: type):
        if _named(cls):
            return ("class", cls.__module__, cls.__qualname__)
        body = []
        for name, value in sorted(vars(cls).items()):
            if name in _CLASS_NOISE:
                continue
            body.append((name, self.walk(value)))
        return ("user-class", cls.__module__, cls.__qualname__,
                tuple(self.walk(b) for b in cls.__bases__), tuple(body))

    def _function(self, fn: types.FunctionType):
        if _named(fn):
            return ("function", fn.__module__, fn.__qualname__)
        code = fn.__code__
        cells = tuple(self.walk(_cell_value(c)) for c in (fn.__closure__ or ()))
        names = _global_names(code)
        used = tuple((n, self.walk(fn.__globals__[n])) for n in sorted(names)
                     if n in fn.__globals__)
        return ("code", self._code(code), self.walk(fn.__defaults__),
                self.walk(fn.__kwdefaults__), cells, used)

    def _code(self, code: types.CodeType):
        consts = tuple(self._code(c) if isinstance(c, types.CodeType) else self.walk(c)
                       for c in code.co_consts)
        return (code.co_code, consts, code.co_names, code.co_varnames, code.co_freevars,
                code.co_cellvars, code.co_argcount, code.co_kwonlyargcount, code.co_flags)


class _MissingType:
    def __repr__(self):
        return "<missing>"


_Missing = _MissingType()


def _is_jax_array(obj) -> bool:
    module = type(obj).__module__
    return (module.startswith("jaxlib") or module.startswith("jax")) and \
        hasattr(obj, "shape") and hasattr(obj, "dtype") and hasattr(obj, "__array__")


def _cell_value(cell):
    try:
        return cell.cell_contents
    except ValueError:                       # an empty cell (a name assigned later)
        return "<empty cell>"


def _global_names(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _global_names(const)
    return names
