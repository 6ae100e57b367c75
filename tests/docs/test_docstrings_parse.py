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


# Sections whose entries griffe reads as ``name : type`` then an indented description.
_ENTRY_SECTIONS = {"Parameters", "Other Parameters", "Attributes", "Returns", "Yields",
                   "Receives", "Raises", "Warns"}
# A line at a numpy entry section's margin written ``name: text`` (numpydoc needs " : ");
# griffe reads it as an entry named ``name`` and drops the text (or puts it in the type).
_COLON_ENTRY = re.compile(r"^[A-Za-z_*][\w*.]*(?:,\s*[A-Za-z_*][\w*.]*)*(?:\s*\([^)]*\))?:(?:\s|$)")

# Public docstrings still written as "name: text" inside numpy sections (object paths).
# Remove an entry once it is converted (the test says so).
_LOSSY_ALLOWED: set[str] = set()   # none left


def _lost_text(text: str, parent) -> list[str]:
    """What the numpy parser drops or misfiles from `text`: ``name: text`` lines at the
    margin of an entry section, entries with no description, prose in the type slot."""
    problems = []
    lines = text.splitlines()
    section = None
    for i, line in enumerate(lines):
        if i + 1 < len(lines) and re.fullmatch(r"\s*-{3,}\s*", lines[i + 1]) and line.strip():
            section = line.strip()
            continue
        if section in _ENTRY_SECTIONS and _COLON_ENTRY.match(line):
            problems.append(f"{section}: `name: text` line {line.strip()[:60]!r}")
    options = dict(_mkdocstrings_options().get("docstring_options", {}), warnings=False)
    kinds = griffe.DocstringSectionKind
    entry_kinds = {kinds.parameters, kinds.other_parameters, kinds.attributes, kinds.returns,
                   kinds.yields, kinds.receives, kinds.raises, kinds.warns}
    for section in griffe.Docstring(text, lineno=1, parent=parent, parser="numpy",
                                    parser_options=options).parse():
        if section.kind not in entry_kinds:
            continue
        for entry in section.value:
            name = getattr(entry, "name", "") or ""
            annotation = str(entry.annotation or "")
            label = f"{section.kind.value}: {name or annotation[:40]!r}"
            if not (entry.description or "").strip():
                problems.append(f"{label} has no description")
            if ": " in annotation or annotation.rstrip().endswith(".") or len(annotation) > 60:
                problems.append(f"{label} has prose in its type {annotation[:60]!r}")
    return problems


def test_numpy_sections_keep_their_text(public_api):
    lossy = {}
    for obj in public_api:
        if obj.docstring:
            problems = _lost_text(obj.docstring.value, obj)
            if problems:
                lossy[obj.path] = problems
    new = {path: p for path, p in lossy.items() if path not in _LOSSY_ALLOWED}
    assert not new, ("the API reference drops text from these docstrings; write numpydoc — "
                     "`name : type` then the description indented below, exception or return "
                     "type alone on its line, prose that is no entry under Notes:\n"
                     + "\n".join(f"{path}: {'; '.join(p)}" for path, p in sorted(new.items())))
    fixed = sorted(_LOSSY_ALLOWED - set(lossy))
    assert not fixed, f"converted: remove these from _LOSSY_ALLOWED: {fixed}"


def test_a_lossy_docstring_is_reported(public_api):
    # the check above can fail: a "name: text" parameter, and a Raises line in that style
    simulate = next(obj for obj in public_api if obj.path == "stickslip.integrate._simulate.simulate")
    text = simulate.docstring.value
    assert not _lost_text(text, simulate)
    broken = re.sub(r"\ndt_out : float, optional\n", "\ndt_out: output interval [s].\n", text)
    assert broken != text
    assert any("dt_out" in problem for problem in _lost_text(broken, simulate))
    raises = "Summary.\n\nRaises\n------\nParameterError: a bad argument.\n"
    assert _lost_text(raises, simulate)
