"""Executed notebooks on the documentation site.

``docs/notebooks/<name>.ipynb`` is stored without outputs. When the site is built
(docs/_hooks.py), :func:`execute` runs it with nbclient in a fresh kernel and
:func:`to_markdown` turns the executed notebook into the page ``notebooks/<name>.md``: its
Markdown cells as they are, each code cell as a Python block, and each output under it —
HTML (a `Results` summary, a model's element table) and images inline, printed text as a
text block. A cell that raises stops the build with the cell and the error. The notebook
itself is copied next to the page, for download.

Needs nbformat, nbclient and ipykernel (the ``docs`` extra).
"""

from __future__ import annotations

import html
import re
import tempfile
from pathlib import Path

__all__ = ["NotebookError", "execute", "render", "to_markdown"]


class NotebookError(RuntimeError):
    """A notebook could not be run or a cell raised; the message names the cell."""


def execute(path: Path, timeout: int = 600):
    """Run the notebook at `path` in a fresh ``python3`` kernel (working directory: a
    temporary one, so files it writes go nowhere) and return the executed notebook."""
    try:
        import nbformat
        from nbclient import NotebookClient
        from nbclient.exceptions import CellExecutionError
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise NotebookError(f"executing {path.name} needs nbformat, nbclient and ipykernel: "
                            "pip install -e '.[docs]'") from exc
    nb = nbformat.read(path, as_version=4)
    with tempfile.TemporaryDirectory() as cwd:
        client = NotebookClient(nb, timeout=timeout, kernel_name="python3",
                                resources={"metadata": {"path": cwd}})
        try:
            client.execute()
        except CellExecutionError as exc:
            raise NotebookError(f"{path.name}: a cell raised\n{exc}") from None
    return nb


def _text(value) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def _fence(text: str, lang: str) -> str:
    ticks = "`" * max(3, 1 + max((len(m) for m in re.findall(r"`+", text)), default=0))
    return f"{ticks}{lang}\n{text.rstrip()}\n{ticks}"


def _html_block(fragment: str) -> str:
    """One raw-HTML block for Markdown: inside a div, with no blank line to end it early."""
    lines = [line for line in fragment.strip().splitlines() if line.strip()]
    return '<div class="notebook-output">\n' + "\n".join(lines) + "\n</div>"


def _output(output, where: str) -> str | None:
    kind = output.get("output_type")
    if kind == "error":
        raise NotebookError(f"{where} raised {output.get('ename')}: {output.get('evalue')}")
    if kind == "stream":
        if output.get("name") != "stdout":      # warnings and logs stay out of the page
            return None
        return _fence(_text(output.get("text", "")), "text")
    data = output.get("data", {})
    if "text/html" in data:
        return _html_block(_text(data["text/html"]))
    for mime in ("image/png", "image/jpeg"):
        if mime in data:
            encoded = "".join(_text(data[mime]).split())
            return _html_block(f'<img alt="plot made by {html.escape(where)}" '
                               f'src="data:{mime};base64,{encoded}">')
    if "image/svg+xml" in data:
        return _html_block(_text(data["image/svg+xml"]))
    if "text/plain" in data:
        return _fence(_text(data["text/plain"]), "text")
    return None


def to_markdown(nb, source_name: str) -> str:
    """The Markdown page of an executed notebook `nb`; `source_name` is the ``.ipynb`` file
    the page links to for download."""
    parts, number = [], 0
    for cell in nb.cells:
        source = _text(cell.source)
        if cell.cell_type == "markdown":
            parts.append(source)
            if number == 0 and source.lstrip().startswith("# "):
                parts.append(f"*This page is the notebook [{source_name}]({source_name}), run "
                             "when this site was built: every output below comes from that "
                             "run.*")
        elif cell.cell_type == "code":
            number += 1
            parts.append(_fence(source, "python"))
            for output in cell.get("outputs", []):
                block = _output(output, f"code cell {number}")
                if block:
                    parts.append(block)
    return "\n\n".join(parts) + "\n"


def render(path: Path, timeout: int = 600) -> str:
    """Execute the notebook at `path` and return its page (Markdown)."""
    return to_markdown(execute(path, timeout=timeout), path.name)
