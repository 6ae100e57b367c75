"""Checks of concrete parameter values, shared by every law, system and host.

Each check names the owner and the parameter, shows the value, and says how to fix it
(one message form for the whole package). Traced values (inside ``jit``/``vmap``/``grad``)
are skipped: they cannot be inspected, and they were checked when first built.

Rules declared as data (``parameter_rules``) and the shared rule for each quantity live in
:mod:`stickslip._parameters`; these functions are the checks those rules run, kept callable
on their own (same names and signatures) for code that validates by hand.
"""

from __future__ import annotations

import os
import sys
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from .errors import ImplausibleParameterWarning, ParameterError

if TYPE_CHECKING:
    from collections.abc import Callable

    import jax

__all__ = [
    "check_at_most",
    "check_direction",
    "check_finite",
    "check_finite_matrix",
    "check_in_range",
    "check_nonnegative",
    "check_plausible",
    "check_positive",
    "check_scalar",
    "check_shape",
    "check_time_function",
    "check_traceable",
    "concrete",
    "is_traced",
    "keyword_alias",
    "warn_renamed",
]


def is_traced(value: Any) -> bool:
    """True when `value` is (or contains) a JAX tracer, i.e. it cannot be checked now.
    (JAX is not imported here: with no JAX loaded, nothing is traced — ``ss.spatial`` starts
    without it.)"""
    jax = sys.modules.get("jax")
    if jax is None or not hasattr(jax, "tree"):
        return False
    return any(isinstance(leaf, jax.core.Tracer) for leaf in jax.tree.leaves(value))


def concrete(value: Any) -> np.ndarray | None:
    """`value` as a NumPy array, or None when it is traced or None."""
    if value is None or is_traced(value):
        return None
    return np.asarray(value)


def _numeric(owner: str, name: str, value: Any, hint: str) -> np.ndarray | None:
    """`value` as a float array for checking (None when traced/None); a ParameterError
    naming the parameter when it is not a number (a string, a callable, an object)."""
    if value is None or is_traced(value):
        return None
    if isinstance(value, (str, bytes)) or (callable(value) and not hasattr(value, "shape")):
        shown = repr(value) if isinstance(value, (str, bytes)) else type(value).__name__
        raise ParameterError(f"`{owner}.{name}` must be a number; got {shown}."
                             + (f" {hint}" if hint else f" Pass {name} as a float."))
    try:
        arr = np.asarray(value)
        if arr.dtype.kind not in "biufc":       # numbers keep their dtype (complex too)
            arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ParameterError(f"`{owner}.{name}` must be a number or an array of numbers; got "
                             f"{type(value).__name__} ({exc})."
                             + (f" {hint}" if hint else "")) from None
    return arr


def _show(value: np.ndarray) -> str:
    if value.ndim == 0:
        return repr(float(value)) if np.issubdtype(value.dtype, np.number) else repr(value)
    return np.array2string(value, threshold=6, precision=6)


def _in_unit(unit: str) -> str:
    return f" [{unit}]" if unit else ""


def check_finite(owner: str, name: str, value: Any, hint: str = "", unit: str = "") -> None:
    """Raise `ParameterError` if `value` contains NaN or infinity (or is not a number);
    `unit` (e.g. ``"m"``) is shown after the condition."""
    arr = _numeric(owner, name, value, hint)
    if arr is None:
        return
    if not np.all(np.isfinite(arr)):
        raise ParameterError(
            f"`{owner}.{name}` must be finite{_in_unit(unit)}; got {name}={_show(arr)}."
            + (f" {hint}" if hint else " Pass a finite number.")
        )


def check_positive(owner: str, name: str, value: Any, hint: str = "", unit: str = "") -> None:
    """Raise `ParameterError` unless every element of `value` is finite and > 0."""
    check_finite(owner, name, value, hint, unit)
    arr = concrete(value)
    if arr is not None and not np.all(arr > 0):
        raise ParameterError(
            f"`{owner}.{name}` must be > 0{_in_unit(unit)}; got {name}={_show(arr)}."
            + (f" {hint}" if hint else " Pass a positive value.")
        )


def check_nonnegative(owner: str, name: str, value: Any, hint: str = "",
                      unit: str = "") -> None:
    """Raise `ParameterError` unless every element of `value` is finite and >= 0."""
    check_finite(owner, name, value, hint, unit)
    arr = concrete(value)
    if arr is not None and not np.all(arr >= 0):
        raise ParameterError(
            f"`{owner}.{name}` must be >= 0{_in_unit(unit)}; got {name}={_show(arr)}."
            + (f" {hint}" if hint else " Pass zero or a positive value.")
        )


