"""Spatial examples with point contacts between free bodies and on prismatic fingers: a
sphere that slips then rolls (seed 001), a two-finger gripper holding a box by friction.
Registered in :mod:`stickslip.spatial.examples`."""

from __future__ import annotations

import math
import time

import numpy as np

from ..errors import ParameterError
from ._elements import (ContactPair, JointDriver, PrismaticJoint)
from ._examples_base import G, Example, _pad, _positive
from ._model import SpatialModel
from ._shapes import Box, Sphere

__all__ = ["sphere_on_ground", "sphere_slip_roll", "gripper", "gripper_hold_and_slip"]

# --- 1. sphere: slip → pure rolling (seed 001) ------------------------------------------------
def sphere_on_ground(*, v0=2.0, radius=0.1, mass=1.0, mu=0.3) -> SpatialModel:
    """A solid sphere (`radius` [m], `mass` [kg]) on the ground (friction μ = `mu`),
    launched along +x at `v0` [m/s] without spin. Channels ``ball.vx``, ``ball.wy``,
    ``ground-ball.fn``, ``ground-ball.ft``."""
    m = SpatialModel(gravity=(0.0, 0.0, -G))
    m.add_body("ball", mass=mass, shape=Sphere(radius), position=(0.0, 0.0, radius),
               velocity=(v0, 0.0, 0.0))
    m.add_ground(mu_s=mu, mu_k=mu)
    return m


def sphere_slip_roll(t_end=1.0, *, v0=2.0, radius=0.1, mass=1.0, mu=0.3,
                     dt=1e-3) -> Example:
    """A sphere launched sliding without spin (seed 001): kinetic friction μ m g slows it
    (v = v0 − μ g t) and spins it up (ω r = 5/2 μ g t) until ω r = v at t* = 2 v0 / (7 μ g);
    from then on it rolls without slipping at v = 5/7 v0 (friction vanishes).

    Numbers: the measured rolling speed against 5/7 v0, the slip-phase deceleration
    against μ g, the measured t* against the closed form, and the largest |v − ω r| after t*.
    """
    _positive("sphere_slip_roll", t_end=t_end, v0=v0, radius=radius, mass=mass, mu=mu, dt=dt)
    start = time.perf_counter()
    res = sphere_on_ground(v0=v0, radius=radius, mass=mass, mu=mu).simulate(
        t_end, dt=dt, dt_out=0.01)
    wall = time.perf_counter() - start
    t, v, wr = res.t, res["ball.vx"], res["ball.wy"] * radius
    t_roll = 2 * v0 / (7 * mu * G)
    slip = v - wr
    sliding = t < 0.8 * t_roll
    decel = -np.polyfit(t[sliding], v[sliding], 1)[0] if sliding.sum() > 2 else float("nan")
    rolling = np.abs(slip) < 1e-6 * v0
    t_roll_measured = float(t[np.argmax(rolling)]) if rolling.any() else float("nan")
    after = t > t_roll + 0.02
    numbers = {
        "wall_time_s": wall,
        "v0_m_s": v0,
        "final_speed_m_s": float(v[-1]),
        "five_sevenths_v0_m_s": 5 / 7 * v0,
        "final_speed_rel_error": float(v[-1] / (5 / 7 * v0) - 1),
        "slip_deceleration_m_s2": float(decel),
        "mu_g_m_s2": mu * G,
        "rolling_from_s": t_roll_measured,      # first sample with |v − ωr| < 1e-6 v0
        "rolling_from_closed_form_s": t_roll,
        "max_slip_after_roll_m_s": float(np.abs(slip[after]).max()) if after.any() else None,
    }
    table = {"t_s": t, "v_m_s": v, "omega_r_m_s": wr, "fn_N": res["ground-ball.fn"],
             "ft_N": res["ground-ball.ft"],
             "v_closed_form_m_s": np.where(t < t_roll, v0 - mu * G * t, 5 / 7 * v0),
             "omega_r_closed_form_m_s": np.where(t < t_roll, 2.5 * mu * G * t, 5 / 7 * v0)}
    return Example("sphere_slip_roll", {"sphere": res}, numbers, table, _plot_sphere)


