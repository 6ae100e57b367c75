"""The exact time-stepping reference: Moreau–Jean with a velocity-level impact law (SPEC §6,
"厳密解 (Moreau 1999 など) — SICONOS").

Fixed step h, θ-method (θ = 1/2). Per step, at the mid-point q_m = q_k + θ h v_k:

    M (v_{k+1} − v_k) = h Q(q_m, v_k, t_m) + Jᵀ P,
    J_b v_{k+1} = ν_b                                         (joints),
    for each contact with ψ(q_m) ≤ 0:  u = J_c v_{k+1} + e·[0; J_n v_k]  and
        u ∈ −lim N_F^{U_ε}(P)                                  (Coulomb at velocity level),
    q_{k+1} = q_k + h((1 − θ) v_k + θ v_{k+1}),  then the joints are projected (SPEC §9).

The impulse problem has the λ-problem's form with A = J M⁻¹ Jᵀ and b = target − J(v_k +
h M⁻¹Q), so it is solved by the same exact solver (:func:`stickslip.constraints.solve_lambda`,
``"kikuuwe"`` law = exact Coulomb); inactive contacts are decoupled with P = 0. First order
in h; the impulses report as forces P/h.
"""

from __future__ import annotations

import time

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from ..constraints import solve_lambda
from ..constraints._restitution import relaxation_restitution
from ..errors import ParameterError
from ..results import Results

__all__ = ["moreau_jean"]


def _step(system, t, q, v, h, theta, restitution):
    mech, pairs = system.mechanism, system.pairs
    tm = t + theta * h
    qm = q + theta * h * v
    Q, _ = mech.applied(qm, v, tm)
    minv = 1.0 / mech.masses
    n_b = mech.layout.n_rows
    if n_b:
        Jb, nu = mech.phi_q(qm, tm), mech.nu(qm, tm)
    else:
        Jb, nu = jnp.zeros((0, q.shape[0])), jnp.zeros(0)
    psi = pairs.gaps(qm)
    Jn = jax.jacfwd(pairs.gaps)(qm)
    Jt = jax.jacfwd(lambda u: pairs.sliding_velocities(qm, u))(v)
    n_p = psi.shape[0]
    active = psi <= 0.0
    Jc = jnp.stack([Jt, Jn], axis=1).reshape(2 * n_p, -1)
    target_c = jnp.stack([jnp.zeros(n_p), -restitution * (Jn @ v)], axis=1).reshape(-1)
    J = jnp.concatenate([Jb, Jc])
    target = jnp.concatenate([nu, target_c])
    free = v + h * minv * Q
    JM = J * minv[None, :]
    A = JM @ J.T
    b = target - J @ free
    rows_on = jnp.concatenate([jnp.ones(n_b, dtype=bool), jnp.repeat(active, 2)])
    on2 = rows_on[:, None] & rows_on[None, :]
    A = jnp.where(on2, A, jnp.eye(A.shape[0]))          # inactive contacts: decoupled,
    b = jnp.where(rows_on, b, -1.0)                     # separated, impulse 0
    # the static coefficient for contacts that stick at the step's start (v_t = 0 exactly
    # in a time-stepping scheme), the kinetic one for those that slide
    bounds = system.friction_bounds(pairs.sliding_velocities(qm, v))
    sol = solve_lambda(system.admissible_set(n_b, bounds), A, b, "kikuuwe")
    P = jnp.where(rows_on, sol.lam, 0.0)
    v_new = free + minv * (J.T @ P)
    q_new = q + h * ((1 - theta) * v + theta * v_new)
    if n_b:
        x = mech.project(t + h, jnp.concatenate([q_new, v_new]))
        q_new, v_new = x[:q.shape[0]], x[q.shape[0]:]
    impulses = P[n_b:].reshape(n_p, 2)
    return q_new, v_new, impulses, sol.status


