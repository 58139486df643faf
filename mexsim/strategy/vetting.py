"""Vetting a user's strategy before it plays: what numba would say, in one line.

numba reports a strategy it cannot compile in dozens of lines of its own internals,
and it compiles some mistakes without a word: ``decide`` is compiled for the fixed
signature ``int64(int64[::1], float64[::1])``, so a float it returns is truncated to an
index, and a ``decide`` that can only raise compiles too. numba's ``np.random`` and
``random`` keep one global state per thread, so a strategy drawing from them plays
differently on every run. This module turns each of these into one line naming the
file, the line and the cause (a :class:`~mexsim.errors.ConfigError`).

The checks compile an uncached twin of ``decide`` without the fixed signature, which
shows the return type numba infers and the LLVM IR (cached code has none). A file that
passes leaves a marker keyed on its bytes and numba's version in mexsim's cache
folder, so it is vetted once per edit, not once per run.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numba
from numba import njit, types
from numba.core.dispatcher import Dispatcher
from numba.core.errors import NumbaError

from mexsim.errors import ConfigError
from mexsim.game.signature import DECIDE_SIGNATURE
from mexsim.jit.options import forget_cached, llvm_code, llvm_codes, return_type
from mexsim.strategy.sources import edit_marker, own_helpers, user_sources

# What numba's lowering calls to reach the global generator state of np.random and of
# Python's random module (numba/cpython/randomimpl.py, get_state_ptr).
GLOBAL_RANDOM_SYMBOLS = ("numba_get_np_random_state", "numba_get_py_random_state")
# How a compiled function's code leaves numba's compiled world, where state can
# outlive a decision and differ between processes: an objmode block
# calls back into Python; a ctypes or cffi function is called through a pointer numba
# keeps in a "dynamic global" (a large global array is kept there too, and only read)
OBJMODE_CALL = "PyObject_CallFunctionObjArgs"
_DYNAMIC_LOAD = re.compile(r"(%[\w.\"]+) = load ptr, ptr @numba\.dynamic\.globals\.")
VETTING_VERSION = "2"  # bump when the checks change: every file is vetted again
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_FILE_LINE = re.compile(r'File "([^"]+)", line (\d+)')


class VettingError(ConfigError):
    """A strategy refused before it plays; ``check`` names the clause of the strategy
    contract (mexsim.testing.contract.CHECKS) it breaks, so `mexsim check` reports it
    under that check."""

    def __init__(self, message: str, check: str) -> None:
        super().__init__(message)
        self.check = check


def vet_strategy(path: Path, decide: Dispatcher) -> None:
    """Raise ConfigError (one line: file:line and the cause) unless ``decide`` returns
    an integer on every path, touches no global random state and stays within numba's
    compiled code (no objmode, ctypes or cffi)."""
    marker = _marker(path, user_sources(decide.py_func)[1:])
    if marker is not None and marker.exists():
        return
    try:
        _vet(path, decide)
    except VettingError:
        # a refused decide is never loaded from numba's cache, nor its helpers: a
        # recursive one's cached code aborts the process that loads it (LLVM "Symbol
        # not found", row 10)
        for compiled in (decide, *own_helpers(decide.py_func)):
            forget_cached(compiled)
        raise
    if marker is not None:
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.touch()


def _vet(path: Path, decide: Dispatcher) -> None:
    twin = njit(boundscheck=True)(decide.py_func)
    try:
        twin.compile(DECIDE_SIGNATURE.args)
    except NumbaError as exc:
        raise VettingError(compile_error_line(path, exc), "loads") from exc
    where = f"{path}:{_def_line(decide.py_func)}"
    returned = types.unliteral(return_type(twin, DECIDE_SIGNATURE.args))
    if returned == types.none:
        raise VettingError(
            f"{where}: decide never returns a move: every path raises or "
            "ends without 'return' (return the index of a legal move)",
            "does not raise",
        )
    if isinstance(returned, types.Optional):
        raise VettingError(
            f"{where}: decide can return None on some path: it ends without 'return' "
            "there, or returns a variable that starts as None (start from a move, "
            "best = 0; return the index of a legal move on every path)",
            "returns an integer",
        )
    if not isinstance(returned, types.Integer | types.Boolean):
        raise VettingError(
            f"{where}: decide returns {returned}, not an integer: it would "
            "be truncated to a move index (return int(...) if that is meant)",
            "returns an integer",
        )
    code = llvm_code(twin, DECIDE_SIGNATURE.args)
    used = [s for s in GLOBAL_RANDOM_SYMBOLS if s in code]
    if used:
        source = "np.random" if "np" in used[0] else "random"
        raise VettingError(
            f"{where}: decide uses {source}'s global random state, which makes runs "
            "irreproducible; draw with mexsim.strategy.api.random_below(view, n) instead "
            "(the seat's own stream)",
            "uses no global random state",
        )
    own = _own_code(code)
    # in decide's code, and in each helper's, as decide's may have folded a call away
    # (a helper loaded from numba's cache shows no code: recursion_refused reads Python)
    helpers = (
        _own_code(code) for helper in own_helpers(decide.py_func) for code in llvm_codes(helper)
    )
    recursive = next(
        (name for name in map(_recursive_function, (own, *helpers)) if name is not None), None
    )
    if recursive is not None:
        raise recursion_refused(path, decide.py_func, recursive)
    escapes = _escapes(own)
    if escapes:
        raise VettingError(
            f"{where}: decide calls code outside numba's compiled world ({escapes[0]}), "
            "which can keep state that differs between processes and runs: a strategy "
            "may keep state only in its notes (MEMORY)",
            "deterministic",
        )


def recursion_refused(path: Path | str, func: Any, recursive: str) -> VettingError:
    """The line refusing a decide that reaches a function calling itself."""
    return VettingError(
        f"{path}:{_def_line(func)}: decide calls {recursive}, which calls itself: a deep "
        "recursion overflows the small stack of the engine's threads and ends the run "
        "with no message; write it as a loop",
        "loads",
    )


def _escapes(code: str) -> list[str]:
    """The ways the compiled code leaves numba's compiled world, named."""
    found = []
    if OBJMODE_CALL in code:
        found.append("numba.objmode")
    for register in _DYNAMIC_LOAD.findall(code):
        if re.search(r"call [^\n]*" + re.escape(register) + r"\(", code):
            found.append("ctypes or cffi")
            break
    return found


