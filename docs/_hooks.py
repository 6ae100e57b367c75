"""mkdocs hooks (mkdocs.yml ``hooks:``): the home page is README.md, and the images the
site shows come from where they are made, not from copies in docs/.

* ``index.md`` is README.md with its ``docs/…`` links made relative to the site.
* ``gallery/<name>.png``: the figures of ``stickslip figures --out build/figures`` (or the
  directory in ``STICKSLIP_DOCS_FIGURES``); the build stops with the command to run when
  they are missing, or when a registered figure has no image.
* ``img/benchmarks/<name>.png``: the plots in benchmarks/results/; a page may link them as
  ``../benchmarks/results/<name>.png`` (right on GitHub too), rewritten for the site.
* ``notebooks/<name>.md``: each ``docs/notebooks/<name>.ipynb`` executed with nbclient and
  rendered with its outputs (docs/_notebooks.py); a cell that raises stops the build.
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parents[1]


def _figures_dir() -> Path:
    return Path(os.environ.get("STICKSLIP_DOCS_FIGURES", ROOT / "build" / "figures"))


def _notebook_pages(config):
    """The executed notebooks as generated pages (docs/_notebooks.py)."""
    import importlib.util
    import time

    spec = importlib.util.spec_from_file_location("_stickslip_docs_notebooks",
                                                  ROOT / "docs" / "_notebooks.py")
    notebooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(notebooks)
    pages = []
    for path in sorted((ROOT / "docs" / "notebooks").glob("*.ipynb")):
        start = time.perf_counter()
        try:
            content = notebooks.render(path)
        except notebooks.NotebookError as exc:
            raise PluginError(str(exc)) from None
        logging.getLogger("mkdocs").info("executed docs/notebooks/%s in %.1f s", path.name,
                                         time.perf_counter() - start)
        pages.append(File.generated(config, f"notebooks/{path.stem}.md", content=content))
    return pages


def on_files(files, config):
    for page in _notebook_pages(config):
        files.append(page)
    figures = _figures_dir()
    import sys

    sys.path.insert(0, str(ROOT / "src"))
    from stickslip.figures import FIGURE_NAMES

    missing = [name for name in FIGURE_NAMES if not (figures / f"{name}.png").exists()]
    if missing:
        raise PluginError(f"the gallery needs the figures {missing} in {figures}; run "
                          f"`stickslip figures --out {figures}` first (or set "
                          "STICKSLIP_DOCS_FIGURES to a directory that has them)")
    for name in FIGURE_NAMES:
        files.append(File.generated(config, f"gallery/{name}.png",
                                    abs_src_path=str(figures / f"{name}.png")))
    for plot in sorted((ROOT / "benchmarks" / "results").glob("*.png")):
        files.append(File.generated(config, f"img/benchmarks/{plot.name}",
                                    abs_src_path=str(plot)))
    return files


def on_page_markdown(markdown, page, config, files):
    return re.sub(r"\]\((?:\.\./)+benchmarks/results/([\w.-]+\.png)\)", r"](img/benchmarks/\1)",
                  markdown)


def on_page_read_source(page, config):
    if page.file.src_uri == "index.md":
        text = (ROOT / "README.md").read_text(encoding="utf-8")
        return re.sub(r"\]\(docs/", "](", text)
    return None
