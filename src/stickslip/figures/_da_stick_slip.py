"""SPEC §6 (slides, "differential-algebraic relaxation"): stick–slip in a system where
several friction forces act, each rendered by the discrete DA-relaxation algorithm.

Three 1 kg blocks in a chain (springs of 100 N/m) are dragged by a driver moving at
0.03 m/s. Each block feels its own friction through `da_relaxation_step` (K = 1e4 N/m,
B = 100 N·s/m, T = 1 ms) from its measured velocity — as a haptic or admittance loop would —
with the block's motion integrated by semi-implicit Euler at the same period. The static
levels are 3, 2 and 1 N; a block that slid at the previous sample sees its kinetic level,
60 % of that (the level is chosen before each step, so every step still solves its
inclusion exactly). Pure Coulomb friction (static = kinetic) would give almost no sticking.
The chain alternates between stuck blocks (friction below its level) and sliding ones
(friction at its level). The driver pulls block 1, block 1 pulls block 2, and so on; at
0.03 m/s the blocks are stuck 57–64 % of the time (at 0.1 m/s only 4–12 %, and the
stick–slip did not show). Parameters are ours.
"""

from __future__ import annotations

from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from ..discrete import da_relaxation_step

__all__ = ["make", "run_chain"]

LEVELS = (3.0, 2.0, 1.0)    # static friction levels [N]
KINETIC = 0.6               # kinetic level / static level
MASS, SPRING, DRIVE = 1.0, 100.0, 0.03
K_DA, B_DA, T = 1e4, 100.0, 1e-3
T_END = 20.0
T_SHOWN = 12.0             # [s] the figure's window (the CSV has all 20 s)


@jax.jit
def run_chain(levels):
    """Positions, velocities and friction forces of the chain at each sample."""
    n = levels.shape[0]

    def sample(carry, k):
        p, v, e, sliding = carry
        level = jnp.where(sliding, KINETIC * levels, levels)
        driver = DRIVE * k * T
        left = jnp.concatenate([jnp.array([driver]), p[:-1]])
        right = jnp.concatenate([p[1:], p[-1:]])
        spring = SPRING * (left - p) - SPRING * (p - right) * (jnp.arange(n) < n - 1)
        f, e = jax.vmap(da_relaxation_step, in_axes=(0, 0, 0, None, None, None))(
            e, v, level, K_DA, B_DA, T)                   # measured v_k → friction f_k
        sliding = jnp.abs(f) >= level * (1 - 1e-12)       # saturated: the proxy slid
        v = v + T * (spring - f) / MASS                   # the block, semi-implicit Euler
        p = p + T * v
        return (p, v, e, sliding), (p, v, f, sliding)

    zeros = jnp.zeros(n)
    steps = int(round(T_END / T))
    start = (zeros, zeros, zeros, jnp.zeros(n, dtype=bool))
    _, out = jax.lax.scan(sample, start, jnp.arange(1, steps + 1))
    return out


def _sketch(ax) -> None:
    """The set-up: driver, springs and three blocks on a frictional floor."""
    from matplotlib.patches import FancyArrowPatch, Rectangle

    ax.set_xlim(-0.2, 10.2)
    ax.set_ylim(-0.9, 1.9)
    ax.axis("off")
    ax.add_patch(Rectangle((-0.2, -0.25), 10.4, 0.25, hatch="///", fc="0.92", ec="k"))
    x_driver, width, gap, n = 9.4, 1.3, 1.5, len(LEVELS)
    for i, level in enumerate(LEVELS):               # block 1 is pulled by the driver
        x = 0.3 + (n - 1 - i) * (width + gap)
        ax.add_patch(Rectangle((x, 0), width, 1.0, fc=f"C{i}", alpha=0.35, ec=f"C{i}"))
        ax.text(x + width / 2, 0.5, f"block {i + 1}\n1 kg", ha="center", va="center",
                fontsize="small")
        ax.text(x + width / 2, -0.35, f"static {level:g} N", ha="center", va="top",
                fontsize="small")
        right = x + width
        end = right + gap if i > 0 else x_driver
        zig_x = np.linspace(right, end, 12)
        zig_y = 0.5 + 0.15 * np.array([0, 0, 1, -1, 1, -1, 1, -1, 1, -1, 0, 0])
        ax.plot(zig_x, zig_y, "k", lw=0.8)
    ax.add_patch(Rectangle((x_driver, 0.3), 0.3, 0.4, fc="k"))
    ax.add_patch(FancyArrowPatch((x_driver + 0.15, 0.85), (x_driver + 0.75, 0.85),
                                 arrowstyle="-|>", mutation_scale=12, color="k"))
    ax.text(x_driver + 0.15, 1.0, "driver\n0.03 m/s", ha="left", va="bottom",
            fontsize="small")
    ax.text(-0.2, 1.25, "springs 100 N/m; kinetic friction 60 % of static; each block's "
            "friction from its velocity by DA relaxation\n(K = 1e4 N/m, B = 100 N·s/m, "
            "T = 1 ms), the block integrated by semi-implicit Euler at the same period",
            ha="left", va="bottom", fontsize="small")


