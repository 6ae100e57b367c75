"""Ready-made planar mechanisms (SPEC §9 worked examples) — used by the tests, the
benchmark and ``stickslip examples``.

Every factory returns a :class:`~stickslip.planar.Model` whose bodies start near (not
exactly at) an assembled configuration; the analyses assemble it.
"""

from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np

from .._validation import keyword_alias
from ._elements import (AbsoluteAngle, AbsoluteX, AbsoluteY, GearJoint, RevoluteJoint,
                        RevoluteRevoluteJoint, RotationalDriver, TranslationalJoint,
                        constant_speed)
from ._forces import PointForce
from ._friction import LuGreFriction
from ._model import Model
from ._slider_crank import _link, slider_crank, slider_crank_squeal

__all__ = ["four_bar", "freudenstein", "slider_crank", "double_pendulum", "quick_return",
           "gear_slider", "cam_follower", "sliding_block", "sliding_block_tutorial",
           "slider_end_stop", "ball_in_box", "ball_on_paddle", "EXAMPLES",
           "run_example", "join_segments", "slider_crank_squeal"]


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


def sliding_block(friction: str = "lugre", mu_s: float | None = None,
                  mu_k: float | None = None, amplitude: float = 3.0, frequency: float = 1.0,
                  *, mus: float | None = None, mud: float | None = None) -> Model:
    """The sliding block of the MotionSolve LuGre tutorial (SPEC §8): ground + a 1 kg block
    on a translational joint along x, gravity 9.8 m/s² perpendicular to the axis (N = 9.8 N),
    actuation ``amplitude·sin(2π·frequency·t)`` N along the axis.

    ``friction="lugre"``: a :class:`LuGreFriction` element ``"lugre"`` (tutorial defaults,
    μ_s = `mu_s` (0.3), μ_k = `mu_k` (0.2)); ``"coulomb"``: ``CoulombODE(mu=mu_k)`` joint
    friction (a critically damped proxy, K = 1e5 N/m), for comparison; ``"none"``:
    frictionless. Channels: ``block.x`` (the displacement), ``block.xd``, and
    ``<lugre|slide>.friction``. `mus`, `mud`: the old spellings (deprecated: they warn).
    """
    from ..laws import CoulombODE

    mu_s = keyword_alias("sliding_block", "mu_s", mu_s, "mus", mus, deprecated=True)
    mu_k = keyword_alias("sliding_block", "mu_k", mu_k, "mud", mud, deprecated=True)
    mu_s, mu_k = 0.3 if mu_s is None else mu_s, 0.2 if mu_k is None else mu_k

    m = Model(gravity=(0.0, -9.8), name=f"sliding_block_{friction}")
    block = m.add_body("block", mass=1.0, inertia=1.0 / 6.0)
    w = 2 * math.pi * frequency
    m.add(PointForce(block, lambda t, q, qd: jnp.stack([amplitude * jnp.sin(w * t), 0.0 * t]),
                     name="actuator"))
    if friction == "lugre":
        slide = m.add(TranslationalJoint(m.ground, block, axis_i=(1.0, 0.0), name="slide"))
        m.add(LuGreFriction(slide, mu_s=mu_s, mu_k=mu_k, name="lugre"))
    elif friction == "coulomb":
        law = CoulombODE.tuned(1.0, 1e5, mu=mu_k)
        m.add(TranslationalJoint(m.ground, block, axis_i=(1.0, 0.0), friction=law,
                                 name="slide"))
    elif friction == "none":
        m.add(TranslationalJoint(m.ground, block, axis_i=(1.0, 0.0), name="slide"))
    else:
        raise ValueError(f"friction must be 'lugre', 'coulomb' or 'none'; got {friction!r}.")
    return m


def sliding_block_tutorial(friction: str = "lugre", raised: float = 0.5, segment: float = 4.0,
                           dt: float = 1e-4, dt_out: float = 0.01):
    """The tutorial end to end (SPEC §8): `segment` s with μ_s = 0.3 (or μ = 0.2 for
    ``"coulomb"``), then the coefficient raised to `raised` with :meth:`Model.replace` and
    the same run continued `segment` s more from the exact state. Returns
    ``(model, first, second)``; ``second`` starts where ``first`` ends."""
    m = sliding_block(friction)
    first = m.simulate(segment, dt=dt, dt_out=dt_out)
    if friction == "lugre":
        m.replace("lugre", mu_s=raised)
    else:
        m.replace("slide", mu=raised)
    second = m.simulate(2 * segment, dt=dt, dt_out=dt_out, initial=first)
    return m, first, second


