"""Ready-made inclusions: the paper's examples 1 and 2 (SPEC §5) and three classics.

Each function builds the :class:`~stickslip.inclusion.DifferentialInclusion` exactly as one
writes it on paper and returns it compiled (``compiled=False`` returns the inclusion).
The law constants default to those of the hand-written systems in :mod:`stickslip.systems`,
so ``point_on_plane()`` equals ``ss.systems.PointOnPlane(M=1)`` and ``two_blocks_conveyor()``
equals ``ss.systems.TwoBlocksConveyor()`` to round-off.

============================  ==========================================================
``point_on_plane``            eq. 19 (sign fixed, gravity and an applied force added)
``two_blocks_conveyor``       eq. 23-26 (parenthesis fixed)
``belt_stick_slip``           mass–spring on a moving belt (stick-slip limit cycle)
``incline``                   block on an incline with rigid contact and Coulomb friction
``bouncing_ball``             ball bouncing on the floor and against a wall
============================  ==========================================================
"""

from __future__ import annotations

from typing import Callable, Mapping

import jax.numpy as jnp
import sympy as sp

from ._compile import DEFAULT_CONSTANTS, compile_inclusion
from ._functions import Dio, Sgn
from ._inclusion import DifferentialInclusion

__all__ = ["point_on_plane", "two_blocks_conveyor", "belt_stick_slip", "incline",
           "bouncing_ball"]

_CONTACT = DEFAULT_CONSTANTS["dio"]
_FRICTION = DEFAULT_CONSTANTS["sgn"]


def _constant(value: float) -> Callable:
    def constant(t):
        return jnp.zeros_like(t) + value
    return constant


def _constants(contact: Mapping | None, friction: Mapping | None):
    c = {**_CONTACT, **(contact or {})}
    f = {**_FRICTION, **(friction or {})}
    alpha = (contact or {}).get("alpha", 0.5 * c["beta"])      # α = β/2 unless given
    return ({"dio": c["K"], "sgn": f["K"]}, {"dio": c["beta"], "sgn": f["beta"]}, alpha)


def point_on_plane(M: float = 1.0, mu: float = 0.5, g: float = 9.81,
                   force: Callable | None = None, p0=None, v0=(0.0, 0.0, 0.0),
                   contact: Mapping | None = None, friction: Mapping | None = None,
                   compiled: bool = True):
    """A point mass on the frictional plane z = 0 (SPEC §5 example 1, eq. 19 [fix]).

    ::

        d/dt [x, y, z]    = [vx, vy, vz]
        d/dt [vx, vy]     ∈ (f_e,xy − μ·Dio(z)·Sgn([vx, vy]))/M
        d/dt vz           ∈ (f_e,z + Dio(z))/M − g

    M [kg], μ [-], g [m/s²]; `force` [N]: callable t → 3-vector (inputs ``fex, fey, fez``).
    `p0`, `v0`: initial position [m] and velocity [m/s] (default: at rest at the static
    penetration M g/K of the contact). `contact` = dict(K, beta, alpha), `friction` =
    dict(K, beta) (defaults of ``PointOnPlane``). States as ``PointOnPlane``:
    ``x y z vx vy vz e ax ay``.
    """
    x, y, z, vx, vy, vz = sp.symbols("x y z vx vy vz")
    Ms, mus, gs = sp.symbols("M mu g")
    inputs = {}
    fe = [sp.Integer(0)] * 3
    if force is not None:
        fe = list(sp.symbols("fex fey fez"))
        inputs = {fe[i]: (lambda t, i=i, force=force: force(t)[i]) for i in range(3)}
    S = Sgn(sp.Matrix([vx, vy]))
    rates = [vx, vy, vz,
             (fe[0] - mus * Dio(z) * S[0]) / Ms,
             (fe[1] - mus * Dio(z) * S[1]) / Ms,
             (fe[2] + Dio(z)) / Ms - gs]
    K, beta, alpha = _constants(contact, friction)
    if p0 is None:
        depth = M * g / K["dio"]
        p0, e0 = (0.0, 0.0, -depth), depth
    else:
        e0 = 0.0
    initial = dict(zip((x, y, z, vx, vy, vz), (*p0, *v0)))
    units = {**{n: "m" for n in "xyz"}, **{f"v{n}": "m/s" for n in "xyz"},
             **{n: "N" for n in ("f_e", "f_ax", "f_ay", "fex", "fey", "fez")}}
    di = DifferentialInclusion([x, y, z, vx, vy, vz], rates,
                               parameters={Ms: M, mus: mu, gs: g}, inputs=inputs,
                               initial=initial, units=units, name="point on a plane (eq. 19)")
    if not compiled:
        return di
    return compile_inclusion(di, K=K, beta=beta, alpha=alpha, initial={"e": e0})


