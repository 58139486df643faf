"""Compiled helpers of the contract: a bounds-checked decide, numba's global random
state, and a timer of decisions.

``decide`` as a run uses it is compiled without bounds checks (numba's default): an
index outside the view writes into whatever memory lies there. The contract calls a
second compile of the same Python function with ``boundscheck=True``, so such an
access raises IndexError instead (the accessors, being inlined, are checked with it; a
strategy's own helper functions compiled apart are not). The same compile, made
without the fixed signature, tells what ``decide`` really returns: the fixed signature
silently truncates a float to an integer.
"""

from __future__ import annotations

import random
import warnings
from typing import Any

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.core.errors import NumbaWarning
from numba.extending import intrinsic

from mexsim.game.signature import DECIDE_SIGNATURE


def checked_compile(py_func):
    """``(dispatcher, return type)``: decide compiled with bounds checks for the view's
    and params' types; raises numba's error if it cannot be compiled so."""
    dispatcher = njit(boundscheck=True, nogil=True)(py_func)  # nogil: see Checker.call
    with warnings.catch_warnings():  # objmode blocks hold the GIL: numba says so, the
        warnings.simplefilter("ignore", NumbaWarning)  # checks do not mind
        dispatcher.compile(DECIDE_SIGNATURE.args)
    return dispatcher, dispatcher.nopython_signatures[0].return_type


def return_fault(return_type) -> str | None:
    """What is wrong with decide's inferred return type, or None when it is an integer
    (or ``none``: decide always raises, which the games then show)."""
    if isinstance(return_type, types.Integer) or return_type == types.none:
        return None
    if isinstance(return_type, types.Optional):
        return (
            f"decide returns {return_type}: some path ends without a return (a "
            "run would fail there)"
        )
    return (
        f"decide returns {return_type}; the engine's signature would silently convert "
        "it to an integer (a float is truncated): return a move index (int)"
    )


@njit
def seed_global_random(seed):
    """Seeds numba's own global generators (np.random and random; not NumPy's)."""
    np.random.seed(seed)
    random.seed(seed)


@njit
def draw_global_random():
    """One draw of each global generator: unchanged draws mean nobody drew from them."""
    return np.random.random(), random.random()


def _cycles(typingctx):
    """The CPU's cycle counter (``llvm.readcyclecounter``: rdtsc on x86; 0 where the
    CPU has none): timing one decision costs ~10 ns this way, against ~1 µs for a
    call from Python (which is why the timing loop is compiled)."""

    def codegen(context, builder, signature, args):
        fn = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.IntType(64), []), "llvm.readcyclecounter"
        )
        return builder.call(fn, [])

    return types.uint64(), codegen


cycles: Any = intrinsic(_cycles)  # typed Any: mypy cannot see through intrinsics


@njit
def now_cycles():
    return cycles()


@njit
def time_decisions(funcs, views, params, passes, ticks):
    """``ticks[k]``: the fewest counter ticks any of ``passes`` calls of decide took on
    state k, each call on a fresh copy of the state, less the cost of reading the
    counter. Returns the sum of the choices (so no call is optimised away)."""
    overhead = np.int64(1) << 62
    for _ in range(1000):
        a = cycles()
        b = cycles()
        overhead = min(overhead, np.int64(b - a))
    ticks[:] = np.int64(1) << 62
    work = np.empty(views.shape[1], dtype=np.int64)
    total = 0
    for _ in range(passes):
        for k in range(views.shape[0]):
            work[:] = views[k]
            a = cycles()
            total += funcs[0](work, params[k])
            b = cycles()
            ticks[k] = min(ticks[k], max(np.int64(0), np.int64(b - a) - overhead))
    return total
