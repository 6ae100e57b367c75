"""Freezing a `SpatialModel` with joints, drivers, loads or point contacts into a
:class:`~._link_system.LinkSystem`: names → indices, world points → body-fixed anchors,
elements grouped by type, redundant constraint rows removed, initial velocities made
consistent with the joints.

Redundant rows (a closed loop whose joints remove the same freedom twice — a 3-D four-bar of
parallel hinges has 20 rows for 18 coordinates and one DOF) are found from the rank of the
mass-weighted Jacobian at the initial pose (Gram–Schmidt with pivoting, relative tolerance
1e-9: :func:`independent_rows`) and dropped,
as Adams and MotionSolve do; the reactions of such a loop are then one of many admissible
sets (``LinkSystem.parameters()["redundant_rows"]`` names the dropped rows).
"""

from __future__ import annotations

import numpy as np

from .._compile.options import runs_once
from ..errors import ModelError, ParameterError
from ._elements import (
    JOINT_ROW_COUNTS,
    STATIC_SPEED,
    AbstractJoint,
    BodyTorque,
    ContactPair,
    FixedJoint,
    JointDriver,
    PointForce,
    SpringDamper,
)
from ._shapes import Polyhedron, Sphere

__all__ = ["box_half_extents", "build_link_system"]


def _matrix(q):
    w, x, y, z = np.asarray(q, dtype=float) / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def box_half_extents(shape) -> np.ndarray | None:
    """Half extents of an axis-aligned box centred at the body origin, else None."""
    if not isinstance(shape, Polyhedron) or len(shape.vertices) != 8:
        return None
    half = np.max(np.abs(shape.vertices), axis=0)
    corners = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])
    target = corners * half
    v = shape.vertices
    match = all(np.min(np.linalg.norm(v - c, axis=1)) < 1e-9 * max(half.max(), 1e-300)
                for c in target)
    return half if match else None


