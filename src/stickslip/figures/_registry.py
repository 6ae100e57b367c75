"""The list of reproduced figures and the runner behind ``stickslip figures``.

The list is plain data (name, title, source, module), so ``stickslip figures --list`` and the
name check need no simulation code; a figure's module is imported when it is made.
"""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator

__all__ = ["FigureSpec", "FIGURES", "FIGURE_NAMES", "make_figures"]


@dataclass(frozen=True)
class FigureSpec:
    """One reproduced figure: ``make(out_dir)`` writes ``<name>.png`` and ``<name>.csv`` into
    `out_dir` and returns the key numbers for ``summary.json``.

    name: file stem and the name ``stickslip figures --only`` takes.
    title: one line saying what the figure shows.
    source: the published source the figure reproduces, as a reader can look it up: authors,
        figure or equation number and the topic in words (``stickslip figures --list`` and
        ``summary.json`` show it; a pip user has no SPEC.md, so no "SPEC §n" here).
    module: the module of ``stickslip.figures`` whose ``make(out_dir) -> dict`` draws it.
    """

    name: str
    title: str
    source: str
    module: str

    def make(self, out_dir: Path) -> dict:
        """Draw the figure into `out_dir` and return its key numbers."""
        module = importlib.import_module(f"stickslip.figures.{self.module}")
        return module.make(Path(out_dir))


FIGURES: list[FigureSpec] = [
    FigureSpec("fig3_stiction", "Sub-static oscillating load: eq. 10 vs LuGre vs tanh",
               "Xiong, Kikuuwe & Yamamoto, Fig. 3: Coulomb friction as an ODE, eq. 10",
               "_fig3_stiction"),
    FigureSpec("fig5_restitution", "Drop on a wall, α = β, 0.7β, 0.5β, 0.1β",
               "Xiong, Kikuuwe & Yamamoto, Fig. 5: rigid contact as an ODE, eq. 16",
               "_fig5_restitution"),
    FigureSpec("example1_plane", "Point on a frictional plane: slide to rest, push in cone",
               "Xiong, Kikuuwe & Yamamoto, worked example 1, eq. 20–22", "_example1_plane"),
    FigureSpec("example2_conveyor", "Two blocks, a wall and a conveyor",
               "Xiong, Kikuuwe & Yamamoto, worked example 2, eq. 23–33", "_example2_conveyor"),
    FigureSpec("spatial_fig8", "Static-friction region: pyramidal LP vs previous method",
               "Wakisaka & Sugihara, Fig. 8: rigid contact force from the contact volume "
               "with a pyramidal friction constraint", "_spatial_fig8"),
    FigureSpec("psmc_chattering", "Naive SMC chatters, PSMC does not",
               "Kikuuwe & Fujimoto, ICRA 2006: proxy-based sliding mode control; Kikuuwe, "
               "slides: sliding mode control", "_psmc_chattering"),
    FigureSpec("psmc_step_response", "PSMC vs PID: small and large step",
               "Kikuuwe & Fujimoto, ICRA 2006: proxy-based sliding mode control; Kikuuwe, "
               "slides: advantages of PSMC", "_psmc_step_response"),
    FigureSpec("psmc_arm", "PSMC vs PID on a two-link arm with pin friction: a 1 rad step",
               "Kikuuwe & Fujimoto, ICRA 2006: proxy-based sliding mode control; Kikuuwe, "
               "slides: advantages of PSMC, here on a mechanism", "_psmc_arm"),
    FigureSpec("da_stick_slip", "Stick–slip of blocks pulled through springs, DA relaxation",
               "Kikuuwe, slides: differential-algebraic (DA) relaxation of friction",
               "_da_stick_slip"),
    FigureSpec("needle_insertion", "Needle insertion: tissue friction rendered by DA "
               "relaxation vs naive Coulomb", "Kikuuwe, slides: differential-algebraic (DA) "
               "relaxation of friction, needle-insertion haptics", "_needle_insertion"),
    FigureSpec("brush_tire", "Brush tire: force vs slip ratio, stick and slide regions",
               "Kikuuwe et al., SI2007: brush tire as a partial differential-algebraic "
               "inclusion; Kikuuwe, slides: vehicle simulation", "_brush_tire"),
    FigureSpec("brush_tire_combined", "Brush tire, combined slip: Fy and Mz vs slip angle, "
               "Fx–Fy in the friction circle", "Kikuuwe et al., SI2007: brush tire as a "
               "partial differential-algebraic inclusion, extended to combined slip; reference: "
               "Pacejka, Tire and Vehicle Dynamics, §3.2", "_brush_tire_combined"),
    FigureSpec("stick_slip_oscillator", "Stick–slip oscillator, static above kinetic: "
               "CoulombODE vs LuGre vs tanh vs one level", "the classic stick–slip "
               "oscillator, a mass on a spring over a moving belt (e.g. Popp & Stelter 1990), "
               "against its closed-form stick and slip times", "_stick_slip_oscillator"),
    FigureSpec("sliding_block_lugre", "Sliding block: LuGre element vs CoulombODE joint "
               "friction, μs raised at 4 s", "Altair MotionSolve tutorial MV-9003: LuGre "
               "friction element (Canudas de Wit et al. 1995)", "_sliding_block_lugre"),
]
FIGURE_NAMES: list[str] = [spec.name for spec in FIGURES]


def _quiet(specs: Iterable[FigureSpec]) -> Iterator[FigureSpec]:
    yield from specs


def make_figures(specs: Iterable[FigureSpec], out: Path,
                 progress: Callable[[list[FigureSpec]], Iterable[FigureSpec]] | None = None
                 ) -> dict:
    """Make every figure of `specs` in `out`, write ``out/summary.json``, return the summary.

    progress: wraps the list of specs while they are made (the CLI prints one line per
    figure); None is silent.
    """
    import matplotlib

    matplotlib.use("Agg")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    summary: dict = {}
    for spec in (progress or _quiet)(list(specs)):
        summary[spec.name] = {"title": spec.title, "source": spec.source, **spec.make(out)}
    (out / "summary.json").write_text(json.dumps(summary, indent=2, default=float))
    return summary
