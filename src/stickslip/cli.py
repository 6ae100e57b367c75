"""The ``stickslip`` command line: ``stickslip --version``, ``stickslip figures --out DIR``."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ._version import __version__

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="stickslip: friction and contact as Lipschitz ODEs.")


def _version(value: bool):
    if value:
        typer.echo(f"stickslip {__version__}")
        raise typer.Exit()


@app.callback()
def _root(version: Optional[bool] = typer.Option(None, "--version", callback=_version,
                                                 is_eager=True, help="Print the version.")):
    """stickslip: friction and contact as Lipschitz ODEs."""


@app.command()
def figures(out: Path = typer.Option(Path("figures"), "--out", help="Output directory."),
            only: Optional[list[str]] = typer.Option(None, "--only",
                                                     help="Make only these figures."),
            list_: bool = typer.Option(False, "--list", help="List the figures and exit.")):
    """Reproduce the source papers' figures as PNG + CSV, with DIR/summary.json."""
    from .figures import FIGURES, make_figures

    if list_:
        for spec in FIGURES:
            typer.echo(f"{spec.name:28s} {spec.title}  [{spec.source}]")
        return
    specs = FIGURES
    if only:
        known = {spec.name for spec in FIGURES}
        unknown = sorted(set(only) - known)
        if unknown:
            typer.echo(f"unknown figure(s) {unknown}; known: {sorted(known)}", err=True)
            raise typer.Exit(2)
        specs = [spec for spec in FIGURES if spec.name in only]
    summary = make_figures(specs, out)
    typer.echo(f"wrote {len(summary)} figures and summary.json to {out}")


def main():
    app()


if __name__ == "__main__":
    main()
