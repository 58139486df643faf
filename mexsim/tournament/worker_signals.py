"""Ctrl-C belongs to the command, not to the local cluster's worker processes.

On a terminal, Ctrl-C sends SIGINT to every process of the foreground group: to
``mexsim run`` and to the worker processes of the ``local:N`` cluster it started. The
command stops the run, keeps its finished blocks and closes the cluster; a worker that
took the signal itself died with a KeyboardInterrupt traceback of Dask's event loop
(~30 lines each) printed over the command's one line. So the workers are started with
SIGINT ignored: a process inherits an ignored signal through fork and exec (not a
handler), and Python then installs no KeyboardInterrupt handler of its own. The
workers are forks of one fork server (worker_preload.py), and its forks take back the
handling it started with: so only the fork server is started so, and the command
ignores SIGINT only while it spawns that one process (signal dispositions are the
process's), a few milliseconds; a Ctrl-C while the cluster starts stops the run.

A worker the cluster starts later, in place of one that crashed, is spawned by the
command's process at a time it handles Ctrl-C: ``IgnoreInterrupts``, a worker plugin,
makes every worker, then and now, ignore it from its setup on.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

try:
    from distributed.diagnostics.plugin import WorkerPlugin
except ImportError:  # the default install, without Dask: no cluster, no plugin used
    WorkerPlugin = object  # type: ignore[assignment,misc]


@contextmanager
def children_ignore_interrupts() -> Iterator[None]:
    """Processes started inside this block ignore SIGINT (see the module docstring)."""
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread may change a signal's handling
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


class IgnoreInterrupts(WorkerPlugin):
    """A local cluster's worker ignores SIGINT from its setup on."""

    name = "mexsim-ignore-interrupts"

    def setup(self, worker: Any) -> None:
        if threading.current_thread() is threading.main_thread():  # the worker's loop
            signal.signal(signal.SIGINT, signal.SIG_IGN)
