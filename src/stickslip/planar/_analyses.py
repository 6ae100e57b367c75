"""The analyses of a planar mechanism, as pure functions of a :class:`PlanarSystem`
(SPEC §9): :func:`dof`, :func:`assemble`, :func:`kinematics`, :func:`inverse_dynamics`,
:func:`equilibrium`, :func:`simulate`. Each returns a result (a number or a
:class:`~stickslip.Results`) and changes nothing: a new starting configuration is a new
system (``system.with_state(q, qd)``).

The compiled kernels are module-level functions called through the program store
(:func:`._kernels.host_call`; Φ, Φ_q, ν by :func:`._kernels.host_kinematics`): one compile
per model structure (the static :class:`Layout`), shared by every call and every model
method, and loaded, not traced, by the next process.
"""

from __future__ import annotations

import math
import time
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from numpy.typing import ArrayLike

from .. import integrate
from ..errors import ModelError, ParameterError, SimulationError
from ..integrate import padded_length
from ..results import Results
from ._kernels import host_call, host_kinematics
from ._system import PlanarSystem

__all__ = ["assemble", "check_drift", "dof", "equilibrium", "inverse_dynamics", "kinematics",
           "simulate"]

_RANK_TOL = 1e-9


# --- compiled kernels ------------------------------------------------------------------------
def _phi(system, q, t) -> np.ndarray:
    return host_kinematics(system, q, t)[0]


def _phi_q(system, q, t) -> np.ndarray:
    return host_kinematics(system, q, t)[1]


def _nu(system, q, t) -> np.ndarray:
    return host_kinematics(system, q, t)[2]


# --- degrees of freedom ----------------------------------------------------------------------
def redundant_rows(system: PlanarSystem, q, t) -> list[str]:
    """Constraint rows that add no rank to Φ_q at (q, t) (joints first, then drivers)."""
    layout = system.layout
    if layout.n_rows == 0:
        return []
    J = _phi_q(system, q, t)
    order = [r for r in range(layout.n_rows) if not layout.row_owner(r)[0].is_driver]
    order += [r for r in range(layout.n_rows) if layout.row_owner(r)[0].is_driver]
    basis: list[np.ndarray] = []
    out = []
    scale = max(1.0, float(np.max(np.abs(J))))
    for r in order:
        v = J[r].copy()
        for b in basis:
            v -= (b @ v) * b
        norm = np.linalg.norm(v)
        if norm > _RANK_TOL * scale:
            basis.append(v / norm)
        else:
            element, row = layout.row_owner(r)
            out.append(f"{element.describe()} (equation {row + 1} of {element.n_equations})")
    return out


def dof(system: PlanarSystem) -> int:
    """Degrees of freedom n_c − n_h (SPEC §9), with a row-by-row rank check of Φ_q at the
    system's initial configuration; a redundant row raises ModelError naming it."""
    layout = system.layout
    n_c, n_h = layout.n_coordinates, layout.n_kinematic
    redundant = redundant_rows(system, system.q0, 0.0)
    if redundant:
        raise ModelError(
            f"planar model {layout.name!r} has redundant (or contradictory) constraints: "
            + "; ".join(redundant)
            + f". Counting gives DOF = {n_c} − {n_h} = {n_c - n_h}, but these rows add "
            "nothing to the rank of Φ_q at the initial configuration. Remove them, or "
            "replace a joint by one that removes fewer DOF (e.g. a RevoluteJoint by a "
            "RevoluteTranslationalJoint); if the model is right, the start may be a "
            "singular pose (a four-bar with all pivots on one line, a crank at dead centre): "
            "start it a few degrees away.")
    return n_c - n_h