def _plot_sphere(ex):
    import matplotlib.pyplot as plt

    d, n = ex.table, ex.numbers
    fig, axes = plt.subplots(2, 1, figsize=(7.5, 6.5), sharex=True,
                             gridspec_kw={"height_ratios": [2, 1]})
    ax = axes[0]
    ax.plot(d["t_s"], d["v_m_s"], color="C0", lw=2, label="v (centre speed)")
    ax.plot(d["t_s"], d["omega_r_m_s"], color="C1", lw=2, label="ω r")
    ax.plot(d["t_s"], d["v_closed_form_m_s"], "k:", lw=1, label="closed form")
    ax.plot(d["t_s"], d["omega_r_closed_form_m_s"], "k:", lw=1)
    ax.axhline(n["five_sevenths_v0_m_s"], color="C3", ls="--", lw=1,
               label=f"5/7 v0 = {n['five_sevenths_v0_m_s']:.4f} m/s")
    ax.axvline(n["rolling_from_closed_form_s"], color="0.5", lw=0.8)
    ax.annotate("t* = 2 v0 / (7 μ g)", (n["rolling_from_closed_form_s"], 0.1),
                xytext=(5, 0), textcoords="offset points", color="0.3")
    ax.set_ylabel("[m/s]")
    ax.legend(fontsize="small", loc="center right")
    ax.set_title(f"sphere launched sliding at v0 = {n['v0_m_s']:g} m/s: slips, then rolls\nat "
                 f"{n['final_speed_m_s']:.6f} m/s = 5/7 v0 (rel. error "
                 f"{n['final_speed_rel_error']:.1e})", fontsize="medium")
    axes[1].plot(d["t_s"], d["ft_N"], color="C2", label="friction |f_t|")
    axes[1].plot(d["t_s"], d["fn_N"], color="0.4", ls="--", label="normal f_n")
    axes[1].set_ylabel("[N]")
    axes[1].set_xlabel("t [s]")
    axes[1].legend(fontsize="small", loc="center right")
    fig.tight_layout()
    return fig


# --- 2. gripper: held by friction, or sliding when the grip is too weak ---------------------
def gripper(grip, *, box_mass=0.5, box=(0.1, 0.1, 0.3), mu=0.5, finger_mass=0.2,
            finger=(0.02, 0.06, 0.06)) -> SpatialModel:
    """Two finger plates on prismatic joints along x (``left.slide``, ``right.slide``), each
    pressed against a box (no ground) by an effort driver of `grip` [N]; gravity −z. The
    fingers' vertices touch the box's side faces (``vertices_of="b"``: 8 contacts a
    finger, 4 of them on the face). The box hangs by friction alone: held while
    2 μ G ≥ m g, else it slides down at a = g − 2 μ G / m.

    box: (lx, ly, lz) [m] of the held box (tall, so that it can slide a visible distance
    before it leaves the fingers); finger: the plates' size [m]."""
    m = SpatialModel(gravity=(0.0, 0.0, -G))
    m.add_body("box", mass=box_mass, shape=Box(*box), position=(0.0, 0.0, 0.0))
    x = 0.5 * (box[0] + finger[0])
    for side, sx in (("left", -x), ("right", x)):
        m.add_body(side, mass=finger_mass, shape=Box(*finger), position=(sx, 0.0, 0.0))
        m.add(PrismaticJoint("ground", side, point=(sx, 0.0, 0.0), axis=(1.0, 0.0, 0.0),
                             name=f"{side}.slide"))
        m.add(JointDriver(f"{side}.slide", effort=grip if side == "left" else -grip))
        m.add(ContactPair("box", side, mu=mu, vertices_of="b"))
    return m


