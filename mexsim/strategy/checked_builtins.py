"""A built-in strategy's code, bounds-checked, for a user's strategy that calls it.

The shipped strategies are compiled without numba's bounds check: they are trusted,
the check would cost them speed, and the kernel hands them a whole view. A user's
decide, though, may write over its view and then hand it to a built-in's decide (``from
mexsim.strategy.builtin.early_doubles import decide``): a move count of 2**40 was then
read far beyond the view, a segmentation fault with no message. So, as a user's file
is compiled (mexsim.strategy.api.strategy), each built-in function it refers to, a
decide imported by name or a built-in module imported whole, is replaced in the file's
globals by a twin compiled with the check: the same code over a copy of its module's
globals in which every compiled function of that file is such a twin, so that the
helpers it calls check too. A stray index then raises IndexError, which the run
reports in one line as the user's strategy's error. (Code the twins call in other
modules, the planner, checks its inputs itself: mexsim/planner/router.py.)
"""

from __future__ import annotations

import types
from functools import cache
from pathlib import Path
from typing import Any

from numba import njit
from numba.core.dispatcher import Dispatcher

from mexsim.jit.options import options_of
from mexsim.strategy.origin import BUILTIN_FOLDER, is_builtin

# what a twin keeps of its original's options: the rest (the on-disk cache, which keys
# on the file and would mix the two; no reference counts; no bounds check) it drops
KEPT_OPTIONS = ("inline", "fastmath", "error_model", "nogil", "parallel")


def check_builtins_in(namespace: dict[str, Any]) -> None:
    """Replace, in a user's module namespace, every built-in compiled function and
    built-in strategy module with its bounds-checked twin."""
    for name, value in list(namespace.items()):
        if name == "decide":
            # a built-in's decide that the file gives as its own is that built-in (the
            # registry trusts it so, and the kernel hands it a whole view)
            continue
        if isinstance(value, Dispatcher) and _file_of(value.py_func) and is_builtin(value.py_func):
            twin = _twins(value.py_func.__module__).get(id(value))
            if twin is not None:
                namespace[name] = twin
        elif (
            isinstance(value, types.ModuleType)
            and (file := getattr(value, "__file__", None))
            and (Path(file).resolve().parent == BUILTIN_FOLDER)
        ):
            namespace[name] = _checked_module(value.__name__)


def _file_of(func: Any) -> str | None:
    code = getattr(func, "__code__", None)
    return code.co_filename if code is not None else None


def _same_file(a: str | None, b: str | None) -> bool:
    return a is not None and b is not None and Path(a).resolve() == Path(b).resolve()


@cache
def _checked_globals(module_name: str) -> tuple[dict[str, Any], dict[int, Any]]:
    """A copy of the built-in module's globals with each of its file's compiled
    functions a checked twin, and the twins by their originals' ids. (Compiled lazily,
    when a user's decide first calls them; not cached on disk.)"""
    import sys

    module = sys.modules[module_name]
    namespace = dict(vars(module))
    twins: dict[int, Any] = {}
    for name, value in vars(module).items():
        if not (
            isinstance(value, Dispatcher) and _same_file(_file_of(value.py_func), module.__file__)
        ):
            continue
        func = value.py_func
        clone = types.FunctionType(
            func.__code__, namespace, func.__name__, func.__defaults__, func.__closure__
        )
        clone.__qualname__ = func.__qualname__
        clone.__module__ = func.__module__
        clone.__kwdefaults__ = func.__kwdefaults__
        options = options_of(value, KEPT_OPTIONS)
        twin = njit(boundscheck=True, **options)(clone)
        namespace[name] = twin
        twins[id(value)] = twin
    return namespace, twins


def _twins(module_name: str) -> dict[int, Any]:
    return _checked_globals(module_name)[1]


@cache
def _checked_module(module_name: str) -> types.ModuleType:
    """The built-in module as a module of twins (``module.decide`` is checked)."""
    checked = types.ModuleType(module_name)
    checked.__dict__.update(_checked_globals(module_name)[0])
    return checked
