"""Consecutive blocks played as one Dask task.

Dask's own work per task (scheduling, the messages between client, scheduler and
worker, the worker's bookkeeping) costs milliseconds of CPU, spread over the client and
the workers; a small run's blocks are only ~200 matches (~30 ms of play), so one task
a block spent a fifth more CPU than play itself (docs/clusters.md). A
task therefore plays a run of consecutive blocks and returns one result per block:
each block is still converted and written on its own, at its own match boundaries,
so the files do not change. Large runs' blocks are long enough to be a task each.
A task's results are fetched from its worker once, whichever of its blocks asks
first (``_Task``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

#: a task plays at least this many matches (measured with 50,000 default matches on
#: local:2: tasks of 1, 2, 4 and 8 blocks of 196 matches cost 13.7-15.1, 12.1,
#: 9.5-11.0 and 10.4 CPU-s in all processes, against 9.4-9.7 for two threads)
TASK_MATCHES = 1_000
#: ... while every worker gets at least this many tasks, so that the last ones spread
TASKS_PER_WORKER = 4


def blocks_per_task(block: int, blocks: int, workers: int) -> int:
    """How many consecutive blocks of ``block`` matches one task plays, in a run of
    ``blocks`` blocks on ``workers`` workers."""
    wanted = -(-TASK_MATCHES // max(block, 1))
    return max(1, min(wanted, blocks // (TASKS_PER_WORKER * max(workers, 1))))


class _Task:
    """A submitted task's future, whose result is fetched once for all its blocks.

    A Dask future's ``result()`` gathers the result from the worker that holds it on
    every call, so each block that asked its task's future fetched the whole task's
    results again: a task of 6 blocks moved 6 x its bytes (at 50,000 matches, ~750 MB
    instead of ~125 MB through the client's sockets). The result is kept until each of
    the task's blocks has taken its item, then dropped (memory stays one task's)."""

    def __init__(self, future: Any, blocks: int) -> None:
        self.future = future
        self.blocks = blocks
        self._lock = threading.Lock()  # the blocks' threads ask at once
        self._items: list | None = None
        self._taken: set[int] = set()

    def take(self, position: int, timeout: float | None = None) -> Any:
        """Block ``position``'s item; TimeoutError when the task has not ended within
        ``timeout`` seconds (None: waits)."""
        with self._lock:
            items = self._items
            if items is None:  # the first block to ask, or one asking again
                items = self._items = list(self.future.result(timeout))
            self._taken.add(position)
            if len(self._taken) == self.blocks:
                self._items = None
            return items[position]

    def cancel(self) -> None:
        self.future.cancel()


class _Share:
    """One block's share of a task's future: ``result()`` is that block's result."""

    def __init__(self, task: _Task, position: int) -> None:
        self.task = task
        self.position = position

    def result(self, timeout: float | None = None) -> Any:
        return self.task.take(self.position, timeout)

    def done(self) -> bool:
        return bool(self.task.future.done())

    def cancel(self) -> None:
        self.task.cancel()  # only when the run stops: its other blocks go with it


class BlockTasks:
    """Starts blocks as tasks of up to ``per_task`` consecutive blocks.

    ``start(index)`` is called for every block to play, in increasing order
    (mexsim/running/in_order.py); the first call of a task submits it — the block and
    the blocks after it, up to ``per_task``, stopping at one ``kept`` from an
    interrupted run or at the end — with ``submit(indices)``, which returns a future
    whose result has one item per index. Every call returns the block's own future
    (``result()`` and ``cancel()``); the task's result is fetched once for them all."""

    def __init__(
        self, count: int, kept: set[int], per_task: int, submit: Callable[[list[int]], Any]
    ) -> None:
        self.count = count
        self.kept = kept
        self.per_task = max(1, per_task)
        self.submit = submit
        self._task: Any = None
        self._indices: list[int] = []

    def start(self, index: int) -> _Share:
        if index not in self._indices:
            indices = [index]
            while (
                len(indices) < self.per_task
                and indices[-1] + 1 < self.count
                and indices[-1] + 1 not in self.kept
            ):
                indices.append(indices[-1] + 1)
            self._task = _Task(self.submit(indices), len(indices))
            self._indices = indices
        return _Share(self._task, self._indices.index(index))
