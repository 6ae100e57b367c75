"""The ``stickslip`` command line.

::

    stickslip --version
    stickslip figures --out DIR [--only NAME,NAME] [--list]
    stickslip examples list | stickslip examples run NAME --out DIR
    stickslip sweep SPEC_FILE | stickslip sweep --example [NAME]
    stickslip fit SPEC_FILE | stickslip fit --example [NAME]

How it behaves, for every command:

- ``-h`` and ``--help`` print the help; flags are shown as flags. A group given no
  command (``stickslip``, ``stickslip examples``) prints its help and exits 0.
- Only this file and typer load at start-up: ``--version`` and ``--help`` take a fraction of
  a second. A command imports the parts of stickslip (and so JAX, numba, matplotlib) it needs
  inside its own body.
- Every error ends the run with ``stickslip: error: …`` on stderr and a non-zero exit
  status: 2 for a bad command line (unknown option, unknown figure, an ``--out`` that cannot
  be written, an invalid spec file), 1 for a stickslip error or an I/O failure during the
  run (a missing optional package, a sweep whose every point failed). One line, except
  where one line per cause says more (a failed sweep). No traceback for anything a user can
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
from typing import Any, Iterable, Iterator, NoReturn, Optional, TypeVar

import typer
from typer.core import TyperGroup

from ._version import __version__

__all__ = ["app", "main", "output_dir", "progress"]

T = TypeVar("T")
_CONTEXT = {"help_option_names": ["-h", "--help"]}


def _click_class(name: str) -> Any:
    """A class of the click that typer uses (typer >= 0.20 vendors its own copy of click).
    Typed ``Any``: which click it comes from is known only at run time."""
    for cls in typer.BadParameter.__mro__:
        if cls.__name__ == name:
            return cls
    raise ImportError(f"typer's click has no {name}")  # pragma: no cover


_ClickException = _click_class("ClickException")
_UsageError = _click_class("UsageError")
_OPTIONAL_VALUE = ("--example",)         # options whose value may be left out: NAME


def _one_line(text: object) -> str:
    return " ".join(str(text).split())


class _OneLineErrors(TyperGroup):
    """The root command: every error becomes one line on stderr and a non-zero exit."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True,
             **extra):
        args = _optional_values(sys.argv[1:] if args is None else list(args))
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except _ClickException as error:
            if type(error).__name__ == "NoArgsIsHelpError":    # a bare group: its help
                typer.echo(error.ctx.get_help())
                sys.exit(0)
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


def _optional_values(args: list[str]) -> list[str]:
    """``--example`` with no value becomes ``--example=`` (typer has no optional values)."""
    args = list(args)
    for i, arg in enumerate(args):
        if arg == "--":
            break
        if arg in _OPTIONAL_VALUE and (i + 1 == len(args) or args[i + 1].startswith("-")):
            args[i] = f"{arg}="
    return args


_progress_line_open = False        # a "[i/n] name ..." line waits for its time


def _fail(message: str, code: int) -> NoReturn:
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
    if total is None:
        items = list(items)
        total = len(items)
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
    from .figures import FIGURE_NAMES

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
                           help="Ready-made models — planar mechanisms, contact examples "
                                "(one of them a 3-D box) and spatial link systems: list "
                                "them, run one.")
app.add_typer(examples_app, name="examples")


@examples_app.command("list", context_settings=_CONTEXT)
def examples_list():
    """List the examples."""
    from .planar.examples import EXAMPLES
    from .spatial.examples import EXAMPLES as SPATIAL

    for name, (title, _) in {**EXAMPLES, **SPATIAL}.items():
        typer.echo(f"{name:18s} {title}")


def _compile_notice(seconds: str = "") -> str:
    """A note that the run will compile, when that is certain: JAX's compile cache is off or
    holds nothing yet. '' when programs may be cached (then the run may compile or not)."""
    from ._compile_cache import compile_cache_dir

    cache = compile_cache_dir()
    if cache is None:
        return f" (the compile cache is off: it compiles first{seconds})"
    if cache.is_dir() and any(cache.iterdir()):
        return ""
    return f" (nothing compiled on this machine yet: it compiles first{seconds})"


