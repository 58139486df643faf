"""numba's private options and internals, spelled in this one module.

mexsim leans on a few things numba does not document: compiling without reference
counts (``_nrt=False``: the built-ins' hot code makes no arrays, and each call took and
dropped its arguments' counts, atomic adds), a compiled function without its Python and
C entry points (``no_cpython_wrapper``, ``no_cfunc_wrapper``: mexsim/jit/callee.py), a
dispatcher's options changed before its first compile (a user's helpers get the bounds
check), its disk cache switched off after ``cache=True`` or keyed on more than its own
file, the index file of its cache entry, and the LLVM code and return type of a compiled
signature (vetting); and numba's BLAS probe, answered without importing scipy.linalg
(``BlasProbeAnswered``). A numba upgrade that renames or drops any of them would fail
silently elsewhere (a user's helper without its bounds check, code with reference counts
again); here it fails loudly:
tests/jit/test_numba_options.py holds each one to what mexsim needs of it.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

_REFCOUNTS = "_nrt"
# a function only compiled code calls: no Python or C entry point (mexsim/jit/callee.py)
CALLEE_OPTIONS: dict[str, Any] = {
    "cache": True,
    "no_cpython_wrapper": True,
    "no_cfunc_wrapper": True,
}


def compiled(*args: Any, refcounts: bool | None = None, **options: Any) -> Any:
    """numba's ``njit(*args, **options)``; ``refcounts=False`` compiles without numba's
    reference counting (only for code that makes no array and keeps none)."""
    from numba import njit  # here: the registry reads options without loading numba

    if refcounts is not None:
        options[_REFCOUNTS] = refcounts
    return njit(*args, **options)


def callee_compiled(func: Any, **options: Any) -> Any:
    """``func`` compiled with CALLEE_OPTIONS (``refcounts`` as for ``compiled``)."""
    return compiled(**CALLEE_OPTIONS, **options)(func)


def become(dispatcher: Any, cls: type) -> Any:
    """The same dispatcher object, of a subclass that changes how Python calls it."""
    dispatcher.__class__ = cls
    return dispatcher


def check_bounds(dispatcher: Any) -> None:
    """A dispatcher not compiled yet gets numba's bounds check when it is compiled."""
    dispatcher.targetoptions["boundscheck"] = True


def checks_bounds(dispatcher: Any) -> bool:
    """Whether ``dispatcher`` was compiled (or will be) with the bounds check."""
    return bool(dispatcher.targetoptions.get("boundscheck"))


class BlasProbeAnswered:
    """An import hook: numba's ``numba.np.arraymath`` probes for BLAS as it is imported
    (when numba first types or loads compiled code) by importing scipy.linalg, ~0.1 s of
    every mexsim process's start. mexsim's compiled code calls no BLAS, and scipy is
    one of its dependencies, so that one probe is answered yes without the import;
    ``numba.np.linalg``'s own BLAS functions still call the real probe, put back as
    soon as the answered one is asked. Installed once, by mexsim/jit/__init__.py, it
    imports nothing until numba imports arraymath."""

    MODULE = "numba.np.arraymath"
    asked = False

    @classmethod
    def install(cls) -> None:
        if cls.MODULE not in sys.modules and cls not in sys.meta_path:
            sys.meta_path.insert(0, cls)

    @classmethod
    def find_spec(cls, name: str, path: Any = None, target: Any = None) -> None:
        # it stays in sys.meta_path (import is iterating over it): one comparison an import
        if name != cls.MODULE or cls.asked:
            return  # found as before
        cls.asked = True
        import numba.np.linalg as linalg

        probe = linalg.ensure_blas

        def answered() -> None:  # arraymath's import-time probe, and nothing after it
            linalg.ensure_blas = probe

        linalg.ensure_blas = answered  # arraymath imports this name, then calls it once


def options_of(dispatcher: Any, names: Iterable[str]) -> dict[str, Any]:
    """Those of ``dispatcher``'s compile options named in ``names``."""
    wanted = set(names)
    return {k: v for k, v in dispatcher.targetoptions.items() if k in wanted}


def never_cache(dispatcher: Any) -> None:
    """``dispatcher`` compiles afresh in every process, although declared
    ``cache=True`` (numba has no public switch back)."""
    from numba.core.caching import NullCache

    dispatcher._cache = NullCache()


def key_cache_on(dispatcher: Any, extra: str) -> None:
    """``dispatcher``'s disk cache is fresh only while ``extra`` is what it was when the
    cache was written, as well as its own file's timestamp (numba checks only that):
    ``extra`` is a digest of the other files its code comes from."""
    cache_file = dispatcher._cache._cache_file
    cache_file._source_stamp = (cache_file._source_stamp, extra)