def check_in_range(owner: str, name: str, value: Any, bounds: tuple[float, float],
                   hint: str = "", unit: str = "") -> None:
    """Raise `ParameterError` unless every element of `value` lies in the closed interval
    ``bounds = (low, high)`` (a range that must hold, unlike :func:`check_plausible`)."""
    check_finite(owner, name, value, hint, unit)
    arr = concrete(value)
    low, high = bounds
    if arr is not None and not np.all((arr >= low) & (arr <= high)):
        raise ParameterError(
            f"`{owner}.{name}` must be in [{low:g}, {high:g}]{_in_unit(unit)}; got "
            f"{name}={_show(arr)}." + (f" {hint}" if hint else
                                       f" Pass a value between {low:g} and {high:g}.")
        )


def check_direction(owner: str, name: str, value: Any, hint: str = "") -> None:
    """Raise `ParameterError` unless `value` is a finite direction of norm 1 (a zero vector
    has no direction; constructors normalise a non-zero one before this check, so a
    non-unit value means it was set directly, e.g. by ``evolve``)."""
    check_finite(owner, name, value, hint)
    arr = concrete(value)
    if arr is None or arr.ndim != 1:
        return
    arr = np.asarray(arr, dtype=float)
    scale = float(np.max(np.abs(arr))) if arr.size else 0.0
    norm = scale * float(np.linalg.norm(arr / scale)) if scale > 0 else 0.0   # no overflow
    example = "(" + ", ".join(["1.0"] + ["0.0"] * (arr.size - 1)) + ")"
    if norm == 0.0:
        raise ParameterError(
            f"`{owner}.{name}` must be a non-zero direction; got {name}={_show(arr)}."
            + (f" {hint}" if hint else f" Pass e.g. {name}={example}."))
    if abs(norm - 1.0) > 1e-9:
        raise ParameterError(
            f"`{owner}.{name}` must be a unit direction (norm 1); got {name}={_show(arr)} of "
            f"norm {norm:g}. Pass it divided by its norm (the constructor normalises it; "
            "a copy made with evolve does not)." + (f" {hint}" if hint else ""))


def check_at_most(owner: str, name: str, value: Any, other_name: str, other: Any,
                  hint: str) -> None:
    """Raise `ParameterError` unless `value <= other` element-wise."""
    a, b = concrete(value), concrete(other)
    if a is None or b is None:
        return
    if not np.all(a <= b):
        raise ParameterError(
            f"`{owner}.{name}` must be <= `{owner}.{other_name}`; "
            f"got {name}={_show(a)}, {other_name}={_show(b)}. {hint}"
        )


def check_plausible(owner: str, name: str, value: Any, plausible: tuple[float, float],
                    usual: str = "") -> None:
    """Warn (:class:`~stickslip.errors.ImplausibleParameterWarning`) when a concrete `value`
    lies outside the physically `plausible` range ``(low, high)``; the value stays valid.

    The message names the parameter, the value, the range, what is `usual` ("a friction
    coefficient is usually 0–1.5") and the likely slip: a value well above the range (≥ 2.5
    × high) that is in range once divided by 100 looks like a percentage. Traced,
    non-numeric and non-finite values are skipped (the other checks report those).

    >>> import textwrap, warnings
    >>> from stickslip._validation import check_plausible
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     check_plausible("Belt", "mu", 50, (0.0, 2.0),
    ...                     usual="a friction coefficient is usually 0–1.5")
    >>> print(textwrap.fill(str(caught[0].message), 80))
    `Belt.mu`=50 is outside the plausible range [0, 2]: 50 looks like a percentage;
    a friction coefficient is usually 0–1.5: did you mean 0.5? The value is used as
    given.
    """
    arr = concrete(value)
    if arr is None or arr.dtype.kind not in "biuf" or arr.size == 0:
        return
    arr = np.asarray(arr, dtype=float)
    low, high = plausible
    outside = np.isfinite(arr) & ((arr < low) | (arr > high))
    if not outside.any():
        return
    bad = float(arr[outside].flat[0])
    where = "" if arr.ndim == 0 else f"[{', '.join(map(str, np.argwhere(outside)[0]))}]"
    usual = usual or f"`{name}` is usually in [{low:g}, {high:g}]"
    if bad >= 2.5 * high and low <= bad / 100 <= high:
        slip = f"{bad:g} looks like a percentage; {usual}: did you mean {bad / 100:g}?"
    else:
        slip = f"{usual}. Check the value and its unit."
    warnings.warn(f"`{owner}.{name}`{where}={bad:g} is outside the plausible range "
                  f"[{low:g}, {high:g}]: {slip} The value is used as given.",
                  ImplausibleParameterWarning, stacklevel=_user_stacklevel())


