"""`SpatialModel.simulate`'s routing to its engine (SPEC §7; see `SpatialModel.simulate`):

* free polyhedral bodies and the ground, no elements: the volume contact on the numba host
  loop (:func:`._volume_host.run_host`, the default ``engine="numba"``), or with
  ``engine="jax"`` one jitted JAX run (:func:`._volume_jax_route.run_jax`, imported on use)
  for what it covers — free bodies, on the ground or without one, any number of them:
  one body against the ground alone, several with every active contact (ground and
  body–body) in one joint QP packed into slots (:mod:`._volume_jax_joint`,
  :mod:`._volume_jax_slots`; each body alone while no two bodies are within reach);
  ``patch="projection"`` or ``"section"`` (:mod:`._volume_jax_section`),
  ``friction="pyramid"`` or ``"previous"``, ``lp_solver="nnls"``, ``contact_update="step"``
  or ``"stage"``, a restitution with any bodies (:func:`._volume_jax_route.jax_route_gap`
  names what it does not: ``lp_solver="highs"`` — SciPy's HiGHS cannot run inside a jitted
  program and is not mapped onto the NNLS, so the option keeps meaning HiGHS). The JAX
  engine is not the default: where it runs it matches the host loop (tests/spatial/
  test_volume_jax_route.py, test_volume_jax_bodies.py, test_volume_jax_many_bodies.py,
  test_volume_jax_section.py; at an impact whose joint QP is singular to its 1e-9
  regularisation the two engines' consistency passes may split the impulse differently),
  and it is faster per step for one body (the sticking box 0.50–0.59 vs 0.78–0.89 s CPU
  per 5 s; ``patch="section"`` 3.9–5.5× faster) and for bodies apart on the ground (1.1 vs
  1.25–1.44 s per second), but slower with body–body contact (two-box stack 0.42 vs
  0.25 s, a stack of five 1.76 vs 0.64 s per simulated second), and its first call
  compiles for ~8 s CPU for one body and 37–52 s for several in a process that does not
  find it in the program store (0.9–1.6 s when it does; numba 0.3–1.2 s)
  (`benchmarks/results/spatial_volume_route.md`, `spatial_volume_section.md`);
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
from ._link_build import consistent_initial
from ._model_options import route_name

__all__ = ["route_simulate", "simulate_link"]


def route_simulate(model, t_end, dt, method, forces, friction, dt_out, lp_solver, initial, t0,
                   contact_update, contact, options) -> Results:
    """Run `model` on its route; the arguments are `SpatialModel.simulate`'s (`options`: its
    extra keywords, a dict)."""
    engine = options.pop("engine", None)
    if engine not in (None, "numba", "jax"):
        raise ParameterError(f"`simulate.engine` must be 'numba' or 'jax'; got {engine!r}.")
    slots = options.pop("slots", None)
    if slots is not None and engine != "jax":
        raise ParameterError("`simulate.slots` sizes the JAX engine's joint contact QP; pass "
                             "it with engine='jax' (the numba loop has no fixed size).")
    if slots is not None:
        from ._volume_jax_slots import slot_count
        slot_count(1, 1, slots)                      # a positive integer, or named
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
                       lp_solver, initial, t0, contact_update, slots=slots)
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
        # the bodies' states checked and made consistent with the joints, as the build does
        # with the model's own (quaternions normalised, poses on the rows, velocities
        # projected): `consistent_initial`; a state of the wrong shape is the core's error
        X = np.asarray(initial, dtype=float)
        n_b = len(model.bodies)
        start = 0.0 if t0 is None else float(t0)
        if X.shape == (n_b, 13) and not np.all(np.isfinite(X)):
            k = int(np.argwhere(~np.isfinite(X))[0, 0])
            raise ParameterError(f"`simulate.initial`: the state of body "
                                 f"{model.bodies[k].name!r} is not finite "
                                 f"({X[k].tolist()}); give finite positions, orientations "
                                 "and velocities.")
        if X.shape == (n_b, 13):
            X = consistent_initial(system, X, start)
            initial = np.concatenate([X.reshape(-1), np.asarray(system.s0),
                                      np.asarray(system.revolute_angles(X)),
                                      np.zeros(1 if system.layout.contacts else 0)])
        elif X.shape == np.shape(system.initial_state()) and np.all(np.isfinite(X)):
            initial = X.copy()
            initial[:13 * n_b] = consistent_initial(
                system, X[:13 * n_b].reshape(n_b, 13), start).reshape(-1)
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
