"""Ctrl-C, SIGTERM and SIGHUP stop a run in its main thread, until its results are being
put in place."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from typing import Any

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Stop(BaseException):
    """Raised in the main thread by a stop signal's handler."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


class StopSignals:
    """Turns Ctrl-C, SIGTERM and SIGHUP into ``Stop`` in the main thread, once. Once
    the results are being put in place (``finishing``), or the run is stopping after a
    first signal, a signal is ignored: both steps are short, and stopping them half-way
    would help no one (a second Ctrl-C 0.05–0.2 s after the first stopped a cluster's
    closing with a traceback, exit 1, and left its scratch folder)."""

    def __init__(self) -> None:
        self.finishing = False
        self.stopping = False
        self.previous: dict[int, Any] = {}
        self.deferring = False
        self.deferred: int | None = None

    def _handle(self, signum: int, frame: Any) -> None:
        if not self.finishing and not self.stopping:
            self.stopping = True
            if self.deferring:  # raised once the step in hand is done
                self.deferred = signum
                return
            raise Stop(signum)

    @contextlib.contextmanager
    def deferred_stop(self) -> Iterator[None]:
        """A step that a stop must not cut in half (a database write): a signal during
        it raises ``Stop`` when it is done."""
        self.deferring = True
        try:
            yield
        finally:
            self.deferring = False
        if self.deferred is not None:
            raise Stop(self.deferred)

    def install(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return  # a library caller's thread: signals stay theirs
        for signum in STOP_SIGNALS:
            self.previous[signum] = signal.signal(signum, self._handle)

    def restore(self) -> None:
        for signum, handler in self.previous.items():
            signal.signal(signum, handler)
        self.previous.clear()
