"""SPEC §8: the MotionSolve LuGre tutorial's sliding block, with CoulombODE joint friction
side by side.

A 1 kg block on a translational joint, N = 9.8 N, pushed by 3 sin(2πt) N: 4 s with
μ_s = 0.3 (LuGre; μ = 0.2 for CoulombODE), then the coefficient raised to 0.5 with
``Model.replace`` and the same run continued 4 s (``simulate(..., initial=first)``): the
push (3 N < 0.5·9.8 N) can no longer break the block loose and it stops.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

__all__ = ["make"]


def make(out: Path) -> dict:
    import matplotlib.pyplot as plt
    import pandas as pd

    from ..planar import examples

    runs = {}
    for kind, channel in (("lugre", "lugre.friction"), ("coulomb", "slide.friction")):
        _, first, second = examples.sliding_block_tutorial(kind, raised=0.5, dt=2e-4)
        t = np.concatenate([first.t, second.t[1:]])
        join = lambda name: np.concatenate([first[name], second[name][1:]])  # noqa: E731
        runs[kind] = {"t": t, "x": join("block.x"), "v": join("block.xd"),
                      "f": join(channel)}
    frame = pd.DataFrame({"t": runs["lugre"]["t"]})
    for kind, r in runs.items():
        for key in ("x", "v", "f"):
            frame[f"{key}[{kind}]"] = r[key]
    frame.to_csv(out / "sliding_block_lugre.csv", index=False)
    fig, axes = plt.subplots(3, 1, figsize=(8, 8), sharex=True)
    labels = {"lugre": "LuGre element (μs 0.3 → 0.5)", "coulomb": "CoulombODE joint (μ 0.2 → 0.5)"}
    styles = {"lugre": ("k", "-"), "coulomb": ("0.5", "--")}
    for kind, r in runs.items():
        c, ls = styles[kind]
        axes[0].plot(r["t"], r["f"], color=c, ls=ls, label=labels[kind])
        axes[1].plot(r["t"], r["v"], color=c, ls=ls)
        axes[2].plot(r["t"], r["x"] * 1e3, color=c, ls=ls)
    for ax in axes:
        ax.axvline(4.0, color="0.8", lw=0.8)
    axes[0].set_ylabel("friction force [N]")
    axes[1].set_ylabel("block velocity [m/s]")
    axes[2].set_ylabel("displacement [mm]")
    axes[2].set_xlabel("t [s]")
    axes[0].legend(fontsize="small")
    fig.suptitle("Sliding block, 1 kg pushed by 3 sin(2πt) N: friction coefficient raised at "
                 "t = 4 s\n(MotionSolve tutorial MV-9003, LuGre friction)", fontsize="medium")
    fig.tight_layout()
    fig.savefig(out / "sliding_block_lugre.png", dpi=120)
    plt.close(fig)
    summary = {}
    for kind, r in runs.items():
        before, after = r["t"] <= 4.0, r["t"] >= 4.0
        summary[kind] = {
            "peak_speed_first_4s_m_s": float(np.max(np.abs(r["v"][before]))),
            "displacement_change_last_4s_mm": float(np.ptp(r["x"][after]) * 1e3),
            "peak_friction_N": float(np.max(np.abs(r["f"]))),
        }
    return summary
