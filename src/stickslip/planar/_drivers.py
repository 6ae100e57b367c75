"""Drivers: the driving constraints Φ(q, t) = 0 that prescribe a motion C(t) (SPEC §9) —
relative rotation, slide along an axis, an absolute or relative coordinate, a distance.

Each adds one row; its multiplier is reported as ``<name>.effort``. The motions C(t)
(:func:`constant_speed`, :func:`smooth_ramp`) are in ``_motions``; the contract is in
:class:`~._constraint_base.AbstractConstraint`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import equinox as eqx
import jax.numpy as jnp

from .._rules import Rule
from ..errors import ParameterError
from ._base import unit_direction
from ._body import global_point, rotation
from ._constraint_base import AXIS, POINT, AbstractConstraint, _name, _time_function

__all__ = ["AbsoluteDriver", "DistanceDriver", "RelativeDriver", "RotationalDriver",
           "TranslationalDriver"]


class _AbstractDriver(AbstractConstraint):
    """A driving constraint: one row, its multiplier reported as ``<name>.effort``."""

    n_equations: ClassVar[int] = 1
    is_driver: ClassVar[bool] = True
    prefix: ClassVar[str] = "driver"
    config_fields: ClassVar[tuple[str, ...]] = ("motion",)
    parameter_rules: ClassVar[dict[str, Rule]] = {"point_i": POINT, "point_j": POINT}

    def describe(self) -> str:
        j = (f" and {self.body_j.name!r}"
             if not isinstance(self.body_j, str) and not self.body_j.is_ground else "")
        return f"{type(self).__name__} {self.name!r} on {self.body_i.name!r}{j}"


class RotationalDriver(_AbstractDriver):
    """Prescribed relative rotation: φ_j − φ_i − C(t) = 0 (SPEC §9).

    ``angle``: C(t) [rad], a ``jax.numpy`` callable of time (or a constant); see
    :func:`constant_speed` and :func:`smooth_ramp`. ``<name>.effort`` is the torque [N·m] the
    driver applies to body j (and −effort to body i).
    """

    prefix: ClassVar[str] = "rotational_driver"
    effort_unit: ClassVar[str] = "N·m"
    body_i: Any = eqx.field(static=True)
    body_j: Any = eqx.field(static=True)
    point_i: Any
    point_j: Any
    motion: Callable = eqx.field(static=True)
    name: str | None = eqx.field(static=True)

    def __init__(self, body_i, body_j, angle: Callable, *, name: str | None = None):
        self.body_i, self.body_j = body_i, body_j
        self.point_i, self.point_j = (0.0, 0.0), (0.0, 0.0)
        self.name = _name(type(self).__name__, name)
        self.motion = _time_function(self.owner, "angle", angle)

    @classmethod
    def example(cls) -> RotationalDriver:
        """Body ``"link"`` turned at 2 rad/s relative to the ground."""
        from ._motions import constant_speed

        return cls("ground", "link", angle=constant_speed(2.0, start=0.1))

    def residual(self, qi, qj, t):
        return jnp.atleast_1d(qj[2] - qi[2] - self.motion(t))


class TranslationalDriver(_AbstractDriver):
    """Prescribed slide along the axis of a translational pair: u_iᵀ d_ij − C(t) = 0 with
    u_i = A_i axis_i. ``distance``: C(t) [m]. ``effort``: force [N] on body j along u_i."""

    prefix: ClassVar[str] = "translational_driver"
    body_i: Any = eqx.field(static=True)
    body_j: Any = eqx.field(static=True)
    point_i: Any
    point_j: Any
    axis_i: Any
    motion: Callable = eqx.field(static=True)
    name: str | None = eqx.field(static=True)
    parameter_rules: ClassVar[dict[str, Rule]] = {"point_i": POINT, "point_j": POINT,
                                                  "axis_i": AXIS}

    def __init__(self, body_i, body_j, point_i=(0.0, 0.0), point_j=(0.0, 0.0),
                 axis_i=(1.0, 0.0), *, distance: Callable, name: str | None = None):
        self.body_i, self.body_j, self.point_i, self.point_j = body_i, body_j, point_i, point_j
        self.name = _name(type(self).__name__, name)
        self.axis_i = unit_direction(axis_i)
        self.motion = _time_function(self.owner, "distance", distance)

    @classmethod
    def example(cls) -> TranslationalDriver:
        """Body ``"link"`` slid along the ground's y axis at 0.5 m/s."""
        from ._motions import constant_speed

        return cls("ground", "link", axis_i=(0.0, 1.0), distance=constant_speed(0.5, 0.2))

    @property
    def frame_i(self):
        return jnp.arctan2(self.axis_i[1], self.axis_i[0])

    def residual(self, qi, qj, t):
        u = rotation(qi[2]) @ self.axis_i
        return jnp.atleast_1d(u @ self._d(qi, qj) - self.motion(t))


def _check_coordinate(owner: str, coordinate: str) -> str:
    """A driver's coordinate name, checked: "x", "y" or "phi"."""
    if coordinate not in ("x", "y", "phi"):
        raise ParameterError(f"`{owner}.coordinate` must be 'x', 'y' or 'phi'; got "
                             f"{coordinate!r}.")
    return coordinate