def warn_renamed(old: str, new: str) -> None:
    """Warn (``DeprecationWarning``, at the user's line) that the spelling `old` is replaced by
    `new`; both are shown as written (``"`LuGre(mus=...)`"``, ``"`mu_s=...`"``).

    >>> import textwrap, warnings
    >>> from stickslip._validation import warn_renamed
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_renamed("`LuGre(mus=...)`", "`mu_s=...`")
    >>> print(textwrap.fill(str(caught[0].message), 80))
    `LuGre(mus=...)` is deprecated; use `mu_s=...` instead (the same quantity:
    friction parameters are named mu_s, static, and mu_k, kinetic, on every
    element).
    """
    warnings.warn(f"{old} is deprecated; use {new} instead (the same quantity: friction "
                  "parameters are named mu_s, static, and mu_k, kinetic, on every element).",
                  DeprecationWarning, stacklevel=_user_stacklevel())


def keyword_alias(owner: str, name: str, value: Any, alias: str, alias_value: Any, *,
                  deprecated: bool = False) -> Any:
    """The value of a keyword that has a second spelling: `value` (given as `name`) or
    `alias_value` (given as `alias`); None when neither was given.

    Both given (not None) raises :class:`~stickslip.errors.ParameterError` naming both — even
    when equal, as a typo would be. With ``deprecated=True`` `alias` is an old spelling:
    using it warns (:func:`warn_renamed`) naming `name`; otherwise it is silent (``mu_k`` and
    ``mu`` on a contact).
    """
    if alias_value is None:
        return value
    if value is not None:
        fix = (f" (`{alias}` is its deprecated spelling). Pass only {name}=." if deprecated
               else ". Pass one of them.")
        raise ParameterError(
            f"`{owner}` got both `{name}`={_brief(value)} and `{alias}`={_brief(alias_value)}, "
            f"two spellings of the same parameter{fix}")
    if deprecated:
        warn_renamed(f"`{owner}({alias}=...)`", f"`{name}=...`")
    return alias_value


def _brief(value: Any) -> str:
    arr = None if isinstance(value, (str, bytes)) else concrete(value)
    if arr is not None and arr.dtype.kind in "biuf":
        return _show(arr)
    return "traced" if is_traced(value) else repr(value)


def _user_stacklevel() -> int:
    """The ``stacklevel`` of the first frame outside stickslip, equinox and JAX (and the
    code dataclasses generate), so a warning points at the user's line."""
    files = (getattr(sys.modules.get(name), "__file__", None)
             for name in ("stickslip", "equinox", "jax", "jaxlib"))
    skip = tuple(os.path.dirname(file) + os.sep for file in files if file)
    frame, level = sys._getframe(2), 2          # 2: the caller of check_plausible
    while frame is not None and (frame.f_code.co_filename.startswith(skip) or (
            frame.f_code.co_filename == "<string>" and frame.f_code.co_name == "__init__")):
        frame, level = frame.f_back, level + 1
    return level if frame is not None else 2


def check_shape(owner: str, name: str, value: Any, shape: tuple[int, ...], hint: str = "",
                unit: str = "") -> None:
    """Raise `ParameterError` unless `value` has exactly `shape` (a number or an array
    of numbers; the message names the shape got and the one expected)."""
    arr = _numeric(owner, name, value, hint)
    if arr is None or arr.shape == tuple(shape):
        return
    what = "a scalar" if shape == () else f"an array of shape {tuple(shape)}"
    raise ParameterError(
        f"`{owner}.{name}` must be {what}{_in_unit(unit)}; got shape {arr.shape} "
        f"({_show(arr)}). " + (hint if hint else f"Pass {what}.")
    )


def check_scalar(owner: str, name: str, value: Any, hint: str = "") -> None:
    """Raise `ParameterError` unless `value` is one number (0-d), not an array.

    A scalar parameter given as an array (``M=[1.0, 2.0]``) would be accepted by the
    constructor and fail deep inside ``jit`` with a shape error; to run many values use
    :func:`stickslip.simulate_batch` with one system per value.
    """
    arr = _numeric(owner, name, value, hint)
    if arr is None or arr.ndim == 0:
        return
    raise ParameterError(
        f"`{owner}.{name}` must be a scalar (one number); got an array of shape {arr.shape} "
        f"({name}={_show(arr)}). Pass one value; to run several values, build one object per "
        "value (e.g. for ss.simulate_batch)." + (f" {hint}" if hint else ""))


def _tracer_errors(jax) -> tuple:
    return tuple(getattr(jax.errors, n) for n in (
        "TracerBoolConversionError", "ConcretizationTypeError", "TracerIntegerConversionError",
        "TracerArrayConversionError") if hasattr(jax.errors, n))


