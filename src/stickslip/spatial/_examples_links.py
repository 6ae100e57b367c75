"""Spatial examples of jointed link systems: a 3-D four-bar with joint friction, and a
2-link arm on position-driven hinges pushing a box (seed 002's setting). Registered in
:mod:`stickslip.spatial.examples`."""

from __future__ import annotations

import math
import time
from typing import TypedDict

import numpy as np

from ._elements import (ContactPair, FixedJoint, JointDriver, RevoluteJoint)
from ._examples_base import G, Example, _positive
from ._model import SpatialModel
from ._shapes import Box, Sphere

__all__ = ["four_bar", "four_bar_points", "four_bar_friction", "arm_and_box",
           "arm_pushes_box", "FOUR_BAR", "ARM", "PUSH"]

# --- 3. four-bar with joint friction -----------------------------------------------------------
FOUR_BAR = (0.3, 1.0, 0.8, 1.1)          # crank, coupler, rocker, ground link [m]


def _rod(m, name, start, end, mass):
    """A slender rod body from `start` to `end` (x–y plane), no contact shape."""
    start, end = np.asarray(start, float), np.asarray(end, float)
    length = float(np.linalg.norm(end - start))
    angle = math.atan2(end[1] - start[1], end[0] - start[0])
    transverse = mass * length ** 2 / 12
    m.add_body(name, mass=mass, inertia=(1e-4 * transverse, transverse, transverse),
               shape=None, position=(start + end) / 2,
               orientation=(math.cos(angle / 2), 0.0, 0.0, math.sin(angle / 2)))


def four_bar_points(theta2, links=FOUR_BAR):
    """Crank tip B, rocker tip C (upper branch: the intersection of |C − B| = coupler and
    |C − D| = rocker) and rocker pivot D [m] at crank angle `theta2` [rad]."""
    a, b, c, d = links
    pb = np.array([a * math.cos(theta2), a * math.sin(theta2), 0.0])
    pd = np.array([d, 0.0, 0.0])
    dist = float(np.linalg.norm(pd - pb))
    along = (b ** 2 - c ** 2 + dist ** 2) / (2 * dist)
    e = (pd - pb) / dist
    return pb, pb + along * e + math.sqrt(b ** 2 - along ** 2) * np.array([-e[1], e[0], 0.0]), pd


def four_bar(theta2=1.0, *, friction=None, pin_radius=0.0, links=FOUR_BAR,
             masses=(1.0, 2.0, 1.5)) -> SpatialModel:
    """A four-bar of rods in the vertical x–y plane (gravity −y) built from four 3-D hinges
    about z (``A`` crank pivot at the origin, ``B``, ``C``, ``D`` rocker pivot): 20 joint
    rows on 18 coordinates, 3 of them redundant (removed when the model freezes), 1 DOF.
    `friction` (a friction law) with `pin_radius` [m] goes on joint ``A``."""
    m = SpatialModel(gravity=(0.0, -G, 0.0))
    pb, pc, pd = four_bar_points(theta2, links)
    _rod(m, "crank", (0, 0, 0), pb, masses[0])
    _rod(m, "coupler", pb, pc, masses[1])
    _rod(m, "rocker", pd, pc, masses[2])
    z = (0.0, 0.0, 1.0)
    pin = {} if friction is None else {"friction": friction, "pin_radius": pin_radius}
    m.add(RevoluteJoint("ground", "crank", point=(0, 0, 0), axis=z, name="A", **pin))
    m.add(RevoluteJoint("crank", "coupler", point=pb, axis=z, name="B"))
    m.add(RevoluteJoint("coupler", "rocker", point=pc, axis=z, name="C"))
    m.add(RevoluteJoint("ground", "rocker", point=pd, axis=z, name="D"))
    return m


