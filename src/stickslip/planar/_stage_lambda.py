"""The λ-stage of a planar model with frictional contacts (SPEC §6 on SPEC §9): the stage
functions that :class:`~._system.PlanarSystem` calls when its ``pairs`` hold contacts.

State x = [q; q̇; s; n_none; n_several]: the mechanism's coordinates and velocities, its law
states s (contact-law stops'), and two counters that integrate 1 while the λ-problem has no
solution / several solutions (so a Painlevé instant between two output samples is not
missed). At every evaluation of the vector field (SPEC §6):

    M q̈ = Q + Q_s + J_bᵀ λ_b + J_cᵀ λ_c,        (Q_s: the contact-law stops' forces)
    J_b q̈ = γ_b                                     (joints, SPEC §9 eq. 3-5),
    w_c = J_c q̈ + J̇_c q̇ + (2ζ/δ) J_c q̇ + (1/δ²)[0; ψ] ∈ −lim N_F^{U_ε}(λ_c),

which is the λ-problem λ − A⁻¹b ∈ −lim A⁻¹ N_F^{U_ε}(λ) with A = J M⁻¹ Jᵀ, J = [J_b; J_c]
and b = c − J M⁻¹ Q, c = [γ_b; −J̇_c q̇ − (2ζ/δ) J_c q̇ − (1/δ²)[0; ψ]] — solved by
the shared λ-stage (:func:`stickslip.constraints.lambda_stage`, which the 3-D point contacts
and link systems run too) with the pairs' formulation, one block group:
the joints' :class:`~stickslip.constraints.Bilateral` rows, then one
:class:`~stickslip.constraints.PlanarContact` per pair (the blocks the 3-D point contacts
use). The joints' λ_b here is the seed's sign (force = +J_bᵀλ_b); the planar reactions use
λ = −λ_b.

Joint friction and impact stops have no place in this vector field: the ODE routes refuse
them (:func:`ode_refusal`, by name); ``method="moreau_jean"`` runs them with the contacts in
one impulse problem per step (:mod:`._mj_step`, :mod:`._contact_step`), and refuses the
contact-law stops instead (their compliant law has no set-valued form there).
"""

from __future__ import annotations

import jax.numpy as jnp

from ..constraints import lambda_stage

__all__ = ["dynamics", "ode_refusal", "outputs", "project", "vector_field"]


def ode_refusal(system, method: str) -> str | None:
    """Why the ODE route `method` cannot run `system`, a model with frictional contacts
    (None: it can). Joint friction: its Newton loop (reaction ↔ friction law,
    ``_stage_solve.dynamics``) and the contacts' λ-problem would have to be solved together,
    a nonsmooth fixed point this vector field does not solve exactly. Impact stops: the
    event route that runs them does not see the contacts."""
    joints = [getattr(f.joint, "name", f.name) if hasattr(f, "joint") else f.name
              for f in system.frictions]
    if joints:
        return (f"the joint friction of {joints} cannot be combined with frictional contacts "
                f"on the ODE route (method={method!r}): use method='moreau_jean' (one "
                "impulse problem per step holds both), or model that friction as a contact")
    stops = [s.name for s in system.stops]
    if stops:
        return (f"impact stops {stops} cannot be combined with frictional contacts on the "
                f"ODE route (method={method!r}; the event route does not see the contacts): "
                "use method='moreau_jean', or give each stop a contact law")
    return None


def _n_mechanism(system) -> int:
    """Length of the mechanism's part [q; q̇; s] of the state."""
    layout = system.layout
    return 2 * layout.n_coordinates + layout.n_law_states


