"""Shared helper: a matplotlib 3-D animation of a spatial run, written as an animated GIF, or
as a self-contained HTML page that embeds that GIF (no scripts, no fonts or files from the
network). Matplotlib's ``to_jshtml`` wrote 6 MB of PNG frames plus a CDN font; a 40-frame
GIF of 600 × 500 px is about 0.5–1 MB.

Each frame shows the bodies, the ground plane (when the model has one) with the bodies'
shadows on it, axes in metres at equal scale, and the time."""

from __future__ import annotations

import base64
import html
import tempfile
from pathlib import Path

import numpy as np


def _limits(model, res, ground: bool):
    """Per-axis limits around every body's path (plus the bodies' reach and a margin), each
    at least 0.3 of the widest so the scene never flattens; drawn at equal scale. With a
    ground the z axis starts just below the floor."""
    pos = np.concatenate([np.column_stack([res[f"{b.name}.{s}"] for s in "xyz"])
                          for b in model.bodies])
    reach = max(float(np.max(np.linalg.norm(b.shape.vertices, axis=1))) for b in model.bodies)
    lo, hi = pos.min(axis=0) - reach - 0.03, pos.max(axis=0) + reach + 0.03
    if ground:
        lo[2] = -0.02
    least = 0.3 * float(np.max(hi - lo))
    for i in range(3):
        grow = max(0.0, least - (hi[i] - lo[i]))
        if ground and i == 2:
            hi[i] += grow
        else:
            lo[i], hi[i] = lo[i] - grow / 2, hi[i] + grow / 2
    return [(float(lo[i]), float(hi[i])) for i in range(3)]


def animate(model, res, path: str | Path, frames: int = 40, limits=None, dpi: int = 100,
            title: str | None = None) -> Path:
    """Write the animation of `res` to `path`: ``.gif``, or ``.html`` (the GIF inline).
    `title`: shown above the frames and as the page title (default: the file's stem)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.animation import FuncAnimation, PillowWriter
    from mpl_toolkits.mplot3d.art3d import Poly3DCollection

    from stickslip.spatial._model import quat_to_matrix

    path = Path(path)
    title = title or path.stem.replace("_", " ")
    idx = np.linspace(0, len(res.t) - 1, frames).astype(int)
    fig = plt.figure(figsize=(6, 5))
    ax = fig.add_subplot(projection="3d")
    fig.subplots_adjust(left=0.02, right=0.95, bottom=0.04, top=0.9)
    ground = getattr(model, "ground", None) is not None     # the floor z = 0
    limits = limits or _limits(model, res, ground)
    colors = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple"]
    (x0, x1), (y0, y1), (z0, z1) = limits
    floor = [[(x0, y0, 0.0), (x1, y0, 0.0), (x1, y1, 0.0), (x0, y1, 0.0)]]

    def draw(k):
        ax.cla()
        ax.set(xlim=(x0, x1), ylim=(y0, y1), zlim=(z0, z1),
               xlabel="x [m]", ylabel="y [m]", zlabel="z [m]")
        ax.set_box_aspect((x1 - x0, y1 - y0, z1 - z0))
        ax.tick_params(labelsize=7)
        if ground:
            ax.add_collection3d(Poly3DCollection(floor, facecolor="0.8", alpha=0.5,
                                                 edgecolor="0.5", linewidths=0.8))
        i = idx[k]
        for j, b in enumerate(model.bodies):
            p = np.array([res[f"{b.name}.{s}"][i] for s in "xyz"])
            q = np.array([res[f"{b.name}.q{s}"][i] for s in "wxyz"])
            v = p + b.shape.vertices @ quat_to_matrix(q).T
            faces = [v[f] for f in b.shape.faces]
            if ground:                        # shadow: the faces projected on the floor
                shadow = [np.column_stack([f[:, 0], f[:, 1], np.full(len(f), 1e-4)])
                          for f in faces]
                ax.add_collection3d(Poly3DCollection(shadow, facecolor="0.35", alpha=0.25,
                                                     edgecolor="none"))
            ax.add_collection3d(Poly3DCollection(faces, alpha=0.7,
                                                 facecolor=colors[j % len(colors)],
                                                 edgecolor="k", linewidths=0.5))
        ax.set_title(f"{title}   t = {res.t[i]:.3f} s", fontsize="medium")
        return []

    anim = FuncAnimation(fig, draw, frames=frames)
    fps = max(1, round(frames / max(float(res.t[-1] - res.t[0]), 1e-9)))
    with tempfile.TemporaryDirectory() as tmp:
        gif = path if path.suffix.lower() == ".gif" else Path(tmp) / "anim.gif"
        anim.save(gif, writer=PillowWriter(fps=min(fps, 25)), dpi=dpi)
        if gif != path:
            data = base64.b64encode(gif.read_bytes()).decode("ascii")
            name = html.escape(f"stickslip: {title}")
            path.write_text(
                "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
                "<link rel='icon' href='data:,'>"             # no request for /favicon.ico
                f"<title>{name}</title></head><body><h1 style='font:600 1.1em sans-serif'>"
                f"{name}</h1><img alt='{name}, animated' width='{int(6 * dpi)}' "
                f"height='{int(5 * dpi)}' src='data:image/gif;base64,{data}'></body></html>\n")
    plt.close(fig)
    return path
