"""The friction slot of a revolute or translational joint: its arguments checked on the host.

A joint takes ``friction=`` (a law), ``pin_radius``/``slider_length``, ``viscous`` and
``preload`` (see docs/joint_friction.md); this module validates them for both the joints
(`_elements`) and the friction elements built from them (`_friction`), so neither imports
the other for it.
"""

from __future__ import annotations

import math

from ..errors import ParameterError
from ..laws._base import AbstractFrictionLaw
from ._base import host_array, nonnegative_number

__all__ = ["check_friction_slot"]


def _positive_length(owner, name, value):
    try:
        v = float(value)
    except (TypeError, ValueError):
        v = float("nan")
    if not (math.isfinite(v) and v > 0):
        raise ParameterError(f"`{owner}.{name}` must be a finite number > 0 [m]; got "
                             f"{name}={value!r}.")
    return host_array(v)


def check_friction_slot(owner, law, pin_radius, viscous, preload, slider_length, rotational):
    """Validate a joint's friction arguments (host side) and return them converted:
    (law, pin_radius, viscous, preload, slider_length). Raises naming joint and parameter."""
    if law is not None and not isinstance(law, AbstractFrictionLaw):
        raise ParameterError(f"`{owner}.friction` must be a friction law from stickslip.laws "
                             f"(CoulombODE, LuGre, TanhCoulomb, ...); got "
                             f"{type(law).__name__}.")
    if pin_radius is not None:
        if not rotational:
            raise ParameterError(f"`{owner}.pin_radius` only applies to a revolute joint.")
        pin_radius = _positive_length(owner, "pin_radius", pin_radius)
    elif law is not None and rotational:
        raise ParameterError(f"`{owner}.pin_radius` is required with friction on a "
                             "revolute joint: the torque level is pin_radius·μ·N [m].")
    if slider_length is not None:
        if rotational:
            raise ParameterError(f"`{owner}.slider_length` only applies to a translational "
                                 "joint.")
        slider_length = _positive_length(owner, "slider_length", slider_length)
    return (law, pin_radius, nonnegative_number(owner, "viscous", viscous, "N·s/m or N·m·s/rad"),
            nonnegative_number(owner, "preload", preload, "N"), slider_length)
