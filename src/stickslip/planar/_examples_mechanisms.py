"""Ready-made planar mechanisms of SPEC §9's worked examples — four-bar, double pendulum,
quick-return, gear–slider, cam–follower — and the runs that ``stickslip examples`` shows for
them (with the slider–crank of ``_slider_crank``). Re-exported by
:mod:`stickslip.planar.examples`, which holds the registry.
"""

from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np

from ._absolute_constraints import AbsoluteAngle, AbsoluteX, AbsoluteY
from ._drivers import RotationalDriver
from ._joints import GearJoint, RevoluteJoint, RevoluteRevoluteJoint, TranslationalJoint
from ._model import Model
from ._motions import constant_speed
from ._slider_crank import _link, slider_crank

__all__ = ["cam_follower", "double_pendulum", "four_bar", "freudenstein", "gear_slider",
           "quick_return"]


def freudenstein(theta2, a, b, c, d, branch=+1):
    """Rocker angle θ4 [rad] of a four-bar (crank a at angle θ2, coupler b, rocker c, ground
    d along +x) from Freudenstein's equation K1 cos θ4 − K2 cos θ2 + K3 = cos(θ2 − θ4)
    (closed form; `branch` ±1 picks the open or crossed assembly)."""
    K1, K2, K3 = d / a, d / c, (a ** 2 - b ** 2 + c ** 2 + d ** 2) / (2 * a * c)
    A = np.cos(theta2) - K1 - K2 * np.cos(theta2) + K3
    B = -2 * np.sin(theta2)
    C = K1 - (K2 + 1) * np.cos(theta2) + K3
    with np.errstate(invalid="ignore"):      # NaN where the loop cannot close
        return 2 * np.arctan2(-B + branch * np.sqrt(B ** 2 - 4 * A * C), 2 * A)


def four_bar(a=1.0, b=2.5, c=2.0, d=2.5, omega=2 * math.pi, theta0=0.3, driven=True,
             gravity=(0.0, -9.81)) -> Model:
    """Four-bar linkage (SPEC §9 8-1): crank a, coupler b, rocker c, ground d [m]; crank
    pivot at the origin, rocker pivot at (d, 0); 1 kg/m links. Driven at ω [rad/s] from
    θ0 [rad] unless ``driven=False``."""
    m = Model(gravity=gravity, name="four_bar")
    th4 = float(freudenstein(theta0, a, b, c, d, branch=-1))
    th4 = th4 if math.isfinite(th4) else math.pi / 2          # cannot close: a rough guess
    crank_tip = np.array([a * math.cos(theta0), a * math.sin(theta0)])
    rocker_tip = np.array([d + c * math.cos(th4), c * math.sin(th4)])
    th3 = math.atan2(*(rocker_tip - crank_tip)[::-1])
    crank = _link(m, "crank", a, a, (0.0, 0.0), theta0 + 0.05)        # rough on purpose
    coupler = _link(m, "coupler", b, b, crank_tip, th3 - 0.05)
    rocker = _link(m, "rocker", c, c, (d, 0.0), th4 + 0.05)
    m.add(RevoluteJoint(m.ground, crank, (0.0, 0.0), (-a / 2, 0.0), name="R1"))
    m.add(RevoluteJoint(crank, coupler, (a / 2, 0.0), (-b / 2, 0.0), name="R2"))
    m.add(RevoluteJoint(coupler, rocker, (b / 2, 0.0), (c / 2, 0.0), name="R3"))
    m.add(RevoluteJoint(m.ground, rocker, (d, 0.0), (-c / 2, 0.0), name="R4"))
    coupler.add_point("tracer", (0.0, 0.4 * b))
    if driven:
        m.add(RotationalDriver(m.ground, crank, angle=constant_speed(omega, start=theta0),
                               name="motor"))
    return m