_DEFINE = re.compile(r'^define [^@]*@"?([^"(\s]+)"?\(', re.M)
_CALL = re.compile(r'call [^@\n]*@"?([^"(\s]+)"?\(')
_PACKAGE = re.compile(r"6mexsim\d")  # mangled mexsim.*: the engine's and built-ins' code


def _recursive_function(code: str) -> str | None:
    """The name of a function of the strategy's own (mexsim's code is not looked at)
    that reaches itself through the calls in the compiled code, or None (a
    helper recursing without end was a segmentation fault)."""
    calls: dict[str, set[str]] = {}
    current = None
    for line in code.splitlines():
        found = _DEFINE.match(line)
        if found:
            current = found.group(1)
            calls[current] = set()
        elif current is not None:
            calls[current].update(_CALL.findall(line))
    own = {name for name in calls if not _PACKAGE.search(name)}
    for start in own:
        seen: set[str] = set()
        stack = [c for c in calls[start] if c in own]
        while stack:
            name = stack.pop()
            if name == start:
                return _python_name(start)
            if name not in seen:
                seen.add(name)
                stack.extend(c for c in calls.get(name, ()) if c in own)
    return None


def _python_name(mangled: str) -> str:
    """A numba-mangled name's last component (``_ZN8__main__4deepB2v2…`` -> deep)."""
    rest = mangled.removeprefix("_ZN")
    name = mangled
    while rest and rest[0].isdigit():
        digits = len(rest) - len(rest.lstrip("0123456789"))
        size = int(rest[:digits])
        name, rest = rest[digits : digits + size], rest[digits + size :]
    return name


def _own_code(code: str) -> str:
    """The LLVM IR of the compiled functions, without the Python wrapper numba adds
    around the entry point (it converts arguments with Python's own calls)."""
    kept = []
    keep = True
    for line in code.splitlines():
        if line.startswith("define "):
            keep = "@cpython." not in line and "@_ZN7cpython" not in line
        if keep:
            kept.append(line)
    return "\n".join(kept)


def compile_error_line(path: Path, exc: NumbaError) -> str:
    """numba's compile error as ``file:line: decide does not compile: cause``."""
    text = _ANSI.sub("", str(exc))
    line = None
    loc = getattr(exc, "loc", None)
    if loc is not None and getattr(loc, "line", None) is not None:
        line = loc.line
        if Path(str(loc.filename)).resolve() != path.resolve():
            line = None  # somewhere inside numba or a helper file: find the strategy's
    if line is None:
        for found_file, found_line in _FILE_LINE.findall(text):
            if Path(found_file).name == path.name:
                line = int(found_line)
                break
    cause = _cause(text)
    returned = _TUPLE_RETURN.search(cause)
    if returned:  # numba's words name a temporary ('$224return_value.11'), no line
        cause = "decide returns a tuple, not one move index"
        if line is None:
            line = _tuple_return_line(path)
    where = f"{path}:{line}" if line is not None else str(path)
    advice = _advice(cause)
    if advice is not None and line is not None:
        advice = _named(advice, _source_line(path, line))
    return f"{where}: decide does not compile: {cause}{f' ({advice})' if advice else ''}"


