"""Volume-based rigid contact (SPEC §7; Wakisaka & Sugihara) in pure JAX: free convex bodies
on the ground, a whole run as one jitted ``lax.scan`` — `jit`, `vmap` over loads and
parameters (one compile for a batch), the counterpart of the numba host loop of
`SpatialModel.simulate` (``friction="pyramid"``, ``patch="projection"`` or ``"section"``;
eq. 3 or a restitution of the ground).

Per step, from the state at the step's start (SPEC §7 step 6):

1. contact volume, normal (eq. 1–2), centroid p_g, polygon S, Q and c (eq. 8–9):
   `_volume_jax_geometry.ground_contact` (``patch="projection"``) or
   `_volume_jax_section.ground_section_contact` (``"section"``);
2. A = J M⁻¹ Jᵀ Δt, b = J u_free (eq. 13–15, free bodies, J of eq. 6), the QP (16) with
   f_n ≥ 0 and the centre of pressure (24) in S (25) (`_volume_jax_qp`) — with the
   numba path's documented choices: each contact's Q, c divided by its area, λ dimensionless
   and on the normal force only (λ·nᵀH_ff n · n nᵀ), a 1e-9 relative Tikhonov term;
3. the static LP (eq. 26–31) by NNLS feasibility; if infeasible the kinetic correction
   (eq. 32–34) with slip directions from the normal parts of the QP's wrench, then up to
   ``kinetic_iterations`` consistency passes (the slipping contact's friction fixed, eq. 16
   re-solved for its normal parts with the normal part Qn of eq. 4's error, corrected again;
   stop when the wrench changes < 1e-10 of its size): `_volume_jax_friction`; steps 2–3 run
   in two loops of one NNLS each (`_volume_jax_contact.body_contact`);
4. the contact wrench is held through the Runge–Kutta stages (applied loads, gravity and the
   gyroscopic term re-evaluated per stage; the stages in a loop, :func:`runge_kutta`); bodies
   in contact advance position and orientation with the post-step velocity (semi-implicit
   Euler, exponential map); quaternions are renormalised every step.

Compile time (benchmarks/results/spatial_volume_jax.md): every solver is traced once (no
Python loop over rows, stages or call sites unrolls a copy of it) and the run is compiled
with stickslip's XLA options (:func:`stickslip._compile.options.compiler_options`: XLA's
elemental CPU emitters); a new one-box run compiles in a few seconds, not half a
minute.

Bodies touch only the ground here (body–body contact is not ported: `VolumeContactSystem`
rejects models with more than one body unless ``ignore_body_contacts=True``; the JAX route
stops a run before two bodies meet, `_volume_jax_pairs`). Each body's ground contact is its
own block of the host loop's joint QP (A couples contacts only through a shared body);
bodies whose shapes have the same topology (every box) share one traced solver, mapped
over their vertices (compile time does not grow with their number).
`SpatialModel.simulate` runs on this step through `_volume_jax_route`.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .._compile.options import compiler_options
from ..errors import ModelError, ParameterError
from ..integrate import FIXED_STEP_METHODS, step_grid
from ._model_touch import placed_in_touch
from ._volume_jax_contact import body_contact as _body_contact
from ._volume_jax_contact import rotation as _rotation
from ._volume_jax_geometry import GroundTables, ground_tables

__all__ = [
    "CONTACT_FIELDS",
    "BodyLoad",
    "VolumeContactSystem",
    "VolumeParams",
    "compiler_options",
    "contact_wrenches",
    "finish_pose",
    "run_volume",
    "runge_kutta",
]

CONTACT_FIELDS = ("active", "volume", "nx", "ny", "nz", "px", "py", "pz", "fx", "fy", "fz",
                  "tx", "ty", "tz", "fn", "stick")





def step_table(grid):
    """``(table, uniform)``: the step sizes of each output interval of `grid`
    (``stickslip.integrate.step_grid``), shape (n_out, slots) — n_sub steps of dt, the last
    interval n_last of them and a partial h_last, zeros padding — and whether every entry is
    dt (then the run can skip the table)."""
    slots = grid.n_sub + (1 if grid.h_last > 0 else 0)
    table = np.zeros((grid.n_out, slots))
    table[:, :grid.n_sub] = grid.dt
    table[-1, :] = 0.0
    table[-1, :grid.n_last] = grid.dt
    if grid.h_last > 0:
        table[-1, grid.n_last] = grid.h_last
    return table, bool(np.all(table == grid.dt))

class VolumeParams(NamedTuple):
    """Traced parameters (a pytree: stack them to `vmap`). mass (n,) [kg]; inertia and its
    inverse (n, 3, 3) body frame [kg m^2]; gravity (3,) [m/s^2]; k [1/s] (eq. 3); lam [-]
    (eq. 10, normal force only); mu_s, mu_d [-] of the ground; height [m] of the ground;
    restitution [-] of the ground (used only by a system built with one)."""

    mass: jnp.ndarray
    inertia: jnp.ndarray
    inv_inertia: jnp.ndarray
    gravity: jnp.ndarray
    k: jnp.ndarray
    lam: jnp.ndarray
    mu_s: jnp.ndarray
    mu_d: jnp.ndarray
    height: jnp.ndarray
    restitution: jnp.ndarray | float = 0.0


class BodyLoad(NamedTuple):
    """Constant applied loads, world frame, per body (n, 3): a force [N] acting at a
    body-fixed `point` [m] (relative to the centre of mass, body frame) and a torque [N m]."""

    force: jnp.ndarray
    torque: jnp.ndarray
    point: jnp.ndarray


def semi_implicit_pose(X, Xn, h, pseudo=None):
    """Position and orientation of bodies in contact advanced with the post-step velocity
    (what eq. 13–15 assume): r + h v⁺ and exp(h ω⁺/2) ⊗ q, from the step's start X and its
    end Xn (n_b, 13); plus the position-only pseudo-velocities `pseudo` (n_b, 6) of a
    restitution's correction when given (the numba `_dynamics.finish_step`)."""
    v, w = Xn[:, 7:10], Xn[:, 10:13]
    if pseudo is not None:
        v, w = v + pseudo[:, :3], w + pseudo[:, 3:]
    p_semi = X[:, :3] + h * v
    speed = jnp.sqrt(jnp.sum(w * w, axis=1))
    moving = speed * h >= 1e-300
    half = 0.5 * speed * h
    sn = jnp.sin(half) / jnp.where(moving, speed, 1.0)
    r0, r1, r2, r3 = jnp.cos(half), sn * w[:, 0], sn * w[:, 1], sn * w[:, 2]
    q = X[:, 3:7]
    q_semi = jnp.stack([r0 * q[:, 0] - (r1 * q[:, 1] + r2 * q[:, 2] + r3 * q[:, 3]),
                        r0 * q[:, 1] + q[:, 0] * r1 + (r2 * q[:, 3] - r3 * q[:, 2]),
                        r0 * q[:, 2] + q[:, 0] * r2 + (r3 * q[:, 1] - r1 * q[:, 3]),
                        r0 * q[:, 3] + q[:, 0] * r3 + (r1 * q[:, 2] - r2 * q[:, 1])], axis=1)
    q_semi = jnp.where(moving[:, None], q_semi, q)
    return p_semi, q_semi