def two_blocks_conveyor(M1: float = 1.0, M2: float = 2.0, Ks: float = 100.0,
                        g: float = 9.81, u: float = 0.1, mu=(0.3, 0.3, 0.5),
                        x0=(0.0, 0.1, 0.02, 0.0, 0.0, 0.0, 0.0, 0.0),
                        contact: Mapping | None = None, friction: Mapping | None = None,
                        compiled: bool = True):
    """Two blocks pressed against a wall by a conveyor (SPEC §5 example 2, eq. 23-26 [fix]).

    ::

        Ω1 = μ1 Dio(p1x) Sgn(v1y)
        Ω2 = μ2 Dio(p2x − p1x) Sgn(v1y − v2y)
        Ω3 = μ3 Dio(p2y) Sgn(v2x + u)
        d/dt v1x ∈ (Dio(p1x) − Dio(p2x − p1x))/M1
        d/dt v1y ∈ (−Ω1 − Ω2 − Ks p1y)/M1
        d/dt v2x ∈ (−Ω3 + Dio(p2x − p1x))/M2
        d/dt v2y ∈ (Ω2 + Dio(p2y))/M2 − g

    Masses [kg], Ks [N/m], g [m/s²], belt speed u [m/s], μ1..μ3 [-]; `x0` = [p1x, p1y,
    p2x, p2y, v1x, v1y, v2x, v2y]. Defaults and states as ``TwoBlocksConveyor``.
    """
    p1x, p1y, p2x, p2y, v1x, v1y, v2x, v2y = states = sp.symbols(
        "p1x p1y p2x p2y v1x v1y v2x v2y")
    M1s, M2s, Kss, gs, us = sp.symbols("M1 M2 Ks g u")
    mu1, mu2, mu3 = sp.symbols("mu1 mu2 mu3")
    omega1 = mu1 * Dio(p1x) * Sgn(v1y)                                   # eq. 24
    omega2 = mu2 * Dio(p2x - p1x) * Sgn(v1y - v2y)                       # eq. 25
    omega3 = mu3 * Dio(p2y) * Sgn(v2x + us)                              # eq. 26
    rates = [v1x, v1y, v2x, v2y,
             (Dio(p1x) - Dio(p2x - p1x)) / M1s,                          # eq. 23 [fix]
             (-omega1 - omega2 - Kss * p1y) / M1s,
             (-omega3 + Dio(p2x - p1x)) / M2s,
             (omega2 + Dio(p2y)) / M2s - gs]
    di = DifferentialInclusion(
        list(states), rates,
        parameters={M1s: M1, M2s: M2, Kss: Ks, gs: g, us: u, mu1: mu[0], mu2: mu[1],
                    mu3: mu[2]},
        initial=dict(zip(states, x0)), name="two blocks on a conveyor (eq. 23)",
        units={**{str(s): "m" for s in states[:4]}, **{str(s): "m/s" for s in states[4:]},
               **{f"f_{k}{i}": "N" for k in "ea" for i in (1, 2, 3)}})
    if not compiled:
        return di
    K, beta, alpha = _constants(contact, friction)
    return compile_inclusion(di, K=K, beta=beta, alpha=alpha)


