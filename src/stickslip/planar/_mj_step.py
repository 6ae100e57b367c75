"""One Moreau–Jean step of a planar mechanism with joint friction, frictional contacts and
rigid impact stops: ``simulate(model.system(), t_end, method="moreau_jean", dt=h)`` on a
:class:`~._system.PlanarSystem` (issue 21, item 1), with the contact pairs of its ``pairs``
when it has frictional contacts (issue 23, item 3: any model may mix joints, joint
friction, stops and frictional contacts in one λ-problem per step).

Step h (the run's last one shorter, so it ends exactly at t_end), θ-method: at the mid-point
q_m = q_k + θ h v_k, t_m = t_k + θ h, with M̂ = M + h·Σ_k d_k W_kᵀW_k (the joints' viscous
terms d_k — the joint's ``viscous`` plus the law's — taken implicitly),

    M̂ v⁺ = M v_k + h Q(q_m, v_k, t_m) + Φ_qᵀ P_b + Wᵀ P_f + J_cᵀ P_c + Gᵀ P_s
                                                                         (SPEC §9 (3-5)),
    Φ_q(q_m) v⁺ = ν(q_m, t_k + h) + (1 − θ) h γ_v               (joints and drivers),
    P_f,k ∈ −h·F_k(N_k)·Sgn(W_k v⁺)              (joint friction, SPEC §9; SPEC §1 (4)),
    for each contact pair with ψ(q_m) ≤ ψ_tol:  u = J_c v⁺ + e·[0; J_n v_k]  and
        u ∈ −lim N_F^{U_ε}(P_c)                  (Coulomb at velocity level, SPEC §6),
    0 ≤ P_s,r ⊥ G_r v⁺ + e_r G_r v_k ≥ 0   for each stop row with g_r(q_m) ≤ tol
                                            (Newton's impact law, SPEC §9 impact),
    q_{k+1} = q_k + h((1 − θ) v_k + θ v⁺),  then [q; v] projected onto the joints at t_k + h.

The contact rows (J_c = [J_t; J_n] per pair, e the pairs' ``restitution``, the
pair's μ static while it sticks at the step's start and kinetic while it slides, ψ_tol the
``activation_tolerance`` of :mod:`._contact_step`) come from the host's ``contact_rows``.

γ_v = −(Φ_q v_k)_q v_k (the velocity part of SPEC §9's γ, γ(q_m, v_k) − γ(q_m, 0)) carries
the rows' curvature over the rest of the step, so that Φ_q(q_{k+1}) v⁺ = ν to first order and
the joint impulse holds the whole centripetal load: without it (rows enforced at q_m alone)
the impulse misses (1 − θ) of it — half the reaction's centripetal part at θ = 1/2, put back
by the projection after the step but absent from the friction bound (measured: a pendulum with
pin friction then converged to a motion 5.6e-3 rad off the ODE route's limit).

The impulses are solved, with the friction bounds' dependence on the joint reactions, by
:func:`._mj_friction.solve_impulses` (the λ-problem of SPEC §6 at the velocity level and a
fixed point on the normal forces; its convergence condition is in that module). A joint that
sticks ends the step with slide rate 0 (round-off of the solve: no drift, no proxy spring); a
stop hit with normal speed u leaves with e·u exactly; a Zeno accumulation of bounces ends
in rest, with the stop's impulse holding the load. Under this route a ``CoulombODE`` law acts
as the set-valued Coulomb law of the same levels (μ or F kinetic, μ_s or F_s static, its
Stribeck drop and viscous term); its K and β are not used and its state rows stay 0.

The step's mean impulses P/h are its forces: the multipliers (reactions, driver efforts,
λ = −P_b/h in the planar sign), ``<joint>.friction``, ``<joint>.normal``, each stop's
``<stop>.force`` and each contact pair's (ft, fn); the accelerations reported are the step's
mean (v⁺ − v_k)/h. A step of a plain mechanism whose fixed point does not converge or whose
impulse problem has no solution returns NaN, so the run stops at the next sample (the core's
guard); under :meth:`Model.simulate` (and ``planar._analyses.simulate``)
:func:`locate_failure` then re-steps from the last sane sample and names the joint and the
time of the failed step. A direct ``ss.simulate(system, ...)`` reports the guard's NaN error
only (the core has no host hook to name it). With contacts, a step without a solution or with
several counts into the Painlevé counters instead (:mod:`._contact_step`).
"""

