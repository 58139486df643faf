"""A stop signal numba's compiler cannot swallow.

Python raises a signal's exception (KeyboardInterrupt for Ctrl-C) wherever the main
thread runs Python code next, and while numba compiles that can be a ctypes callback
of llvmlite's (its object cache's notice), where an exception is printed as "Exception
ignored" and dropped: a Ctrl-C during `mexsim check`'s compile was swallowed with a
traceback, and the check went on and passed, exit 0 (issue 32, row 14). So the
command's handlers note each signal as well as raise it, and the command asks
(:func:`received`) before it trusts an outcome; long loops ask as they go
(:func:`raise_if_received`).
"""

from __future__ import annotations

import signal
from typing import Any

from mexsim.errors import Terminated

_received: list[int] = []


def note(signum: int) -> None:
    """A handler got ``signum`` (and raises its exception next)."""
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
    """For a caller that runs several commands in one process (the tests)."""
    _received.clear()
