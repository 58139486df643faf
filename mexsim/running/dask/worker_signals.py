"""Ctrl-C belongs to the command, not to the local cluster's worker processes.

On a terminal, Ctrl-C sends SIGINT to every process of the foreground group: to
``mexsim run`` and to the worker processes of the ``local:N`` cluster it started. The
command stops the run, keeps its finished blocks and closes the cluster; a worker that
took the signal itself died with a KeyboardInterrupt traceback of Dask's event loop
(~30 lines each) printed over the command's one line. The workers are forks of one
fork server, which the command starts with SIGINT and SIGHUP blocked
(``blocked_in_children``) and which ignores them from its first preload on
(worker_preload.py), and a fork keeps that. (It took a Ctrl-C that came in its first
second, while its interpreter started and imported mexsim, and printed a
KeyboardInterrupt traceback.) The command itself still takes a Ctrl-C meanwhile.

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
def blocked_in_children(signals: set[signal.Signals]) -> Iterator[None]:
    """Within it, a process this thread starts begins with ``signals`` blocked, from its
    first instruction (a thread's signal mask passes through fork and exec): a process
    that ignores a signal only once its own code runs (the fork server, from its
    preload on, which is after its interpreter has started and imported mexsim) took
    one that came in its first second, and printed a KeyboardInterrupt traceback over
    the command's one line. The child ignores them for good and then unblocks them
    itself (worker_preload.py), or keeps them blocked (the resource tracker keeps
    SIGHUP).

    This process's own dispositions do not change: it takes a signal meanwhile as
    always, in another of its threads (numpy's and pyarrow's native threads do not
    block it) or in this one once the mask is back. (Ignoring them here for the
    spawn's moment instead lost a Ctrl-C that came then: a process-wide SIG_IGN, with
    another thread to deliver it to.) Off the main thread, where Python takes no
    signal, it does nothing."""
    if (
        not hasattr(signal, "pthread_sigmask")
        or threading.current_thread() is not threading.main_thread()
    ):
        yield
        return
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, signals)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def start_resource_tracker() -> None:
    """Start multiprocessing's resource tracker now, with SIGHUP blocked for good, which
    it would die of: a hangup of the whole group (a closed terminal, a supervisor's
    ``kill -HUP -PGID``) killed it, and the one multiprocessing started in its place
    printed a KeyError traceback for every semaphore the first had tracked, over the
    command's one line. (Ctrl-C and SIGTERM it ignores itself, and multiprocessing
    starts it with them blocked until it does.)"""
    from multiprocessing import resource_tracker

    with blocked_in_children({signal.SIGHUP} if hasattr(signal, "SIGHUP") else set()):
        resource_tracker.ensure_running()
