"""Shared helper: a matplotlib 3-D animation of a spatial run, written as self-contained HTML."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def animate(model, res, path: str | Path, frames: int = 60, limits=None) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.animation import FuncAnimation
    from mpl_toolkits.mplot3d.art3d import Poly3DCollection

    from stickslip.spatial._model import quat_to_matrix

    idx = np.linspace(0, len(res.t) - 1, frames).astype(int)
    fig = plt.figure(figsize=(5, 5))
    ax = fig.add_subplot(projection="3d")
    if limits is None:
        pos = np.concatenate([np.column_stack([res[f"{b.name}.x"], res[f"{b.name}.y"],
                                               res[f"{b.name}.z"]]) for b in model.bodies])
        c, r = pos.mean(axis=0), np.ptp(pos, axis=0).max() / 2 + 0.15
        limits = [(c[i] - r, c[i] + r) for i in range(3)]
    colors = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple"]

    def draw(k):
        ax.cla()
        ax.set_xlim(*limits[0])
        ax.set_ylim(*limits[1])
        ax.set_zlim(max(limits[2][0], -0.01), limits[2][1])
        i = idx[k]
        for j, b in enumerate(model.bodies):
            p = np.array([res[f"{b.name}.{s}"][i] for s in "xyz"])
            q = np.array([res[f"{b.name}.q{s}"][i] for s in "wxyz"])
            v = p + b.shape.vertices @ quat_to_matrix(q).T
            ax.add_collection3d(Poly3DCollection([v[f] for f in b.shape.faces], alpha=0.6,
                                                 facecolor=colors[j % len(colors)],
                                                 edgecolor="k", linewidths=0.5))
        ax.set_title(f"t = {res.t[i]:.3f} s")
        return []

    anim = FuncAnimation(fig, draw, frames=frames, interval=1000 * (res.t[-1] / frames))
    path = Path(path)
    path.write_text(anim.to_jshtml())
    plt.close(fig)
    return path
