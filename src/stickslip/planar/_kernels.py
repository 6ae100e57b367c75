"""Compiled host-side kernels of a :class:`~stickslip.planar.PlanarSystem` shared by the
analyses and the step check. Each goes through the program store
(:func:`stickslip.integrate.call_with_system`): compiled once per model structure, reused by
every caller in the process (assembly, the DOF check, consistent velocities, the mode
estimates) and kept for the next process."""

from __future__ import annotations

import jax
import numpy as np

from ..integrate import call_with_system

__all__ = ["host_call", "host_kinematics"]


def host_call(kernel, system, *arrays, **options):
    """``kernel(system, *arrays, **options)`` compiled through the program store (`options`
    static), as NumPy (a pytree of arrays)."""
    arrays = tuple(jax.device_put(np.asarray(a, dtype=float)) for a in arrays)
    return jax.tree.map(np.asarray, call_with_system(kernel, system, *arrays, **options))


def _kinematics(system, q, t):
    """(Φ, Φ_q, ν) at (q, t), from one grouped evaluation of the constraints."""
    return system.kinematics_terms(q, t)[:3]


def host_kinematics(system, q, t) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(Φ, Φ_q, ν) at (q, t) [NumPy]: one compiled program per model structure."""
    return host_call(_kinematics, system, q, float(t))
