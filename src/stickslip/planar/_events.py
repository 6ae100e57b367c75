"""Forward dynamics with impact events on stops without a contact law (SPEC §9 9-1).

Fixed-step RK4 (the core's :func:`~stickslip.integrate.rk_step`) followed by the projection;
after every step the stops' gaps are checked for a crossing, the impact time is located
inside the step (:func:`locate_impact`), and the momentum balance through the constraint
matrix gives the velocity jump (:func:`impulse`)::

    [[M, Aᵀ], [A, 0]] [Δq̇; −P] = [0; b],   A = [Φ_q; g_q],  b = [0; −(1 + e) g_q q̇⁻]

so that q̇⁺ = q̇⁻ + Δq̇ keeps every joint (Φ_q q̇⁺ = Φ_q q̇⁻) and reverses the normal
velocity with restitution e (g_q q̇⁺ = −e g_q q̇⁻) — solved by the shared
:func:`~._dynamics.schur_solve`. Each impact is listed in ``results.meta["impacts"]``.
"""

from __future__ import annotations

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from ..errors import SimulationError
from ..integrate._rk_step import rk_step
from ._dynamics import schur_solve

__all__ = ["simulate_events", "locate_impact", "impulse"]


@eqx.filter_jit
def _step(system, stops, t, x, h):
    """One RK4 step and the projection back onto the constraints; the gaps after it."""
    x1 = rk_step(system.vector_field, "rk4", t, x, h, stages_in_loop=True,
                 project=system.project)
    n = system.layout.n_coordinates
    return x1, system.gaps(x1[:n], stops)


@eqx.filter_jit
def _gaps(system, stops, x):
    return system.gaps(x[:system.layout.n_coordinates], stops)


@eqx.filter_jit
def impulse(system, stops, t, x, k, e):
    """q̇⁺ after an impact on gap row `k` with restitution `e`, through A = [Φ_q; g_k,q]
    (SPEC §9 9-1). Returns (x⁺, normal velocity before, after)."""
    n = system.layout.n_coordinates
    q, qd = x[:n], x[n:2 * n]
    G = jax.jacfwd(lambda z: system.gaps(z, stops))(q)[k]
    J = system.phi_q(q, t)
    A = jnp.concatenate([J, G[None, :]])
    b = jnp.zeros(A.shape[0]).at[-1].set(-(1.0 + e) * (G @ qd))
    jump, _ = schur_solve(1.0 / system.masses, A, jnp.zeros(n), b, robust=True)
    qd_new = qd + jump
    return x.at[n:2 * n].set(qd_new), G @ qd, G @ qd_new


def locate_impact(gap_after, h, g0, g1, tol=1e-15, max_iterations=200):
    """The step length in (0, h] at which a gap crosses zero: Illinois regula falsi on
    `gap_after(hm)` (the gap after a step of length hm), from g(0) = g0 ≥ 0 > g(h) = g1."""
    lo, hi, glo, ghi = 0.0, h, float(g0), float(g1)
    side, hm = 0, h
    for _ in range(max_iterations):
        hm = (lo * ghi - hi * glo) / (ghi - glo)
        if not lo < hm < hi:
            hm = 0.5 * (lo + hi)
        gm = gap_after(hm)
        if gm < 0:
            hi, ghi = hm, gm
            if side == -1:
                glo *= 0.5
            side = -1
        else:
            lo, glo = hm, gm
            if side == 1:
                ghi *= 0.5
            side = 1
        if hi - lo <= tol * max(1.0, h) or abs(gm) <= tol:
            break
    return hm


def simulate_events(system, stops, t0, x0, t_end, dt, dt_out, max_impacts=1000):
    """Fixed-step RK4 with impact events (see the module docstring). Returns
    (times, states, impacts). The caller checks the times first
    (:func:`stickslip.integrate.check_time_arguments`, as ``Model.simulate`` does): a zero
    step would never end and a negative one would run backwards."""
    owners, rest = [], []
    for st in stops:
        owners += [st] * st.n_gaps
        rest += [float(st.restitution)] * st.n_gaps
    n = system.layout.n_coordinates
    jt = lambda v: jnp.asarray(v, dtype=float)  # noqa: E731
    every = max(1, int(round(dt_out / dt))) if dt_out else 1
    t, x = float(t0), jnp.asarray(x0)
    ts, xs, impacts = [t], [np.asarray(x)], []
    count = 0
    g_now = np.asarray(_gaps(system, stops, x))
    kinetic = lambda x: float(0.5 * jnp.sum(system.masses * x[n:2 * n] ** 2))  # noqa: E731
    while t < t_end - 1e-12 * max(1.0, abs(t_end)):
        h = min(dt, t_end - t)
        x1, g1 = _step(system, stops, jt(t), x, jt(h))
        g1 = np.asarray(g1)
        crossing = (g1 < 0) & (g_now >= -1e-12)
        if crossing.any():
            best = None            # earliest crossing over the candidate rows
            for k in np.nonzero(crossing)[0]:
                hm = locate_impact(
                    lambda hm, k=k: float(np.asarray(_step(system, stops, jt(t), x, jt(hm))[1])[k]),
                    h, g_now[k], g1[k])
                if best is None or hm < best[0]:
                    best = (hm, k)
            hm, k = best
            x, _ = _step(system, stops, jt(t), x, jt(hm))
            t = t + hm
            e = rest[k]
            energy_before = kinetic(x)
            x, v_before, v_after = impulse(system, stops, jt(t), x, int(k), jt(e))
            impacts.append({"t": t, "stop": owners[k].name, "row": int(k),
                            "restitution": e, "normal_velocity_before": float(v_before),
                            "normal_velocity_after": float(v_after),
                            "kinetic_energy_before": energy_before,
                            "kinetic_energy_after": kinetic(x)})
            if len(impacts) > max_impacts:
                raise SimulationError(
                    f"more than {max_impacts} impacts by t={t:.6g} s (a chattering or "
                    "resting contact: events cannot represent sustained contact). Use a "
                    "contact law on the stop (law=UnilateralODE(...)) or a restitution "
                    "closer to 1.", time=t)
            g_now = np.array(_gaps(system, stops, x))
            g_now[k] = max(g_now[k], 0.0)
            ts.append(t)
            xs.append(np.asarray(x))
            continue
        x, t, g_now = x1, t + h, g1
        count += 1
        if count % every == 0 or t >= t_end - 1e-12:
            ts.append(t)
            xs.append(np.asarray(x))
    return np.asarray(ts), np.stack(xs), impacts
