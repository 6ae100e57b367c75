"""Ready-made spatial link systems with figures — run by
``stickslip examples run NAME``, used by the tests and docs/spatial.md.

Each example is a function ``name(t_end=..., ...) -> Example``: it builds its model(s) with
the builders below (``sphere_on_ground``, ``gripper``, ``four_bar``, ``arm_and_box``), runs
them, and measures the physics its figure shows against a closed form. ``Example.save(out)``
writes ``<name>.png`` (the figure), ``<name>.csv`` (the figure's data, one column per curve)
and ``<name>.json`` (the key numbers); :func:`run_example` does that for a registered name.

>>> from stickslip.spatial.examples import EXAMPLES
>>> sorted(EXAMPLES)
['arm_pushes_box', 'four_bar_friction', 'gripper', 'sphere_slip_roll']

Point contacts are solved as a λ-problem per step (SPEC §6), so the contact examples stay
small: a few contacts, dt = 1 ms, a second or so.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from ..errors import ParameterError
from ._elements import (ContactPair, FixedJoint, JointDriver, PrismaticJoint, RevoluteJoint)
from ._model import SpatialModel
from ._shapes import Box, Sphere

__all__ = ["Example", "EXAMPLES", "run_example", "sphere_on_ground", "gripper", "four_bar",
           "arm_and_box", "sphere_slip_roll", "gripper_hold_and_slip", "four_bar_friction",
           "arm_pushes_box"]

G = 9.81                                   # gravity [m/s²] of every example


@dataclass
class Example:
    """One example's runs, key numbers and figure.

    name: the registered name. runs: label → :class:`~stickslip.results.Results`.
    numbers: the key numbers (measured values, their closed forms, wall time [s]).
    table: the figure's data, column → 1-D array (equal lengths; NaN pads a shorter run).
    plot: ``plot(example) -> matplotlib Figure``.
    """

    name: str
    runs: dict
    numbers: dict
    table: dict
    plot: Callable = field(repr=False)

    def figure(self):
        """The figure (matplotlib is imported here, not at module import)."""
        return self.plot(self)

    def save(self, out) -> list[Path]:
        """Write ``<name>.png``, ``<name>.csv`` and ``<name>.json`` into directory `out`
        (created if missing); returns the paths."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import pandas as pd

        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        fig = self.figure()
        png = out / f"{self.name}.png"
        fig.savefig(png, dpi=120)
        plt.close(fig)
        csv = out / f"{self.name}.csv"
        pd.DataFrame(self.table).to_csv(csv, index=False, na_rep="nan")
        js = out / f"{self.name}.json"
        js.write_text(json.dumps({"example": self.name, **self.numbers}, indent=2,
                                 default=float))
        return [png, csv, js]


def _positive(owner, **values):
    for key, value in values.items():
        if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
            raise ParameterError(f"`{owner}.{key}` must be a finite number > 0; got "
                                 f"{key}={value!r}.")


def _pad(values, n):
    """`values` as a float array of length `n`, NaN-padded."""
    out = np.full(n, np.nan)
    out[:len(values)] = values
    return out


# --- 1. sphere: slip → pure rolling (seed 001) ------------------------------------------------
def sphere_on_ground(*, v0=2.0, radius=0.1, mass=1.0, mu=0.3) -> SpatialModel:
    """A solid sphere (`radius` [m], `mass` [kg]) on the ground (friction μ = `mu`),
    launched along +x at `v0` [m/s] without spin. Channels ``ball.vx``, ``ball.wy``,
    ``ground-ball.fn``, ``ground-ball.ft``."""
    m = SpatialModel(gravity=(0.0, 0.0, -G))
    m.add_body("ball", mass=mass, shape=Sphere(radius), position=(0.0, 0.0, radius),
               velocity=(v0, 0.0, 0.0))
    m.add_ground(mu_s=mu, mu_d=mu)
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
        return sum(res[f"box-{side}.{k}.fn"] for k in range(1, 9))

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
def _tip_path(t, *, x0, speed, ramp, push_until, stop):
    """Fingertip x [m] (jax.numpy, smooth): speeds up over `ramp` [s] as (1 − cos)/2,
    moves at `speed` [m/s] until `push_until` [s], stops over `stop` [s] as (1 + cos)/2."""
    import jax.numpy as jnp

    def up(s):                       # ∫ (1 − cos(π s/T))/2 ds
        return speed * (s / 2 - ramp / (2 * jnp.pi) * jnp.sin(jnp.pi * s / ramp))

    def down(s):                     # ∫ (1 + cos(π s/T))/2 ds
        return speed * (s / 2 + stop / (2 * jnp.pi) * jnp.sin(jnp.pi * s / stop))
    tr = jnp.clip(t, 0.0, ramp)
    tc = jnp.clip(t, ramp, push_until) - ramp
    td = jnp.clip(t, push_until, push_until + stop) - push_until
    return x0 + up(tr) + speed * tc + down(td)


