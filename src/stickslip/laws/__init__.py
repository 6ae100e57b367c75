"""Friction and contact laws behind one interface (DESIGN.md, "Laws").

Friction: :class:`CoulombODE` (SPEC §2, eq. 9; with an optional friction curve — static
above kinetic, Stribeck, viscous — whose shape is :func:`friction_curve` and whose slip solve,
shared with the discrete-time steps, is :func:`curve_slip_speed`), :class:`LuGre` (SPEC §8)
and the smoothed baseline :class:`TanhCoulomb`. Contact: :class:`UnilateralODE` (SPEC §3, eq. 15) and the
penalty baselines :class:`KelvinVoigt`, :class:`HuntCrossley`; the rigid impact law
:class:`NewtonImpact` for the time-stepping route (``method="moreau_jean"``). The contact tuning guide
(restitution and penetration of `UnilateralODE`) is :mod:`stickslip.laws.contact_tuning`.

Shared with the discrete-time steps and their C export: :func:`steepest_drop` (the steepest
slope factor of the Stribeck drop, for the damping a step needs) and ``LUGRE_G_FLOOR`` (the
floor of LuGre's bristle deflection scale).
"""

from . import contact_tuning as contact_tuning
from ._base import AbstractContactLaw as AbstractContactLaw
from ._base import AbstractFrictionLaw as AbstractFrictionLaw
from ._base import AbstractLaw as AbstractLaw
from ._coulomb import CoulombODE as CoulombODE
from ._coulomb import ToleranceTuning as ToleranceTuning
from ._coulomb import slide_then_stick_error as slide_then_stick_error
from ._impact import NewtonImpact as NewtonImpact
from ._lugre import LUGRE_G_FLOOR as LUGRE_G_FLOOR
from ._lugre import LuGre as LuGre
from ._penalty import HuntCrossley as HuntCrossley
from ._penalty import KelvinVoigt as KelvinVoigt
from ._regularised import TanhCoulomb as TanhCoulomb
from ._stribeck import curve as friction_curve
from ._stribeck import proxy_slip_speed as curve_slip_speed
from ._stribeck import steepest_drop as steepest_drop
from ._unilateral import UnilateralODE as UnilateralODE

ALL_LAWS = (CoulombODE, LuGre, TanhCoulomb, UnilateralODE, KelvinVoigt, HuntCrossley)
"""Every law class, for the conformance suite and the docs."""
