"""The modes of the 1-D hosts under ``method="events"`` (:mod:`stickslip.integrate._event_route`).

**FrictionMass with CoulombODE** — the set-valued Coulomb law of the law's levels (kinetic F
or μ·N, static F_s or μ_s·N, its Stribeck and viscous terms; K and β unused), as under
``moreau_jean``. With G(t, p, v) every other force on the mass (load, spring, damper), u(t)
the surface velocity and w = v − u the sliding velocity, the friction force that keeps the
mass stuck to the surface is the *required force* ``r = M·u'(t) − G(t, p, u)``. Modes:

* **stick** (mode 0): v = u(t) exactly (put there after every step), friction r; it lasts
  while ``|r| ≤ F_s`` — guard ``F_s − |r|``. When |r| reaches F_s the mass **slips** in the
  sense of the net force, s = sgn(−r).
* **slip** in sense s = ±1 (mode s): ``M·v' = G − F(|w|)·s`` with F the kinetic curve
  (F at w → 0 without a Stribeck velocity); it lasts while s·w ≥ 0. When w reaches 0 the
  mass **sticks** if |r| ≤ F_s there (the classical rule: with F < |r| ≤ F_s both stick and
  a kinetic slide would do; static friction holds), else slips on in the sense sgn(−r).

A state's mode (a run's start, or a continued run): stick when w = 0 exactly and |r| ≤ F_s,
else slip in the sense of w (of −r when w = 0).

**ContactMass with NewtonImpact** — a rigid wall at p ≤ 0 (``name`` "floor"). Modes:

* **flight** (mode 0): ``M·v' = force(t) − M·g``; it lasts while p ≥ 0. At p = 0 the
  **impact** sets p = 0 exactly and v⁺ = −e·v⁻ (Newton's law).
* **rest** (mode 1): p = v = 0 exactly, contact force ``N = M·g − force(t)``; it lasts while
  N ≥ 0, then the mass **lifts off** (mode flight, kind "liftoff").

The **Zeno rule**: after an impact at t_k with rebound speed v⁺ under the downward
acceleration a = g − force(t_k)/M > 0, the remaining bounces of a restitution e < 1 take
T = 2v⁺/(a(1 − e)) in all (the geometric sum of the flight times 2v⁺eⁿ/a, exact for a
constant a). When ``T ≤ 16·ε·|t_k|`` (ε the float64 machine epsilon: the rest of the
sequence lies within 16 ulps of the time axis, where no further event can be told apart),
or when v⁺ = 0 (e = 0), the mass is put at **rest** instead (p = v = 0 exactly; kind "rest"
at t_k, in place of that last impact). The rest then begins within T of the accumulation
point — for AP3 (h₀ = 1 m, e = 0.8) after 148 impacts, 6e-15 s before T∞ = 4.0637 s.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from ..integrate import EVENT_KINDS
from ..laws import CoulombODE, NewtonImpact

__all__ = ["ZENO_ULPS", "contact_event", "friction_event"]

ZENO_ULPS = 16.0
_EPS = float(jnp.finfo(jnp.float64).eps)
_IMPACT, _STICK, _SLIP, _REST, _LIFTOFF = (EVENT_KINDS.index(k) for k in
                                           ("impact", "stick", "slip", "rest", "liftoff"))


# --- FrictionMass -------------------------------------------------------------------------

class friction_event:
    """The hook bodies of :class:`~stickslip.systems.FrictionMass` (module docstring);
    each a function of the host."""

    @staticmethod
    def refusal(law) -> str | None:
        """Why a FrictionMass with `law` cannot run ``events``, or None."""
        if isinstance(law, CoulombODE):
            return None
        return (f"its friction law {type(law).__name__} has no set-valued form for the "
                "event-driven route; use CoulombODE (its levels F/mu, F_s/mu_s and its "
                "Stribeck and viscous terms are used there, K and beta are not)")

    @staticmethod
    def _surface(host, t):
        """u(t) and u'(t) [m/s, m/s²]."""
        if host.surface_velocity is None:
            return 0.0 * t, 0.0 * t
        return jax.jvp(host.surface_velocity, (t,), (jnp.ones_like(t),))

    @staticmethod
    def _required(host, t, p):
        """The friction force that keeps the mass stuck [N], and u, u'."""
        u, du = friction_event._surface(host, t)
        return host.M * du - host._smooth_force(t, p, u), u, du

    @staticmethod
    def _kinetic(host, speed):
        law = host.law
        if law.v_stribeck is None:           # the curve's limit at 0+, not F_s
            level = law.kinetic_level(host.N)
            return level if law.viscous is None else level + law.viscous * speed
        return law.curve(speed, host.N)

    @staticmethod
    def mode(host, t, x):
        r, u, _ = friction_event._required(host, t, x[0])
        w = x[1] - u
        held = (w == 0.0) & (jnp.abs(r) <= host.law.level(host.N))
        return jnp.where(held, 0, jnp.where(w != 0.0, jnp.sign(w), -jnp.sign(r))).astype(jnp.int32)

    @staticmethod
    def field(host, t, x, mode):
        p, v = x[0], x[1]
        u, du = friction_event._surface(host, t)
        sense = mode.astype(x.dtype)
        friction = -friction_event._kinetic(host, jnp.abs(v - u)) * sense
        slide = (host._smooth_force(t, p, v) + friction) / host.M
        stuck = mode == 0
        rates = jnp.stack([jnp.where(stuck, u, v), jnp.where(stuck, du, slide)])
        return jnp.concatenate([rates, jnp.zeros_like(x[2:])])

    @staticmethod
    def guard(host, t, x, mode):
        r, u, _ = friction_event._required(host, t, x[0])
        return jnp.where(mode == 0, host.law.level(host.N) - jnp.abs(r),
                         mode.astype(x.dtype) * (x[1] - u))

    @staticmethod
    def jump(host, t, x, mode):
        r, u, _ = friction_event._required(host, t, x[0])
        held = (mode != 0) & (jnp.abs(r) <= host.law.level(host.N))
        new_mode = jnp.where(held, 0, -jnp.sign(r)).astype(jnp.int32)
        x_new = x.at[1].set(u)                       # w = 0 exactly at either transition
        return x_new, new_mode, jnp.where(held, _STICK, _SLIP)

    @staticmethod
    def settle(host, t, x, mode):
        u, _ = friction_event._surface(host, t)
        v = jnp.where(mode == 0, u, x[1])
        return jnp.concatenate([jnp.stack([x[0], v]), jnp.zeros_like(x[2:])])

    @staticmethod
    def outputs(host, t, x, mode):
        r, u, _ = friction_event._required(host, t, x[0])
        w = x[1] - u
        slide = -friction_event._kinetic(host, jnp.abs(w)) * mode.astype(x.dtype)
        out = {"f": jnp.where(mode == 0, r, slide), "fe": host._applied(t, x), "slip": w}
        if host._has_belt_terms:
            out.update(fs=host._spring(x), u=u)
        return out