def double_pendulum(L=0.5, m1=1.0, m2=1.0, theta1=math.radians(-30.0),
                    theta2=math.radians(10.0), gravity=(0.0, -9.81)) -> Model:
    """Double pendulum of two uniform rods of length 2L (SPEC §9 8-2: s'_R1 = (−L, 0),
    inertia m L²/3), pinned at the origin; angles from the +x axis [rad], released at rest."""
    m = Model(gravity=gravity, name="double_pendulum")
    b1 = m.add_body("link1", mass=m1, inertia=m1 * L ** 2 / 3, x=L * math.cos(theta1),
                    y=L * math.sin(theta1), phi=theta1)
    hinge = (2 * L * math.cos(theta1), 2 * L * math.sin(theta1))
    b2 = m.add_body("link2", mass=m2, inertia=m2 * L ** 2 / 3,
                    x=hinge[0] + L * math.cos(theta2), y=hinge[1] + L * math.sin(theta2),
                    phi=theta2)
    m.add(RevoluteJoint(m.ground, b1, (0.0, 0.0), (-L, 0.0), name="R1"))
    m.add(RevoluteJoint(b1, b2, (L, 0.0), (-L, 0.0), name="R2"))
    return m


def _fix(m, body):
    m.add(AbsoluteX(body, name=f"{body.name}_x"))
    m.add(AbsoluteY(body, name=f"{body.name}_y"))
    m.add(AbsoluteAngle(body, name=f"{body.name}_phi"))


def quick_return(omega=2 * math.pi, theta0=0.0) -> Model:
    """Quick-return mechanism of a shaper (SPEC §9 7-1; Haug's six-body model): frame (body 1,
    fixed by absolute x, y, φ), rocker 2, crank 3, slider block 4, link 5, tool 6. Five
    revolutes, two translational joints and 3 base constraints: n_h = 17, DOF = 18 − 17 = 1;
    the crank is driven at ω [rad/s]."""
    m = Model(name="quick_return")
    frame = m.add_body("frame", mass=10.0, inertia=1.0)
    pivot_b = np.array([0.0, 0.3])
    crank_r, rocker_l, link_l, ram_y = 0.15, 0.8, 0.4, 0.9
    tip = pivot_b + crank_r * np.array([math.cos(theta0), math.sin(theta0)])
    psi = math.atan2(tip[1], tip[0])
    rocker_tip = rocker_l * np.array([math.cos(psi), math.sin(psi)])
    dx = math.sqrt(link_l ** 2 - (ram_y - rocker_tip[1]) ** 2)
    ram_pin = np.array([rocker_tip[0] - dx, ram_y])
    rocker = _link(m, "rocker", 4.0, rocker_l, (0.0, 0.0), psi)
    crank = _link(m, "crank", 1.0, crank_r, pivot_b, theta0)
    block = m.add_body("block", mass=0.5, inertia=1e-3, x=tip[0], y=tip[1], phi=psi)
    link = _link(m, "link", 1.0, link_l, rocker_tip,
                 math.atan2(*(ram_pin - rocker_tip)[::-1]))
    tool = m.add_body("tool", mass=5.0, inertia=0.2, x=ram_pin[0], y=ram_y)
    _fix(m, frame)
    m.add(RevoluteJoint(frame, rocker, (0.0, 0.0), (-rocker_l / 2, 0.0), name="A"))
    m.add(RevoluteJoint(frame, crank, tuple(pivot_b), (-crank_r / 2, 0.0), name="B"))
    m.add(RevoluteJoint(crank, block, (crank_r / 2, 0.0), (0.0, 0.0), name="C"))
    m.add(TranslationalJoint(rocker, block, (0.0, 0.0), (0.0, 0.0), axis_i=(1.0, 0.0),
                             name="F"))
    m.add(RevoluteJoint(rocker, link, (rocker_l / 2, 0.0), (-link_l / 2, 0.0), name="D"))
    m.add(RevoluteJoint(link, tool, (link_l / 2, 0.0), (0.0, 0.0), name="E"))
    m.add(TranslationalJoint(frame, tool, (0.0, ram_y), (0.0, 0.0), axis_i=(1.0, 0.0),
                             name="G"))
    m.add(RotationalDriver(frame, crank, angle=constant_speed(omega, start=theta0),
                           name="motor"))
    return m


