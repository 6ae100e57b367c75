"""Shared helper: a matplotlib 3-D animation of a spatial run, written as an animated GIF, or
as a self-contained HTML page that embeds that GIF (no scripts, no fonts or files from the
network). Matplotlib's ``to_jshtml`` wrote 6 MB of PNG frames plus a CDN font; a 40-frame
GIF at 72 dpi is about 0.2–0.4 MB."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def animate(model, res, path: str | Path, frames: int = 40, limits=None, dpi: int = 72) -> Path:
    """Write the animation of `res` to `path`: ``.gif``, or ``.html`` (the GIF inline)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.animation import FuncAnimation
    from mpl_toolkits.mplot3d.art3d import Poly3DCollection

    from stickslip.spatial._model import quat_to_matrix

    idx = np.linspace(0, len(res.t) - 1, frames).astype(int)
    fig = plt.figure(figsize=(4, 4))
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

    import base64
    import tempfile

    from matplotlib.animation import PillowWriter

    anim = FuncAnimation(fig, draw, frames=frames)
    fps = max(1, round(frames / max(float(res.t[-1] - res.t[0]), 1e-9)))
    path = Path(path)
    with tempfile.TemporaryDirectory() as tmp:
        gif = path if path.suffix.lower() == ".gif" else Path(tmp) / "anim.gif"
        anim.save(gif, writer=PillowWriter(fps=min(fps, 25)), dpi=dpi)
        if gif != path:
            data = base64.b64encode(gif.read_bytes()).decode("ascii")
            path.write_text(
                "<!doctype html><html><head><meta charset='utf-8'><title>stickslip.spatial"
                f"</title></head><body><img alt='animation' src='data:image/gif;base64,{data}'>"
                "</body></html>\n")
    plt.close(fig)
    return path