def _frame(axis):
    """Columns (u, e₁, e₂): u the axis, e₁, e₂ completing a right-handed frame."""
    u = np.asarray(axis, dtype=float)
    helper = np.array([1.0, 0.0, 0.0]) if abs(u[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    e1 = np.cross(helper, u)
    e1 /= np.linalg.norm(e1)
    return np.stack([u, e1, np.cross(u, e1)], axis=1)


def _contact_points(model, pair, index, problems):
    """(name, kind, a, b, arrays) rows of the point contacts of one ContactPair."""
    n_b = len(model.bodies)
    a = n_b if pair.body_a == "ground" else index[pair.body_a]
    b = index[pair.body_b]
    shape_b = model.bodies[b].shape
    shape_a = None if a == n_b else model.bodies[a].shape
    base = pair.name or f"{pair.body_a}-{pair.body_b}"
    height = model.ground["height"] if model.ground else 0.0
    mu, mu_s = pair.mu, pair.mu_s
    if mu is None:
        if pair.body_a == "ground" and model.ground is not None:
            mu = model.ground["mu_d"]
            mu_s = model.ground["mu_s"] if mu_s is None else mu_s
        else:
            problems.append(f"ContactPair {base}: give mu=... (a friction coefficient >= 0).")
            return []
    mu_s = mu if mu_s is None else mu_s
    if mu_s < mu:
        problems.append(f"ContactPair {base}: the static coefficient mu_s={mu_s:g} is below "
                        f"the kinetic mu_k={mu:g} (the ground's); pass mu_s >= mu_k.")
        return []
    v_stribeck = STATIC_SPEED if pair.v_stribeck is None else pair.v_stribeck

    def row(name, kind, A, B, point=(0, 0, 0), ra=0.0, rb=0.0, half=(0, 0, 0)):
        return (name, kind, A, B, {"point": np.asarray(point, float), "radius_a": float(ra),
                                   "radius_b": float(rb), "half_a": np.asarray(half, float),
                                   "height": float(height), "mu": float(mu),
                                   "mu_s": float(mu_s), "v_stribeck": float(v_stribeck)})

    out = []
    if shape_b is None or (a < n_b and shape_a is None):
        problems.append(f"ContactPair {base}: both bodies need a shape (add_body(shape=...)).")
        return out
    if a == n_b:
        if isinstance(shape_b, Sphere):
            return [row(base, "ground-sphere", a, b, rb=shape_b.radius)]
        return [row(f"{base}.{k + 1}", "ground-vertex", a, b, point=p)
                for k, p in enumerate(shape_b.vertices)]
    if isinstance(shape_a, Sphere) and isinstance(shape_b, Sphere):
        return [row(base, "sphere-sphere", a, b, ra=shape_a.radius, rb=shape_b.radius)]
    half_a, half_b = box_half_extents(shape_a), box_half_extents(shape_b)
    if isinstance(shape_a, Sphere) and half_b is not None:      # sphere against a box
        a, b, half_a, shape_a, shape_b = b, a, half_b, shape_b, shape_a
    if half_a is not None and isinstance(shape_b, Sphere):
        return [row(base, "sphere-box", a, b, rb=shape_b.radius, half=half_a)]
    if half_a is None and half_b is not None and isinstance(shape_a, Polyhedron):
        # a polyhedron against a box given second: the polyhedron's vertices on the box
        return [row(f"{base}.{k + 1}", "vertex-box", b, a, point=p, half=half_b)
                for k, p in enumerate(shape_a.vertices)]
    if half_a is not None and isinstance(shape_b, Polyhedron):
        which = pair.vertices_of if half_b is not None else "b"
        out = []
        if which in ("both", "b"):
            out += [row(f"{base}.{k + 1}", "vertex-box", a, b, point=p, half=half_a)
                    for k, p in enumerate(shape_b.vertices)]
        if which in ("both", "a"):                               # a's vertices on box b
            assert isinstance(shape_a, Polyhedron), "half_a set: body a's shape is a box"
            out += [row(f"{base}.{len(out) + k + 1}", "vertex-box", b, a, point=p, half=half_b)
                    for k, p in enumerate(shape_a.vertices)]
        return out
    problems.append(f"ContactPair {base}: point contacts between a "
                    f"{type(shape_a).__name__} and a {type(shape_b).__name__} are not supported "
                    "(supported: ground with any shape, sphere–sphere, sphere–box, polyhedron "
                    "vertices against a box). Use a Box or a Sphere.")
    return out


def build_link_system(model, *, delta: float = 1e-3, zeta: float = 1.0,
                      baumgarte=(10.0, 10.0), formulation: str = "kikuuwe"):
    """The :class:`~._link_system.LinkSystem` of `model` (see the module docstring).

    delta [s], zeta [-]: the contacts' relaxation (SPEC §6). baumgarte: (α, β) [1/s] of the
    joints' stabilisation Φ̈ + 2αΦ̇ + β²Φ = 0. formulation: the λ-problem's law
    (``"kikuuwe"``, ``"anitescu"``, ``"nakaoka"``).

    Raises ModelError listing every problem at once (one line each).
    """
    import jax

    from ..constraints import check_formulation
    from ._link_layout import ContactArrays, JointArrays, LinkLayout, SpringArrays
    from ._link_system import LinkSystem

    check_formulation(formulation)
    for label, value, positive in (("delta", delta, True), ("zeta", zeta, False)):
        if not (np.isfinite(value) and (value > 0 if positive else value >= 0)):
            raise ParameterError(f"`{label}` must be {'> 0 [s]' if positive else '>= 0'}; got "
                                 f"{label}={value!r}.")
    try:
        alpha, beta = (float(v) for v in baumgarte)
    except (TypeError, ValueError):
        alpha = beta = float("nan")
    if not (np.isfinite(alpha) and np.isfinite(beta) and alpha >= 0 and beta >= 0):
        raise ParameterError(f"`baumgarte` gains must be two finite numbers >= 0 [1/s]; got "
                             f"{baumgarte!r}.")
    bodies = model.bodies
    if not bodies:
        raise ModelError("the model has no bodies. Add one with `model.add_body(...)`.")
    n_b = len(bodies)
    index = {b.name: k for k, b in enumerate(bodies)}
    index["ground"] = n_b
    X0 = np.array([b.state for b in bodies])
    Rs = [_matrix(b.state[3:7]) for b in bodies] + [np.eye(3)]
    rs = [b.state[0:3] for b in bodies] + [np.zeros(3)]
    problems: list[str] = []

    def body(owner, name):
        if name not in index:
            problems.append(f"{owner}: body {name!r} is not in the model (bodies: "
                            f"{[b.name for b in bodies]}).")
            return None
        return index[name]

    joints, arrays, frictions, law_names, laws, pins = [], [], [], [], [], []
    names_seen: set = set()
    elements = list(model.elements)
    for e in elements:
        if not isinstance(e, AbstractJoint):
            continue
        name = e.name or f"{e.body_i}-{e.body_j}"
        if name in names_seen:
            problems.append(f"{e.kind} {name!r}: a joint of that name already exists; give "
                            "each joint its own name=.")
        names_seen.add(name)
        i, j = body(f"{e.kind} {name!r}", e.body_i), body(f"{e.kind} {name!r}", e.body_j)
        if i is None or j is None:
            continue
        point = getattr(e, "point", None)
        if point is None:
            point = rs[j] if j < n_b else rs[i]
        axis = getattr(e, "axis", np.array([0.0, 0.0, 1.0]))
        F = _frame(axis)
        arrays.append({"s_i": Rs[i].T @ (point - rs[i]), "s_j": Rs[j].T @ (point - rs[j]),
                       "frame_i": Rs[i].T @ F, "frame_j": Rs[j].T @ F,
                       "C": Rs[i].T @ Rs[j]})
        joints.append((name, e.kind, i, j))
        law = getattr(e, "friction", None)
        if law is not None:
            start = len(law_names)
            law_names.extend(f"{name}.{s}" for s in law.state_names)
            frictions.append((len(joints) - 1, (start, len(law_names))))
            laws.append(law)
            pins.append(getattr(e, "pin_radius", 0.0))
    joint_index = {j[0]: k for k, j in enumerate(joints)}

    drivers, driver_values = [], []
    for e in elements:
        if not isinstance(e, JointDriver):
            continue
        if e.joint not in joint_index:
            problems.append(f"JointDriver: joint {e.joint!r} is not in the model (joints: "
                            f"{list(joint_index)}).")
            continue
        jk = joint_index[e.joint]
        if joints[jk][1] not in ("RevoluteJoint", "PrismaticJoint"):
            problems.append(f"JointDriver on {e.joint!r}: only revolute and prismatic joints "
                            f"can be driven; it is a {joints[jk][1]}.")
            continue
        if callable(e.value):
            fn, value = e.value, 0.0
        else:
            fn, value = None, float(e.value)
        drivers.append((e.name or f"{e.joint}.driver", jk, e.mode, fn, len(driver_values)))
        driver_values.append(value)

    forces, force_values, force_points, torques, torque_values = [], [], [], [], []
    springs, spring_arrays = [], {"k": [], "c": [], "l0": [], "s_i": [], "s_j": []}
    contact_pairs = [e for e in elements if isinstance(e, ContactPair)]
    for e in elements:
        if isinstance(e, PointForce):
            b = body("PointForce", e.body)
            if b is not None:
                fn = e.force if callable(e.force) else None
                forces.append((b, fn))
                force_values.append(np.zeros(3) if fn else e.force)
                force_points.append(e.point)
        elif isinstance(e, BodyTorque):
            b = body("BodyTorque", e.body)
            if b is not None:
                fn = e.torque if callable(e.torque) else None
                torques.append((b, fn))
                torque_values.append(np.zeros(3) if fn else e.torque)
        elif isinstance(e, SpringDamper):
            name = e.name or f"{e.body_i}-{e.body_j}.spring"
            i, j = body(f"SpringDamper {name!r}", e.body_i), body(f"SpringDamper {name!r}",
                                                                    e.body_j)
            if i is None or j is None:
                continue
            springs.append((name, i, j))
            spring_arrays["k"].append(e.stiffness)
            spring_arrays["c"].append(e.damping)
            spring_arrays["l0"].append(np.linalg.norm(e.point_j - e.point_i)
                                       if e.rest_length is None else e.rest_length)
            spring_arrays["s_i"].append(Rs[i].T @ (e.point_i - rs[i]))
            spring_arrays["s_j"].append(Rs[j].T @ (e.point_j - rs[j]))

    # ground contacts: every body with a shape (not welded to the ground), when the model has
    # a ground
    if model.ground is not None:
        explicit = {(p.body_a, p.body_b) for p in contact_pairs}
        welded = {e.body_j if e.body_i == "ground" else e.body_i for e in elements
                  if isinstance(e, FixedJoint) and "ground" in (e.body_i, e.body_j)}
        for b in bodies:
            if b.shape is not None and ("ground", b.name) not in explicit \
                    and b.name not in welded:
                contact_pairs.append(ContactPair("ground", b.name))
    contacts = []
    for p in contact_pairs:
        if body("ContactPair", p.body_a) is None or body("ContactPair", p.body_b) is None:
            continue
        contacts.extend(_contact_points(model, p, index, problems))
    problems.extend(_ground_overlaps(contacts, bodies, rs, Rs))
    restitution = (model.restitution if model.restitution is not None
                   else (model.ground or {}).get("restitution"))
    if contacts and restitution is not None:
        # the point contacts are inelastic (SPEC §6's λ-problem: an impact ends in contact);
        # a restitution here was ignored, and a ball given e = 1 stopped dead
        problems.append(f"restitution={restitution!r} is not supported by point contacts "
                        "(an impact ends in contact: restitution 0); remove it, or run "
                        "free polyhedral bodies on the volume contact "
                        "(`simulate(contact='volume')`), which takes one.")
    if problems:
        raise ModelError("the spatial model has problems:\n  " + "\n  ".join(problems))

    def stack(rows, keys, shape):
        if not rows:
            return {k: np.zeros((0,) + shape[k]) for k in keys}
        return {k: np.array([r[k] for r in rows]) for k in keys}

    joint_arrays = stack(arrays, ("s_i", "s_j", "frame_i", "frame_j", "C"),
                         {"s_i": (3,), "s_j": (3,), "frame_i": (3, 3), "frame_j": (3, 3),
                          "C": (3, 3)})
    contact_arrays = stack([c[4] for c in contacts],
                           ("point", "radius_a", "radius_b", "half_a", "height", "mu", "mu_s",
                            "v_stribeck"),
                           {"point": (3,), "radius_a": (), "radius_b": (), "half_a": (3,),
                            "height": (), "mu": (), "mu_s": (), "v_stribeck": ()})
    n_joint_rows = sum(JOINT_ROW_COUNTS[j[1]] for j in joints)
    n_rows_total = n_joint_rows
    n_rows_total += sum(1 for d in drivers if d[2] != "effort")
    holonomic_all = np.array([True] * n_joint_rows
                             + [d[2] == "position" for d in drivers if d[2] != "effort"],
                             dtype=bool)

    def on_device(value):
        # jax.device_put of the NumPy array, not jnp.asarray: that one compiles a tiny
        # program per new shape and dtype (JAX 0.10), ~10 of them in a fresh process
        return jax.device_put(np.asarray(value))

    def make(kept, holonomic, redundant, x0):
        layout = LinkLayout(name=type(model).__name__, bodies=[b.name for b in bodies],
                            joints=joints, drivers=drivers, kept=kept, holonomic=holonomic,
                            frictions=frictions, law_state_names=law_names, forces=forces,
                            torques=torques, springs=springs,
                            contacts=[c[:4] + (None,) for c in contacts],
                            formulation=formulation, redundant=redundant)
        s0 = (np.concatenate([np.asarray(law.initial_state()).reshape(-1) for law in laws])
              if laws else np.zeros(0))
        return LinkSystem(
            x0=x0, masses=np.array([b.mass for b in bodies]),
            inertias=np.array([b.inertia for b in bodies]), gravity=model.gravity,
            joint_arrays=JointArrays(**{k: on_device(v) for k, v in joint_arrays.items()}),
            driver_values=np.array(driver_values, dtype=float).reshape(-1),
            force_values=np.array(force_values, dtype=float).reshape(-1, 3),
            force_points=np.array(force_points, dtype=float).reshape(-1, 3),
            torque_values=np.array(torque_values, dtype=float).reshape(-1, 3),
            springs=SpringArrays(**{k: on_device(np.array(v, dtype=float).reshape(
                (-1, 3) if k in ("s_i", "s_j") else -1)) for k, v in spring_arrays.items()}),
            laws=tuple(laws), pin_radii=np.array(pins, dtype=float),
            contact_arrays=ContactArrays(**{k: on_device(v) for k, v in contact_arrays.items()}),
            delta=float(delta), zeta=float(zeta), alpha=alpha, beta=beta, s0=s0,
            layout=layout)

    all_rows = np.arange(n_rows_total)
    system = make(all_rows, holonomic_all, (), X0)
    if not n_rows_total:
        return system
    phi, J, rate = (np.asarray(v) for v in _kinematics(system, on_device(X0)))
    # independent rows: pivoted QR of the mass-weighted Jacobian
    from ._link_dynamics import inverse_mass

    minv = inverse_mass(system, X0)
    scale = np.sqrt(np.diag(minv))
    kept = independent_rows(J * scale[None, :])
    dropped = sorted(set(range(n_rows_total)) - set(kept.tolist()))
    redundant = tuple(_row_label(joints, drivers, int(r)) for r in dropped)
    if dropped:
        _check_regular_start(system, X0, J, kept, holonomic_all, joints, drivers)
        _check_drivers_independent(J * scale[None, :], kept, dropped, joints, drivers)
    hol = holonomic_all[kept]
    if np.abs(phi[kept][hol]).max(initial=0.0) > 1e-9:
        k = int(np.argmax(np.abs(phi[kept]) * hol))
        raise ModelError(
            f"the bodies' initial poses do not satisfy {_row_label(joints, drivers, kept[k])} "
            f"(residual {abs(phi[kept][k]):.3g}). Give each joint's point and axis at the "
            "initial pose and place the bodies consistently (a position driver starts at "
            "its value at t0).")
    # make the initial velocities consistent with the joints and drivers: the smallest
    # mass-weighted change, δν = −M⁻¹Jᵀ(J M⁻¹ Jᵀ)⁻¹ Φ̇
    Jk = J[kept]
    nu = X0[:, 7:13].reshape(-1)
    dnu = -minv @ Jk.T @ np.linalg.solve(Jk @ minv @ Jk.T, rate[kept])
    X1 = X0.copy()
    X1[:, 7:13] = (nu + dnu).reshape(n_b, 6)
    system = make(kept, hol, redundant, X1)
    return system


# deeper than this inside the ground at the initial pose is an error (a body placed with a
# rounded coordinate, 1e-9 m in, is not)
START_DEPTH = 1e-6


def _ground_overlaps(contacts, bodies, rs, Rs) -> list[str]:
    """The point contacts with the ground that start more than START_DEPTH [m] inside it,
    one problem each, by body: the contact's compliance would push such a body out in the
    first steps and launch it (1 mm in: a 1 kg box jumped 9 mm, +0.09 J)."""
    deepest: dict = {}
    for name, kind, _, b, arrays in contacts:
        if kind == "ground-vertex":
            depth = arrays["height"] - (rs[b] + Rs[b] @ arrays["point"])[2]
        elif kind == "ground-sphere":
            depth = arrays["height"] - (rs[b][2] - arrays["radius_b"])
        else:
            continue
        if depth > START_DEPTH and depth > deepest.get(b, (0.0, ""))[0]:
            deepest[b] = (float(depth), name)
    return [f"body {bodies[b].name!r} starts {depth:.3g} m inside the ground (contact "
            f"{name!r}); place it on or above the ground (add_body(position=...)), e.g. its "
            "lowest point at the ground's height." for b, (depth, name) in deepest.items()]


def _quat_step(q, theta):
    """Quaternion q (w, x, y, z) turned by the world rotation vector θ [rad]."""
    angle = float(np.linalg.norm(theta))
    if angle == 0.0:
        return q
    w, v = np.cos(angle / 2), np.sin(angle / 2) * theta / angle
    qw, qv = q[0], q[1:]
    out = np.concatenate([[w * qw - v @ qv], w * qv + qw * v + np.cross(v, qv)])
    return out / np.linalg.norm(out)


def _moved(X, nu, step):
    """Body states X (n_b, 13) with the poses moved by `step` times the twists ν (6 n_b,)."""
    out = X.copy()
    for k, twist in enumerate(np.asarray(nu).reshape(-1, 6)):
        out[k, 0:3] += step * twist[:3]
        out[k, 3:7] = _quat_step(out[k, 3:7], step * twist[3:])
    return out


def _check_regular_start(system, X0, J, kept, holonomic, joints, drivers):
    """Raise `ModelError` when the initial pose is at (or within round-off of) a singular
    configuration of the rows: where rows are dropped as redundant, their rank at a nearby
    pose — the start moved along a generic admissible motion by about 1e-3 rad or 1e-3 of
    the model's size, then put back on the rows by Newton steps — must equal the rank at the
    start. Otherwise a row that only looks dependent at the start (a four-bar released at its
    flat change point, or 1e-6 rad from it) would be dropped for the whole run and its joint
    would come apart unseen."""
    import jax

    from ._link_dynamics import inverse_mass

    def weighted(X):
        return np.sqrt(np.diag(inverse_mass(system, X)))

    scale = weighted(X0)
    Jw = J[kept] * scale[None, :]
    _, sv, Vt = np.linalg.svd(Jw)
    free = Vt[int(np.sum(sv > 1e-9 * max(sv.max(initial=0.0), 1e-300))):]
    if not free.shape[0]:
        return                                   # nothing moves: no other pose to compare
    nu = scale * (np.random.default_rng(0).standard_normal(free.shape[0]) @ free)
    twists = nu.reshape(-1, 6)
    size = max(float(np.ptp(X0[:, :3], axis=0).max()), 1e-2)
    reach = max(np.abs(twists[:, 3:]).max(), np.abs(twists[:, :3]).max() / size)
    X = _moved(X0, nu, 1e-3 / reach)
    hol = kept[holonomic[kept]]
    for _ in range(8):                           # back onto the position rows (Newton)
        phi, Jx, _ = (np.asarray(v) for v in _kinematics(system, jax.device_put(X)))
        if np.abs(phi[hol]).max(initial=0.0) < 1e-13 * size:
            break
        X = _moved(X, -np.linalg.lstsq(Jx[hol], phi[hol], rcond=None)[0], 1.0)
    else:
        return      # the rows could not be met near the start: no comparison (the build's
        #             residual check at the start stands)
    nearby = independent_rows(Jx * weighted(X)[None, :])
    if nearby.size > kept.size:
        dropped = sorted(set(range(J.shape[0])) - set(kept.tolist()))
        raise ModelError(
            f"the initial pose is at (or within round-off of) a singular configuration: "
            f"the joints' and drivers' rows have rank {kept.size} there and {nearby.size} "
            f"after a small motion. Of the rows that look redundant at the start "
            f"({', '.join(_row_label(joints, drivers, int(r)) for r in dropped)}), "
            f"{nearby.size - kept.size} {'is' if nearby.size - kept.size == 1 else 'are'} "
            "not, and dropping it would let a joint come apart. Start the mechanism away "
            "from the singular pose (e.g. turn a link by a few degrees).")


def _check_drivers_independent(Jw, kept, dropped, joints, drivers):
    """Raise `ModelError` when a driver's row depends on the other rows: the joints and
    other drivers already fix the coordinate it drives (two drivers on one joint, a driver
    on a coordinate a loop holds). Dropping it as redundant would ignore the driver."""
    n_joint_rows = sum(JOINT_ROW_COUNTS[j[1]] for j in joints)
    for r in dropped:
        if r < n_joint_rows:
            continue
        c = np.linalg.lstsq(Jw[kept].T, Jw[r], rcond=None)[0]
        on = kept[np.abs(c) > 1e-6 * np.abs(c).max(initial=0.0)]
        raise ModelError(
            f"JointDriver {_row_label(joints, drivers, r)!r} drives a coordinate that "
            f"{[_row_label(joints, drivers, int(k)) for k in on]} already fix (its row "
            "depends on theirs at the initial pose), so it would be ignored. A joint takes "
            "one driver, and a driver cannot move what the joints hold: remove one of them.")


def consistent_initial(system, X, t0: float = 0.0,
                       owner: str = "simulate.initial") -> np.ndarray:
    """Body states X (n_b, 13) given to a run (``initial=``) made ready for it as the build
    makes the model's own: each orientation quaternion normalised (a zero or non-finite one
    is an error naming the body), the poses checked against the joints and position drivers
    at t = 0 (a residual above 1e-6 is an error naming the row: the run would otherwise pull
    the bodies together in its first step, unseen), and the velocities made consistent with
    the rows by the smallest mass-weighted change, δν = −M⁻¹Jᵀ(J M⁻¹ Jᵀ)⁻¹ Φ̇ (the rows at
    the run's start t0 [s]: a position driver's value there)."""
    import jax

    from ._link_dynamics import inverse_mass

    layout = system.layout
    X = np.array(X, dtype=float)
    for k, name in enumerate(layout.bodies):
        norm = np.linalg.norm(X[k, 3:7])
        if not (np.isfinite(norm) and norm > 1e-12):
            raise ParameterError(f"`{owner}`: body {name!r} has the orientation quaternion "
                                 f"{X[k, 3:7].tolist()}; give a nonzero (w, x, y, z) (it is "
                                 "normalised).")
        X[k, 3:7] /= norm
    if not layout.kept.size:
        return X
    phi, J, rate = (np.asarray(v) for v in _kinematics(system, jax.device_put(X), t0))
    hol = np.asarray(layout.holonomic, dtype=bool)
    bad = np.abs(phi) * hol
    if bad.max(initial=0.0) > 1e-6:
        k = int(np.argmax(bad))
        label = _row_label(layout.joints, layout.drivers, int(layout.kept[k]))
        raise ModelError(
            f"`{owner}`: the bodies' poses do not satisfy {label} (residual {bad[k]:.3g}). "
            "Give poses that keep the joints together (a position driver at its value at "
            "t0), e.g. a state of an earlier run (`Results.final_state`).")
    minv = inverse_mass(system, X)
    nu = X[:, 7:13].reshape(-1)
    # least squares: a state at a singular pose must not stop here with a bare LinAlgError
    X[:, 7:13] = (nu - minv @ J.T @ np.linalg.lstsq(J @ minv @ J.T, rate, rcond=None)[0]
                  ).reshape(-1, 6)
    return X


def _kinematics(system, X, t: float = 0.0):
    """(Φ, J, Φ̇) of every row at time t [s]: one small program, kept by the program store
    (a later process loads it)."""
    from ..integrate import call_with_system

    return call_with_system(_kinematics_kernel, system, X, np.float64(t))


@runs_once
def _kinematics_kernel(system, X, t):
    phi, J, rate, _ = system.joint_terms(t, X, derivatives=False)
    return phi, J, rate


def independent_rows(J: np.ndarray, rtol: float = 1e-9) -> np.ndarray:
    """Indices (sorted) of a largest set of linearly independent rows of J: Gram–Schmidt
    with pivoting (the row of largest remaining norm first, as a column-pivoted QR of Jᵀ
    picks them); a row whose remainder is below `rtol` times the largest row norm is
    dependent."""
    rest = np.array(J, dtype=float)
    norms = np.linalg.norm(rest, axis=1)
    tol = rtol * max(norms.max(initial=0.0), 1e-300)
    kept = []
    for _ in range(min(rest.shape)):
        k = int(np.argmax(norms))
        if norms[k] <= tol:
            break
        kept.append(k)
        q = rest[k] / norms[k]
        rest -= np.outer(rest @ q, q)
        norms = np.linalg.norm(rest, axis=1)
        norms[kept] = -1.0
    return np.array(sorted(kept), dtype=int)


def _row_label(joints, drivers, row):
    start = 0
    for name, kind, _, _ in joints:
        size = JOINT_ROW_COUNTS[kind]
        if row < start + size:
            return f"{name}[{row - start}]"
        start += size
    active = [d for d in drivers if d[2] != "effort"]
    return f"{active[row - start][0]}"