def finish_pose(X, Xn, h, active, pseudo=None):
    """The step's end state `Xn` with the bodies in contact (`active`) moved by
    :func:`semi_implicit_pose` and every quaternion renormalised — the last part of a
    volume-contact step, shared by :meth:`VolumeContactSystem.step` and the JAX route."""
    p_semi, q_semi = semi_implicit_pose(X, Xn, h, pseudo)
    Xn = Xn.at[:, :3].set(jnp.where(active[:, None], p_semi, Xn[:, :3]))
    Xn = Xn.at[:, 3:7].set(jnp.where(active[:, None], q_semi, Xn[:, 3:7]))
    qn = Xn[:, 3:7]
    return Xn.at[:, 3:7].set(qn / jnp.sqrt(jnp.sum(qn * qn, axis=1))[:, None])


def runge_kutta(rate, x, h, tableau):
    """One explicit Runge–Kutta step x + h Σ_i b_i k_i, k_i = rate(i, x + h Σ_j a_ij k_j),
    with the stages in a `fori_loop` (one traced copy of `rate`, not one per stage: compile
    time). The stage sums run over every j in order; a zero a_ij adds an exact zero, so the
    numbers are those of the sums over the nonzero a_ij alone."""
    s = len(tableau.b)
    a = np.zeros((s, s))
    for i, row in enumerate(tableau.a):
        a[i, :len(row)] = row
    a = jnp.asarray(a)

    def stage(i, K):
        xi = x
        for j in range(s - 1):
            xi = xi + (h * a[i, j]) * K[j]
        return K.at[i].set(rate(i, xi))

    K = lax.fori_loop(0, s, stage, jnp.zeros((s,) + x.shape, x.dtype))
    xn = x
    for j, b in enumerate(tableau.b):
        if b != 0.0:
            xn = xn + (h * b) * K[j]
    return xn