_TUPLE_RETURN = re.compile(r"No conversion from (?:Uni)?Tuple\(.*?\) to \w+ for '\$\w*return")


def _tuple_return_line(path: Path) -> int | None:
    """The first ``return a, b`` of the file (numba's message has no line for it)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    for k, text in enumerate(lines, 1):
        code = text.split("#", 1)[0]
        if re.match(r"\s*return\s*\(?[^,()]+(\([^()]*\))?[^,()]*,", code):
            return k
    return None


# numba's words for the mistakes a new author makes most, and what to write instead
# (its message named neither param_index nor a loop)
_ADVICE = (
    (
        re.compile(r"Unsupported array index type unicode_type"),
        "params is indexed by position, not by name: P = param_index(PARAMS) at the top "
        "of the file, then params[P.weight]",
    ),
    (
        re.compile(r"Cannot capture the non-constant value associated with variable"),
        "numba compiles no lambda or inner function that reads decide's variables: "
        "write the loop out, or an @njit function at the top level that takes them",
    ),
    (
        re.compile(r"decide returns a tuple"),
        "return one integer, the index of the legal move chosen; a helper may return "
        "more than one value, decide returns one",
    ),
    (
        re.compile(r"got OptionalType|No conversion from none|Optional\("),
        "a move index that may be None: start from a move (best = 0), not from None",
    ),
    (
        re.compile(r"reflected list|Cannot determine Numba type of <class '(list|dict|set)'>"),
        "decide reads a global list, dict or set, which numba cannot compile in: use a "
        "tuple, or a numpy array (ORDER = np.array([3, 1, 2]))",
    ),
    (
        re.compile(r"Untyped global name '\w+': Cannot determine Numba type of <class"),
        "decide reads a Python object numba cannot compile in: keep numbers in "
        "constants, tuples or numpy arrays at the top level",
    ),
)


# the parameter a string index names in the failing line: params["w"] -> P.w
_STRING_INDEX = re.compile(r"""params\[\s*["']([A-Za-z_]\w*)["']\s*\]""")


def _source_line(path: Path, line: int) -> str:
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return ""
    return lines[line - 1] if 0 < line <= len(lines) else ""


def _named(advice: str, source: str) -> str:
    """The advice with the parameter the line names (params["w"]: params[P.w])."""
    found = _STRING_INDEX.search(source)
    return advice.replace("P.weight", f"P.{found.group(1)}") if found else advice


def _advice(cause: str) -> str | None:
    """What to write instead, for the common mistakes (None: numba's words say it)."""
    return next((advice for pattern, advice in _ADVICE if pattern.search(cause)), None)


def _cause(text: str) -> str:
    """The first line of numba's message that says what is wrong, in its words."""
    lines = [ln.strip() for ln in text.splitlines()]
    useful = [
        ln
        for ln in lines
        if ln
        and not ln.startswith(
            ("Failed in ", "During:", "File ", "^", "<source elided>", "- Resolution failure")
        )
    ]
    if not useful:
        return "numba could not compile it"
    cause = useful[0]
    rejected = "Rejected as the implementation raised a specific error:"
    if rejected in useful[:-1]:  # an overload's own message (the accessors' _ix)
        at = useful.index(rejected)
        cause = useful[at + 1].removeprefix("TypingError: ")
        # numba locates an inlined accessor's error in access.py, not at the strategy's
        # call: name the accessor, the one thing the user can find in their file
        called = [ln for ln in useful[at:] if ln.startswith("def ")]
        return f"{cause} (in {called[0][4:].split('(')[0]})" if called else cause
    if cause.startswith("No conversion from none to"):
        return "some path ends without 'return' (return the index of a legal move)"
    if cause.endswith(":") and len(useful) > 1:  # "No implementation of … for signature:"
        cause = f"{cause} {useful[1].lstrip('> ')}"
    return cause


def _def_line(func) -> int:
    """The line of ``def decide`` (the code object starts at its decorator)."""
    first = func.__code__.co_firstlineno
    try:
        lines = Path(func.__code__.co_filename).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return first
    for number in range(first, len(lines) + 1):
        if lines[number - 1].lstrip().startswith("def "):
            return number
    return first


def _marker(path: Path, helpers: Sequence[Path]) -> Path | None:
    """Where a file that passed is marked: keyed on its bytes and its helper files'
    (mexsim.strategy.sources), so an edit of either is vetted again."""
    return edit_marker("vetted", (VETTING_VERSION, numba.__version__), path, helpers)
