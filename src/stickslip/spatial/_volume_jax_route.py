"""`SpatialModel.simulate` on the JAX volume route (SPEC §7 step 6): free polyhedral bodies on
the ground, the whole run one jitted program — the step of `_volume_jax.VolumeContactSystem`
(contact wrench once per step from the step's start, held through the Runge–Kutta stages,
semi-implicit pose of bodies in contact) with the numba host loop's arguments, checks and
`Results` (`_volume_host`).

What it covers (:func:`jax_route_gap` says what it does not): free bodies, on the ground
or without one (free flight); one body against the ground (`_volume_jax_contact.body_contact`);
two bodies or more with every active contact — ground and body–body — in the joint QP of
`_volume_jax_joint` while two bodies' bounding spheres overlap (else each body against the
ground on its own, the block-diagonal case: `_split_contact`), packed into K slots (`_volume_jax_slots`: a step with more active
contacts than slots stops the run with a `SimulationError` naming the contact and the time);
``patch="projection"`` or ``"section"`` (`_volume_jax_section`), eq. 3 or a
restitution per pair (the rebound target and the
position-only correction: `_volume_jax_contact.body_contact`, `_volume_jax_restitution`),
``friction="pyramid"`` or ``"previous"`` (`_volume_jax_previous`), ``lp_solver="nnls"``,
``contact_update="step"`` or ``"stage"`` (the wrench again at each later Runge–Kutta stage,
no semi-implicit pose: the host loop's choice), any fixed-step method, ``forces=``
callables (`_volume_jax_forces`), continuation (``initial=``, ``t0``).

The host loop's guards, in the run (the run stops at the first hit and the error is raised
after it, by the host loop's own functions, so the message and type are the same):

* tunnelling against the ground (`_volume_host.check_swept`'s ground test, per step, before
  the step is taken);
* non-finite state, and energy growing beyond twice what the run was given
  (`_volume_host._EnergyGuard`: the applied work each step, the balance every 10 ms);
* starting overlaps (`ModelError`) and the arguments' checks before anything compiles.

Compiled runs are kept per structure (shape tables, P, ε_v, kinetic iterations, friction,
contact update, ground, method, forces' key), in memory and by stickslip's program store
across processes (`stickslip.integrate.call_with_system`); a run calls it once per CHUNK samples,
carrying its state; the grid (t0, dt, the steps per sample, a short last step), the
parameters, the initial state and the forces' constants are traced data, so a new `t_end`,
`dt`, load or mass reuses the compiled run.
"""

from __future__ import annotations

import functools
import time as _time

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..errors import SimulationError
from ..integrate import (
    FIXED_STEP_METHODS,
    call_with_system,
    check_run_memory,
    step_grid,
)
from ..results import Results
from ._volume_host import (
    MAX_STEP_PENETRATION_GROUND,
    _EnergyGuard,
    check_restitution_step,
    check_run_options,
    check_swept,
    raise_diverged,
    raise_non_finite,
    start_state,
    volume_results,
)
from ._volume_jax import (
    VolumeContactSystem,
    _rates,
    finish_pose,
    runge_kutta,
)
from ._volume_jax_contact import rotation
from ._volume_jax_forces import applied_forces, raise_callback_error, start_callback
from ._volume_jax_joint import JointContactSystem
from ._volume_jax_pairs import bodies_meet, body_pairs
from ._volume_jax_slots import SLOTS_PER_BODY

__all__ = ["jax_route_gap", "run_jax"]

_RUNS: dict = {}       # compiled runs by structure (module docstring)
CHUNK = 64             # samples per call of a compiled run (every grid shares the program)
_OK, _TUNNEL, _NON_FINITE, _DIVERGED, _SLOTS = 0, 1, 2, 3, 4


def jax_route_gap(model, friction, lp_solver, contact_update) -> str | None:
    """Why `model` with these options cannot run on the JAX volume route (a sentence), or
    None when it can."""
    if not model.bodies:
        return "a model without bodies"
    if lp_solver != "nnls":
        return f"lp_solver={lp_solver!r}"
    return None


def _Carry(*args, **kwargs):
    """The run's carry: a plain dict (a pytree the program store can fingerprint)."""
    return dict(*args, **kwargs)


