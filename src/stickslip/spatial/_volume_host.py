"""The volume route's host loop (SPEC §7 step 6; Wakisaka & Sugihara): free polyhedral
bodies and the ground stepped from Python, the contact wrench of each step from
:mod:`._volume_wrench`, the Runge–Kutta stages and the post-step pose update in numba
(:mod:`._dynamics`).

Time stepping (documented choice): the contact wrenches are computed once per step from the
state at the step's start — eq. 13–15 discretise the dynamics over the whole step Δt by
explicit Euler — and held constant through the stages of the chosen Runge–Kutta method
(``rk_gill`` by default, the paper's integrator; any tableau of
``stickslip.integrate.FIXED_STEP_METHODS``). Gravity, applied forces and the gyroscopic term
are re-evaluated at every stage; bodies in contact advance position and orientation with the
post-step velocity (what eq. 13–15 assume). Quaternions are renormalised after every step.

A run samples on the grid of ``stickslip.integrate.step_grid`` (last sample exactly t_end),
continues from a previous Results (``initial=``, ``t0``), and stops with a stickslip error
rather than return a wrong answer: bodies starting inside each other or the ground
(`ModelError`), a step that would carry a body past a contact (tunnelling,
:func:`check_swept`), and a run whose energy grows beyond what it was given or turns
non-finite (:class:`_EnergyGuard`, `SimulationError`).
"""

from __future__ import annotations

import time as _time
from collections.abc import Mapping

import numpy as np

from ..errors import ModelError, ParameterError, SimulationError
from ..integrate import FIXED_STEP_METHODS, check_run_memory, step_grid
from ..results import Results
from ._dynamics import finish_step, quat_to_matrix, rigid_body_rates, stage_state
from ._model_rules import check_scalar
from ._model_touch import placed_in_touch
from ._volume_wrench import ContactRecord, contact_step

__all__ = [
    "MAX_STEP_PENETRATION_BODIES",
    "MAX_STEP_PENETRATION_GROUND",
    "applied_loads",
    "check_run_options",
    "check_swept",
    "kinetic_energies",
    "raise_diverged",
    "raise_non_finite",
    "run_host",
    "start_state",
    "volume_results",
]

# how deep one step may carry a body into a contact it was not in, as a fraction of its
# height (ground) or of the thinner body's smallest width (two bodies); deeper, the contact
# volume no longer describes the contact (the ground's depth h is measured to the body's top
# once it is under; two bodies' face normals stop summing to the contact normal) and a fast
# body tunnels (a 0.1 m box at 100 m/s with Δt = 1 ms passed the ground)
MAX_STEP_PENETRATION_GROUND = 0.9
MAX_STEP_PENETRATION_BODIES = 0.5


