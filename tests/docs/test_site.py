"""The documentation site's pages stay complete: every figure in the gallery, every SPEC
section a docstring cites in docs/sources.md, every page in the navigation."""

import re
from pathlib import Path

from stickslip.figures import FIGURE_NAMES

ROOT = Path(__file__).resolve().parents[2]


def test_gallery_shows_every_registered_figure():
    gallery = (ROOT / "docs" / "gallery.md").read_text()
    for name in FIGURE_NAMES:
        assert f"## {name}" in gallery and f"(gallery/{name}.png)" in gallery, name


def test_sources_page_maps_every_cited_spec_section():
    cited = set()
    for path in [ROOT / "README.md", *(ROOT / "src").rglob("*.py"), *(ROOT / "docs").glob("*.md")]:
        cited |= set(re.findall(r"SPEC §(\d+)", path.read_text(encoding="utf-8")))
    sources = (ROOT / "docs" / "sources.md").read_text()
    headings = set(re.findall(r"^## (\d+)\. ", sources, flags=re.M))
    assert cited and cited <= headings, f"cited but not mapped: {sorted(cited - headings)}"


def test_every_page_is_in_the_site_navigation():
    config = (ROOT / "mkdocs.yml").read_text()
    for page in (ROOT / "docs").glob("*.md"):
        assert page.name in config, f"docs/{page.name} is not in mkdocs.yml's nav"


def test_readme_commands_and_ci_agree():
    readme = (ROOT / "README.md").read_text()
    first = readme.split("```bash\n", 1)[1].split("```", 1)[0].splitlines()
    assert first == [
        "python3 -m venv .venv && . .venv/bin/activate && pip install -e . && "
        "stickslip figures --out figures",
        "python3 -m venv .venv && . .venv/bin/activate && pip install -e \".[test]\" && "
        "python -m pytest",
    ]
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    # CI installs the same extras (through uv where it can, pip otherwise: `install`) and
    # runs the same test command
    assert "install -e \".[test]\"" in ci and "python -m pytest" in ci
    assert any(line.strip() == "python -m pip install \"$@\"" for line in ci)
    assert "NO_MKDOCS_2_WARNING=1 mkdocs build --strict" in ci
    assert "mkdocs build --strict" in readme
