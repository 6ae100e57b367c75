"""The exceptions stickslip raises.

Every error a user can cause is a :class:`StickslipError`. Messages follow one form: what is
wrong (naming the parameter, body, joint or time), the offending value, and how to fix it::

    `LuGre.mu_k` must be <= `LuGre.mu_s`; got mu_k=0.3, mu_s=0.2. The static friction must
    be at least the kinetic: lower mu_k or raise mu_s.
"""

from __future__ import annotations

__all__ = [
    "StickslipError",
    "ParameterError",
    "ModelError",
    "InclusionError",
    "SimulationError",
    "ChannelError",
    "ResultsFileError",
    "MissingDependencyError",
    "PainleveError",
    "MemoryBudgetError",
    "ImplausibleParameterWarning",
]


class StickslipError(Exception):
    """Base class of every error stickslip raises on purpose."""


class ParameterError(StickslipError, ValueError):
    """A parameter has a value outside its allowed range (or is not finite)."""


class ModelError(StickslipError, ValueError):
    """A model is inconsistent: topology, degrees of freedom, redundancy, assembly."""


class InclusionError(StickslipError, ValueError):
    """A differential inclusion falls outside what SPEC §4's procedure can convert."""


class SimulationError(StickslipError, RuntimeError):
    """A run failed: it diverged, produced non-finite numbers, or a step could not be taken.

    Attributes
    ----------
    time : float, optional
        The simulation time [s] at (or just before) the failure, when known.
    state : dict, optional
        A mapping of state names to their last finite values, when known.
    """

    def __init__(self, message: str, *, time: float | None = None, state: dict | None = None):
        super().__init__(message)
        self.time = time
        self.state = state


class ChannelError(StickslipError, KeyError):
    """`Results[name]` for a channel the results do not have (also a ``KeyError``)."""

    def __str__(self) -> str:            # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


class ResultsFileError(StickslipError, ValueError):
    """A results file cannot be read: missing, truncated, corrupt, or of an unknown format."""


class MissingDependencyError(StickslipError, ImportError):
    """An optional dependency needed by the requested feature is not installed."""


class PainleveError(SimulationError):
    """The λ-problem of a frictional contact has no solution or several (the Painlevé
    paradox, SPEC §6): the motion is not determined by the rigid-body model there.

    Attributes (besides ``time`` and ``state``)
    ----------
    contacts:
        Names of the contacts involved (those in contact at the failure).
    reason:
        ``"no solution (inconsistency)"`` or ``"several solutions (non-uniqueness)"``.
    """

    def __init__(self, message: str, *, time: float | None = None, state: dict | None = None,
                 contacts: tuple = (), reason: str = ""):
        super().__init__(message, time=time, state=state)
        self.contacts = tuple(contacts)
        self.reason = reason


class MemoryBudgetError(StickslipError, MemoryError):
    """A run, batch or design would hold more memory than its budget, so it was refused
    before anything was allocated (also a ``MemoryError``). The message gives the estimate,
    the budget and the fix (a larger ``dt_out``, the run in pieces, fewer members or points).
    The budget is half the available memory; the environment variable
    ``STICKSLIP_MEMORY_BUDGET`` sets it (``8GB``, ``80%``, ``off``; see
    :mod:`stickslip.integrate._memory`)."""


class ImplausibleParameterWarning(UserWarning):
    """A parameter is valid but outside its physically plausible range (a friction
    coefficient of 50: a percentage given as a fraction?). The value is used as given; the
    message names the parameter, the value, the usual range and the likely slip. Silence it
    with ``warnings.filterwarnings("ignore", category=ImplausibleParameterWarning)``."""
