"""Integration: fixed-step Runge–Kutta as one ``lax.scan`` and adaptive diffrax solvers.

:func:`simulate` runs one system, :func:`simulate_batch` many parameter sets with one
compile. Methods: ``rk4``, ``rk_gill``, ``euler`` (fixed step), ``tsit5``, ``dopri5``,
``kvaerno5`` (adaptive).
"""

from ._simulate import METHODS as METHODS
from ._system import AbstractSystem as AbstractSystem
from ._simulate import largest_stable_step as largest_stable_step
from ._simulate import simulate as simulate
from ._simulate import simulate_batch as simulate_batch
from ._simulate import stack_systems as stack_systems
from ._simulate import trajectory as trajectory
from ._tableaus import FIXED_STEP_METHODS as FIXED_STEP_METHODS
from ._tableaus import ButcherTableau as ButcherTableau
