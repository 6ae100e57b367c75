"""Free rigid bodies with frictional point contacts against the ground, solved by the
λ-problem of SPEC §6 — the alternative to the volume method (SPEC §7) on the same bodies.

Each body of a :class:`stickslip.spatial.Model` touches the ground plane z = h at its shape's
vertices (a box: its eight corners) or, for a body listed in ``spheres``, at its lowest
point. Per contact point with world arm a = R p (p in the body frame):

    ψ = z_body + a_z − h                     gap [m]
    u = v + ω × a,   rows of J = [e, a × e] for e = e_x, e_y (friction) and e_z (normal)
    J̇ν = e·(ω × (ω × a))   (0 for a sphere, whose contact arm stays −R e_z)

The force block is a :class:`~stickslip.constraints.SpatialContact` with friction cone
‖λ_t‖ ≤ μ λ_n and U_ε = diag(1, 1, 1/ε); the relaxation (δ, ζ) gives
w = J ν̇ + J̇ν + (2ζ/δ) J ν + (1/δ²)[0; 0; ψ] ∈ −lim N_F^{U_ε}(λ) (SPEC §6). The state per
body is the spatial package's: position, quaternion (w, x, y, z), velocity, angular velocity
(world frame); the Newton–Euler equations M ν̇ = Q + Jᵀλ with Q = [m g + f; τ − ω × I ω],
through the λ-stage every host shares (:func:`stickslip.constraints.lambda_stage`).

Applied loads are data: ``force`` f (world frame) acting at the body-fixed ``force_point`` p_f
and a ``torque`` τ_a, so f adds (R p_f) × f + τ_a to the torque. They are array fields —
traced, like the masses — so a new load reuses the compiled run and ``jax.vmap`` (or
:func:`stickslip.simulate_batch`) runs many loads in one compile. The older ``forces``
callable (static: a new function is a new program) adds to them.

``simulate(..., method="moreau_jean", dt=h)`` steps the same bodies by their impulses
instead (:mod:`._point_contacts_step`: Moreau–Jean time stepping, Acary & Brogliato 2008
ch. 10): the λ-problem above at the velocity level, W = J M⁻¹ Jᵀ and w the end-of-step
contact velocity, solved by the same ``solve_lambda`` — no relaxation (δ, ζ unused), exact
stick at every step, no penetration at the end of a step (θ = 1; up to h(1 − θ)|vₙ| at an
impact under θ < 1), restitution 0.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import equinox as eqx
import jax
import jax.core  # jax.core.Tracer below (a submodule: named for static checkers)
import jax.numpy as jnp
import numpy as np

from .._compile.traced_once import computed_where
from .._parameter_arrays import as_parameter
from .._rules import FRICTION_COEFFICIENT
from ..constraints import (
    ProductSet,
    SpatialContact,
    check_formulation,
    lambda_stage,
)
from ..errors import ModelError, ParameterError
from ..integrate import AbstractSystem, AbstractTimeSteppingHost
from ._dynamics import quat_to_matrix
from ._model import SpatialModel
from ._model_rules import check_scalar as _check_scalar
from ._point_contacts_run import simulate as _simulate
from ._point_contacts_step import mass_terms
from ._point_contacts_step import moreau_jean_step as _moreau_jean_step
from ._shapes import Polyhedron, Sphere

__all__ = ["PointContacts"]

_STATE = ("x", "y", "z", "qw", "qx", "qy", "qz", "vx", "vy", "vz", "wx", "wy", "wz")


def _rotation(q):
    w, x, y, z = q / jnp.linalg.norm(q)
    return jnp.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                      [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                      [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def _quat_rate(q, w):
    """q̇ = ½ (0, ω) ⊗ q for the world-frame ω (the convention of :mod:`._dynamics`)."""
    qw, qx, qy, qz = q
    wx, wy, wz = w
    return 0.5 * jnp.array([-qx * wx - qy * wy - qz * wz,
                            qw * wx + wy * qz - wz * qy,
                            qw * wy + wz * qx - wx * qz,
                            qw * wz + wx * qy - wy * qx])


def _body_vectors(name: str, value, bodies) -> np.ndarray | jax.core.Tracer:
    """`value` as an (n_bodies, 3) float array (0 for None; a (3,) vector for one body),
    or a ParameterError naming `PointContacts.<name>` and the shape it needs."""
    n_b = len(bodies)
    if value is None:
        return np.zeros((n_b, 3))
    if isinstance(value, jax.core.Tracer):
        return value
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ParameterError(f"`PointContacts.{name}` must be numbers of shape ({n_b}, 3); "
                             f"got {type(value).__name__} {value!r:.60}.") from None
    if arr.shape == (3,) and n_b == 1:
        arr = arr[None, :]
    if arr.shape != (n_b, 3):
        raise ParameterError(f"`PointContacts.{name}` must have shape ({n_b}, 3): one "
                             f"3-vector per body ({list(bodies)}); got shape {arr.shape}.")
    if not np.all(np.isfinite(arr)):
        raise ParameterError(f"`PointContacts.{name}` must be finite; got {arr.tolist()}.")
    return arr


def _check_spheres(spheres, names) -> dict:
    """``{body: radius}`` with known bodies and radii > 0, or a ParameterError naming
    `PointContacts.spheres`."""
    if spheres is None:
        return {}
    if not isinstance(spheres, Mapping):
        raise ParameterError(f"`PointContacts.spheres` must be a mapping {{body name: radius "
                             f"[m]}}; got {type(spheres).__name__} {spheres!r:.60}. Pass e.g. "
                             f"{{{names[0]!r}: 0.05}}.")
    out = {}
    for name, r in spheres.items():
        if name not in names:
            raise ParameterError(f"`PointContacts.spheres` names body {name!r}, which is not "
                                 f"in the model (bodies: {names}).")
        out[name] = _check_scalar("PointContacts", f"spheres[{name!r}]", r, positive=True)
    return out


def _check_start(model, points, radii, owner, delta) -> None:
    """Refuse a start with a contact point inside the ground by more than 1e-6 of its body's
    size (the relaxation would push it out at depth/δ): name the body, the point, the depth
    and the move that fixes it. A body resting on the ground (depth 0) passes."""
    X = np.asarray(model.initial_state(), dtype=float)
    R = quat_to_matrix(X[:, 3:7] / np.linalg.norm(X[:, 3:7], axis=1, keepdims=True))
    h = float(model.ground["height"])
    owner = np.asarray(owner)
    arms = np.einsum("pij,pj->pi", R[owner], points)
    depth = h - (X[owner, 2] + arms[:, 2] - radii)
    size = np.maximum(np.linalg.norm(points, axis=1), radii)
    for k, body in enumerate(model.bodies):
        mine = np.flatnonzero(owner == k)
        worst = mine[np.argmax(depth[mine])]
        if depth[worst] > 1e-6 * max(np.max(size[mine]), 1e-3):
            d = float(depth[worst])
            what = ("its lowest point" if radii[worst] > 0 else
                    f"its vertex {np.round(points[worst], 6).tolist()} (contact "
                    f"{int(worst - mine[0]) + 1})")
            raise ModelError(
                f"body {body.name!r} starts with {what} {d:.4g} m inside the ground (checked "
                f"at `PointContacts.from_model`): the relaxation would push it out at about "
                f"depth/δ = {d / delta:.3g} m/s. Raise its position z by {d:.4g} m (to rest "
                f"on the ground: its lowest point at z = {h}).")


def _check_forces(forces, n_b: int) -> None:
    """`forces` is None or a JAX-traceable fn(t, X) -> (F, T), both (n_bodies, 3)."""
    if forces is None:
        return
    shape = f"({n_b}, 3)"
    if not callable(forces):
        raise ParameterError(f"`PointContacts.forces` must be a function fn(t, X) -> (F, T) "
                             f"with F and T of shape {shape}; got {type(forces).__name__} "
                             f"{forces!r:.40}. For constant loads pass `force=` and `torque=` "
                             "arrays instead.")
    try:
        out = jax.eval_shape(forces, jax.ShapeDtypeStruct((), jnp.float64),
                             jax.ShapeDtypeStruct((n_b, 13), jnp.float64))
    except Exception as exc:  # noqa: BLE001 - the user's function failed: say why
        raise ParameterError(f"`PointContacts.forces(t, X)` failed when traced with t a scalar "
                             f"and X the ({n_b}, 13) state: {exc!r:.200}. It must use "
                             "jax.numpy and return (F, T).") from None
    def fits(s):                  # added to the (n_b, 3) loads: must broadcast to that shape
        try:
            return np.broadcast_shapes(s, (n_b, 3)) == (n_b, 3)
        except ValueError:
            return False

    shapes = [tuple(getattr(o, "shape", ())) for o in out] \
        if isinstance(out, (tuple, list)) else None
    if shapes is None or len(shapes) != 2 or not all(fits(s) for s in shapes):
        got = shapes if shapes is not None else type(out).__name__
        raise ParameterError(f"`PointContacts.forces(t, X)` must return (F, T), two arrays of "
                             f"shape {shape} (forces [N] and torques [N·m] per body); got "
                             f"{got}.")


def _channels(labels, psi, lam, status, dtype) -> dict:
    """The contact channels of both routes from the gaps ψ, the forces λ (n_p, 3) and the
    λ-solver's status."""
    out = {"painleve.status": status.astype(dtype)}
    for p, (b, k) in enumerate(labels):
        out[f"{b}.gap.{k}"] = psi[p]
        out[f"{b}.fn.{k}"] = lam[p, 2]
        out[f"{b}.ft.{k}"] = jnp.sqrt(lam[p, 0] ** 2 + lam[p, 1] ** 2)
        out[f"{b}.fx.{k}"], out[f"{b}.fy.{k}"] = lam[p, 0], lam[p, 1]
    return out


