"""Every ```python block of README.md and docs/*.md runs, in order, one namespace per page.

A block that is an illustration only (a fragment, a placeholder path) is marked by the line
``<!-- illustration -->`` right above its fence; everything else must run as written. Pages
whose blocks take longer than a few seconds (compiling planar or spatial models) are listed
in SLOW_PAGES and run with ``-m slow`` — CI (.ci/run) runs the quick pages in its main run and
this file again with ``-m slow``, so every block is executed there.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
ILLUSTRATION = "<!-- illustration -->"
SLOW_PAGES = {"planar.md", "spatial.md", "joint_friction.md", "unilateral.md", "studies.md",
              "realtime.md"}
_FENCE = re.compile(r"^(`{3,}|~{3,})\s*([\w+-]*)(.*)$")


def python_blocks(path: Path) -> list[tuple[int, str]]:
    """(first line number, code) of each runnable ```python block of a Markdown page."""
    blocks, lines = [], path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        match = _FENCE.match(lines[i].strip())
        if not match:
            i += 1
            continue
        fence, lang = match.group(1), match.group(2).lower()
        start, body = i + 1, []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence):
            body.append(lines[i])
            i += 1
        i += 1
        previous = next((line.strip() for line in reversed(lines[:start - 1]) if line.strip()),
                        "")
        if lang in ("python", "py") and previous != ILLUSTRATION:
            indent = min((len(b) - len(b.lstrip()) for b in body if b.strip()), default=0)
            blocks.append((start + 1, "\n".join(b[indent:] for b in body)))
    return blocks


def _params():
    for page in PAGES:
        if python_blocks(page):
            marks = [pytest.mark.slow] if page.name in SLOW_PAGES else []
            yield pytest.param(page, id=str(page.relative_to(ROOT)), marks=marks)


@pytest.mark.parametrize("page", list(_params()))
def test_page_code_blocks_run(page, tmp_path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    monkeypatch.chdir(tmp_path)                      # blocks that save files write here
    namespace: dict = {"__name__": "__docs__"}
    try:
        for line, code in python_blocks(page):
            exec(compile(code, f"{page.relative_to(ROOT)}:{line}", "exec"), namespace)
    finally:
        plt.close("all")


def test_blocks_are_found_and_illustrations_skipped(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("text\n\n```python\nx = 1\n```\n\n<!-- illustration -->\n```python\n"
                    "not python at all\n```\n\n```bash\nls\n```\n\n- item\n\n  ```py\n"
                    "  y = x + 1\n  ```\n")
    assert python_blocks(page) == [(4, "x = 1"), (19, "y = x + 1")]
