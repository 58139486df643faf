"""``@callee``: numba's njit, cached, for a function that only compiled code calls.

numba builds two wrappers around each compiled function besides its machine code: an
entry point for calls from Python (unboxing every argument, boxing the result) and a
C-callable one. A helper that only other compiled functions call needs neither, and
the Python entry point is a sixth of the planner's cold compile (its unboxing of arrays
and named tuples is code of its own for LLVM to optimise). Calling such a helper from
Python would crash the process (its dispatcher raises TypeError instead), so it is only
for private helpers (names starting with ``_``, or a kernel's internals) that no Python
code calls; tests/jit/test_callee.py holds mexsim to that.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from numba.core.registry import CPUDispatcher

from mexsim.jit.options import become, callee_compiled

CALLEES: list[Any] = []  # every function compiled so, for tests/jit/test_callee.py


class CalleeDispatcher(CPUDispatcher):
    """A callee's dispatcher: compiled code calls it as any other (numba types it by
    the dispatcher, never through ``__call__``); a call from Python, which would jump
    to the missing entry point and crash the process (a user's strategy file calling
    ``mexsim.planner.dense._plan`` at import: a segmentation fault, no message),
    raises TypeError instead."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        func = self.py_func
        raise TypeError(
            f"{func.__module__}.{func.__qualname__} has no Python entry point "
            "(mexsim/jit/callee.py): call it from compiled (@njit) code only"
        )


def callee(func: Callable | None = None, **options: Any) -> Any:
    """``@callee`` or ``@callee(refcounts=False)``: njit(cache=True) without wrappers
    (mexsim/jit/options.py, ``compiled``, says what the options are)."""
    if func is None:
        return lambda f: callee(f, **options)
    dispatcher = become(callee_compiled(func, **options), CalleeDispatcher)  # a Python call refused
    CALLEES.append(dispatcher)
    return dispatcher
