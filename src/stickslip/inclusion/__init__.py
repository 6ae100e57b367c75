"""The inclusion compiler (SPEC §4): write ``ẋ ∈ Φ(x)`` with ``Dio`` and ``Sgn``, get an ODE.

>>> import sympy as sp, stickslip as ss
>>> from stickslip.inclusion import DifferentialInclusion, Dio, Sgn, compile_inclusion
>>> x, v, m, F = sp.symbols("x v m F")
>>> block = DifferentialInclusion([x, v], [v, -F * Sgn(v) / m],
...                               parameters={m: 1.0, F: 2.0}, initial={v: 1.0})
>>> system = compile_inclusion(block)
>>> system.state_names
('x', 'v', 'a')

Public names: :class:`Sgn`, :class:`Dio`, :class:`DifferentialInclusion`,
:func:`compile_inclusion`, :class:`CompiledInclusion`, and ready-made inclusions in
:mod:`stickslip.inclusion.examples`. SymPy is needed (``pip install 'stickslip[symbolic]'``);
``import stickslip`` itself does not import it.
"""

try:
    import sympy as _sympy  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "stickslip.inclusion needs SymPy, which is not installed. Install it with "
        "`pip install 'stickslip[symbolic]'` (or `pip install sympy`).") from exc

from . import examples as examples
from ._compile import DEFAULT_CONSTANTS as DEFAULT_CONSTANTS
from ._compile import compile_inclusion as compile_inclusion
from ._functions import Dio as Dio
from ._functions import Sgn as Sgn
from ._inclusion import DifferentialInclusion as DifferentialInclusion
from ._system import CompiledInclusion as CompiledInclusion

__all__ = ["Sgn", "Dio", "DifferentialInclusion", "compile_inclusion", "CompiledInclusion",
           "DEFAULT_CONSTANTS", "examples"]
