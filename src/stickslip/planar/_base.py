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
from typing import Any, ClassVar

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from ..errors import ParameterError

__all__ = ["AbstractElement", "evolve", "group_key", "host_array", "nonnegative_number", "stack",
           "unstack_like"]


def host_array(value) -> jax.Array:
    """`value` (numbers, NumPy data or a JAX array) as a float64 JAX array, copied to the
    device without compiling anything: ``jnp.asarray`` of host data compiles a small
    conversion program per shape, which a new process pays at model build (a few ms each).
    Tracers pass through unchanged."""
    if isinstance(value, jax.core.Tracer):
        return jnp.asarray(value, dtype=float)
    return jax.device_put(np.asarray(value, dtype=np.float64))


def evolve(module: eqx.Module, **changes: Any) -> eqx.Module:
    """A copy of `module` with the named fields replaced — static fields (bodies, name)
    included, which ``eqx.tree_at`` cannot reach. Like ``dataclasses.replace`` but without
    calling ``__init__`` again (its arguments are not the fields); the module itself is
    not modified."""
    unknown = set(changes) - {f.name for f in dataclasses.fields(module)}
    if unknown:
        raise TypeError(f"{type(module).__name__} has no field(s) {sorted(unknown)}")
    new = object.__new__(type(module))
    for f in dataclasses.fields(module):
        object.__setattr__(new, f.name, changes.get(f.name, getattr(module, f.name)))
    return new


class AbstractElement(eqx.Module):
    """Base of joints, drivers, force elements, frictions and stops.

    ``prefix`` (class variable) names unnamed elements (``revolute1``);
    ``config_fields`` (class variable) lists the non-array fields that change what the
    traced functions compute (a driver's motion, a gear's ``internal`` flag): elements
    that differ in them are never evaluated as one group.
    """

    prefix: ClassVar[str] = "element"
    config_fields: ClassVar[tuple[str, ...]] = ()
    name: eqx.AbstractVar[str | None]

    @property
    def owner(self) -> str:
        return self.name or type(self).__name__


def _arrays(element):
    return jax.tree.leaves(eqx.filter(element, eqx.is_array))


def group_key(element: AbstractElement):
    """Elements with equal keys share one vmapped evaluation: same class, same static
    configuration (``config_fields``), same kinds of sub-modules and same array shapes.
    (Names and bodies are static fields that differ between members; they are not read by
    the traced functions.)"""
    config = tuple(getattr(element, f) for f in type(element).config_fields)
    kinds = tuple(type(getattr(element, f.name)) for f in dataclasses.fields(element)
                  if not f.metadata.get("static", False))
    shapes = tuple(jnp.shape(x) for x in _arrays(element))
    return (type(element), config, kinds, shapes)


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


def nonnegative_number(owner: str, name: str, value, unit: str) -> jnp.ndarray:
    """`value` as a JAX scalar, or a ParameterError naming `owner.name` unless it is a finite
    number >= 0 [unit] (host side, at construction)."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        v = float("nan")
    if not (np.isfinite(v) and v >= 0):
        raise ParameterError(f"`{owner}.{name}` must be a finite number >= 0 [{unit}]; got "
                             f"{name}={value!r}.")
    return host_array(v)
