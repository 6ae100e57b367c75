"""The fitted parameters of `fit`: where they live in a system (dotted paths, field aliases
and old spellings, the sign rules their owners declare) and how they are kept in range
(:class:`Transform`, log space for positive parameters)."""

from __future__ import annotations

import dataclasses
import math

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from .._validation import warn_renamed
from ..errors import ParameterError

__all__ = ["Transform"]


@dataclasses.dataclass(frozen=True)
class Transform:
    """Map between an unconstrained fit variable u and a parameter θ in [low, high]:
    θ = low + e^u (low only), θ = high − e^u (high only), a logistic between both, or θ = u.
    Positive parameters (the laws' ``parameter_rules``) are fitted in log space this way."""

    low: float | None = None
    high: float | None = None

    def to_parameter(self, u):
        if self.low is not None and self.high is not None:
            return self.low + (self.high - self.low) * jax.nn.sigmoid(u)
        if self.low is not None:
            return self.low + jnp.exp(u)
        if self.high is not None:
            return self.high - jnp.exp(u)
        return u

    def to_variable(self, theta: float, name: str) -> float:
        lo, hi = self.low, self.high
        inside = (lo is None or theta > lo) and (hi is None or theta < hi)
        if not inside:
            raise ParameterError(f"the start value of `{name}` must lie strictly inside its "
                                 f"bounds ({lo}, {hi}); got {name}={theta!r}. Start inside "
                                 "the range, or give other `bounds`.")
        if lo is not None and hi is not None:
            x = (theta - lo) / (hi - lo)
            return math.log(x / (1 - x))
        if lo is not None:
            return math.log(theta - lo)
        if hi is not None:
            return math.log(hi - theta)
        return float(theta)


def _field(obj, part: str, *, warn: bool = False) -> str:
    """`part` as the field of `obj` it names: an alias (``mu_k`` of a ``CoulombODE``) or an
    old spelling (``mus`` of a ``LuGre``; warns when `warn`) becomes the field's name."""
    field_name = getattr(type(obj), "field_name", None)
    return part if field_name is None else field_name(part, warn=warn)


def _canonical_path(obj, path: str) -> str:
    """`path` with each part spelled as its field (``"law.mus"`` → ``"law.mu_s"``, with a
    DeprecationWarning naming the new path); unknown parts are left for `_path_get`."""
    parts = []
    for part in path.split("."):
        new = _field(obj, part)
        if new != part and part in getattr(type(obj), "renamed_parameters", {}):
            warn_renamed(f"the fit parameter path {path!r}",
                         repr(".".join([*parts, new, *path.split(".")[len(parts) + 1:]])))
        parts.append(new)
        try:
            obj = obj[int(new)] if new.isdigit() and isinstance(obj, (tuple, list)) \
                else getattr(obj, new)
        except (AttributeError, IndexError):
            return ".".join([*parts, *path.split(".")[len(parts):]])
    return ".".join(parts)


def _path_get(obj, path: str):
    """The field at a dotted `path`; a number indexes a tuple (``"frictions.0.law.mu"``)."""
    for part in path.split("."):
        part = _field(obj, part)
        if part.isdigit() and isinstance(obj, (tuple, list)):
            if int(part) >= len(obj):
                raise ParameterError(f"`{path}`: index {part} is out of range (there are "
                                     f"{len(obj)}).")
            obj = obj[int(part)]
            continue
        if not hasattr(obj, part):
            fields = sorted(vars(obj)) if hasattr(obj, "__dict__") else []
            raise ParameterError(f"`{path}`: {type(obj).__name__} has no field `{part}`; "
                                 f"its fields are {fields}.")
        obj = getattr(obj, part)
    return obj


def _owner_rule(system, path: str) -> str | None:
    owner_path, _, field = path.rpartition(".")
    owner = _path_get(system, owner_path) if owner_path else system
    return _kind(owner, field)


def _kind(module, field: str) -> str | None:
    """The sign rule (``"positive"``, ``"nonnegative"``, …) a module declares for `field`
    in its ``parameter_rules`` (a kind string or a ``Rule`` with a ``kind``)."""
    rule = (getattr(type(module), "parameter_rules", None) or {}).get(_field(module, field))
    return rule if isinstance(rule, str) or rule is None else getattr(rule, "kind", None)


def _modules(node):
    """Every equinox module in a system's tree (the system, its laws, forces, …)."""
    if isinstance(node, eqx.Module):
        yield node
        children = vars(node).values()
    elif isinstance(node, (tuple, list)):
        children = node
    else:
        return
    for child in children:
        yield from _modules(child)


def _rule_by_value(system, name: str, value: float) -> str | None:
    """For a builder's keyword: the rule of a module field of that name holding that value."""
    for module in _modules(system):
        kind = _kind(module, name)
        if kind is not None:
            field = getattr(module, _field(module, name), None)
            if field is not None and np.allclose(np.asarray(field), value):
                return kind
    return None
