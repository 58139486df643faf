"""numba's private options and internals, as mexsim/jit/options.py spells them, still do
what mexsim needs of them: a numba upgrade that drops or renames one fails here, loudly,
instead of leaving a user's helper without its bounds check or the built-ins' code with
reference counts again."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit, types

from mexsim.jit import options
from mexsim.jit.callee import CALLEES, CalleeDispatcher, callee
from tests.tournament.runs import python_in

ARRAY = (types.int64[::1],)


@njit
def _first(a):
    return a[0]


def _passes_its_array_on(a):
    b = a
    return _first(b) + a[1]


def _index(a, i):
    return a[i]


def test_code_compiled_without_reference_counts_takes_none():
    counted = options.compiled(refcounts=True)(_passes_its_array_on)
    uncounted = options.compiled(refcounts=False)(_passes_its_array_on)
    counted.compile(ARRAY)
    uncounted.compile(ARRAY)
    assert "NRT_incref" in options.llvm_code(counted, ARRAY)  # what the option takes away
    code = options.llvm_code(uncounted, ARRAY)
    assert "NRT_incref" not in code and "NRT_decref" not in code
    a = np.arange(3, dtype=np.int64)
    assert uncounted(a) == counted(a) == 1


def test_a_helper_given_the_bounds_check_before_its_compile_raises():
    helper = njit(_index)
    assert not options.checks_bounds(helper)
    options.check_bounds(helper)
    assert options.checks_bounds(helper)
    assert options.options_of(helper, ["boundscheck"]) == {"boundscheck": True}
    with pytest.raises(IndexError):
        helper(np.zeros(3, dtype=np.int64), 5)


def test_a_function_never_cached_has_no_cache_index():
    cached = njit(cache=True)(_index)
    assert options.cache_index(cached) is not None  # where numba keeps its entry
    options.never_cache(cached)
    cached(np.zeros(3, dtype=np.int64), 1)  # compiles, writes nothing
    assert options.cache_index(cached) is None


def test_the_compiled_return_type_and_code_are_read():
    twin = njit(_index)
    args = (types.int64[::1], types.int64)
    twin.compile(args)
    assert options.return_type(twin, args) == types.int64
    assert "define" in options.llvm_code(twin, args)
    assert options.llvm_codes(twin) == [options.llvm_code(twin, args)]


def _callee_only(a):
    return a[0] + 1


def test_a_callee_has_no_python_entry_point_and_refuses_a_python_call():
    registered = len(CALLEES)
    helper = callee(_callee_only)
    del CALLEES[registered:]  # not mexsim's (tests/jit/test_callee.py reads mexsim's)
    assert isinstance(helper, CalleeDispatcher)
    assert options.options_of(helper, ["no_cpython_wrapper", "no_cfunc_wrapper"]) == {
        "no_cpython_wrapper": True,
        "no_cfunc_wrapper": True,
    }
    with pytest.raises(TypeError, match="no Python entry point"):
        helper(np.zeros(2, dtype=np.int64))


def _thrice(a):
    return a[0] * 3


def test_a_cache_keyed_on_more_than_its_file_is_stale_when_that_changes():
    a = np.ones(2, dtype=np.int64)
    first = njit(cache=True)(_thrice)
    options.key_cache_on(first, "helpers as they were")
    assert first(a) == 3  # compiled, or loaded, and the cache written under that key
    again = njit(cache=True)(_thrice)
    options.key_cache_on(again, "helpers as they were")
    assert again(a) == 3
    assert sum(again.stats.cache_hits.values()) == 1
    edited = njit(cache=True)(_thrice)
    options.key_cache_on(edited, "a helper edited")
    assert edited(a) == 3
    assert sum(edited.stats.cache_hits.values()) == 0  # compiled afresh
    assert sum(edited.stats.cache_misses.values()) == 1


def test_a_function_forgotten_by_the_cache_compiles_afresh_next_time():
    a = np.ones(2, dtype=np.int64)
    cached = njit(cache=True)(_thrice)
    options.key_cache_on(cached, "forgotten")
    cached(a)
    assert options.cache_index(cached) is not None and options.cache_index(cached).exists()
    options.forget_cached(cached)
    again = njit(cache=True)(_thrice)
    options.key_cache_on(again, "forgotten")
    again(a)
    assert sum(again.stats.cache_hits.values()) == 0


# --- a kernel call without numba's per-call typing and address look-ups (issue 37) ----


def _decide_a(view, params):
    return view[0] + 1


def _decide_b(view, params):
    return view[0] + 2


def _closed_decides() -> tuple:
    from mexsim.game.signature import DECIDE_SIGNATURE

    made = []
    for func in (_decide_a, _decide_b):
        d = njit(func)
        d.compile(DECIDE_SIGNATURE)
        d.disable_compile()
        made.append(d)
    return tuple(made)


def test_a_closed_functions_addresses_are_remembered_and_numba_still_looks_them_up():
    from numba.experimental import function_type

    options.remember_function_addresses()
    options.remember_function_addresses()  # idempotent: wrapped once
    assert function_type._get_wrapper_address.remembers
    assert function_type._get_jit_address.remembers
    kernel = njit(lambda funcs, v, p: funcs[0](v, p) + funcs[1](v, p))
    a, b = _closed_decides()
    view = np.array([10], dtype=np.int64)
    params = np.zeros(1)
    assert kernel((a, b), view, params) == 11 + 12
    assert kernel((b, a), view, params) == 12 + 11  # each address its own function's
    assert kernel((a, b), view, params) == 23


def test_a_direct_call_plays_as_the_dispatcher_and_retypes_what_differs():
    a, b = _closed_decides()
    kernel = njit(lambda funcs, v, p, k: (funcs[0](v, p) + funcs[1](v, p)) * k)
    call = options.DirectCall(kernel)
    view = np.array([10], dtype=np.int64)
    params = np.zeros(1)
    assert call((a, b), view, params, 2) == 46
    assert call((a, b), view, params, 2) == 46 and len(call.known) == 1  # the entry point
    assert call((b, b), view, params, 1) == 24 and len(call.known) == 2  # other functions
    assert call((a, b), view, params, 1.5) == 34.5 and len(call.known) == 3  # a float
    view32 = np.array([10], dtype=np.int32)
    with pytest.raises(Exception):  # noqa: B017 - as the dispatcher refuses it
        call((a, b), view32, params, 1)
    assert len(call.known) == 3  # nothing remembered of a call numba refused
    longer = np.arange(4)
    assert options._fingerprint(longer[:2]) != options._fingerprint(longer[::2])  # layouts
    readonly = view.copy()
    readonly.flags.writeable = False
    assert options._fingerprint(view) != options._fingerprint(readonly)


_BLAS_PROBE = """
import sys
import mexsim.jit  # installs the hook
import numba.np.linalg as linalg
from numba import njit
import numpy as np

@njit
def first(a):
    return a[0]

first(np.ones(2))  # numba types its first function: arraymath is imported
import numba.np.arraymath as arraymath
assert "scipy.linalg" not in sys.modules, "the probe imported scipy.linalg"
assert arraymath._HAVE_BLAS  # answered yes: np.dot takes BLAS, as with the probe
assert linalg.ensure_blas.__qualname__ == "ensure_blas", linalg.ensure_blas  # the real one back

@njit
def dot(a, b):
    return np.dot(a, b)

assert dot(np.arange(3.0), np.arange(3.0)) == 5.0  # BLAS itself, scipy loaded for it now
assert "scipy.linalg.cython_blas" in sys.modules
print("ok")
"""


def test_numbas_blas_probe_is_answered_without_scipy_linalg_and_blas_still_works():
    """mexsim's compiled code loads without scipy.linalg (~0.1 s of every start), and a
    function that does call BLAS still gets it (a fresh process: this one has numba's
    arraymath and scipy loaded already)."""
    done = python_in(_BLAS_PROBE)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
