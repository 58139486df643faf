"""A strategy's decide, compiled once and kept in numba's cache, loads in a new process
whatever name its file is imported under there. numba's cache keeps the name of the
module a function was compiled in, and imports that module again to load it: a
built-in compiled by the registry (under a name of the registry's own) failed to load
in a process that imported it as ``mexsim.strategy.builtin.greedy``, as a user's
strategy that calls it does (docs/writing-strategies.md: "a built-in's code your strategy
calls"), and so
``mexsim check`` refused such a strategy with ModuleNotFoundError."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.tournament.runs import ROOT, python_in

CALLS_GREEDY = """\
from mexsim.strategy.api import strategy
from mexsim.strategy.builtin.greedy import decide as greedy_decide

NAME = "calls_greedy"
DESCRIPTION = "greedy, by calling the built-in"


@strategy
def decide(view, params):
    return greedy_decide(view, params)
"""

OWN = """\
from numba import njit

from mexsim.strategy.api import strategy

NAME = "{name}"
DESCRIPTION = "the first legal move, by a cached helper of its own"


@njit(cache=True)
def first_move(view):
    return 0


@strategy
def decide(view, params):
    return first_move(view)
"""


LOAD = (
    "import sys; from pathlib import Path; "
    "from mexsim.strategy.registry import load_strategy_file; "
    "print(load_strategy_file(Path(sys.argv[1])).name)"
)


@pytest.mark.slow
@pytest.mark.processes
def test_a_built_in_loaded_by_the_registry_then_imported_by_its_own_name() -> None:
    greedy = ROOT / "mexsim" / "strategy" / "builtin" / "greedy.py"
    first = python_in(LOAD, greedy)  # compiles it, or loads it: cached either way
    assert first.returncode == 0 and first.stdout.split() == ["greedy"], first.stderr
    then = python_in(  # the kernel plays greedy itself: its decide compiles when asked
        "from mexsim.game.signature import ready\n"
        "from mexsim.strategy.builtin.greedy import decide\n"
        "print(len(ready(decide).overloads))"
    )
    assert then.returncode == 0 and then.stdout.split() == ["1"], then.stderr


@pytest.mark.slow
@pytest.mark.processes
@pytest.mark.compiles
def test_a_strategy_that_calls_a_built_in_loads_in_a_process_of_its_own(tmp_path: Path) -> None:
    mine = tmp_path / "calls_greedy.py"
    mine.write_text(CALLS_GREEDY)
    assert python_in(LOAD, ROOT / "mexsim" / "strategy" / "builtin" / "greedy.py").returncode == 0
    done = python_in(LOAD, mine)
    assert done.returncode == 0 and done.stdout.split() == ["calls_greedy"], done.stderr
    check = subprocess.run(
        [sys.executable, "-m", "mexsim", "check", str(mine), "--examples", "4"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert check.returncode == 0, check.stdout + check.stderr


IMPORT_IT = (
    "import sys; sys.path.insert(0, sys.argv[1]); import {name}; "
    "print({name}.decide.py_func.__name__)"
)


@pytest.mark.slow
@pytest.mark.processes
@pytest.mark.compiles
@pytest.mark.parametrize("mexsim_first", [True, False])
def test_a_user_s_strategy_file_imported_by_the_user(tmp_path: Path, mexsim_first: bool) -> None:
    """In a notebook, say: ``import own`` from the strategies folder, before or after
    mexsim has loaded the file; its helper is ``cache=True`` too. Loading mexsim's
    cached copies failed in the notebook (ModuleNotFoundError), and copies the notebook
    wrote under its own module's name failed mexsim's next load of the file."""
    name = f"own_{'after' if mexsim_first else 'before'}"
    (tmp_path / f"{name}.py").write_text(OWN.format(name=name))
    steps = [(LOAD, tmp_path / f"{name}.py"), (IMPORT_IT.format(name=name), tmp_path)]
    for code, argument in steps if mexsim_first else steps[::-1]:
        done = python_in(code, argument)
        assert done.returncode == 0, done.stderr
        assert done.stdout.split() in ([name], ["decide"]), done.stdout
