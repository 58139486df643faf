"""A strategy that never returns, named: rather than a run that never ends.

Compiled code cannot be interrupted, and a strategy's ``decide`` may loop forever in
some state of the game only (``while n > 3:`` with n never changing), after thousands of
good decisions. The kernel says, in its status words, when a decide is running and how
many it has begun (enums.Status.deciding, calls); every kernel call of this process is
registered here while it runs (``watched``). The thread waiting for the blocks asks
``stalled(limit)`` now and then: a decide that has been running for ``limit`` seconds is
taken to loop, and the run stops with one line naming the strategy, seat, match and round
(mexsim/running/in_order.py; `mexsim replay` plays its match through ``run_watched``). The
thread stuck in it cannot be stopped, so the process then ends without waiting for it
(mexsim/cli.py).
"""

from __future__ import annotations

import contextlib
import itertools
import threading
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from mexsim.errors import StrategyError
from mexsim.game.enums import Status

# seconds one decide may run before the run takes it to loop (`mexsim run --decision-limit`)
DECISION_LIMIT = 60.0
POLL = 1.0  # seconds between looks (a decide is stopped within limit + POLL)
T = TypeVar("T")


class StrategyStalled(StrategyError):
    """A strategy's decide ran past the decision limit: its thread cannot be stopped."""


@dataclass
class _Watched:
    status: np.ndarray
    describe: Callable[[np.ndarray], str]  # "strategy 'x' (seat s) in match m, round r"
    tag: str | None = None  # whose kernel it is (``tagged``)
    call: int = -1  # status[calls] of the decide running when last looked at
    since: float = 0.0  # when that call was first seen running


_live: dict[int, _Watched] = {}
_lock = threading.Lock()
_keys = itertools.count()
# whose kernels are watched: a Dask worker plays the tasks of one command after another,
# and a decide stuck in an earlier command's task is not the current one's (``tagged``)
_tag: ContextVar[str | None] = ContextVar("mexsim_stall_tag", default=None)


@contextlib.contextmanager
def tagged(tag: str) -> Iterator[None]:
    """The kernels this thread runs meanwhile are ``tag``'s (``stalled(..., which)``)."""
    token = _tag.set(tag)
    try:
        yield
    finally:
        _tag.reset(token)


@contextlib.contextmanager
def watched(status: np.ndarray, describe: Callable[[np.ndarray], str]) -> Iterator[None]:
    """While the block runs, its kernel's ``status`` is looked at by ``stalled``."""
    key = next(_keys)
    with _lock:
        _live[key] = _Watched(status, describe, _tag.get())
    try:
        yield
    finally:
        with _lock:
            del _live[key]


def stalled(
    limit: float,
    now: float | None = None,
    which: Callable[[str | None], bool] = lambda tag: True,
) -> StrategyStalled | None:
    """The error naming a decide running for ``limit`` seconds or more, if one is,
    among the kernels whose tag ``which`` accepts; a ``limit`` of 0 watches nothing.
    Call it every second or so: a decide is timed from the first call that saw it
    running."""
    if limit <= 0:
        return None
    now = time.monotonic() if now is None else now
    with _lock:
        watching = [w for w in _live.values() if which(w.tag)]
    for w in watching:
        call = int(w.status[Status.calls])
        if not w.status[Status.deciding]:
            w.call = -1
            continue
        if call != w.call:
            w.call, w.since = call, now
            continue
        if now - w.since >= limit:
            return StrategyStalled(
                f"{w.describe(w.status)} has not returned in {limit:g} s: its decide seems "
                "never to end (a loop whose condition does not change?); `mexsim check` "
                "times a strategy's decisions, and --decision-limit SECONDS allows a "
                "slower one (0: no limit)"
            )
    return None


def run_watched(work: Callable[[], T], limit: float = DECISION_LIMIT) -> T:
    """``work()`` (kernel calls: `mexsim replay`, the luck model's pilot) on a thread
    of its own, this thread looking every POLL seconds for a decide running past
    ``limit``: StrategyStalled. Its kernels must release the GIL (``nogil``), else this
    thread never looks.
    The thread is a daemon: one stuck in a strategy's compiled code is never waited
    for (the caller then ends the process at once, mexsim/running/exit_now.py)."""
    outcome: list[Any] = []

    def target() -> None:
        try:
            outcome.append((True, work()))
        except BaseException as exc:  # handed to the waiting thread, raised there
            outcome.append((False, exc))

    thread = threading.Thread(target=target, name="mexsim-watched", daemon=True)
    thread.start()
    while True:
        thread.join(POLL)
        if not thread.is_alive():
            break
        error = stalled(limit)
        if error is not None:
            raise error
    done, value = outcome[0]
    if not done:
        raise value
    return value