class PointContacts(AbstractSystem, AbstractTimeSteppingHost):
    """Point contacts of a spatial model's bodies with its ground (module docstring).

    Build with :meth:`from_model`; run with :meth:`simulate` (or :func:`stickslip.simulate`).
    Channels: the bodies' states ``<body>.x`` … ``<body>.wz`` and per contact point
    ``<body>.gap.k``, ``<body>.fn.k``, ``<body>.ft.k`` (‖λ_t‖) and ``<body>.fx.k``,
    ``<body>.fy.k`` (k = 1, 2, … in the shape's vertex order), ``painleve.status``.

    Two routes: an ODE method (``"rk4"``, …) integrates the relaxed acceleration-level
    problem above; ``method="moreau_jean"`` steps the impulses of each step exactly
    (:mod:`._point_contacts_step`: Moreau–Jean, the same λ-solver at the velocity level; no
    δ, ζ; restitution 0; the forces are the mean forces p/h of the step that ended at the
    sample, of the first step at t0; each step solved first on each body's ``support``
    lowest points, on all of them where those do not solve the whole problem).
    """

    trace_stages_once: ClassVar[bool] = True
    # one λ-solve in the program (vector_field_and_outputs): a box pushed on the ground,
    # first call 3.7 → 2.7 s CPU, the run unchanged (0.17–0.21 s both ways; load 1.2)
    samples_in_stages: ClassVar[bool] = True

    def __check_init__(self):
        n_b = len(self.body_names)
        if self.support and (len(self.support) != n_b or not all(
                isinstance(k, int) and k >= 1 for k in self.support)):
            raise ParameterError(
                f"`PointContacts.support` must be () or one count >= 1 per body "
                f"({list(self.body_names)}): how many of its points may touch the ground at "
                f"once; got {self.support!r}. Pass () to solve every point at every step.")
        for name in ("force", "torque", "force_point"):
            shape = jnp.shape(getattr(self, name))
            if shape != (n_b, 3):
                raise ParameterError(
                    f"`PointContacts.{name}` must have shape ({n_b}, 3): one 3-vector per "
                    f"body ({list(self.body_names)}); got shape {shape}. Pass e.g. "
                    f"np.zeros(({n_b}, 3)) with the load of body k in row k.")

    x0: jnp.ndarray = eqx.field(converter=as_parameter)          # (n_bodies, 13)
    masses: jnp.ndarray = eqx.field(converter=as_parameter)      # (n_bodies,)
    inertias: jnp.ndarray = eqx.field(converter=as_parameter)    # (n_bodies, 3, 3) body frame
    points: jnp.ndarray = eqx.field(converter=as_parameter)      # (n_points, 3) body frame
    radii: jnp.ndarray = eqx.field(converter=as_parameter)       # (n_points,) 0: vertex
    gravity: jnp.ndarray = eqx.field(converter=as_parameter)
    height: jnp.ndarray = eqx.field(converter=as_parameter)
    mu: jnp.ndarray = eqx.field(converter=as_parameter)
    delta: jnp.ndarray = eqx.field(converter=as_parameter)
    zeta: jnp.ndarray = eqx.field(converter=as_parameter)
    force: jnp.ndarray = eqx.field(converter=as_parameter)        # (n_bodies, 3) world [N]
    torque: jnp.ndarray = eqx.field(converter=as_parameter)       # (n_bodies, 3) world [N·m]
    force_point: jnp.ndarray = eqx.field(converter=as_parameter)  # (n_bodies, 3) body [m]
    owner: tuple = eqx.field(static=True)                        # body index per point
    body_names: tuple = eqx.field(static=True)
    formulation: str = eqx.field(static=True)
    forces: Any = eqx.field(static=True, default=None)
    # per body: how many of its points may touch the ground at once (its largest face's
    # vertices; 1 for a sphere): the Moreau–Jean step's support problem (module
    # ._point_contacts_step); () solves every point at every step
    support: tuple = eqx.field(static=True, default=())

    @classmethod
    def from_model(cls, model, *, mu: float | None = None, delta: float = 1e-3,
                   zeta: float = 1.0, formulation: str = "kikuuwe",
                   spheres: Mapping[str, float] | None = None,
                   forces: Callable | None = None, force=None, torque=None,
                   force_point=None) -> PointContacts:
        """Point contacts for the bodies of `model` (a :class:`stickslip.spatial.Model` with
        a ground).

        mu: friction coefficient (default: the ground's kinetic ``mu_k``; a ground whose
        ``mu_s`` is above it warns: one level, a load between the two slides). delta [s],
        zeta [-]: the relaxation. formulation: ``"kikuuwe"`` | ``"anitescu"`` | ``"nakaoka"``.
        spheres: ``{body: radius [m]}`` — these bodies touch the ground as spheres (one
        contact at the lowest point) instead of at their vertices.
        forces: ``fn(t, X) -> (F, T)`` with X the (n_bodies, 13) state, F and T
        (n_bodies, 3) applied forces and torques at the centres of mass [N, N·m]; pure JAX.
        A new function compiles a new program: for constant loads use the arrays below.
        force [N], torque [N·m]: constant applied loads, (n_bodies, 3) in the world frame
        (row k for body k; a (3,) vector when the model has one body; default 0).
        force_point [m]: where each body's `force` acts, (n_bodies, 3) in the body frame
        (default: the centre of mass); the force then adds (R p) × f to the torque. The
        three are traced data: a new value reuses the compiled run, and a batch of loads
        runs in one compile (``ss.simulate_batch([pc.replace(force=f) for f in loads], …)``).

        Every argument is checked here (a `ParameterError` naming it and the type or shape
        it needs; `forces` is traced once, abstractly, for its output shapes), and a model
        whose contact point starts inside the ground (by more than 1e-6 of its body's
        size) is refused with a `ModelError` giving the body, the point, the depth and how
        far to raise it — as `SpatialModel.simulate` does for the volume contact.

        Examples
        --------
        A 1 kg cube of side 0.1 m pushed by 3 N at the centre of its bottom face
        (below μ m g = 4.905 N) holds.

        >>> import stickslip as ss
        >>> m = ss.spatial.Model(gravity=(0.0, 0.0, -9.81))
        >>> _ = m.add_body("box", mass=1.0, inertia=None, shape=ss.spatial.Box(0.1, 0.1, 0.1),
        ...                position=(0.0, 0.0, 0.05))
        >>> _ = m.add_ground(mu_s=0.5, mu_k=0.5)
        >>> pc = ss.spatial.PointContacts.from_model(m, force=(3.0, 0.0, 0.0),
        ...                                          force_point=(0.0, 0.0, -0.05))
        >>> res = pc.simulate(0.1, dt=1e-3, dt_out=0.05)
        >>> bool(max(abs(res["box.x"])) < 1e-12)
        True

        The same box stepped by its impulses (no relaxation; the mean friction force of the
        step balances the push):

        >>> res = ss.simulate(pc, 0.5, method="moreau_jean", dt=1e-2, dt_out=0.1)
        >>> bool(max(abs(res["box.x"])) < 1e-11), round(float(sum(
        ...     res[f"box.fx.{k}"][-1] for k in range(1, 9))), 9)
        (True, -3.0)
        """
        check_formulation(formulation, "PointContacts.formulation")
        if not isinstance(model, SpatialModel):
            raise ParameterError(f"`PointContacts.from_model.model` must be a "
                                 f"stickslip.spatial.Model; got {type(model).__name__}.")
        if model.ground is None:
            raise ModelError("PointContacts needs the model's ground: call "
                             "model.add_ground(mu_s=..., mu_k=...) first.")
        if not model.bodies:
            raise ModelError("the model has no bodies. Add one with `model.add_body(...)`.")
        if mu is None and model.ground["mu_s"] > model.ground["mu_d"]:
            # one level: a push between mu_k m g and mu_s m g slid here and held on
            # `model.simulate(contact="point")`, without a word
            warnings.warn(
                f"PointContacts.from_model: the ground has mu_s={model.ground['mu_s']:g} above "
                f"mu_k={model.ground['mu_d']:g}, and PointContacts has one friction level: it "
                "takes mu_k, so a load between the kinetic and the static limit slides. Pass "
                "mu= to choose the level, or run `model.simulate(contact='point')`, which "
                "uses both.", UserWarning, stacklevel=2)
        mu = model.ground["mu_d"] if mu is None else _check_scalar("PointContacts", "mu", mu,
                                                                   nonnegative=True)
        FRICTION_COEFFICIENT.check_plausible("PointContacts", "mu", mu)
        delta = _check_scalar("PointContacts", "delta", delta, positive=True)
        zeta = _check_scalar("PointContacts", "zeta", zeta, nonnegative=True)
        names = [b.name for b in model.bodies]
        spheres = _check_spheres(spheres, names)
        points, radii, owner, support = [], [], [], []
        for k, b in enumerate(model.bodies):
            if b.name in spheres:
                points.append(np.zeros(3))
                radii.append(spheres[b.name])
                owner.append(k)
                support.append(1)
            elif isinstance(b.shape, Polyhedron):
                support.append(max(len(f) for f in b.shape.faces))
                for v in b.shape.vertices:
                    points.append(np.asarray(v, dtype=float))
                    radii.append(0.0)
                    owner.append(k)
            else:
                radius = b.shape.radius if isinstance(b.shape, Sphere) else 0.05
                raise ParameterError(
                    f"`PointContacts.spheres`: body {b.name!r} has "
                    f"{'no shape' if b.shape is None else repr(b.shape)}; point contacts touch "
                    "the ground at a polyhedron's vertices, or at the lowest point of a body "
                    f"listed in `spheres`. Pass spheres={{{b.name!r}: {radius!r}}} (its radius "
                    "[m]) or give it a Box/Polyhedron shape.")
        _check_forces(forces, len(names))
        loads = {name: _body_vectors(name, value, names)
                 for name, value in (("force", force), ("torque", torque),
                                     ("force_point", force_point))}
        _check_start(model, np.array(points), np.array(radii), owner, delta)
        return cls(x0=model.initial_state(), masses=np.array([b.mass for b in model.bodies]),
                   inertias=np.array([b.inertia for b in model.bodies]),
                   points=np.array(points), radii=np.array(radii), gravity=model.gravity,
                   height=model.ground["height"], mu=float(mu), delta=delta,
                   zeta=zeta, **loads, owner=tuple(owner), body_names=tuple(names),
                   formulation=formulation, forces=forces, support=tuple(support))

    # --- kinematics of the contact points --------------------------------------------------
    def _arms(self, X):
        R = jax.vmap(_rotation)(X[:, 3:7])                           # (n_b, 3, 3)
        owner = np.array(self.owner)
        arm = jnp.einsum("pij,pj->pi", R[owner], self.points)
        return arm - self.radii[:, None] * jnp.array([0.0, 0.0, 1.0]), R

    def contact_terms(self, X):
        """(ψ, J (3n_p × 6n_b, rows t1, t2, n per point), J̇ν, Jν)."""
        owner = np.array(self.owner)
        arm, R = self._arms(X)
        psi = X[owner, 2] + arm[:, 2] - self.height
        n_b, n_p = X.shape[0], arm.shape[0]
        # rows [e, a × e] per point, placed in its body's columns: all points at once (a
        # loop over them traced a scatter each: measured 0.3 s more of the step's compile)
        eye = jnp.broadcast_to(jnp.eye(3), (n_p, 3, 3))
        blk = jnp.concatenate([eye, jnp.cross(arm[:, None, :], eye)], axis=2)      # (n_p, 3, 6)
        place = np.eye(n_b)[owner][:, None, :, None]                              # (n_p, 1, n_b, 1)
        J = (blk[:, :, None, :] * place).reshape(3 * n_p, 6 * n_b)
        nu = jnp.concatenate([X[:, 7:10], X[:, 10:13]], axis=1).reshape(-1)
        w = X[owner, 10:13]
        vertex = (self.radii == 0.0)[:, None]
        jdot = jnp.where(vertex, jnp.cross(w, jnp.cross(w, arm)), 0.0).reshape(-1)
        return psi, J, jdot, J @ nu, R

    def dynamics(self, t, X):
        n_b = X.shape[0]
        psi, J, jdot, Jnu, R = self.contact_terms(X)
        n_p = psi.shape[0]
        Minv, I_world = mass_terms(self, R)
        w = X[:, 10:13]
        F = self.masses[:, None] * self.gravity[None, :]
        T = -jnp.cross(w, jnp.einsum("bij,bj->bi", I_world, w))
        # the applied loads (data): f at the body-fixed point p_f adds (R p_f) × f
        arm_f = jnp.einsum("bij,bj->bi", R, self.force_point)
        F = F + self.force
        T = T + self.torque + jnp.cross(arm_f, self.force)
        if self.forces is not None:
            f_app, t_app = self.forces(t, X)
            F = F + f_app
            T = T + t_app
        Q = jnp.concatenate([F, T], axis=1).reshape(-1)
        gain = 2.0 * self.zeta / self.delta
        c = -(jdot + gain * Jnu)
        c = c.at[2::3].add(-psi / self.delta ** 2)
        fset = ProductSet([SpatialContact(mu=self.mu) for _ in range(n_p)])
        sol, nudot = lambda_stage(fset, J, J @ Minv, c, lambda v: Minv @ v,
                                  self.formulation)(Q)
        return nudot.reshape(n_b, 6), sol.lam.reshape(n_p, 3), psi, sol.status

    # --- AbstractSystem ------------------------------------------------------------------
    @property
    def state_names(self):
        return tuple(f"{b}.{s}" for b in self.body_names for s in _STATE) + ("painleve.none",)

    def _point_labels(self):
        out, count = [], {}
        for k in self.owner:
            count[k] = count.get(k, 0) + 1
            out.append((self.body_names[k], count[k]))
        return out

    @property
    def units(self):
        out = {}
        for b in self.body_names:
            out.update({f"{b}.{s}": u for s, u in zip(_STATE, ["m"] * 3 + ["-"] * 4 +
                                                        ["m/s"] * 3 + ["rad/s"] * 3)})
        for b, k in self._point_labels():
            out.update({f"{b}.gap.{k}": "m", f"{b}.fn.{k}": "N", f"{b}.ft.{k}": "N",
                        f"{b}.fx.{k}": "N", f"{b}.fy.{k}": "N"})
        return out

    def initial_state(self):
        return jnp.concatenate([self.x0.reshape(-1), jnp.zeros(1)])

    def vector_field(self, t, x):
        X = self._bodies(x)
        acc, _, _, status = self.dynamics(t, X)
        return self._rates(x, X, acc, status)

    def outputs(self, t, x):
        _, lam, psi, status = self.dynamics(t, self._bodies(x))
        return _channels(self._point_labels(), psi, lam, status, x.dtype)

    def vector_field_and_outputs(self, t, x, want=True):
        """(ẋ, outputs) from one λ-solve (``samples_in_stages``); the channels under
        ``lax.cond`` where the traced bool `want` holds (few operations, but the stage loop
        runs operation by operation on CPU: ~0.25 µs each, every stage)."""
        X = self._bodies(x)
        acc, lam, psi, status = self.dynamics(t, X)

        def own(psi, lam, status):
            return _channels(self._point_labels(), psi, lam, status, x.dtype)

        out = computed_where(want, own, psi, lam, status)
        return self._rates(x, X, acc, status), out

    def _bodies(self, x):
        n_b = self.x0.shape[0]
        return x[:13 * n_b].reshape(n_b, 13)

    def _rates(self, x, X, acc, status):
        rates = jnp.concatenate([X[:, 7:10], jax.vmap(_quat_rate)(X[:, 3:7], X[:, 10:13]),
                                 acc[:, :3], acc[:, 3:]], axis=1)
        return jnp.concatenate([rates.reshape(-1), (status != 0).astype(x.dtype)[None]])

    def linear_modes(self):
        # one value, or one per member of a stacked batch (ss.simulate_batch)
        zeta = np.ravel(np.asarray(self.zeta, dtype=float))
        delta = np.ravel(np.asarray(self.delta, dtype=float))
        root = np.sqrt(zeta.astype(complex) ** 2 - 1.0)
        label = (f"point-contact relaxation (δ={np.min(delta):g} s, ζ={zeta[0]:g})"
                 if zeta.size == 1 else
                 f"point-contact relaxation (δ ≥ {np.min(delta):g} s, {zeta.size} members)")
        return [(label, np.concatenate([(-zeta + root) / delta, (-zeta - root) / delta]))]

    def parameters(self):
        return {"mu": float(self.mu), "delta": float(self.delta), "zeta": float(self.zeta),
                "contact_formulation": self.formulation, "bodies": list(self.body_names),
                "force": np.asarray(self.force).tolist(),
                "torque": np.asarray(self.torque).tolist(),
                "force_point": np.asarray(self.force_point).tolist()}

    # --- method="moreau_jean" (stickslip.integrate._moreau_jean) -------------------------
    warm_start = True     # the route passes the previous step's forces (_point_contacts_step)

    def moreau_jean_step(self, t, x, h, theta, previous=None):
        """One Moreau–Jean step: :func:`._point_contacts_step.moreau_jean_step`."""
        return _moreau_jean_step(self, t, x, h, theta, previous)

    def moreau_jean_outputs(self, t, x, forces):
        """The ODE route's channels: gaps at the sample, forces p/h of the step."""
        n_b = self.x0.shape[0]
        psi = self.contact_terms(x[:13 * n_b].reshape(n_b, 13))[0]
        return _channels(self._point_labels(), psi, forces["lam"], forces["status"], x.dtype)

    simulate = _simulate   # the shared signature of every host: ._point_contacts_run
