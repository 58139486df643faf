"""A strategy that leaves numba's compiled world (issue 32, row 16): state kept through
`numba.objmode`, or libc called through ctypes, passed `run`, and `--workers 1` and `2`
gave different files. Vetting refuses both in one line; a large global array, which
numba keeps the same way but only reads, still loads."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from mexsim.errors import ConfigError
from mexsim.strategy.registry import load_strategy_file

HEAD = "from mexsim.strategy.api import strategy\nNAME = '{name}'\nDESCRIPTION = 'x'\n"
FILES = {
    "objm": HEAD
    + """from numba import objmode
COUNT = [0]


def bump():
    COUNT[0] += 1
    return COUNT[0]


@strategy
def decide(view, params):
    with objmode(y="int64"):
        y = bump()
    return y % 2
""",
    "ctyp": HEAD
    + """import ctypes
rand = ctypes.CDLL(None).rand
rand.restype = ctypes.c_int
rand.argtypes = []


@strategy
def decide(view, params):
    return rand() % 2
""",
}
TABLE = (
    HEAD
    + """import numpy as np
TABLE = np.arange(2_000_000) % 2


@strategy
def decide(view, params):
    return TABLE[view[0]]
"""
)


@pytest.mark.compiles
@pytest.mark.parametrize(("name", "what"), [("objm", "numba.objmode"), ("ctyp", "ctypes or cffi")])
def test_leaving_compiled_code_is_refused(tmp_path: Path, name: str, what: str):
    path = tmp_path / f"{name}.py"
    path.write_text(FILES[name].format(name=name), encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba: cannot cache dynamic globals
        with pytest.raises(ConfigError, match="outside numba's compiled world") as err:
            load_strategy_file(path)
    assert what in str(err.value) and f"{name}.py:" in str(err.value)


@pytest.mark.compiles
def test_a_large_global_table_still_loads(tmp_path: Path):
    path = tmp_path / "table.py"
    path.write_text(TABLE.format(name="table"), encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert load_strategy_file(path).name == "table"


RECURSIVE = (
    HEAD
    + """from numba import njit


@njit
def depth(n):
    if n <= 0:
        return 0
    return 1 + depth(n - 1)


@strategy
def decide(view, params):
    return depth({n}) % 2
"""
)


@pytest.mark.compiles
@pytest.mark.parametrize("n", ["view[0] + 10**7", "3"])
def test_a_recursive_helper_is_refused_in_one_line(tmp_path: Path, n: str):
    """Issue 32, rows 9 and 10: a helper recursing without end was a segmentation fault
    of `run` (no line, a lock and a work folder left), and `mexsim check` of even a
    bounded one an LLVM abort. Both are refused, by `run` and `check` alike."""
    from typer.testing import CliRunner

    from mexsim.cli import app

    path = tmp_path / "deep.py"
    path.write_text(RECURSIVE.format(name="deep", n=n), encoding="utf-8")
    with pytest.raises(ConfigError, match="calls depth, which calls itself"):
        load_strategy_file(path)
    checked = CliRunner().invoke(app, ["check", str(path)])
    assert checked.exit_code != 0
    assert "calls depth, which calls itself" in checked.output


CACHED_RECURSION = {
    "own": HEAD
    + """from numba import njit


@njit(cache=True)
def depth(n):
    if n <= 0:
        return 0
    return 1 + depth(n - 1)


@strategy
def decide(view, params):
    return depth(3) % 2
""",
    "mutual": HEAD
    + """from numba import njit


@njit(cache=True)
def ping(n):
    return 0 if n <= 0 else pong(n - 1)


@njit(cache=True)
def pong(n):
    return 0 if n <= 0 else ping(n - 1)


@strategy
def decide(view, params):
    return ping(3) % 2
""",
    "module": """import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _deep_helper  # noqa: E402

"""
    + HEAD
    + """

@strategy
def decide(view, params):
    return _deep_helper.depth(3) % 2
""",
}

DEEP_HELPER = """from numba import njit


@njit(cache=True)
def depth(n):
    return 0 if n <= 0 else 1 + depth(n - 1)
"""


@pytest.mark.processes
@pytest.mark.compiles
@pytest.mark.parametrize("shape", sorted(CACHED_RECURSION))
def test_recursion_in_cached_helpers_is_refused_every_time(tmp_path: Path, shape: str) -> None:
    """A recursive helper compiled with cache=True: the second process loaded it from
    numba's cache, which shows no code to inspect (the recursion went unseen) and whose
    recursive entry aborts the process loading it (LLVM "Symbol not found"). It is
    refused from the Python code, before numba loads anything, every time."""
    import subprocess
    import sys

    (tmp_path / "_deep_helper.py").write_text(DEEP_HELPER)
    path = tmp_path / "deep.py"
    path.write_text(CACHED_RECURSION[shape].format(name="deep"))
    called = {"own": "depth", "mutual": "ping", "module": "depth"}[shape]
    for _ in range(2):
        done = subprocess.run(
            [sys.executable, "-m", "mexsim", "check", str(path)],
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        assert done.returncode == 1, done.stderr
        assert f"calls {called}, which calls itself" in done.stdout, done.stdout
