"""``@callee`` functions have no Python entry point: no Python code may call them.

Calling one from Python crashes the process (mexsim/jit/callee.py), so this reads every
Python file of the project and finds each reference to a callee outside compiled code:
an import of it, an attribute of its module, or a use of its name in a function that
numba does not compile.
"""

from __future__ import annotations

import ast
import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mexsim.jit import callee

ROOT = Path(__file__).resolve().parents[2]
COMPILED = {"njit", "callee", "strategy", "jit", "compiled"}  # decorators of compiled functions
# the dense planner, in three files whose compiled code calls each other's callees
MODULES_WITH_CALLEES = (
    "mexsim.planner.dense",
    "mexsim.planner.dense_bound",
    "mexsim.planner.dense_scratch",
)


def callees() -> dict[str, set[str]]:
    """Module name -> the names of its callees."""
    for module in MODULES_WITH_CALLEES:
        importlib.import_module(module)
    found: dict[str, set[str]] = {}
    for dispatcher in callee.CALLEES:
        func = dispatcher.py_func
        found.setdefault(func.__module__, set()).add(func.__name__)
    return found


def _decorator_name(node: ast.expr) -> str:
    target = node.func if isinstance(node, ast.Call) else node
    return target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")


def python_references(tree: ast.Module, module: str, names: dict[str, set[str]]) -> list[str]:
    """References to callees in this file's Python (not compiled) code."""
    found = []
    short = {name.rsplit(".", 1)[-1]: name for name in names}
    own = set(names.get(module, set()))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in names:
            imported = {a.name for a in node.names if a.name in names[node.module]}
            if module in names:  # compiled code of the same planner: held as its own below
                own |= imported
            else:
                found += [f"imports {name}" for name in sorted(imported)]
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in short
            and node.attr in names[short[node.value.id]]
        ):
            found.append(f"{node.value.id}.{node.attr}")
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.Lambda) and not (
            isinstance(node, ast.FunctionDef)
            and any(_decorator_name(d) in COMPILED for d in node.decorator_list)
        ):
            found += [
                f"{getattr(node, 'name', 'lambda')} uses {n.id}"
                for n in ast.walk(node)
                if isinstance(n, ast.Name) and n.id in own
            ]
    return found


def test_no_python_code_calls_a_callee():
    names = callees()
    assert set(names) == set(MODULES_WITH_CALLEES)
    assert {"_plan", "_solve", "_search"} <= names["mexsim.planner.dense"]
    assert {"_reach", "_min_removal"} <= names["mexsim.planner.dense_bound"]
    offences = []
    paths = sorted(
        (*ROOT.glob("mexsim/**/*.py"), *ROOT.glob("tests/**/*.py"), *ROOT.glob("benchmarks/*.py"))
    )
    assert len(paths) > 200  # the whole tree read, not a folder that moved
    for path in paths:
        rel = path.relative_to(ROOT)
        module = ".".join(rel.with_suffix("").parts)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        offences += [f"{rel}: {ref}" for ref in python_references(tree, module, names)]
    assert offences == []


def test_the_check_finds_a_python_caller():
    names = {"mexsim.planner.dense": {"_plan"}}
    source = (
        "from mexsim.planner.dense import _plan\n"
        "from mexsim.planner import dense\n"
        "def run():\n    return dense._plan()\n"
    )
    assert python_references(ast.parse(source), "x", names) == ["imports _plan", "dense._plan"]
    inside = "@njit\ndef a():\n    return _plan()\ndef b():\n    return _plan()\n"
    assert python_references(ast.parse(inside), "mexsim.planner.dense", names) == ["b uses _plan"]


@pytest.mark.processes
def test_a_python_call_of_a_callee_raises_rather_than_crash(tmp_path: Path):
    """A user's file may import a private helper and call it from Python: that jumped
    to the missing entry point and killed the process (SIGSEGV, no message)."""
    code = "from mexsim.planner.dense_scratch import _eps\n_eps(None)\n"
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        env=os.environ | {"PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 1, (done.returncode, done.stderr[-300:])
    assert "TypeError: mexsim.planner.dense_scratch._eps has no Python entry point" in done.stderr