def _arm_angles(x, z, l1, l2):
    """Shoulder and elbow angles [rad] (about −y: from +x towards +z; elbow up) that put the
    tip of a 2-link arm with its shoulder at the origin at (x, z) [m] (jax.numpy)."""
    import jax.numpy as jnp

    c2 = (x ** 2 + z ** 2 - l1 ** 2 - l2 ** 2) / (2 * l1 * l2)
    q2 = -jnp.arccos(jnp.clip(c2, -1.0, 1.0))
    q1 = jnp.arctan2(z, x) - jnp.arctan2(l2 * jnp.sin(q2), l1 + l2 * jnp.cos(q2))
    return q1, q2


ARM = {"shoulder": (0.0, 0.0, 0.3), "links": (0.35, 0.35), "masses": (1.0, 0.8),
       "tip_radius": 0.02, "tip_mass": 0.05}
PUSH = {"speed": 0.2, "ramp": 0.2, "push_until": 0.8, "stop": 0.05}


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
        return _arm_angles(_tip_path(t, x0=x0, **push) - sx, tip_z - sz, l1, l2)

    m = SpatialModel(gravity=(0.0, 0.0, -G))
    m.add_body("box", mass=box_mass, shape=Box(box_size, box_size, box_size),
               position=(box_x, 0.0, 0.5 * box_size))
    if floor:
        m.add_body("floor", mass=100.0, shape=Box(1.0, 0.5, 0.1), position=(box_x, 0.0, -0.05))
        m.add(FixedJoint("ground", "floor", name="floor.weld"))
        m.add(ContactPair("floor", "box", mu=mu_ground, vertices_of="b", name="ground-box"))
    else:
        m.add_ground(mu_s=mu_ground, mu_d=mu_ground)
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


def arm_pushes_box(t_end=1.2, *, box_mass=1.0, mu_ground=0.3, mu_tip=0.2, dt=1e-3
                   ) -> Example:
    """The arm of :func:`arm_and_box` pushes the box: while the tip moves at constant speed
    the push (the contact's normal force) equals the floor's kinetic friction μ N (N = m g
    less the tip's vertical friction, which rigid contact leaves undetermined); when
    the tip stops faster than μ g can stop the box, the box leaves the tip and slides on
    alone for v²/(2 μ g), v its speed when the contact opens.

    Numbers: the push at constant speed against μ N and m g against N + |f_t|, the box's
    speed when the
    contact opens and the distance it slides alone against v²/(2 μ g).
    """
    _positive("arm_pushes_box", t_end=t_end, box_mass=box_mass, mu_ground=mu_ground, dt=dt)
    start = time.perf_counter()
    model = arm_and_box(box_mass=box_mass, mu_ground=mu_ground, mu_tip=mu_tip)
    res = model.simulate(t_end, dt=dt, dt_out=0.005)
    wall = time.perf_counter() - start
    t, x, vx, fn = res.t, res["box.x"], res["box.vx"], res["push.fn"]
    ground_fn = sum(res[f"ground-box.{k}.fn"] for k in range(1, 9))
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


# --- registry -----------------------------------------------------------------------------------
EXAMPLES = {
    "sphere_slip_roll": ("Sphere launched sliding without spin: slips, then rolls at 5/7 v0 "
                         "(seed 001)", sphere_slip_roll),
    "gripper": ("Two fingers on prismatic joints hold a box by friction; a weaker grip lets "
                "it slide at g − 2μG/m", gripper_hold_and_slip),
    "four_bar_friction": ("3-D four-bar released under gravity, Coulomb friction μ·a·N in the "
                          "crank pin: swings, then sticks", four_bar_friction),
    "arm_pushes_box": ("2-link arm on position-driven hinges pushes a box on the ground "
                       "(seed 002's setting)", arm_pushes_box),
}


def run_example(name: str, out, **options) -> dict:
    """Run spatial example `name` (`options` go to its function, e.g. ``t_end=``) and write
    ``<name>.png``, ``<name>.csv`` and ``<name>.json`` into directory `out`. Returns the key
    numbers with ``"files"``, the written paths."""
    if name not in EXAMPLES:
        raise ParameterError(f"unknown spatial example {name!r}; choose one of "
                             f"{sorted(EXAMPLES)}.")
    example = EXAMPLES[name][1](**options)
    files = example.save(out)
    return {"example": name, "title": EXAMPLES[name][0], **example.numbers,
            "files": [str(f) for f in files]}