def _kinetic(X, params):
    """Kinetic energy per body [J] (`_volume_host.kinetic_energies`)."""
    R = jax.vmap(rotation)(X[:, 3:7])
    wb = jnp.einsum("nji,nj->ni", R, X[:, 10:13])
    rot = 0.5 * jnp.einsum("ni,nij,nj->n", wb, params.inertia, wb)
    return 0.5 * params.mass * jnp.sum(X[:, 7:10] ** 2, axis=1) + rot


def _energy(X, params):
    return jnp.sum(_kinetic(X, params) - params.mass * (X[:, :3] @ params.gravity))


def _tunnels(X, active, h, params, vertices, radius):
    """`_volume_host.check_swept`'s ground test per body (n,): a step of size h from X that
    would carry a body not in contact deeper than MAX_STEP_PENETRATION_GROUND of its height
    into the ground."""
    def one(x, act, verts, rad):
        v, w = x[7:10], x[10:13]
        r = verts @ rotation(x[3:7]).T
        z = x[2] + r[:, 2]
        vz = v[2] + (w[0] * r[:, 1] - w[1] * r[:, 0])
        z_end = z + h * vz + 0.5 * jnp.minimum(params.gravity[2], 0.0) * h * h
        depth = params.height - jnp.min(z_end)
        height = jnp.max(z) - jnp.min(z)
        falling = v[2] - jnp.sqrt(jnp.sum(w * w)) * rad < 0
        return (~act) & falling & (depth > MAX_STEP_PENETRATION_GROUND * height) \
            & (depth > params.height - jnp.min(z))
    return jnp.stack([one(X[i], active[i], vertices[i], radius[i])
                      for i in range(len(vertices))])


def _start(X0, params, t0, n_rec):
    """The run's first carry: state X0 at t0 and the energy guard's references; `n_rec`
    records (static)."""
    nb = X0.shape[0]
    zero = jnp.zeros(())
    return _Carry(
        X=X0, rec=jnp.zeros((n_rec, 16)).at[:, 2:8].set(jnp.nan), k=jnp.zeros((), jnp.int64),
        status=jnp.zeros((), jnp.int32), work=zero, work_abs=zero,
        steps=jnp.zeros((), jnp.int64), fallen=jnp.zeros(nb), h0=X0[:, :3] @ params.gravity,
        E0=_energy(X0, params), K0=jnp.sum(_kinetic(X0, params)), fail_t=zero, fail_h=zero,
        fail_X=X0, fail_prev=X0, gain=zero, budget=zero, sane_X=X0, sane_t=t0 + zero)


_start_jit = jax.jit(_start, static_argnums=3)


def _split_contact(joint, single, pairs):
    """The joint system's contact step, or — while no two bodies' bounding spheres overlap
    (numba then looks at no body pair: its QP (16) is block-diagonal, one block per body) —
    the per-body solve of `single` (`_volume_jax_contact.body_contact`, as for one body):
    one `lax.cond`, the same outputs (records of every pair, pseudo-velocities)."""
    m, nb = len(joint.pairs), joint.nb

    def contact(X, F, T, h, params):
        near, _ = bodies_meet(X, 0.0, pairs)

        def apart():
            Fc, Tc, act, rec, *ps = single.contact(X, F, T, h, params)
            records = jnp.zeros((m, 16)).at[:, 2:8].set(jnp.nan)
            if joint.ground:
                records = records.at[:nb].set(rec)
            return Fc, Tc, act, records, ps[0] if ps else jnp.zeros((nb, 6))

        def together():
            Fc, Tc, act, rec, *ps = joint.contact(X, F, T, h, params)
            return Fc, Tc, act, rec, ps[0] if ps else jnp.zeros((nb, 6))
        out = lax.cond(jnp.any(near), together, apart)
        return out if joint.rebound else out[:4]
    return contact


