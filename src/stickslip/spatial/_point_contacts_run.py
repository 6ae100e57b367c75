"""`PointContacts.simulate`: the core's ``ss.simulate`` with the shared signature of every
host (issue 23, item 2), then the Painlevé check of the point contacts' λ-problem."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..constraints import STATUS_TEXT
from ..errors import PainleveError
from ..results import Results

if TYPE_CHECKING:
    from ..integrate import Guard, Output, Steps

__all__ = ["simulate"]


def simulate(self, t_end: float, *args: Any, dt: float | None = None,
             method: str | Any = "rk4", dt_out: float | None = None,
             t0: float | None = None, initial: Any = None, output: Output | None = None,
             guard: Guard | None = None, steps: Steps | None = None,
             progress: bool | None = None, **options: Any) -> Results:
    """Run with :func:`stickslip.simulate` (an ODE method or ``"moreau_jean"``); stops with
    :class:`stickslip.PainleveError` where the λ-problem found no solution.

    The keywords are :func:`stickslip.simulate`'s, with its defaults and meaning, passed to
    it unchanged (the option objects too); positional ``dt, method, dt_out`` after `t_end`
    still work, with a DeprecationWarning.
    """
    from .. import integrate

    res = integrate.simulate(self, t_end, *args, dt=dt, method=method, dt_out=dt_out, t0=t0,
                             initial=initial, output=output, guard=guard, steps=steps,
                             progress=progress, **options)
    hit = np.flatnonzero(res["painleve.none"] > 0)
    if hit.size:
        k = int(hit[0])
        raise PainleveError(
            f"Painlevé paradox (or a λ-problem the solver could not certify) before "
            f"t={res.t[k]:.6g} s: the point contacts of bodies {list(self.body_names)} have "
            f"{STATUS_TEXT[1]} (SPEC §6). Lower μ or use the volume contact (paper 002).",
            time=float(res.t[k]), contacts=tuple(self.body_names), reason=STATUS_TEXT[1])
    return res
