"""The contact rows of the Moreau–Jean step of a planar model with frictional contacts (SPEC
§6, "厳密解 (Moreau 1999 など) — SICONOS"): the step of ``simulate(..., method="moreau_jean")``
on a :class:`~stickslip.planar.PlanarSystem` with frictional contacts (its ``pairs``) and of
:func:`stickslip.planar.moreau_jean` is the one step of :mod:`._mj_step` (joints, joint
friction, contacts and impact stops in one λ-problem); this module gives it the contact
pairs' rows and turns its impulses into the state and channels of a model with contacts.

Per contact pair, at the step's mid-point q_m: the rows J_t (∂v_t/∂q̇) and J_n (∂ψ/∂q), the
target [0; −e J_n v_k] (Newton's restitution e at the velocity level, one for every
contact), the friction coefficient — static for a contact that sticks at the step's start
(v_t = 0 exactly in a time-stepping scheme), kinetic for one that slides
(``friction_bounds`` at v_k) — and whether it touches: ψ(q_m) ≤ ψ_tol, ψ_tol the
:func:`activation_tolerance` (1e-12 of the pair's length scale: round-off, not physics).
Inactive contacts are decoupled with P = 0. First order in h; the impulses report as mean
forces P/h [N] of the step.

Restitution e: the pairs' ``restitution``; the frozen model sets it to e(ζ) of the
relaxation from free flight (:func:`stickslip.constraints.relaxation_restitution`) with the
first contact's ζ unless a ``restitution=`` is passed — the impacts of the relaxed ODE
route, made instantaneous. Impact stops keep their own ``restitution``.

State x = [q; q̇; s; n_none; n_several] (the ODE route's layout, so a run may continue under
either route; s the mechanism's law states, zero under this route): the counters add the
length of each step whose impulse problem has no solution / several, as the ODE route
integrates its indicator, so a Painlevé step is never lost between two samples. A step whose
joint-friction fixed point does not converge returns NaN (the run stops and
:func:`._mj_step.locate_failure` names the joint).
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from .._validation import check_nonnegative, check_scalar
from ..constraints import relaxation_restitution
from ..errors import ParameterError
from . import _mj_step
from ._mj_friction import NO_SOLUTION, NOT_CONVERGED, SEVERAL

__all__ = ["activation_tolerance", "check_restitution", "contact_rows", "default_restitution",
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


def contact_rows(system, qm, v):
    """The contact pairs' rows at the mid-point `qm` from the velocities `v` (module
    docstring): (J_c (2 n_p × n: rows t₁, n₁, t₂, n₂, …), target (2 n_p,), μ per pair,
    touching per pair)."""
    pairs = system.pairs
    psi = pairs.gaps(qm)
    Jn = jax.jacfwd(pairs.gaps)(qm)
    Jt = jax.jacfwd(lambda u: pairs.sliding_velocities(qm, u))(v)
    n_p = psi.shape[0]
    active = psi <= activation_tolerance(pairs, qm)
    Jc = jnp.stack([Jt, Jn], axis=1).reshape(2 * n_p, -1)
    target = jnp.stack([jnp.zeros(n_p), -pairs.restitution * (Jn @ v)], axis=1).reshape(-1)
    mu = pairs.friction_bounds(pairs.sliding_velocities(qm, v))
    return Jc, target, mu, active


def moreau_jean_step(system, t, x, h, theta):
    """``AbstractTimeSteppingHost.moreau_jean_step`` of a model with contacts: the state after
    one step of :mod:`._mj_step` (NaN where the joint friction's fixed point failed), the
    Painlevé counters advanced, and the step's forces (``"P"``: the pairs' (ft, fn) [N],
    ``"status"``: the impulse problem's, 0 unique, 1 none, 2 several)."""
    x_new, forces = _mj_step._step(system, t, x, h, theta)
    status = forces["status"]
    x_new = jnp.where(status == NOT_CONVERGED, jnp.nan, x_new)
    m = x_new.shape[0]
    counters = x[m:] + h * jnp.stack([status == NO_SOLUTION, status == SEVERAL]).astype(x.dtype)
    forces = dict(forces, P=forces.pop("contact"))
    return jnp.concatenate([x_new, counters]), forces


def moreau_jean_outputs(system, t, x, forces):
    """The channels at a sample: the mechanism's (:func:`._mj_step.moreau_jean_outputs`:
    accelerations, reactions, driver efforts, energy, joint friction, impact stops, drift),
    every contact's ``gap`` at the sample, ``fn`` and ``ft`` of the step that ended there and
    that step's ``painleve.status``."""
    layout = system.layout
    n, m = layout.n_coordinates, 2 * layout.n_coordinates + layout.n_law_states
    gaps = system.pairs.gaps(x[:n])
    out = _mj_step.moreau_jean_outputs(system, t, x[:m], forces)
    for k, (gap, fn, ft) in enumerate(system.pairs.names):
        out[gap] = gaps[k]
        out[fn] = forces["P"][k, 1]
        out[ft] = forces["P"][k, 0]
    out["painleve.status"] = forces["status"].astype(x.dtype)
    return out