def _files(directory: Path) -> dict[str, tuple[int, int]]:
    return {p.name: (p.stat().st_mtime_ns, p.stat().st_size) for p in directory.iterdir()
            if p.is_file()}


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


@examples_app.command("run", context_settings=_CONTEXT)
def examples_run(
    name: str = typer.Argument(..., metavar="NAME", help="Example name (see 'examples list')."),
    out: Path = typer.Option(Path("examples_out"), "--out", "-o", metavar="DIR",
                             help="Output directory (created if missing)."),
    animation: bool = typer.Option(True, "--animation/--no-animation",
                                   help="Write the GIF animation (where the example has "
                                        "one)."),
):
    """Run one example: CSV of every channel, plots, a GIF where it has one, key numbers
    (JSON); lists the files it wrote."""
    from .planar.examples import EXAMPLES
    from .spatial.examples import EXAMPLES as SPATIAL

    if name not in EXAMPLES and name not in SPATIAL:
        raise typer.BadParameter(f"unknown example {name!r}; known: "
                                 f"{', '.join([*EXAMPLES, *SPATIAL])}", param_hint="'NAME'")
    out = output_dir(out)
    before = _files(out)
    if name in SPATIAL:                  # figure (PNG + CSV) and key numbers; no animation
        from .spatial.examples import run_example as run_spatial

        typer.echo(f"running {name}{_compile_notice()} ...")
        start = time.perf_counter()
        summary = run_spatial(name, out)
    else:
        typer.echo(f"running {name}{_compile_notice(', ~20 s')} ...")
        from .planar.examples import run_example

        start = time.perf_counter()
        summary = run_example(name, out, animation=animation)
    typer.echo(f"done in {time.perf_counter() - start:.1f} s")
    for key, value in summary.items():
        if key != "files":
            typer.echo(f"{key}: {value}")
    written = sorted(n for n, stamp in _files(out).items() if before.get(n) != stamp)
    typer.echo(f"wrote {_and(written)} to {out}" if written else f"wrote nothing to {out}")


# --- studies: spec files ------------------------------------------------------------------

_STUDIES_PAGE = "Studies: sweeps and friction identification"     # docs/studies.md's title
_SPEC_FORMAT = ("A spec file is a YAML or TOML mapping that names a model (model:), its fixed "
                "and {what} parameters (fixed:, parameters:), {rest}; the format is on the "
                f"docs page '{_STUDIES_PAGE}'.")


def _spec_argument(kind: str):
    return typer.Argument(None, metavar="SPEC_FILE", show_default=False,
                          help=f"The {kind} spec file (.yaml, .yml or .toml).")


def _example_option(kind: str):
    return typer.Option(None, "--example", metavar="[NAME]", show_default=False,
                        help=f"Write the ready-made {kind} spec NAME"
                             + (" and its measured data" if kind == "fit" else "")
                             + f" into the current directory, to run with 'stickslip {kind} "
                               "NAME.yaml'; without NAME, list them.")


_SPEC = {kind: _spec_argument(kind) for kind in ("sweep", "fit")}
_EXAMPLE = {kind: _example_option(kind) for kind in ("sweep", "fit")}


