"""Forward dynamics of a planar model with frictional contacts (SPEC §6), and the Painlevé
check that stops a run whose λ-problem has no solution or several."""

from __future__ import annotations

import dataclasses
import math
import time
from typing import Any

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from .. import integrate
from ..constraints import (
    STATUS_TEXT,
    check_formulation,
    check_uniqueness,
    enumerates_each_evaluation,
)
from ..errors import ModelError, PainleveError, ParameterError, SimulationError
from ..results import Results
from ._contact import STATIC_SPEED, AbstractFrictionalContact
from ._contact_step import check_restitution, default_restitution
from ._contact_system import ContactPlanarSystem, PairGeometry, ode_refusal

__all__ = ["add_frictional_contact", "check_contact_start", "contact_system",
           "simulate_contacts"]


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
                   fallback: bool = True, restitution=None) -> ContactPlanarSystem:
    """The model with its frictional contacts as a :class:`ContactPlanarSystem`; `certify`:
    how uniqueness of the λ-problem's solution is checked, `fallback`: whether the
    enumeration takes over where the active set fails (``solve_lambda``); `restitution`:
    Newton's e of ``method="moreau_jean"`` (default e(ζ) of the first contact's ζ,
    module :mod:`._contact_step`)."""
    check_formulation(formulation)
    check_uniqueness(certify, "painleve_check")
    contacts = list(model.frictional_contacts)
    if not contacts:
        raise ModelError(f"planar model {model.name!r} has no frictional contacts; add a "
                         "PointLineContact or ClearanceSlider first.")
    layout = model.layout
    # joint friction, contact-law and impact stops travel in the mechanism: each route
    # refuses by name what it does not represent (ContactPlanarSystem.route_refusal)
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
               fallback=bool(fallback),
               restitution=default_restitution(float(zeta[0])) if restitution is None
               else check_restitution("contact_system", restitution))


def check_contact_start(system: ContactPlanarSystem, x, where: str, elements=None) -> None:
    """Refuse a start with a contact point inside its line — a point below a floor, a
    slider's corner through a wall of its guide — by more than 1e-6 of the contact's size
    (at least 1 nm): the relaxation would push it out at up to depth/δ (a block 5 cm inside
    a floor with δ = 1 ms left at 18 m/s). Raises one ModelError with a line per contact:
    the depth, and the move that fixes it (the body, the distance and the direction; for a
    :class:`ClearanceSlider` turned through its walls, the angle it may have). A contact
    resting on its line (gap 0) passes. `elements`: the model's contacts in the order of
    the system's pairs (without them, each pair is judged alone). Host-side NumPy only:
    checked before anything is compiled, as the spatial models check their start."""
    q = np.asarray(x, dtype=float)[: system.mechanism.layout.n_coordinates]
    poses = np.vstack([np.zeros((1, 3)), q.reshape(-1, 3)])
    pairs = system.pairs
    bi, bj = np.array(pairs.body_i), np.array(pairs.body_j)
    point, line_point = np.asarray(pairs.point_j), np.asarray(pairs.line_point_i)
    axis = np.asarray(pairs.line_axis_i)
    rot_i, rot_j = _rotations(poses[bi, 2]), _rotations(poses[bj, 2])
    r_p = poses[bj, :2] + np.einsum("pab,pb->pa", rot_j, point)
    r_l = poses[bi, :2] + np.einsum("pab,pb->pa", rot_i, line_point)
    normal = np.einsum("pab,pb->pa", rot_i, np.stack([-axis[:, 1], axis[:, 0]], axis=1))
    gaps = np.sum(normal * (r_p - r_l), axis=1)
    names = ["ground"] + [b.name for b in system.mechanism.layout.bodies]
    groups = ([(c, c.n_pairs) for c in elements] if elements is not None else
              [(None, 1)] * len(gaps))
    problems, first = [], 0
    for element, count in groups:
        k = first + int(np.argmin(gaps[first:first + count]))
        first += count
        size = max(float(np.linalg.norm(point[k])), 1e-3)
        depth = -float(gaps[k])
        if depth <= 1e-6 * size:
            continue
        delta = float(np.asarray(system.delta)[k])
        label = system.contact_names[k]
        if element is not None and hasattr(element, "clearance"):
            turned = _slider_turned(element, poses, bi[k], bj[k], names)
            if turned:
                problems.append(f"contact {element.name!r}: {turned}")
                continue
        moving_j = bj[k] != 0
        mover = names[bj[k] if moving_j else bi[k]]
        direction = (normal[k] if moving_j else -normal[k]) + 0.0       # no "-0"
        problems.append(
            f"contact {label!r}: the point {np.round(point[k], 6).tolist()} of body "
            f"{names[bj[k]]!r} starts {depth:.4g} m inside its line on {names[bi[k]]!r} "
            f"(gap {gaps[k]:.4g} m): the relaxation would push it out at up to depth/δ = "
            f"{depth / delta:.3g} m/s. Move body {mover!r} by {depth:.4g} m along "
            f"({direction[0]:.4g}, {direction[1]:.4g}) (towards the free side), or start it "
            "resting on the line (gap 0).")
    if problems:
        count = "1 contact starts" if len(problems) == 1 else f"{len(problems)} contacts start"
        raise ModelError(f"{count} penetrated (checked at `{where}`; a run continued from "
                         "the Results of another is not checked):\n  - "
                         + "\n  - ".join(problems))


