"""The LLVM settings under which `stickslip.spatial`'s numba kernels compile (issue 13: the
first run after installing compiled them for 25 s on a 2-core machine).

The kernels are short loops over arrays of a few dozen entries: LLVM's level-3 pipeline and
its loop and SLP vectorisers spend compile time on them without making them faster
(measured: the 1 s box benchmark runs equally fast; the cold first run is about a fifth
shorter at level 1 without vectorisers). numba 0.68 reads ``numba.config.OPT``,
``LOOP_VECTORIZE`` and ``SLP_VECTORIZE`` each time it builds a pass pipeline, so the
settings are applied only while our entry points run (a kernel compiles on its first call
there) and restored afterwards; other numba code in the process keeps its settings unless it
compiles inside a spatial callback at that moment. Compiled kernels are cached on disk
(``cache=True``) and later loads do not depend on these settings. Set the environment
variable ``STICKSLIP_NUMBA_DEFAULT_OPT=1`` to compile with numba's own settings instead.
"""

from __future__ import annotations

import contextlib
import os
import threading

import numba

__all__ = ["kernel_settings"]

_LOCK = threading.RLock()
_DEPTH = [0]
_SAVED: list = []


@contextlib.contextmanager
def kernel_settings():
    """Within the block, numba compiles at optimisation level 1 without vectorisers."""
    cfg = numba.config
    if os.environ.get("STICKSLIP_NUMBA_DEFAULT_OPT"):
        yield
        return
    with _LOCK:
        if _DEPTH[0] == 0:
            _SAVED[:] = [(cfg.OPT, cfg.LOOP_VECTORIZE, cfg.SLP_VECTORIZE)]
            level = type(cfg.OPT)(1) if hasattr(cfg.OPT, "is_opt_max") else 1
            cfg.OPT, cfg.LOOP_VECTORIZE, cfg.SLP_VECTORIZE = level, False, False
        _DEPTH[0] += 1
    try:
        yield
    finally:
        with _LOCK:
            _DEPTH[0] -= 1
            if _DEPTH[0] == 0:
                cfg.OPT, cfg.LOOP_VECTORIZE, cfg.SLP_VECTORIZE = _SAVED.pop()
