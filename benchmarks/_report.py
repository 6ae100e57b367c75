"""How the benchmark scripts write their results: the table's lines as one Markdown file
(its folder created if needed), echoed to the terminal."""

from __future__ import annotations

from pathlib import Path


def write_report(lines: list[str], path) -> str:
    """Write `lines` to `path` as Markdown, print them, and return the text."""
    text = "\n".join(lines) + "\n"
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    print(text)
    return text
