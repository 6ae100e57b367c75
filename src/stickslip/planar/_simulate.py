""":meth:`Model.simulate`'s one path: forward dynamics of any planar model — joints,
drivers, force elements, joint friction, stops and frictional contacts — on one frozen
:class:`~._system.PlanarSystem` (SPEC §9; SPEC §6 for the contacts' λ-stage).

The model is frozen once (:meth:`Builder.system`, the contacts' pairs in its ``pairs``);
what differs between models is only what each route needs around the core's run:

* without frictional contacts: the degrees of freedom and the assembly are checked, impact
  stops run as events (``method="events"`` or a fixed-step method) or inside the
  Moreau–Jean step, and the drift is checked after the run
  (:func:`._analyses.simulate`);
* with frictional contacts: the ODE routes refuse joint friction and impact stops by name
  (:func:`._stage_lambda.ode_refusal`), a start with a contact penetrated is refused
  (:func:`._contact_simulate.check_contact_start`), the λ-solve's enumeration fallback is
  compiled only where needed (a lean run, repeated with it where the active set failed),
  and a λ-problem with no solution or several stops the run with ``ss.PainleveError``
  (:func:`._contact_simulate.painleve_stop`).
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

import equinox as eqx
import numpy as np

from .. import integrate
from ..constraints import check_formulation, enumerates_each_evaluation
from ..errors import ModelError, ParameterError, SimulationError
from ..results import Results
from . import _analyses as analyses
from ._contact_simulate import (
    _state_vector,
    check_contact_start,
    contact_system,
    painleve_stop,
)
from ._contact_step import check_restitution
from ._stage_lambda import ode_refusal

__all__ = ["positionals", "simulate_model"]

OWNER = "planar.Model.simulate"


def positionals(args: tuple, dt, method, dt_out):
    """``(dt, method, dt_out)`` with the deprecated positional form (``simulate(t_end, dt,
    method, dt_out)``) folded in, with a DeprecationWarning — the core's rule
    (:func:`stickslip.integrate.legacy_positionals`)."""
    return integrate.legacy_positionals(OWNER, args, dt, method, dt_out, leading=("t_end",),
                                        stacklevel=4)


def simulate_model(model, t_end, dt, method, dt_out, *, baumgarte, projection, max_drift,
                   contact_formulation, options: dict[str, Any]) -> Results:
    """The run of :meth:`Model.simulate` (module docstring; see there for the parameters).
    `options`: the core's options, ``t0``, ``initial``, ``output``, ``guard``, ``steps``,
    ``progress`` among them (only those given), forwarded unchanged."""
    from ..integrate import FIXED_STEP_METHODS, check_time_arguments

    contacts = bool(model.frictional_contacts) or contact_formulation is not None
    stepping = method == "moreau_jean"
    fixed = method in FIXED_STEP_METHODS
    events = not contacts and method == "events" and any(s.law is None for s in model.stops)
    # the core's step and span check, before the model is frozen or anything compiles
    # (moreau_jean and the event route step on the same grid: dt_out a whole multiple of dt)
    check_time_arguments(OWNER, t_end, dt, dt_out, options.get("t0"),
                         initial=options.get("initial"),
                         fixed_step=fixed or events or (stepping and dt is not None))
    if getattr(options.get("steps"), "projection", None) is not None:
        # the model decides its Baumgarte gains from `projection`: one given inside Steps
        # would reach the integrator only, leaving the joints unstabilised (with or
        # without frictional contacts)
        raise ParameterError(f"`{OWNER}`: pass `projection=` to Model.simulate itself, not "
                             "in ss.Steps (it also sets the Baumgarte gains).")
    if contacts:
        return _with_contacts(model, t_end, dt, method, dt_out, baumgarte, projection,
                              contact_formulation, max_drift, options)
    fixed = fixed or stepping or events
    projection = fixed if projection is None else bool(projection)
    if projection and not fixed:
        raise ParameterError(f"`projection=True` needs a fixed-step method (rk4, rk_gill, "
                             f"euler); got method={method!r}. Use baumgarte= alone with "
                             "adaptive methods.")
    if stepping and (baumgarte is not None or not projection):
        raise ParameterError(f"method='moreau_jean' projects the joints after every step; "
                             f"drop `{OWNER}.baumgarte` and `projection`.")
    if baumgarte is None:
        baumgarte = (0.0, 0.0) if projection else (10.0, 10.0)
    system = model.system(baumgarte, projection=projection)
    analyses.dof(system)
    if options.get("initial") is None:
        start = analyses.assemble(system, t=float(options.get("t0", 0.0)))
        system = system.with_state(*analyses.state_of(start, len(model.bodies) * 3))
    else:
        _check_initial(system, options, max_drift)
    # moreau_jean: the rigid stops travel in the system (PlanarSystem.stops)
    stops = () if stepping else tuple(s for s in model.stops if s.law is None)
    return analyses.simulate(system, t_end, dt, method, dt_out, max_drift=max_drift,
                             events=stops, **options)


def _check_initial(system, options, max_drift) -> None:
    """A state vector given as ``initial=`` checked against the constraints and its
    velocities made consistent, in `options` (`analyses.consistent_start`), with the run's
    own drift bound `max_drift` as the tolerance (the final state of a run it accepted is
    accepted as a start); a `Results` (a run continued where it ended) is taken as it is,
    and a vector of the wrong shape is left to the core's own message."""
    x = _state_vector(options["initial"], system)
    if x is not None and not isinstance(options["initial"], Results):
        options["initial"] = analyses.consistent_start(
            system, x, float(options.get("t0", 0.0)), f"{OWNER}.initial",
            tol=float(max_drift))


