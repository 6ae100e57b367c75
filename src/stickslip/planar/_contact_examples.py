"""Ready-made mechanisms with frictional contacts (SPEC §6), for examples, tests and the
benchmark."""

from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np

from ._contact import ClearanceSlider, PointLineContact
from ._elements import RevoluteJoint, RotationalDriver, constant_speed
from ._forces import PointForce
from ._model import Model

__all__ = ["clearance_slider_crank", "block_on_incline", "painleve_rod"]


def clearance_slider_crank(mu: float = 0.01, clearance: float = 1e-3, omega: float | None = 20.0,
                           delta: float = 2e-4, zeta: float = 1.0,
                           theta0: float = 0.0) -> Model:
    """Slider–crank whose slider has clearance in its guide (issue 12): crank 0.153 m, rod
    0.306 m, slider half-length 0.05 m, half-height 0.025 m, clearance `clearance`, μ = `mu`
    at the guide's walls, vertical plane (g = 9.81 m/s² along −y).

    Inertias (our modelling choice, uniform steel-like links): crank 0.30 kg, rod 0.21 kg
    (J = m L²/12), slider 0.14 kg (J = m(4a² + 4b²)/12). The crank turns at `omega` rad/s
    (a RotationalDriver) from θ0, or runs free when ``omega=None`` (initial speed 20 rad/s).
    The slider starts centred in the guide (all four gaps = clearance) on the rod's end.
    """
    crank, rod, a, b = 0.153, 0.306, 0.05, 0.025
    m = Model(gravity=(0.0, -9.81), name="clearance_slider_crank")
    bx, by = crank * math.cos(theta0), crank * math.sin(theta0)
    sx = bx + math.sqrt(rod ** 2 - by ** 2)
    beta = math.atan2(-by, sx - bx)
    w0 = 20.0 if omega is None else float(omega)
    # velocities consistent with the joints at the start (slider moving along x only)
    c = m.add_body("crank", mass=0.30, inertia=0.30 * crank ** 2 / 12,
                   x=bx / 2, y=by / 2, phi=theta0, phid=w0,
                   xd=-w0 * by / 2, yd=w0 * bx / 2)
    # rod angular velocity from the loop: by + rod·sin β = 0 ⇒ β̇ = −ẏ_B/(rod cos β)
    yb_d = w0 * bx
    beta_d = -yb_d / (rod * math.cos(beta))
    xb_d = -w0 * by
    sx_d = xb_d - rod * math.sin(beta) * beta_d
    r = m.add_body("rod", mass=0.21, inertia=0.21 * rod ** 2 / 12,
                   x=(bx + sx) / 2, y=by / 2, phi=beta, phid=beta_d,
                   xd=(xb_d + sx_d) / 2, yd=yb_d / 2)
    s = m.add_body("slider", mass=0.14, inertia=0.14 * (4 * a * a + 4 * b * b) / 12,
                   x=sx, y=0.0, xd=sx_d)
    m.add(RevoluteJoint(m.ground, c, (0.0, 0.0), (-crank / 2, 0.0), name="A"))
    m.add(RevoluteJoint(c, r, (crank / 2, 0.0), (-rod / 2, 0.0), name="B"))
    m.add(RevoluteJoint(r, s, (rod / 2, 0.0), (0.0, 0.0), name="C"))
    if omega is not None:
        m.add(RotationalDriver(m.ground, c, angle=constant_speed(omega, start=theta0),
                               name="motor"))
    m.add(ClearanceSlider(m.ground, s, half_length=a, half_height=b, clearance=clearance,
                          mu=mu, delta=delta, zeta=zeta, name="guide"))
    return m


def block_on_incline(theta: float = math.radians(20.0), mu: float = 0.5, mass: float = 2.0,
                     delta: float = 1e-3, zeta: float = 1.0, v0: float = 0.0) -> Model:
    """A block on a slope at angle θ [rad] (a point contact at its centre): it sticks forever
    when μ > tan θ, else slides down at g(sin θ − μ cos θ)."""
    m = Model(gravity=(0.0, -9.81), name="block_on_incline")
    axis = np.array([math.cos(theta), -math.sin(theta)])
    v = v0 * axis
    block = m.add_body("block", mass=mass, inertia=mass * 0.01, xd=v[0], yd=v[1])
    m.add(PointLineContact(m.ground, block, point_j=(0.0, 0.0), line_point_i=(0.0, 0.0),
                           line_axis_i=axis, mu=mu, delta=delta, zeta=zeta, name="slope"))
    return m


def painleve_rod(mu: float = 0.3, theta: float = math.radians(45.0), V: float = -0.5,
                 u: float = 0.0, half_length: float = 0.5, mass: float = 1.0,
                 delta: float = 0.01, zeta: float = 1.0) -> Model:
    """A uniform rod (J = m l²/3) whose lower end slides on the floor at `V` [m/s] (rising at
    `u`), at angle θ; both ends can touch the floor (contacts ``tip`` and ``top``)."""
    l = half_length
    m = Model(gravity=(0.0, -9.81), name="painleve_rod")
    body = m.add_body("rod", mass=mass, inertia=mass * l * l / 3, x=l * math.cos(theta),
                      y=l * math.sin(theta), phi=theta, xd=V, yd=u)
    m.add(PointLineContact(m.ground, body, point_j=(-l, 0.0), mu=mu, delta=delta, zeta=zeta,
                           name="tip"))
    m.add(PointLineContact(m.ground, body, point_j=(l, 0.0), mu=mu, delta=delta, zeta=zeta,
                           name="top"))
    return m
