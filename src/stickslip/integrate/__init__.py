"""Integration: fixed-step Runge–Kutta as one ``lax.scan`` and adaptive diffrax solvers.

:func:`simulate` runs one system, :func:`simulate_batch` many parameter sets with one
compile. Methods: ``rk4``, ``rk_gill``, ``euler`` (fixed step), ``tsit5``, ``dopri5``,
``kvaerno5`` (adaptive).

The stepping front every host shares: :func:`rk_step` (one Runge–Kutta step, optional
projection), :func:`step_grid` / :func:`output_times` (the output grid: the last sample is
exactly ``t_end``) and :func:`check_divergence` (the divergence guard).

Compiled programs are kept per model structure, in this process and across processes
(:func:`call_with_system`, :mod:`._program_store`): a script run again does not trace again.
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
from ._grid import StepGrid as StepGrid
from ._grid import output_times as output_times
from ._grid import step_grid as step_grid
from ._guard import Guard as Guard
from ._guard import check_divergence as check_divergence
from ._rk_step import rk_step as rk_step
from ._fixed_step import StepRule as StepRule
from ._program_store import call_with_system as call_with_system
from ._program_store import traces as traces