def run_host(model, t_end, dt, method, forces, friction, dt_out, lp_solver, initial, t0,
              contact_update) -> Results:
    if not model.bodies:
        raise ModelError("the model has no bodies. Add one with `model.add_body(...)`.")
    t0, X = start_state(model, initial, t0)   # t_end and dt: checked and cleaned by simulate
    check_run_options(model, method, forces, friction, lp_solver, contact_update)
    check_restitution_step(model, dt)
    per_stage = contact_update == "stage"
    grid = step_grid(t0, t_end, dt, dt_out, owner="SpatialModel.simulate")
    check_run_memory("SpatialModel.simulate", samples=grid.n_out + 1,
                     channels=len(model.bodies) * 13 + len(model._pairs()) * 16,
                     span=t_end - t0, dt=dt, every_step=dt_out is None)
    n_steps, h_final, steps_out = _step_sizes(grid)
    tab = FIXED_STEP_METHODS[method]
    pairs_ab = [(a, b) for a, b, _, _ in model._pairs()]
    pair_index = {ab: k for k, ab in enumerate(pairs_ab)}
    nb = len(model.bodies)
    n_out = len(steps_out)
    body_ch = np.full((n_out + 1, nb, 13), np.nan)
    contact_ch = np.zeros((n_out + 1, len(pairs_ab), 16))
    contact_ch[..., 2:8] = np.nan
    body_ch[0] = X
    a_rows = [np.array(row, dtype=float) for row in tab.a]
    b_row = np.array(tab.b, dtype=float)
    mass, inertia, inv_i = model._mass_arrays()
    K = np.zeros((len(tab.c), nb, 13))
    in_contact = np.zeros(nb, dtype=np.bool_)
    guard = _EnergyGuard(model, X, t0, dt)
    start = _time.perf_counter()
    records: list[ContactRecord] = []
    o = 0
    for step in range(n_steps):
        t = t0 + step * dt          # the short last step (if any) starts at a whole step
        h = h_final if step == n_steps - 1 else grid.dt
        pseudo = np.zeros((nb, 6))
        for s, (ci, row) in enumerate(zip(tab.c, a_rows)):
            Xi = X if s == 0 else stage_state(X, K, row, s, h)
            F, T = applied_loads(model, forces, t + ci * h, Xi)
            if s == 0:
                F0, T0 = F, T
            if s == 0 or per_stage:
                Fc, Tc, recs, ps = contact_step(model, Xi, F, T, h, friction, lp_solver)
                if s == 0:
                    records, pseudo = recs, ps
                    check_swept(model, X, t, h, {rec.pair for rec in records},
                                      pair_index)
            K[s] = rigid_body_rates(Xi, F + Fc, T + Tc, mass, inertia, inv_i, model.gravity)
        in_contact[:] = False
        if not per_stage:
            # bodies in contact: positions advance with the post-step velocity, the
            # update eq. 13–15 assume (see the module docstring)
            for rec in records:
                for j in pairs_ab[rec.pair]:
                    if j >= 0:
                        in_contact[j] = True
        X_prev = X
        X = finish_step(X, K, b_row, h, in_contact, pseudo)
        guard.check(X_prev, X, F0, T0, t, h)
        if step + 1 == steps_out[o]:
            o += 1
            body_ch[o] = X
            contact_ch[o, :, 2:8] = np.nan
            for rec in records:
                g = rec.geometry
                contact_ch[o, rec.pair] = np.concatenate([
                    [1.0, g.volume], g.normal, g.centroid, rec.wrench,
                    [float(rec.wrench[:3] @ g.normal), float(rec.stick)]])
    wall = _time.perf_counter() - start
    return volume_results(model, grid, body_ch, contact_ch, X, method=method, dt=dt, t0=t0,
                          t_end=t_end, steps=n_steps, friction=friction, lp_solver=lp_solver,
                          wall=wall)


def check_run_options(model, method, forces, friction, lp_solver, contact_update) -> None:
    """The volume route's checks of `simulate`'s options (both engines): `ParameterError`
    naming the option and its allowed values."""
    if not isinstance(method, str) or method not in FIXED_STEP_METHODS:
        raise ParameterError(f"`simulate.method` must be one of "
                             f"{sorted(FIXED_STEP_METHODS)}; got {method!r}.")
    if friction not in ("pyramid", "previous"):
        raise ParameterError(f"`simulate.friction` must be 'pyramid' or 'previous'; got "
                             f"{friction!r}.")
    if lp_solver not in ("nnls", "highs"):
        raise ParameterError(f"`simulate.lp_solver` must be 'nnls' or 'highs'; got "
                             f"{lp_solver!r}.")
    if contact_update not in ("stage", "step"):
        raise ParameterError(f"`simulate.contact_update` must be 'stage' or 'step'; got "
                             f"{contact_update!r}.")
    if forces is not None and not callable(forces) and not isinstance(forces, Mapping):
        raise ParameterError("`simulate.forces` must be a mapping {body: fn(t, states)} or "
                             f"one callable fn(t, states) -> {{body: (force, torque)}}; got "
                             f"{type(forces).__name__}.")
    if isinstance(forces, Mapping):
        for name, fn in forces.items():
            if not callable(fn):
                raise ParameterError(f"`simulate.forces[{name!r}]` must be a callable "
                                     f"fn(t, states) -> (force, torque); got {fn!r}.")
    if contact_update == "stage" and any(p[4] is not None for p in model._pairs_e()):
        raise ParameterError("`simulate.contact_update='stage'` does not support a "
                             "restitution (its position correction needs the once-per-step "
                             "contact); use contact_update='step'.")


