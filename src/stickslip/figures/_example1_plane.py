"""Xiong, Kikuuwe & Yamamoto, example 1 (SPEC §5, eq. 20-22): a point on a frictional plane.

Two runs of `PointOnPlane` (M = 1 kg, μ = 0.5): one launched at 1.118 m/s that slides and
comes to rest, one pushed by a tangential force inside the friction cone (|f_t| = 0.42 μMg)
that never moves: its displacement is the deflection of the friction law's proxy spring,
|friction| / K (about 0.2 mm), which follows the push and then stays constant.
"""

from __future__ import annotations

from pathlib import Path

import jax.numpy as jnp
import numpy as np

from ..integrate import simulate
from ..systems import PointOnPlane

__all__ = ["make"]

MU, G = 0.5, 9.81
V0 = (1.0, 0.5, 0.0)


def _push(t):
    return jnp.array([0.3, 0.3, 0.0]) * MU * G * jnp.minimum(t, 1.0)


def _plot_stop(ax, zoom, slide, v0):
    """Velocity along the launch direction against the exact Coulomb ramp (`ax`), and a zoom
    on the stop (`zoom`): the proxy spring of the friction law, stretched μMg/K while the
    point slides, springs it back a fraction of a millimetre, critically damped — the price
    of a finite K (SPEC §2: the error is O(F/K)), not a plotting artefact."""
    law = PointOnPlane(M=1.0).friction
    K, beta = float(law.K), float(law.beta)
    e = np.array(V0[:2]) / v0
    along = slide["vx"] * e[0] + slide["vy"] * e[1]
    travel = slide["x"] * e[0] + slide["y"] * e[1]
    exact = np.maximum(v0 - MU * G * slide.t, 0)
    t_stop = v0 / (MU * G)
    ax.plot(slide.t, along, label="v along the launch direction")
    ax.plot(slide.t, exact, "k--", lw=0.8, label="exact Coulomb")
    ax.set(xlabel="t [s]", ylabel="velocity [m/s]", title="deceleration μg")
    ax.legend(fontsize="small", loc="upper right")
    near = (slide.t > t_stop - 0.02) & (slide.t < t_stop + 0.1)
    zoom.plot(slide.t[near], along[near] * 1e3)
    zoom.plot(slide.t[near], exact[near] * 1e3, "k--", lw=0.8)
    zoom.axhline(0.0, color="0.6", lw=0.5)
    low = along[near].min() * 1e3
    zoom.set_ylim(1.4 * low, -2.6 * low)
    zoom.set(xlabel="t [s]", ylabel="velocity [mm/s]", title="after the stop: springs back")
    zoom.text(0.97, 0.95, f"moves back {(travel.max() - travel[-1]) * 1e3:.2f} mm at "
              f"≤ {-low:.0f} mm/s: the friction\nlaw's proxy spring (stretched μMg/K = "
              f"{MU * G / K * 1e3:.2f} mm\nwhile sliding) relaxes, critically damped "
              f"(ζ = {K * beta / (2 * np.sqrt(K)):.1f}):\na finite-K effect, not sliding",
              transform=zoom.transAxes, ha="right", va="top", fontsize="x-small")


def make(out: Path) -> dict:
    import matplotlib.pyplot as plt
    import pandas as pd

    slide = simulate(PointOnPlane(M=1.0, v0=V0), 0.6, dt=1e-4, dt_out=1e-3)
    push = simulate(PointOnPlane(M=1.0, force=_push), 3.0, dt=1e-4, dt_out=1e-3)
    speed = np.hypot(slide["vx"], slide["vy"])
    v0 = float(np.hypot(V0[0], V0[1]))
    exact_distance = v0 ** 2 / (2 * MU * G)
    summary = {
        "slide_stop_distance_m": float(np.hypot(slide["x"][-1], slide["y"][-1])),
        "slide_stop_distance_exact_m": exact_distance,
        "slide_stop_time_exact_s": v0 / (MU * G),
        "slide_final_speed_m_per_s": float(speed[-1]),
        "push_max_displacement_m": float(np.hypot(push["x"], push["y"]).max()),
        "push_friction_over_cone_max": float((np.hypot(push["fx"], push["fy"])
                                              / (MU * push["fz"])).max()),
    }
    frame = slide.to_pandas().add_prefix("slide.").reset_index()
    push_frame = push.to_pandas().add_prefix("push.").reset_index(drop=True)
    pd.concat([frame, push_frame], axis=1).to_csv(out / "example1_plane.csv", index=False)

    fig = plt.figure(figsize=(12, 6.5))
    grid = fig.add_gridspec(2, 6)
    top = [fig.add_subplot(grid[0, 2 * k:2 * k + 2]) for k in range(3)]
    axes = np.array([top[:2], [fig.add_subplot(grid[1, :3]), fig.add_subplot(grid[1, 3:])]])
    axes[0, 0].plot(slide["x"], slide["y"])
    axes[0, 0].set(xlabel="x [m]", ylabel="y [m]", title="sliding to rest: path")
    _plot_stop(axes[0, 1], top[2], slide, v0)
    k_proxy = float(PointOnPlane(M=1.0).friction.K)
    shift = np.hypot(push["x"], push["y"]) * 1e6
    axes[1, 0].plot(push.t, shift, lw=3, alpha=0.5, label="|p_xy|")
    axes[1, 0].plot(push.t, np.hypot(push["fx"], push["fy"]) / k_proxy * 1e6, "k--", lw=0.8,
                    label="|friction| / K")
    axes[1, 0].set(xlabel="t [s]", ylabel="|p_xy| [µm]",
                   title="pushed inside the cone: no creep")
    axes[1, 0].legend(fontsize="small", loc="lower right")
    axes[1, 0].text(0.03, 0.97, f"the {shift.max():.0f} µm is the proxy spring's deflection\n"
                    f"|friction| / K (K = {k_proxy:.0e} N/m), not sliding:\n"
                    "it follows the push and stays constant", transform=axes[1, 0].transAxes,
                    va="top", fontsize="small")
    axes[1, 0].set_ylim(0, shift.max() * 1.6)
    axes[1, 1].plot(push.t, np.hypot(push["fx"], push["fy"]), label="|friction|")
    axes[1, 1].plot(push.t, MU * push["fz"], "k--", label="μ f_z")
    axes[1, 1].set(xlabel="t [s]", ylabel="force [N]", title="friction stays inside the cone")
    axes[1, 1].legend(fontsize="small")
    fig.suptitle("Point mass on a frictional plane, μ = 0.5 — Xiong, Kikuuwe & Yamamoto, "
                 "example 1 (eq. 20-22)", fontsize="medium")
    fig.tight_layout()
    fig.savefig(out / "example1_plane.png", dpi=120)
    plt.close(fig)
    return summary
