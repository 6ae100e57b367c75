"""The friction curve of :class:`~stickslip.laws.CoulombODE` — static above kinetic, a
Stribeck drop, a viscous term — and the slip solve that keeps eq. 9's exact stick with it.

The curve, as a function of the sliding speed s ≥ 0 (Armstrong-Hélouvry, Dupont & Canudas de
Wit 1994, eq. 2.3; the same curve as seed 003's LuGre g(v), SPEC §8)::

    F(s) = F_k + (F_s − F_k)·exp(−(s/v_s)^δ) + σ·s            (v_s: Stribeck velocity)
    F(0) = F_s,   F(s > 0) = F_k + σ·s                          (no v_s: a jump at breakaway)

Eq. 8 with a speed-dependent level. Coulomb friction acts on the proxy, whose slip velocity is
u = v − ȧ; the spring–damper holds the body with K(a + β ȧ) = f ∈ F(|u|)·sgn(u). With
z = a + β·v (so ȧ = v − u and K(a + βȧ) = K(z − β u))::

    K(z − β u) ∈ F(|u|)·sgn(u)

**Theorem** (the generalisation of eq. 4). Write c = K|z| and g(s) = F(s) + (Kβ)·s for
s > 0. If g is strictly increasing on s > 0 with g(0⁺) = F_s — the *admissible* curves: a
continuous curve with ``F'(s) > −K·β`` everywhere, which holds for every non-decreasing curve
and, for the Stribeck drop, when ``K·β + σ > (F_s − F_k)·m_δ/v_s`` (m_δ: the steepest slope
of the drop, :func:`steepest_drop`) — the inclusion has exactly one solution:

* stick, u = 0, when c ≤ F_s (the proxy holds: f = K·z, |f| ≤ F_s);
* slip, u = s·z/|z| with g(s) = c, when c > F_s.

Proof: for u = 0 the inclusion reads K z ∈ [−F_s, F_s]·sgn(z), i.e. c ≤ F_s; for u ≠ 0 it
reads K(z − β u) = F(|u|)·u/|u|, so u is parallel to z (with the same sense) and
K|z| − Kβ|u| = F(|u|), i.e. g(|u|) = c, which has exactly one root when c > F_s = g(0⁺) and
none when c ≤ F_s, g being strictly increasing. ∎ With F_s = F_k, σ = 0 this is eq. 4:
s = (c − F)/(Kβ) and K(z − βu) = F·z/|z| = K·sat(F/K, z).

The jump curve (no v_s, F_s > F_k) is the limit v_s → 0: g(0⁺) = F_k < F_s, so for
F_k < c ≤ F_s both stick and a slip at s = (c − F_k)/(Kβ + σ) solve the inclusion. The law
selects stick there (the body sticks whenever static friction can hold it, the classical
rule), which makes the friction force jump from F_s to F_k at breakaway: a discontinuous, not
a Lipschitz, right-hand side — physically the point of static friction, numerically a step
whose local error is first order. Give ``v_stribeck`` for a Lipschitz curve.

So the friction force is −K·(z − β·u), the proxy rate is ȧ = v − u = ((z − β u) − a)/β
(eq. 9a with sat replaced by the solve), and while stuck the body sits on the proxy spring
exactly as in eq. 10 — no creep under any load below F_s. While sliding, the force is the
curve at the proxy's sliding speed, F(|u|), exactly (to the solve's round-off).

The root of g(s) = c lies in [(c − F_s)/(Kβ + σ), (c − F_k)/(Kβ + σ)] (F_k + σs ≤ F(s) ≤
F_s + σs); it is found by Newton's method, started from the end of that bracket on the root's
side of the drop's inflection point (g is concave below it, convex above: the iterates then
approach the root monotonically) and safeguarded by bisection, a fixed number of rounds
(:data:`SLIP_ROUNDS`, differentiable, no data-dependent loop). With no
Stribeck velocity the root is closed-form. A non-admissible curve (a drop steeper than
K·β + σ) makes g non-monotone: several slip speeds satisfy the inclusion, the model is not
well posed, and :class:`CoulombODE` refuses it when its levels are fixed numbers.
"""

from __future__ import annotations

import math

import jax.numpy as jnp
from jax import lax
from jax.typing import ArrayLike

__all__ = ["curve", "steepest_drop", "proxy_slip_speed", "SLIP_ROUNDS"]

SLIP_ROUNDS = 40
"""The most safeguarded Newton rounds of the slip solve; it stops when a round moves s by
less than 1e-15·(s + v_s). 8 rounds reach a relative residual below 1e-13 on 20 000 random
admissible curves and drives (margins down to 1.001 of the admissible slope;
``tests/laws/test_stribeck.py`` checks 1e-11 by hypothesis); typical solves take 2–5."""