from __future__ import annotations

import equinox as eqx
import jax
import jax.numpy as jnp
import jax.scipy.linalg
import numpy as np

from ..errors import SimulationError
from ..integrate import EVENT_METHODS
from ..laws import CoulombODE
from ._friction import JointFriction
from ._mj_friction import NOT_CONVERGED, OK, STATUS_TEXT, solve_impulses

__all__ = ["element_outputs", "gap_names", "gap_tolerance", "locate_failure",
           "moreau_jean_outputs", "moreau_jean_step", "parts", "route_refusal"]


def route_refusal(system, method: str) -> str | None:
    """Why `system` cannot run `method` (None: it can): ``moreau_jean`` needs every joint
    friction to be a ``CoulombODE`` in a joint's ``friction=`` slot and every stop rigid; an
    ODE method cannot run rigid stops (``law=None``): they exert no force, so the bodies
    would pass through them unnoticed."""
    if method != "moreau_jean":
        if system.stops and method not in EVENT_METHODS:
            names = ", ".join(repr(s.name) for s in system.stops)
            return (f"its rigid stops {names} (law=None) exert no force an ODE method could "
                    "integrate: the bodies would pass through them. Run it with "
                    "planar.Model.simulate (which locates every impact as an event), with "
                    "method='moreau_jean', or give each stop a contact law")
        return None
    for f in system.frictions:
        if not isinstance(f, JointFriction) or not isinstance(f.law, CoulombODE):
            return (f"its {f.describe()} has the law {type(f.law).__name__}, which has no "
                    "set-valued form for time stepping; give the joint friction=CoulombODE(...)"
                    " (its levels mu/F, mu_s/F_s and its Stribeck and viscous terms are used, K"
                    " and beta are not), or run an ODE method")
    if system.contacts:
        names = ", ".join(repr(c.name) for c in system.contacts)
        return (f"its stops {names} have a contact law ({type(system.contacts[0].law).__name__})"
                "; under moreau_jean a stop is rigid with Newton's restitution: add it with "
                "law=None and restitution=e, or run an ODE method")
    return None


def gap_names(stops) -> list[tuple]:
    """(stop, channel name) of every gap row in row order, as the event route names them:
    ``<stop>.gap``, or ``<stop>.gap[k]`` for a stop with two rows."""
    return [(s, f"{s.name}.gap" + ("" if s.n_gaps == 1 else f"[{k}]"))
            for s in stops for k in range(s.n_gaps)]


def gap_tolerance(q):
    """The gap below which a stop row counts as touching: 1e-12 of the configuration's size
    (round-off, not physics: a stop at rest stays active although its gap is ±1e-17)."""
    return 1e-12 * (1.0 + jnp.max(jnp.abs(q), initial=0.0))


def _restitutions(system):
    if not system.stops:
        return jnp.zeros(0)
    return jnp.concatenate([jnp.broadcast_to(jnp.asarray(s.restitution, float), (s.n_gaps,))
                            for s in system.stops])


def _damping(system):
    """d_k [N·s/m or N·m·s/rad]: each friction's joint ``viscous`` plus its law's."""
    out = []
    for f in system.frictions:
        law_viscous = 0.0 if f.law.viscous is None else f.law.viscous
        out.append(jnp.asarray(f.viscous, float) + law_viscous)
    return jnp.stack(out) if out else jnp.zeros(0)


def parts(system):
    """(the mechanism, the system itself where it has frictional contacts, else None) of a
    PlanarSystem: both halves are the one frozen model."""
    return system, (system if getattr(system, "pairs", None) is not None else None)