def four_bar_friction(t_end=3.0, *, mu=0.5, pin_radius=0.1, K=1e4, beta=2e-3,
                      theta2=1.0, dt=1e-3) -> Example:
    """The four-bar of :func:`four_bar` released from rest under gravity with Coulomb
    friction on the crank pivot A: ``CoulombODE(mu, K, beta)``, level μ·a·N (a = `pin_radius`
    [m], N the pin's radial load, SPEC §9 9-2 in 3-D). K [N·m/rad] and β [s] are the proxy's
    stiffness and time constant (β = 2 ms keeps the stick mode near critical damping on the
    crank's small effective inertia, so RK4 is stable at dt = 1 ms). It swings, loses energy
    in the pin and sticks short of the gravity equilibrium, the friction holding the rest.

    Numbers: max(|friction| − μ·normal) (must be ≤ 0), the largest relative deviation of
    |friction| from μ·normal while the pin slips, when it sticks, the crank's drift after
    that (from 0.2 s after it sticks), the held fraction of the level, and the largest
    energy increase between samples (the proxy's own spring energy is not in ``energy``).
    """
    from ..laws import CoulombODE

    _positive("four_bar_friction", t_end=t_end, mu=mu, pin_radius=pin_radius, K=K, beta=beta,
              dt=dt)
    law = CoulombODE(mu=mu, K=K, beta=beta)
    start = time.perf_counter()
    res = four_bar(theta2, friction=law, pin_radius=pin_radius).simulate(
        t_end, dt=dt, dt_out=0.01)
    wall = time.perf_counter() - start
    t, f, level, rate = res.t, res["A.friction"], mu * res["A.normal"], res["A.rate"]
    slipping = np.abs(res["A.slip"]) > 1e-3
    still = np.abs(rate) < 1e-9
    moving_idx = np.flatnonzero(~still)
    stuck_at = float(t[moving_idx[-1] + 1]) if moving_idx.size and moving_idx[-1] + 1 < len(t) \
        else None
    # drift once the proxy has settled (0.2 s after the last motion)
    after = t >= stuck_at + 0.2 if stuck_at is not None else np.zeros_like(t, bool)
    numbers = {
        "wall_time_s": wall,
        "max_friction_above_level_N_m": float(np.max(np.abs(f) - level)),
        "max_slip_deviation_from_level_rel": float(np.max(np.abs(np.abs(f[slipping])
                                                                 / level[slipping] - 1)))
        if slipping.any() else None,
        "friction_opposes_slip": bool(np.all(f[slipping] * res["A.slip"][slipping] >= 0)
                                      or np.all(f[slipping] * res["A.slip"][slipping] <= 0)),
        "sticks_from_s": stuck_at,
        "stuck_crank_drift_rad": float(np.ptp(res["A.angle"][after])) if after.any() else None,
        "stuck_friction_over_level": float(abs(f[-1]) / level[-1]),
        "stuck_crank_angle_rad": float(res["A.angle"][-1]),
        "energy_lost_J": float(res["energy"][0] - res["energy"][-1]),
        "max_energy_increase_J": float(np.max(np.diff(res["energy"]))),
    }
    table = {"t_s": t, "crank_angle_rad": res["A.angle"], "rocker_angle_rad": res["D.angle"],
             "crank_rate_rad_s": rate, "friction_N_m": f, "level_mu_a_N_N_m": level,
             "energy_J": res["energy"]}
    return Example("four_bar_friction", {"four_bar": res}, numbers, table, _plot_four_bar)


def _plot_four_bar(ex):
    import matplotlib.pyplot as plt

    d, n = ex.table, ex.numbers
    fig, axes = plt.subplots(3, 1, figsize=(8, 8), sharex=True)
    axes[0].plot(d["t_s"], d["crank_angle_rad"], label="crank (joint A)")
    axes[0].plot(d["t_s"], d["rocker_angle_rad"], label="rocker (joint D)")
    axes[0].set_ylabel("angle from release [rad]")
    axes[0].legend(fontsize="small")
    axes[1].plot(d["t_s"], d["friction_N_m"], "k", label="friction torque at A")
    axes[1].plot(d["t_s"], d["level_mu_a_N_N_m"], color="C3", ls="--", lw=1,
                 label="± μ·a·N (level)")
    axes[1].plot(d["t_s"], -d["level_mu_a_N_N_m"], color="C3", ls="--", lw=1)
    axes[1].set_ylabel("[N·m]")
    axes[1].legend(fontsize="small", loc="lower right")
    if n["sticks_from_s"] is not None:
        for ax in axes:
            ax.axvline(n["sticks_from_s"], color="0.5", lw=0.8)
        axes[1].set_title(f"sticks at {n['sticks_from_s']:.2f} s holding "
                          f"{n['stuck_friction_over_level']:.0%} of the level; drift after: "
                          f"{n['stuck_crank_drift_rad']:.1e} rad", fontsize="medium")
    axes[2].plot(d["t_s"], d["energy_J"], color="C2")
    axes[2].set_ylabel("energy [J]")
    axes[2].set_xlabel("t [s]")
    axes[0].set_title("3-D four-bar released under gravity, Coulomb friction in the crank pin",
                      fontsize="medium")
    fig.tight_layout()
    return fig


