"""Integration: fixed-step Runge–Kutta as one ``lax.scan`` and adaptive diffrax solvers.

:func:`simulate` runs one system, :func:`simulate_batch` many parameter sets with one
compile. Methods: ``rk4``, ``rk_gill``, ``euler`` (fixed step), ``tsit5``, ``dopri5``,
``kvaerno5`` (adaptive).

The stepping front every host shares: :func:`rk_step` (one Runge–Kutta step, optional
projection), :func:`step_grid` / :func:`output_times` (the output grid: the last sample is
exactly ``t_end``), :func:`check_time_arguments` (the step and span check, run by every host
before it compiles anything) and :func:`check_divergence` (the divergence guard).

Memory budgets (:mod:`._memory`): :func:`check_memory` / :func:`check_run_memory` refuse a
run, batch or design whose estimated memory is above the budget (half the available memory,
or the environment variable ``STICKSLIP_MEMORY_BUDGET``: ``8GB``, ``80%``, ``off``) before it
is allocated; :func:`memory_budget` says what the budget is now.

Compiled programs are kept per model structure, in this process and across processes
(:func:`call_with_system` for a system's kernels, :func:`call_program` for any kernel of
static and array arguments; :mod:`._program_store`): a script run again does not trace again.

What the layers above reuse (studies, systems): :func:`merge_options` and ``KNOWN_OPTIONS``
(the one flat dict of run options), :func:`guard_from_options` (the divergence guard from
``max_state=``/``energy_tol=``), :func:`as_flag` and :func:`did_you_mean` (argument checks),
:func:`fingerprint` and :func:`code_versions` (what keys a compiled program), and
:func:`module_parameters` (a law's parameters as a flat dict); for the hosts,
:func:`padded_length` (the output slots compiled for a number of outputs).
"""

import importlib as _importlib
from typing import TYPE_CHECKING

# public name -> the submodule it comes from; loaded on first use (PEP 562), so a host that
# needs only the output grid and the divergence guard (ss.spatial) does not import JAX
_NAMES = {
    "METHODS": "._simulate",
    "AbstractSystem": "._system",
    "largest_stable_step": "._simulate",
    "mode_step_limit": "._stability",
    "monotone_step_limit": "._stability",
    "NO_OVERSHOOT": "._stability",
    "simulate": "._simulate",
    "simulate_batch": "._simulate",
    "stack_systems": "._simulate",
    "initial_state_of": "._simulate",
    "trajectory": "._simulate",
    "event_trajectory": "._event_gradient",
    "EventTrajectory": "._event_gradient",
    "FIXED_STEP_METHODS": "._tableaus",
    "ButcherTableau": "._tableaus",
    "StepGrid": "._grid",
    "output_times": "._grid",
    "step_grid": "._grid",
    "check_time_arguments": "._grid",
    "TimeArguments": "._grid",
    "Guard": "._guard",
    "Output": "._options",
    "Steps": "._options",
    "check_divergence": "._guard",
    "rk_step": "._rk_step",
    "StepRule": "._fixed_step",
    "call_with_system": "._program_store",
    "call_program": "._program_store",
    "traces": "._program_store",
    "check_theta": "._moreau_jean",
    "check_memory": "._memory",
    "check_run_memory": "._memory",
    "memory_budget": "._memory",
    # the contracts a host implements for the exact routes (issue 21), and what they share
    "AbstractTimeSteppingHost": "._moreau_jean_host",
    "TIME_STEPPING_METHODS": "._moreau_jean_host",
    "impulse": "._moreau_jean_host",
    "AbstractEventHost": "._event_host",
    "EVENT_KINDS": "._event_host",
    "EVENT_METHODS": "._event_host",
    # what the layers above reuse (studies: option merging, run keys; systems: parameters)
    "module_parameters": "._system",
    "guard_from_options": "._guard",
    "run_bounds": "._guard",
    "KNOWN_OPTIONS": "._options",
    "merge_options": "._options",
    "legacy_positionals": "._options",
    "as_flag": "._arguments",
    "did_you_mean": "._arguments",
    "fingerprint": "._fingerprint",
    "code_versions": "._fingerprint",
    "padded_length": "._fixed_step",
}

if TYPE_CHECKING:              # for static tools (documentation, type checkers)
    from ._simulate import METHODS as METHODS
    from ._system import AbstractSystem as AbstractSystem
    from ._simulate import largest_stable_step as largest_stable_step
    from ._stability import mode_step_limit as mode_step_limit
    from ._stability import monotone_step_limit as monotone_step_limit
    from ._stability import NO_OVERSHOOT as NO_OVERSHOOT
    from ._simulate import simulate as simulate
    from ._simulate import simulate_batch as simulate_batch
    from ._simulate import stack_systems as stack_systems
    from ._simulate import trajectory as trajectory
    from ._event_gradient import event_trajectory as event_trajectory
    from ._event_gradient import EventTrajectory as EventTrajectory
    from ._tableaus import FIXED_STEP_METHODS as FIXED_STEP_METHODS
    from ._tableaus import ButcherTableau as ButcherTableau
    from ._simulate import initial_state_of as initial_state_of
    from ._grid import StepGrid as StepGrid
    from ._grid import output_times as output_times
    from ._grid import step_grid as step_grid
    from ._grid import check_time_arguments as check_time_arguments
    from ._grid import TimeArguments as TimeArguments
    from ._guard import Guard as Guard
    from ._options import Output as Output
    from ._options import Steps as Steps
    from ._guard import check_divergence as check_divergence
    from ._rk_step import rk_step as rk_step
    from ._fixed_step import StepRule as StepRule
    from ._program_store import call_with_system as call_with_system
    from ._program_store import call_program as call_program
    from ._program_store import traces as traces
    from ._moreau_jean import check_theta as check_theta
    from ._memory import check_memory as check_memory
    from ._memory import check_run_memory as check_run_memory
    from ._memory import memory_budget as memory_budget
    from ._moreau_jean_host import AbstractTimeSteppingHost as AbstractTimeSteppingHost
    from ._moreau_jean_host import TIME_STEPPING_METHODS as TIME_STEPPING_METHODS
    from ._moreau_jean_host import impulse as impulse
    from ._event_host import AbstractEventHost as AbstractEventHost
    from ._event_host import EVENT_KINDS as EVENT_KINDS
    from ._event_host import EVENT_METHODS as EVENT_METHODS
    from ._system import module_parameters as module_parameters
    from ._guard import guard_from_options as guard_from_options
    from ._guard import run_bounds as run_bounds
    from ._options import KNOWN_OPTIONS as KNOWN_OPTIONS
    from ._options import legacy_positionals as legacy_positionals
    from ._options import merge_options as merge_options
    from ._arguments import as_flag as as_flag
    from ._arguments import did_you_mean as did_you_mean
    from ._fingerprint import fingerprint as fingerprint
    from ._fingerprint import code_versions as code_versions
    from ._fixed_step import padded_length as padded_length


def __getattr__(name):
    if name in _NAMES:
        value = getattr(_importlib.import_module(_NAMES[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'stickslip.integrate' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))


__all__ = list(_NAMES)
