"""The constraint elements (SPEC §9), one re-export per name: the planar package and code
that imports ``stickslip.planar._elements`` find every joint and driver here.

The classes live by family — :mod:`._constraint_base` (:class:`AbstractConstraint`, the
contract of a constraint element, and :class:`AbstractHandConstraint`, the base of those
that write their derivatives by hand, once, in ``kinematic_terms``), :mod:`._joints`, :mod:`._absolute_constraints`,
:mod:`._drivers` and :mod:`._motions` (the driver motions C(t)).
"""

from __future__ import annotations

from ._absolute_constraints import AbsoluteAngle, AbsoluteDistance, AbsoluteX, AbsoluteY
from ._constraint_base import AbstractConstraint, AbstractHandConstraint
from ._drivers import (
    AbsoluteDriver,
    DistanceDriver,
    RelativeDriver,
    RotationalDriver,
    TranslationalDriver,
)
from ._joints import (
    GearJoint,
    RevoluteJoint,
    RevoluteRevoluteJoint,
    RevoluteTranslationalJoint,
    TranslationalJoint,
)
from ._motions import constant_speed, smooth_ramp

__all__ = [
    "AbsoluteAngle",
    "AbsoluteDistance",
    "AbsoluteDriver",
    "AbsoluteX",
    "AbsoluteY",
    "AbstractConstraint",
    "AbstractHandConstraint",
    "DistanceDriver",
    "GearJoint",
    "RelativeDriver",
    "RevoluteJoint",
    "RevoluteRevoluteJoint",
    "RevoluteTranslationalJoint",
    "RotationalDriver",
    "TranslationalDriver",
    "TranslationalJoint",
    "constant_speed",
    "smooth_ramp",
]
