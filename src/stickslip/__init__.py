"""stickslip: Coulomb friction and rigid contact as Lipschitz ODEs.

Importing stickslip turns on JAX's float64 mode (``jax_enable_x64``): friction proxies move
by F/K ~ 1e-5 m, which single precision cannot resolve.
"""

import jax as _jax

_jax.config.update("jax_enable_x64", True)

from . import errors, integrate, laws, nonsmooth, systems  # noqa: E402
from . import constraints, control, discrete, planar  # noqa: E402
from ._version import __version__  # noqa: E402
from .integrate import largest_stable_step, simulate, simulate_batch, stack_systems  # noqa: E402
from .results import Results  # noqa: E402
from .errors import (  # noqa: E402
    InclusionError,
    ModelError,
    PainleveError,
    ParameterError,
    SimulationError,
    StickslipError,
)


def __getattr__(name):
    # imported on first use so `import stickslip` stays light: `stickslip.inclusion` needs
    # SymPy, `stickslip.spatial` numba
    if name in ("inclusion", "spatial"):
        import importlib

        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'stickslip' has no attribute {name!r}")


__all__ = [
    "__version__", "errors", "integrate", "laws", "nonsmooth", "systems", "constraints", "control",
    "discrete",
    "planar", "spatial",
    "simulate", "simulate_batch", "stack_systems", "largest_stable_step", "Results",
    "StickslipError", "ParameterError", "ModelError", "InclusionError", "SimulationError", "PainleveError",
]
