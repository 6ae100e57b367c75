"""Reproductions of the source documents' figures (``stickslip figures --out DIR``).

Each module writes ``<name>.png`` and ``<name>.csv`` and returns the key numbers that go
into ``summary.json``. To add a figure: write a module with a ``make(out_dir) -> dict``
function and append a :class:`FigureSpec` to ``FIGURES`` below.
"""

from . import _example1_plane, _example2_conveyor, _fig3_stiction, _fig5_restitution
from . import _brush_tire, _da_stick_slip, _psmc_chattering, _psmc_step_response
from . import _sliding_block_lugre, _spatial_fig8
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
    FigureSpec("spatial_fig8", "Static-friction region: pyramidal LP vs previous method",
               "SPEC §7, Wakisaka & Sugihara Fig. 8", _spatial_fig8.make),
    FigureSpec("psmc_chattering", "Naive SMC chatters, PSMC does not",
               "SPEC §6 (slides: sliding mode control)", _psmc_chattering.make),
    FigureSpec("psmc_step_response", "PSMC vs PID: small and large step",
               "SPEC §6 (slides: advantages of PSMC)", _psmc_step_response.make),
    FigureSpec("da_stick_slip", "Stick–slip with several friction forces, DA relaxation",
               "SPEC §6 (slides: DA relaxation)", _da_stick_slip.make),
    FigureSpec("brush_tire", "Brush tire: force vs slip ratio, stick and slide regions",
               "SPEC §6 (slides: vehicle simulation, SI2007)", _brush_tire.make),
    FigureSpec("sliding_block_lugre", "Sliding block: LuGre element vs CoulombODE joint "
               "friction, μs raised at 4 s", "SPEC §8 (MotionSolve LuGre tutorial)",
               _sliding_block_lugre.make),
]
