"""Absolute constraints: a body fixed to the ground in one coordinate — x or y of a body
point, its rotation φ, or the distance of a body point from a ground point (SPEC §9).

Each adds one row to Φ; its reference value is taken from the pose at :meth:`Model.add` time
unless given. The contract is in :class:`~._constraint_base.AbstractConstraint`.
"""

from __future__ import annotations

from typing import Any, ClassVar

import equinox as eqx
import jax.numpy as jnp

from .._rules import Rule
from ._base import parameter_array
from ._body import global_point
from ._constraint_base import POINT, AbstractConstraint, _name, angle_rule, length_rule

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
    parameter_rules: ClassVar[dict[str, Rule]] = {
        "point_i": POINT, "point_j": POINT,
        "value": length_rule("the fixed coordinate (x= or y=; None: frozen at Model.add)",
                             kind="finite")}

    def __init__(self, body, point=(0.0, 0.0), *, x: float | None = None, name=None):
        self.body_i, self.body_j, self.point_i, self.point_j = body, "ground", point, (0.0, 0.0)
        self.name = _name(type(self).__name__, name)
        self.value = parameter_array(x)

    @classmethod
    def example(cls) -> AbsoluteX:
        """A point of body ``"link"`` held at x = 1 m."""
        return cls("link", (0.1, 0.0), x=1.0)

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
        self.value = parameter_array(y)

    @classmethod
    def example(cls) -> AbsoluteY:
        """A point of body ``"link"`` held at y = 0.2 m."""
        return cls("link", (0.1, 0.0), y=0.2)


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
    parameter_rules: ClassVar[dict[str, Rule]] = {
        "value": angle_rule("the fixed rotation phi= (None: frozen at Model.add)")}

    def __init__(self, body, *, phi: float | None = None, name=None):
        self.body_i, self.body_j = body, "ground"
        self.point_i, self.point_j = (0.0, 0.0), (0.0, 0.0)
        self.name = _name(type(self).__name__, name)
        self.value = parameter_array(phi)

    @classmethod
    def example(cls) -> AbsoluteAngle:
        """Body ``"link"`` held at φ = 0.1 rad."""
        return cls("link", phi=0.1)

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
    parameter_rules: ClassVar[dict[str, Rule]] = {
        "point_i": POINT, "point_j": POINT,
        "ground_point": Rule("finite", "Pass the ground point (x, y) in metres.", shape=(2,),
                             unit="m"),
        "distance": length_rule("the distance C (> 0)", optional=False)}

    def __init__(self, body, point=(0.0, 0.0), *, ground_point=(0.0, 0.0), distance: float,
                 name=None):
        self.body_i, self.body_j, self.point_i, self.point_j = body, "ground", point, (0.0, 0.0)
        self.name = _name(type(self).__name__, name)
        self.ground_point = parameter_array(ground_point)
        self.distance = parameter_array(distance)

    @classmethod
    def example(cls) -> AbsoluteDistance:
        """A point of body ``"link"`` kept 0.5 m from the ground point (1, 1)."""
        return cls("link", (0.0, 0.1), ground_point=(1.0, 1.0), distance=0.5)

    def describe(self) -> str:
        return f"{type(self).__name__} {self.name!r} on {self.body_i.name!r}"

    def residual(self, qi, qj, t):
        d = global_point(qi, self.point_i) - self.ground_point
        return jnp.atleast_1d((d @ d - self.distance ** 2) / (2 * self.distance))
