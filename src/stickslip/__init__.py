"""stickslip: Coulomb friction and rigid contact as Lipschitz ODEs.

Importing stickslip turns on JAX's float64 mode (``jax_enable_x64``): friction proxies move
by F/K ~ 1e-5 m, which single precision cannot resolve. Unless the environment names its size
(``PJRT_NPROC``), it also gives XLA's CPU runtime one worker thread (``PJRT_NPROC=1``, read
when JAX first runs a program): stickslip's programs are hundreds of small operations a step,
and handing them between two threads cost more than it saved — measured on 2 cores
(2026-11-26): the 6-body cart's Moreau–Jean step 156–230 → 123–161 µs wall and half the CPU,
a batch of 100 boxes 124 → 101 µs per box-step. Set ``PJRT_NPROC`` yourself (e.g. to the core
count) before the first JAX program to keep the pool. Those are the only JAX options it
changes: stickslip keeps its own compiled runs in its program store (``~/.cache/stickslip/jax``
on Linux; ``STICKSLIP_JAX_CACHE=0`` turns it off), so a second process running the same model
does not compile them again, and JAX's persistent compilation cache for every program of the
process is opt-in: ``STICKSLIP_JAX_CACHE_ALL=1`` (see :mod:`stickslip._compile.jax_cache`).

The subpackages load on first use (``ss.laws``, ``ss.simulate``, ``from stickslip import
Results`` …), so ``import stickslip`` and the command line (``stickslip --version``) start in
a fraction of a second; JAX itself is imported by the first subpackage that needs it.
"""

import importlib as _importlib
import os as _os
import sys as _sys

from ._version import __version__
from .errors import (
    ChannelError,
    InclusionError,
    MemoryBudgetError,
    MissingDependencyError,
    ModelError,
    PainleveError,
    ParameterError,
    ResultsFileError,
    SimulationError,
    StickslipError,
)

# float64 before the first JAX array: set the flag now if JAX is loaded, else through the
# environment variable JAX reads when it is first imported (by the first subpackage used).
if "jax" in _sys.modules and hasattr(_sys.modules["jax"], "config"):
    _sys.modules["jax"].config.update("jax_enable_x64", True)
else:
    _os.environ["JAX_ENABLE_X64"] = "1"

# XLA's CPU thread pool (module docstring): its size is read from the environment when the CPU
# client is made, at the first JAX program; a user's own setting is kept
_os.environ.setdefault("PJRT_NPROC", "1")

from ._compile.jax_cache import configure_at_import as _configure_jax_cache  # noqa: E402

_configure_jax_cache()          # JAX's persistent cache only when STICKSLIP_JAX_CACHE_ALL opts in

_SUBPACKAGES = ("errors", "integrate", "laws", "nonsmooth", "systems", "control", "discrete",
                "planar", "results", "inclusion", "spatial", "constraints", "studies")
# public name -> the submodule it comes from
_NAMES = {
    "simulate": "integrate", "simulate_batch": "integrate", "stack_systems": "integrate",
    "largest_stable_step": "integrate", "Results": "results",
    "Output": "integrate", "Guard": "integrate", "Steps": "integrate",   # simulate's options
    "sweep": "studies", "fit": "studies",     # dask and pyarrow load only when used
    "export_fmu": "discrete",
}


def __getattr__(name):
    if name in _SUBPACKAGES:
        return _importlib.import_module(f".{name}", __name__)
    if name in _NAMES:
        value = getattr(_importlib.import_module(f".{_NAMES[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'stickslip' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "__version__", "errors", "integrate", "laws", "nonsmooth", "systems", "control", "discrete",
    "planar", "spatial", "constraints", "studies", "sweep", "fit",
    "simulate", "simulate_batch", "stack_systems", "largest_stable_step", "Results", "export_fmu",
    "Output", "Guard", "Steps",
    "StickslipError", "ParameterError", "ModelError", "InclusionError", "SimulationError",
    "ChannelError", "ResultsFileError", "MissingDependencyError", "PainleveError",
    "MemoryBudgetError",
]
