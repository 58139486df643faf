"""ast.parse one at a time (mexsim/jit/ast_guard.py): three parties parse in a run."""

from __future__ import annotations

import ast
import gc
import threading
import time
import traceback
from collections.abc import Callable

from mexsim.jit.ast_guard import serialise_ast_parse
from mexsim.strategy import registry
from mexsim.strategy.origin import BUILTIN_FOLDER


def _fails_with_a_traceback() -> None:
    values = {"a": [1, 2]}
    values["a"][0] + values["b"][1]


def _formats_tracebacks() -> None:  # as Dask logs a killed worker's errors
    try:
        _fails_with_a_traceback()
    except KeyError as exc:
        assert "^" in "".join(traceback.format_exception(exc))


def _compiles() -> None:  # as numba's lowering reads a function's first line
    ast.parse((BUILTIN_FOLDER / "greedy.py").read_bytes())


def _reads_a_name() -> None:  # as a worker's task finds a built-in strategy's file
    assert registry._declared_name(BUILTIN_FOLDER / "longest_train.py") == "longest_train"


def test_parsing_in_three_threads_at_once_never_fails() -> None:
    """CPython counts the tree's depth per interpreter: two parses at once, with a
    garbage collection's callback letting the other thread in (Dask's processes have
    one), failed with 'SystemError: AST constructor recursion depth mismatch' (CI, a
    killed-worker cluster run) until every parse took one lock."""
    serialise_ast_parse()  # as every command and run does first
    failures: list[str] = []

    def repeat(work: Callable[[], None]) -> None:
        for _ in range(150):
            try:
                work()
            except Exception as exc:  # any: a thread's own failure would be lost
                failures.append(f"{work.__name__}: {type(exc).__name__}: {exc}")

    def let_another_thread_in(*_: object) -> None:
        time.sleep(0.0001)

    gc.callbacks.append(let_another_thread_in)
    try:
        threads = [
            threading.Thread(target=repeat, args=(work,))
            for work in (_formats_tracebacks, _compiles, _reads_a_name)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        gc.callbacks.remove(let_another_thread_in)
    assert failures == []


def test_a_command_serialises_the_parser_before_anything_else() -> None:
    from typer.testing import CliRunner

    from mexsim.cli import app
    from mexsim.jit import ast_guard

    result = CliRunner().invoke(app, ["strategies"])
    assert result.exit_code == 0, result.output
    assert ast.parse is ast_guard._one_at_a_time
