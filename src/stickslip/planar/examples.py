"""Ready-made planar mechanisms (SPEC §9 worked examples) — used by the tests, the
benchmark and ``stickslip examples``.

Every factory returns a :class:`~stickslip.planar.Model` whose bodies start near (not
exactly at) an assembled configuration; the analyses assemble it.

The models and their runs live by family in private modules — ``_examples_mechanisms``
(SPEC §9 worked examples), ``_examples_friction`` (the LuGre sliding block),
``_examples_impacts`` (stops and impacts), ``_slider_crank`` and ``_contact_examples``
(frictional contacts) — and are re-exported here with the registry :data:`EXAMPLES` and
:func:`run_example`.
"""

from __future__ import annotations

from ._examples_friction import (
    _run_sliding_block,
    join_segments,
    sliding_block,
    sliding_block_tutorial,
)
from ._examples_impacts import (
    _run_ball_in_box,
    _run_ball_on_paddle,
    _run_slider_end_stop,
    ball_in_box,
    ball_on_paddle,
    slider_end_stop,
)
from ._examples_mechanisms import (
    _run_cam,
    _run_double_pendulum,
    _run_four_bar,
    _run_gear_slider,
    _run_quick_return,
    _run_slider_crank,
    cam_follower,
    double_pendulum,
    four_bar,
    freudenstein,
    gear_slider,
    quick_return,
)
from ._slider_crank import slider_crank, slider_crank_squeal

__all__ = ["four_bar", "freudenstein", "slider_crank", "double_pendulum", "quick_return",
           "gear_slider", "cam_follower", "sliding_block", "sliding_block_tutorial",
           "slider_end_stop", "ball_in_box", "ball_on_paddle", "EXAMPLES",
           "run_example", "join_segments", "slider_crank_squeal"]


EXAMPLES = {
    # frictional contacts (SPEC §6; runners in _contact_examples.py)
    "clearance_slider": ("Slider–crank with a clearance slider (c = 1 mm, μ = 0.01): corner "
                         "gaps and forces (frictional unilateral contacts, Kikuuwe, slides)",
                         lambda out: _contact_run("clearance_slider", out)),
    "incline": ("Block on an incline: sticks at 20°, slides at 35° (Kikuuwe, slides: "
                "friction as a differential inclusion)",
                lambda out: _contact_run("incline", out)),
    "painleve_rod": ("Rod sliding on a floor: Painlevé error at μ = 2.5, run at μ = 0.3",
                     lambda out: _contact_run("painleve", out)),
    "box_on_ground": ("3-D box with point contacts, pushed: holds then slides",
                      lambda out: _contact_run("box", out)),
    # planar mechanisms (SPEC §9: textbook chapter 5, "Mechanisms and dynamics")
    "four_bar": ("Four-bar linkage driven at 1 rev/s: kinematics vs Freudenstein, inverse "
                 "dynamics (textbook ch. 5 “Mechanisms and dynamics”, example 8-1)",
                 _run_four_bar),
    "slider_crank": ("Slider-crank released at 60° under gravity, 10 s forward dynamics "
                     "(the slider–crank benchmark's model)", _run_slider_crank),
    "double_pendulum": ("Double pendulum as a DAE, 5 s (textbook ch. 5, example 8-2)",
                        _run_double_pendulum),
    "quick_return": ("Quick-return mechanism of a shaper, 6 bodies, DOF 18 − 17 = 1 "
                     "(textbook ch. 5, example 7-1)", _run_quick_return),
    "gear_slider": ("Gear–slider mechanism, 6 bodies, DOF 18 − 16 = 2 (textbook ch. 5, "
                    "example 7-2)", _run_gear_slider),
    "cam_follower": ("Eccentric cam lifting a spring-loaded flat-faced follower: kinematics "
                     "and contact force", _run_cam),
    "sliding_block": ("LuGre tutorial (Altair MotionSolve MV-9003): sliding block, μs raised "
                      "from 0.3 to 0.5 at 4 s, 8 s in two segments", _run_sliding_block),
    "slider_end_stop": ("Slider between travel limits, impacts with restitution 0.7 "
                        "(textbook ch. 5, example 9-1)", _run_slider_end_stop),
    "ball_on_paddle": ("Ball bouncing on a driven rocking paddle, restitution 0.8, impulse "
                       "through the constraint matrix (textbook ch. 5, example 9-1)",
                       _run_ball_on_paddle),
    "ball_in_box": ("Ball bouncing in a box, restitution 0.9, impact events (textbook ch. 5, "
                    "example 9-1)", _run_ball_in_box),
}


def _contact_run(which, out):
    from . import _contact_examples

    return getattr(_contact_examples, f"_run_{which}")(out)


def run_example(name: str, out, animation: bool = True) -> dict:
    """Run example `name` and write into directory `out`: ``<name>.csv`` (all channels),
    ``<name>_trajectory.png``, ``<name>.gif`` (animation) and ``<name>.json`` (key numbers).
    Returns the key numbers."""
    import json
    from pathlib import Path

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if name not in EXAMPLES:
        raise KeyError(f"unknown example {name!r}; choose one of {sorted(EXAMPLES)}.")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    model, res, summary, trace, plot = EXAMPLES[name][1](out)
    res.save(out / f"{name}.csv")
    if plot is not None:                   # an example whose story is not a trajectory
        fig = plot(model, res)
    else:
        fig, axes = plt.subplots(1, 2 if trace else 1, figsize=(11 if trace else 6, 5),
                                 squeeze=False)
        model.plot_trajectory(res, ax=axes[0, 0])
        if trace:
            model.plot_coupler_curve(res, trace[0], trace[1], ax=axes[0, 1])
        fig.tight_layout()
    fig.savefig(out / f"{name}_trajectory.png", dpi=120)
    plt.close(fig)
    if animation:                # a run shorter than 2 s is shown slowed down to 2 s (40 frames)
        span = float(res.t[-1] - res.t[0])
        model.animate(res, out / f"{name}.gif", fps=20, duration=min(5.0, max(2.0, span)),
                      trace=trace)
    summary = {"example": name, "title": EXAMPLES[name][0], **summary}
    (out / f"{name}.json").write_text(json.dumps(summary, indent=2, default=float))
    return summary