def _run_function(system, tableau, applied, vertices, radius, pairs, per_stage=False,
                  single=None):
    joint = isinstance(system, JointContactSystem)
    contact = _split_contact(system, single, pairs) if joint else system.contact
    """The pure run of one chunk, ``f(carry, params, consts, grid, o0) -> (carry, states
    (CHUNK, n, 13), records (CHUNK, n, 16))`` (module docstring): a scan over the samples
    o0 … o0 + CHUNK − 1, each a loop over its steps (none past the last sample, or after a
    guard stopped the run); `grid` = (t0, dt, n_sub, n_out, n_last, h_last, every)
    traced; `per_stage`: ``contact_update="stage"`` (static)."""
    c_nodes = jnp.asarray(np.array(tableau.c, dtype=float))

    def f(carry, params, consts, grid, o0):
        t0, dt, n_sub, n_out, n_last, h_last, every = grid
        mg_r = jnp.sum(params.mass * jnp.sqrt(jnp.sum(params.gravity ** 2)) * radius)

        def real_step(c, h):
            X = c["X"]
            t = t0 + c["k"] * dt            # a short last step starts at a whole step
            F0, T0 = applied(t, X, consts)
            Fc, Tc, active, rec, *pseudo = contact(X, F0, T0, h, params)
            nb = X.shape[0]
            # the ground pairs come first (`SpatialModel._pairs`); joint: body pairs after
            grounded = rec[:nb, 0] > 0 if system.ground else active
            tunnel = jnp.any(_tunnels(X, grounded, h, params, vertices, radius)) \
                if system.ground else jnp.asarray(False)
            # two bodies within reach: the host loop's swept test (pairs not in contact);
            # more active contacts than the joint QP's slots: stop
            if joint:
                _, swept = bodies_meet(X, h, pairs)
                in_pair = rec[nb if system.ground else 0:, 0] > 0
                tunnel = tunnel | jnp.any(swept & ~in_pair)
                full = jnp.sum(rec[:, 0] > 0) > system.slots
            else:
                full = jnp.asarray(False)

            def rate(i, Xi):
                F, T = applied(t + c_nodes[i] * h, Xi, consts)
                if not per_stage:
                    return _rates(Xi, F + Fc, T + Tc, params)
                # contact_update="stage": the wrench again at every later stage's state
                # (stage 0's is the one above: its state is X itself)
                Fs, Ts = lax.cond(i == 0, lambda: (Fc, Tc),
                                  lambda: contact(Xi, F, T, h, params)[:2])
                return _rates(Xi, F + Fs, T + Ts, params)
            Xn = runge_kutta(rate, X, h, tableau)
            # per stage, no body moves with the post-step velocity (the host loop's choice)
            Xn = finish_pose(X, Xn, h, active & (not per_stage), *pseudo)
            # the energy guard (`_volume_host._EnergyGuard.check`)
            finite = jnp.all(jnp.isfinite(Xn))
            V = X[:, 7:13] + Xn[:, 7:13]
            power = 0.5 * (jnp.sum(F0 * V[:, :3]) + jnp.sum(T0 * V[:, 3:]))
            work = c["work"] + h * power
            work_abs = c["work_abs"] + h * jnp.abs(power)
            steps = c["steps"] + 1
            balance = (steps % every) == 0
            fallen = jnp.where(balance, jnp.maximum(c["fallen"], Xn[:, :3] @ params.gravity
                                                    - c["h0"]), c["fallen"])
            gain = _energy(Xn, params) - c["E0"] - work
            budget = c["K0"] + work_abs + mg_r + jnp.sum(params.mass * fallen) + 1e-12
            diverged = balance & (gain > 2.0 * budget)
            status = jnp.where(tunnel, _TUNNEL, jnp.where(full, _SLOTS, jnp.where(
                ~finite, _NON_FINITE, jnp.where(diverged, _DIVERGED, _OK)))).astype(jnp.int32)
            ok = status == _OK
            sane = balance & ok
            out = _Carry(c)
            out.update(
                X=jnp.where(ok, Xn, X), rec=jnp.where(ok, rec, c["rec"]),
                k=c["k"] + ok, status=status, work=work, work_abs=work_abs, steps=steps,
                fallen=fallen, fail_t=t, fail_h=h, fail_X=Xn, fail_prev=X, gain=gain,
                budget=budget, sane_X=jnp.where(sane, Xn, c["sane_X"]),
                sane_t=jnp.where(sane, t + h, c["sane_t"]))
            return out

        def sample(c, o):
            last = o == n_out - 1
            count = jnp.where(o < n_out - 1, n_sub,
                              jnp.where(last, n_last + (h_last > 0), 0))

            def more(ic):
                return (ic[0] < count) & (ic[1]["status"] == _OK)

            def one(ic):
                i, c = ic
                return i + 1, real_step(c, jnp.where(last & (i == n_last), h_last, dt))

            _, c = lax.while_loop(more, one, (jnp.zeros((), count.dtype), c))
            return c, (c["X"], c["rec"])

        carry, (Xs, recs) = lax.scan(sample, carry, o0 + jnp.arange(CHUNK))
        return carry, Xs, recs

    return f


