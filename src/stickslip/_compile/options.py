"""XLA's options for the programs stickslip compiles itself: one setting, one check.

On the CPU, XLA's elemental IR emitters instead of its newer MLIR fusion emitters
(``xla_cpu_use_fusion_emitters=False``). stickslip's kernels are hundreds of small fusions
(scalar, 3- and 6-vector arithmetic inside loops); the MLIR pipeline compiles each on its
own and took about half to two thirds of a compile. With the elemental emitters the same
programs compile 2–3× faster and run as fast, with the same results — the friction
slider–crank's RK step 2.63 → 1.37 s CPU, its first call 6.4 → 4.7 s
(``benchmarks/results/planar_compile_events.md``); a one-box volume-contact run likewise
(``benchmarks/results/spatial_volume_jax.md``).

The options go to each program (``jax.jit(..., compiler_options=...)``), never to the
process: a user's own programs keep XLA's defaults. None on other backends, or where this
XLA no longer knows the option (checked once per process, on a one-line program).
"""

from __future__ import annotations

import functools
import logging

import jax
import numpy as np

__all__ = ["compiler_options"]

_log = logging.getLogger(__name__)

_OPTIONS = {"cpu": {"xla_cpu_use_fusion_emitters": False}}


@functools.cache
def compiler_options() -> dict:
    """The options for a program on the default backend (module docstring); ``{}`` where
    there are none or this XLA refuses them."""
    options = _OPTIONS.get(jax.default_backend(), {})
    if not options:
        return {}
    try:
        jax.jit(lambda x: x + 1.0, compiler_options=options).lower(np.zeros(1)).compile()
    except Exception as exc:           # noqa: BLE001 — a JAX/XLA without it: its defaults
        _log.debug("stickslip: compiler options %s refused (%s)", options, exc)
        return {}
    return dict(options)
