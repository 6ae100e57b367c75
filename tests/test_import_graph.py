"""The intra-package import graph of stickslip has no cycles (issue 13 item 4).

Static (``ast``): every ``import``/``from … import`` that names a stickslip module, at module
level *and* inside functions (a lazy import hides a loop from Python, not from the reader),
becomes an edge ``importer → module``; ``from .pkg import name`` points at the submodule
``pkg.name`` when there is one, else at the package. Any strongly connected component with more
than one module is a loop.
"""

from __future__ import annotations

import ast
from pathlib import Path

import stickslip

ROOT = Path(stickslip.__file__).resolve().parent

# Loops owned by another area, being removed on its branch; delete an entry once it is gone.
PENDING: set = set()   # import loops allowed for now (none)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    modules = {_module_name(p): p for p in ROOT.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        edges: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package[: len(package) - (node.level - 1)]
                    target = ".".join(base + ([node.module] if node.module else []))
                elif (node.module or "").split(".")[0] == "stickslip":
                    target = node.module
                else:
                    continue
                for alias in node.names:
                    sub = f"{target}.{alias.name}"
                    edges.add(sub if sub in modules else target)
            elif isinstance(node, ast.Import):
                edges.update(a.name for a in node.names if a.name.split(".")[0] == "stickslip")
        graph[name] = {e for e in edges if e in modules and e != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(frozenset(component))
    return found


def test_cycle_finder_finds_a_loop():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [frozenset("abc")]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_graph_sees_lazy_imports():
    graph = import_graph()
    assert "stickslip.discrete._export_c" in graph["stickslip.discrete._friction"]
    assert "stickslip.inclusion._bounds" in graph["stickslip.inclusion._system"]


def test_no_import_cycles_in_stickslip():
    loops = [sorted(c) for c in cycles(import_graph()) if c not in PENDING]
    assert loops == [], f"import loops: {loops}"


def private_reaches(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    """Edges from one subpackage into another subpackage's private module
    (``stickslip.planar._system → stickslip.laws._base``). Top-level private modules
    (``stickslip._rules``, ``_parameters``, ``_parameter_arrays`` …) are the shared layer
    below every subpackage and may be imported by any; the CLI and figures are entry points
    above everything but follow the same rule."""
    found = set()
    for importer, targets in graph.items():
        home = importer.split(".")[1] if importer.count(".") >= 1 else ""
        for target in targets:
            parts = target.split(".")
            if len(parts) < 3 or parts[1] == home:
                continue
            if any(p.startswith("_") for p in parts[2:]):
                found.add((importer, target))
    return found


# Reaches into another subpackage's private module that remain (DESIGN.md, "Layers": what is
# shared moves down a layer and is exported there). Each entry is one to remove; the test
# fails on a new reach, and on an entry that is gone (delete it, so the list only shrinks).
PENDING_REACHES: set[tuple[str, str]] = set()   # every reach is gone; keep it so


def test_no_new_reach_into_another_subpackages_private_module():
    reaches = private_reaches(import_graph())
    new = sorted(reaches - PENDING_REACHES)
    gone = sorted(PENDING_REACHES - reaches)
    assert not new, ("imports into another subpackage's private module (import the name "
                     f"from the subpackage, or move it down a layer): {new}")
    assert not gone, f"no longer reached — delete from PENDING_REACHES: {gone}"
