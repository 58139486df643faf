"""The one loop that plays a run's blocks in parallel and takes them in match order
(mexsim/running/in_order.py), used by runs into a folder and to a shared location."""

from __future__ import annotations

import time
from concurrent.futures import Future, ThreadPoolExecutor

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mexsim.running.in_order import take_in_order
from tests.profiles import examples

BLOCKS = [(first, 10) for first in range(0, 120, 10)]  # 12 blocks of 10 matches


class Recorder:
    """start/take/progress callbacks that remember what they were given."""

    def __init__(self, pool: ThreadPoolExecutor, in_flight: int) -> None:
        self.pool, self.in_flight = pool, in_flight
        self.started: list[int] = []
        self.taken: list[tuple[int, object]] = []
        self.progress: list[int] = []
        self.futures: dict[int, Future] = {}

    def start(self, index: int, first: int, n: int) -> Future:
        assert (
            len(self.started) - len([t for t in self.taken if t[1] is not None]) < self.in_flight
        ), "more blocks in flight than allowed"
        self.started.append(index)
        # later blocks finish first: the order taken must not follow completion
        future = self.pool.submit(lambda: (time.sleep(0.001 * (12 - index)), index)[1])
        self.futures[index] = future
        return future

    def take(self, index: int, first: int, n: int, result: object) -> None:
        self.taken.append((index, result))


@settings(max_examples=examples(40), deadline=None)
@given(kept=st.sets(st.integers(0, 11)), in_flight=st.integers(1, 5))
def test_every_block_is_taken_once_in_order_and_kept_ones_are_not_played(
    kept: set[int], in_flight: int
) -> None:
    with ThreadPoolExecutor(4) as pool:
        calls = Recorder(pool, in_flight)
        played = take_in_order(
            BLOCKS, kept, in_flight, calls.start, calls.take, calls.progress.append
        )
    assert [index for index, _ in calls.taken] == list(range(12))
    assert all((result is None) == (index in kept) for index, result in calls.taken)
    assert all(result == index for index, result in calls.taken if result is not None)
    assert sorted(calls.started) == sorted(set(range(12)) - kept)
    assert played == (10 * (12 - len(kept)), 12, None)
    assert calls.progress == [10 * len(kept)] + [10] * (12 - len(kept))


def test_a_decision_stops_at_its_block_and_cancels_the_rest() -> None:
    with ThreadPoolExecutor(1) as pool:
        calls = Recorder(pool, 4)
        played = take_in_order(
            BLOCKS,
            {0},
            4,
            calls.start,
            calls.take,
            decided=lambda end: "enough" if end == 30 else None,
        )
    assert played == (20, 3, "enough")
    assert [index for index, _ in calls.taken] == [0, 1, 2]
    not_taken = [calls.futures[i] for i in calls.started if i > 2]
    assert not_taken and all(f.cancelled() or f.done() for f in not_taken)


def test_a_decision_in_the_kept_blocks_plays_nothing() -> None:
    calls = Recorder(None, 2)  # type: ignore[arg-type]  # start must not be called
    played = take_in_order(
        BLOCKS,
        {0, 1, 2},
        2,
        calls.start,
        calls.take,
        decided=lambda end: "enough" if end == 20 else None,
    )
    assert played == (0, 2, "enough") and calls.started == []


def test_drain_on_stop_waits_for_the_blocks_in_flight() -> None:
    with ThreadPoolExecutor(4) as pool:
        calls = Recorder(pool, 4)
        take_in_order(
            BLOCKS,
            set(),
            4,
            calls.start,
            calls.take,
            decided=lambda end: "enough" if end == 10 else None,
            drain_on_stop=True,
        )
        assert all(calls.futures[i].done() for i in calls.started)


def test_a_failed_block_raises_and_cancels_the_others() -> None:
    futures: dict[int, Future] = {}

    def start(index: int, first: int, n: int) -> Future:
        futures[index] = future = Future()  # still playing, but for blocks 0 and 1
        if index == 0:
            future.set_result("ok")
        elif index == 1:
            future.set_exception(ValueError("strategy failed"))
        return future

    with pytest.raises(ValueError, match="strategy failed"):
        take_in_order(BLOCKS, set(), 3, start, lambda *args: None)
    # 0, 1, 2 at first; 3 once 0 was taken; 2 and 3 were in flight at the failure
    assert sorted(futures) == [0, 1, 2, 3]
    assert futures[2].cancelled() and futures[3].cancelled()
