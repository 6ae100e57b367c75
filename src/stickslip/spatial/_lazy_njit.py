"""numba kernels that import numba on their first call, not when their module is imported.

The volume contact's host loop and its helpers are numba kernels spread over a dozen modules
(`_dense`, `_dynamics`, `_qp`, the friction solvers, the volume clip). Decorated with
``numba.njit`` at import, they made ``import stickslip.spatial`` import numba: 0.3–0.6 s of
its 0.65–1.0 s on this project's 2-core machine (``python -X importtime``, 2026-11-26), paid
by every link-system and point-contact user, whose runs never call a numba kernel.

:func:`njit` takes numba's options and returns a decorator that records the function
instead. The first call of any recorded kernel imports numba, compiles every recorded
function with ``numba.njit(**options)`` (lazily, as numba does: each on its first call, or
from numba's on-disk cache), and replaces each recorded kernel wherever a ``stickslip``
module holds it as a global, so that a kernel calling another finds numba's dispatcher, not
the record, when numba types it. Functions decorated after that are compiled by numba
directly. The kernels' results and numba's cache are those of plain ``numba.njit``.

A caller outside numba that kept a record (a local alias, a default argument) still works:
the record forwards its calls to the dispatcher. A numba function of the user's own that
calls a record it imported before (``from stickslip.spatial._qp import solve_cone_qp`` at
the top of its module) works too: numba types the record by its ``_numba_type_``, which
binds the kernels and answers with the dispatcher's type.
"""

from __future__ import annotations

import functools
import importlib
import sys
import threading
from typing import Any, Callable, TypeVar

__all__ = ["njit", "numba_loaded"]

F = TypeVar("F", bound=Callable[..., Any])

_LOCK = threading.Lock()
_PENDING: list["_Kernel"] = []
_NUMBA: Any = None        # the numba module once a kernel has been called


class _Kernel:
    """A function numba will compile, standing in for the dispatcher until the first call."""

    def __init__(self, fn: Callable[..., Any], options: dict[str, Any]):
        functools.update_wrapper(self, fn)
        self.fn = fn
        self.options = options
        self.dispatcher: Any = None

    def __call__(self, *args: Any) -> Any:
        if self.dispatcher is None:
            _bind_all()
        return self._dispatcher()(*args)

    def _dispatcher(self) -> Callable[..., Any]:
        return self.dispatcher

    @property
    def _numba_type_(self) -> Any:
        """numba's type for this kernel where a user's own numba function calls it (numba
        reads ``_numba_type_`` of a global it cannot type otherwise): that of the
        dispatcher, after binding every kernel."""
        if self.dispatcher is None:
            _bind_all()
        return _NUMBA.core.types.Dispatcher(self.dispatcher)

    def __repr__(self) -> str:
        state = "compiled" if self.dispatcher is not None else "numba not yet imported"
        return f"<numba kernel {self.fn.__module__}.{self.fn.__qualname__} ({state})>"


def njit(**options: Any) -> Callable[[F], F]:
    """``numba.njit(**options)``, deferred until a kernel is first called (module doc)."""
    def decorate(fn: F) -> F:
        with _LOCK:
            if _NUMBA is not None:
                return _NUMBA.njit(**options)(fn)
            kernel = _Kernel(fn, options)
            _PENDING.append(kernel)
            return kernel  # type: ignore[return-value]
    return decorate


def numba_loaded() -> bool:
    """Whether a kernel has been called, so that numba is imported and the kernels bound."""
    return _NUMBA is not None


def _bind_all() -> None:
    global _NUMBA
    with _LOCK:
        if _NUMBA is None:
            numba = importlib.import_module("numba")
            for kernel in _PENDING:
                kernel.dispatcher = numba.njit(**kernel.options)(kernel.fn)
            for name, module in list(sys.modules.items()):
                if module is None or not (name == "stickslip" or name.startswith("stickslip.")):
                    continue
                namespace = vars(module)
                for attr, value in list(namespace.items()):
                    if isinstance(value, _Kernel):
                        namespace[attr] = value.dispatcher
            _PENDING.clear()
            _NUMBA = numba
