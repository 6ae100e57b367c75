"""Reading a spec file with line numbers: its text decoded (UTF-8, or UTF-16/32 with a
byte-order mark), parsed as YAML or TOML with the line of every key, and read through typed
accessors (`_Reader`) whose every error is a :class:`SpecError` ``FILE:LINE: `key` …``."""

from __future__ import annotations

import difflib
import re
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import MissingDependencyError, ParameterError
from ._extras import require

__all__ = ["DOCS_PAGE", "SpecError"]

DOCS_PAGE = "Studies: sweeps and friction identification"   # docs/studies.md, by its title


class SpecError(ParameterError):
    """A spec file is invalid; the message starts with ``FILE:LINE:`` and names the key."""

    def __init__(self, message: str, *, file: str, line: int | None, key: str):
        where = f"{file}:{line}" if line else file
        super().__init__(f"{where}: {message}")
        self.file, self.line, self.key = file, line, key


# what a spec file may hold: its size, and the values it expands to through YAML aliases
# (`*name` repeats the value anchored `&name`: nine aliases of nine aliases … nine levels
# deep — the "billion laughs" — are 9⁹ values from a few hundred bytes)
_MAX_BYTES = 1_000_000
_MAX_VALUES = 100_000


def _decode(raw: bytes, file: str) -> str:
    """The text of a spec file: UTF-8 (with or without a byte-order mark), or UTF-16/32
    with one; anything else is refused with what it looks like and the fix."""
    for bom, codec in ((b"\xef\xbb\xbf", "utf-8-sig"), (b"\xff\xfe\x00\x00", "utf-32"),
                       (b"\x00\x00\xfe\xff", "utf-32"), (b"\xff\xfe", "utf-16"),
                       (b"\xfe\xff", "utf-16")):
        if raw.startswith(bom):
            break
    else:
        codec = "utf-8"
    fix = "Save the spec as UTF-8 text (an editor's 'Save with encoding' → UTF-8)."
    if codec == "utf-8" and b"\x00" in raw:
        raise SpecError(f"is not text: it holds NUL bytes (a binary file, or UTF-16 without "
                        f"a byte-order mark). {fix}", file=file,
                        line=raw[: raw.index(b"\x00")].count(b"\n") + 1, key="")
    try:
        text = raw.decode(codec)
    except UnicodeDecodeError as exc:
        if codec != "utf-8":
            raise SpecError(f"starts with a {codec.upper()} byte-order mark but is not "
                            f"{codec.upper()} text. {fix}", file=file, line=None,
                            key="") from None
        raise SpecError(f"is not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset "
                        f"{exc.start} is not valid UTF-8: Latin-1 or Windows-1252?). {fix}",
                        file=file, line=raw[: exc.start].count(b"\n") + 1, key="") from None
    if "\x00" in text:
        raise SpecError(f"is not text: it holds NUL characters (a binary file?). {fix}",
                        file=file, line=text[: text.index("\x00")].count("\n") + 1, key="")
    return text


def _yaml_marks(text: str, file: str = "") -> tuple[Any, dict]:
    yaml = require("yaml", "YAML spec files", alternative=", or write the spec as .toml")
    marks: dict[tuple, int] = {}
    root = yaml.compose(text, Loader=yaml.SafeLoader)
    if root is None:
        return None, marks
    _check_expansion(yaml, root, file)

    def walk(node, path):
        marks.setdefault(path, node.start_mark.line + 1)
        if isinstance(node, yaml.MappingNode):
            seen: dict = {}
            for key, value in node.value:
                if key.tag == "tag:yaml.org,2002:merge":      # `<<: *defaults`
                    walk(value, path)
                    continue
                name = str(key.value)
                sub = path + (name,)
                if name in seen:
                    full = ".".join(map(str, sub))
                    raise SpecError(f"`{full}` is given twice (lines {seen[name]} and "
                                    f"{key.start_mark.line + 1}); keep one (the later value "
                                    "would silently replace the first).", file=file,
                                    line=key.start_mark.line + 1, key=full)
                seen[name] = key.start_mark.line + 1
                marks[sub] = key.start_mark.line + 1
                walk(value, sub)
        elif isinstance(node, yaml.SequenceNode):
            for i, value in enumerate(node.value):
                walk(value, path + (i,))

    walk(root, ())
    return yaml.safe_load(text), marks


