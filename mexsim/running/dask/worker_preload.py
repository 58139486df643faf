"""What a local cluster's workers have loaded before they start: imported once, by the
process they are forked from.

A ``local:N`` cluster (mexsim/running/dask/cluster.py) starts its workers with Python's
``forkserver`` method and this module as the fork server's preload: the fork server
imports Dask, numba and the play modules and loads the engine's kernels and every
built-in strategy from numba's cache once, and each worker is a fork of it, with all
of that in memory. Started the usual way (``spawn``), every worker did that itself, on
its first task: ~2 CPU-s a worker, while play waited (docs/clusters.md).
The fork server is started before the first worker, has no threads of its own (so a
fork of it is safe) and ends with the command.

Everything here is best effort: on a cold cache (nothing compiled yet for this mexsim)
or on any error, the workers load what they need on their first task, as before, and
report a problem there in mexsim's usual one line. Importing this module is what the
fork server does with it; nothing else imports it.

It is the fork server's first preload, and its first act is to ignore Ctrl-C and a
terminal's hangup for good, and then to unblock them: the command starts the fork
server with both blocked (worker_signals.blocked_in_children), as a Ctrl-C reaches
every process of the terminal's group, and one that came while the fork server
started printed a KeyboardInterrupt traceback over the command's one line. The
command stops the run and ends the fork server and the workers itself; its forks, the
workers, keep both dispositions.
"""

from __future__ import annotations

import signal

signal.signal(signal.SIGINT, signal.SIG_IGN)
signal.signal(signal.SIGHUP, signal.SIG_IGN)
# started with both blocked (worker_signals.blocked_in_children): ignored for good
# now, so a Ctrl-C held back meanwhile is dropped when they are unblocked
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGHUP})

import contextlib  # noqa: E402  after the signals: the imports are the seconds to cover


def preload() -> bool:
    """Load the kernels and the built-in strategies into this process (returns whether
    they were loaded): only from numba's cache, never compiling."""
    import distributed  # noqa: F401  what a worker process imports first

    from mexsim.game.engine_cache import engine_is_cold
    from mexsim.running import block_play as blockplay  # noqa: F401  a task's modules
    from mexsim.running.dask import cluster

    if engine_is_cold():
        return False  # a compile here would only repeat the client's
    from mexsim.running.compile_jobs import compile_engine

    compile_engine()
    cluster.load_builtin_strategies()
    return True


LOADED = False
with contextlib.suppress(Exception):  # best effort: see the module docstring
    LOADED = preload()