# --- ContactMass --------------------------------------------------------------------------

class contact_event:
    """The hook bodies of :class:`~stickslip.systems.ContactMass` (module docstring)."""

    @staticmethod
    def refusal(law) -> str | None:
        """Why a ContactMass with `law` cannot run ``events``, or None."""
        if isinstance(law, NewtonImpact):
            return None
        return (f"its contact law {type(law).__name__} is compliant (an ODE law); the "
                "event-driven route needs the rigid law ss.laws.NewtonImpact(e=...)")

    @staticmethod
    def _acceleration(host, t):
        """The acceleration in flight [m/s²] (< 0: towards the wall)."""
        return host.force(t) / host.M - host.g

    @staticmethod
    def mode(host, t, x):
        resting = (x[0] <= 0.0) & (x[1] == 0.0) & (contact_event._acceleration(host, t) <= 0)
        return jnp.where(resting, 1, 0).astype(jnp.int32)

    @staticmethod
    def field(host, t, x, mode):
        flight = mode == 0
        rates = jnp.stack([jnp.where(flight, x[1], 0.0),
                           jnp.where(flight, contact_event._acceleration(host, t), 0.0)])
        return jnp.concatenate([rates, jnp.zeros_like(x[2:])])

    @staticmethod
    def guard(host, t, x, mode):
        # flight: the gap; rest: the contact force the wall must supply
        return jnp.where(mode == 0, x[0], -host.M * contact_event._acceleration(host, t))

    @staticmethod
    def jump(host, t, x, mode):
        v_after = host.law.velocity_after(x[1], x[1])          # −e·v⁻ (approaching)
        down = -contact_event._acceleration(host, t)
        e = host.law.e
        # the remaining bounces take 2v⁺/(a(1 − e)) in all: rest when that is below the
        # time axis' resolution at t (module docstring)
        zeno = (1.0 - e) * down * ZENO_ULPS * _EPS * jnp.abs(t) >= 2.0 * v_after
        rest = (mode == 0) & (down > 0.0) & ((v_after <= 0.0) | zeno)
        v_new = jnp.where((mode == 0) & ~rest, v_after, 0.0)
        x_new = jnp.concatenate([jnp.stack([jnp.zeros_like(x[0]), v_new]), x[2:]])
        kind = jnp.where(mode == 0, jnp.where(rest, _REST, _IMPACT), _LIFTOFF)
        return x_new, jnp.where(rest, 1, 0).astype(jnp.int32), kind

    @staticmethod
    def settle(host, t, x, mode):
        return jnp.where(mode == 1, jnp.zeros_like(x), x)

    @staticmethod
    def outputs(host, t, x, mode):
        support = -host.M * contact_event._acceleration(host, t)
        return {"f": jnp.where(mode == 1, support, 0.0 * t), "fe": host.force(t)}