def dynamics(system, t, q, qd, checked: bool = True, s=None) -> dict:
    """q̈, the joints' multipliers (planar sign), the contact forces and the λ-problem's
    solution at (t, q, q̇) (module docstring). `checked`: the λ-problem's status is decided
    as the pairs' ``certify`` says, with the enumeration as fallback where ``fallback`` is
    set; ``False`` (the output samples, which the integrators evaluate under ``vmap``, where
    ``lax.cond`` would run the enumeration for every sample) keeps the certified active-set
    solution and reports status 1 where the active set found none — the Painlevé stop reads
    the vector field's counters. `s`: the mechanism's law states (None: zero)."""
    pairs = system.pairs
    # the planar seam (SPEC §9): M q̈ = Q − J_bᵀλ, J_b q̈ = γ_b (Baumgarte included), the
    # contact-law stops' forces in Q
    eqs, phi, rate, c_forces, c_rates = system.equations(t, q, qd, s)
    minv, Q, Jb, gamma = eqs.minv, eqs.Q, eqs.J, eqs.gamma
    n_b = Jb.shape[0]
    psi, Jn, psi_d, jdot_n, vt, Jt, jdot_t = pairs.kinematics(q, qd)
    k = 2.0 * pairs.zeta / pairs.delta
    c_t = -(jdot_t + k * vt)
    c_n = -(jdot_n + k * psi_d + psi / pairs.delta ** 2)
    n_p = psi.shape[0]
    Jc = jnp.stack([Jt, Jn], axis=1).reshape(2 * n_p, -1)     # rows t1, n1, t2, n2, …
    cc = jnp.stack([c_t, c_n], axis=1).reshape(-1)
    J = jnp.concatenate([Jb, Jc])
    c = jnp.concatenate([gamma, cc])
    solve = lambda_stage(pairs.admissible_set(n_b, pairs.friction_bounds(vt)), J,
                         J * minv[None, :], c, lambda v: minv * v, pairs.formulation,
                         certify=pairs.certify if checked else "none",
                         fallback=checked and pairs.fallback)
    sol, qdd = solve(Q)
    lam_c = sol.lam[n_b:].reshape(n_p, 2)
    return {"qdd": qdd, "lam_planar": -sol.lam[:n_b], "ft": lam_c[:, 0],
            "fn": lam_c[:, 1], "gap": psi, "sliding": vt, "status": sol.status,
            "phi": phi, "rate": rate, "J": Jb, "residual": sol.residual,
            "stop_forces": c_forces, "s_rate": c_rates}


def vector_field(system, t, x):
    """ẋ = [q̇; q̈; ṡ; 1(no solution); 1(several)] (module docstring)."""
    n, m = system.layout.n_coordinates, _n_mechanism(system)
    q, qd, s = x[:n], x[n:2 * n], x[2 * n:m]
    d = dynamics(system, t, q, qd, s=s)
    flags = jnp.stack([d["status"] == 1, d["status"] == 2]).astype(x.dtype)
    return jnp.concatenate([qd, d["qdd"], d["s_rate"], flags])


def project(system, t, x, project_mechanism):
    """[q; q̇] put back on the joints by `project_mechanism` (the plain model's projection);
    the counters unchanged."""
    m = _n_mechanism(system)
    if system.layout.n_rows == 0:
        return x
    return jnp.concatenate([project_mechanism(t, x[:m]), x[m:]])


def outputs(system, t, x) -> dict:
    """The mechanism's channels, each contact-law stop's ``<stop>.force``, each pair's
    ``gap``, ``fn``, ``ft``, ``painleve.status`` and the drift."""
    n, m = system.layout.n_coordinates, _n_mechanism(system)
    q, qd, s = x[:n], x[n:2 * n], x[2 * n:m]
    d = dynamics(system, t, q, qd, checked=False, s=s)
    out = system.channels(t, q, qd, d["qdd"], d["lam_planar"], include_state=False,
                          J=d["J"], s=s)
    start = 0
    for stop in system.contacts:              # the contact-law stops
        f = d["stop_forces"][start:start + stop.n_gaps]
        start += stop.n_gaps
        out[f"{stop.name}.force"] = f[0] if stop.n_gaps == 1 else jnp.sum(f)
    for k, (gap, fn, ft) in enumerate(system.pairs.names):
        out[gap] = d["gap"][k]
        out[fn] = d["fn"][k]
        out[ft] = d["ft"][k]
    out["painleve.status"] = d["status"].astype(x.dtype)
    phi, rate = d["phi"], d["rate"]
    out["constraint.position"] = jnp.max(jnp.abs(phi)) if phi.size else jnp.zeros(())
    out["constraint.velocity"] = jnp.max(jnp.abs(rate)) if rate.size else jnp.zeros(())
    return out