def slider_end_stop(restitution: float = 0.7, speed: float = 0.5,
                    travel: float = 0.1) -> Model:
    """A 1 kg slider on a horizontal translational joint between travel limits ±`travel`
    [m] (a :class:`TranslationalStop` named ``"end_stop"``, impacts as events with
    restitution e), started at the centre at `speed` [m/s]: it hits its end stops in turn,
    each impact keeping e² of the kinetic energy."""
    from ._impact import TranslationalStop

    m = Model(gravity=(0.0, -9.81), name="slider_end_stop")
    s = m.add_body("slider", mass=1.0, inertia=1e-2, xd=speed)
    joint = m.add(TranslationalJoint(m.ground, s, axis_i=(1.0, 0.0), name="slide"))
    m.add(TranslationalStop(joint, lower=-travel, upper=travel, restitution=restitution,
                            name="end_stop"))
    return m


def ball_in_box(restitution: float = 0.9, width: float = 1.0, height: float = 1.0) -> Model:
    """A ball (point) thrown inside a box of `width` × `height` [m]: floor, walls and ceiling
    are :class:`PointLineStop` elements (events with restitution e)."""
    from ._impact import PointLineStop

    m = Model(gravity=(0.0, -9.81), name="ball_in_box")
    ball = m.add_body("ball", mass=0.1, inertia=1e-5, x=0.3 * width, y=0.8 * height,
                      xd=2.0, yd=0.0)
    for name, p, n in (("floor", (0.0, 0.0), (0.0, 1.0)),
                       ("ceiling", (0.0, height), (0.0, -1.0)),
                       ("left_wall", (0.0, 0.0), (1.0, 0.0)),
                       ("right_wall", (width, 0.0), (-1.0, 0.0))):
        m.add(PointLineStop(ball, line_point=p, normal=n, restitution=restitution, name=name))
    return m


def ball_on_paddle(restitution: float = 0.8, amplitude: float = 0.15,
                   frequency: float = 1.0) -> Model:
    """A ball bouncing on a paddle inside a mechanism: the paddle (a 0.6 m link pinned to
    the ground at its centre) is rocked by a rotational driver, angle
    ``amplitude·sin(2π·frequency·t)`` [rad]; the ball hits the line of the paddle (a
    :class:`PointLineStop` with ``line_body``), restitution e. The impulse goes through the
    constraint matrix, so the driven paddle keeps its motion and the ball's velocity
    *relative to the paddle* is reversed with factor e. The stop's line is unbounded: the
    ball drifts off the paddle's 0.6 m after about 1 s."""
    from ._impact import PointLineStop

    w = 2 * math.pi * frequency
    m = Model(gravity=(0.0, -9.81), name="ball_on_paddle")
    paddle = m.add_body("paddle", mass=1.0, inertia=0.03)
    ball = m.add_body("ball", mass=0.05, inertia=1e-6, x=0.15, y=0.4)
    m.add(RevoluteJoint(m.ground, paddle, name="pivot"))
    paddle.phid = amplitude * w
    m.add(RotationalDriver(m.ground, paddle, angle=lambda t: amplitude * jnp.sin(w * t),
                           name="rocker"))
    m.add(PointLineStop(ball, line_body=paddle, line_point=(0.0, 0.0), normal=(0.0, 1.0),
                        restitution=restitution, name="paddle_face"))
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


def join_segments(first, second):
    """One Results for a run continued with ``initial=first``: `second` starts at the last
    sample of `first`, which appears once. Channels both have, units, `second`'s metadata
    (with the first segment's under ``meta["first_segment"]``) and final state."""
    from ..results import Results

    names = [n for n in first.names if n in second]
    channels = {n: np.concatenate([first[n], second[n][1:]]) for n in names}
    meta = dict(second.meta, first_segment=dict(first.meta))
    return Results(np.concatenate([first.t, second.t[1:]]), channels,
                   units={n: second.units.get(n, "") for n in names}, meta=meta,
                   final_state=second.final_state)


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