def _step(system, t, x, h, theta):
    """(x_new, forces) of one step (module docstring), before the NaN of a failed step:
    x_new = [q; v; s] of the mechanism (law states s zero)."""
    mech, host = parts(system)
    n = mech.layout.n_coordinates
    q, v = x[:n], x[n:2 * n]
    t_end = t + h
    qm = q + theta * h * v
    Q, _ = mech.applied(qm, v, t + theta * h)
    _, Jb, nu, gamma = mech.kinematics_terms(qm, t_end, v)
    if Jb.shape[0]:                 # the rows' curvature over the rest of the step (docstring)
        gamma = gamma - mech.kinematics_terms(qm, t_end)[3]
    n_b, n_f = Jb.shape[0], len(mech.frictions)
    W = mech.slide_jacobian(qm) if n_f else jnp.zeros((0, n))
    if mech.stops:
        G = jax.jacfwd(lambda z: mech.gaps(z, mech.stops))(qm)
        active = mech.gaps(qm, mech.stops) <= gap_tolerance(qm)
    else:
        G, active = jnp.zeros((0, n)), jnp.zeros(0, dtype=bool)
    if host is not None:
        Jc, target_c, mu_c, on_c = host.contact_rows(qm, v)
        contact = {"contact_mu": mu_c, "contact_active": on_c,
                   "certify": host.pairs.certify}
        contact_names = tuple(host.pairs.contact_names)
    else:
        Jc, target_c, contact, contact_names = jnp.zeros((0, n)), jnp.zeros(0), {}, ()
    n_c = Jc.shape[0]
    d = _damping(mech)
    M_hat = jnp.diag(mech.masses) + h * (W.T * d[None, :]) @ W
    J = jnp.concatenate([Jb, W, Jc, G])
    target = jnp.concatenate([nu + (1.0 - theta) * h * gamma, jnp.zeros(n_f), target_c,
                              -_restitutions(mech) * (G @ v)])
    factor = jax.scipy.linalg.cho_factor(M_hat)
    X = jax.scipy.linalg.cho_solve(factor, J.T)                     # M̂⁻¹ Jᵀ
    v_free = jax.scipy.linalg.cho_solve(factor, mech.masses * v + h * Q)
    A = J @ X
    A = 0.5 * (A + A.T)
    b = target - J @ v_free
    rates = W @ v
    # at rest: the slide rate is round-off of the bodies' motion or of the largest velocity
    # change the step's forces make. With the motion alone as the scale, a one-DOF block
    # stuck on a slope (v ~ 1e-19, its whole slide rate) counted as sliding from step 2,
    # took the kinetic level and slid down a slope its static level held
    scale = jnp.max(jnp.abs(v) + h * jnp.abs(Q / mech.masses), initial=0.0)
    rest = jnp.abs(rates) <= 1e-12 * (jnp.abs(W) @ jnp.abs(v)
                                      + jnp.sum(jnp.abs(W), axis=1) * scale)

    def normals(P_b):
        return mech.friction_normals(qm, Jb, -P_b / h)

    names = tuple(f.name for f in mech.frictions) + contact_names + tuple(
        name for _, name in gap_names(mech.stops))
    imp = solve_impulses(A, b, n_b, tuple(f.law for f in mech.frictions), names, normals,
                         h, jnp.abs(rates), rest, active, **contact)
    v_new = v_free + X @ imp.P
    q_new = q + h * ((1.0 - theta) * v + theta * v_new)
    x_new = jnp.concatenate([q_new, v_new, jnp.zeros(mech.layout.n_law_states)])
    if n_b:
        x_new = mech.project(t_end, x_new)
    P_f = imp.P[n_b:n_b + n_f]
    forces = {"qdd": (x_new[n:2 * n] - v) / h,
              "lam": -imp.P[:n_b] / h,
              "friction": P_f / h - d * (W @ v_new),
              "normal": imp.normal,
              "contact": imp.P[n_b + n_f:n_b + n_f + n_c].reshape(-1, 2) / h,
              "stop": imp.P[n_b + n_f + n_c:] / h,
              "status": imp.status.astype(x.dtype),
              "culprit": imp.culprit.astype(x.dtype)}
    return x_new, forces


