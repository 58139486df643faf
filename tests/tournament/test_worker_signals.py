"""The signals a local cluster's helper processes must not take are held back while
they start (mexsim/running/dask/worker_signals.py), and never taken from the command."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from mexsim.running.dask.worker_signals import blocked_in_children

pytestmark = pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="POSIX signal masks")

BLOCKED_AT_START = (
    "import json, signal; blocked = signal.pthread_sigmask(signal.SIG_BLOCK, []); "
    "print(json.dumps(sorted(int(s) for s in blocked)))"
)


def _taken_while_a_child_starts(signum: int) -> list[int]:
    """The signals this process took, ``signum`` sent to it while a child started, with
    another thread alive (as numpy's and pyarrow's are in the command)."""
    taken: list[int] = []
    previous = signal.signal(signum, lambda number, frame: taken.append(number))
    other = threading.Thread(target=time.sleep, args=(1.0,), daemon=True)
    other.start()
    try:
        with blocked_in_children({signal.SIGINT, signal.SIGHUP}):
            subprocess.run([sys.executable, "-c", "pass"], check=True)
            os.kill(os.getpid(), signum)
        deadline = time.monotonic() + 10
        while not taken and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        signal.signal(signum, previous)
    return taken


@pytest.mark.processes
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGHUP])
def test_a_signal_while_a_child_starts_is_the_commands(signum: signal.Signals) -> None:
    """Ignoring the signals in the command for the spawn's moment (so that the child
    starts ignoring them) lost a Ctrl-C that came then: the disposition is the whole
    process's, and another thread took the signal and dropped it. Holding them back in
    the spawning thread only, the command takes it."""
    assert _taken_while_a_child_starts(signum) == [signum]


@pytest.mark.processes
def test_a_child_started_within_holds_the_signals_back_from_its_first_instruction() -> None:
    with blocked_in_children({signal.SIGINT, signal.SIGHUP}):
        out = subprocess.run(
            [sys.executable, "-c", BLOCKED_AT_START], check=True, capture_output=True, text=True
        ).stdout
    assert {int(signal.SIGINT), int(signal.SIGHUP)} <= set(json.loads(out)), out
    after = subprocess.run(
        [sys.executable, "-c", BLOCKED_AT_START], check=True, capture_output=True, text=True
    ).stdout
    assert not {int(signal.SIGINT), int(signal.SIGHUP)} & set(json.loads(after)), after