@eqx.filter_jit
def _run(system, q0, v0, t0, h, n_out, n_sub, theta, restitution):
    def inner(carry, _):
        t, q, v, _, flag = carry
        q, v, P, status = _step(system, t, q, v, h, theta, restitution)
        return (t + h, q, v, P, jnp.maximum(flag, status)), None

    def outer(carry, _):
        carry, _ = jax.lax.scan(inner, carry, None, length=n_sub)
        return carry, carry

    n_p = system.pairs.point_j.shape[0]
    init = (t0, q0, v0, jnp.zeros((n_p, 2)), jnp.asarray(0))
    _, trace = jax.lax.scan(outer, init, None, length=n_out)
    return trace


def moreau_jean(system, t_end: float, h: float, dt_out: float | None = None,
                theta: float = 0.5, restitution: float | None = None) -> Results:
    """Run the Moreau–Jean reference on a :class:`ContactPlanarSystem` (module docstring).

    Parameters
    ----------
    system: a :class:`~stickslip.planar.Model` with frictional contacts (or its
        :class:`ContactPlanarSystem`) — the same description as the relaxed run.
    t_end: end time [s].   h: the step [s].   dt_out: output interval, a multiple of h.
    theta: the θ-method parameter (1/2: mid-point).
    restitution: Newton's e [-]; default e(ζ) of the relaxation from free flight
        (:func:`stickslip.constraints.relaxation_restitution`) with the contacts' first ζ.

    Returns
    -------
    Results with ``<body>.x/.y/.phi`` (and ``…d``), ``<contact>.gap``, ``<contact>.fn`` and
    ``<contact>.ft`` (impulse / h [N]), and ``meta["status"]`` the worst λ-problem status.
    """
    if hasattr(system, "frictional_contacts") or hasattr(system, "add_body"):
        from . import _analyses as analyses
        from ._contact_simulate import contact_system     # a Model: same description

        system = contact_system(system, "kikuuwe", (0.0, 0.0), True)
        mech = system.mechanism
        if mech.layout.n_rows:
            start = analyses.assemble(mech, t=0.0)
            system = eqx.tree_at(lambda s: s.mechanism, system, mech.with_state(
                *analyses.state_of(start, mech.layout.n_coordinates)))
    h = float(h)
    if not (h > 0 and np.isfinite(h)):
        raise ParameterError(f"`moreau_jean.h` must be a positive step [s]; got h={h!r}.")
    dt_out = h if dt_out is None else float(dt_out)
    n_sub = int(round(dt_out / h))
    if n_sub < 1 or abs(n_sub * h - dt_out) > 1e-9 * dt_out:
        raise ParameterError(f"`moreau_jean.dt_out` must be a whole multiple of h={h}; got "
                             f"{dt_out}.")
    n_out = int(round(float(t_end) / dt_out))
    e = relaxation_restitution(float(np.asarray(system.zeta)[0])) if restitution is None \
        else float(restitution)
    n = system.mechanism.layout.n_coordinates
    x0 = np.asarray(system.initial_state())
    start = time.perf_counter()
    t, q, v, P, flag = _run(system, jnp.asarray(x0[:n]), jnp.asarray(x0[n:2 * n]),
                            jnp.asarray(0.0), jnp.asarray(h), n_out, n_sub,
                            float(theta), jnp.asarray(e))
    q, v, P = np.asarray(q), np.asarray(v), np.asarray(P)
    wall = time.perf_counter() - start
    ts = np.concatenate([[0.0], np.asarray(t)])
    q = np.vstack([x0[:n], q])
    v = np.vstack([x0[n:2 * n], v])
    P = np.concatenate([np.zeros((1,) + P.shape[1:]), P])
    names = system.mechanism.state_names
    channels = {names[k]: q[:, k] for k in range(n)}
    channels.update({names[n + k]: v[:, k] for k in range(n)})
    gaps = np.asarray(jax.vmap(system.pairs.gaps)(jnp.asarray(q)))
    for k, (gap, fn, ft) in enumerate(system.names):
        channels[gap] = gaps[:, k]
        channels[fn] = P[:, k, 1] / h
        channels[ft] = P[:, k, 0] / h
    return Results(ts, channels, units=system.units,
                   meta={"analysis": "moreau_jean", "h": h, "theta": float(theta),
                         "restitution": e, "wall_time": wall,
                         "status": int(np.max(np.asarray(flag)))},
                   final_state=np.concatenate([q[-1], v[-1], np.zeros(2)]))
