"""Reproductions of the source documents' figures (``stickslip figures --out DIR``).

Each module writes ``<name>.png`` and ``<name>.csv`` and returns the key numbers that go
into ``summary.json``. To add a figure: write a module with a ``make(out_dir) -> dict``
function and append a :class:`FigureSpec` to ``FIGURES`` below.
"""

from . import _example1_plane, _example2_conveyor, _fig3_stiction, _fig5_restitution
from ._registry import FigureSpec as FigureSpec
from ._registry import make_figures as make_figures

FIGURES: list[FigureSpec] = [
    FigureSpec("fig3_stiction", "Sub-static oscillating load: eq. 10 vs LuGre vs tanh",
               "SPEC §2 Fig. 3", _fig3_stiction.make),
    FigureSpec("fig5_restitution", "Drop on a wall, α = β, 0.7β, 0.5β, 0.1β",
               "SPEC §3 Fig. 5", _fig5_restitution.make),
    FigureSpec("example1_plane", "Point on a frictional plane: slide to rest, push in cone",
               "SPEC §5 example 1", _example1_plane.make),
    FigureSpec("example2_conveyor", "Two blocks, a wall and a conveyor",
               "SPEC §5 example 2", _example2_conveyor.make),
]
