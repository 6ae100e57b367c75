"""Reproductions of the source documents' figures (``stickslip figures --out DIR``).

Each figure module writes ``<name>.png`` and ``<name>.csv`` and returns the key numbers that
go into ``summary.json``. To add a figure: write a module with a ``make(out_dir) -> dict``
function and append a :class:`FigureSpec` naming it to ``FIGURES`` in ``_registry.py``.
"""

from ._registry import FIGURE_NAMES as FIGURE_NAMES
from ._registry import FIGURES as FIGURES
from ._registry import FigureSpec as FigureSpec
from ._registry import make_figures as make_figures

__all__ = ["FIGURES", "FIGURE_NAMES", "FigureSpec", "make_figures"]