class _RunStructure:
    """The static part of a run (module docstring), compared and fingerprinted by its key
    (``__stickslip_key__``: the program store's key across processes); its pure chunk
    function is built on first use."""

    def __init__(self, key, system, tableau, applied, vertices, radius, pairs, per_stage,
                 single):
        self.key = key
        self._parts = (system, tableau, applied, vertices, radius, pairs, per_stage, single)
        self._function = None

    def __stickslip_key__(self):
        return self.key

    def __eq__(self, other):
        return isinstance(other, _RunStructure) and self.key == other.key

    def __hash__(self):
        return hash(self.key)

    def function(self):
        if self._function is None:
            system, tableau, applied, vertices, radius, pairs, per_stage, single = \
                self._parts
            self._function = _run_function(system, tableau, applied.function(), vertices,
                                           jnp.asarray(radius), pairs, per_stage, single)
        return self._function


def _chunk(structure, carry, params, consts, grid, o0):
    """One chunk of the run of `structure` (the program store's kernel)."""
    return structure.function()(carry, params, consts, grid, o0)


def _compiled(model, system, method, applied, per_stage, single):
    """The run of this structure: ``run(carry, params, consts, grid, o0)``, compiled once
    per process and kept across processes by stickslip's program store
    (`stickslip.integrate.call_with_system`: a new process loads the executable instead of
    tracing and compiling it; a force called back on the host is compiled in memory only)."""
    key = (per_stage, tuple(np.asarray(b.shape.vertices, float).tobytes()
                            for b in model.bodies),
           tuple(tuple(map(tuple, b.shape.faces)) for b in model.bodies),
           model.P, model.eps_v, model.kinetic_iterations, system.rebound, system.friction,
           system.ground, method, applied.key, getattr(system, "key", None))
    if key not in _RUNS:
        vertices = [np.asarray(b.shape.vertices, float) for b in model.bodies]
        radius = tuple(float(b.shape.radius) for b in model.bodies)
        structure = _RunStructure(key, system, FIXED_STEP_METHODS[method], applied,
                                  vertices, radius, body_pairs(model), per_stage, single)
        _RUNS[key] = functools.partial(call_with_system, _chunk, structure)
    return _RUNS[key]


