"""The friction slot of a revolute or translational joint: its rules and its checks.

A joint takes ``friction=`` (a law), ``pin_radius``/``slider_length``, ``viscous`` and
``preload`` (see docs/joint_friction.md). The numbers follow :data:`SLOT_RULES` (the
joints' ``parameter_rules``, checked in ``__check_init__``); :func:`check_friction_slot`
checks what is not one number — the law's type, and the pin radius a revolute joint with
friction needs (SPEC §9 9-2: its torque level is a·μ·N).
"""

from __future__ import annotations

from typing import Any

from .._rules import Rule
from ..errors import ParameterError
from ..laws import AbstractFrictionLaw

__all__ = ["PIN_RADIUS", "SLIDER_LENGTH", "SLOT_RULES", "check_friction_slot"]

PIN_RADIUS = Rule("positive", "Pass the pin radius a in metres (> 0): a revolute joint's "
                  "friction torque level is a·μ·N.", scalar=True, unit="m")
SLIDER_LENGTH = Rule("positive", "Pass the slider length L in metres (> 0), or None for a "
                     "point slider.", scalar=True, unit="m")
SLOT_RULES = {
    "viscous": Rule("nonnegative", "Pass a viscous coefficient >= 0 (0: none).", scalar=True,
                    unit="N·s/m or N·m·s/rad"),
    "preload": Rule("nonnegative", "Pass a preload >= 0 added to the normal force (0: none).",
                    scalar=True, unit="N"),
}
"""The rules of ``viscous`` and ``preload``, shared by both joints."""


def check_friction_slot(owner: str, law: Any, pin_radius: Any, rotational: bool) -> None:
    """Check a joint's friction law (host side): a friction law from ``stickslip.laws`` or
    None, and on a revolute joint a ``pin_radius`` with it.

    Parameters
    ----------
    owner : str
        The joint named in messages.
    law : AbstractFrictionLaw or None
        The joint's ``friction``.
    pin_radius : float or None
        The pin radius a [m] (revolute joints).
    rotational : bool
        True for a revolute joint.

    Raises
    ------
    ParameterError
        A `law` that is not a friction law, or a revolute joint with friction and no pin
        radius.
    """
    if law is not None and not isinstance(law, AbstractFrictionLaw):
        raise ParameterError(f"`{owner}.friction` must be a friction law from stickslip.laws "
                             f"(CoulombODE, LuGre, TanhCoulomb, ...); got "
                             f"{type(law).__name__}.")
    if law is not None and rotational and pin_radius is None:
        raise ParameterError(f"`{owner}.pin_radius` is required with friction on a "
                             "revolute joint: the torque level is pin_radius·μ·N [m].")