# --- 4. a 2-link arm pushes a box (seed 002's setting) -----------------------------------------
def _tip_path(t, *, x0, speed, ramp, push_until, stop, xp=np):
    """Fingertip x [m] (smooth; `xp` the array module: ``jax.numpy`` inside a traced run,
    NumPy at build and for the figure, where each jax.numpy call would compile a program of
    its own): speeds up over `ramp` [s] as (1 − cos)/2, moves at `speed` [m/s] until
    `push_until` [s], stops over `stop` [s] as (1 + cos)/2."""
    jnp = xp

    def up(s):                       # ∫ (1 − cos(π s/T))/2 ds
        return speed * (s / 2 - ramp / (2 * jnp.pi) * jnp.sin(jnp.pi * s / ramp))

    def down(s):                     # ∫ (1 + cos(π s/T))/2 ds
        return speed * (s / 2 + stop / (2 * jnp.pi) * jnp.sin(jnp.pi * s / stop))
    tr = jnp.clip(t, 0.0, ramp)
    tc = jnp.clip(t, ramp, push_until) - ramp
    td = jnp.clip(t, push_until, push_until + stop) - push_until
    return x0 + up(tr) + speed * tc + down(td)


def _arm_angles(x, z, l1, l2, xp=np):
    """Shoulder and elbow angles [rad] (about −y: from +x towards +z; elbow up) that put the
    tip of a 2-link arm with its shoulder at the origin at (x, z) [m] (`xp` as in
    :func:`_tip_path`)."""
    jnp = xp

    c2 = (x ** 2 + z ** 2 - l1 ** 2 - l2 ** 2) / (2 * l1 * l2)
    q2 = -jnp.arccos(jnp.clip(c2, -1.0, 1.0))
    q1 = jnp.arctan2(z, x) - jnp.arctan2(l2 * jnp.sin(q2), l1 + l2 * jnp.cos(q2))
    return q1, q2


ARM = {"shoulder": (0.0, 0.0, 0.3), "links": (0.35, 0.35), "masses": (1.0, 0.8),
       "tip_radius": 0.02, "tip_mass": 0.05}
class PushPath(TypedDict):
    """The fingertip path of :func:`arm_and_box`: speed [m/s], ramp, push_until, stop [s]."""

    speed: float
    ramp: float
    push_until: float
    stop: float


PUSH: PushPath = {"speed": 0.2, "ramp": 0.2, "push_until": 0.8, "stop": 0.05}


