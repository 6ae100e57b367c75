"""Forward dynamics of a planar model with frictional contacts (SPEC §6), and the Painlevé
check that stops a run whose λ-problem has no solution or several."""

from __future__ import annotations

import dataclasses
import time
from typing import Any

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from .. import integrate
from ..constraints._lambda_problem import (STATUS_TEXT, check_formulation, check_uniqueness,
                                           enumerates_each_evaluation)
from ..errors import ModelError, PainleveError, ParameterError
from ..results import Results
from ._contact import STATIC_SPEED, AbstractFrictionalContact
from ._contact_system import ContactPlanarSystem, PairGeometry

__all__ = ["add_frictional_contact", "contact_system", "simulate_contacts"]


def add_frictional_contact(model, element: AbstractFrictionalContact):
    """Model.add for frictional contacts: resolve the bodies, name the element, keep it."""
    contacts = model.frictional_contacts
    if element.name is None:
        element.name = f"{element.prefix}{len(contacts) + 1}"
    taken = [e.name for e in model._all_elements()] + [c.name for c in contacts]
    if element.name in taken:
        raise ParameterError(f"contact name {element.name!r} is used twice; pass a unique "
                             "`name=`.")
    bodies = []
    for field, ref in element.body_refs():
        body = model._resolve_body(ref)
        if body is None:
            raise ParameterError(f"contact {element.name!r}: `{field}` is body "
                                 f"{getattr(ref, 'name', ref)!r}, which is not in this model "
                                 f"(bodies: {[b.name for b in model.bodies]}).")
        bodies.append(body)
    if bodies[0] is bodies[1]:
        raise ParameterError(f"contact {element.name!r} connects body {bodies[0].name!r} to "
                             "itself; pass two different bodies (or model.ground).")
    element.bind(*bodies)
    contacts.append(element)
    model._layout = None
    return element


def contact_system(model, formulation: str = "kikuuwe", baumgarte=(0.0, 0.0),
                   projection: bool = True, certify: str = "auto",
                   fallback: bool = True) -> ContactPlanarSystem:
    """The model with its frictional contacts as a :class:`ContactPlanarSystem`; `certify`:
    how uniqueness of the λ-problem's solution is checked, `fallback`: whether the
    enumeration takes over where the active set fails (``solve_lambda``)."""
    check_formulation(formulation)
    check_uniqueness(certify, "painleve_check")
    contacts = list(model.frictional_contacts)
    if not contacts:
        raise ModelError(f"planar model {model.name!r} has no frictional contacts; add a "
                         "PointLineContact or ClearanceSlider first.")
    layout = model.layout
    if layout.has_laws:
        raise ModelError(f"planar model {model.name!r}: frictional contacts (SPEC §6) cannot "
                         "be combined with joint-friction or contact-law stops in one model "
                         "yet; model that friction as a contact, or drop it.")
    mech = model.system(baumgarte, projection=projection)
    index = {id(b): k + 1 for k, b in enumerate(layout.bodies)}
    bi, bj, pj, lp, la, mu, delta, zeta, names, owners = ([] for _ in range(10))
    mu_s, v_stribeck = [], []
    for c in contacts:
        gaps, fns, fts = (c.channel_names(s) for s in ("gap", "fn", "ft"))
        for k, (body_i, body_j, point_j, line_point, axis) in enumerate(c.pairs()):
            bi.append(0 if getattr(body_i, "is_ground", False) else index[id(body_i)])
            bj.append(0 if getattr(body_j, "is_ground", False) else index[id(body_j)])
            pj.append(point_j)
            lp.append(line_point)
            la.append(axis)
            mu.append(c.mu)
            mu_s.append(getattr(c, "mu_s", c.mu))
            v_stribeck.append(getattr(c, "v_stribeck", STATIC_SPEED))
            delta.append(c.delta)
            zeta.append(c.zeta)
            names.append((gaps[k], fns[k], fts[k]))
            owners.append(c.name if c.n_pairs == 1 else f"{c.name} (corner {k + 1})")
    pairs = PairGeometry(body_i=tuple(bi), body_j=tuple(bj), point_j=np.array(pj),
                         line_point_i=np.array(lp), line_axis_i=np.array(la))
    return ContactPlanarSystem(mechanism=mech, pairs=pairs, mu=np.array(mu), delta=np.array(delta),
               mu_s=None if mu_s == mu else np.array(mu_s),
               v_stribeck=None if mu_s == mu else np.array(v_stribeck),
               zeta=np.array(zeta), formulation=formulation, names=tuple(names),
               contact_names=tuple(owners), certify=certify, projection=bool(projection),
               fallback=bool(fallback))


def _status(system: ContactPlanarSystem, t: float, x) -> int:
    """The λ-problem's status at (t, x), checked as the vector field checks it."""
    n = system.mechanism.layout.n_coordinates
    return int(jax.jit(lambda s, x: s.dynamics(jnp.asarray(t), x[:n], x[n:2 * n])["status"])(
        system, jnp.asarray(x)))


