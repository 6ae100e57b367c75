"""`SpatialModel.simulate`'s routing to its engine (SPEC §7; see `SpatialModel.simulate`):

* free polyhedral bodies and the ground, no elements: the volume contact on the numba host
  loop (:func:`._volume_host.run_host`, the default ``engine="numba"``), or with
  ``engine="jax"`` one jitted JAX run (:func:`._volume_jax_route.run_jax`, imported on use)
  for what it covers — free bodies, on the ground or without one; body–body contact of 2
  or 3 bodies (the joint QP, :mod:`._volume_jax_joint`), more bodies each against the ground
  only (a run stops with `ParameterError` before two of them meet); ``patch="projection"``,
  ``friction="pyramid"`` or ``"previous"``, ``lp_solver="nnls"``, ``contact_update="step"``
  or ``"stage"``, a restitution with one body
  (:func:`._volume_jax_route.jax_route_gap` names what it does not: body–body contact of
  more than 3 bodies, a restitution with several, ``patch="section"``,
  ``lp_solver="highs"`` — SciPy's HiGHS cannot run inside a jitted program and is not
  mapped onto the NNLS, so the option keeps meaning HiGHS). The JAX engine is not the
  default yet: it lacks ``patch="section"``, a restitution between bodies and more than 3
  touching bodies (so it does not pass every volume test), and its first call compiles for
  ~8.5 s CPU (one body; ~18 s for two shapes on the ground, ~30 s for a two-box stack,
  50–80 s for three boxes) in a process that does not find it in the program store (0.85 s
  for one body, 2–2.5 s for these when it does; numba 0.3–0.5 s). Where it runs it matches the host loop
  (tests/spatial/test_volume_jax_route.py, test_volume_jax_bodies.py); on the ground it is
  faster per step — the sticking box 0.50–0.59 vs 0.78–0.89 s CPU per 5 s, the
  box-under-force grid 112 vs 154 s, four bodies 0.65–0.93 vs 1.07–1.23 s per second — and
  with body–body contact slower: the two-box stack 0.36–0.50 vs 0.26–0.34 s per second
  (`benchmarks/results/spatial_volume_route.md`);
* a model with joints and ``contact="volume"``: the link system's volume contact, one jitted
  run (:func:`._volume_links.simulate_model`, imported on use: it loads JAX);
* anything else: the link system frozen by `SpatialModel.link_system` and run by
  ``ss.simulate`` (:func:`simulate_link`).

The core's time-argument check runs first, on every route, before anything is built.
"""

from __future__ import annotations

import numpy as np

from ..errors import PainleveError, ParameterError
from ..integrate import FIXED_STEP_METHODS, check_time_arguments
from ..results import Results
from . import _volume_host
from ._model_options import route_name

__all__ = ["route_simulate", "simulate_link"]


def route_simulate(model, t_end, dt, method, forces, friction, dt_out, lp_solver, initial, t0,
                   contact_update, contact, options) -> Results:
    """Run `model` on its route; the arguments are `SpatialModel.simulate`'s (`options`: its
    extra keywords, a dict)."""
    engine = options.pop("engine", None)
    if engine not in (None, "numba", "jax"):
        raise ParameterError(f"`simulate.engine` must be 'numba' or 'jax'; got {engine!r}.")
    if contact not in (None, "volume", "point"):
        raise ParameterError(f"`simulate.contact` must be 'volume' or 'point'; got "
                             f"{contact!r}.")
    # the core's step and span check, on both routes, before anything is built
    times = check_time_arguments("SpatialModel.simulate", t_end, dt, dt_out, t0,
                                 initial=initial,
                                 fixed_step=method is None or method in FIXED_STEP_METHODS)
    if engine is not None and (contact is not None or model.elements
                               or model.uses_link_route()):
        raise ParameterError("`simulate.engine` chooses the engine of the volume route of "
                             "free bodies; this model runs as a link system. Drop `engine`.")
    route = route_name(model, contact, engine)       # the one rule, shared with the options
    if route == "link":
        return simulate_link(model, t_end, dt, method, forces, friction, dt_out, lp_solver,
                             initial, t0, contact_update, options)
    if route == "volume_links":                      # the link system's volume contact
        from ._volume_links import simulate_model
        return simulate_model(model, times.t_end, times.dt, method, forces, friction,
                              dt_out, lp_solver, initial, t0, contact_update, options)
    if options:
        raise ParameterError(f"`simulate` got unknown options {sorted(options)} for the "
                             "volume route.")
    method = "rk_gill" if method is None else method
    if route == "volume_jax":
        from ._volume_jax_route import jax_route_gap, run_jax
        gap = jax_route_gap(model, friction, lp_solver, contact_update) if model.bodies \
            else "a model without bodies"
        if gap is not None:
            raise ParameterError(f"`simulate.engine='jax'` does not cover {gap} yet; use "
                                 "engine='numba' (the default) for this model.")
        return run_jax(model, times.t_end, times.dt, method, forces, friction, dt_out,
                       lp_solver, initial, t0, contact_update)
    return _volume_host.run_host(model, times.t_end, times.dt,
                                 method, forces, friction,
                                 dt_out, lp_solver, initial, t0, contact_update)


def simulate_link(model, t_end, dt, method, forces, friction, dt_out, lp_solver,
                  initial, t0, contact_update, options) -> Results:
    """The link-system route: `model` frozen by `SpatialModel.link_system` and run by
    ``ss.simulate``; the volume route's arguments are rejected, and an uncertified
    point-contact λ-problem raises `PainleveError`."""
    from .. import integrate

    for label, value, default in (("forces", forces, None), ("friction", friction,
                                  "pyramid"), ("lp_solver", lp_solver, "nnls"),
                                  ("contact_update", contact_update, "step")):
        if value != default:
            raise ParameterError(f"`simulate.{label}` belongs to the volume route; this "
                                 "model runs as a link system. Use PointForce/BodyTorque "
                                 "elements for loads.")
    build = {k: options.pop(k) for k in ("delta", "zeta", "baumgarte", "formulation")
             if k in options}
    system = model.link_system(**build)
    if initial is not None and not isinstance(initial, Results):
        X = np.asarray(initial, dtype=float)
        if X.shape == (len(model.bodies), 13):
            initial = np.concatenate([X.reshape(-1), np.asarray(system.s0),
                                      np.asarray(system.revolute_angles(X)),
                                      np.zeros(1 if system.layout.contacts else 0)])
    if t0 is not None:
        options["t0"] = t0
    if initial is not None:
        options["initial"] = initial
    res = integrate.simulate(system, t_end, dt=dt, method=method or "rk4",
                             dt_out=dt_out, **options)
    if "contact.unsolved_time" in res.names:
        unsolved = res["contact.unsolved_time"]
        hit = np.flatnonzero(unsolved > unsolved[0])
        if hit.size:
            k = int(hit[0])
            raise PainleveError(
                f"the point contacts' λ-problem had no solution the solver could certify "
                f"before t={res.t[k]:.6g} s (contacts: "
                f"{[c[0] for c in system.layout.contacts]}; SPEC §6: the Painlevé "
                "paradox, or no convergence). Lower μ, raise delta, or use a smaller dt.",
                time=float(res.t[k]), contacts=tuple(c[0] for c in system.layout.contacts),
                reason="no solution (inconsistency)")
    return res
