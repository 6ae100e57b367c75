"""The executed notebook of the docs gallery (docs/notebooks/, rendered by docs/_notebooks.py
when the site is built): stored clean, linked from the site, turned into a page with its
outputs, and — with ``-m slow``, as CI runs tests/docs — run in a real kernel."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat", reason="the docs extra: pip install -e '.[docs]'")

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "docs" / "notebooks").glob("*.ipynb"))


def _renderer():
    spec = importlib.util.spec_from_file_location("docs_notebooks", ROOT / "docs" /
                                                  "_notebooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_notebooks_are_stored_without_outputs_and_are_in_the_navigation():
    # the site shows the outputs of the build's own run, never stale ones from a commit
    assert NOTEBOOKS, "docs/notebooks/ has no notebook"
    config = (ROOT / "mkdocs.yml").read_text()
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        nbformat.validate(nb)
        for cell in nb.cells:
            if cell.cell_type == "code":
                assert not cell.outputs and cell.execution_count is None, path.name
        assert f"notebooks/{path.stem}.md" in config, f"{path.name} is not in mkdocs.yml's nav"


def test_an_executed_notebook_becomes_a_page_with_its_outputs():
    render = _renderer()
    v4 = nbformat.v4
    nb = v4.new_notebook(cells=[
        v4.new_markdown_cell("# Title\n\ntext"),
        v4.new_code_cell("res", outputs=[v4.new_output(
            "execute_result", data={"text/html": "<div>\n\n<b>Results</b></div>",
                                    "text/plain": "Results(...)"}, execution_count=1)]),
        v4.new_code_cell("print('hi')", outputs=[
            v4.new_output("stream", name="stdout", text="hi\n"),
            v4.new_output("stream", name="stderr", text="a warning\n")]),
        v4.new_code_cell("fig", outputs=[v4.new_output(
            "display_data", data={"image/png": "iVBORw0KGgo=\n", "text/plain": "<Figure>"})]),
    ])
    page = render.to_markdown(nb, "demo.ipynb")
    assert page.startswith("# Title\n\ntext\n\n*This page is the notebook [demo.ipynb]"
                           "(demo.ipynb)")
    assert "```python\nres\n```" in page
    assert '<div class="notebook-output">\n<div>\n<b>Results</b></div>\n</div>' in page
    assert "```text\nhi\n```" in page and "a warning" not in page
    assert 'src="data:image/png;base64,iVBORw0KGgo="' in page


def test_a_cell_that_raises_stops_the_page():
    render = _renderer()
    v4 = nbformat.v4
    nb = v4.new_notebook(cells=[v4.new_code_cell("1 / 0", outputs=[v4.new_output(
        "error", ename="ZeroDivisionError", evalue="division by zero", traceback=[])])])
    with pytest.raises(render.NotebookError, match="code cell 1 raised ZeroDivisionError"):
        render.to_markdown(nb, "bad.ipynb")


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs_and_shows_results_plot_and_element_table(path):
    pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    page = _renderer().render(path)
    assert "<b>Results — FrictionMass" in page              # the Results HTML summary
    assert "data:image/png;base64," in page                  # the plot
    assert "<b>planar Model &#x27;four_bar&#x27;</b>" in page   # the element table
    assert "degrees of freedom: 1" in page