def gripper_hold_and_slip(t_end=1.0, *, grip=10.0, reduced=4.5, box_mass=0.5, mu=0.5,
                          box=(0.1, 0.1, 0.3), finger=(0.02, 0.06, 0.06), dt=1e-3) -> Example:
    """The gripper of :func:`gripper` run twice from rest: with `grip` [N] (2 μ G > m g: the
    box must not creep) and with the grip `reduced` [N] below m g / (2 μ) (it slides down at
    a = g − 2 μ G / m). The reduced run stops before the box has slid half the difference
    of the box's and the fingers' heights (or at `t_end`), while the fingers still face it.

    Numbers: the held box's largest |z| (drift) [m], the sliding box's fitted acceleration
    against the closed form, and each run's summed finger normal force against G.
    """
    _positive("gripper", t_end=t_end, grip=grip, reduced=reduced, box_mass=box_mass, mu=mu,
              dt=dt)
    threshold = box_mass * G / (2 * mu)
    if grip <= threshold or reduced >= threshold:
        raise ParameterError(f"`gripper.grip` must be > m g/(2 μ) = {threshold:.4g} N and "
                             f"`reduced` below it; got grip={grip!r}, reduced={reduced!r}.")
    accel = G - 2 * mu * reduced / box_mass
    travel = 0.25 * (box[2] - finger[2])            # half of what the faces overlap by
    t_slide = min(t_end, math.floor(math.sqrt(2 * travel / accel) / 0.01) * 0.01)
    start = time.perf_counter()
    held = gripper(grip, box_mass=box_mass, box=box, mu=mu, finger=finger).simulate(
        t_end, dt=dt, dt_out=0.01)
    wall_held = time.perf_counter() - start
    start = time.perf_counter()
    slid = gripper(reduced, box_mass=box_mass, box=box, mu=mu, finger=finger).simulate(
        t_slide, dt=dt, dt_out=0.01)
    wall_slid = time.perf_counter() - start

    def normal(res, side):
        return np.asarray(sum(res[f"box-{side}.{k}.fn"] for k in range(1, 9)))

    moving = slid.t > 0.02
    fit = np.polyfit(slid.t[moving], slid["box.vz"][moving], 1)[0]
    numbers = {
        "wall_time_held_s": wall_held,
        "wall_time_reduced_s": wall_slid,
        "grip_threshold_N": threshold,
        "grip_held_N": grip,
        "grip_reduced_N": reduced,
        "held_max_drift_m": float(np.abs(held["box.z"] - held["box.z"][0]).max()),
        "held_final_speed_m_s": float(abs(held["box.vz"][-1])),
        "held_normal_left_N": float(normal(held, "left")[-1]),
        "reduced_acceleration_m_s2": float(-fit),
        "reduced_acceleration_closed_form_m_s2": accel,
        "reduced_acceleration_rel_error": float(-fit / accel - 1),
        "reduced_slid_m": float(-slid["box.z"][-1]),
        "reduced_normal_left_N": float(normal(slid, "left")[-1]),
    }
    n = len(held.t)
    table = {"t_s": held.t, "held_box_z_m": held["box.z"],
             "reduced_box_z_m": _pad(slid["box.z"], n),
             "reduced_closed_form_z_m": _pad(-0.5 * accel * slid.t ** 2, n),
             "held_normal_left_N": normal(held, "left"),
             "reduced_normal_left_N": _pad(normal(slid, "left"), n)}
    return Example("gripper", {"held": held, "reduced": slid}, numbers, table, _plot_gripper)


def _plot_gripper(ex):
    import matplotlib.pyplot as plt

    d, n = ex.table, ex.numbers
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.8))
    ax = axes[0]
    ax.plot(d["t_s"], d["reduced_box_z_m"] * 1e3, color="C3", lw=2,
            label=f"grip {n['grip_reduced_N']:g} N < m g/(2μ) = "
                  f"{n['grip_threshold_N']:.3f} N: slides at "
                  f"{n['reduced_acceleration_m_s2']:.3f} m/s²")
    ax.plot(d["t_s"], d["reduced_closed_form_z_m"] * 1e3, "k:",
            label=f"−a t²/2, a = g − 2μG/m = {n['reduced_acceleration_closed_form_m_s2']:.3f}"
                  " m/s²")
    ax.plot(d["t_s"], d["held_box_z_m"] * 1e3, color="C0", lw=2,
            label=f"grip {n['grip_held_N']:g} N: held")
    ax.set_xlabel("t [s]")
    ax.set_ylabel("box height z [mm]")
    ax.legend(fontsize="small", loc="lower left")
    ax.set_title("box held between two fingers by friction alone", fontsize="medium")
    ax = axes[1]
    ax.plot(d["t_s"], d["held_box_z_m"], color="C0")
    ax.set_xlabel("t [s]")
    ax.set_ylabel("held box z [m]")
    ax.set_title(f"held (grip {n['grip_held_N']:g} N): largest drift "
                 f"{n['held_max_drift_m']:.1e} m", fontsize="medium")
    fig.tight_layout()
    return fig