def run_jax(model, t_end, dt, method, forces, friction, dt_out, lp_solver, initial, t0,
            contact_update, slots: int | None = None) -> Results:
    """`SpatialModel.simulate` on the JAX volume route (the arguments are
    `_volume_host.run_host`'s; the caller checked :func:`jax_route_gap`); `slots`: the joint
    QP's contact slots with several bodies (`_volume_jax_slots.slot_count`; None: its
    default)."""
    t0, X = start_state(model, initial, t0)
    check_run_options(model, method, forces, friction, lp_solver, contact_update)
    check_restitution_step(model, dt)
    grid = step_grid(t0, t_end, dt, dt_out, owner="SpatialModel.simulate")
    check_run_memory("SpatialModel.simulate", samples=grid.n_out + 1,
                     channels=len(model.bodies) * 13 + len(model._pairs()) * 16,
                     span=t_end - t0, dt=dt, every_step=dt_out is None)
    applied = applied_forces(model, forces, t0, t_end, X)
    joint = len(model.bodies) >= 2
    # the traced parameters (masses, inertias, the ground's μ, k, λ) are the per-body
    # system's in both cases; the per-body path is guarded in the run
    params_system = VolumeContactSystem.from_model(
        model, friction=friction, ground_required=False, ignore_body_contacts=True)
    system = JointContactSystem(model, friction, slots) if joint else params_system
    run = _compiled(model, system, method, applied, contact_update == "stage",
                    params_system)
    every = max(1, int(_EnergyGuard.PERIOD / grid.dt))
    traced_grid = (jnp.float64(t0), jnp.float64(grid.dt), jnp.int64(grid.n_sub),
                   jnp.int64(grid.n_out), jnp.int64(grid.n_last), jnp.float64(grid.h_last),
                   jnp.int64(every))
    start = _time.perf_counter()
    if applied.mode == "callback":
        start_callback(model, forces)
    try:
        params = params_system.params()
        carry = _start_jit(jnp.asarray(X), params, traced_grid[0],
                           len(model._pairs()) if joint else len(model.bodies))
        Xs, recs = [], []
        for o0 in range(0, grid.n_out, CHUNK):
            carry, Xc, rc = run(carry, params, applied.consts, traced_grid, jnp.int64(o0))
            Xs.append(Xc)
            recs.append(rc)
            if int(carry["status"]) != _OK:
                break
        carry = jax.tree_util.tree_map(np.asarray, carry)
        Xs, recs = np.concatenate(Xs), np.concatenate(recs)
    finally:
        if applied.mode == "callback":
            raise_callback_error()
    wall = _time.perf_counter() - start
    _raise_guard(model, carry, getattr(system, "slots", 0))
    body_ch = np.concatenate([X[None], Xs[:grid.n_out]])
    # the pairs of `model._pairs()`: all of them (joint), or the one body's ground contact
    contact_ch = np.zeros((grid.n_out + 1, len(model._pairs()), 16))
    contact_ch[..., 2:8] = np.nan
    if joint:
        contact_ch[1:] = recs[:grid.n_out]
    elif system.ground:
        contact_ch[1:, :len(model.bodies)] = recs[:grid.n_out]
    return volume_results(model, grid, body_ch, contact_ch, body_ch[-1].copy(),
                          method=method, dt=dt, t0=t0, t_end=t_end, steps=grid.n_steps,
                          friction=friction, lp_solver=lp_solver, wall=wall, engine="jax")


def _raise_guard(model, c, slots) -> None:
    """Raise the host loop's error for a run the guards stopped (module docstring)."""
    status = int(c["status"])
    if status == _OK:
        return
    t, h = float(c["fail_t"]), float(c["fail_h"])
    if status == _SLOTS:
        _out_of_slots(model, c["fail_prev"], t, slots)
    if status == _NON_FINITE:
        raise_non_finite(model, c["fail_prev"], c["fail_X"], t, h)
    if status == _DIVERGED:
        raise_diverged(model, float(c["gain"]), float(c["budget"]), c["fail_X"],
                       c["sane_X"], float(c["sane_t"]), t, h)
    check_swept(model, c["fail_prev"], t, h)       # raises the tunnelling error
    raise SimulationError(                         # a borderline case the host test missed
        f"a body would pass through the ground in the step from t={t:.6g} s "
        f"(tunnelling); use a smaller dt (now {h:g} s).", time=t,
        state={b.name: c["fail_prev"][i].tolist() for i, b in enumerate(model.bodies)})


def _out_of_slots(model, X, t, slots) -> None:
    """Raise the route's error for a step from state X at time t with more active contacts
    than the joint QP's `slots` (the contacts from the host loop's geometry)."""
    names = model.pair_names()
    active = [names[k] for k, _ in model.contact_geometries(np.asarray(X))]
    extra = active[slots] if len(active) > slots else "?"
    raise SimulationError(
        f"{len(active)} contacts are active in the step from t={t:.6g} s ({', '.join(active)})"
        f"; `simulate.engine='jax'` packs them into {slots} slots and contact {extra!r} "
        f"found none. Pass more slots (`simulate(..., engine='jax', slots={len(active)})`; "
        f"the default is {SLOTS_PER_BODY} per body) or use engine='numba' (the default).",
        time=t,
        state={b.name: np.asarray(X)[i].tolist() for i, b in enumerate(model.bodies)})