def belt_stick_slip(m: float = 1.0, k: float = 100.0, F: float = 5.0,
                    belt_speed: float = 0.1, x0: float = 0.0, v0: float = 0.0,
                    friction: Mapping | None = None, compiled: bool = True):
    """A mass on a spring, dragged by a belt moving at u(t) (stick-slip)::

        d/dt x = v,    d/dt v ∈ (−k x − F Sgn(v − u(t)))/m

    m [kg], k [N/m], F [N] (Coulomb level), belt speed [m/s] (the input ``u``). With
    equal static and kinetic friction the motion tends to the limit cycle
    ``x ∈ [F/k − u/ω, F/k + u/ω]``, ω = √(k/m), period 2π/ω, that touches the belt's
    speed once per cycle.
    """
    x, v, ms, ks, Fs, u = sp.symbols("x v m k F u")
    di = DifferentialInclusion([x, v], [v, (-ks * x - Fs * Sgn(v - u)) / ms],
                               parameters={ms: m, ks: k, Fs: F},
                               inputs={u: _constant(belt_speed)},
                               initial={x: x0, v: v0}, name="mass-spring on a moving belt",
                               units={x: "m", v: "m/s", "u": "m/s", "f_a": "N"})
    if not compiled:
        return di
    f = {**_FRICTION, **(friction or {})}
    return compile_inclusion(di, K=f["K"], beta=f["beta"])


def incline(slope: float = 0.3, mu: float = 0.5, m: float = 1.0, g: float = 9.81,
            contact: Mapping | None = None, friction: Mapping | None = None,
            compiled: bool = True):
    """A block on an incline of angle `slope` [rad] with rigid contact and friction μ.

    Coordinates along (s, downhill) and normal to (n, gap) the slope::

        d/dt vs ∈ g sin(slope) − μ Dio(n) Sgn(vs)/m
        d/dt vn ∈ Dio(n)/m − g cos(slope)

    Starts at rest at the static penetration. It sticks forever when tan(slope) < μ and
    slides with acceleration g (sin(slope) − μ cos(slope)) otherwise.
    """
    s, n, vs, vn = sp.symbols("s n vs vn")
    slope_s, mus, ms, gs = sp.symbols("slope mu m g")
    rates = [vs, vn,
             gs * sp.sin(slope_s) - mus * Dio(n) * Sgn(vs) / ms,
             Dio(n) / ms - gs * sp.cos(slope_s)]
    K, beta, alpha = _constants(contact, friction)
    depth = m * g * float(sp.cos(slope)) / K["dio"]
    di = DifferentialInclusion([s, n, vs, vn], rates,
                               parameters={slope_s: slope, mus: mu, ms: m, gs: g},
                               initial={n: -depth}, name="block on an incline",
                               units={s: "m", n: "m", vs: "m/s", vn: "m/s", "f_e": "N",
                                      "f_a": "N"})
    if not compiled:
        return di
    return compile_inclusion(di, K=K, beta=beta, alpha=alpha, initial={"e": depth})


def bouncing_ball(m: float = 1.0, g: float = 9.81, height: float = 1.0, speed: float = 1.0,
                  wall: float = 0.5, contact: Mapping | None = None, compiled: bool = True):
    """A ball thrown sideways at `speed` [m/s] from `height` [m] towards a wall at x = `wall`
    [m], bouncing on the floor h = 0 (frictionless)::

        d/dt vx ∈ −Dio(wall − x)/m,      d/dt vh ∈ Dio(h)/m − g

    Two labelled contacts (Step 1 only): proxies ``e_wall``, ``e_floor`` and forces
    ``f_e_wall``, ``f_e_floor``. With α = β (the
    default here) the contacts are elastic; smaller α lowers the restitution (Fig. 5).
    """
    x, h, vx, vh = sp.symbols("x h vx vh")
    ms, gs, L = sp.symbols("m g L")
    c = {**_CONTACT, "alpha": _CONTACT["beta"], **(contact or {})}
    di = DifferentialInclusion([x, h, vx, vh],
                               [vx, vh, -Dio(L - x, name="wall") / ms,
                                Dio(h, name="floor") / ms - gs],
                               parameters={ms: m, gs: g, L: wall},
                               initial={h: height, vx: speed}, name="bouncing ball",
                               units={x: "m", h: "m", vx: "m/s", vh: "m/s",
                                      "f_e_wall": "N", "f_e_floor": "N"})
    if not compiled:
        return di
    return compile_inclusion(di, K=c["K"], beta=c["beta"], alpha=c["alpha"])
