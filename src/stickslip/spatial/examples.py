"""Ready-made spatial link systems with figures — run by
``stickslip examples run NAME``, used by the tests and docs/spatial.md.

Each example is a function ``name(t_end=..., ...) -> Example``: it builds its model(s) with
the builders below (``sphere_on_ground``, ``gripper``, ``four_bar``, ``arm_and_box``), runs
them, and measures the physics its figure shows against a closed form. ``Example.save(out)``
writes ``<name>.png`` (the figure), ``<name>.csv`` (the figure's data, one column per curve)
and ``<name>.json`` (the key numbers); :func:`run_example` does that for a registered name.

>>> from stickslip.spatial.examples import EXAMPLES
>>> sorted(EXAMPLES)
['arm_pushes_box', 'four_bar_friction', 'gripper', 'sphere_slip_roll']

Point contacts are solved as a λ-problem per step (SPEC §6), so the contact examples stay
small: a few contacts, dt = 1 ms, a second or so.
"""

from __future__ import annotations

from ..errors import ParameterError
from ._examples_base import Example
from ._examples_contact import gripper, gripper_hold_and_slip, sphere_on_ground, sphere_slip_roll
from ._examples_links import (ARM, FOUR_BAR, PUSH, arm_and_box, arm_pushes_box, four_bar,
                              four_bar_friction, four_bar_points)

__all__ = ["Example", "EXAMPLES", "run_example", "sphere_on_ground", "gripper", "four_bar",
           "arm_and_box", "sphere_slip_roll", "gripper_hold_and_slip", "four_bar_friction",
           "arm_pushes_box", "four_bar_points", "FOUR_BAR", "ARM", "PUSH"]

# --- registry -----------------------------------------------------------------------------------
EXAMPLES = {
    "sphere_slip_roll": ("Sphere launched sliding without spin: slips, then rolls at 5/7 v0 "
                         "(the slip-to-rolling transition of Kikuuwe, slides)",
                         sphere_slip_roll),
    "gripper": ("Two fingers on prismatic joints hold a box by friction; a weaker grip lets "
                "it slide at g − 2μG/m", gripper_hold_and_slip),
    "four_bar_friction": ("3-D four-bar released under gravity, Coulomb friction μ·a·N in the "
                          "crank pin: swings, then sticks", four_bar_friction),
    "arm_pushes_box": ("2-link arm on position-driven hinges pushes a box on the ground "
                       "(robot–object contact, the setting of Wakisaka & Sugihara)",
                       arm_pushes_box),
}


def run_example(name: str, out, **options) -> dict:
    """Run spatial example `name` (`options` go to its function, e.g. ``t_end=``) and write
    ``<name>.png``, ``<name>.csv`` and ``<name>.json`` into directory `out`. Returns the key
    numbers with ``"files"``, the written paths."""
    if name not in EXAMPLES:
        raise ParameterError(f"unknown spatial example {name!r}; choose one of "
                             f"{sorted(EXAMPLES)}.")
    example = EXAMPLES[name][1](**options)
    files = example.save(out)
    return {"example": name, "title": EXAMPLES[name][0], **example.numbers,
            "files": [str(f) for f in files]}

