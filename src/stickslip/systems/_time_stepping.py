"""The set-valued friction step the 1-D hosts share under ``method="moreau_jean"``.

A ``CoulombODE`` law acts there as the set-valued Coulomb law of the same levels — kinetic
F (or μ·N), static F_s (or μ_s·N), optional Stribeck drop and viscous term; its K and β are
not used. The step is the seed 001 backward-Euler friction step (SPEC §6,
:func:`stickslip.discrete.coulomb_mass_step`) generalised to a host whose other forces are
taken by the θ-method: with Ŵ the host's effective mass of the step (M plus h·θ·damping plus
(h·θ)²·stiffness) and ``w_free`` the relative velocity the step would end with without
friction, the friction impulse P and the end-of-step relative velocity w⁺ solve::

    Ŵ·(w⁺ − w_free) = P,     P/h ∈ −F(|w⁺|)·sgn(w⁺),   F(0) = F_s

Write ``c = (Ŵ/h)·w_free`` — the force that stops the relative motion within this step.

* **stick** (w⁺ = 0 exactly, friction −c) when |c| ≤ F_s — the static level holds it;
* **slip** otherwise, at the speed s > 0 with ``F(s) + (Ŵ/h)·s = |c|`` (in the sense of c;
  the slip solve :func:`stickslip.laws.curve_slip_speed` with the damping Ŵ/h; closed form
  s = (|c| − F)/(Ŵ/h + σ) without a Stribeck velocity), friction ``−F(s)·sgn(c)``.

This is theorem (4) when F_s = F and σ = 0 (``P = −sat(h·F, Ŵ·w_free)``). With F_s > F and
no Stribeck velocity both stick and a kinetic slide solve the step when F < |c| ≤ F_s; the
step **selects stick** there — try stick first, accept it if the force it needs is within
F_s, else slide at the kinetic level — the classical rule, and the one eq. 9's proxy uses.
The slip speed is unique when Ŵ/h + σ exceeds the Stribeck drop's steepest slope, which
:func:`check_friction_step` checks with Ŵ ≥ M.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from .._validation import concrete
from ..errors import ParameterError
from ..integrate import TIME_STEPPING_METHODS
from ..laws import AbstractFrictionLaw, CoulombODE, curve_slip_speed, steepest_drop

__all__ = ["check_friction_step", "friction_route_refusal", "implicit_friction",
           "time_stepping_law"]


def implicit_friction(law: CoulombODE, w_free, damping, normal_force):
    """The end-of-step relative velocity w⁺ [m/s] and the mean friction force of the step
    on the body [N] (module docstring); `damping` = Ŵ/h [N·s/m]."""
    static = law.level(normal_force)
    kinetic = law.kinetic_level(normal_force)
    stop = damping * w_free                  # the force that stops the motion in this step
    drive = jnp.abs(stop)
    exponent = 2 if law.stribeck_exponent is None else law.stribeck_exponent
    s = curve_slip_speed(drive, kinetic, static, damping, law.v_stribeck, exponent,
                         law.viscous)
    stick = drive <= static
    sense = jnp.sign(w_free)
    w_plus = jnp.where(stick, 0.0, s * sense)
    force = jnp.where(stick, -stop, -law.curve(s, normal_force) * sense)
    return w_plus, force


def time_stepping_law(law: AbstractFrictionLaw) -> CoulombODE:
    """`law` as the CoulombODE a time-stepping step needs (the route check,
    :func:`friction_route_refusal`, refuses any other law before a step is traced)."""
    if not isinstance(law, CoulombODE):
        raise ParameterError(f"method='moreau_jean': {friction_route_refusal(law, 'moreau_jean')}.")
    return law


def friction_route_refusal(law, method: str) -> str | None:
    """Why a host with friction `law` cannot run `method`, or None."""
    if method in TIME_STEPPING_METHODS and not isinstance(law, CoulombODE):
        return (f"its friction law {type(law).__name__} has no set-valued form for time "
                "stepping; use CoulombODE (its levels F/mu, F_s/mu_s and its Stribeck and "
                "viscous terms are used there, K and beta are not)")
    return None


def check_friction_step(owner: str, law, mass, normal_force, dt: float) -> None:
    """Refuse a step for which the slip speed of a Stribeck drop is not unique:
    ``M/dt + viscous`` must exceed the drop's steepest slope (F_s − F)·m_δ/v_stribeck
    (module docstring; checked when the values are numbers)."""
    if not isinstance(law, CoulombODE) or law.v_stribeck is None:
        return
    values = [concrete(v) for v in (mass, law.level(normal_force),
                                    law.kinetic_level(normal_force), law.v_stribeck)]
    delta = concrete(2.0 if law.stribeck_exponent is None else law.stribeck_exponent)
    viscous = concrete(0.0 if law.viscous is None else law.viscous)
    if any(v is None for v in values) or delta is None or viscous is None \
            or np.ndim(delta) != 0:
        return
    M, static, kinetic, v_s = (np.asarray(v, dtype=float) for v in values)
    slope = (static - kinetic) * steepest_drop(float(delta)) / v_s
    limit = M / dt + viscous
    if np.any(slope >= limit):
        largest = float(np.min(M / np.maximum(slope - viscous, 1e-300)))
        raise ParameterError(
            f"`{owner}`: dt={dt:g} s is too large for the Stribeck drop of its CoulombODE "
            f"under method='moreau_jean': the drop's steepest slope {float(np.max(slope)):.4g}"
            f" N·s/m must be below M/dt + viscous = {float(np.min(limit)):.4g} N·s/m, else "
            f"several slip speeds solve the step. Use dt < {largest:.3g} s, or raise "
            "v_stribeck.")