def _check_expansion(yaml, root, file: str) -> None:
    """Refuse a YAML document that expands to more than ``_MAX_VALUES`` values through its
    aliases — counted on the node graph, each node once, before anything is expanded."""
    sizes: dict[int, int] = {}
    stack = [(root, False)]
    while stack:                       # post-order, without recursion
        node, ready = stack.pop()
        if id(node) in sizes:
            continue
        if isinstance(node, yaml.MappingNode):
            children = [n for pair in node.value for n in pair]
        elif isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        else:
            children = []
        if ready:
            sizes[id(node)] = 1 + sum(sizes.get(id(c), 0) for c in children)
            if sizes[id(node)] > _MAX_VALUES:
                raise SpecError(f"expands to more than {_MAX_VALUES:,} values through its "
                                "YAML aliases (*name repeating &name: a 'billion laughs' "
                                "document); a spec needs a few dozen. Write the values out, "
                                "or use a {low:, high:, num:} range.", file=file,
                                line=node.start_mark.line + 1, key="")
        else:
            stack.append((node, True))
            stack.extend((c, False) for c in children if id(c) not in sizes)


def _toml_duplicate(text: str, line: int | None, problem: str) -> str | None:
    """The key or table that tomllib refuses as defined twice ("Cannot overwrite a value",
    "Cannot declare ('simulate',) twice"), or None for another problem."""
    declared = re.match(r"Cannot declare \(([^)]*)\) twice", problem)
    if declared:
        return ".".join(p.strip().strip("'\"") for p in declared.group(1).split(",")
                        if p.strip())
    if "Cannot overwrite a value" not in problem or not line:
        return None
    lines = text.splitlines()
    if not 0 < line <= len(lines):
        return None
    found = re.match(r'^\s*\[*\s*"?([A-Za-z0-9_.\-]+)"?\s*[\]=]', lines[line - 1])
    return found.group(1) if found else None


def _toml_marks(text: str) -> tuple[Any, dict]:
    import tomllib

    data = tomllib.loads(text)
    lines = text.splitlines()
    marks: dict[tuple, int] = {}
    section: tuple = ()
    for number, line in enumerate(lines, start=1):
        header = re.match(r"^\s*\[\s*([^\]]+?)\s*\]\s*$", line)
        if header:
            section = tuple(p.strip().strip('"') for p in header.group(1).split("."))
            marks.setdefault(section, number)
            continue
        key = re.match(r'^\s*"?([A-Za-z0-9_.\-]+)"?\s*=', line)
        if key:
            path = section + tuple(key.group(1).split("."))
            marks.setdefault(path, number)
            for inner in re.finditer(r'([A-Za-z_][A-Za-z0-9_]*)\s*=', line[key.end():]):
                marks.setdefault(path + (inner.group(1),), number)
    return data, marks