def _rates(X, F, T, params):
    """Ẋ (n, 13) of the Newton–Euler equations of free bodies (the numba
    `_dynamics.rigid_body_rates`): ṗ = v, q̇ = ½(0, ω)⊗q, v̇ = F/m + g,
    ω̇ = R I⁻¹(Rᵀ T − ω_b × I ω_b)."""
    def one(x, F, T, mass, inertia, inv_i):
        q, w = x[3:7], x[10:13]
        R = _rotation(q)
        wb = R.T @ w
        rb = R.T @ T - jnp.cross(wb, inertia @ wb)
        alpha = R @ (inv_i @ rb)
        qd = jnp.stack([-0.5 * (w[0] * q[1] + w[1] * q[2] + w[2] * q[3]),
                        0.5 * (w[0] * q[0] + (w[1] * q[3] - w[2] * q[2])),
                        0.5 * (w[1] * q[0] + (w[2] * q[1] - w[0] * q[3])),
                        0.5 * (w[2] * q[0] + (w[0] * q[2] - w[1] * q[1]))])
        return jnp.concatenate([x[7:10], qd, F / mass + params.gravity, alpha])
    return jax.vmap(one)(X, F, T, params.mass, params.inertia, params.inv_inertia)


def _applied(X, load):
    """World force and torque about the centre of mass of each body's load at state X."""
    arm = jax.vmap(lambda q, p: _rotation(q) @ p)(X[:, 3:7], load.point)
    return load.force, load.torque + jnp.cross(arm, load.force)


def _topology_groups(tables) -> list[tuple[list[int], GroundTables]]:
    """The bodies' indices grouped by their shapes' topology (the static index tables and the
    polygon buffer; vertices and scale may differ: they are traced per body), each group
    with its first body's tables — one traced contact solver per group (compile time)."""
    groups: dict = {}
    for i, t in enumerate(tables):
        key = (t.vertices.shape, t.max_polygon, t.patch) + tuple(
            np.asarray(a).tobytes() for a in (t.ei, t.ej, t.ef, t.fp, t.ui, t.uj))
        groups.setdefault(key, ([], t))[0].append(i)
    return list(groups.values())