def _run_sliding_block(out):
    m, first, second = sliding_block_tutorial("lugre", raised=0.5, dt=2e-4)
    res = join_segments(first, second)        # the whole 8 s, not only the second segment
    return m, res, {"peak_speed_first_4s_m_s": float(np.max(np.abs(first["block.xd"]))),
                    "displacement_change_last_4s_mm": float(np.ptp(second["block.x"]) * 1e3)
                    }, None, _plot_sliding_block


def _plot_sliding_block(model, res):
    """Displacement, velocity and friction force over the two segments (the block slides
    on a line: a trajectory plot would be a flat line)."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(3, 1, figsize=(8, 7.5), sharex=True)
    axes[0].plot(res.t, res["block.x"] * 1e3, "k")
    axes[0].set_ylabel("displacement [mm]")
    axes[1].plot(res.t, res["block.xd"], "k")
    axes[1].set_ylabel("velocity [m/s]")
    axes[2].plot(res.t, res["lugre.friction"], "k", label="LuGre friction force")
    axes[2].plot(res.t, res["actuator.force"] * np.sign(np.sin(2 * np.pi * res.t)), "--",
                 color="0.5", label="push 3 sin(2πt)")
    axes[2].set_ylabel("force [N]")
    axes[2].set_xlabel("t [s]")
    axes[2].legend(fontsize="small", loc="lower left")
    for ax in axes:
        ax.axvline(4.0, color="C3", lw=0.8)
    axes[0].annotate("μs 0.3 → 0.5", (4.0, axes[0].get_ylim()[1]), color="C3",
                     xytext=(4, -12), textcoords="offset points")
    fig.suptitle("LuGre sliding block (MotionSolve tutorial MV-9003):\nslides under the push, "
                 "stops once μs is raised at 4 s")
    fig.tight_layout()
    return fig


def _run_slider_end_stop(out):
    m = slider_end_stop()
    res = m.simulate(3.0, dt=1e-3, dt_out=0.01)
    imp = res.meta["impacts"]
    return m, res, {"impacts": len(imp), "energy_ratio_per_impact": [
        i["kinetic_energy_after"] / i["kinetic_energy_before"] for i in imp]}, None, None


def _run_ball_in_box(out):
    m = ball_in_box()
    res = m.simulate(2.0, dt=1e-3, dt_out=0.01)
    imp = res.meta["impacts"]
    return m, res, {"impacts": len(imp), "stops_hit": sorted({i["stop"] for i in imp})}, \
        None, _plot_ball_in_box


def _plot_ball_in_box(model, res, width=1.0, height=1.0):
    """The box's walls with the ball's path and its impact points, and the ball's height
    and horizontal position over time with the impacts marked."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(12, 5))
    ax = axes[0]
    ax.plot([0, width, width, 0, 0], [0, 0, height, height, 0], color="k", lw=3)
    ax.plot(res["ball.x"], res["ball.y"], color="C0", lw=1, label="ball path")
    impacts = res.meta["impacts"]
    for k, i in enumerate(impacts):
        j = int(np.searchsorted(res.t, i["t"]))
        ax.plot(res["ball.x"][j], res["ball.y"][j], "o", color="C3", ms=5,
                label="impacts" if k == 0 else None)
    ax.set_aspect("equal")
    ax.set_xlim(-0.1 * width, 1.1 * width)
    ax.set_ylim(-0.1 * height, 1.1 * height)
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    ax.legend(fontsize="small", loc="upper right")
    ax.set_title(f"ball in a {width:g} m × {height:g} m box")
    axes[1].plot(res.t, res["ball.y"], color="C0", label="height y")
    axes[1].plot(res.t, res["ball.x"], color="C1", label="horizontal x")
    for i in impacts:
        axes[1].axvline(i["t"], color="C3", lw=0.6, alpha=0.6)
    axes[1].set_xlabel("t [s]")
    axes[1].set_ylabel("[m]")
    axes[1].legend(fontsize="small")
    axes[1].set_title(f"{len(impacts)} impacts (red), restitution "
                      f"{impacts[0]['restitution'] if impacts else '–'}")
    fig.tight_layout()
    return fig


def _run_ball_on_paddle(out):
    m = ball_on_paddle()
    res = m.simulate(1.0, dt=1e-3, dt_out=0.01)   # the line is unbounded: stay near it
    imp = res.meta["impacts"]
    return m, res, {"impacts": len(imp), "restitution_measured": [
        -i["normal_velocity_after"] / i["normal_velocity_before"] for i in imp]}, \
        ("ball", (0.0, 0.0)), None


