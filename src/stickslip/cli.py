"""The ``stickslip`` command line.

::

    stickslip --version
    stickslip figures --out DIR [--only NAME,NAME] [--list]
    stickslip examples list | stickslip examples run NAME --out DIR

How it behaves, for every command:

- ``-h`` and ``--help`` print the help; flags are shown as flags.
- Only this file and typer load at start-up: ``--version`` and ``--help`` take a fraction of
  a second. A command imports the parts of stickslip (and so JAX, numba, matplotlib) it needs
  inside its own body.
- Every error ends the run with one line on stderr and a non-zero exit status: 2 for a bad
  command line (unknown option, unknown figure, an ``--out`` that cannot be written), 1 for
  a stickslip error or an I/O failure during the run. No traceback for anything a user can
  cause.
- Long runs print one line per step as they go, also when the output is piped or logged.

Adding a command: a function decorated with ``@app.command()`` (or on a sub-``typer.Typer``
added with ``app.add_typer``) that takes typed options, checks an output directory with
:func:`output_dir`, imports what it needs inside its body, and reports progress with
:func:`progress` — nothing else is needed for help, ``-h`` and one-line errors.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Iterable, Iterator, Optional, TypeVar

import typer
from typer.core import TyperGroup

from ._version import __version__

__all__ = ["app", "main", "output_dir", "progress"]

T = TypeVar("T")
_CONTEXT = {"help_option_names": ["-h", "--help"]}


def _click_class(name: str) -> type:
    """A class of the click that typer uses (typer >= 0.20 vendors its own copy of click)."""
    for cls in typer.BadParameter.__mro__:
        if cls.__name__ == name:
            return cls
    raise ImportError(f"typer's click has no {name}")  # pragma: no cover


_ClickException = _click_class("ClickException")
_UsageError = _click_class("UsageError")


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


class _OneLineErrors(TyperGroup):
    """The root command: every error becomes one line on stderr and a non-zero exit."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True,
             **extra):
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except _ClickException as error:
            message = _one_line(error.format_message())
            if isinstance(error, _UsageError) and error.ctx is not None:
                message += f" (see '{error.ctx.command_path} --help')"
            _fail(message, error.exit_code)
        except typer.Abort:
            _fail("aborted", 1)
        except KeyboardInterrupt:
            _fail("interrupted", 130)
        except Exception as error:  # a user's bad input deep inside a run
            from .errors import StickslipError

            if isinstance(error, StickslipError):
                _fail(_one_line(error), 1)
            if isinstance(error, OSError):
                _fail(_one_line(f"{error.strerror or error}"
                                + (f": {error.filename}" if error.filename else "")), 1)
            raise
        sys.exit(code if isinstance(code, int) else 0)


_progress_line_open = False        # a "[i/n] name ..." line waits for its time


def _fail(message: str, code: int):
    global _progress_line_open
    if _progress_line_open:                       # end the progress line before the error
        typer.echo(" failed")
        _progress_line_open = False
    typer.echo(f"stickslip: error: {message}", err=True)
    sys.exit(code)


app = typer.Typer(cls=_OneLineErrors, name="stickslip", add_completion=False, no_args_is_help=True,
                  rich_markup_mode=None, context_settings=_CONTEXT,
                  help="stickslip: friction and contact as Lipschitz ODEs "
                       "(Xiong, Kikuuwe & Yamamoto). See 'stickslip COMMAND -h'.")


def output_dir(path: Path, option: str = "--out") -> Path:
    """Create `path` (with parents) and check that files can be written into it.

    Raises a usage error naming `option`, the path and the reason (a file in the way, no
    permission, read-only disk, …) before any work starts.
    """
    path = Path(path).expanduser()
    for parent in (path, *path.parents):
        if parent.exists():
            if not parent.is_dir():
                where = f"{path} is a file" if parent == path else f"{path}: {parent} is a file"
                raise typer.BadParameter(f"{where}, not a directory; "
                                         "give a directory path", param_hint=f"'{option}'")
            break
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / f".stickslip-write-test-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as error:
        raise typer.BadParameter(f"cannot write into {path} ({error.strerror or error}); "
                                 "give a directory you can write to",
                                 param_hint=f"'{option}'") from None
    return path


def progress(items: Iterable[T], label, total: Optional[int] = None) -> Iterator[T]:
    """Yield `items`, printing ``[i/n] label(item) ...`` before each and its time after.

    Plain lines flushed at once, so a piped or logged run shows where it is (the first run
    of a session spends most of its time compiling).
    """
    global _progress_line_open
    items = list(items) if total is None else items
    total = len(items) if total is None else total
    for i, item in enumerate(items, 1):
        typer.echo(f"[{i}/{total}] {label(item)} ...", nl=False)
        sys.stdout.flush()
        _progress_line_open = True
        start = time.perf_counter()
        yield item
        _progress_line_open = False
        typer.echo(f" {time.perf_counter() - start:.1f} s")