def _with_contacts(model, t_end, dt, method, dt_out, baumgarte, projection,
                   contact_formulation, max_drift, options):
    """A model with frictional contacts (module docstring): ``painleve_check=`` and
    ``restitution=`` (moreau_jean) are taken from `options`."""
    formulation = check_formulation("kikuuwe" if contact_formulation is None
                                    else contact_formulation)
    painleve_check = options.pop("painleve_check", "auto")
    restitution = options.pop("restitution", None)
    stepping = method == "moreau_jean"
    projection = (method in integrate.FIXED_STEP_METHODS or stepping if projection is None
                  else bool(projection))
    if baumgarte is None:
        baumgarte = (0.0, 0.0) if projection else (10.0, 10.0)
    if restitution is not None:
        if not stepping:
            raise ParameterError(f"`{OWNER}.restitution` is an option of "
                                 f"method='moreau_jean'; got method={method!r}. The relaxed "
                                 "ODE's impacts follow from each contact's zeta.")
        restitution = check_restitution(OWNER, restitution)
    if stepping and (tuple(baumgarte) != (0.0, 0.0) or not projection):
        raise ParameterError(f"method='moreau_jean' projects the joints after every step; "
                             f"drop `{OWNER}.baumgarte` and `projection`.")
    system = contact_system(model, formulation, baumgarte, projection, painleve_check,
                            restitution=restitution)
    if model.layout.n_rows:     # redundant joint rows named, as for a plain mechanism
        analyses.dof(system)
    # the λ-solve's enumeration fallback only where some evaluation enumerates anyway
    # (else a lean run first: a smaller program to compile, repeated with it if needed)
    lean = not stepping and not enumerates_each_evaluation(
        ["planar_contact"] * system.pairs.n_pairs, formulation, painleve_check)
    if lean:
        system = _fallback(system, False)
    # the elements a route does not represent: refused by name, never passed through (the
    # ODE routes here; moreau_jean's refusals, as a plain mechanism's, by the core's
    # route_refusal, a ParameterError)
    refusal = None if stepping else ode_refusal(system, method)
    if refusal is not None:
        raise ModelError(f"planar model {model.name!r}: {refusal}.")
    if options.get("initial") is None and model.layout.n_rows:
        start = analyses.assemble(system, t=float(options.get("t0", 0.0)))
        system = system.with_state(*analyses.state_of(start, model.layout.n_coordinates))
    elif options.get("initial") is not None:
        _check_initial(system, options, max_drift)
    initial = options.get("initial")
    if not isinstance(initial, Results):     # a continued run starts where one ended
        x0 = system.initial_state() if initial is None else _state_vector(initial, system)
        if x0 is not None:
            check_contact_start(system, x0, OWNER, model.frictional_contacts)
    start = time.perf_counter()
    try:
        res = integrate.simulate(system, t_end, dt=dt, method=method, dt_out=dt_out,
                                 **options)
    except SimulationError as exc:
        if not stepping:
            raise
        # a joint friction's fixed point failed in a step: name the joint and the time
        raise analyses.moreau_jean_failure(system, exc, dt, dt_out, options) from exc
    fallback = "not needed" if lean else "compiled"
    if lean and np.any(res["painleve.none"] > 0):
        # the active set failed somewhere: the run again, with the enumeration's fallback
        system = _fallback(system, True)
        res = integrate.simulate(system, t_end, dt=dt, method=method, dt_out=dt_out,
                                 **options)
        fallback = "rerun"
    painleve_stop(system, res, stepping)
    if model.layout.n_rows:     # the joints' drift, checked as for a plain mechanism
        analyses.check_drift(system, res, float(max_drift))
    res.meta.update(model=model.name, analysis="dynamics", contact_formulation=formulation,
                    lambda_fallback=fallback, projection=projection,
                    baumgarte=list(baumgarte), wall_time=time.perf_counter() - start)
    if stepping:
        res.meta["restitution"] = float(system.pairs.restitution)
    return res


def _fallback(system, fallback: bool):
    """`system` whose λ-solve does (or does not) let the enumeration take over where the
    active set finds no solution (a static option of its pairs)."""
    return eqx.tree_at(lambda s: s.pairs, system,
                       dataclasses.replace(system.pairs, fallback=fallback))
