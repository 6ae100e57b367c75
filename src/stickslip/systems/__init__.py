"""Ready-made systems from the papers, each one plain ODE ``ẋ = f(t, x)``.

:class:`FrictionMass` (SPEC §2, eq. 10), :class:`ContactMass` (SPEC §3, eq. 16),
:class:`PointOnPlane` (SPEC §5 example 1, eq. 20-22) and :class:`TwoBlocksConveyor`
(SPEC §5 example 2, eq. 33). New systems subclass :class:`AbstractSystem`.
"""

from ._base import AbstractSystem as AbstractSystem
from ._contact_mass import ContactMass as ContactMass
from ._friction_mass import FrictionMass as FrictionMass
from ._point_on_plane import PointOnPlane as PointOnPlane
from ._two_blocks import TwoBlocksConveyor as TwoBlocksConveyor
