"""The exact time-stepping reference: Moreau–Jean with a velocity-level impact law (SPEC §6,
"厳密解 (Moreau 1999 など) — SICONOS").

Fixed step h (the last one shorter, so the run ends exactly at t_end), θ-method (θ = 1/2).
Per step, at the mid-point q_m = q_k + θ h v_k:

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

from .._validation import check_nonnegative, check_positive, check_scalar
from ..constraints import solve_lambda
from ..constraints._restitution import relaxation_restitution
from ..errors import ParameterError
from ..integrate import check_theta, step_grid
from ..results import Results
from ._contact_simulate import check_contact_start

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
def _run(system, q0, v0, t0, steps, n_out, theta, restitution):
    """`n_out` output intervals of `n_sub` steps of `dt`, the last of `n_last` steps plus
    a shorter one `h_last` ending exactly at ``t_end`` (``steps = (dt, n_sub, n_last,
    h_last)``, traced: the grid of :func:`stickslip.integrate.step_grid`); times from the
    step count, not summed."""
    dt, n_sub, n_last, h_last = steps
    has_short = h_last > 0

    def outer(carry, i_out):
        last = i_out == n_out - 1
        n_steps = jnp.where(last, n_last + has_short, n_sub)

        def inner(j, carry):
            q, v, _, flag = carry
            h = jnp.where(last & (j == n_last), h_last, dt)
            t = t0 + (i_out * n_sub + j) * dt
            q, v, P, status = _step(system, t, q, v, h, theta, restitution)
            return q, v, P, jnp.maximum(flag, status)

        carry = jax.lax.fori_loop(0, n_steps, inner, carry)
        return carry, carry

    n_p = system.pairs.point_j.shape[0]
    init = (q0, v0, jnp.zeros((n_p, 2)), jnp.asarray(0))
    _, trace = jax.lax.scan(outer, init, jnp.arange(n_out))
    return trace


def moreau_jean(system, t_end: float, h: float, dt_out: float | None = None,
                theta: float = 0.5, restitution: float | None = None) -> Results:
    """Run the Moreau–Jean reference on a :class:`ContactPlanarSystem` (module docstring).

    Parameters
    ----------
    system: a :class:`~stickslip.planar.Model` with frictional contacts (or its
        :class:`ContactPlanarSystem`) — the same description as the relaxed run.
    t_end: end time [s] (> 0); the last sample is exactly `t_end`: when `h` does not
        divide it the last step is shorter (the output grid of ``ss.simulate``).
    h: the step [s], 0 < h <= t_end.
    dt_out: output interval, a whole multiple of h (default h).
    theta: the θ-method parameter in [0, 1] (1/2: mid-point).
    restitution: Newton's e [-] in [0, 1]; default e(ζ) of the relaxation from free flight
        (:func:`stickslip.constraints.relaxation_restitution`) with the contacts' first ζ.

    Returns
    -------
    Results with ``<body>.x/.y/.phi`` (and ``…d``), ``<contact>.gap``, ``<contact>.fn`` and
    ``<contact>.ft`` (impulse / h [N]), and ``meta["status"]`` the worst λ-problem status.

    Raises
    ------
    ParameterError: a bad `t_end`, `h`, `dt_out`, `theta` or `restitution` (named, with
        the fix). ModelError: a contact starts penetrated (the depth and the move that
        fixes it), as for ``Model.simulate``.
    """
    owner = "planar.moreau_jean"
    t_end = _seconds(owner, "t_end", t_end, "Pass the end time [s] (> 0; the run starts "
                                            "at 0).")
    h = _seconds(owner, "h", h, "Pass a positive step [s], e.g. h=1e-3.")
    if h > t_end * (1.0 + 1e-12):
        raise ParameterError(f"`{owner}.h` must be at most t_end = {t_end:g} s; got h={h:g}. "
                             f"Pass a smaller step (e.g. h={t_end / 100:g}).")
    if dt_out is not None:
        dt_out = _seconds(owner, "dt_out", dt_out, "Pass an output interval [s], a whole "
                                                   "multiple of h.")
    theta = check_theta({"theta": theta}, owner)
    e = None if restitution is None else _restitution(owner, restitution)
    elements = None
    if hasattr(system, "frictional_contacts") or hasattr(system, "add_body"):
        from . import _analyses as analyses
        from ._contact_simulate import contact_system     # a Model: same description

        elements = system.frictional_contacts
        system = contact_system(system, "kikuuwe", (0.0, 0.0), True)
        mech = system.mechanism
        if mech.layout.n_rows:
            start = analyses.assemble(mech, t=0.0)
            system = eqx.tree_at(lambda s: s.mechanism, system, mech.with_state(
                *analyses.state_of(start, mech.layout.n_coordinates)))
    grid = step_grid(0.0, t_end, h, dt_out, owner=owner)
    if e is None:
        e = relaxation_restitution(float(np.asarray(system.zeta)[0]))
    n = system.mechanism.layout.n_coordinates
    x0 = np.asarray(system.initial_state())
    check_contact_start(system, x0, owner, elements)
    steps = (np.float64(grid.dt), np.int64(grid.n_sub), np.int64(grid.n_last),
             np.float64(grid.h_last))
    start = time.perf_counter()
    q, v, P, flag = _run(system, jnp.asarray(x0[:n]), jnp.asarray(x0[n:2 * n]),
                         jnp.asarray(0.0), steps, grid.n_out, theta, jnp.asarray(e))
    q, v, P = np.asarray(q), np.asarray(v), np.asarray(P)
    wall = time.perf_counter() - start
    ts = grid.times()
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
    meta = {"analysis": "moreau_jean", "h": h, "theta": theta, "restitution": e,
            "wall_time": wall, "status": int(np.max(np.asarray(flag)))}
    if grid.h_last:
        meta["last_step"] = grid.h_last
    return Results(ts, channels, units=system.units, meta=meta,
                   final_state=np.concatenate([q[-1], v[-1], np.zeros(2)]))


def _seconds(owner: str, name: str, value, hint: str) -> float:
    """A time argument [s]: one finite number > 0."""
    check_positive(owner, name, value, hint)
    check_scalar(owner, name, value, hint)
    return float(value)


def _restitution(owner: str, value) -> float:
    """Newton's e as a float in [0, 1] (the rule of :class:`~stickslip.laws.NewtonImpact`)."""
    hint = "Pass a coefficient of restitution in [0, 1] (0: plastic, 1: elastic)."
    check_nonnegative(owner, "restitution", value, hint)
    check_scalar(owner, "restitution", value, hint)
    e = float(value)
    if e > 1.0:
        raise ParameterError(f"`{owner}.restitution` must be <= 1; got restitution={e!r}. A "
                             f"restitution above 1 adds energy at every impact. {hint}")
    return e
