"""The exact time-stepping reference: Moreau–Jean with a velocity-level impact law (SPEC §6,
"厳密解 (Moreau 1999 など) — SICONOS").

:func:`moreau_jean` is the time-stepping route ``simulate(..., method="moreau_jean")`` on the
model's frozen :class:`~._system.PlanarSystem` (its frictional contacts in ``pairs``) — the
step (θ-method at the mid-point, the impulse
problem solved exactly by :func:`stickslip.constraints.solve_lambda` with the exact Coulomb
law, the joints projected after each step) is the one step of :mod:`._mj_step` (joints,
joint friction, contacts and impact stops together; its module docstring has the equations,
:mod:`._contact_step` the contact rows) — with the reference's own argument names and its
``meta["status"]`` (the worst status of any step, reported, not raised).
"""

from __future__ import annotations

import dataclasses

import equinox as eqx
import numpy as np

from .. import integrate
from .._validation import check_positive, check_scalar
from ..errors import ParameterError
from ..integrate import check_theta, step_grid
from ..results import Results
from ._contact_simulate import check_contact_start, contact_system
from ._contact_step import check_restitution, default_restitution

__all__ = ["moreau_jean"]


def moreau_jean(system, t_end: float, h: float, dt_out: float | None = None,
                theta: float = 0.5, restitution: float | None = None) -> Results:
    """Run the Moreau–Jean reference on a model with frictional contacts (module
    docstring).

    Parameters
    ----------
    system
        a :class:`~stickslip.planar.Model` with frictional contacts (or its frozen
        :class:`~stickslip.planar.PlanarSystem`, ``model.system()``) — the same
        description as the relaxed run.
    t_end : float
        end time [s] (> 0); the last sample is exactly `t_end`: when `h` does not
        divide it the last step is shorter (the output grid of ``ss.simulate``).
    h : float
        the step [s], 0 < h <= t_end.
    dt_out : float, optional
        output interval, a whole multiple of h (default h).
    theta : float, optional
        the θ-method parameter in [0, 1] (1/2: mid-point).
    restitution : float, optional
        Newton's e [-] in [0, 1], one for every contact; default the pairs'
        ``restitution`` (a Model's: e(ζ) of the relaxation from free flight,
        :func:`stickslip.constraints.relaxation_restitution`, with the first contact's ζ).
        ``planar.Model.simulate(..., method="moreau_jean", restitution=...)`` takes the same.

    Returns
    -------
    Results
        Results with ``<body>.x/.y/.phi`` (and ``…d``), ``<contact>.gap``, ``<contact>.fn`` and
        ``<contact>.ft`` (impulse / step length [N] of the step that ended at the sample; at
        the start, of the first step), ``painleve.status`` (that step's) and the counters
        ``painleve.none``/``.several`` [s], and ``meta["status"]`` the worst λ-problem
        status (0: every step solved; reported, not raised).

    Raises
    ------
    ParameterError
        a bad `t_end`, `h`, `dt_out`, `theta` or `restitution` (named, with
        the fix).
    ModelError
        a contact starts penetrated (the depth and the move that
        fixes it), as for ``Model.simulate``.
    """
    owner = "planar.moreau_jean"
    t_end = _seconds(owner, "t_end", t_end, "Pass the end time [s] (> 0; the run starts "
                                            "at 0).")
    h = _seconds(owner, "h", h, "Pass a positive step [s], e.g. h=1e-3.")
    if h > t_end * (1.0 + 1e-12):
        raise ParameterError(f"`{owner}.h` must be at most t_end = {t_end:g} s; got h={h:g}. "
                             f"Pass a smaller step (e.g. h={t_end / 100:g}).")
    if dt_out is not None:
        dt_out = _seconds(owner, "dt_out", dt_out, "Pass an output interval [s], a whole "
                                                   "multiple of h.")
    theta = check_theta({"theta": theta}, owner)
    e = None if restitution is None else check_restitution(owner, restitution)
    elements = None
    if hasattr(system, "frictional_contacts") or hasattr(system, "add_body"):
        from . import _analyses as analyses

        elements = system.frictional_contacts                # a Model: same description
        system = contact_system(system, "kikuuwe", (0.0, 0.0), True)
        if system.layout.n_rows:
            start = analyses.assemble(system, t=0.0)
            system = system.with_state(*analyses.state_of(start,
                                                          system.layout.n_coordinates))
    grid = step_grid(0.0, t_end, h, dt_out, owner=owner)    # refused under this name
    pairs = getattr(system, "pairs", None)
    if pairs is None:
        raise ParameterError(f"`{owner}.system` must be a planar Model with frictional "
                             f"contacts (or its frozen PlanarSystem); got "
                             f"{type(system).__name__} without contacts. Add a "
                             "PointLineContact or ClearanceSlider first.")
    if e is None:
        e = (float(pairs.restitution) if pairs.restitution is not None else
             default_restitution(float(np.asarray(pairs.zeta)[0])))
    system = eqx.tree_at(lambda s: s.pairs, system, dataclasses.replace(
        pairs, formulation="kikuuwe", restitution=e))
    check_contact_start(system, np.asarray(system.initial_state()), owner, elements)
    res = integrate.simulate(system, t_end, dt=h, method="moreau_jean", dt_out=dt_out,
                             theta=theta)
    # the counters add the length of the steps with no solution / several (_contact_step)
    none, several = res["painleve.none"][-1], res["painleve.several"][-1]
    res.meta.update(analysis="moreau_jean", h=h, theta=theta, restitution=e,
                    status=2 if several > 0 else int(none > 0))
    if grid.h_last:
        res.meta["last_step"] = grid.h_last
    return res


def _seconds(owner: str, name: str, value, hint: str) -> float:
    """A time argument [s]: one finite number > 0."""
    check_positive(owner, name, value, hint)
    check_scalar(owner, name, value, hint)
    return float(value)
