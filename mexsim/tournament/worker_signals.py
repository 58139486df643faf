"""Ctrl-C belongs to the command, not to the local cluster's worker processes.

On a terminal, Ctrl-C sends SIGINT to every process of the foreground group: to
``mexsim run`` and to the worker processes of the ``local:N`` cluster it started. The
command stops the run, keeps its finished blocks and closes the cluster; a worker that
took the signal itself died with a KeyboardInterrupt traceback of Dask's event loop
(~30 lines each) printed over the command's one line. The workers are forks of one
fork server, which ignores SIGINT from its first preload on (worker_preload.py), and a
fork keeps that. (Spawning the fork server with SIGINT blocked in the spawning thread,
as mexsim did before, does not reach it: measured on Python 3.11, multiprocessing's
spawn starts it with no signal blocked.) The command itself still takes a Ctrl-C
meanwhile.

A worker the cluster starts later, in place of one that crashed, is spawned by the
command's process at a time it handles Ctrl-C: ``IgnoreInterrupts``, a worker plugin
(worker_interrupts.py), makes every worker, then and now, ignore it from its setup on.
This module imports no Dask: a run on threads imports it too.
"""

from __future__ import annotations

import signal
import threading


def start_resource_tracker() -> None:
    """Start multiprocessing's resource tracker now, ignoring SIGHUP, which it would die
    of: a hangup of the whole group (a closed terminal, a supervisor's ``kill -HUP
    -PGID``) killed it, and the one multiprocessing started in its place printed a
    KeyError traceback for every semaphore the first had tracked, over the command's
    one line. A disposition of SIG_IGN, unlike a handler or a blocked mask, passes
    through exec (measured: the mask does not reach a child multiprocessing spawns).
    SIGHUP stays blocked meanwhile, so one that comes then is not lost: it waits, and
    the command takes it once its own disposition is back (Linux keeps a blocked
    signal pending even while it is ignored)."""
    from multiprocessing import resource_tracker

    if (not hasattr(signal, "SIGHUP") or not hasattr(signal, "pthread_sigmask")
            or threading.current_thread() is not threading.main_thread()):
        resource_tracker.ensure_running()
        return
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGHUP})
    try:
        previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)
        try:
            resource_tracker.ensure_running()
        finally:
            signal.signal(signal.SIGHUP, previous)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
