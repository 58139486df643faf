"""A local cluster's workers leave Ctrl-C to the command (worker_signals.py): the
plugin that makes every worker ignore SIGINT from its setup on, a worker started after
a crash too. Apart from worker_signals.py because it imports Dask, which a run on
threads should not load (~0.3 s of every run's start).
"""

from __future__ import annotations

import signal
import threading
from typing import Any

from distributed.diagnostics.plugin import WorkerPlugin


class IgnoreInterrupts(WorkerPlugin):
    """A local cluster's worker ignores SIGINT from its setup on."""

    name = "mexsim-ignore-interrupts"

    def setup(self, worker: Any) -> None:
        if threading.current_thread() is threading.main_thread():  # the worker's loop
            signal.signal(signal.SIGINT, signal.SIG_IGN)