class VolumeContactSystem:
    """Static description of free convex bodies on the ground for the JAX volume contact:
    shapes (as static tables), the friction pyramid's sides P, ε_v, kinetic_iterations and
    the names; the traced parameters come from :meth:`params`.

    Build it from a `SpatialModel` with :meth:`from_model` (ground required unless
    ``ground_required=False``: then a model without ground has no contacts; the model's
    `patch`, "projection" or "section" (`_volume_jax_section`); a restitution of the ground: eq. 3's rebound and the position-only
    correction, `_volume_jax_contact.body_contact`). `friction`: "pyramid" (eq. 26–34) or
    "previous" (`_volume_jax_previous`). `max_polygon`: the buffer size of the contact polygon
    (default: the bound that cannot overflow, 13 for a box; for "section" one per face and 2
    spare, 8 for a box; an overflow gives NaN records).
    """

    def __init__(self, names, masses, inertias, shapes, *, gravity=(0.0, 0.0, -9.81),
                 k=1000.0, lam=1e-3, P=8, eps_v=1e-12, mu_s=0.5, mu_d=0.3, height=0.0,
                 kinetic_iterations=10, max_polygon=None, states=None, restitution=None,
                 friction="pyramid", ground=True, patch="projection"):
        if patch not in ("projection", "section"):
            raise ParameterError(f"`VolumeContactSystem.patch` must be 'projection' or "
                                 f"'section'; got {patch!r}.")
        self.names = list(names)
        self.patch = str(patch)
        # the compiled runs' structure key (`_volume_jax_route._compiled`)
        self.key = ("patch", self.patch)
        self.ground = bool(ground)
        self.friction = str(friction)
        self.rebound = restitution is not None
        self.tables = [ground_tables(s, max_polygon, self.patch) for s in shapes]
        self.groups = _topology_groups(self.tables)
        self.P, self.eps_v = int(P), float(eps_v)
        self.kinetic_iterations = int(kinetic_iterations)
        inertia = np.array(inertias, dtype=float)
        # device_put, not jnp.asarray: the same arrays (Python floats stay weakly typed)
        # without a small conversion program compiled per shape in each new process
        self._params = VolumeParams(*jax.device_put((
            np.array(masses, dtype=float), inertia, np.linalg.inv(inertia),
            np.array(gravity, dtype=float), float(k), float(lam), float(mu_s), float(mu_d),
            float(height), 0.0 if restitution is None else float(restitution))))
        self._states = None if states is None else np.asarray(states, dtype=float)
        self._runs: dict = {}

    @classmethod
    def from_model(cls, model, *, max_polygon=None, ignore_body_contacts: bool = False,
                   friction: str = "pyramid", ground_required: bool = True):
        """The system of a `SpatialModel` (its bodies, ground and settings). With
        ``ground_required=False`` a model without ground gives a system without contacts
        (free flight; the JAX route's single body without ground)."""
        ground = model.ground
        if ground is None and not ground_required:
            ground = {"mu_s": 0.0, "mu_d": 0.0, "height": 0.0}
        if ground is None:
            raise ModelError("the JAX volume contact needs a ground; add one with "
                             "`model.add_ground(mu_s=..., mu_d=...)`.")
        if len(model.bodies) > 1 and not ignore_body_contacts:
            raise ModelError(f"the JAX volume contact has no body–body contact yet; the model "
                             f"has {len(model.bodies)} bodies. Pass ignore_body_contacts=True if "
                             "they never touch, or use `SpatialModel.simulate`.")
        return cls([b.name for b in model.bodies], [b.mass for b in model.bodies],
                   [b.inertia for b in model.bodies], [b.shape for b in model.bodies],
                   gravity=model.gravity, k=model.k, lam=model.lam, P=model.P,
                   eps_v=model.eps_v, mu_s=ground["mu_s"], mu_d=ground["mu_d"],
                   height=ground["height"], kinetic_iterations=model.kinetic_iterations,
                   max_polygon=max_polygon,
                   # a body placed exactly on the ground starts in contact, as on
                   # `SpatialModel.simulate` (`_model_touch`; at zero depth it slid)
                   states=placed_in_touch(model, model.initial_state(), bodies=False),
                   restitution=model._pairs_e()[0][4] if model._pairs_e() else None,
                   friction=friction, ground=model.ground is not None, patch=model.patch)

    def params(self, **changes) -> VolumeParams:
        """The traced parameters, with `changes` (e.g. ``mu_s=0.4``) applied."""
        p = self._params._replace(**{k: jnp.asarray(v, dtype=float) for k, v in changes.items()})
        if "inertia" in changes:
            p = p._replace(inv_inertia=jnp.linalg.inv(p.inertia))
        return p

    def initial_state(self) -> np.ndarray:
        if self._states is None:
            raise ParameterError("this system has no initial state; pass `initial=`.")
        return self._states.copy()

    def zero_load(self) -> BodyLoad:
        z = jnp.zeros((len(self.names), 3))
        return BodyLoad(z, z, z)

    # --- the pure functions ------------------------------------------------------------
    def contact(self, X, F, T, dt, params):
        """Contact forces Fc, torques Tc (n, 3) on the centres of mass (world), whether each
        body is in contact (n,), and the records (n, 16) (CONTACT_FIELDS) for one step of
        size `dt` from state X under the applied F, T (world, about the centres of mass);
        with a restitution a fifth value, the pseudo-velocities (n, 6) of the position-only
        correction."""
        if not self.ground:                  # no contacts: zero wrenches, NaN records
            n = len(self.tables)
            rec = jnp.zeros((n, len(CONTACT_FIELDS))).at[:, 2:8].set(jnp.nan)
            return jnp.zeros((n, 3)), jnp.zeros((n, 3)), jnp.zeros(n, bool), rec
        def one(tab, i):
            return _body_contact(tab, X[i], F[i], T[i], params.mass[i], params.inertia[i],
                                 params.inv_inertia[i], params, dt, self.P, self.eps_v,
                                 self.kinetic_iterations, rebound=self.rebound,
                                 friction=self.friction)
        parts, order = [], []
        for index, tab in self.groups:
            order += index
            if len(index) == 1:
                parts.append(tuple(z[None] for z in one(tab, index[0])))
                continue
            # bodies of one topology: one traced solver, mapped over their vertices (a
            # sequential `lax.map`, not `vmap`: a body's solver keeps its branches and
            # early exits — under vmap every body ran every branch, 1.4× slower per step)
            verts = jnp.asarray(np.stack([self.tables[i].vertices for i in index]))
            scale = jnp.asarray([self.tables[i].scale for i in index])
            parts.append(lax.map(lambda a, tab=tab: one(
                tab._replace(vertices=a[0], scale=a[1]), a[2]),
                (verts, scale, jnp.asarray(index))))
        back = np.argsort(np.asarray(order))
        return tuple(jnp.concatenate(z)[back] for z in zip(*parts))

    def step(self, X, h, load, params, tableau):
        """One step of size h (SPEC §7 step 6): the contact wrench from the step's start held
        through the stages of `tableau`; bodies in contact advance position and orientation
        with the post-step velocity; unit quaternions. Returns (X⁺, records)."""
        F0, T0 = _applied(X, load)
        Fc, Tc, active, record, *pseudo = self.contact(X, F0, T0, h, params)

        def rate(i, Xi):
            F, T = _applied(Xi, load)
            return _rates(Xi, F + Fc, T + Tc, params)
        Xn = finish_pose(X, runge_kutta(rate, X, h, tableau), h, active, *pseudo)
        return Xn, record

    def run_function(self, grid, method: str = "rk_gill"):
        """The pure run ``f(X0, load, params) -> (states (n_out+1, n, 13), records
        (n_out+1, n, 16))`` on `grid` (``stickslip.integrate.step_grid``): one ``lax.scan``
        over the samples, each a loop over its steps. Jit it, vmap it (e.g. over `load`)."""
        tableau = FIXED_STEP_METHODS[method]
        table, uniform = step_table(grid)
        slots = table.shape[1]
        nb = len(self.names)

        def f(X0, load, params):
            rec0 = jnp.zeros((nb, 16)).at[:, 2:8].set(jnp.nan)

            def one_step(carry, h):
                X, rec = carry
                if uniform:
                    return self.step(X, h, load, params, tableau)
                return lax.cond(h > 0, lambda c: self.step(c[0], h, load, params, tableau),
                                lambda c: c, (X, rec))

            def sample(carry, row):
                carry = lax.fori_loop(0, slots, lambda i, c: one_step(c, row[i]), carry)
                return carry, carry

            _, (Xs, recs) = lax.scan(sample, (X0, rec0), jnp.asarray(table))
            return (jnp.concatenate([X0[None], Xs]), jnp.concatenate([rec0[None], recs]))

        return f

    def jitted_run(self, grid, method: str = "rk_gill"):
        """`run_function` under `jax.jit` (with :func:`compiler_options`), kept per
        (grid, method)."""
        key = (grid, method)
        if key not in self._runs:
            self._runs[key] = jax.jit(self.run_function(grid, method),
                                      compiler_options=compiler_options())
        return self._runs[key]


