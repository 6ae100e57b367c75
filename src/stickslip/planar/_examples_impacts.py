"""Impact examples (SPEC §9 9-1): a slider between end stops, a ball in a box and a ball on
a driven rocking paddle — stops with restitution, impacts as events — and the runs with
their figures that ``stickslip examples`` shows. Re-exported by
:mod:`stickslip.planar.examples`, which holds the registry.
"""

from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np

from ._drivers import RotationalDriver
from ._joints import RevoluteJoint, TranslationalJoint
from ._model import Model

__all__ = ["ball_in_box", "ball_on_paddle", "slider_end_stop"]


def slider_end_stop(restitution: float = 0.7, speed: float = 0.5,
                    travel: float = 0.1) -> Model:
    """A 1 kg slider on a horizontal translational joint between travel limits ±`travel`
    [m] (a :class:`TranslationalStop` named ``"end_stop"``, impacts as events with
    restitution e), started at the centre at `speed` [m/s]: it hits its end stops in turn,
    each impact keeping e² of the kinetic energy."""
    from ._impact import TranslationalStop

    m = Model(gravity=(0.0, -9.81), name="slider_end_stop")
    s = m.add_body("slider", mass=1.0, inertia=1e-2, xd=speed)
    joint = m.add(TranslationalJoint(m.ground, s, axis_i=(1.0, 0.0), name="slide"))
    m.add(TranslationalStop(joint, lower=-travel, upper=travel, restitution=restitution,
                            name="end_stop"))
    return m


def ball_in_box(restitution: float = 0.9, width: float = 1.0, height: float = 1.0) -> Model:
    """A ball (point) thrown inside a box of `width` × `height` [m]: floor, walls and ceiling
    are :class:`PointLineStop` elements (events with restitution e)."""
    from ._impact import PointLineStop

    m = Model(gravity=(0.0, -9.81), name="ball_in_box")
    ball = m.add_body("ball", mass=0.1, inertia=1e-5, x=0.3 * width, y=0.8 * height,
                      xd=2.0, yd=0.0)
    for name, p, n in (("floor", (0.0, 0.0), (0.0, 1.0)),
                       ("ceiling", (0.0, height), (0.0, -1.0)),
                       ("left_wall", (0.0, 0.0), (1.0, 0.0)),
                       ("right_wall", (width, 0.0), (-1.0, 0.0))):
        m.add(PointLineStop(ball, line_point=p, normal=n, restitution=restitution, name=name))
    return m


def ball_on_paddle(restitution: float = 0.8, amplitude: float = 0.15,
                   frequency: float = 1.0) -> Model:
    """A ball bouncing on a paddle inside a mechanism: the paddle (a 0.6 m link pinned to
    the ground at its centre) is rocked by a rotational driver, angle
    ``amplitude·sin(2π·frequency·t)`` [rad]; the ball hits the line of the paddle (a
    :class:`PointLineStop` with ``line_body``), restitution e. The impulse goes through the
    constraint matrix, so the driven paddle keeps its motion and the ball's velocity
    *relative to the paddle* is reversed with factor e. The stop's line is unbounded: the
    ball drifts off the paddle's 0.6 m after about 1 s."""
    from ._impact import PointLineStop

    w = 2 * math.pi * frequency
    m = Model(gravity=(0.0, -9.81), name="ball_on_paddle")
    paddle = m.add_body("paddle", mass=1.0, inertia=0.03)
    ball = m.add_body("ball", mass=0.05, inertia=1e-6, x=0.15, y=0.4)
    m.add(RevoluteJoint(m.ground, paddle, name="pivot"))
    paddle.phid = amplitude * w
    m.add(RotationalDriver(m.ground, paddle, angle=lambda t: amplitude * jnp.sin(w * t),
                           name="rocker"))
    m.add(PointLineStop(ball, line_body=paddle, line_point=(0.0, 0.0), normal=(0.0, 1.0),
                        restitution=restitution, name="paddle_face"))
    return m


def _run_slider_end_stop(out):
    m = slider_end_stop()
    res = m.simulate(3.0, dt=1e-3, dt_out=0.01)
    imp = res.meta["impacts"]
    return m, res, {"impacts": len(imp), "energy_ratio_per_impact": [
        i["kinetic_energy_after"] / i["kinetic_energy_before"] for i in imp]}, None, None


def _run_ball_in_box(out):
    m = ball_in_box()
    res = m.simulate(2.0, dt=1e-3, dt_out=0.01)
    imp = res.meta["impacts"]
    return m, res, {"impacts": len(imp), "stops_hit": sorted({i["stop"] for i in imp})}, \
        None, _plot_ball_in_box


def _plot_ball_in_box(model, res, width=1.0, height=1.0):
    """The box's walls with the ball's path and its impact points, and the ball's height
    and horizontal position over time with the impacts marked."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(12, 5))
    ax = axes[0]
    ax.plot([0, width, width, 0, 0], [0, 0, height, height, 0], color="k", lw=3)
    ax.plot(res["ball.x"], res["ball.y"], color="C0", lw=1, label="ball path")
    impacts = res.meta["impacts"]
    for k, i in enumerate(impacts):
        j = int(np.searchsorted(res.t, i["t"]))
        ax.plot(res["ball.x"][j], res["ball.y"][j], "o", color="C3", ms=5,
                label="impacts" if k == 0 else None)
    ax.set_aspect("equal")
    ax.set_xlim(-0.1 * width, 1.1 * width)
    ax.set_ylim(-0.1 * height, 1.1 * height)
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    ax.legend(fontsize="small", loc="upper right")
    ax.set_title(f"ball in a {width:g} m × {height:g} m box")
    axes[1].plot(res.t, res["ball.y"], color="C0", label="height y")
    axes[1].plot(res.t, res["ball.x"], color="C1", label="horizontal x")
    for i in impacts:
        axes[1].axvline(i["t"], color="C3", lw=0.6, alpha=0.6)
    axes[1].set_xlabel("t [s]")
    axes[1].set_ylabel("[m]")
    axes[1].legend(fontsize="small")
    axes[1].set_title(f"{len(impacts)} impacts (red), restitution "
                      f"{impacts[0]['restitution'] if impacts else '–'}")
    fig.tight_layout()
    return fig


def _run_ball_on_paddle(out):
    m = ball_on_paddle()
    res = m.simulate(1.0, dt=1e-3, dt_out=0.01)   # the line is unbounded: stay near it
    imp = res.meta["impacts"]
    return m, res, {"impacts": len(imp), "restitution_measured": [
        -i["normal_velocity_after"] / i["normal_velocity_before"] for i in imp]}, \
        ("ball", (0.0, 0.0)), None
