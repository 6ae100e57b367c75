"""Helpers shared by the ready-made systems; the system interface itself.

:class:`AbstractSystem` — the contract every host (these systems, planar mechanisms, the
inclusion compiler's output) implements — is defined next to the integrators that consume
it (:mod:`stickslip.integrate._system`, so imports flow downward) and re-exported here.
"""

from __future__ import annotations

from typing import Any

from .._parameters import rules_of
from .._validation import check_finite_matrix, check_scalar, check_time_function
from ..integrate import AbstractSystem, module_parameters
from ..laws import AbstractLaw

__all__ = ["AbstractSystem", "check_time_function", "check_law_scalars", "finite_modes",
           "law_parameters"]


def law_parameters(prefix: str, law: AbstractLaw) -> dict[str, Any]:
    """``{prefix.field: value}`` for a law's parameters, plus ``prefix`` = its class name."""
    return module_parameters(prefix, law)


def check_law_scalars(owner: str, field: str, law: AbstractLaw) -> None:
    """A 1-D host needs one value per law parameter: reject array-valued law parameters
    here (naming ``Owner.field.param``) instead of a shape error inside ``jit``."""
    for name in rules_of(law):
        check_scalar(f"{owner}.{field}", name, getattr(law, name, None),
                     f"{type(law).__name__} parameters of one {owner} are single numbers.")


def finite_modes(owner: str, modes: list) -> list:
    """`modes` unchanged, or a ParameterError naming the mode whose eigenvalues are not
    finite (a NaN/zero parameter that slipped past construction, e.g. set with
    ``eqx.tree_at``) — instead of a bare LinAlgError or a silent pass of the step check."""
    return [(label, check_finite_matrix(owner, f"linear_modes ({label})", eig))
            for label, eig in modes]