def forget_cached(dispatcher: Any) -> None:
    """The next process compiles ``dispatcher`` afresh: its cache entry's index goes."""
    index = cache_index(dispatcher) if getattr(dispatcher, "_cache", None) is not None else None
    if index is not None:
        index.unlink(missing_ok=True)


def cache_index(dispatcher: Any) -> Path | None:
    """numba's index file of a cached compiled function in this process's cache folder
    (None if numba's internals moved). numba keys its entries on the source file's path
    too, so a copy of mexsim installed elsewhere starts cold beside a compiled one."""
    try:
        return Path(dispatcher._cache._cache_file._index_path)
    except AttributeError:
        return None


def llvm_code(dispatcher: Any, args: Any) -> str:
    """The LLVM code of ``dispatcher`` compiled for the argument types ``args``."""
    return str(dispatcher.overloads[args].library.get_llvm_str())


def llvm_codes(dispatcher: Any) -> list[str]:
    """The LLVM code of every signature ``dispatcher`` has compiled."""
    return [str(result.library.get_llvm_str()) for result in list(dispatcher.overloads.values())]


def return_type(dispatcher: Any, args: Any) -> Any:
    """The numba type ``dispatcher`` compiled for ``args`` returns."""
    return dispatcher.overloads[args].signature.return_type


def remember_function_addresses() -> None:
    """Keep the two addresses numba looks up for a strategy's compiled decide each time
    compiled code takes it from Python (its C wrapper's and its code's), where numba
    looks them up afresh: ~20 µs for each of the kernels' 17 strategy slots, at every
    kernel call, ~0.35 ms a block. A decide mexsim compiled is closed to new
    compiles (``disable_compile``): the addresses of its one signature never change
    while it lives, and it is kept with them, so its id is never another's. Any other
    function is looked up as numba does. Idempotent."""
    from numba.experimental import function_type

    for name in ("_get_wrapper_address", "_get_jit_address"):
        lookup = getattr(function_type, name)
        if not getattr(lookup, "remembers", False):
            setattr(function_type, name, _remembering(lookup))


def _remembering(lookup: Any) -> Any:
    from numba.core.dispatcher import Dispatcher

    known: dict[tuple[int, Any], tuple[Any, int]] = {}

    def remembered(func: Any, sig: Any) -> int:
        key = (id(func), sig)
        hit = known.get(key)
        if hit is not None and hit[0] is func:
            return hit[1]
        addr: int = lookup(func, sig)
        if isinstance(func, Dispatcher) and closed(func) and addr > 0:
            known[key] = (func, addr)
        return addr

    remembered.remembers = True  # type: ignore[attr-defined]
    return remembered


class DirectCall:
    """Call a compiled dispatcher's entry point without its typing of the arguments.

    numba types every argument of every call anew; a tuple of strategy functions is
    typed in Python (~0.35 ms for the kernels' 17 slots, at every block). The types
    follow from what the fingerprint below holds (each array's dtype, dimensions,
    layout and flags, each scalar's and named tuple's Python type, and which compiled
    functions a tuple holds, each closed to new compiles with its one signature), so
    the entry point found for a fingerprint once is the one numba would pick again.
    An unknown fingerprint is called as numba calls it, and then remembered."""

    def __init__(self, dispatcher: Any) -> None:
        self.dispatcher = dispatcher
        self.known: dict[tuple, tuple[Any, tuple]] = {}

    def __call__(self, *args: Any) -> Any:
        key = tuple(map(_fingerprint, args))
        hit = self.known.get(key)
        if hit is not None:
            return hit[0](*args)
        result = self.dispatcher(*args)
        types = tuple(self.dispatcher.typeof_pyval(a) for a in args)
        overload = self.dispatcher.overloads.get(types)
        if overload is not None:  # the functions are kept: their ids stay theirs
            self.known[key] = (overload.entry_point, tuple(a for a in args if _functions(a)))
        return result


def _functions(value: Any) -> bool:
    from numba.core.dispatcher import Dispatcher

    return (
        type(value) is tuple
        and len(value) > 0
        and all(isinstance(v, Dispatcher) and closed(v) for v in value)
    )


def _fingerprint(value: Any) -> Any:
    import numpy as np

    if isinstance(value, np.ndarray):
        flags = value.flags
        return (
            value.dtype.str,
            value.ndim,
            flags.c_contiguous,
            flags.f_contiguous,
            flags.writeable,
            flags.aligned,
        )
    if isinstance(value, tuple):
        if _functions(value):
            return ("functions", *map(id, value))
        return (type(value), *map(_fingerprint, value))
    return type(value)


def closed(dispatcher: Any) -> bool:
    """Whether a dispatcher is closed to new compiles (``disable_compile``)."""
    return not getattr(dispatcher, "_can_compile", True)
