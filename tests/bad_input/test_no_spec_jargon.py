"""What a user reads names its sources in words, not "SPEC §n" (issue 24: a newcomer's jargon).

SPEC.md and seeds/ live in the repository, not in a pip install: the help of every command,
`stickslip figures --list`, the title and source that `summary.json` copies from the figure
registry, and the example listings say what a section is about and who published it
("Xiong, Kikuuwe & Yamamoto, Fig. 3: Coulomb friction as an ODE, eq. 10"). Docstrings and
comments keep citing SPEC for developers. Nothing here renders a figure or runs a model.
"""

import ast
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from stickslip.cli import app
from stickslip.figures import FIGURES
from stickslip.planar.examples import EXAMPLES as PLANAR
from stickslip.spatial.examples import EXAMPLES as SPATIAL

JARGON = ("SPEC §", "seed 0")     # the project's section map and its source files' numbers
SRC = Path(__file__).resolve().parents[2] / "src" / "stickslip"
runner = CliRunner()

def _jargon(text: str) -> list[str]:
    return [line for line in text.splitlines() if any(word in line for word in JARGON)]


def _command_paths(command=None, path=()):
    """Every command and group of the CLI, as argument lists: [], ["figures"], …"""
    command = command or typer.main.get_command(app)
    yield list(path)
    for name, sub in getattr(command, "commands", {}).items():
        yield from _command_paths(sub, (*path, name))


@pytest.mark.parametrize("command", list(_command_paths()), ids=" ".join)
def test_help_of_every_command_has_no_spec_jargon(command):
    result = runner.invoke(app, [*command, "--help"])
    assert result.exit_code == 0, result.output
    assert not _jargon(result.stdout)


def test_figures_list_has_no_spec_jargon():
    result = runner.invoke(app, ["figures", "--list"])
    assert result.exit_code == 0, result.output
    assert not _jargon(result.stdout)
    for spec in FIGURES:                  # the list shows each source
        assert spec.source in result.stdout


def test_figure_registry_has_no_spec_jargon():
    # summary.json copies each figure's title and source from the registry
    found = [(spec.name, field, getattr(spec, field)) for spec in FIGURES
             for field in ("title", "source") if _jargon(getattr(spec, field))]
    assert not found


def _shown_strings(path: Path):
    """The string literals of a module that are not docstrings (labels, keys, messages)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef))
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    for node in ast.walk(tree):
        if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                and id(node) not in docstrings):
            yield node.lineno, node.value


def test_figure_and_spatial_example_modules_show_no_spec_jargon():
    # the figures' summary.json keys and plot labels, the spatial examples' JSON and the CLI
    paths = [*(SRC / "figures").glob("*.py"), SRC / "spatial" / "examples.py",
             *(SRC / "spatial").glob("_examples_*.py"), SRC / "cli.py"]
    found = [f"{path.relative_to(SRC)}:{line}: {text!r}" for path in paths
             for line, text in _shown_strings(path) if _jargon(text)]
    assert not found


@pytest.mark.parametrize("registry", [SPATIAL, PLANAR],
                         ids=["spatial", "planar"])
def test_examples_list_has_no_spec_jargon(registry):
    # `examples run NAME` also writes this title into NAME.json
    result = runner.invoke(app, ["examples", "list"])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stdout.splitlines() if line.split()[0] in registry]
    assert len(lines) == len(registry)
    assert not _jargon("\n".join(lines))
    assert not [name for name, (title, _) in registry.items() if _jargon(title)]


@pytest.mark.parametrize("kind", ["sweep", "fit"])
def test_spec_example_listing_has_no_spec_jargon(kind):
    result = runner.invoke(app, [kind, "--example"])      # no NAME: the list, nothing written
    assert result.exit_code == 0, result.output
    assert "ready-made" in result.stdout and not _jargon(result.stdout)
