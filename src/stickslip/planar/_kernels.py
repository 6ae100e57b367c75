"""Compiled host-side kernels of a :class:`~stickslip.planar.PlanarSystem` shared by the
analyses and the step check: each is an ``eqx.filter_jit`` function, compiled once per model
structure (the static :class:`~stickslip.planar._system.Layout`) and reused by every caller
in the process (assembly, the DOF check, consistent velocities, the mode estimates)."""

from __future__ import annotations

import equinox as eqx

__all__ = ["kinematics_at"]


@eqx.filter_jit
def kinematics_at(system, q, t):
    """(Φ, Φ_q, ν) at (q, t), from one grouped evaluation of the constraints."""
    return system.kinematics_terms(q, t)[:3]