def gear_slider(omega=2 * math.pi, link_angle=0.0) -> Model:
    """Gear–slider mechanism of a shaper's variable-stroke drive (SPEC §9 7-2): frame (fixed,
    3), gears 2, 3, 4 pinned to it (3 revolutes) and meshing (2 gear pairs), a stroke-control
    link 5 pinned to the frame, a slider 6 on link 5 (translational) and a massless coupler
    from a pin on gear 4 to the slider (1): n_h = 16, DOF = 18 − 16 = 2, driven by gear 2's
    rotation (ω [rad/s]) and link 5's angle."""
    m = Model(name="gear_slider")
    frame = m.add_body("frame", mass=10.0, inertia=1.0)
    r2, r3, r4 = 0.1, 0.15, 0.1
    c2, c3, c4 = np.array([0.0, 0.0]), np.array([r2 + r3, 0.0]), np.array([r2 + 2 * r3 + r4, 0.0])
    g2 = m.add_body("gear2", mass=1.0, inertia=0.5 * r2 ** 2, x=c2[0], y=c2[1])
    g3 = m.add_body("gear3", mass=2.0, inertia=r3 ** 2, x=c3[0], y=c3[1])
    g4 = m.add_body("gear4", mass=1.0, inertia=0.5 * r4 ** 2, x=c4[0], y=c4[1])
    pivot5 = c4 + np.array([0.0, 0.5])
    link5 = _link(m, "link5", 2.0, 0.8, tuple(pivot5), link_angle)
    pin = c4 + np.array([0.08, 0.0])
    coupler = 0.6
    sx = pin[0] + math.sqrt(coupler ** 2 - (pivot5[1] - pin[1]) ** 2)
    slider = m.add_body("slider", mass=1.0, inertia=1e-3, x=sx, y=pivot5[1], phi=link_angle)
    _fix(m, frame)
    m.add(RevoluteJoint(frame, g2, tuple(c2), (0.0, 0.0), name="A"))
    m.add(RevoluteJoint(frame, g3, tuple(c3), (0.0, 0.0), name="B"))
    m.add(RevoluteJoint(frame, g4, tuple(c4), (0.0, 0.0), name="C"))
    m.add(GearJoint(g2, g3, radius_i=r2, radius_j=r3, name="G23"))
    m.add(GearJoint(g3, g4, radius_i=r3, radius_j=r4, name="G34"))
    m.add(RevoluteJoint(frame, link5, tuple(pivot5), (-0.4, 0.0), name="D"))
    m.add(TranslationalJoint(link5, slider, (-0.4, 0.0), (0.0, 0.0), axis_i=(1.0, 0.0),
                             name="F"))
    m.add(RevoluteRevoluteJoint(g4, slider, (0.08, 0.0), (0.0, 0.0), length=coupler,
                                name="coupler"))
    m.add(RotationalDriver(frame, g2, angle=constant_speed(omega), name="input"))
    m.add(RotationalDriver(frame, link5, angle=lambda t: link_angle + 0.0 * t,
                           name="stroke"))
    return m


def cam_follower(kind="flat", R=0.05, e=0.015, roller=0.01, omega=2 * math.pi,
                 preload=20.0) -> Model:
    """An eccentric circular cam (radius R, offset e [m]) turning at ω [rad/s] about the
    origin, lifting a follower that slides on the y axis, pressed down by a spring
    (``preload`` [N] at the mean lift). ``kind``: "flat" (flat face) or "roller" (radius
    ``roller``; the profile is then the pitch circle of radius R + roller)."""
    from ._cam import CamFollowerJoint
    from ._forces import TranslationalSpringDamper

    m = Model(name=f"cam_follower_{kind}")
    radius = R if kind == "flat" else R + roller

    def profile(alpha):                      # an offset circle in polar form about the axis
        return e * jnp.cos(alpha) + jnp.sqrt(radius ** 2 - (e * jnp.sin(alpha)) ** 2)

    cam = m.add_body("cam", mass=1.0, inertia=0.5 * R ** 2)
    follower = m.add_body("follower", mass=0.3, inertia=1e-3, y=radius + 0.002)
    m.add(RevoluteJoint(m.ground, cam, name="axle"))
    m.add(TranslationalJoint(m.ground, follower, axis_i=(0.0, 1.0), name="guide"))
    m.add(CamFollowerJoint(cam, follower, profile, kind=kind, name="contact"))
    m.add(TranslationalSpringDamper(m.ground, follower, (0.0, 0.3), (0.0, 0.0), stiffness=500.0,
                                    free_length=0.3 - radius - preload / 500.0,
                                    name="spring"))
    m.add(RotationalDriver(m.ground, cam, angle=constant_speed(omega), name="motor"))
    return m


