"""Helpers shared by the ready-made systems; the system interface itself.

:class:`AbstractSystem` — the contract every host (these systems, planar mechanisms, the
inclusion compiler's output) implements — is defined next to the integrators that consume
it (:mod:`stickslip.integrate._system`, so imports flow downward) and re-exported here.
"""

from __future__ import annotations

from typing import Any, Callable

import jax.numpy as jnp
import numpy as np

from .._parameters import rules_of
from .._validation import check_finite_matrix, check_scalar, check_traceable, is_traced
from ..errors import ParameterError
from ..integrate._system import AbstractSystem, module_parameters
from ..laws import AbstractLaw

__all__ = ["AbstractSystem", "check_time_function", "check_law_scalars", "finite_modes",
           "law_parameters"]


def law_parameters(prefix: str, law: AbstractLaw) -> dict[str, Any]:
    """``{prefix.field: value}`` for a law's parameters, plus ``prefix`` = its class name."""
    return module_parameters(prefix, law)


def check_time_function(owner: str, name: str, fn: Callable | None,
                        shape: tuple[int, ...], signature: str = "t",
                        example_args: tuple | None = None) -> None:
    """Check a user callable at construction: it traces under ``jit`` (no Python ``if`` on
    its arguments — :func:`~stickslip._validation.check_traceable`), returns `shape`, and is
    finite when evaluated once on the host at t = 0 (`example_args`, default ``(0.0,)``)."""
    if fn is None:
        return
    args = (0.0,) if example_args is None else example_args
    check_traceable(owner, name, fn, args, shape=shape, signature=signature)
    try:
        value = fn(*(jnp.asarray(a, dtype=float) for a in args))
        if is_traced(value):   # its parameters are traced (a vmapped or differentiated build)
            return
        value = np.asarray(value)
    except Exception as exc:  # the user's function failed: say which one and why
        raise ParameterError(f"`{owner}.{name}({signature})` failed at t=0: {exc!r}. It must "
                             f"take ({signature}) and use jax.numpy (no float() or if on t)."
                             ) from exc
    if not np.all(np.isfinite(value)):
        raise ParameterError(f"`{owner}.{name}({signature})` returned a non-finite value at "
                             f"t=0: {value}. Make it finite for every t >= 0.")


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