def moreau_jean_step(system, t, x, h, theta):
    """``AbstractTimeSteppingHost.moreau_jean_step`` of a PlanarSystem (module docstring): a
    failed step (``forces["status"]`` not OK) returns a NaN state."""
    x_new, forces = _step(system, t, x, h, theta)
    x_new = jnp.where(forces["status"] == OK, x_new, jnp.nan)
    return x_new, forces


def element_outputs(mech, q, forces) -> dict:
    """``<joint>.friction``, ``<joint>.normal`` of each joint friction and each stop's
    ``<stop>.gap`` rows and ``<stop>.force`` (the step's mean force) at a sample."""
    out = {}
    for k, f in enumerate(mech.frictions):
        out[f"{f.name}.friction"] = forces["friction"][k]
        out[f"{f.name}.normal"] = forces["normal"][k]
    if mech.stops:
        gaps = mech.gaps(q, mech.stops)
        for k, (_, name) in enumerate(gap_names(mech.stops)):
            out[name] = gaps[k]
        start = 0
        for stop in mech.stops:
            out[f"{stop.name}.force"] = jnp.sum(forces["stop"][start:start + stop.n_gaps])
            start += stop.n_gaps
    return out


def moreau_jean_outputs(system, t, x, forces):
    """The ODE route's channels at a sample (``PlanarSystem.outputs``' names) from the
    impulses of the step that ended there, plus each stop's ``<stop>.gap`` (rows as the event
    route names them) and ``<stop>.force`` (mean force of the step [N or N·m])."""
    n = system.layout.n_coordinates
    q, qd, s = x[:n], x[n:2 * n], x[2 * n:]
    phi, J, nu, _ = system.kinematics_terms(q, t)
    out = system.channels(t, q, qd, forces["qdd"], forces["lam"], include_state=False, J=J,
                          s=s)
    out.update(element_outputs(system, q, forces))
    out["constraint.position"] = jnp.max(jnp.abs(phi)) if phi.size else jnp.zeros(())
    rate = J @ qd - nu
    out["constraint.velocity"] = jnp.max(jnp.abs(rate)) if rate.size else jnp.zeros(())
    return out


@eqx.filter_jit
def _host_step(system, t, x, h, theta):
    return _step(system, t, x, h, theta)


def locate_failure(system, t_start: float, x_start, t_stop: float, dt: float,
                   theta: float = 0.5) -> SimulationError | None:
    """Re-run the steps from a sane sample (`t_start`, `x_start`) towards `t_stop` on the
    route's grid and name the first step that failed: a SimulationError with the joint (or
    the impulse problem), the time and the state, or None when no step failed there."""
    t, x = float(t_start), jnp.asarray(x_start, dtype=float)
    while t < t_stop - 1e-12 * max(1.0, abs(t_stop)):
        h = min(dt, t_stop - t)
        x_new, forces = _host_step(system, jnp.asarray(t), x, jnp.asarray(h),
                                   jnp.asarray(theta))
        code = int(forces["status"])
        if code != OK:
            return _failure(system, t, h, x, code, int(forces["culprit"]))
        t, x = t + h, x_new
    return None


def _failure(system, t, h, x, code, culprit):
    names = system.state_names
    state = dict(zip(names, np.asarray(x, dtype=float).tolist()))
    mech = parts(system)[0]
    model = mech.layout.name
    if code == NOT_CONVERGED:
        f = mech.frictions[culprit]
        where = f"the friction of joint {getattr(f.joint, 'name', f.name)!r}"
        fix = ("Lower its pin_radius, slider geometry or friction coefficient, or run an ODE "
               "method (its CoulombODE proxy regularises the loop).")
    else:
        where = "the step's impulse problem"
        fix = "Check the stops and drivers for rows that contradict the joints."
    return SimulationError(
        f"{model!r} under method='moreau_jean': {where} failed in the step from t={t:.9g} s "
        f"to t={t + h:.9g} s: {STATUS_TEXT[code]}. {fix}", time=t, state=state)