def curve(speed, kinetic, static, v_stribeck=None, exponent: ArrayLike = 2.0, viscous=None):
    """F(s): the friction level [N] at sliding speed `speed` = s ≥ 0 (module docstring).

    >>> import jax.numpy as jnp
    >>> float(curve(jnp.asarray(0.0), 0.2, 0.3, v_stribeck=1e-3))
    0.3
    >>> round(float(curve(jnp.asarray(1.0), 0.2, 0.3, v_stribeck=1e-3, viscous=0.1)), 12)
    0.3
    """
    speed = jnp.abs(speed)
    if v_stribeck is None:
        level = jnp.where(speed > 0.0, kinetic, static)
    else:
        level = kinetic + (static - kinetic) * jnp.exp(-(speed / v_stribeck) ** exponent)
    if viscous is not None:
        level = level + viscous * speed
    return level


def steepest_drop(exponent: float) -> float:
    """m_δ = max over x ≥ 0 of −d/dx exp(−x^δ) = δ·x^(δ−1)·exp(−x^δ), for δ ≥ 1.

    The steepest slope of the Stribeck drop is (F_s − F_k)·m_δ/v_s; m_1 = 1 (at x = 0),
    m_2 = √2·e^(−1/2) ≈ 0.858 (at x = 1/√2).
    """
    delta = float(exponent)
    if delta == 1.0:
        return 1.0
    x_delta = (delta - 1.0) / delta                # x^δ at the steepest point
    return delta * x_delta ** ((delta - 1.0) / delta) * math.exp(-x_delta)


def proxy_slip_speed(drive, kinetic, static, damping, v_stribeck=None, exponent: ArrayLike = 2.0,
                     viscous=None):
    """The proxy's sliding speed s ≥ 0 for a drive c = K·|a + β·v| (module docstring):
    0 when c ≤ F_s, else the root of F(s) + damping·s = c, with ``damping`` = K·β."""
    slope = damping + (0.0 if viscous is None else viscous)
    hi = jnp.maximum(drive - kinetic, 0.0) / slope
    if v_stribeck is None:
        return jnp.where(drive > static, hi, 0.0)
    lo = jnp.maximum(drive - static, 0.0) / slope
    drop = static - kinetic

    def residual(s):
        x = jnp.maximum(s / v_stribeck, 1e-20)   # no subnormals (x^δ, 100× slower)
        xd = x ** exponent                 # an int exponent lowers to multiplications
        e = jnp.exp(-xd)
        g = kinetic + drop * e + slope * s - drive
        dg = slope - drop * exponent * (xd / x) * e / v_stribeck
        return g, dg

    def newton(bracket):
        lo, hi, s, _, rounds = bracket
        g, dg = residual(s)
        lo, hi = jnp.where(g < 0.0, s, lo), jnp.where(g < 0.0, hi, s)
        step = s - g / jnp.where(dg > 0.0, dg, 1.0)
        inside = (dg > 0.0) & (step >= lo) & (step <= hi)
        new = jnp.where(inside, step, 0.5 * (lo + hi))
        return lo, hi, new, jnp.abs(new - s), rounds + 1

    def unconverged(bracket):
        _, _, s, change, rounds = bracket
        return (change > 1e-15 * (s + v_stribeck)) & (rounds < SLIP_ROUNDS)

    def solve(_):
        # g is concave below the drop's inflection point x^δ = (δ − 1)/δ and convex above
        # it: Newton's method started from the bracket's end on the root's side of the
        # inflection (lo below it, where g ≤ 0; hi above it, where g ≥ 0) converges
        # monotonically.
        inflection = v_stribeck * ((exponent - 1.0) / exponent) ** (1.0 / exponent)
        g_inflection, _ = residual(jnp.clip(inflection, lo, hi))
        start = jnp.where(g_inflection > 0.0, lo, hi)
        root = lax.while_loop(unconverged, newton, (lo, hi, start, jnp.inf * start, 0))[2]
        # the loop's root carries no derivative; one Newton step from it (a no-op in value)
        # carries the implicit function's, ds/dθ = −(∂g/∂θ)/g'(s)
        root = lax.stop_gradient(root)
        g, dg = residual(root)
        return root - g / dg

    sliding = drive > static
    if jnp.ndim(sliding) == 0:        # one contact: skip the solve while it sticks
        s = lax.cond(sliding, solve, lambda _: jnp.zeros_like(hi), None)
    else:
        s = solve(None)
    return jnp.where(sliding, s, 0.0)