class _Reader:
    """Typed access to a spec's values; every error names the file, line and key."""

    def __init__(self, path: Path):
        self.path = path
        self.file = str(path)
        try:
            size = path.stat().st_size
            if size > _MAX_BYTES:
                raise SpecError(f"is {size:,} bytes; a spec file is a few kB (at most "
                                f"{_MAX_BYTES:,} bytes are read). Put measured data in the "
                                "CSV file that `data:` names, and long value lists in a "
                                "{low:, high:, num:} range.", file=self.file, line=None,
                                key="")
            raw = path.read_bytes()
        except OSError as exc:
            raise SpecError(f"cannot read the spec file: {exc.strerror}.", file=self.file,
                            line=None, key="") from None
        text = _decode(raw, self.file)
        try:
            if path.suffix.lower() == ".toml":
                self.data, self.marks = _toml_marks(text)
            elif path.suffix.lower() in (".yaml", ".yml"):
                self.data, self.marks = _yaml_marks(text, self.file)
            else:
                raise SpecError(f"unknown spec format {path.suffix!r}; use .yaml, .yml or "
                                ".toml.", file=self.file, line=None, key="")
        except (SpecError, MissingDependencyError):
            raise
        except RecursionError:
            raise SpecError("nests its values too deeply to be a spec (lists or mappings "
                            "inside each other thousands of levels down); write it as the "
                            f"format on the docs page {DOCS_PAGE!r} shows.", file=self.file,
                            line=None, key="") from None
        except Exception as exc:           # a syntax error: the parser knows the line
            mark = getattr(exc, "problem_mark", None)
            line = mark.line + 1 if mark is not None else getattr(exc, "lineno", None)
            problem = getattr(exc, "problem", None) or exc
            at = re.search(r"\(at line (\d+), column \d+\)", str(problem))
            if line is None and at:                  # tomllib says where in its message
                line = int(at.group(1))
            twice = _toml_duplicate(text, line, str(problem))
            if twice is not None:
                raise SpecError(f"`{twice}` is given twice; keep one (a later value would "
                                "silently replace the first).", file=self.file, line=line,
                                key=twice) from None
            raise SpecError(f"not valid {path.suffix[1:].upper()}: {problem}.",
                            file=self.file, line=line, key="") from None
        if not isinstance(self.data, dict):
            raise SpecError("the spec must be a mapping of keys (model:, parameters:, …).",
                            file=self.file, line=1, key="")

    def error(self, path: tuple, message: str) -> SpecError:
        line = None
        for k in range(len(path), -1, -1):
            if path[:k] in self.marks:
                line = self.marks[path[:k]]
                break
        key = ".".join(map(str, path))
        return SpecError(f"`{key}` {message}", file=self.file, line=line, key=key)

    def get(self, path: tuple, default=None, *, required=False):
        node = self.data
        for k, part in enumerate(path):
            if not isinstance(node, dict) or part not in node:
                if not required:
                    return default
                parent = path[:k]
                key = ".".join(map(str, path))
                where = f"under `{'.'.join(map(str, parent))}`" if parent else "in the spec"
                return_line = self.marks.get(parent) if parent else None
                raise SpecError(f"`{key}` is missing {where}; add it (the format is on the "
                                f"docs page {DOCS_PAGE!r}).", file=self.file,
                                line=return_line, key=key)
            node = node[part]
        return node

    def number(self, path, value=None, *, positive=False, integer=False, default=None,
               required=False):
        value = self.get(path, default, required=required) if value is None else value
        if value is None:
            return None
        try:
            if isinstance(value, bool):
                raise ValueError
            number = float(value)       # YAML 1.1 reads 1e-4 (no dot) as text: accept it
        except (TypeError, ValueError):
            raise self.error(path, f"must be a number; got {value!r}.") from None
        if not np.isfinite(number) or (positive and number <= 0):
            raise self.error(path, f"must be a {'positive ' if positive else ''}finite number; "
                                   f"got {value!r}.")
        if integer:
            if number != int(number):
                raise self.error(path, f"must be a whole number; got {value!r}.")
            return int(number)
        return number

    def mapping(self, path, *, required=False):
        value = self.get(path, None, required=required)
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise self.error(path, f"must be a mapping (key: value lines); got {value!r}.")
        return value

    def check_keys(self, path, allowed):
        node = self.data if not path else self.mapping(path)
        for key in node:
            if key not in allowed:
                close = difflib.get_close_matches(str(key), sorted(allowed), n=1)
                hint = f" Did you mean `{close[0]}`?" if close else ""
                raise self.error(path + (key,), f"is not a known key; known: "
                                                f"{sorted(allowed)}.{hint}")

    def check_names(self, path: tuple, names) -> None:
        """Every key under `path` names a parameter: a string that is a Python identifier
        (they are passed to the model as keyword arguments)."""
        for name in names:
            if isinstance(name, str) and name.isidentifier():
                continue
            if isinstance(name, bool):
                why = (f"{name!r} (YAML reads an unquoted true, false, yes, no, on or off as "
                       "true or false)")
            elif not isinstance(name, str):
                why = f"the number {name!r} (YAML reads an unquoted {name!r} as a number)"
            else:
                why = repr(name)
            raise self.error(path + (str(name),),
                             f"is not a parameter name: parameters are passed to the model "
                             f"as keyword arguments, so their names must be identifiers "
                             f"such as `F` or `amplitude`; got {why}. Use the model's "
                             f"parameter name.")

    def resolve(self, path_key: str) -> Path:
        value = self.get((path_key,))
        if not isinstance(value, str) or not value:
            raise self.error((path_key,), f"must be a file path; got {value!r}.")
        path = Path(value)
        return path if path.is_absolute() else self.path.parent / path