def arm_and_box(*, box_mass=1.0, box_size=0.1, box_x=0.5, mu_ground=0.3, mu_tip=0.2,
                push=PUSH, floor=True) -> SpatialModel:
    """Seed 002's setting: a 2-link arm on revolute joints (``shoulder`` on a post, axis
    −y, and ``elbow``; rods without shape) with a sphere fingertip (``tip``, welded to the
    forearm's end) pushes a box (`box_size` [m] cube, `box_mass` [kg]) along x over a floor
    (μ = `mu_ground`, the box's 8 corners: contacts ``ground-box.1`` … ``.8``). The tip
    touches the box's face at mid-height at t = 0 (``ContactPair("box", "tip",
    mu=mu_tip)``, channels ``push.*``) and is moved by position drivers on both joints (the
    arm's inverse kinematics of the path of `push`: speed [m/s], ramp [s], push_until [s],
    stop [s]); the arm has no DOF left, its joints supply whatever force the box needs.

    floor: True (default) makes the floor a box body welded to the world with an explicit
    ``ContactPair``; False uses ``add_ground`` (automatic ground contacts, which then include
    the fingertip's, a contact between two bodies the drivers hold: its λ is 0 while it
    stays apart). Both give the same push.
    """

    l1, l2 = ARM["links"]
    sx, _, sz = ARM["shoulder"]
    r = ARM["tip_radius"]
    tip_z = 0.5 * box_size
    x0 = box_x - 0.5 * box_size - r
    q10, q20 = (float(v) for v in _arm_angles(x0 - sx, tip_z - sz, l1, l2))

    def angles(t):
        import jax.numpy as jnp

        return _arm_angles(_tip_path(t, x0=x0, xp=jnp, **push) - sx, tip_z - sz, l1, l2,
                           xp=jnp)

    m = SpatialModel(gravity=(0.0, 0.0, -G))
    m.add_body("box", mass=box_mass, shape=Box(box_size, box_size, box_size),
               position=(box_x, 0.0, 0.5 * box_size))
    if floor:
        m.add_body("floor", mass=100.0, shape=Box(1.0, 0.5, 0.1), position=(box_x, 0.0, -0.05))
        m.add(FixedJoint("ground", "floor", name="floor.weld"))
        m.add(ContactPair("floor", "box", mu=mu_ground, vertices_of="b", name="ground-box"))
    else:
        m.add_ground(mu_s=mu_ground, mu_k=mu_ground)
    shoulder = np.array([sx, 0.0, sz])
    elbow = shoulder + l1 * np.array([math.cos(q10), 0.0, math.sin(q10)])
    tip = elbow + l2 * np.array([math.cos(q10 + q20), 0.0, math.sin(q10 + q20)])
    for name, a, b, mass, phi in (("upper", shoulder, elbow, ARM["masses"][0], q10),
                                  ("fore", elbow, tip, ARM["masses"][1], q10 + q20)):
        transverse = mass * float(np.linalg.norm(b - a)) ** 2 / 12
        m.add_body(name, mass=mass, inertia=(1e-4 * transverse, transverse, transverse),
                   shape=None, position=(a + b) / 2,        # rod along body x, tilted in x–z
                   orientation=(math.cos(phi / 2), 0.0, -math.sin(phi / 2), 0.0))
    m.add_body("tip", mass=ARM["tip_mass"], shape=Sphere(r), position=tip)
    axis = (0.0, -1.0, 0.0)
    m.add(RevoluteJoint("ground", "upper", point=shoulder, axis=axis, name="shoulder"))
    m.add(RevoluteJoint("upper", "fore", point=elbow, axis=axis, name="elbow"))
    m.add(FixedJoint("fore", "tip", name="wrist"))
    m.add(JointDriver("shoulder", position=lambda t: angles(t)[0] - q10))
    m.add(JointDriver("elbow", position=lambda t: angles(t)[1] - q20))
    m.add(ContactPair("box", "tip", mu=mu_tip, name="push"))
    return m


