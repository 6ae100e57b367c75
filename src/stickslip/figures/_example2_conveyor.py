"""Xiong, Kikuuwe & Yamamoto, example 2 (SPEC §5, eq. 23-33): two blocks pressed against a
wall by a conveyor.

Block 1 hangs on a spring beside the wall, lifted 0.1 m; block 2 stands on a belt that runs
towards the wall at 0.1 m/s, 2 cm from block 1. Block 1 drops, block 2 is dragged into it
and presses it against the wall; within 0.7 s the two friction forces on block 1 (from the
wall and from block 2) hold it still below the spring's rest position, while the belt keeps
sliding under block 2. The run lasts 5 s; the figure shows the first second, after which
nothing changes (the final values are printed in the panels).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..integrate import simulate
from ..systems import TwoBlocksConveyor

__all__ = ["make"]

T_END, T_SHOWN = 5.0, 1.0
MU = {"wall": 0.3, "blocks": 0.3, "belt": 0.5}    # TwoBlocksConveyor's default μ1, μ2, μ3


def _sketch(ax) -> None:
    """The set-up: wall, block 1 on its spring, block 2 on the belt moving towards the wall."""
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Rectangle

    ax.set_xlim(-0.6, 4.2)
    ax.set_ylim(-1.3, 5.2)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.add_patch(Rectangle((-0.5, -0.3), 0.5, 5.3, hatch="///", fc="0.92", ec="k"))
    ax.text(-0.25, 5.05, "wall", ha="center", va="bottom")
    ax.add_patch(Rectangle((0.0, 1.6), 1.2, 1.2, fc="C0", alpha=0.35, ec="C0"))
    ax.text(0.6, 2.2, "block 1\n1 kg", ha="center", va="center")
    zig_x = 0.6 + 0.15 * np.array([0, 0, 1, -1, 1, -1, 1, -1, 0, 0])
    zig_y = np.linspace(4.8, 2.8, len(zig_x))
    ax.plot(zig_x, zig_y, "k", lw=1)
    ax.plot([0.2, 1.0], [4.8, 4.8], "k", lw=2)
    ax.text(0.85, 3.9, "spring\n100 N/m", va="center", fontsize="small")
    ax.add_patch(Rectangle((1.35, 0.0), 1.8, 1.8, fc="C1", alpha=0.35, ec="C1"))
    ax.text(2.25, 0.9, "block 2\n2 kg", ha="center", va="center")
    ax.add_patch(FancyBboxPatch((0.6, -0.6), 3.4, 0.6, boxstyle="round,pad=0,rounding_size=0.3",
                                fc="0.8", ec="k"))
    ax.add_patch(FancyArrowPatch((3.6, -1.05), (1.2, -1.05), arrowstyle="-|>",
                                 mutation_scale=12, color="k"))
    ax.text(2.4, -1.25, "belt, 0.1 m/s", ha="center", va="top", fontsize="small")
    ax.text(0.05, 1.3, f"μ1 = {MU['wall']}", fontsize="small", color="C2", ha="left")
    ax.text(1.27, 2.0, f"μ2 = {MU['blocks']}", fontsize="small", color="C2", rotation=90,
            ha="center")
    ax.text(3.2, 0.05, f"μ3 = {MU['belt']}", fontsize="small", color="C2")
    ax.annotate("", xy=(1.6, 2.9), xytext=(1.6, 3.6),
                arrowprops={"arrowstyle": "-|>", "color": "0.3"})
    ax.text(1.75, 3.3, "g", color="0.3")
    ax.set_title("set-up (block 1 starts 0.1 m up,\nblock 2 starts 2 cm away)",
                 fontsize="medium")


def make(out: Path) -> dict:
    import matplotlib.pyplot as plt

    system = TwoBlocksConveyor()
    res = simulate(system, T_END, dt=1e-4, dt_out=1e-3)
    res.to_pandas().to_csv(out / "example2_conveyor.csv")
    moving = np.abs(res["v1y"]) > 1e-6
    stick_time = float(res.t[np.nonzero(moving)[0][-1] + 1]) if moving.any() else 0.0
    ratios = {}
    for (fr, fn), mu in zip((("fr_wall", "f_wall"), ("fr_blocks", "f_blocks"),
                             ("fr_belt", "f_belt")), MU.values()):
        pressed = res[fn] > 1e-9
        ratios[fr] = float((np.abs(res[fr][pressed]) / (mu * res[fn][pressed])).max())
    summary = {"block1_final_height_m": float(res["p1y"][-1]),
               "block1_sticks_from_s": stick_time,
               "max_friction_over_mu_normal": ratios,
               "min_contact_force_N": float(min(res[n].min() for n in
                                                ("f_wall", "f_blocks", "f_belt")))}

    shown = res.t <= T_SHOWN
    t = res.t[shown]
    ch = {name: res[name][shown] for name in res.names}
    fig = plt.figure(figsize=(12, 10))
    grid = fig.add_gridspec(5, 2, width_ratios=(1, 2.6), hspace=0.12, wspace=0.15)
    _sketch(fig.add_subplot(grid[:, 0]))
    axes = [fig.add_subplot(grid[0, 1])]
    axes += [fig.add_subplot(grid[i, 1], sharex=axes[0]) for i in (1, 2, 3, 4)]
    ax_p, ax_v, ax_n, ax_f, ax_r = axes

    def final(ax, text, y=0.04):
        ax.text(0.99, y, text, transform=ax.transAxes, ha="right", va="bottom",
                fontsize="small", bbox={"fc": "white", "ec": "0.8", "alpha": 0.9})

    ax_p.plot(t, ch["p1y"] * 1e3, "C0", label="block 1 height above spring rest")
    ax_p.plot(t, (ch["p2x"] - ch["p1x"]) * 1e3, "C1", label="gap block 2 – block 1")
    ax_p.set_ylabel("[mm]")
    final(ax_p, f"at 5 s: block 1 held {-res['p1y'][-1] * 1e3:.1f} mm below rest")
    ax_v.plot(t, ch["v1y"], "C0", label="block 1, vertical")
    ax_v.plot(t, ch["v2x"], "C1", label="block 2, horizontal")
    ax_v.set_ylabel("velocity [m/s]")
    final(ax_v, "block 1 exactly still: |v| < 1e-6 m/s")
    ax_n.plot(t, ch["f_wall"], "C0", lw=2.2, alpha=0.6, label="wall on block 1")
    ax_n.plot(t, ch["f_blocks"], "C3", ls="--", label="block 2 on block 1")
    ax_n.plot(t, ch["f_belt"], "C1", label="belt on block 2")
    ax_n.set_ylabel("contact force [N]")
    final(ax_n, f"at 5 s: {res['f_wall'][-1]:.2f}, {res['f_blocks'][-1]:.2f}, "
                f"{res['f_belt'][-1]:.2f} N")
    for name, fn, color, label in (("fr_wall", "f_wall", "C0", "wall on block 1"),
                                   ("fr_blocks", "f_blocks", "C3", "block 2 on block 1"),
                                   ("fr_belt", "f_belt", "C1", "belt on block 2")):
        style = {"ls": "--" if name == "fr_blocks" else "-",
                 "lw": 2.2 if name == "fr_wall" else 1.2,
                 "alpha": 0.6 if name == "fr_wall" else 1, "label": label}
        ax_f.plot(t, ch[name], color, **style)
        pressed = ch[fn] > 1e-9
        ratio = np.where(pressed, ch[name] / np.where(pressed, MU[fn[2:]] * ch[fn], 1), np.nan)
        ax_r.plot(t, ratio, color, **style)
    ax_f.set_ylabel("friction force [N]")
    final(ax_f, f"at 5 s: {res['fr_wall'][-1]:.2f}, {res['fr_blocks'][-1]:.2f}, "
                f"{res['fr_belt'][-1]:.2f} N")
    ax_r.set_ylabel("friction / (μ × contact)")
    ax_r.set_ylim(-1.15, 1.15)
    for level in (-1, 1):
        ax_r.axhline(level, color="k", lw=0.8)
    final(ax_r, "±1: sliding (on Coulomb's cone); inside: sticking", y=0.6)
    ax_r.set_xlabel("t [s]")
    for ax in axes:
        ax.axvline(stick_time, color="k", lw=0.8, ls=":")
        ax.grid(True, alpha=0.3)
        if ax is not ax_r:
            ax.legend(fontsize="small", loc="upper right")
            ax.tick_params(labelbottom=False)
    ax_p.text(stick_time, 1.02, f" block 1 still (|v| < 1 µm/s) from {stick_time:.2f} s",
              transform=ax_p.get_xaxis_transform(), fontsize="small")
    ax_p.set_xlim(0, T_SHOWN)
    fig.suptitle("Two blocks between a wall and a conveyor — Xiong, Kikuuwe & Yamamoto, "
                 "example 2 (eq. 33); first 1 s of a 5 s run", fontsize="large")
    fig.subplots_adjust(left=0.02, right=0.98, top=0.92, bottom=0.07)
    fig.savefig(out / "example2_conveyor.png", dpi=110)
    plt.close(fig)
    return summary
