"""One Moreau–Jean step of a planar mechanism with frictional contacts (SPEC §6, "厳密解
(Moreau 1999 など) — SICONOS"): the step of ``simulate(..., method="moreau_jean")`` on a
:class:`~stickslip.planar.ContactPlanarSystem` and of :func:`stickslip.planar.moreau_jean`.

Step h (the run's last one shorter, so it ends exactly at t_end), θ-method. At the
mid-point q_m = q_k + θ h v_k, t_m = t_k + θ h:

    M (v_{k+1} − v_k) = h Q(q_m, v_k, t_m) + Jᵀ P,
    J_b v_{k+1} = ν_b                                         (joints),
    for each contact with ψ(q_m) ≤ ψ_tol:  u = J_c v_{k+1} + e·[0; J_n v_k]  and
        u ∈ −lim N_F^{U_ε}(P)                                  (Coulomb at velocity level),
    q_{k+1} = q_k + h((1 − θ) v_k + θ v_{k+1}),  then the joints are projected (SPEC §9).

The impulse problem has the λ-problem's form with A = J M⁻¹ Jᵀ and b = target − J(v_k +
h M⁻¹Q), so it is solved by the same exact solver (:func:`stickslip.constraints.solve_lambda`,
``"kikuuwe"`` law = exact Coulomb, the system's ``certify``, always with the enumeration as
fallback); inactive contacts are decoupled with P = 0. ψ_tol is
:func:`activation_tolerance` (1e-12 of the pair's length scale: round-off, not physics).
The friction bound is the static coefficient for a contact that sticks at the step's start
(v_t = 0 exactly in a time-stepping scheme) and the kinetic one for one that slides
(``friction_bounds`` at v_k).
First order in h; the impulses report as mean forces P/h [N] of the step.

Restitution e (Newton's, at the velocity level, one for every contact): the system's
``restitution``; :func:`contact_system` sets it to e(ζ) of the relaxation from free flight
(:func:`stickslip.constraints.relaxation_restitution`) with the first contact's ζ unless a
``restitution=`` is passed — the impacts of the relaxed ODE route, made instantaneous.

State x = [q; q̇; n_none; n_several] (the ODE route's layout, so a run may continue under
either route): the counters add the length of each step whose impulse problem has no
solution / several, as the ODE route integrates its indicator, so a Painlevé step is never
lost between two samples.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from .._validation import check_nonnegative, check_scalar
from ..constraints import solve_lambda
from ..constraints._restitution import relaxation_restitution
from ..errors import ParameterError

__all__ = ["activation_tolerance", "check_restitution", "contact_step", "default_restitution",
           "moreau_jean_outputs", "moreau_jean_step"]

# e(ζ) solves the relaxation's impact (~20 ms); models share a few ζ values
default_restitution = functools.lru_cache(maxsize=64)(relaxation_restitution)


def check_restitution(owner: str, value) -> float:
    """Newton's e as a float in [0, 1] (the rule of :class:`~stickslip.laws.NewtonImpact`)."""
    hint = "Pass a coefficient of restitution in [0, 1] (0: plastic, 1: elastic)."
    check_nonnegative(owner, "restitution", value, hint)
    check_scalar(owner, "restitution", value, hint)
    e = float(value)
    if e > 1.0:
        raise ParameterError(f"`{owner}.restitution` must be <= 1; got restitution={e!r}. A "
                             f"restitution above 1 adds energy at every impact. {hint}")
    return e


def activation_tolerance(pairs, q):
    """The gap [m] below which a contact counts as touching: 1e-12 of the pair's length
    scale (its body-frame offsets, at least 1 mm, plus the distances of both bodies from the
    origin) — ten thousand times the round-off of ψ. Without it a resting contact whose
    end-of-step velocity is a round-off 1e-19 m/s away from its line opens for a step
    (ψ = +1e-22 m), falls freely for h and slides on at the kinetic μ (measured: a block
    held by μ_s = 0.6 at 25° with μ = 0.3 slid 2.6 m in 2 s)."""
    poses = pairs._poses(q)
    i, j = np.array(pairs.body_i), np.array(pairs.body_j)
    size = jnp.maximum(jnp.maximum(jnp.linalg.norm(pairs.point_j, axis=1),
                                   jnp.linalg.norm(pairs.line_point_i, axis=1)), 1e-3)
    reach = jnp.linalg.norm(poses[i, :2], axis=1) + jnp.linalg.norm(poses[j, :2], axis=1)
    return 1e-12 * (size + reach)


def contact_step(system, t, q, v, h, theta, restitution):
    """One step from (t, q, v) (module docstring): ``(q_new, v_new, P (n_pairs, 2) impulses
    (tangential, normal) [N·s], status)``, status the impulse problem's (0: unique)."""
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
    active = psi <= activation_tolerance(pairs, qm)
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
    sol = solve_lambda(system.admissible_set(n_b, bounds), A, b, "kikuuwe",
                       certify=system.certify)
    P = jnp.where(rows_on, sol.lam, 0.0)
    v_new = free + minv * (J.T @ P)
    q_new = q + h * ((1 - theta) * v + theta * v_new)
    if n_b:
        x = mech.project(t + h, jnp.concatenate([q_new, v_new]))
        q_new, v_new = x[:q.shape[0]], x[q.shape[0]:]
    impulses = P[n_b:].reshape(n_p, 2)
    return q_new, v_new, impulses, sol.status


def moreau_jean_step(system, t, x, h, theta):
    """``AbstractTimeSteppingHost.moreau_jean_step`` of a ContactPlanarSystem: the state
    after one :func:`contact_step` of the system's restitution, and ``{"P": P/h (mean forces
    [N]), "status": status}``."""
    n = system.mechanism.layout.n_coordinates
    q, v, P, status = contact_step(system, t, x[:n], x[n:2 * n], h, theta, system.restitution)
    counters = x[2 * n:] + h * jnp.stack([status == 1, status == 2]).astype(x.dtype)
    return jnp.concatenate([q, v, counters]), {"P": P / h, "status": status}


def moreau_jean_outputs(system, t, x, forces):
    """The channels at a sample: every contact's ``gap`` at the sample, ``fn`` and ``ft``
    of the step that ended there, and that step's ``painleve.status``."""
    n = system.mechanism.layout.n_coordinates
    gaps = system.pairs.gaps(x[:n])
    out = {}
    for k, (gap, fn, ft) in enumerate(system.names):
        out[gap] = gaps[k]
        out[fn] = forces["P"][k, 1]
        out[ft] = forces["P"][k, 0]
    out["painleve.status"] = forces["status"].astype(x.dtype)
    return out