def arm_pushes_box(t_end=1.2, *, box_mass=1.0, mu_ground=0.3, mu_tip=0.2, dt=1e-3,
                   method="moreau_jean") -> Example:
    """The arm of :func:`arm_and_box` pushes the box: while the tip moves at constant speed
    the push (the contact's normal force) equals the floor's kinetic friction μ N (N = m g
    less the tip's vertical friction, which rigid contact leaves undetermined); when
    the tip stops faster than μ g can stop the box, the box leaves the tip and slides on
    alone for v²/(2 μ g), v its speed when the contact opens.

    Numbers: the push at constant speed against μ N and m g against N + |f_t|, the box's
    speed when the
    contact opens and the distance it slides alone against v²/(2 μ g).

    method: ``"moreau_jean"`` (default: one impulse problem a step; the box then stops
    exactly, v = 0 to 1e-18 m/s; 4× faster than ``"rk4"``, 0.18 against 0.74 s for the
    1.2 s run on 2026-11-26) or any method of ``simulate``. Measured at the defaults: push
    = μ N to 2e-7 relative on Moreau–Jean, 5e-10 on ``"rk4"`` (the ODE route); the slid
    distance equals v²/(2 μ g) to 5e-5 relative on both.
    """
    _positive("arm_pushes_box", t_end=t_end, box_mass=box_mass, mu_ground=mu_ground, dt=dt)
    start = time.perf_counter()
    model = arm_and_box(box_mass=box_mass, mu_ground=mu_ground, mu_tip=mu_tip)
    res = model.simulate(t_end, dt=dt, dt_out=0.005, method=method)
    wall = time.perf_counter() - start
    t, x, vx, fn = res.t, res["box.x"], res["box.vx"], res["push.fn"]
    ground_fn = np.asarray(sum(res[f"ground-box.{k}.fn"] for k in range(1, 9)))
    steady = (t > PUSH["ramp"] + 0.1) & (t < PUSH["push_until"])
    level = mu_ground * box_mass * G
    numbers = {"wall_time_s": wall, "box_travel_m": float(x[-1] - x[0]), "mu_ground": mu_ground,
               "friction_level_mu_m_g_N": level}
    if steady.any():
        # horizontal balance at constant speed: push = μ N_ground, N_ground = m g − (the
        # tip's vertical friction, which rigid contact leaves undetermined)
        numbers.update({
            "push_at_constant_speed_N": float(fn[steady].mean()),
            "push_over_mu_ground_normal_max_rel_error": float(np.abs(
                fn[steady] / (mu_ground * ground_fn[steady]) - 1).max()),
            "vertical_balance_max_error_N": float(np.abs(
                ground_fn[steady] + res["push.ft"][steady] - box_mass * G).max()),
            "box_speed_at_constant_speed_m_s": float(vx[steady].mean())})
    released = np.flatnonzero((t > PUSH["push_until"]) & (fn < 1e-9))
    if released.size and t[-1] > PUSH["push_until"] + PUSH["stop"] + 0.2:
        k = released[0]
        numbers.update({
            "contact_opens_at_s": float(t[k]),
            "box_speed_when_released_m_s": float(vx[k]),
            "slides_alone_m": float(x[-1] - x[k]),
            "slides_alone_closed_form_m": float(vx[k] ** 2 / (2 * mu_ground * G)),
            "box_final_speed_m_s": float(vx[-1])})
    tip_x = np.asarray(_tip_path(t, x0=float(res["tip.x"][0]), **PUSH))
    table = {"t_s": t, "box_x_m": x, "box_vx_m_s": vx, "tip_x_m": res["tip.x"],
             "tip_path_x_m": tip_x, "push_fn_N": fn, "push_ft_N": res["push.ft"],
             "ground_fn_N": ground_fn}
    return Example("arm_pushes_box", {"arm": res}, numbers, table, _plot_arm)


def _plot_arm(ex):
    import matplotlib.pyplot as plt

    d, n = ex.table, ex.numbers
    fig, axes = plt.subplots(2, 1, figsize=(8, 6.5), sharex=True)
    axes[0].plot(d["t_s"], (d["box_x_m"] - d["box_x_m"][0]) * 1e3, lw=2,
                 label="box x (from start)")
    axes[0].plot(d["t_s"], (d["tip_x_m"] - d["tip_x_m"][0]) * 1e3, "--",
                 label="fingertip x (from start)")
    axes[0].set_ylabel("[mm]")
    axes[0].legend(fontsize="small", loc="upper left")
    title = "2-link arm (position drivers) pushes a 1 kg box on the ground"
    if "slides_alone_m" in n:
        title += (f"\nafter release the box slides {n['slides_alone_m'] * 1e3:.2f} mm alone "
                  f"(v²/(2μg) = {n['slides_alone_closed_form_m'] * 1e3:.2f} mm)")
    axes[0].set_title(title, fontsize="medium")
    axes[1].plot(d["t_s"], d["push_fn_N"], "k", label="tip–box normal force")
    axes[1].plot(d["t_s"], d["push_ft_N"], color="C2", lw=1, label="tip–box friction |f_t|")
    axes[1].plot(d["t_s"], n["mu_ground"] * d["ground_fn_N"], color="C3", ls="--", lw=1,
                 label="μ × ground normal force")
    axes[1].set_ylabel("[N]")
    axes[1].set_xlabel("t [s]")
    axes[1].legend(fontsize="small", loc="upper right")
    fig.tight_layout()
    return fig


