"""SPEC §5 example 2 (eq. 23-33): two blocks pressed against a wall by a conveyor."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..integrate import simulate
from ..systems import TwoBlocksConveyor

__all__ = ["make"]


def make(out: Path) -> dict:
    import matplotlib.pyplot as plt

    system = TwoBlocksConveyor()
    res = simulate(system, 5.0, dt=1e-4, dt_out=1e-3)
    res.to_pandas().to_csv(out / "example2_conveyor.csv")
    moving = np.abs(res["v1y"]) > 1e-6
    stick_time = float(res.t[np.nonzero(moving)[0][-1] + 1]) if moving.any() else 0.0
    mus = (0.3, 0.3, 0.5)
    ratios = {}
    for (fr, fn), mu in zip((("fr_wall", "f_wall"), ("fr_blocks", "f_blocks"),
                             ("fr_belt", "f_belt")), mus):
        pressed = res[fn] > 1e-9
        ratios[fr] = float((np.abs(res[fr][pressed]) / (mu * res[fn][pressed])).max())
    summary = {"block1_final_height_m": float(res["p1y"][-1]),
               "block1_sticks_from_s": stick_time,
               "max_friction_over_mu_normal": ratios,
               "min_contact_force_N": float(min(res[n].min() for n in
                                                ("f_wall", "f_blocks", "f_belt")))}

    fig, axes = plt.subplots(3, 1, figsize=(7, 8), sharex=True)
    for name in ("p1x", "p1y", "p2x", "p2y"):
        axes[0].plot(res.t, res[name], label=name)
    axes[0].set_ylabel("position [m]")
    axes[0].legend(fontsize="small", ncol=4)
    for name in ("f_wall", "f_blocks", "f_belt"):
        axes[1].plot(res.t, res[name], label=name)
    axes[1].set_ylabel("contact force [N]")
    axes[1].legend(fontsize="small")
    for name in ("fr_wall", "fr_blocks", "fr_belt"):
        axes[2].plot(res.t, res[name], label=name)
    axes[2].set_ylabel("friction force [N]")
    axes[2].set_xlabel("t [s]")
    axes[2].legend(fontsize="small")
    fig.suptitle("SPEC §5 example 2: blocks between a wall and a conveyor (eq. 33)")
    fig.tight_layout()
    fig.savefig(out / "example2_conveyor.png", dpi=120)
    plt.close(fig)
    return summary