def check_restitution_step(model, dt) -> None:
    """With a restitution, the position-only correction moves a body by k·Δt times its
    penetration each step (its target k h): it removes the depth when k·Δt = 1 and
    over-corrects beyond, lifting the body without work — a box dropped 5 cm with k = 1000
    and Δt = 0.01 rebounds to 16 cm with e = 0, to 27 cm with e = 1, under the energy
    guard's bound. Refused (`ParameterError` naming k and Δt) where k·Δt > 1."""
    if not any(p[4] is not None for p in model._pairs_e()):
        return
    ratio = float(model.k) * float(dt)
    if ratio > 1.0 + 1e-9:
        raise ParameterError(
            f"`simulate.dt`={dt:g} s with `SpatialModel.k`={model.k:g} 1/s and a "
            f"restitution: k·dt = {ratio:.3g} > 1, so the position correction would move a "
            f"body {ratio:.3g} times its penetration each step and add energy (a rebound "
            f"above the drop). Use dt <= 1/k = {1.0 / model.k:.3g} s, or k <= 1/dt.")


def volume_results(model, grid, body_ch, contact_ch, X, *, method, dt, t0, t_end, steps,
                   friction, lp_solver, wall, engine="numba") -> Results:
    """The volume route's `Results` (both engines): body states (n_out + 1, n_bodies, 13),
    contact records (n_out + 1, n_pairs, 16) sampled on `grid`, the final state `X`."""
    t_axis = grid.times()
    pairs = model.pair_names()
    channels, units = {}, {}
    suffix = ["x", "y", "z", "qw", "qx", "qy", "qz", "vx", "vy", "vz", "wx", "wy", "wz"]
    unit = ["m"] * 3 + [""] * 4 + ["m/s"] * 3 + ["rad/s"] * 3
    for i, b in enumerate(model.bodies):
        for j, (s, u) in enumerate(zip(suffix, unit)):
            channels[f"{b.name}.{s}"] = body_ch[:, i, j]
            units[f"{b.name}.{s}"] = u
    csuffix = ["active", "volume", "nx", "ny", "nz", "px", "py", "pz", "fx", "fy", "fz",
               "tx", "ty", "tz", "fn", "stick"]
    cunit = ["", "m^3", "", "", "", "m", "m", "m", "N", "N", "N", "N m", "N m", "N m", "N",
             ""]
    for k, name in enumerate(pairs):
        for j, (s, u) in enumerate(zip(csuffix, cunit)):
            channels[f"{name}.{s}"] = contact_ch[:, k, j]
            units[f"{name}.{s}"] = u
    meta = {"system": "SpatialModel", "method": method, "dt": dt, "dt_out": grid.dt_out,
            "t0": t0, "t_end": t_end, "steps": steps,
            "friction": friction, "lp_solver": lp_solver, "wall_time": wall,
            "parameters": {"k": model.k, "lam": model.lam, "P": model.P, "eps_v": model.eps_v,
                           "gravity": model.gravity.tolist(), "restitution": model.restitution,
                           "ground": model.ground, "mu_s": model.mu_s, "mu_k": model.mu_k},
            "bodies": [b.name for b in model.bodies], "contacts": pairs}
    meta["engine"] = engine
    return Results(t_axis, channels, units=units, meta=meta, final_state=X)


