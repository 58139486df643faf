"""The source files a strategy's code comes from: its own file and every file of the
user's that its decide can reach (helper modules it imports, transitively).

numba keys a cached ``decide`` on its own file's timestamp only, and the run id hashed
only that file: a helper module edited after a run was played by the old compiled code
on threads and by the new on a cluster, under the same run id. What a
decide can call is what its globals hold, so the files are found by walking them — the
modules, functions and compiled functions defined in a user's file, and theirs in turn —
not by guessing at import statements. Installed packages (the standard library,
site-packages, mexsim itself) are not the user's: a new version of one is a new
version of mexsim's run, not of the strategy.
"""

from __future__ import annotations

import hashlib
import os
import site
import sys
import sysconfig
import types
from collections.abc import Callable, Iterable, Sequence
from functools import cache
from pathlib import Path
from typing import Any

_MEXSIM = Path(__file__).resolve().parents[1]


@cache
def _installed_roots() -> tuple[Path, ...]:
    paths = sysconfig.get_paths()
    roots = {paths[k] for k in ("stdlib", "platstdlib", "purelib", "platlib") if k in paths}
    roots.update(getattr(site, "getsitepackages", list)())
    user_site = getattr(site, "getusersitepackages", lambda: None)()
    if isinstance(user_site, str):
        roots.add(user_site)
    roots.update((sys.base_prefix + "/lib", sys.prefix + "/lib"))
    return (*(Path(r).resolve() for r in roots if r), _MEXSIM)


@cache
def is_users_file(filename: str) -> bool:
    """Whether a module or function defined in ``filename`` is the user's code: a real
    file, outside the installed packages and mexsim."""
    if not filename or filename.startswith("<"):
        return False
    path = Path(filename).resolve()
    return path.is_file() and not any(path.is_relative_to(root) for root in _installed_roots())


def user_sources(func: Callable) -> tuple[Path, ...]:
    """``func``'s own file, then the other files of the user's its code can reach,
    sorted: every module, function and compiled function in its globals defined in a
    user's file, and the same in theirs."""
    own = Path(func.__code__.co_filename).resolve()
    found: set[Path] = set()
    walked: set[int] = set()
    pending: list[dict[str, Any]] = [func.__globals__]
    while pending:
        namespace = pending.pop()
        if id(namespace) in walked:
            continue
        walked.add(id(namespace))
        for value in list(namespace.values()):
            filename, inner = _defined_in(value)
            if filename is not None and is_users_file(filename):
                found.add(Path(filename).resolve())
                if inner is not None:
                    pending.append(inner)
    found.discard(own)
    return (own, *sorted(found))


def _defined_in(value: Any) -> tuple[str | None, dict[str, Any] | None]:
    """The file ``value`` was defined in and the namespace its code reads, if it is a
    module, a function or a compiled function (numba's dispatcher keeps ``py_func``)."""
    if isinstance(value, types.ModuleType):
        return getattr(value, "__file__", None), vars(value)
    func = getattr(value, "py_func", value)
    if isinstance(func, types.FunctionType):
        return func.__code__.co_filename, func.__globals__
    return None, None


def sources_digest(paths: Iterable[Path | str]) -> str:
    """A digest of the files' contents, in the order given (names are left out: moving
    a strategies folder changes nothing)."""
    digest = hashlib.sha256()
    for path in paths:
        digest.update(hashlib.sha256(Path(path).read_bytes()).digest())
    return digest.hexdigest()


def helpers_digest(func: Callable) -> str | None:
    """A digest of the helper files ``func`` reaches beyond its own file (None: it
    reaches none), for numba's cache key of a strategy's decide."""
    helpers = user_sources(func)[1:]
    return sources_digest(helpers) if helpers else None


def own_helpers(func: Callable) -> list[Any]:
    """The ``@njit`` functions (numba dispatchers) of ``func``'s own file that it can see."""
    return [
        value
        for value in list(func.__globals__.values())
        if isinstance(getattr(value, "py_func", None), types.FunctionType)
        and value.py_func.__code__.co_filename == func.__code__.co_filename
    ]


def recursive_function(func: Callable) -> str | None:
    """The name of a compiled function of the user's, reached from ``func``, that
    reaches itself, read from the Python code (the names each one uses, resolved in its
    globals and in the user's modules there) — not from the compiled code, which numba
    does not show for a function loaded from its cache, and whose cached form, when
    recursive, aborts the process that loads it."""
    path: list[types.FunctionType] = []
    done: set[types.FunctionType] = set()

    def visit(current: types.FunctionType) -> str | None:
        if current in path:
            return current.__name__
        if current in done:
            return None
        path.append(current)
        for callee in _compiled_callees(current):
            found = visit(callee)
            if found is not None:
                return found
        path.pop()
        done.add(current)
        return None

    return visit(func) if isinstance(func, types.FunctionType) else None


def _compiled_callees(func: types.FunctionType) -> set[types.FunctionType]:
    names: set[str] = set()
    codes = [func.__code__]
    while codes:  # the function's own code and the code nested in it
        code = codes.pop()
        names.update(code.co_names)
        codes.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    scope = func.__globals__
    modules = [
        m
        for m in list(scope.values())
        if isinstance(m, types.ModuleType) and is_users_file(getattr(m, "__file__", None) or "")
    ]
    found = set()
    for name in names:
        for value in (scope.get(name), *(getattr(m, name, None) for m in modules)):
            py_func = getattr(value, "py_func", None)
            if isinstance(py_func, types.FunctionType) and is_users_file(
                py_func.__code__.co_filename
            ):
                found.add(py_func)
    return found


def edit_marker(
    kind: str, tags: Iterable[str], path: Path, helpers: Sequence[Path] = ()
) -> Path | None:
    """Where mexsim's cache folder marks a check ``kind`` passed for this edit of
    ``path``: keyed on ``tags`` (the versions the check depends on), the file's real
    path and bytes, and its ``helpers``' (None: no cache folder, or the file cannot be
    read). A marker per edit makes a check run once per edit, not once per run."""
    cache = os.environ.get("NUMBA_CACHE_DIR")
    if not cache:
        return None
    try:
        content = path.read_bytes()
        if helpers:
            content += sources_digest(helpers).encode()
    except OSError:
        return None
    digest = hashlib.sha256()
    # os.fsencode: a path's bytes, also those that are not UTF-8 (surrogate escapes)
    for part in (*tags, path.resolve()):
        digest.update(os.fsencode(str(part)) + b"\0")
    digest.update(content)
    return Path(cache) / kind / digest.hexdigest()[:32]
