"""XLA's options for the programs stickslip compiles itself: one setting, one check.

On the CPU, XLA's elemental IR emitters instead of its newer MLIR fusion emitters
(``xla_cpu_use_fusion_emitters=False``). stickslip's kernels are hundreds of small fusions
(scalar, 3- and 6-vector arithmetic inside loops); the MLIR pipeline compiles each on its
own and took about half to two thirds of a compile. With the elemental emitters the same
programs compile 2–3× faster and run as fast, with the same results — the friction
slider–crank's RK step 2.63 → 1.37 s CPU, its first call 6.4 → 4.7 s
(``benchmarks/results/planar_compile_events.md``); a one-box volume-contact run likewise
(``benchmarks/results/spatial_volume_jax.md``).

A program that runs once — a model's build-time kinematics, a run's initial state — is
compiled for compile speed instead (:func:`runs_once`): LLVM's optimisation level 0
(``xla_backend_optimization_level=0``). Its one run takes microseconds either way; its
compile halves: the 3-D arm's build kinematics 0.78 → 0.39 s, its initial state 0.083 →
0.053 s (``jax.jit(...).lower(...).compile()``, median of 3, alternating, 2026-11-27). The
step programs keep level 2: at level 0 the cart's Moreau–Jean step ran 2–3× slower.

The options go to each program (``jax.jit(..., compiler_options=...)``), never to the
process: a user's own programs keep XLA's defaults. None on other backends, or where this
XLA no longer knows the option (checked once per process, on a one-line program).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable

__all__ = ["compiler_options", "is_run_once", "runs_once"]

_log = logging.getLogger(__name__)

_OPTIONS = {"cpu": {"xla_cpu_use_fusion_emitters": False}}
_RUN_ONCE = {"cpu": {"xla_backend_optimization_level": 0}}


def runs_once(kernel: Callable) -> Callable:
    """Mark `kernel` (a function the program store compiles) as run once per program: it is
    compiled for compile speed (module docstring). Returns `kernel` itself."""
    kernel.__stickslip_runs_once__ = True       # type: ignore[attr-defined]
    return kernel


def is_run_once(kernel: Callable) -> bool:
    """Whether :func:`runs_once` marked `kernel`."""
    return bool(getattr(kernel, "__stickslip_runs_once__", False))


@functools.cache
def compiler_options(once: bool = False) -> dict:
    """The options for a program on the default backend (module docstring), `once` for a
    program that runs once (:func:`runs_once`); ``{}`` where there are none or this XLA
    refuses them."""
    import jax              # here, not at import: runs_once marks kernels in modules that
    import numpy as np      # a model's build imports before JAX is needed

    backend = jax.default_backend()
    options = dict(_OPTIONS.get(backend, {}), **(_RUN_ONCE.get(backend, {}) if once else {}))
    if not options:
        return {}
    try:
        jax.jit(lambda x: x + 1.0, compiler_options=options).lower(np.zeros(1)).compile()
    except Exception as exc:           # noqa: BLE001 — a JAX/XLA without it: its defaults
        _log.debug("stickslip: compiler options %s refused (%s)", options, exc)
        return {}
    return dict(options)