def check_traceable(owner: str, name: str, fn: Any, example_args: tuple,
                    shape: tuple[int, ...] | None = None,
                    signature: str = "t") -> jax.ShapeDtypeStruct:
    """Check at construction that a user callable can run inside ``jit``; return its output.

    The callable is traced once abstractly (``jax.eval_shape``; nothing is computed) with
    `example_args` — e.g. ``(0.0,)`` for a force of time, ``(0.0, 0.0, 0.0)`` for one of
    ``(t, p, v)``. A Python ``if``/``while``/``float()``/``int()`` on its arguments fails
    there exactly as it would inside the simulation, so it is reported now, by name:

        `FrictionMass.force(t)` cannot run inside jit: it uses Python `if` (or bool(),
        float(), int()) on a traced argument. Write branches with jnp.where, e.g. ...

    Parameters
    ----------
    owner, name : str
        The object and argument named in messages (``"FrictionMass"``, ``"force"``).
    fn : callable
        The callable to check. A non-callable raises a `ParameterError`.
    example_args : tuple
        Arguments to trace it with (numbers or arrays; converted to float64).
    shape : tuple of int or None
        The output shape it must have (``()`` a scalar); None: any.
    signature : str
        How to show the call in messages (``"t"``, ``"t, p, v"``).

    Returns
    -------
    jax.ShapeDtypeStruct
        The output's shape and dtype.

    Raises
    ------
    ParameterError
        `fn` is not callable, cannot be traced, fails, or returns the wrong shape.
    """
    import jax
    import jax.numpy as jnp

    call = f"`{owner}.{name}({signature})`"
    if not callable(fn):
        raise ParameterError(
            f"`{owner}.{name}` must be a callable of time ({signature}) written with jax.numpy; got "
            f"{type(fn).__name__}. Pass e.g. `lambda {signature}: 0.5 * jnp.sin(t)`.")
    args = tuple(jnp.asarray(a, dtype=float) for a in example_args)
    try:
        out = jax.eval_shape(lambda *a: jnp.asarray(fn(*a), dtype=float), *args)
    except _tracer_errors(jax) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ParameterError(
            f"{call} cannot run inside jit: it uses a Python `if` (or bool(), float(), int(), "
            f"np.*) on a traced argument ({type(exc).__name__}: {first}). Write branches with "
            f"jnp.where, e.g. `lambda {signature}: jnp.where(t < 1.0, 0.5, 0.0)`, and use "
            "jax.numpy instead of math/numpy.") from None
    except Exception as exc:  # noqa: BLE001 - the user's function failed: say which and why
        raise ParameterError(
            f"{call} failed when called with ({signature}) = "
            f"{tuple(float(np.asarray(a).ravel()[0]) if np.size(a) else a for a in example_args)}"
            f": {exc!r}. It must take ({signature}) and use jax.numpy.") from None
    if shape is not None and tuple(out.shape) != tuple(shape):
        what = "a scalar" if shape == () else f"an array of shape {shape}"
        raise ParameterError(f"{call} must return {what}; got shape {tuple(out.shape)}.")
    return out


def check_finite_matrix(owner: str, name: str, matrix: Any, hint: str = "") -> np.ndarray:
    """Return `matrix` as a float array, or raise `ParameterError` if it has NaN/inf entries.

    For host-side linear algebra (eigenvalues of a step check): NaN/inf there would end in
    ``LinAlgError`` from ``numpy.linalg.eigvals``; this names what produced it instead.
    """
    arr = np.asarray(matrix, dtype=complex if np.iscomplexobj(matrix) else float)
    if not np.all(np.isfinite(arr)):
        raise ParameterError(
            f"`{owner}.{name}` is not finite ({_show(arr)}): a parameter it is built from is "
            "NaN, infinite or zero where it divides." + (f" {hint}" if hint else
                                                         " Check the masses and parameters."))
    return arr


def check_time_function(owner: str, name: str, fn: Callable[..., Any] | None,
                        shape: tuple[int, ...], signature: str = "t",
                        example_args: tuple | None = None) -> None:
    """Check a user callable at construction: it traces under ``jit`` (no Python ``if`` on
    its arguments — :func:`~stickslip._validation.check_traceable`), returns `shape`, and is
    finite when evaluated once on the host at t = 0 (`example_args`, default ``(0.0,)``)."""
    if fn is None:
        return
    import jax.numpy as jnp  # late: this module imports no JAX

    args = (0.0,) if example_args is None else example_args
    check_traceable(owner, name, fn, args, shape=shape, signature=signature)
    try:
        value = fn(*(jnp.asarray(a, dtype=float) for a in args))
        if is_traced(value):   # its parameters are traced (a vmapped or differentiated build)
            return
        value = np.asarray(value)
    except Exception as exc:  # the user's function failed: say which one and why
        raise ParameterError(f"`{owner}.{name}({signature})` failed at t=0: {exc!r}. It must "
                             f"take ({signature}) and use jax.numpy (no float() or if on t)."
                             ) from exc
    if not np.all(np.isfinite(value)):
        raise ParameterError(f"`{owner}.{name}({signature})` returned a non-finite value at "
                             f"t=0: {value}. Make it finite for every t >= 0.")
