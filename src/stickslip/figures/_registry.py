"""The list of reproduced figures and the runner behind ``stickslip figures``."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

__all__ = ["FigureSpec", "make_figures"]


@dataclass(frozen=True)
class FigureSpec:
    """One reproduced figure: `make(out_dir)` writes ``<name>.png`` and ``<name>.csv`` into
    `out_dir` and returns the key numbers for ``summary.json``."""

    name: str
    title: str
    source: str
    make: Callable[[Path], dict]


def make_figures(specs: list[FigureSpec], out: Path, progress: bool = True) -> dict:
    """Run every spec, write ``out/summary.json`` and return the summary."""
    import matplotlib

    matplotlib.use("Agg")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    summary: dict = {}
    if progress:
        from rich.progress import Progress

        with Progress() as bar:
            task = bar.add_task("figures", total=len(specs))
            for spec in specs:
                bar.update(task, description=f"{spec.name}")
                summary[spec.name] = {"title": spec.title, "source": spec.source,
                                      **spec.make(out)}
                bar.advance(task)
    else:
        for spec in specs:
            summary[spec.name] = {"title": spec.title, "source": spec.source, **spec.make(out)}
    (out / "summary.json").write_text(json.dumps(summary, indent=2, default=float))
    return summary
