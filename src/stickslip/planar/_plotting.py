"""Seeing a mechanism: trajectory and coupler-curve plots, and an animation (GIF, or MP4
when ffmpeg is on the PATH). matplotlib is imported here only."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np

from ..errors import ParameterError

__all__ = ["plot_trajectory", "plot_coupler_curve", "animate"]


def _pose(results, body, k=slice(None)):
    return (np.asarray(results[f"{body.name}.x"])[k], np.asarray(results[f"{body.name}.y"])[k],
            np.asarray(results[f"{body.name}.phi"])[k])


def _point_path(results, body, point):
    x, y, phi = _pose(results, body)
    c, s = np.cos(phi), np.sin(phi)
    return x + c * point[0] - s * point[1], y + s * point[0] + c * point[1]


def plot_trajectory(model, results, bodies=None, ax=None):
    """Paths of the bodies' centres of mass (all bodies by default); returns the axes."""
    import matplotlib.pyplot as plt

    ax = ax or plt.subplots(figsize=(6, 5))[1]
    for body in _bodies(model, bodies):
        x, y, _ = _pose(results, body)
        ax.plot(x, y, label=body.name)
    ax.set_aspect("equal", adjustable="datalim")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    ax.legend(loc="best", fontsize="small")
    ax.set_title(f"{model.name}: trajectories of the centres of mass")
    return ax


def plot_coupler_curve(model, results, body, point=(0.0, 0.0), ax=None):
    """The path of a body-fixed point (a coupler curve), `point` as (x', y') [m] or a named
    point of the body; returns the axes."""
    import matplotlib.pyplot as plt

    body = model.element(body) if isinstance(body, str) else body
    point = body.resolve_point("plot_coupler_curve", "point", point)
    x, y = _point_path(results, body, point)
    ax = ax or plt.subplots(figsize=(6, 5))[1]
    ax.plot(x, y, color="C3")
    ax.set_aspect("equal", adjustable="datalim")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    ax.set_title(f"{model.name}: path of {body.name} point ({point[0]:g}, {point[1]:g}) m")
    return ax


def _bodies(model, bodies):
    if bodies is None:
        return list(model.bodies)
    return [model.element(b) if isinstance(b, str) else b for b in bodies]


def _outline_points(model):
    """For each body, the body-fixed points its elements attach to (drawn as a star from the
    centre of mass) — joints, named points and the points of its frictional contacts (a rod
    on a floor, a slider's corners) —, the ground points, and the ground lines the contacts
    slide on (point and direction)."""
    points = {id(b): [np.zeros(2)] for b in model.bodies}
    ground, lines = [], []
    for c in model.constraints:
        for body, p in ((c.body_i, c.point_i), (c.body_j, c.point_j)):
            if body is None:
                continue
            if body.is_ground:
                ground.append(np.asarray(p))
            else:
                points[id(body)].append(np.asarray(p))
    for contact in model.frictional_contacts:
        for body_i, body_j, point_j, line_point, line_axis in contact.pairs():
            if id(body_j) in points:
                points[id(body_j)].append(np.asarray(point_j, dtype=float))
            line = (tuple(np.round(line_point, 12)), tuple(np.round(line_axis, 12)))
            if body_i.is_ground and line not in lines and \
                    (line[0], tuple(-np.asarray(line[1]))) not in lines:
                lines.append(line)
    for b in model.bodies:
        points[id(b)].extend(np.asarray(p) for p in b.points.values())
    return points, ground, lines


def _write_gif(fig, draw, frames, moving, path: Path, fps: int) -> None:
    """The frames as a looping GIF, drawn by blitting: the axes, ticks and labels are
    rendered once and only the `moving` artists on each frame (a full redraw per frame
    took ~0.1 s, most of an example's wall time)."""
    from PIL import Image

    for artist in moving:
        artist.set_animated(True)
    canvas = fig.canvas
    canvas.draw()
    background = canvas.copy_from_bbox(fig.bbox)
    images = []
    for frame in frames:
        canvas.restore_region(background)
        for artist in draw(frame):
            fig.draw_artist(artist)
        images.append(Image.frombuffer("RGBA", canvas.get_width_height(),
                                       bytes(canvas.buffer_rgba()), "raw", "RGBA", 0, 1)
                      .convert("RGB"))
    # one palette for the movie, from the first frame (every body is drawn in it): mapping
    # to a given palette is a table lookup, an adaptive palette per frame a median cut
    palette = images[0].quantize(colors=256)
    frames_p = [im.quantize(palette=palette, dither=Image.Dither.NONE) for im in images]
    frames_p[0].save(path, save_all=True, append_images=frames_p[1:], loop=0,
                     duration=max(1, int(round(1000 / fps))))