class AbsoluteDriver(_AbstractDriver):
    """Prescribed absolute coordinate of a body point: ``coordinate`` "x", "y" (of the point,
    [m]) or "phi" (of the body, [rad]) equals C(t). ``effort``: the force [N] or torque
    [N·m] the driver applies to the body in that coordinate's direction."""

    prefix: ClassVar[str] = "absolute_driver"
    config_fields: ClassVar[tuple[str, ...]] = ("motion", "coordinate")
    body_i: Any = eqx.field(static=True)
    body_j: Any = eqx.field(static=True)
    point_i: Any
    point_j: Any
    coordinate: str = eqx.field(static=True)
    motion: Callable = eqx.field(static=True)
    name: str | None = eqx.field(static=True)

    def __init__(self, body, coordinate: str, value: Callable, point=(0.0, 0.0), *,
                 name: str | None = None):
        self.body_i, self.body_j, self.point_i, self.point_j = body, "ground", point, (0.0, 0.0)
        self.name = _name(type(self).__name__, name)
        self.coordinate = _check_coordinate(self.owner, coordinate)
        self.motion = _time_function(self.owner, "value", value)

    def __check_init__(self) -> None:
        _check_coordinate(self.owner, self.coordinate)

    @classmethod
    def example(cls) -> AbsoluteDriver:
        """The y of a point of body ``"link"`` driven along a smooth ramp."""
        from ._motions import smooth_ramp

        return cls("link", "y", smooth_ramp(0.0, 0.1, 0.0, 1.0), point=(0.2, 0.0))

    @property
    def effort_unit(self) -> str:  # type: ignore[override]
        return "N·m" if self.coordinate == "phi" else "N"

    def residual(self, qi, qj, t):
        if self.coordinate == "phi":
            value = qi[2]
        else:
            value = global_point(qi, self.point_i)["xy".index(self.coordinate)]
        return jnp.atleast_1d(value - self.motion(t))


class RelativeDriver(_AbstractDriver):
    """Prescribed relative coordinate in the ground frame: (r_jᴾ − r_iᴾ)_x or _y = C(t) [m],
    or φ_j − φ_i = C(t) [rad] for ``coordinate="phi"``."""

    prefix: ClassVar[str] = "relative_driver"
    config_fields: ClassVar[tuple[str, ...]] = ("motion", "coordinate")
    body_i: Any = eqx.field(static=True)
    body_j: Any = eqx.field(static=True)
    point_i: Any
    point_j: Any
    coordinate: str = eqx.field(static=True)
    motion: Callable = eqx.field(static=True)
    name: str | None = eqx.field(static=True)

    def __init__(self, body_i, body_j, coordinate: str, value: Callable, point_i=(0.0, 0.0),
                 point_j=(0.0, 0.0), *, name: str | None = None):
        self.body_i, self.body_j, self.point_i, self.point_j = body_i, body_j, point_i, point_j
        self.name = _name(type(self).__name__, name)
        self.coordinate = _check_coordinate(self.owner, coordinate)
        self.motion = _time_function(self.owner, "value", value)

    def __check_init__(self) -> None:
        _check_coordinate(self.owner, self.coordinate)

    @classmethod
    def example(cls) -> RelativeDriver:
        """The x offset between the ground and a point of body ``"link"`` at 0.3 m/s."""
        from ._motions import constant_speed

        return cls("ground", "link", "x", constant_speed(0.3, 0.5), point_j=(0.1, 0.0))

    @property
    def effort_unit(self) -> str:  # type: ignore[override]
        return "N·m" if self.coordinate == "phi" else "N"

    def residual(self, qi, qj, t):
        if self.coordinate == "phi":
            value = qj[2] - qi[2]
        else:
            value = self._d(qi, qj)["xy".index(self.coordinate)]
        return jnp.atleast_1d(value - self.motion(t))


class DistanceDriver(_AbstractDriver):
    """Prescribed distance between point_i and point_j: ‖d_ij‖ − C(t) = 0 (C > 0, [m]).
    ``effort``: the force [N] pushing the points apart."""

    prefix: ClassVar[str] = "distance_driver"
    body_i: Any = eqx.field(static=True)
    body_j: Any = eqx.field(static=True)
    point_i: Any
    point_j: Any
    motion: Callable = eqx.field(static=True)
    name: str | None = eqx.field(static=True)

    def __init__(self, body_i, body_j, point_i=(0.0, 0.0), point_j=(0.0, 0.0), *,
                 distance: Callable, name: str | None = None):
        self.body_i, self.body_j, self.point_i, self.point_j = body_i, body_j, point_i, point_j
        self.name = _name(type(self).__name__, name)
        self.motion = _time_function(self.owner, "distance", distance)

    @classmethod
    def example(cls) -> DistanceDriver:
        """The distance between the ground origin and body ``"link"`` driven from 0.9 m."""
        from ._motions import constant_speed

        return cls("ground", "link", distance=constant_speed(0.1, 0.9))

    def residual(self, qi, qj, t):
        d = self._d(qi, qj)
        return jnp.atleast_1d(jnp.sqrt(d @ d) - self.motion(t))