def make(out: Path) -> dict:
    import matplotlib.pyplot as plt
    import pandas as pd

    p, v, f, sliding = (np.asarray(x) for x in run_chain(jnp.asarray(LEVELS)))
    t = np.arange(1, p.shape[0] + 1) * T
    stuck = ~sliding
    summary: dict = {"static_levels_N": list(LEVELS), "kinetic_over_static": KINETIC, "T_s": T,
                     "K_N_per_m": K_DA, "B_Ns_per_m": B_DA, "driver_m_per_s": DRIVE,
                     "stuck_fraction": {}, "stick_phases": {}, "max_force_over_static_level": {}}
    frame = pd.DataFrame({"t": t})
    for i, level in enumerate(LEVELS):
        name = f"block{i + 1} (static {level:g} N)"
        summary["stuck_fraction"][name] = float(np.mean(stuck[:, i]))
        summary["stick_phases"][name] = int(np.sum(np.diff(stuck[:, i].astype(int)) == 1))
        summary["max_force_over_static_level"][name] = float(np.max(np.abs(f[:, i])) / level)
        frame[f"p{i + 1}"], frame[f"v{i + 1}"], frame[f"f{i + 1}"] = p[:, i], v[:, i], f[:, i]
    frame.iloc[::10].to_csv(out / "da_stick_slip.csv", index=False)

    shown = t <= T_SHOWN
    fig = plt.figure(figsize=(10, 11))
    grid = fig.add_gridspec(5, 1, height_ratios=(1.1, 1.6, 1, 1, 1), hspace=0.42)
    _sketch(fig.add_subplot(grid[0]))
    ax_p = fig.add_subplot(grid[1])
    ax_p.plot(t[shown], (p[shown] - DRIVE * t[shown, None]) * 1e3, lw=1.2)
    ax_p.set_ylabel("position − driver [mm]")
    ax_p.legend([f"block {i + 1}" for i in range(len(LEVELS))], fontsize="small",
                loc="lower left", ncol=3)
    ax_p.set_title("falling behind the driver at 0.03 m/s while stuck, catching up in a slip",
                   fontsize="medium")
    axes = [ax_p]
    for i, level in enumerate(LEVELS):
        ax = fig.add_subplot(grid[2 + i], sharex=ax_p)
        ax.plot(t[shown], v[shown, i] * 1e3, color=f"C{i}", lw=1)
        ax.fill_between(t[shown], 0, 1, where=stuck[shown, i], color="0.6", alpha=0.3, lw=0,
                        transform=ax.get_xaxis_transform())
        ax.set_ylabel(f"block {i + 1}\nv [mm/s]")
        ax.set_title(f"block {i + 1}: static {level:g} N, kinetic {KINETIC * level:g} N — "
                     f"stuck (grey) {100 * np.mean(stuck[:, i]):.0f} % of the time",
                     loc="right", fontsize="small", pad=3)   # above the axes: no peak hidden
        axes.append(ax)
    for ax in axes:
        ax.grid(True, alpha=0.3)
        if ax is not axes[-1]:
            ax.tick_params(labelbottom=False)
    axes[-1].set_xlabel("t [s]")
    ax_p.set_xlim(0, T_SHOWN)
    fig.suptitle("Stick–slip of three blocks on a frictional floor, each friction force from "
                 "DA relaxation at 1 kHz\n(Kikuuwe, slides: differential-algebraic relaxation)",
                 fontsize="medium")
    fig.subplots_adjust(left=0.1, right=0.98, top=0.93, bottom=0.05)
    fig.savefig(out / "da_stick_slip.png", dpi=110)
    plt.close(fig)
    return summary
