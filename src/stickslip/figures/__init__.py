"""Reproductions of the source documents' figures (``stickslip figures --out DIR``).

Each module writes ``<name>.png`` and ``<name>.csv`` and returns the key numbers that go
into ``summary.json``. To add a figure: write a module with a ``make(out_dir) -> dict``
function and append a :class:`FigureSpec` to ``FIGURES`` below.
"""

from ._registry import FigureSpec as FigureSpec
from ._registry import make_figures as make_figures

FIGURES: list[FigureSpec] = []
