"""Ctrl-C belongs to the command, not to the local cluster's worker processes.

On a terminal, Ctrl-C sends SIGINT to every process of the foreground group: to
``mexsim run`` and to the worker processes of the ``local:N`` cluster it started. The
command stops the run, keeps its finished blocks and closes the cluster; a worker that
took the signal itself died with a KeyboardInterrupt traceback of Dask's event loop
(~30 lines each) printed over the command's one line. The workers are forks of one
fork server, which the command starts with SIGINT and SIGHUP ignored
(``ignored_by_children``), and a fork keeps that. (It ignored them only from its first
preload on, worker_preload.py, and a Ctrl-C in its first second, while its interpreter
started and imported mexsim, printed a KeyboardInterrupt traceback.) The command itself
still takes a Ctrl-C meanwhile.

A worker the cluster starts later, in place of one that crashed, is spawned by the
command's process at a time it handles Ctrl-C: ``IgnoreInterrupts``, a worker plugin
(worker_interrupts.py), makes every worker, then and now, ignore it from its setup on.
This module imports no Dask: a run on threads imports it too.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator


@contextlib.contextmanager
def ignored_by_children(signals: set[signal.Signals]) -> Iterator[None]:
    """Within it, a process this thread starts begins with ``signals`` ignored, from its
    first instruction: a disposition of SIG_IGN, unlike a Python handler, passes through
    exec. A process that ignores a signal only once its own code runs (the fork server
    after its preload's import of mexsim, the resource tracker) takes one that comes
    in its first second (interpreter start, imports) and dies of it, with a traceback
    over the command's one line. The signals stay blocked in this process meanwhile, so
    one that comes then is not lost: it waits, and this process takes it once its own
    dispositions are back (Linux keeps a blocked signal pending even while it is
    ignored). The child inherits that mask too, and unblocks the signals itself once
    it ignores them for good (worker_preload.py). Off the main thread, where Python
    sets no disposition, it does nothing."""
    wanted = [s for s in signals if hasattr(signal, s.name)]
    if (not hasattr(signal, "pthread_sigmask")
            or threading.current_thread() is not threading.main_thread()):
        yield
        return
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, wanted)
    try:
        previous = {s: signal.signal(s, signal.SIG_IGN) for s in wanted}
        try:
            yield
        finally:
            for s, handler in previous.items():
                signal.signal(s, handler)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def start_resource_tracker() -> None:
    """Start multiprocessing's resource tracker now, ignoring SIGHUP, which it would die
    of: a hangup of the whole group (a closed terminal, a supervisor's ``kill -HUP
    -PGID``) killed it, and the one multiprocessing started in its place printed a
    KeyError traceback for every semaphore the first had tracked, over the command's
    one line. (Ctrl-C it ignores itself, and multiprocessing starts it with SIGINT
    blocked until it does.)"""
    from multiprocessing import resource_tracker

    hangup = {signal.SIGHUP} if hasattr(signal, "SIGHUP") else set()
    with ignored_by_children(hangup):
        resource_tracker.ensure_running()