def _run_cam(out):
    m = cam_follower()
    res = m.inverse_dynamics(np.linspace(0.0, 1.0, 201))
    lift = 0.05 + 0.015 * np.sin(2 * math.pi * res.t)
    return m, res, {"lift_error_m": float(np.max(np.abs(res["follower.y"] - lift))),
                    "min_contact_force_N": float(np.min(np.hypot(res["contact.Fx"],
                                                                  res["contact.Fy"])))}, \
        None, _plot_cam


def _plot_cam(model, res):
    """Lift, speed and forces over one cam turn (the follower only moves up and down, so a
    trajectory plot would be one vertical line)."""
    import matplotlib.pyplot as plt

    angle = np.degrees(np.unwrap(res["cam.phi"]))
    fig, axes = plt.subplots(1, 3, figsize=(14, 4.2))
    lift = 0.05 + 0.015 * np.sin(np.radians(angle))
    axes[0].plot(angle, res["follower.y"] * 1e3, "k", label="follower lift (stickslip)")
    axes[0].plot(angle[::10], lift[::10] * 1e3, "o", mfc="none", color="C3",
                 label="closed form R + e sin θ")
    axes[0].set_ylabel("lift [mm]")
    axes[0].legend(fontsize="small")
    axes[1].plot(angle, res["follower.yd"], color="C0", label="velocity [m/s]")
    axes[1].plot(angle, res["follower.ydd"] / 10, color="C1",
                 label="acceleration / 10 [m/s²]")
    axes[1].legend(fontsize="small")
    axes[1].set_title("follower motion")
    contact = np.hypot(res["contact.Fx"], res["contact.Fy"])
    axes[2].plot(angle, contact, "k", label="cam contact force")
    axes[2].plot(angle, res["spring.force"], "--", color="0.5", label="spring tension")
    axes[2].plot(angle, res["motor.effort"] * 100, color="C2", label="motor torque × 100 [N·m]")
    axes[2].set_ylabel("[N]")
    axes[2].legend(fontsize="small")
    for ax in axes:
        ax.set_xlabel("cam angle θ [°]")
        ax.set_xlim(angle[0], angle[-1])
    fig.suptitle("Eccentric cam (R = 50 mm, e = 15 mm) lifting a spring-loaded flat-faced "
                 "follower, one turn at 1 rev/s (inverse dynamics)")
    fig.tight_layout()
    return fig


def _run_four_bar(out):
    m = four_bar()
    res = m.inverse_dynamics(np.linspace(0.0, 1.0, 201))
    theta4 = freudenstein(0.3 + 2 * math.pi * res.t, 1.0, 2.5, 2.0, 2.5, branch=-1)
    err = np.max(np.abs(np.angle(np.exp(1j * (res["rocker.phi"] - theta4)))))
    return m, res, {"freudenstein_max_error_rad": float(err),
                    "peak_motor_torque_Nm": float(np.max(np.abs(res["motor.effort"])))}, \
        ("coupler", "tracer"), None


def _run_slider_crank(out):
    m = slider_crank()
    res = m.simulate(10.0, dt=1e-3, dt_out=0.01)
    return m, res, {"crank_angle_at_10s_deg": float(np.degrees(res["crank.phi"][-1])),
                    "energy_drift_J": res.meta["energy_drift"],
                    "constraint_drift_m": res.meta["constraint_drift"]}, None, None


def _run_double_pendulum(out):
    m = double_pendulum()
    res = m.simulate(5.0, dt=5e-4, dt_out=0.01)
    return m, res, {"energy_drift_J": res.meta["energy_drift"],
                    "constraint_drift_m": res.meta["constraint_drift"]}, \
        ("link2", (0.5, 0.0)), None


def _run_quick_return(out):
    m = quick_return()
    res = m.inverse_dynamics(np.linspace(0.0, 1.0, 201))
    dx = np.diff(res["tool.x"])
    return m, res, {"dof": m.dof(), "stroke_m": float(np.ptp(res["tool.x"])),
                    "cutting_fraction_of_cycle": float(np.mean(dx < 0)),
                    "peak_motor_torque_Nm": float(np.max(np.abs(res["motor.effort"])))}, \
        None, None


def _run_gear_slider(out):
    m = gear_slider()
    res = m.inverse_dynamics(np.linspace(0.0, 1.0, 201))
    return m, res, {"dof": m.dof(), "slider_stroke_m": float(np.ptp(res["slider.x"]))}, \
        ("slider", (0.0, 0.0)), None