def contact_wrenches(system: VolumeContactSystem, X, F, T, dt, params=None):
    """`SpatialModel.contact_wrenches`' counterpart: contact forces and torques (n, 3) on the
    centres of mass for one step of size `dt` [s] from state X (n, 13) under applied F, T
    (n, 3) (world, about the centres of mass), and the records (n, 16)."""
    params = system.params() if params is None else params
    Fc, Tc, _, rec = system.contact(jnp.asarray(X), jnp.asarray(F), jnp.asarray(T), dt, params)
    return Fc, Tc, rec


def run_volume(system: VolumeContactSystem, t_end: float, *, dt: float = 1e-3,
               dt_out: float | None = None, method: str = "rk_gill", load: BodyLoad | None = None,
               initial=None, t0: float = 0.0, params: VolumeParams | None = None):
    """Simulate the system from `t0` to `t_end` [s] with step `dt` [s] in one jitted scan
    (SPEC §7 step 6) and return a `stickslip.Results` with the channels of
    `SpatialModel.simulate`: ``<body>.x … .wz`` and ``ground-<body>.active … .stick``.

    load: constant `BodyLoad` (default none); initial: an (n, 13) state or a Results with a
    ``final_state`` (default the system's initial state); params: `VolumeParams` (default
    the system's)."""
    from ..results import Results

    if method not in FIXED_STEP_METHODS:
        raise ParameterError(f"`run_volume.method` must be one of {sorted(FIXED_STEP_METHODS)}; "
                             f"got {method!r}.")
    if initial is None:
        X0 = system.initial_state()
    elif isinstance(initial, Results):
        X0 = np.asarray(initial.final_state)
        t0 = float(initial.t[-1]) if t0 == 0.0 else t0
    else:
        X0 = np.asarray(initial, dtype=float).reshape(len(system.names), 13)
    grid = step_grid(t0, t_end, dt, dt_out, owner="run_volume")
    load = system.zero_load() if load is None else load
    params = system.params() if params is None else params
    Xs, recs = system.jitted_run(grid, method)(jnp.asarray(X0), load, params)
    Xs, recs = np.asarray(Xs), np.asarray(recs)
    channels, units = {}, {}
    suffix = ["x", "y", "z", "qw", "qx", "qy", "qz", "vx", "vy", "vz", "wx", "wy", "wz"]
    for i, name in enumerate(system.names):
        for j, s in enumerate(suffix):
            channels[f"{name}.{s}"] = Xs[:, i, j]
        for j, s in enumerate(CONTACT_FIELDS):
            channels[f"ground-{name}.{s}"] = recs[:, i, j]
    meta = {"system": "VolumeContactSystem", "method": method, "dt": dt, "dt_out": grid.dt_out,
            "t0": t0, "t_end": t_end, "steps": grid.n_steps, "bodies": system.names}
    return Results(grid.times(), channels, units=units, meta=meta, final_state=Xs[-1])
