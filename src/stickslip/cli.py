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


examples_app = typer.Typer(no_args_is_help=True, help="Ready-made mechanisms (planar, SPEC §9).")
app.add_typer(examples_app, name="examples")


@examples_app.command("list")
def examples_list():
    """List the examples."""
    from .planar.examples import EXAMPLES

    for name, (title, _) in EXAMPLES.items():
        typer.echo(f"{name:18s} {title}")


@examples_app.command("run")
def examples_run(name: str = typer.Argument(..., help="Example name (see `examples list`)."),
                 out: Path = typer.Option(Path("examples_out"), "--out", help="Output directory."),
                 animation: bool = typer.Option(True, "--animation/--no-animation",
                                                help="Write the GIF animation.")):
    """Run one example: CSV of every channel, trajectory plot, GIF and key numbers."""
    from .planar.examples import EXAMPLES, run_example

    if name not in EXAMPLES:
        typer.echo(f"unknown example {name!r}; known: {sorted(EXAMPLES)}", err=True)
        raise typer.Exit(2)
    summary = run_example(name, out, animation=animation)
    for key, value in summary.items():
        typer.echo(f"{key}: {value}")
    typer.echo(f"wrote {name}.csv, {name}_trajectory.png"
               + (f", {name}.gif" if animation else "") + f" and {name}.json to {out}")


@app.command("sweep")
def sweep_command(spec: Path = typer.Argument(..., help="Sweep spec file (.yaml or .toml)."),
                  progress: bool = typer.Option(True, "--progress/--no-progress",
                                                help="Show a progress bar.")):
    """Run a parameter sweep described by SPEC (docs/studies.md); writes its `out` table."""
    from .studies import SpecError, run_spec

    try:
        table = run_spec(spec, progress=progress, kind="sweep")
    except SpecError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2)
    failed = int(table["error"].notna().sum())
    typer.echo(f"{len(table)} points ({table.attrs['computed']} computed, "
               f"{table.attrs['reused']} from the store, {failed} failed) in "
               f"{table.attrs['wall_time']:.1f} s")


@app.command("fit")
def fit_command(spec: Path = typer.Argument(..., help="Fit spec file (.yaml or .toml).")):
    """Fit model parameters to measured data as described by SPEC (docs/studies.md)."""
    from .studies import SpecError, run_spec

    try:
        result = run_spec(spec, kind="fit")
    except SpecError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2)
    typer.echo(repr(result))


def main():
    app()


if __name__ == "__main__":
    main()