def _version(value: bool):
    if value:
        typer.echo(f"stickslip {__version__}")
        raise typer.Exit()


@app.callback()
def _root(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                       help="Print the version and exit.")):
    """stickslip: friction and contact as Lipschitz ODEs."""


def _split_names(values: Iterable[str]) -> list[str]:
    names = []
    for value in values:
        names += [name for name in value.replace(",", " ").split() if name]
    return names


@app.command(context_settings=_CONTEXT)
def figures(
    names: Optional[list[str]] = typer.Argument(
        None, metavar="NAME", show_default=False,
        help="Figures to make (same as --only); all when none is given."),
    out: Path = typer.Option(Path("figures"), "--out", "-o", metavar="DIR",
                             help="Output directory (created if missing)."),
    only: Optional[list[str]] = typer.Option(
        None, "--only", metavar="NAME[,NAME...]", show_default=False,
        help="Make only these figures: '--only a,b', '--only a b' and '--only a --only b' "
             "all work."),
    list_: bool = typer.Option(False, "--list", help="List the figures and exit."),
):
    """Reproduce the source papers' figures: DIR/NAME.png + NAME.csv and DIR/summary.json.

    The first run compiles the simulations (a few minutes); later runs reuse JAX's and
    numba's caches.
    """
    from .figures._registry import FIGURE_NAMES

    if list_:
        from .figures import FIGURES

        for spec in FIGURES:
            typer.echo(f"{spec.name:22s} {spec.title}  [{spec.source}]")
        return
    wanted = _split_names([*(only or []), *(names or [])])
    if only is not None and not wanted:
        raise typer.BadParameter("no figure name given; see 'stickslip figures --list'",
                                 param_hint="'--only'")
    unknown = [name for name in wanted if name not in FIGURE_NAMES]
    if unknown:
        raise typer.BadParameter(
            f"unknown figure {', '.join(map(repr, unknown))}; known: {', '.join(FIGURE_NAMES)}",
            param_hint="'--only'")
    out = output_dir(out)
    typer.echo(f"stickslip {__version__}: making {len(wanted) or len(FIGURE_NAMES)} figures "
               f"in {out}")
    from .figures import FIGURES, make_figures

    specs = [spec for spec in FIGURES if not wanted or spec.name in wanted]
    summary = make_figures(specs, out, progress=lambda specs: progress(
        specs, lambda spec: f"{spec.name}: {spec.title}"))
    typer.echo(f"wrote {len(summary)} figures (PNG + CSV) and summary.json to {out}")


examples_app = typer.Typer(no_args_is_help=True, rich_markup_mode=None,
                           context_settings=_CONTEXT,
                           help="Ready-made planar mechanisms and spatial link systems: list "
                                "them, run one.")
app.add_typer(examples_app, name="examples")


@examples_app.command("list", context_settings=_CONTEXT)
def examples_list():
    """List the examples."""
    from .planar.examples import EXAMPLES
    from .spatial.examples import EXAMPLES as SPATIAL

    for name, (title, _) in {**EXAMPLES, **SPATIAL}.items():
        typer.echo(f"{name:18s} {title}")


@examples_app.command("run", context_settings=_CONTEXT)
def examples_run(
    name: str = typer.Argument(..., metavar="NAME", help="Example name (see 'examples list')."),
    out: Path = typer.Option(Path("examples_out"), "--out", "-o", metavar="DIR",
                             help="Output directory (created if missing)."),
    animation: bool = typer.Option(True, "--animation/--no-animation",
                                   help="Write the GIF animation."),
):
    """Run one example: CSV of every channel, trajectory plot, GIF and key numbers."""
    from .planar.examples import EXAMPLES
    from .spatial.examples import EXAMPLES as SPATIAL

    if name not in EXAMPLES and name not in SPATIAL:
        raise typer.BadParameter(f"unknown example {name!r}; known: "
                                 f"{', '.join([*EXAMPLES, *SPATIAL])}", param_hint="'NAME'")
    out = output_dir(out)
    if name in SPATIAL:                  # figure (PNG + CSV) and key numbers; no animation
        from .spatial.examples import run_example as run_spatial

        typer.echo(f"running {name} (the first run of a session compiles) ...")
        start = time.perf_counter()
        summary = run_spatial(name, out)
        typer.echo(f"done in {time.perf_counter() - start:.1f} s")
        for key, value in summary.items():
            typer.echo(f"{key}: {value}")
        return
    typer.echo(f"running {name} (the first run of a session compiles, ~20 s) ...")
    from .planar.examples import run_example

    start = time.perf_counter()
    summary = run_example(name, out, animation=animation)
    typer.echo(f"done in {time.perf_counter() - start:.1f} s")
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
    """Entry point of the ``stickslip`` script."""
    app(prog_name="stickslip")


if __name__ == "__main__":
    main()
