"""The host side of a planar model's frictional contacts (SPEC §6): adding one to a
:class:`~stickslip.planar.Model`, the frozen model with its contacts
(:func:`contact_system`), the refusal of a start with a contact penetrated, and the Painlevé
check that stops a run whose λ-problem has no solution or several (:func:`painleve_stop`).
The run itself is :meth:`Model.simulate`'s one path (:mod:`._simulate`)."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np

from ..constraints import STATUS_TEXT
from ..errors import ModelError, PainleveError, ParameterError
from ._contact import AbstractFrictionalContact

__all__ = ["add_frictional_contact", "check_contact_start", "contact_system",
           "painleve_stop"]


def add_frictional_contact(model, element: AbstractFrictionalContact):
    """Model.add for frictional contacts: resolve the bodies, name the element (its class's
    prefix and the number of contacts so far: ``contact1``, ``slider2``), keep and return the
    bound element (a new module; `element` itself is not changed)."""
    contacts = model.frictional_contacts
    name = element.name
    if name is None:
        name = f"{element.prefix}{len(contacts) + 1}"
    taken = [e.name for e in model._all_elements()] + [c.name for c in contacts]
    if name in taken:
        raise ParameterError(f"contact name {name!r} is used twice; pass a unique "
                             "`name=`.")
    bodies = []
    for field, ref in element.body_refs():
        body = model._resolve_body(ref)
        if body is None:
            raise ParameterError(f"contact {name!r}: `{field}` is body "
                                 f"{getattr(ref, 'name', ref)!r}, which is not in this model "
                                 f"(bodies: {[b.name for b in model.bodies]}).")
        bodies.append(body)
    if bodies[0] is bodies[1]:
        raise ParameterError(f"contact {name!r} connects body {bodies[0].name!r} to "
                             "itself; pass two different bodies (or model.ground).")
    bound = element.bind(*bodies, name=name)
    contacts.append(bound)
    for obj in (element, bound):
        model._aliases[id(obj)] = (contacts, len(contacts) - 1)
    model._layout = None
    return bound


def contact_system(model, formulation: str = "kikuuwe", baumgarte=(0.0, 0.0),
                   projection: bool = True, certify: str = "auto",
                   fallback: bool = True, restitution=None):
    """The model frozen with its frictional contacts: ``model.system(...)`` with the λ-stage's
    options (`formulation`, `certify`: how uniqueness of the λ-problem's solution is
    checked, `fallback`: whether the enumeration takes over where the active set fails —
    ``solve_lambda``'s; `restitution`: Newton's e of ``method="moreau_jean"``, default e(ζ)
    of the first contact's ζ, module :mod:`._contact_step`). Raises ModelError for a model
    without frictional contacts."""
    if not model.frictional_contacts:
        raise ModelError(f"planar model {model.name!r} has no frictional contacts; add a "
                         "PointLineContact or ClearanceSlider first.")
    return model.system(baumgarte, projection=projection, contact_formulation=formulation,
                        painleve_check=certify, fallback=fallback, restitution=restitution)


def check_contact_start(system, x, where: str, elements=None) -> None:
    """Refuse a start with a contact point inside its line — a point below a floor, a
    slider's corner through a wall of its guide — by more than 1e-6 of the contact's size
    (at least 1 nm): the relaxation would push it out at up to depth/δ (a block 5 cm inside
    a floor with δ = 1 ms left at 18 m/s). Raises one ModelError with a line per contact:
    the depth, and the move that fixes it (the body, the distance and the direction; for a
    :class:`ClearanceSlider` turned through its walls, the angle it may have). A contact
    resting on its line (gap 0) passes. `elements`: the model's contacts in the order of
    the system's pairs (without them, each pair is judged alone). Host-side NumPy only:
    checked before anything is compiled, as the spatial models check their start."""
    q = np.asarray(x, dtype=float)[: system.layout.n_coordinates]
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
    names = ["ground"] + [b.name for b in system.layout.bodies]
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
        delta = float(np.asarray(pairs.delta)[k])
        label = pairs.contact_names[k]
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
    t = np.asarray(slider.guide_axis, dtype=float)
    angle = poses[j, 2] - poses[i, 2] - math.atan2(t[1], t[0])
    angle = math.remainder(angle, math.pi)             # the rectangle is the same turned by π
    L, H = float(slider.half_length), float(slider.half_height)
    wall = H + float(slider.clearance)
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


def _status(system, t: float, x) -> int:
    """The λ-problem's status at (t, x), checked as the vector field checks it."""
    n = system.layout.n_coordinates
    return int(jax.jit(lambda s, x: s.contact_dynamics(jnp.asarray(t), x[:n],
                                                       x[n:2 * n])["status"])(
        system, jnp.asarray(x)))


def _painleve(system, t: float, x, status: int, when: str):
    n = system.layout.n_coordinates
    d = jax.jit(lambda s, x: s.contact_dynamics(jnp.asarray(t), x[:n], x[n:2 * n]))(system, x)
    gap, fn = np.asarray(d["gap"]), np.asarray(d["fn"])
    scale = max(float(np.max(np.abs(fn))), 1e-300)
    names = system.pairs.contact_names
    involved = [name for name, g, f in zip(names, gap, fn)
                if g <= 1e-9 or f > 1e-9 * scale] or list(names)
    reason = STATUS_TEXT[status]
    state = {name: float(v) for name, v in zip(system.state_names, np.asarray(x))}
    return PainleveError(
        f"Painlevé paradox {when} t={t:.6g} s: the λ-problem of contact(s) "
        f"{', '.join(repr(c) for c in involved)} has {reason} (SPEC §6; "
        f"formulation {system.pairs.formulation!r}). The rigid model does not determine the motion "
        "here: lower the friction coefficient μ, change the geometry, or model the contact "
        "compliance (e.g. ss.laws.UnilateralODE).",
        time=t, state=state, contacts=tuple(involved), reason=reason)


def painleve_stop(system, res, stepping: bool) -> None:
    """Raise the PainleveError of a run whose counters grew (a λ-problem, or a step's
    impulse problem, with no solution or several), at the first sample where they did;
    nothing when they did not."""
    hit = np.flatnonzero((res["painleve.none"] > 0) | (res["painleve.several"] > 0))
    if not hit.size:
        return
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
