"""One ``ast.parse`` at a time in a process that runs mexsim.

CPython keeps the depth count of the parser's tree construction in the interpreter's
state, not the thread's (gh-106905's family). When a garbage collection's callback lets
another thread in while a tree is built (Dask's processes have such a callback) and
that thread parses too, one of the two fails with ``SystemError: AST constructor
recursion depth mismatch``. Three parties parse in a run: numba as it compiles (the
first line of a function's body), Python's traceback formatting (the ``^^^`` marks
under an expression, 3.11+: Dask logs a killed worker's errors so, on its own thread)
and mexsim reading a strategy file's NAME. CI saw a killed-worker run fail so in the
client. Serialising ``ast.parse`` (a few calls a run, none in play) removes the race
for all three; the lock is reentrant so that a parse inside a parse (a finalizer run
by the collection) waits for nothing.
"""

from __future__ import annotations

import ast
import threading
from typing import Any

_lock = threading.RLock()
_parse = ast.parse


def _one_at_a_time(*args: Any, **kwargs: Any) -> Any:
    with _lock:
        return _parse(*args, **kwargs)


def serialise_ast_parse() -> None:
    """Make ``ast.parse`` take a process-wide lock (once; later calls do nothing)."""
    if ast.parse is not _one_at_a_time:
        ast.parse = _one_at_a_time
