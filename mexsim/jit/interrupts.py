"""A stop signal numba's compiler cannot swallow.

Python raises a signal's exception (KeyboardInterrupt for Ctrl-C) wherever the main
thread runs Python code next, and while numba compiles that can be a ctypes callback
of llvmlite's (its object cache's notice), where an exception is printed as "Exception
ignored" and dropped: a Ctrl-C during `mexsim check`'s compile was swallowed with a
traceback, and the check went on and passed, exit 0. So the
command's handlers note each signal as well as raise it, and the command asks
(:func:`received`) before it trusts an outcome; long loops ask as they go
(:func:`raise_if_received`).
"""

from __future__ import annotations

import signal
from typing import Any

from mexsim.errors import Terminated

_received: list[int] = []
_within: list[bool] = [False]  # a command is running: the signals noted are its own


def begin() -> None:
    """A command starts: nothing noted yet, and what comes is noted for it."""
    _received.clear()
    _within[0] = True


def note(signum: int) -> None:
    """A handler got ``signum`` (and raises its exception next); noted for the running
    command only: a signal that comes between commands (a test sending itself one) is
    its exception alone."""
    if _within[0]:
        _received.append(signum)


def received() -> int | None:
    """The first stop signal the command got, or None."""
    return _received[0] if _received else None


def raise_if_received() -> None:
    """The first stop signal's exception again (KeyboardInterrupt for Ctrl-C,
    Terminated for the others), if one came: it may have been swallowed."""
    if _received:
        if _received[0] == signal.SIGINT:
            raise KeyboardInterrupt
        raise Terminated(_received[0])


def interrupt(signum: int, frame: Any) -> None:
    """Ctrl-C's handler: Python's own, and noted."""
    note(signum)
    raise KeyboardInterrupt


def forget() -> None:
    """The command ends: what it noted is forgotten, and nothing more is noted until
    the next one begins (a caller may run several in one process: a test, a notebook)."""
    _received.clear()
    _within[0] = False