def _rotations(phi):
    c, s = np.cos(phi), np.sin(phi)
    return np.stack([np.stack([c, -s], -1), np.stack([s, c], -1)], -2)


def _slider_turned(slider, poses, i, j, names) -> str | None:
    """Why `slider` cannot fit between its walls at its start angle, or None when it can
    (then moving it across the channel is the fix)."""
    t = slider.guide_axis
    angle = poses[j, 2] - poses[i, 2] - math.atan2(t[1], t[0])
    angle = math.remainder(angle, math.pi)             # the rectangle is the same turned by π
    L, H, wall = slider.half_length, slider.half_height, slider.half_height + slider.clearance
    extent = L * abs(math.sin(angle)) + H * abs(math.cos(angle))
    if extent <= wall * (1 + 1e-9):
        return None
    reach = math.hypot(L, H)
    limit = math.asin(min(wall / reach, 1.0)) - math.atan2(H, L)
    return (f"slider {names[j]!r} starts turned through the walls of its guide: at "
            f"{angle:.4g} rad ({math.degrees(angle):.3g}°) to the guide its corners reach "
            f"{extent:.4g} m from the centre line, and the walls are at ±{wall:.4g} m. A "
            f"slider of half sizes {L:g} × {H:g} m fits only within ±{limit:.4g} rad "
            f"({math.degrees(limit):.3g}°) of the guide: turn body {names[j]!r} back (phi of "
            f"the guide's axis, ±{limit:.3g} rad) and centre it in the channel.")