def _write_example(kind: str, name: str) -> None:
    from .studies import SPEC_EXAMPLES, write_example

    known = {n: ex for n, ex in SPEC_EXAMPLES.items() if ex.kind == kind}
    if name and name not in known:
        raise typer.BadParameter(f"unknown {kind} example {name!r}; known: "
                                 f"{', '.join(known)} (what each does: 'stickslip {kind} "
                                 "--example')", param_hint="'--example'")
    if not name:
        typer.echo(f"The ready-made {kind} specs:")
        for n, ex in known.items():
            typer.echo(f"  {n:18s} {ex.title}")
        typer.echo(f"Write one into the current directory with 'stickslip {kind} --example "
                   "NAME'.")
        return
    here = Path.cwd()
    taken = [f for f in known[name].files(name) if (here / f).exists()]
    if taken:
        raise typer.BadParameter(f"{_and(taken)} already in {here}; run it with 'stickslip "
                                 f"{kind} {name}.yaml', or remove it first",
                                 param_hint="'--example'")
    written = write_example(name, here, kind=kind)
    typer.echo(f"wrote {_and([p.name for p in written])} to {here}")
    typer.echo(f"run it with: stickslip {kind} {name}.yaml")


def _run_spec(ctx, kind: str, spec: Path | None, **options) -> Any:
    """The sweep's table (a DataFrame) or the FitResult of `spec`; a bad spec exits 2."""
    from .studies import SpecError, run_spec

    if spec is None:
        raise _UsageError("Missing argument 'SPEC_FILE': give a spec file, or '--example' to "
                          "start from a ready-made one.", ctx=ctx)
    try:
        return run_spec(spec, kind=kind, **options)
    except SpecError as exc:              # a bad spec is a bad command line: status 2
        _fail(_one_line(exc), 2)


def _failure_summary(errors: list[str], limit: int = 3) -> list[str]:
    """One line per distinct cause (a message up to its '; got …' values), most frequent
    first, with its count and the first message."""
    groups: dict[str, list[str]] = {}
    for message in errors:
        groups.setdefault(str(message).split("; got ")[0], []).append(str(message))
    ranked = sorted(groups.values(), key=len, reverse=True)
    lines = [f"  {len(g)} point{'s' if len(g) > 1 else ''}: {_one_line(g[0])}"
             for g in ranked[:limit]]
    if len(ranked) > limit:
        lines.append(f"  … and {len(ranked) - limit} other causes")
    return lines


@app.command("sweep", context_settings=_CONTEXT,
             help="Run the parameter sweep a spec file describes; writes its `out` table. "
                  + _SPEC_FORMAT.format(what="swept", rest="the run (simulate:) and the "
                                        "outputs (outputs:)")
                  + " Start from a ready-made one: 'stickslip sweep --example'.")
def sweep_command(ctx: typer.Context, spec: Path | None = _SPEC["sweep"],
                  example: str | None = _EXAMPLE["sweep"],
                  progress: bool = typer.Option(True, "--progress/--no-progress",
                                                help="Show a progress bar.")):
    if example is not None:
        return _write_example("sweep", example)
    table = _run_spec(ctx, "sweep", spec, progress=progress)
    failed = int(table["error"].notna().sum())
    typer.echo(f"{len(table)} points ({table.attrs['computed']} computed, "
               f"{table.attrs['reused']} from the store, {failed} failed) in "
               f"{table.attrs['wall_time']:.1f} s")
    if len(table) and failed == len(table):
        lines = _failure_summary(list(table["error"]))
        typer.echo(f"stickslip: error: all {len(table)} points of the sweep failed; the "
                   "causes (every point's is in the `error` column):", err=True)
        typer.echo("\n".join(lines), err=True)
        sys.exit(1)


@app.command("fit", context_settings=_CONTEXT,
             help="Fit model parameters to measured data as a spec file describes; writes "
                  "its `out` estimates. "
                  + _SPEC_FORMAT.format(what="fitted", rest="the data file (data:) and the "
                                        "channels to match (channels:)")
                  + " Start from a ready-made one: 'stickslip fit --example'.")
def fit_command(ctx: typer.Context, spec: Path | None = _SPEC["fit"],
                example: str | None = _EXAMPLE["fit"]):
    if example is not None:
        return _write_example("fit", example)
    typer.echo(repr(_run_spec(ctx, "fit", spec)))


def main():
    """Entry point of the ``stickslip`` script."""
    app(prog_name="stickslip")


if __name__ == "__main__":
    main()
