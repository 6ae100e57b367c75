"""The LuGre sliding block of the MotionSolve tutorial (SPEC §8): the model, the tutorial
run in two segments (μ_s raised between them with :meth:`Model.replace`), joining the
segments into one Results, and the run with its figure that ``stickslip examples`` shows.
Re-exported by :mod:`stickslip.planar.examples`, which holds the registry.
"""

from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np

from .._validation import keyword_alias
from ._forces import PointForce
from ._friction import LuGreFriction
from ._joints import TranslationalJoint
from ._model import Model

__all__ = ["join_segments", "sliding_block", "sliding_block_tutorial"]


def sliding_block(friction: str = "lugre", mu_s: float | None = None,
                  mu_k: float | None = None, amplitude: float = 3.0, frequency: float = 1.0,
                  *, mus: float | None = None, mud: float | None = None) -> Model:
    """The sliding block of the MotionSolve LuGre tutorial (SPEC §8): ground + a 1 kg block
    on a translational joint along x, gravity 9.8 m/s² perpendicular to the axis (N = 9.8 N),
    actuation ``amplitude·sin(2π·frequency·t)`` N along the axis.

    ``friction="lugre"``: a :class:`LuGreFriction` element ``"lugre"`` (tutorial defaults,
    μ_s = `mu_s` (0.3), μ_k = `mu_k` (0.2)); ``"coulomb"``: ``CoulombODE(mu=mu_k)`` joint
    friction (a critically damped proxy, K = 1e5 N/m), for comparison; ``"none"``:
    frictionless. Channels: ``block.x`` (the displacement), ``block.xd``, and
    ``<lugre|slide>.friction``. `mus`, `mud`: the old spellings (deprecated: they warn).
    """
    from ..laws import CoulombODE

    mu_s = keyword_alias("sliding_block", "mu_s", mu_s, "mus", mus, deprecated=True)
    mu_k = keyword_alias("sliding_block", "mu_k", mu_k, "mud", mud, deprecated=True)
    mu_s, mu_k = 0.3 if mu_s is None else mu_s, 0.2 if mu_k is None else mu_k

    m = Model(gravity=(0.0, -9.8), name=f"sliding_block_{friction}")
    block = m.add_body("block", mass=1.0, inertia=1.0 / 6.0)
    w = 2 * math.pi * frequency
    m.add(PointForce(block, lambda t, q, qd: jnp.stack([amplitude * jnp.sin(w * t), 0.0 * t]),
                     name="actuator"))
    if friction == "lugre":
        slide = m.add(TranslationalJoint(m.ground, block, axis_i=(1.0, 0.0), name="slide"))
        m.add(LuGreFriction(slide, mu_s=mu_s, mu_k=mu_k, name="lugre"))
    elif friction == "coulomb":
        law = CoulombODE.tuned(1.0, 1e5, mu=mu_k)
        m.add(TranslationalJoint(m.ground, block, axis_i=(1.0, 0.0), friction=law,
                                 name="slide"))
    elif friction == "none":
        m.add(TranslationalJoint(m.ground, block, axis_i=(1.0, 0.0), name="slide"))
    else:
        raise ValueError(f"friction must be 'lugre', 'coulomb' or 'none'; got {friction!r}.")
    return m


def sliding_block_tutorial(friction: str = "lugre", raised: float = 0.5, segment: float = 4.0,
                           dt: float = 1e-4, dt_out: float = 0.01):
    """The tutorial end to end (SPEC §8): `segment` s with μ_s = 0.3 (or μ = 0.2 for
    ``"coulomb"``), then the coefficient raised to `raised` with :meth:`Model.replace` and
    the same run continued `segment` s more from the exact state. Returns
    ``(model, first, second)``; ``second`` starts where ``first`` ends."""
    m = sliding_block(friction)
    first = m.simulate(segment, dt=dt, dt_out=dt_out)
    if friction == "lugre":
        m.replace("lugre", mu_s=raised)
    else:
        m.replace("slide", mu=raised)
    second = m.simulate(2 * segment, dt=dt, dt_out=dt_out, initial=first)
    return m, first, second


def join_segments(first, second):
    """One Results for a run continued with ``initial=first``: `second` starts at the last
    sample of `first`, which appears once. Channels both have, units, `second`'s metadata
    (with the first segment's under ``meta["first_segment"]``) and final state."""
    from ..results import Results

    names = [n for n in first.names if n in second]
    channels = {n: np.concatenate([first[n], second[n][1:]]) for n in names}
    meta = dict(second.meta, first_segment=dict(first.meta))
    return Results(np.concatenate([first.t, second.t[1:]]), channels,
                   units={n: second.units.get(n, "") for n in names}, meta=meta,
                   final_state=second.final_state)


def _run_sliding_block(out):
    m, first, second = sliding_block_tutorial("lugre", raised=0.5, dt=2e-4)
    res = join_segments(first, second)        # the whole 8 s, not only the second segment
    return m, res, {"peak_speed_first_4s_m_s": float(np.max(np.abs(first["block.xd"]))),
                    "displacement_change_last_4s_mm": float(np.ptp(second["block.x"]) * 1e3)
                    }, None, _plot_sliding_block


def _plot_sliding_block(model, res):
    """Displacement, velocity and friction force over the two segments (the block slides
    on a line: a trajectory plot would be a flat line)."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(3, 1, figsize=(8, 7.5), sharex=True)
    axes[0].plot(res.t, res["block.x"] * 1e3, "k")
    axes[0].set_ylabel("displacement [mm]")
    axes[1].plot(res.t, res["block.xd"], "k")
    axes[1].set_ylabel("velocity [m/s]")
    axes[2].plot(res.t, res["lugre.friction"], "k", label="LuGre friction force")
    axes[2].plot(res.t, res["actuator.force"] * np.sign(np.sin(2 * np.pi * res.t)), "--",
                 color="0.5", label="push 3 sin(2πt)")
    axes[2].set_ylabel("force [N]")
    axes[2].set_xlabel("t [s]")
    axes[2].legend(fontsize="small", loc="lower left")
    for ax in axes:
        ax.axvline(4.0, color="C3", lw=0.8)
    axes[0].annotate("μs 0.3 → 0.5", (4.0, axes[0].get_ylim()[1]), color="C3",
                     xytext=(4, -12), textcoords="offset points")
    fig.suptitle("LuGre sliding block (MotionSolve tutorial MV-9003):\nslides under the push, "
                 "stops once μs is raised at 4 s")
    fig.tight_layout()
    return fig