def _painleve(system: ContactPlanarSystem, t: float, x, status: int, when: str):
    n = system.mechanism.layout.n_coordinates
    d = jax.jit(lambda s, x: s.dynamics(jnp.asarray(t), x[:n], x[n:2 * n]))(system, x)
    gap, fn = np.asarray(d["gap"]), np.asarray(d["fn"])
    scale = max(float(np.max(np.abs(fn))), 1e-300)
    involved = [name for name, g, f in zip(system.contact_names, gap, fn)
                if g <= 1e-9 or f > 1e-9 * scale] or list(system.contact_names)
    reason = STATUS_TEXT[status]
    state = {name: float(v) for name, v in zip(system.state_names, np.asarray(x))}
    return PainleveError(
        f"Painlevé paradox {when} t={t:.6g} s: the λ-problem of contact(s) "
        f"{', '.join(repr(c) for c in involved)} has {reason} (SPEC §6; "
        f"formulation {system.formulation!r}). The rigid model does not determine the motion "
        "here: lower the friction coefficient μ, change the geometry, or model the contact "
        "compliance (e.g. ss.laws.UnilateralODE).",
        time=t, state=state, contacts=tuple(involved), reason=reason)


def simulate_contacts(model, t_end: float, dt: float | None = None, method: str = "rk4",
                      dt_out: float | None = None, *, contact_formulation: str | None = None,
                      baumgarte=None, projection=None, painleve_check: str = "auto",
                      **options: Any) -> Results:
    """Model.simulate for a model with frictional contacts (see Model.simulate).

    painleve_check: how each evaluation checks that the λ-problem's solution is unique
    (``"auto"``: by a monotonicity bound, else by enumeration for at most 16 mode
    combinations; ``"full"``: by enumeration whenever the bound fails; ``"none"``);
    inconsistency (no solution) is always detected. See ``ss.constraints.solve_lambda``.

    Where no evaluation enumerates to check uniqueness (``"auto"`` beyond 16 combinations,
    e.g. the four-corner ClearanceSlider, or ``"none"``), the enumeration would only be the
    fallback of an active set that found no solution. The run is then first made without it
    (a smaller program to compile); if the active set failed anywhere, the run is made again
    with the fallback, so the result and any PainleveError are those of the full solve
    (``res.meta["lambda_fallback"]``: ``"compiled"``, ``"not needed"`` or ``"rerun"``).
    """
    from ..integrate import FIXED_STEP_METHODS, check_time_arguments

    fixed = method in FIXED_STEP_METHODS
    # the core's step and span check, before the λ-problem is built or anything compiles
    check_time_arguments("planar.Model.simulate", t_end, dt, dt_out, options.get("t0"),
                         initial=options.get("initial"), fixed_step=fixed)
    formulation = check_formulation("kikuuwe" if contact_formulation is None
                                    else contact_formulation)
    projection = fixed if projection is None else bool(projection)
    if baumgarte is None:
        baumgarte = (0.0, 0.0) if projection else (10.0, 10.0)
    options.pop("max_drift", None)
    system = contact_system(model, formulation, baumgarte, projection, painleve_check)
    lean = not enumerates_each_evaluation(["planar_contact"] * len(system.names),
                                          formulation, painleve_check)
    if lean:
        system = dataclasses.replace(system, fallback=False)
    if options.get("initial") is None and model.layout.n_rows:
        from . import _analyses as analyses

        mech = system.mechanism
        start = analyses.assemble(mech, t=float(options.get("t0", 0.0)))
        system = eqx.tree_at(lambda s: s.mechanism, system, mech.with_state(
            *analyses.state_of(start, mech.layout.n_coordinates)))
    start = time.perf_counter()
    res = integrate.simulate(system, t_end, dt=dt, method=method, dt_out=dt_out, **options)
    fallback = "not needed" if lean else "compiled"
    if lean and np.any(res["painleve.none"] > 0):
        # the active set failed somewhere: the run again, with the enumeration's fallback
        system = dataclasses.replace(system, fallback=True)
        res = integrate.simulate(system, t_end, dt=dt, method=method, dt_out=dt_out,
                                 **options)
        fallback = "rerun"
    hit = np.flatnonzero((res["painleve.none"] > 0) | (res["painleve.several"] > 0))
    if hit.size:
        k = int(hit[0])
        status = 1 if res["painleve.none"][k] > 0 else 2
        x = np.array([res[name][k] for name in system.state_names])
        t_prev = float(res.t[max(k - 1, 0)])
        if k == 1:
            # the counters grew over the first interval: was the start itself Painlevé?
            # (one extra compile, paid only on this path)
            x_start = np.array([res[name][0] for name in system.state_names])
            at_start = _status(system, t_prev, x_start)
            if at_start:
                raise _painleve(system, t_prev, x_start, at_start, "at the start,")
        raise _painleve(system, float(res.t[k]), x, status,
                        f"between t={t_prev:.6g} s and")
    res.meta.update(model=model.name, analysis="dynamics", contact_formulation=formulation,
                    lambda_fallback=fallback,
                    projection=projection, baumgarte=list(baumgarte),
                    wall_time=time.perf_counter() - start)
    return res
