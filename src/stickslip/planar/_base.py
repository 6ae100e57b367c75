"""What every planar element shares: an immutable ``equinox.Module`` whose array fields are
traced parameters and whose other fields (bodies, name, callables, flags) are static.

Elements are built by the user unbound (bodies given as objects or names, points as
coordinates or names) and bound by :meth:`Model.add`, which returns a *new* element with
resolved bodies, points as arrays, reference constants frozen from the current poses and a
name (:func:`evolve`). Nothing is edited in place.

In a :class:`~stickslip.planar.PlanarSystem` the elements are pytree leaves of the system:
their arrays are traced (so a parameter change does not recompile, and geometry can be
``vmap``ped and differentiated), and elements of one class with equal ``config_fields``
and array structure form a group evaluated by one ``vmap`` (:func:`group_key`,
:func:`stack`) — MJX's "group by type".
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar, TypeVar

import equinox as eqx
import jax
import jax.core  # jax.core.Tracer below (a submodule: named for static checkers)
import jax.numpy as jnp
import numpy as np

from .._parameters import AbstractParametrised
from .._rules import evolve as _evolve

__all__ = ["AbstractElement", "evolve", "group_key", "host_array", "parameter_array", "stack",
           "unit_direction", "unstack_like"]

_M = TypeVar("_M", bound=eqx.Module)    # evolve returns a copy of its argument's class


def host_array(value) -> jax.Array:
    """`value` (numbers, NumPy data or a JAX array) as a float64 JAX array, copied to the
    device without compiling anything: ``jnp.asarray`` of host data compiles a small
    conversion program per shape, which a new process pays at model build (a few ms each).
    Tracers pass through unchanged."""
    if isinstance(value, jax.core.Tracer):
        return jnp.asarray(value, dtype=float)
    return jax.device_put(np.asarray(value, dtype=np.float64))


def parameter_array(value: Any) -> Any:
    """A parameter as the element stores it: numbers and arrays of numbers as float64 JAX
    arrays (:func:`host_array`); anything else — None, a string, a callable, an object —
    unchanged, so that the element's ``parameter_rules`` (checked in ``__check_init__``)
    say what is wrong with it, by name."""
    if isinstance(value, jax.core.Tracer):
        return host_array(value)
    if value is None or isinstance(value, (str, bytes)) or (
            callable(value) and not hasattr(value, "shape")):
        return value
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        return value
    return host_array(arr)


def unit_direction(value: Any) -> Any:
    """A direction as the element stores it: a finite non-zero vector divided by its norm
    (a float64 JAX array); anything else unchanged, for the ``"direction"`` rule to reject
    by name (a zero vector, NaN, the wrong shape)."""
    arr = parameter_array(value)
    if not isinstance(arr, jax.Array) or isinstance(arr, jax.core.Tracer):
        return arr
    host = np.asarray(arr)
    if host.ndim != 1 or not np.all(np.isfinite(host)) or not np.any(host):
        return arr
    host = host / np.max(np.abs(host))        # first: the norm of (1e308, 1e308) overflows
    return host_array(host / np.linalg.norm(host))


def evolve(module: _M, **changes: Any) -> _M:
    """A copy of `module` with the named fields replaced — static fields (bodies, name)
    included, which ``eqx.tree_at`` cannot reach — checked as the constructor checks it.

    Like ``dataclasses.replace`` but without calling ``__init__`` again (its arguments are
    not the fields); every ``__check_init__`` of the class runs on the copy (the
    element's ``parameter_rules``, as equinox runs them after ``__init__``), so
    ``evolve(joint, pin_radius=-1.0)`` raises the constructor's ParameterError. The module
    itself is not modified. (:func:`stickslip._rules.evolve`, shared with the spatial
    elements.)

    Parameters
    ----------
    module : equinox.Module
        The element (or law) to copy.
    **changes
        Field name → new value (numbers are stored as given: pass arrays where the
        element stores arrays).

    Returns
    -------
    equinox.Module
        The checked copy (of the same class as `module`).

    Raises
    ------
    TypeError
        An unknown field name.
    ParameterError
        A new value breaks the element's rules (named ``Owner.field``).
    """
    return _evolve(module, **changes)


class AbstractElement(AbstractParametrised):
    """Base of joints, drivers, force elements, frictions and stops.

    ``prefix`` (class variable) names unnamed elements (``revolute1``);
    ``config_fields`` (class variable) lists the non-array fields that change what the
    traced functions compute (a driver's motion, a gear's ``internal`` flag): elements
    that differ in them are never evaluated as one group.

    Parameters follow the package's one validation dialect
    (:class:`~stickslip._parameters.AbstractParametrised`): a final class declares
    ``parameter_rules = {field: Rule}`` as data, checked in ``__check_init__`` at
    construction and again by :func:`evolve`; ``__init__`` only converts (numbers to arrays
    with :func:`parameter_array`, directions with :func:`unit_direction`). Messages name the
    element by its ``name``, else its class. Each final class has an ``example()``
    classmethod returning a valid unbound instance (tests/test_every_element_conformance.py).
    """

    prefix: ClassVar[str] = "element"
    config_fields: ClassVar[tuple[str, ...]] = ()
    name: eqx.AbstractVar[str | None]

    @property
    def owner(self) -> str:
        return self.name or type(self).__name__

    def parameter_owner(self) -> str:
        """Messages name the element: its ``name``, else its class."""
        return self.owner

    def parameter_text(self) -> str:
        """``field=value, …`` over the fields with a rule (for ``repr``): numbers as
        numbers, short vectors as tuples, named points by name — then the laws it holds
        (a joint's ``friction``, a stop's ``law``) by their own repr; None left out."""
        parts = [f"{field}={_shown(getattr(self, field))}"
                 for field in type(self).parameter_rules if getattr(self, field) is not None]
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if isinstance(value, AbstractParametrised) and not isinstance(value,
                                                                          AbstractElement):
                parts.append(f"{f.name}={value!r}")
        return ", ".join(parts)


def _shown(value: Any) -> str:
    if isinstance(value, jax.core.Tracer):
        return "traced"
    if isinstance(value, str):
        return repr(value)
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return type(value).__name__
    if arr.ndim == 0:
        return f"{float(arr):g}"
    if arr.size <= 4:
        return "(" + ", ".join(f"{x:g}" for x in arr.ravel()) + ")"
    return f"array{arr.shape}"


def _arrays(element):
    return jax.tree.leaves(eqx.filter(element, eqx.is_array))


def group_key(element: AbstractElement):
    """Elements with equal keys share one vmapped evaluation: same class, same static
    configuration (``config_fields``), same kinds of sub-modules and same array shapes.
    (Names and bodies are static fields that differ between members; they are not read by
    the traced functions.)"""
    config = tuple(_without_arrays(getattr(element, f)) for f in type(element).config_fields)
    kinds = tuple(type(getattr(element, f.name)) for f in dataclasses.fields(element)
                  if not f.metadata.get("static", False))
    shapes = tuple(jnp.shape(x) for x in _arrays(element))
    return (type(element), config, kinds, shapes)


def _without_arrays(value):
    """A configuration value as the key sees it: a callable module (a force's
    ``ConstantLoad``) without its arrays, which are traced data like the element's own."""
    if isinstance(value, eqx.Module):
        return eqx.filter(value, eqx.is_array, inverse=True)
    return value


def stack(elements) -> eqx.Module:
    """The first element with each array field replaced by the members' values stacked
    along a new leading axis — for ``jax.vmap`` over a group (equal `group_key`)."""
    first = eqx.filter(elements[0], eqx.is_array)
    columns = zip(*[_arrays(e) for e in elements])
    stacked = jax.tree.unflatten(jax.tree.structure(first),
                                 [_stacked(c) for c in columns])
    return eqx.combine(stacked, eqx.filter(elements[0], eqx.is_array, inverse=True))


def _stacked(values) -> jax.Array:
    if any(isinstance(x, jax.core.Tracer) for x in values):
        return jnp.stack([jnp.asarray(x) for x in values])
    return jax.device_put(np.stack([np.asarray(x) for x in values]))      # no compile


def unstack_like(stacked, k: int):
    """Member `k` of a stacked group."""
    return jax.tree.map(lambda x: x[k] if eqx.is_array(x) else x, stacked)
