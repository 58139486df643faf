"""``@callee``: numba's njit, cached, for a function that only compiled code calls.

numba builds two wrappers around each compiled function besides its machine code: an
entry point for calls from Python (unboxing every argument, boxing the result) and a
C-callable one. A helper that only other compiled functions call needs neither, and
the Python entry point is a sixth of the planner's cold compile (its unboxing of arrays
and named tuples is code of its own for LLVM to optimise). Calling such a helper from
Python crashes the process, so it is only for private helpers (names starting with
``_``, or a kernel's internals) that no Python code calls; tests/test_callee.py holds
mexsim to that.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from numba import njit

CALLEE_OPTIONS = {"cache": True, "no_cpython_wrapper": True, "no_cfunc_wrapper": True}


def callee(func: Callable | None = None, **options: Any) -> Any:
    """``@callee`` or ``@callee(error_model=...)``: njit(cache=True) without wrappers."""
    if func is None:
        return lambda f: callee(f, **options)
    dispatcher = njit(**CALLEE_OPTIONS, **options)(func)
    CALLEES.append(dispatcher)
    return dispatcher


CALLEES: list[Any] = []  # every function compiled so, for tests/test_callee.py
