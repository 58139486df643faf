"""Consecutive blocks as one Dask task (mexsim/running/dask/block_tasks.py): every block
to play in exactly one task, in order, none kept from an interrupted run, each block's
future the block's own result; and a local cluster's workers that end at once."""

from __future__ import annotations

import gc
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mexsim.running.dask.block_tasks import (
    TASK_MATCHES,
    TASKS_PER_WORKER,
    BlockTasks,
    blocks_per_task,
)
from mexsim.store.parts import block_size, blocks


class FakeTask:
    def __init__(self, indices: list[int]) -> None:
        self.indices = indices
        self.cancelled = False
        self.fetched = 0

    def result(self, timeout: float | None = None) -> list[str]:
        self.fetched += 1  # a Dask future gathers from the worker on every call
        return [f"block {i}" for i in self.indices]

    def cancel(self) -> None:
        self.cancelled = True


def test_small_blocks_are_grouped_and_large_ones_are_tasks_alone() -> None:
    # 50,000 matches: 256 blocks of 196; 6 a task leaves 42 tasks for 2 workers
    assert blocks_per_task(196, 256, 2) == 6
    assert 6 * 196 >= TASK_MATCHES > 5 * 196
    assert blocks_per_task(4096, 256, 2) == 1  # ~0.5 s of play: a task already
    assert blocks_per_task(block_size(500_000), 256, 2) == 1


@given(st.integers(1, 20_000_000), st.integers(1, 512))
def test_every_worker_keeps_tasks_to_spread(matches: int, workers: int) -> None:
    run = blocks(matches)
    per_task = blocks_per_task(run[0][1], len(run), workers)
    tasks = -(-len(run) // per_task)
    assert per_task >= 1
    assert per_task == 1 or tasks >= TASKS_PER_WORKER * workers
    assert per_task == 1 or (per_task - 1) * run[0][1] < TASK_MATCHES


@given(st.integers(1, 60), st.sets(st.integers(0, 59)), st.integers(1, 9))
def test_every_block_is_played_once_by_a_task_of_consecutive_blocks(
    count: int, kept: set[int], per_task: int
) -> None:
    kept = {i for i in kept if i < count}
    submitted: list[FakeTask] = []

    def submit(indices: list[int]) -> FakeTask:
        submitted.append(FakeTask(indices))
        return submitted[-1]

    tasks = BlockTasks(count, kept, per_task, submit)
    to_play = [i for i in range(count) if i not in kept]
    for index in to_play:  # as take_in_order starts them: in order, kept ones skipped
        assert tasks.start(index).result() == f"block {index}"
    played = [i for task in submitted for i in task.indices]
    assert played == to_play
    assert all(task.fetched == 1 for task in submitted)  # once for all its blocks
    for task in submitted:
        assert 1 <= len(task.indices) <= per_task
        assert task.indices == list(range(task.indices[0], task.indices[-1] + 1))
    # a task is only as short as the end, a kept block or its size make it
    for task in submitted[:-1]:  # the last one may end at the run's end
        if len(task.indices) < per_task:
            assert task.indices[-1] + 1 in kept


def test_a_tasks_result_is_fetched_once_and_dropped_when_every_block_took_its_own() -> None:
    submitted: list[FakeTask] = []
    tasks = BlockTasks(
        3, set(), 3, lambda indices: submitted.append(FakeTask(indices)) or submitted[-1]
    )
    shares = [tasks.start(i) for i in range(3)]
    with ThreadPoolExecutor(3) as pool:  # the blocks' threads ask at once
        assert list(pool.map(lambda share: share.result(), shares)) == [
            "block 0",
            "block 1",
            "block 2",
        ]
    assert submitted[0].fetched == 1
    assert shares[0].task._items is None  # not held once every block has its item
    assert shares[1].result() == "block 1" and submitted[0].fetched == 2  # asked again


def test_cancelling_a_block_cancels_its_task() -> None:
    submitted: list[Any] = []
    tasks = BlockTasks(
        4, set(), 2, lambda indices: submitted.append(FakeTask(indices)) or submitted[-1]
    )
    tasks.start(0)
    tasks.start(1).cancel()
    assert submitted[0].cancelled and len(submitted) == 1


def test_a_local_workers_close_leaves_nothing_for_the_collector_to_walk() -> None:
    pytest.importorskip("distributed")
    from mexsim.running.dask.worker_exit import QuickExit

    assert gc.get_freeze_count() == 0
    try:
        QuickExit().teardown(worker=None)
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