def _state_vector(initial, system):
    """`initial` as a state vector to check, or None when it is not one (simulate then
    refuses it with its own message)."""
    try:
        x = np.asarray(initial, dtype=float)
    except (TypeError, ValueError):
        return None
    n = len(system.state_names)
    return x if x.shape == (n,) and np.all(np.isfinite(x)) else None


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
                      restitution=None, **options: Any) -> Results:
    """Model.simulate for a model with frictional contacts (see Model.simulate).

    ``method="moreau_jean"`` (with `dt`, optional ``theta=`` and ``restitution=``) runs the
    time-stepping route on the :class:`ContactPlanarSystem` (module :mod:`._contact_step`:
    the step of :func:`stickslip.planar.moreau_jean`); it projects the joints after every
    step, so it takes neither `baumgarte` nor ``projection=False``. A step whose impulse
    problem has no solution or several raises the same PainleveError as the ODE route.

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
    # (moreau_jean steps on the same grid: dt_out a whole multiple of dt)
    check_time_arguments("planar.Model.simulate", t_end, dt, dt_out, options.get("t0"),
                         initial=options.get("initial"),
                         fixed_step=fixed or (method == "moreau_jean" and dt is not None))
    formulation = check_formulation("kikuuwe" if contact_formulation is None
                                    else contact_formulation)
    stepping = method == "moreau_jean"
    projection = fixed or stepping if projection is None else bool(projection)
    if baumgarte is None:
        baumgarte = (0.0, 0.0) if projection else (10.0, 10.0)
    options.pop("max_drift", None)
    if restitution is not None:
        if not stepping:
            raise ParameterError("`planar.Model.simulate.restitution` is an option of "
                                 f"method='moreau_jean'; got method={method!r}. The relaxed "
                                 "ODE's impacts follow from each contact's zeta.")
        restitution = check_restitution("planar.Model.simulate", restitution)
    if stepping and (tuple(baumgarte) != (0.0, 0.0) or not projection):
        raise ParameterError("method='moreau_jean' projects the joints after every step; drop "
                             "`planar.Model.simulate.baumgarte` and `projection`.")
    system = contact_system(model, formulation, baumgarte, projection, painleve_check,
                            restitution=restitution)
    # the elements a route does not represent: refused by name, never passed through (the
    # ODE routes here; moreau_jean's refusals, as a plain mechanism's, by the core's
    # route_refusal, a ParameterError)
    refusal = None if stepping else ode_refusal(system.mechanism, method)
    if refusal is not None:
        raise ModelError(f"planar model {model.name!r}: {refusal}.")
    lean = not stepping and not enumerates_each_evaluation(
        ["planar_contact"] * len(system.names), formulation, painleve_check)
    if lean:
        system = dataclasses.replace(system, fallback=False)
    if options.get("initial") is None and model.layout.n_rows:
        from . import _analyses as analyses

        mech = system.mechanism
        start = analyses.assemble(mech, t=float(options.get("t0", 0.0)))
        system = eqx.tree_at(lambda s: s.mechanism, system, mech.with_state(
            *analyses.state_of(start, mech.layout.n_coordinates)))
    initial = options.get("initial")
    if not isinstance(initial, Results):     # a continued run starts where one ended
        x0 = system.initial_state() if initial is None else _state_vector(initial, system)
        if x0 is not None:
            check_contact_start(system, x0, "planar.Model.simulate",
                                model.frictional_contacts)
    start = time.perf_counter()
    try:
        res = integrate.simulate(system, t_end, dt=dt, method=method, dt_out=dt_out,
                                 **options)
    except SimulationError as exc:
        if not stepping:
            raise
        # a joint friction's fixed point failed in a step: name the joint and the time
        from ._analyses import moreau_jean_failure
        raise moreau_jean_failure(system, exc, dt, dt_out, options) from exc
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
        if k == 1 and not stepping:
            # the counters grew over the first interval: was the start itself Painlevé?
            # (one extra compile, paid only on this path)
            x_start = np.array([res[name][0] for name in system.state_names])
            at_start = _status(system, t_prev, x_start)
            if at_start:
                raise _painleve(system, t_prev, x_start, at_start, "at the start,")
        raise _painleve(system, float(res.t[k]), x, status,
                        f"{'in a Moreau–Jean step ' if stepping else ''}between "
                        f"t={t_prev:.6g} s and")
    res.meta.update(model=model.name, analysis="dynamics", contact_formulation=formulation,
                    lambda_fallback=fallback,
                    projection=projection, baumgarte=list(baumgarte),
                    wall_time=time.perf_counter() - start)
    if stepping:
        assert system.restitution is not None, "contact_system always sets a restitution"
        res.meta["restitution"] = float(system.restitution)
    return res
