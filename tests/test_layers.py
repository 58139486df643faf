"""The layers of CONTRIBUTING.md: each imports only the layers below it, and no modules
import each other in a loop (at module level or inside a function alike)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "mexsim"
# top to bottom; a layer may import only those after it
LAYERS = [
    "mexsim",  # the package itself: the public names of mexsim/api.py, loaded on first use
    "__main__",
    "cli",
    "process",
    "api",
    "env",  # learning libraries: PettingZoo, Gymnasium, OpenSpiel (mexsim[env])
    "person",
    "tune",
    "running",
    "store",
    "analysis",
    "tournament",
    "testing",
    "strategy",
    "game",
    "planner",
    "jit",
    "validate",
    "errors",
    "version",
]


def modules() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def imports(path: Path, known: set[str]) -> set[str]:
    """The mexsim modules ``path`` imports (``from pkg import module`` as the module)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name in known}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                out.add(full if full in known else node.module)
    return {m for m in out if m in known}


def layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "mexsim"


def graph() -> dict[str, set[str]]:
    found = modules()
    return {m: imports(p, set(found)) - {m} for m, p in found.items()}


def test_every_module_is_in_a_layer():
    assert len(graph()) > 100  # the whole package read
    assert {layer(m) for m in graph()} <= set(LAYERS)


def test_no_layer_imports_a_layer_above_it():
    rank = {name: i for i, name in enumerate(LAYERS)}
    upward = [
        f"{m} imports {other}"
        for m, targets in graph().items()
        for other in sorted(targets)
        if rank[layer(other)] < rank[layer(m)]
    ]
    assert upward == []


def test_no_modules_import_each_other_in_a_loop():
    edges = graph()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    loops: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                loops.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    assert loops == []