EXAMPLES = {
    # frictional contacts (SPEC §6; runners in _contact_examples.py)
    "clearance_slider": ("Slider–crank with a clearance slider (c = 1 mm, μ = 0.01): corner "
                         "gaps and forces, SPEC §6", lambda out: _contact_run("clearance_slider", out)),
    "incline": ("Block on an incline: sticks at 20°, slides at 35° (SPEC §6)",
                lambda out: _contact_run("incline", out)),
    "painleve_rod": ("Rod sliding on a floor: Painlevé error at μ = 2.5, run at μ = 0.3",
                     lambda out: _contact_run("painleve", out)),
    "box_on_ground": ("3-D box with point contacts, pushed: holds then slides",
                      lambda out: _contact_run("box", out)),
    "four_bar": ("Four-bar linkage driven at 1 rev/s: kinematics vs Freudenstein, inverse "
                 "dynamics (SPEC §9 8-1)", _run_four_bar),
    "slider_crank": ("Slider-crank released at 60° under gravity, 10 s forward dynamics "
                     "(the slider–crank benchmark's model)", _run_slider_crank),
    "double_pendulum": ("Double pendulum as a DAE, 5 s (SPEC §9 8-2)", _run_double_pendulum),
    "quick_return": ("Quick-return mechanism of a shaper, 6 bodies, DOF 18 − 17 = 1 "
                     "(SPEC §9 7-1)", _run_quick_return),
    "gear_slider": ("Gear–slider mechanism, 6 bodies, DOF 18 − 16 = 2 (SPEC §9 7-2)",
                    _run_gear_slider),
    "cam_follower": ("Eccentric cam lifting a spring-loaded flat-faced follower: kinematics "
                     "and contact force", _run_cam),
    "sliding_block": ("LuGre tutorial (SPEC §8): sliding block, μs raised from 0.3 to 0.5 at "
                      "4 s, 8 s in two segments", _run_sliding_block),
    "slider_end_stop": ("Slider between travel limits, impacts with restitution 0.7 "
                        "(SPEC §9 9-1)", _run_slider_end_stop),
    "ball_on_paddle": ("Ball bouncing on a driven rocking paddle, restitution 0.8, impulse "
                       "through the constraint matrix (SPEC §9 9-1)", _run_ball_on_paddle),
    "ball_in_box": ("Ball bouncing in a box, restitution 0.9, impact events (SPEC §9 9-1)",
                    _run_ball_in_box),
}


def _contact_run(which, out):
    from . import _contact_examples

    return getattr(_contact_examples, f"_run_{which}")(out)


def run_example(name: str, out, animation: bool = True) -> dict:
    """Run example `name` and write into directory `out`: ``<name>.csv`` (all channels),
    ``<name>_trajectory.png``, ``<name>.gif`` (animation) and ``<name>.json`` (key numbers).
    Returns the key numbers."""
    import json
    from pathlib import Path

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if name not in EXAMPLES:
        raise KeyError(f"unknown example {name!r}; choose one of {sorted(EXAMPLES)}.")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    model, res, summary, trace, plot = EXAMPLES[name][1](out)
    res.save(out / f"{name}.csv")
    if plot is not None:                   # an example whose story is not a trajectory
        fig = plot(model, res)
    else:
        fig, axes = plt.subplots(1, 2 if trace else 1, figsize=(11 if trace else 6, 5),
                                 squeeze=False)
        model.plot_trajectory(res, ax=axes[0, 0])
        if trace:
            model.plot_coupler_curve(res, trace[0], trace[1], ax=axes[0, 1])
        fig.tight_layout()
    fig.savefig(out / f"{name}_trajectory.png", dpi=120)
    plt.close(fig)
    if animation:                # a run shorter than 2 s is shown slowed down to 2 s (40 frames)
        span = float(res.t[-1] - res.t[0])
        model.animate(res, out / f"{name}.gif", fps=20, duration=min(5.0, max(2.0, span)),
                      trace=trace)
    summary = {"example": name, "title": EXAMPLES[name][0], **summary}
    (out / f"{name}.json").write_text(json.dumps(summary, indent=2, default=float))
    return summary
