"""The optional packages of the studies (the ``studies`` extra), imported on first use with a
message that names the extra to install instead of a bare ``No module named …``."""

from __future__ import annotations

import importlib
from types import ModuleType

from ..errors import MissingDependencyError

__all__ = ["INSTALL", "require"]

INSTALL = "pip install 'stickslip[studies]'"

# module: (its name in a message, its pip name)
_PACKAGES = {"yaml": ("PyYAML", "pyyaml"), "pyarrow": ("pyarrow", "pyarrow"),
             "distributed": ("dask.distributed", "'dask[distributed]'")}


def require(module: str, feature: str, *, alternative: str = "") -> ModuleType:
    """Import `module` (one of the ``studies`` extra) or raise a MissingDependencyError
    saying that `feature` needs it and how to install it (`alternative`: another way)."""
    try:
        return importlib.import_module(module)
    except ImportError:
        name, pip = _PACKAGES.get(module, (module, module))
        raise MissingDependencyError(
            f"{feature} need {name}, which is not installed. Install the studies extra: "
            f"`{INSTALL}` (or `pip install {pip}`){alternative}.") from None