def start_state(model, initial, t0) -> tuple[float, np.ndarray]:
    """(t0, X0) from `initial` (None, a Results of this model, or a state array) and
    `t0`; bodies starting inside each other or the ground are rejected (except when
    continuing a Results, whose state this model produced)."""
    nb = len(model.bodies)
    check_overlap = True
    if isinstance(initial, Results):
        if initial.final_state is None or initial.batch_shape:
            raise ParameterError("`simulate.initial` Results carry no single final state "
                                 "to continue from; pass the Results of one "
                                 "`SpatialModel.simulate` run.")
        bodies = initial.meta.get("bodies")
        if bodies is not None and list(bodies) != [b.name for b in model.bodies]:
            raise ParameterError(f"`simulate.initial` comes from a model with bodies "
                                 f"{list(bodies)}; this model has "
                                 f"{[b.name for b in model.bodies]}. Continue with the "
                                 "model that produced it.")
        X = initial.final_state
        t0 = float(initial.t[-1]) if t0 is None else t0
        check_overlap = False
    elif initial is None:
        X = model.initial_state()
    else:
        try:
            X = np.array(initial, dtype=float)
        except (TypeError, ValueError):
            raise ParameterError(f"`simulate.initial` must be a Results or an ({nb}, 13) "
                                 f"state array; got {type(initial).__name__}.") from None
    X = np.array(X, dtype=float).reshape(-1, 13) if np.size(X) == 13 * nb else \
        np.asarray(X, dtype=float)
    if X.shape != (nb, 13):
        raise ParameterError(f"`simulate.initial` must be an ({nb}, 13) state array (position, "
                             f"quaternion, velocity, angular velocity per body); got shape "
                             f"{X.shape}.")
    if not np.all(np.isfinite(X)):
        raise ParameterError("`simulate.initial` state must be finite; got "
                             f"{X.tolist()}.")
    qn = np.linalg.norm(X[:, 3:7], axis=1)
    if np.any(qn < 1e-12):
        raise ParameterError("`simulate.initial` has a zero quaternion (columns 3:7) for "
                             f"body {model.bodies[int(np.argmin(qn))].name!r}; pass unit "
                             "quaternions (w, x, y, z).")
    X = X.copy()
    X[:, 3:7] /= qn[:, None]
    t0 = 0.0 if t0 is None else check_scalar("simulate", "t0", t0)
    if check_overlap:
        model._reject_overlaps(X)
    if initial is None:                 # resting bodies start in contact (`_model_touch`)
        X = placed_in_touch(model, X)
    return t0, X