def animate(model, results, path, fps: int = 30, duration: float | None = None,
            trace: tuple | None = None) -> Path:
    """Write an animation of the mechanism to `path` (``.gif``, or ``.mp4`` when ffmpeg is
    installed); returns the path. `duration` [s] of the movie (default: real time, capped
    at 200 frames); `trace` = (body, point) draws that point's path."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib import animation

    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".gif", ".mp4"):
        raise ParameterError(f"`animate` writes .gif or .mp4; got {path.name!r}.")
    if suffix == ".mp4" and shutil.which("ffmpeg") is None:
        raise ParameterError("MP4 needs ffmpeg on the PATH; install it or write a .gif.")
    t = np.asarray(results.t)
    span = t[-1] - t[0]
    n_frames = int(min(200, max(2, round(fps * (duration or span)))))
    frames = np.unique(np.searchsorted(t, np.linspace(t[0], t[-1], n_frames)).clip(0, len(t) - 1))
    points, ground, walls = _outline_points(model)
    fig, ax = plt.subplots(figsize=(6, 5))
    xs = np.concatenate([_point_path(results, b, p)[0] for b in model.bodies
                         for p in points[id(b)]] + [np.array([g[0] for g in ground] or [0.0])])
    ys = np.concatenate([_point_path(results, b, p)[1] for b in model.bodies
                         for p in points[id(b)]] + [np.array([g[1] for g in ground] or [0.0])])
    pad = 0.1 * max(np.ptp(xs), np.ptp(ys), 1e-3)
    ax.set_xlim(xs.min() - pad, xs.max() + pad)
    ax.set_ylim(ys.min() - pad, ys.max() + pad)
    ax.set_aspect("equal")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    for g in ground:
        ax.plot(g[0], g[1], marker="^", color="k", markersize=9)
    reach = 10 * (np.ptp(xs) + np.ptp(ys) + 1.0)
    for point, axis in walls:                 # floors, slopes, guide walls: ground lines
        ends = np.array(point) + np.outer([-reach, reach], axis)
        ax.plot(ends[:, 0], ends[:, 1], color="0.35", lw=1.5, zorder=0)
    lines = [ax.plot([], [], "-o", lw=3, markersize=4, color=f"C{k % 10}")[0]
             for k, _ in enumerate(model.bodies)]
    trace_line = ax.plot([], [], "--", color="0.5", lw=1)[0]
    trace_xy = None
    if trace is not None:
        body = model.element(trace[0]) if isinstance(trace[0], str) else trace[0]
        trace_xy = _point_path(results, body, body.resolve_point("animate", "trace", trace[1]))
    title = ax.set_title("")
    slow = (duration or span) / max(span, 1e-12)        # > 1: a short run in slow motion
    pace = f"   (slowed ×{slow:.3g})" if slow > 1.5 else ""

    def draw(frame):
        for line, body in zip(lines, model.bodies):
            xy = []
            for p in points[id(body)]:
                px, py = _point_path(results, body, p)
                cx, cy, _ = _pose(results, body, frame)
                xy += [(cx, cy), (px[frame], py[frame])]
            arr = np.array(xy)
            line.set_data(arr[:, 0], arr[:, 1])
        if trace_xy is not None:
            trace_line.set_data(trace_xy[0][: frame + 1], trace_xy[1][: frame + 1])
        title.set_text(f"{model.name}   t = {t[frame]:.3f} s{pace}")
        return [*lines, trace_line, title]

    path.parent.mkdir(parents=True, exist_ok=True)
    interval_fps = max(1, int(round(len(frames) / max(duration or span, 1e-9))))
    if suffix == ".gif":
        _write_gif(fig, draw, frames, [*lines, trace_line, title], path, interval_fps)
    else:
        movie = animation.FuncAnimation(fig, draw, frames=frames, blit=False)
        movie.save(str(path), writer=animation.FFMpegWriter(fps=interval_fps))
    plt.close(fig)
    return path