# --- assembly --------------------------------------------------------------------------------
def assemble(system: PlanarSystem, t: float = 0.0, tol: float = 1e-10,
             max_iterations: int = 50, drivers: bool = True) -> Results:
    """Close the constraints from the system's initial poses (Newton–Raphson with the
    least-norm step, SPEC §9 assembly analysis) and make the velocities consistent
    (Φ_q q̇ = ν, least mass-weighted change). Returns one sample with every pose and
    velocity (``final_state`` = [q; q̇; zero law states]). Newton stops at `tol`, after
    `max_iterations`, or when the residual has stopped shrinking for 10 iterations.

    Raises ModelError naming the constraint with the largest remaining residual.
    """
    layout = system.layout
    _check_iterations(max_iterations)
    q = np.asarray(system.q0, dtype=float)
    keep = np.ones(layout.n_rows, dtype=bool)
    if not drivers:
        for c, (a, z) in zip(layout.constraints, layout.rows):
            keep[a:z] = not c.is_driver
    best, stalled, iterations = None, 0, 0
    while True:
        phi = _phi(system, q, t)[keep]
        err = float(np.max(np.abs(phi))) if phi.size else 0.0
        if best is None or err < best[0] * (1.0 - 1e-3):
            stalled = 0
        else:
            stalled += 1
        if best is None or err < best[0]:
            best = (err, q.copy())
        if err < tol or iterations >= max_iterations or stalled >= 10 \
                or not np.all(np.isfinite(q)):
            break
        J = _phi_q(system, q, t)[keep]
        q = q - np.linalg.lstsq(J, phi, rcond=None)[0]
        iterations += 1
    err, q = best
    if err >= tol:
        full = np.where(keep, _phi(system, q, t), 0.0)
        worst = int(np.argmax(np.abs(full)))
        element, row = layout.row_owner(worst)
        why = ("the residual stopped shrinking" if stalled >= 10
               else f"after {iterations} Newton iterations")
        raise ModelError(
            f"assembly of {layout.name!r} failed at t={t:g} s: {element.describe()} will not "
            f"close (equation {row + 1}, residual {full[worst]:.4g}; {why}; tolerance "
            f"{tol:g}). Check its points and lengths (can the loop reach?), or give the "
            "bodies a closer initial guess.")
    qd = consistent_velocity(system, q, np.asarray(system.qd0), t, keep)
    return single_sample(system, t, q, qd, "assembly")


def _check_iterations(max_iterations):
    if isinstance(max_iterations, bool) or not isinstance(max_iterations, (int, np.integer)) \
            or max_iterations < 1:
        raise ParameterError(f"`max_iterations` must be an integer >= 1; got "
                             f"max_iterations={max_iterations!r}.")


def consistent_velocity(system, q, qd, t, keep=None):
    """The mass-weighted nearest q̇ with Φ_q q̇ = ν (rows `keep`)."""
    J, nu = _phi_q(system, q, t), _nu(system, q, t)
    if keep is not None:
        J, nu = J[keep], nu[keep]
    if J.shape[0] == 0:
        return qd
    minv = 1.0 / np.asarray(system.masses)
    JM = J * minv[None, :]
    lam = np.linalg.lstsq(JM @ J.T, J @ qd - nu, rcond=None)[0]
    return qd - minv * (J.T @ lam)


def consistent_start(system, x, t: float, owner: str, tol: float = 1e-3) -> np.ndarray:
    """A state vector x = [q; q̇; …] given to a run (``initial=``) made ready for it as
    :func:`assemble` makes the model's own: the poses checked against every constraint row
    at t (a residual above `tol` raises `ModelError` naming the element and equation — the
    run's first projection would otherwise pull the bodies back unseen) and the velocities
    made consistent (:func:`consistent_velocity`: the first step would otherwise remove the
    difference, and its energy, without a word). Returns the new vector."""
    layout = system.layout
    n = layout.n_coordinates
    x = np.array(x, dtype=float)
    if not layout.n_rows:
        return x
    q = x[:n]
    phi = _phi(system, q, t)
    worst = int(np.argmax(np.abs(phi)))
    if abs(phi[worst]) > tol:
        element, row = layout.row_owner(worst)
        raise ModelError(
            f"`{owner}`: the state does not satisfy {element.describe()} at t={t:g} s "
            f"(equation {row + 1}, residual {phi[worst]:.4g}). Give a state on the "
            "constraints, e.g. an earlier run's `Results.final_state` or the run itself "
            "(`initial=results`); the tolerance is the run's `max_drift`.")
    x[n:2 * n] = consistent_velocity(system, q, x[n:2 * n], t)
    return x


