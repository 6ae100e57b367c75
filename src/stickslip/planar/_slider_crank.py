"""The slider–crank (the benchmark model) and a slider–crank whose slider squeals: stick–slip on
a mechanism (issue 22).

The slider–crank of :func:`stickslip.planar.examples.slider_crank` (vertical plane, crank
0.1 m, rod 0.3 m, slider 0.5 kg) is driven slowly through a soft shaft: a motor disc on the
crank pivot turns at constant speed ω and drives the crank through a rotational spring–damper
(k = 1 N·m/rad, c = 0.02 N·m·s/rad). The slider's joint has Coulomb friction from its normal
reaction, kinetic μ = 0.3. With a static level above it (μ_s = 0.5) the slider sticks, the
shaft winds up until the friction reaches μ_s·N, and it breaks away and slides at μ·N —
recurring stick–slip between the dead centres (the low-frequency cousin of a squeal). With one
level (μ_s = μ) it only pauses briefly.
"""

from __future__ import annotations

import math

from ..laws import CoulombODE
from ._drivers import RotationalDriver
from ._forces import RotationalSpringDamper
from ._joints import RevoluteJoint, TranslationalJoint
from ._model import Model
from ._motions import constant_speed

__all__ = ["slider_crank", "slider_crank_squeal"]


def _link(model, name, mass, length, start, angle):
    """A uniform slender link (inertia mL²/12) from point `start` at `angle` [rad]."""
    c, s = math.cos(angle), math.sin(angle)
    return model.add_body(name, mass=mass, inertia=mass * length ** 2 / 12,
                          x=start[0] + 0.5 * length * c, y=start[1] + 0.5 * length * s,
                          phi=angle)


def slider_crank(crank=0.1, rod=0.3, m_crank=1.0, m_rod=1.0, m_slider=0.5,
                 theta0=math.radians(60.0), omega=None, gravity=(0.0, -9.81),
                 pin_friction=None, pin_radius=0.01, slide_friction=None) -> Model:
    """Slider–crank in a vertical plane (the benchmark model of
    benchmarks/planar_slider_crank.py): crank 0.1 m / 1 kg and rod
    0.3 m / 1 kg (uniform links), slider 0.5 kg on the x axis through the crank pivot;
    released from rest at θ0 = 60°. With ``omega`` [rad/s] the crank is driven at constant
    speed from θ0 instead. ``pin_friction`` (a friction law, with ``pin_radius`` [m]) on the
    three pins A, B, C and ``slide_friction`` on the slider's joint D are optional."""
    pin = {} if pin_friction is None else {"friction": pin_friction, "pin_radius": pin_radius}
    m = Model(gravity=gravity, name="slider_crank")
    bx, by = crank * math.cos(theta0), crank * math.sin(theta0)
    sx = bx + math.sqrt(rod ** 2 - by ** 2)
    c = _link(m, "crank", m_crank, crank, (0.0, 0.0), theta0)
    r = _link(m, "rod", m_rod, rod, (bx, by), math.atan2(-by, sx - bx))
    s = m.add_body("slider", mass=m_slider, inertia=1e-4, x=sx, y=0.0)
    m.add(RevoluteJoint(m.ground, c, (0.0, 0.0), (-crank / 2, 0.0), name="A", **pin))
    m.add(RevoluteJoint(c, r, (crank / 2, 0.0), (-rod / 2, 0.0), name="B", **pin))
    m.add(RevoluteJoint(r, s, (rod / 2, 0.0), (0.0, 0.0), name="C", **pin))
    m.add(TranslationalJoint(m.ground, s, axis_i=(1.0, 0.0), name="D",
                             friction=slide_friction))
    if omega is not None:
        c.phid = float(omega)
        m.add(RotationalDriver(m.ground, c, angle=constant_speed(omega, start=theta0),
                               name="motor"))
    return m




def slider_crank_squeal(mu: float = 0.3, mu_s: float = 0.5, omega: float = 0.25,
                        shaft_stiffness: float = 1.0, shaft_damping: float = 0.02,
                        K: float = 2e4, damping_ratio: float = 5.0) -> Model:
    """The slider–crank driven at `omega` [rad/s] through a soft shaft (module docstring).

    mu, mu_s: kinetic and static friction coefficients of the slider's joint ``D``;
    shaft_stiffness [N·m/rad], shaft_damping [N·m·s/rad]: the shaft from the motor disc
    (body ``motor``, driven by ``drive``) to the crank (the element ``shaft``); K [N/m],
    damping_ratio: the friction proxy (``CoulombODE.tuned`` on the slider's 0.5 kg; ζ = 5
    keeps the proxy's overshoot under sudden loads below 1 %, see ``CoulombODE``).
    """
    theta0 = math.radians(60.0)
    law = CoulombODE.tuned(0.5, K, mu=mu, mu_s=mu_s, damping_ratio=damping_ratio)
    m = slider_crank(theta0=theta0, slide_friction=law)
    crank = next(b for b in m.bodies if b.name == "crank")
    motor = m.add_body("motor", mass=0.1, inertia=1e-3, x=0.0, y=0.0, phi=theta0)
    m.add(RevoluteJoint(m.ground, motor, (0.0, 0.0), (0.0, 0.0), name="M"))
    m.add(RotationalDriver(m.ground, motor, angle=constant_speed(omega, start=theta0),
                           name="drive"))
    m.add(RotationalSpringDamper(motor, crank, stiffness=shaft_stiffness,
                                 damping=shaft_damping, name="shaft"))
    return m
