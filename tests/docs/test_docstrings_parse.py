"""The API reference's docstrings parse: griffe reads every public docstring with the parser
and options of mkdocs.yml and logs no warning — the same warnings that fail
``mkdocs build --strict`` — without building the site (about a second)."""

import logging
import re
from pathlib import Path

import pytest

griffe = pytest.importorskip("griffe")
yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parents[2]


def _mkdocstrings_options() -> dict:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    for plugin in config["plugins"]:
        if isinstance(plugin, dict) and "mkdocstrings" in plugin:
            return plugin["mkdocstrings"]["handlers"]["python"]["options"]
    raise AssertionError("mkdocs.yml has no mkdocstrings plugin")


def _public_objects(package):
    """Every public module, class, function and attribute reachable from `package` (public
    re-exports followed to the object they name), each once."""
    seen, objects, todo = set(), [], [package]
    while todo:
        obj = todo.pop()
        if obj.is_alias:
            if not obj.target_path.startswith("stickslip."):
                continue
            try:
                obj = obj.final_target
            except griffe.AliasResolutionError:
                continue
        if obj.path in seen:
            continue
        seen.add(obj.path)
        objects.append(obj)
        if obj.is_module or obj.is_class:
            for name, member in obj.members.items():
                if name.startswith("_"):
                    continue
                if member.is_alias and not member.target_path.startswith("stickslip."):
                    continue
                try:
                    public = member.is_public
                except griffe.AliasResolutionError:
                    continue
                if public:
                    todo.append(member)
    return objects


def _parse_warnings(docstrings) -> list[str]:
    """griffe's warnings for `docstrings` parsed as mkdocs.yml parses them."""
    options = _mkdocstrings_options()
    style = options.get("docstring_style", "google")
    parser_options = options.get("docstring_options", {})
    messages = []

    class Collect(logging.Handler):
        def emit(self, record):
            messages.append(record.getMessage())

    logger = logging.getLogger("griffe")
    handler = Collect(level=logging.WARNING)
    logger.addHandler(handler)
    try:
        for docstring, parent in docstrings:
            griffe.Docstring(docstring.value, lineno=docstring.lineno, parent=parent,
                             parser=style, parser_options=parser_options).parse()
    finally:
        logger.removeHandler(handler)
    return messages


@pytest.fixture(scope="module")
def public_api():
    extensions = griffe.load_extensions(*_mkdocstrings_options().get("extensions", []))
    package = griffe.load("stickslip", search_paths=[str(ROOT / "src")], extensions=extensions,
                          resolve_aliases=True)
    return _public_objects(package)


def test_public_docstrings_parse_without_warnings(public_api):
    documented = [(obj.docstring, obj) for obj in public_api if obj.docstring]
    assert len(documented) > 300            # the walk reached the subpackages
    warnings = _parse_warnings(documented)
    assert not warnings, ("griffe cannot parse these docstrings (mkdocs build --strict fails "
                          "on them); write numpydoc sections — `name : type` then an indented "
                          "description:\n" + "\n".join(warnings))


def test_a_malformed_docstring_is_reported(public_api):
    # the check above can fail: a prose line at the margin of a Parameters section
    simulate = next(obj for obj in public_api if obj.path == "stickslip.integrate._simulate.simulate")
    text = simulate.docstring.value
    broken = re.sub(r"\ndt_out : float, optional\n", "\n``dt_out``: output interval.\n", text)
    assert broken != text
    warnings = _parse_warnings([(griffe.Docstring(broken, lineno=1), simulate)])
    assert any("Could not parse line" in message for message in warnings), warnings