def single_sample(system, t, q, qd, analysis):
    layout = system.layout
    channels = {}
    for k, b in enumerate(layout.bodies):
        for c_idx, c in enumerate(("x", "y", "phi")):
            channels[f"{b.name}.{c}"] = np.array([q[3 * k + c_idx]])
            channels[f"{b.name}.{c}d"] = np.array([qd[3 * k + c_idx]])
    units = {k: v for k, v in layout.units().items() if k in channels}
    return Results(np.array([float(t)]), channels, units=units,
                   meta={"analysis": analysis, "model": layout.name},
                   final_state=np.concatenate([q, qd, np.zeros(layout.n_law_states)]))


def state_of(results: Results, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(q, q̇) of the last sample of `results` (its ``final_state``)."""
    x = np.asarray(results.final_state)
    return x[:n], x[n:2 * n]


# --- kinematics and inverse dynamics -----------------------------------------------------------
def _times(times):
    times = np.atleast_1d(np.asarray(times, dtype=float))
    if times.ndim != 1 or times.size == 0 or not np.all(np.isfinite(times)) \
            or np.any(np.diff(times) < 0):
        raise ParameterError("`times` must be a non-empty increasing sequence of finite "
                             f"times [s]; got {times!r}.")
    return times


def _check_driven(system):
    layout = system.layout
    n_dof = dof(system)
    n_drive = layout.n_rows - layout.n_kinematic
    if n_drive != n_dof:
        hint = ("add drivers (e.g. RotationalDriver) for the free coordinates"
                if n_drive < n_dof else "remove drivers")
        drivers = [c.name for c in layout.constraints if c.is_driver]
        raise ModelError(f"kinematic analysis of {layout.name!r} needs as many driving "
                         f"equations as DOF: the model has DOF {n_dof} and {n_drive} "
                         f"driver equation(s) ({drivers}); {hint}. "
                         "For an under-driven model use `simulate`.")


def kinematic_scan(system, q0, times, tol, with_lambda: bool = False):
    """Newton on Φ(q, t) = 0 at each time (from the previous solution), then Φ_q q̇ = ν,
    Φ_q q̈ = γ and optionally Φ_qᵀ λ = Q^A − M q̈ (SPEC §9), as one scan."""
    def newton(q, t):
        def cond(carry):
            _, it, err = carry
            return (err > tol) & (it < 25)

        def step(carry):
            q, it, _ = carry
            q = q - jnp.linalg.solve(system.phi_q(q, t), system.phi(q, t))
            return q, it + 1, jnp.max(jnp.abs(system.phi(q, t)))

        err0 = jnp.max(jnp.abs(system.phi(q, t)))
        q, _, err = jax.lax.while_loop(cond, step, (q, 0, err0))
        return q, err

    def body(q_prev, t):
        q, err = newton(q_prev, t)
        J = system.phi_q(q, t)
        qd = jnp.linalg.solve(J, system.nu(q, t))
        _, gamma = system.phi_rate_and_gamma(q, qd, t)
        qdd = jnp.linalg.solve(J, gamma)
        if with_lambda:
            Q, _ = system.applied(q, qd, t)
            lam = jnp.linalg.solve(J.T, Q - system.masses * qdd)
        else:
            lam = jnp.zeros(J.shape[0])
        return q, (q, qd, qdd, lam, err, err <= 1e3 * tol, J)

    return jax.lax.scan(body, q0, times)[1]


def _rows_involved(system, left_vector) -> list[str]:
    layout = system.layout
    weights = np.abs(np.nan_to_num(left_vector))
    if not weights.any():
        return [d.describe() for d in layout.constraints if d.is_driver]
    names = []
    for r in np.argsort(-weights):
        if weights[r] < 0.1 * weights.max():
            break
        element, _ = layout.row_owner(int(r))
        if element.describe() not in names:
            names.append(element.describe())
    return names


def _kinematic_solution(system, times, tol, with_lambda=False):
    _check_driven(system)
    q0, _ = state_of(assemble(system, t=float(times[0])), system.layout.n_coordinates)
    n = len(times)
    q, qd, qdd, lam, resid, ok, J = host_call(kinematic_scan, system, q0, pad_rows(times),
                                              tol, with_lambda=with_lambda)
    q, qd, qdd, lam = (np.asarray(a)[:n] for a in (q, qd, qdd, lam))
    resid, ok = np.asarray(resid)[:n], np.asarray(ok)[:n]
    J = np.nan_to_num(np.asarray(J)[:n])
    left, sv, _ = np.linalg.svd(J)                   # on the host: cheap, no compile
    sigma = sv[:, -1] / np.maximum(sv[:, 0], 1e-300)
    left = left[:, :, -1]
    bad = (~ok) | (sigma < _RANK_TOL) | ~np.all(np.isfinite(q), axis=1)
    if bad.any():
        k = int(np.argmax(bad))
        involved = _rows_involved(system, np.asarray(left)[k])
        why = (f"Φ_q is singular (smallest normalised singular value {sigma[k]:.2g})"
               if sigma[k] < _RANK_TOL else
               f"Newton–Raphson did not converge (|Φ| = {resid[k]:.3g})")
        raise SimulationError(
            f"kinematic analysis of {system.layout.name!r} failed at t={times[k]:.6g} s: "
            f"{why} — a lock-up or a driver that asks for an unreachable position. "
            f"Constraints involved: {', '.join(involved)}. Last good time: "
            f"{times[k - 1] if k else times[0]:.6g} s. Change the driver's motion or the "
            "link lengths so the mechanism does not reach a dead point.",
            time=float(times[k]))
    return q, qd, qdd, lam, resid


def channel_table(system, times, q, qd, qdd, lam, dynamics: bool):
    """Every channel at every row (vmapped :meth:`PlanarSystem.channels`)."""
    def one(t, q, qd, qdd, lam):
        out = system.channels(t, q, qd, qdd, lam)
        if not dynamics:
            out = {k: v for k, v in out.items()
                   if not k.endswith((".Fx", ".Fy", ".T", ".effort"))}
        return out
    return jax.vmap(one)(times, q, qd, qdd, lam)


def _channels(system, times, q, qd, qdd, lam, dynamics):
    n = len(times)
    out = host_call(channel_table, system, *(pad_rows(a) for a in (times, q, qd, qdd, lam)),
                    dynamics=dynamics)
    return {k: np.asarray(v)[:n] for k, v in out.items()}


def _grid_results(system, times, tol, analysis, with_lambda):
    times = _times(times)
    q, qd, qdd, lam, resid = _kinematic_solution(system, times, tol, with_lambda)
    channels = _channels(system, times, q, qd, qdd, lam, dynamics=with_lambda)
    channels["constraint.position"] = resid
    meta = {"analysis": analysis, "model": system.layout.name}
    if not with_lambda:
        meta["max_constraint_residual"] = float(np.max(resid))
    return Results(times, channels, units=system.units, meta=meta,
                   final_state=np.concatenate([q[-1], qd[-1],
                                               np.zeros(system.layout.n_law_states)]))


def kinematics(system: PlanarSystem, times: ArrayLike, tol: float = 1e-12) -> Results:
    """Kinematic analysis of a fully driven model (SPEC §9); see :meth:`Model.kinematics`."""
    return _grid_results(system, times, tol, "kinematics", with_lambda=False)


def inverse_dynamics(system: PlanarSystem, times: ArrayLike,
                     tol: float = 1e-12) -> Results:
    """Inverse dynamics of a fully driven model (SPEC §9); see
    :meth:`Model.inverse_dynamics`."""
    return _grid_results(system, times, tol, "inverse_dynamics", with_lambda=True)


# --- statics ---------------------------------------------------------------------------------
def _equilibrium_residual(system, z, t):
    n = system.layout.n_coordinates
    q, lam = z[:n], z[n:]
    Q, _ = system.applied(q, jnp.zeros(n), t)
    return jnp.concatenate([Q - system.phi_q(q, t).T @ lam, system.phi(q, t)])


def _equilibrium_jacobian(system, z, t):
    return jax.jacfwd(lambda z: _equilibrium_residual(system, z, t))(z)


def equilibrium(system: PlanarSystem, t: float = 0.0, tol: float = 1e-10,
                max_iterations: int = 100) -> Results:
    """Static equilibrium (SPEC §9): q̇ = q̈ = 0 under gravity, springs and the loads at time
    `t`, by Newton–Raphson on [Q^A(q) − Φ_qᵀ λ; Φ(q, t)] = 0 from the assembled initial
    poses (the nearest equilibrium, stable or not). Returns one sample with the poses,
    reactions and efforts."""
    _check_iterations(max_iterations)
    layout = system.layout
    n, m = layout.n_coordinates, layout.n_rows
    q0, _ = state_of(assemble(system, t=t), n)
    tt = float(t)
    z = np.concatenate([q0, np.zeros(m)])
    if m:        # λ that balances the applied forces best at the start (the residual at λ = 0)
        Q = host_call(_equilibrium_residual, system, z, tt)[:n]
        z[n:] = np.linalg.lstsq(_phi_q(system, q0, t).T, Q, rcond=None)[0]
    g = float(np.linalg.norm(np.asarray(system.gravity)))
    scale = max(1.0, float(np.max(np.abs(np.asarray(system.masses)))) * g)
    for _ in range(max_iterations):
        r = host_call(_equilibrium_residual, system, z, tt)
        if np.max(np.abs(r[n:]), initial=0.0) < tol and np.max(np.abs(r[:n])) < tol * scale:
            break
        jac = host_call(_equilibrium_jacobian, system, z, tt)
        z = z - np.linalg.lstsq(jac, r, rcond=None)[0]
    else:
        raise ModelError(f"equilibrium of {layout.name!r} not found in {max_iterations} "
                         f"Newton iterations (force residual {np.max(np.abs(r[:n])):.3g}). "
                         "Start nearer an equilibrium, or add damping and run `simulate` "
                         "until it settles.")
    q, lam = z[:n], z[n:]
    zeros = np.zeros((1, n))
    channels = _channels(system, np.array([float(t)]), q[None], zeros, zeros, lam[None],
                         dynamics=True)
    return Results(np.array([float(t)]), channels, units=system.units,
                   meta={"analysis": "equilibrium", "model": layout.name},
                   final_state=np.concatenate([q, np.zeros(n),
                                               np.zeros(layout.n_law_states)]))


# --- forward dynamics --------------------------------------------------------------------------
def simulate(system: PlanarSystem, t_end: float, dt: float | None = None,
             method: str = "rk4", dt_out: float | None = None, *,
             max_drift: float = 1e-3, events: tuple = (), **options: Any) -> Results:
    """Forward dynamics of `system` from its initial state (which should be assembled:
    :meth:`Model.simulate` does that); `events` the stops handled by impact events. See
    :meth:`Model.simulate` for the parameters."""
    start = time.perf_counter()
    if events:
        res = _simulate_events(system, events, t_end, dt, method, dt_out, options)
    else:
        try:
            res = integrate.simulate(system, t_end, dt=dt, method=method, dt_out=dt_out,
                                     **options)
        except SimulationError as exc:
            if method == "moreau_jean":
                raise moreau_jean_failure(system, exc, dt, dt_out, options) from exc
            raise _diagnose(system, exc) from exc
    check_drift(system, res, float(max_drift))
    res.meta.update(model=system.layout.name, analysis="dynamics",
                    projection=system.projects_after_step or bool(events),
                    baumgarte=[float(system.alpha), float(system.beta)],
                    wall_time=time.perf_counter() - start,
                    constraint_drift=float(np.max(res["constraint.position"])),
                    velocity_drift=float(np.max(res["constraint.velocity"])))
    if not events:
        res.meta["energy_drift"] = float(np.max(np.abs(res["energy"] - res["energy"][0])))
    return res


def _simulate_events(system, stops, t_end, dt, method, dt_out, options):
    """The stops' impacts as events on the core's event-driven route (:mod:`._events`)."""
    from ._events import simulate_events

    try:
        return simulate_events(system, stops, t_end, dt, method, dt_out, dict(options))
    except SimulationError as exc:
        if exc.state and "impacts by" not in str(exc):
            raise _diagnose(system, exc) from exc
        raise


def moreau_jean_failure(system, exc: SimulationError, dt, dt_out, options):
    """A ``moreau_jean`` run stopped by a NaN: the failed step named (the joint, the time) by
    re-stepping from the last sane sample (:func:`._mj_step.locate_failure`); where no step
    reports a failure (a divergence of another kind), the lock-up diagnosis of a plain
    mechanism, or the core's error itself for a model with frictional contacts."""
    from ._mj_step import locate_failure, parts

    def other():
        return _diagnose(system, exc) if parts(system)[1] is None else exc

    if exc.time is None or not exc.state or dt is None:
        return other()
    initial = options.get("initial")
    t0 = float(initial.t[-1]) if hasattr(initial, "t") else float(options.get("t0", 0.0))
    interval = float(dt if dt_out is None else dt_out)
    k = max(math.ceil((float(exc.time) - t0) / interval - 1e-9), 1)
    x = np.array([exc.state[name] for name in system.state_names])
    found = locate_failure(system, t0 + (k - 1) * interval, x, float(exc.time), float(dt),
                           float(options.get("theta", 0.5)))
    return found if found is not None else other()


def check_drift(system, res: Results, max_drift: float) -> None:
    """Raise a SimulationError naming the time, the constraints off and the drivers where
    ``res``'s joint drift max|Φ| exceeds `max_drift` (a lock-up, an unreachable drive)."""
    drift = np.asarray(res["constraint.position"])
    if not np.any(drift > max_drift):
        return
    layout = system.layout
    k = int(np.argmax(drift > max_drift))
    t = float(res.t[k])
    q = np.concatenate([[res[f"{b.name}.{c}"][k] for c in ("x", "y", "phi")]
                        for b in layout.bodies])
    phi = np.abs(_phi(system, q, t))
    names = []
    for r in np.argsort(-phi)[:4]:
        element, _ = layout.row_owner(int(r))
        if phi[r] > max_drift and element.describe() not in names:
            names.append(element.describe())
    last = float(res.t[k - 1]) if k else t
    drivers = ", ".join(repr(d.name) for d in layout.constraints if d.is_driver) or "none"
    raise SimulationError(
        f"forward dynamics of {layout.name!r}: the constraints drifted to max|Φ| = "
        f"{drift[k]:.3g} (> max_drift={max_drift:g}) at t={t:.6g} s (last good sample "
        f"t={last:.6g} s) — a lock-up, or a driver asking for an unreachable position. "
        f"Constraints off: {', '.join(names)}; drivers: {drivers}. Change the driver's "
        "motion or the link lengths; for a genuinely loose tolerance raise `max_drift`.",
        time=t)


def _diagnose(system, exc: SimulationError) -> SimulationError:
    """A diverged run with the lock-up diagnosis at the last finite state."""
    state = exc.state or {}
    layout = system.layout
    if not state or layout.n_rows == 0:
        return exc
    x = np.array([state.get(k, np.nan) for k in layout.state_names()])
    q = x[:layout.n_coordinates]
    try:
        u, s, _ = np.linalg.svd(_phi_q(system, q, exc.time or 0.0))
        detail = (f" At the last finite state Φ_q has smallest normalised singular value "
                  f"{s[-1] / max(s[0], 1e-300):.2g}; constraints involved: "
                  f"{', '.join(_rows_involved(system, u[:, -1]))}.")
    except Exception:  # noqa: BLE001 - diagnosis is best effort
        detail = ""
    return SimulationError(f"{exc}{detail} A mechanism that locks up (a dead point, a "
                           "toggle position) cannot be simulated through it with rigid "
                           "constraints.", time=exc.time, state=exc.state)


def pad_rows(a) -> np.ndarray:
    """`a` with its last row repeated up to `padded_length(len(a))` rows: the analyses over a
    time grid then compile once per power-of-two bucket of grid lengths, not per length."""
    a = np.asarray(a)
    extra = padded_length(len(a)) - len(a)
    return np.concatenate([a, np.repeat(a[-1:], extra, axis=0)]) if extra else a