def applied_loads(model, forces, t: float, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    nb = len(model.bodies)
    F, T = np.zeros((nb, 3)), np.zeros((nb, 3))
    if forces is None:
        return F, T
    states = model.body_states(X)
    if callable(forces):
        out = forces(t, states)
    else:
        out = {name: fn(t, states) for name, fn in forces.items()}
    index = {b.name: i for i, b in enumerate(model.bodies)}
    if type(out) is not dict and not isinstance(out, Mapping):
        raise ParameterError("`simulate.forces` (one callable) must return {body: (force, "
                             f"torque)}}; it returned {type(out).__name__} at t={t:g} s.")
    for name, wrench in out.items():
        if name not in index:
            raise ModelError(f"`forces` names body {name!r}, which is not in the model; "
                             f"bodies are {list(index)}.")
        try:
            fvec, tvec = wrench
            F[index[name]] += fvec
            T[index[name]] += tvec
        except (TypeError, ValueError):
            raise ParameterError(f"`simulate.forces` for body {name!r} must return (force "
                                 f"(3,) [N], torque (3,) [N m]); got {wrench!r} at "
                                 f"t={t:g} s.") from None
    # a non-finite wrench is reported by the divergence guard after the step (body, time)
    return F, T


def check_swept(model, X: np.ndarray, t: float, dt: float, active=(),
                 pair_index=None) -> None:
    """Stop before a step that would carry a body past a contact (tunnelling). Against
    the ground: each vertex's height at the step's end, from its velocity (v + ω × r) and
    gravity; between bodies: the closing speed of two bodies whose bounding spheres meet
    within the step. A step may go at most MAX_STEP_PENETRATION of the body's thinnest
    width deep; the contact volume of eq. 1–9 no longer describes a deeper step (a 0.1 m
    box at 100 m/s with Δt = 1 ms passed through the ground). Pairs in contact at the
    previous step (`active`, pair indices) are left to the contact force."""
    R = None
    if pair_index is None:
        pair_index = {(a, b): k for k, (a, b, _, _) in enumerate(model._pairs())}
    for j, body in enumerate(model.bodies):
        v, w = X[j, 7:10], X[j, 10:13]
        width = body.shape.min_width
        if model.ground is not None and pair_index[(-1, j)] not in active \
                and v[2] - np.linalg.norm(w) * body.shape.radius < 0:
            if R is None:
                R = quat_to_matrix(X[:, 3:7])
            r = body.shape.vertices @ R[j].T
            z = X[j, 2] + r[:, 2]
            vz = v[2] + (w[0] * r[:, 1] - w[1] * r[:, 0])
            z_end = z + dt * vz + 0.5 * min(model.gravity[2], 0.0) * dt * dt
            h = model.ground["height"]
            depth = h - z_end.min()
            height = np.ptp(z)
            if depth > MAX_STEP_PENETRATION_GROUND * height and depth > h - z.min():
                speed = max(-vz.min(), 1e-300)
                _tunnel(body.name, "the ground", t, dt, depth, height, speed,
                        MAX_STEP_PENETRATION_GROUND, X[j])
        for i in range(j):
            if pair_index[(i, j)] in active:
                continue
            other = model.bodies[i]
            d = X[j, :3] - X[i, :3]
            u = X[j, 7:10] - X[i, 7:10]
            reach = body.shape.radius + other.shape.radius
            s = 0.0 if u @ u == 0 else min(max(-(d @ u) / (u @ u), 0.0), dt)
            if np.linalg.norm(d + s * u) >= reach:
                continue
            dist = np.linalg.norm(d)
            closing = (max(0.0, -(d @ u) / dist) if dist > 0 else np.linalg.norm(u)) \
                + np.linalg.norm(w) * body.shape.radius \
                + np.linalg.norm(X[i, 10:13]) * other.shape.radius
            thin = min(width, other.shape.min_width)
            if closing * dt > MAX_STEP_PENETRATION_BODIES * thin:
                _tunnel(body.name, f"body {other.name!r}", t, dt, closing * dt, thin,
                        closing, MAX_STEP_PENETRATION_BODIES, X[j])


def _tunnel(name, what, t, dt, depth, width, speed, fraction, state):
    """Raise the tunnelling `SimulationError` (body, time, a step that works)."""
    ok = 0.5 * fraction * width / speed
    unit = 10.0 ** np.floor(np.log10(ok))
    ok = float(np.floor(ok / unit) * unit)              # one digit, rounded down
    raise SimulationError(
        f"body {name!r} would move {depth:.3g} m into {what} in the step from t={t:.6g} s "
        f"(closing at {speed:.3g} m/s; the body is {width:.3g} m thick there): the step "
        f"dt={dt:g} s jumps past the contact (tunnelling). Use dt <= {ok:g} s (a step then "
        f"moves it at most {0.5 * fraction:g} of that thickness), or slow the body.",
        time=t, state={name: np.asarray(state).tolist()})


def _step_sizes(grid) -> tuple[int, float, np.ndarray]:
    """The step count of a run on `grid` (``stickslip.integrate.step_grid``: the output-grid
    rule of ``ss.simulate``, the last sample exactly t_end, a shorter final step when dt
    does not divide the span), the size of its last step, and the step counts after which a
    sample is taken. Every other step is ``grid.dt`` (nothing is stored per step: a run of
    10⁹ steps with sparse samples needs no 8 GB list)."""
    n_full = grid.n_sub * (grid.n_out - 1) + grid.n_last
    last = grid.h_last if grid.h_last > 0 else grid.dt
    n_steps = n_full + (1 if grid.h_last > 0 else 0)
    out = np.arange(1, grid.n_out + 1, dtype=np.int64) * grid.n_sub
    out[-1] = n_steps
    return n_steps, last, out


class _EnergyGuard:
    """Stops a run whose mechanical energy grows beyond everything it was given (a finite
    divergence: NaN and inf are caught too). Gain = E(t) − E(t0) − W_applied, with E the
    kinetic plus gravitational energy and W the work of the applied wrenches (the step's
    wrench times the mean of its start and end velocities, × Δt). The budget: the kinetic energy at t0, the applied work taken in
    absolute value, and m|g| times the body's radius plus the height it has fallen so far;
    contacts only dissipate (eq. 3 with an overlap can give back a fraction of the impact
    energy), so a gain above twice the budget is a divergence."""

    PERIOD = 0.01   # [s] energy balance at least this often (NaN/inf: every step)

    def __init__(self, model, X, t0, dt):
        self.model = model
        self.mass, self.inertia, _ = model._mass_arrays()
        self.g = model.gravity
        self.E0 = self.energy(X)
        self.K0 = self.kinetic(X).sum()
        self.work = 0.0
        self.work_abs = 0.0
        self.h0 = X[:, :3] @ self.g
        self.fallen = np.zeros(len(X))
        self.radius = np.array([b.shape.radius for b in model.bodies])
        self.steps = 0
        self.every = max(1, int(self.PERIOD / dt))
        self.last_sane = (X, t0)          # the last state that passed the energy check

    def kinetic(self, X):
        return kinetic_energies(self.model, X)

    def energy(self, X):
        return float((self.kinetic(X) - self.mass * (X[:, :3] @ self.g)).sum())

    def check(self, X_prev, X, F, T, t, dt):
        """After each step: NaN/inf at once; the work of the applied wrenches accumulated; the
        energy balance every `every` steps, 10 ms of simulated time (it costs a rotation per
        body)."""
        if not np.isfinite(X.sum()):
            raise_non_finite(self.model, X_prev, X, t, dt)
        # two flat dot products: this runs every step (NumPy reductions cost ~10 % of a step)
        V = X_prev[:, 7:13] + X[:, 7:13]
        power = 0.5 * (float(F.ravel() @ V[:, :3].ravel()) + float(T.ravel() @ V[:, 3:].ravel()))
        self.work += dt * power
        self.work_abs += dt * abs(power)
        self.steps += 1
        if self.steps % self.every:
            return
        self.fallen = np.maximum(self.fallen, X[:, :3] @ self.g - self.h0)
        gain = self.energy(X) - self.E0 - self.work
        budget = self.K0 + self.work_abs + float(
            (self.mass * np.linalg.norm(self.g) * self.radius).sum()
            + (self.mass * self.fallen).sum()) + 1e-12
        if gain > 2.0 * budget:
            raise_diverged(self.model, gain, budget, X, *self.last_sane, t, dt)
        self.last_sane = (X, t + dt)


def kinetic_energies(model, X: np.ndarray) -> np.ndarray:
    """Each body's kinetic energy [J] in state X (n_bodies, 13)."""
    mass, inertia, _ = model._mass_arrays()
    R = quat_to_matrix(X[:, 3:7])
    wb = np.einsum("nji,nj->ni", R, X[:, 10:13])
    rot = 0.5 * np.einsum("ni,nij,nj->n", wb, inertia, wb)
    return 0.5 * mass * (X[:, 7:10] ** 2).sum(axis=1) + rot


def raise_non_finite(model, X_prev, X, t, dt):
    """Raise the divergence guard's `SimulationError` for a step from t to t + dt that
    turned state X non-finite (the body, the time, the last sane state X_prev)."""
    names = [b.name for b in model.bodies]
    i = int(np.argmax(~np.all(np.isfinite(X), axis=1)))
    raise SimulationError(
        f"the spatial simulation produced non-finite values for body {names[i]!r} at "
        f"t={t + dt:.6g} s; the last sane state (t={t:.6g} s) is in the error's "
        f"`state`: {names[i]}={np.round(X_prev[i], 6).tolist()}. Reduce dt or check "
        "the applied forces (a force callable returning NaN/inf) and masses.", time=t,
        state={n: X_prev[i].tolist() for i, n in enumerate(names)})


def raise_diverged(model, gain, budget, X, Xs, ts, t, dt):
    """Raise the energy guard's `SimulationError`: the energy grew by `gain` [J] > twice
    `budget` by t + dt; the last sane state Xs at ts."""
    names = [b.name for b in model.bodies]
    i = int(np.argmax(kinetic_energies(model, X) - kinetic_energies(model, Xs)))
    raise SimulationError(
        f"the spatial simulation diverged by t={t + dt:.6g} s: the energy grew by "
        f"{gain:.3g} J, more than twice all the energy the run was given "
        f"({budget:.3g} J), fastest for body {names[i]!r}; its last sane state "
        f"(t={ts:.6g} s) is {np.round(Xs[i], 6).tolist()} (all bodies in the "
        "error's `state`). Reduce dt (or use method='rk_gill'/'rk4' instead of "
        "'euler') or check the applied forces.", time=ts,
        state={n: Xs[i].tolist() for i, n in enumerate(names)})
