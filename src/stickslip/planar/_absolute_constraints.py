"""Absolute constraints: a body fixed to the ground in one coordinate — x or y of a body
point, its rotation φ, or the distance of a body point from a ground point (SPEC §9).

Each adds one row to Φ; its reference value is taken from the pose at :meth:`Model.add` time
unless given. The contract is in :class:`~._constraint_base.AbstractConstraint`.
"""

from __future__ import annotations

from typing import Any, ClassVar

import equinox as eqx
import jax.numpy as jnp

from ._base import host_array
from ._body import global_point
from ._constraint_base import AbstractConstraint, _finite, _name, _positive

__all__ = ["AbsoluteAngle", "AbsoluteDistance", "AbsoluteX", "AbsoluteY"]


class AbsoluteX(AbstractConstraint):
    """x of a body point fixed: x_iᴾ − x₀ = 0 (x₀ from the pose at `add` time by default)."""

    n_equations: ClassVar[int] = 1
    prefix: ClassVar[str] = "absolute_x"
    axis: ClassVar[int] = 0          # which world coordinate of the point is fixed
    body_i: Any = eqx.field(static=True)
    body_j: Any = eqx.field(static=True)
    point_i: Any
    point_j: Any
    value: Any
    name: str | None = eqx.field(static=True)

    def __init__(self, body, point=(0.0, 0.0), *, x: float | None = None, name=None):
        self.body_i, self.body_j, self.point_i, self.point_j = body, "ground", point, (0.0, 0.0)
        self.name = _name(type(self).__name__, name)
        self.value = None if x is None else _finite(self.owner, "xy"[self.axis], x, "m")

    def describe(self) -> str:
        return f"{type(self).__name__} {self.name!r} on {self.body_i.name!r}"

    def _frozen(self, pose_i, pose_j):
        if self.value is not None:
            return {}
        return {"value": global_point(pose_i, self.point_i)[self.axis]}

    def residual(self, qi, qj, t):
        return jnp.atleast_1d(global_point(qi, self.point_i)[self.axis] - self.value)


class AbsoluteY(AbsoluteX):
    """y of a body point fixed: y_iᴾ − y₀ = 0."""

    prefix: ClassVar[str] = "absolute_y"
    axis: ClassVar[int] = 1

    def __init__(self, body, point=(0.0, 0.0), *, y: float | None = None, name=None):
        self.body_i, self.body_j, self.point_i, self.point_j = body, "ground", point, (0.0, 0.0)
        self.name = _name(type(self).__name__, name)
        self.value = None if y is None else _finite(self.owner, "y", y, "m")


class AbsoluteAngle(AbstractConstraint):
    """Rotation of a body fixed: φ_i − φ₀ = 0."""

    n_equations: ClassVar[int] = 1
    prefix: ClassVar[str] = "absolute_phi"
    body_i: Any = eqx.field(static=True)
    body_j: Any = eqx.field(static=True)
    point_i: Any
    point_j: Any
    value: Any
    name: str | None = eqx.field(static=True)

    def __init__(self, body, *, phi: float | None = None, name=None):
        self.body_i, self.body_j = body, "ground"
        self.point_i, self.point_j = (0.0, 0.0), (0.0, 0.0)
        self.name = _name(type(self).__name__, name)
        self.value = None if phi is None else _finite(self.owner, "phi", phi, "rad")

    def describe(self) -> str:
        return f"{type(self).__name__} {self.name!r} on {self.body_i.name!r}"

    def _frozen(self, pose_i, pose_j):
        return {} if self.value is not None else {"value": pose_i[2]}

    def residual(self, qi, qj, t):
        return jnp.atleast_1d(qi[2] - self.value)


class AbsoluteDistance(AbstractConstraint):
    """A body point keeps distance C from a ground point: (dᵀd − C²)/(2C) = 0."""

    n_equations: ClassVar[int] = 1
    prefix: ClassVar[str] = "absolute_distance"
    body_i: Any = eqx.field(static=True)
    body_j: Any = eqx.field(static=True)
    point_i: Any
    point_j: Any
    ground_point: Any
    distance: Any
    name: str | None = eqx.field(static=True)

    def __init__(self, body, point=(0.0, 0.0), *, ground_point=(0.0, 0.0), distance: float,
                 name=None):
        from ._body import _vector

        self.body_i, self.body_j, self.point_i, self.point_j = body, "ground", point, (0.0, 0.0)
        self.name = _name(type(self).__name__, name)
        self.ground_point = host_array(_vector(self.owner, "ground_point", ground_point))
        self.distance = _positive(self.owner, "distance", distance, "m")

    def describe(self) -> str:
        return f"{type(self).__name__} {self.name!r} on {self.body_i.name!r}"

    def residual(self, qi, qj, t):
        d = global_point(qi, self.point_i) - self.ground_point
        return jnp.atleast_1d((d @ d - self.distance ** 2) / (2 * self.distance))
