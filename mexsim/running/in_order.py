"""Blocks played in parallel, taken in match order: the one loop of every run.

A run into a folder and a run to a shared location (runner.py, with the store's
folder_sink.py and location_sink.py) both play a run's blocks (store/parts.py) on
threads or a Dask cluster, several at a time, and take each
block — append it to the results, fold its statistics — strictly in match order, so
what they write never depends on which block finished first. Blocks kept from an
interrupted run are taken in their place without being played. ``--until decided`` is
asked after every block taken, and stops the run at the first block that decides it.
"""

from __future__ import annotations

import contextlib
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, NamedTuple

from mexsim.analysis.accumulate import RunAccumulator
from mexsim.analysis.sequential import DEFAULT_MARGIN, Verdict, verdict
from mexsim.errors import StrategyError
from mexsim.game.stall_watch import DECISION_LIMIT, POLL, stalled
from mexsim.tournament.config import Config


@dataclass(frozen=True)
class StopRule:
    """``--until decided``: stop after the first block at which the comparison is decided
    (mexsim/analysis/sequential.py), at most at the config's ``matches``."""

    confidence: float = 0.95
    margin: float = DEFAULT_MARGIN


class Played(NamedTuple):
    matches: int  # played by this run (not those kept from an interrupted one)
    blocks: int  # taken into the results: all of them, or those up to the stop
    stopped: Verdict | None  # the verdict that stopped the run early, if one did


def stop_rule(
    until: StopRule | None, config: Config, statistics: RunAccumulator
) -> Callable[[int], Verdict | None]:
    """``decided(end)``: the verdict when ``until`` says stop after match ``end`` - 1;
    only at whole deals (a duplicate deal's rotations together) and before the end."""
    whole_deals = config.table_size if config.duplicate else 1
    names = [p.name for p in config.players]

    def decided(end: int) -> Verdict | None:
        if until is None or end % whole_deals or end >= config.matches:
            return None
        result = standing(until, names, statistics)
        return result if result.decided else None

    return decided


def standing(until: StopRule, names: list[str], statistics: RunAccumulator) -> Verdict:
    """Where the comparison stands under ``until`` with the blocks taken so far."""
    return verdict(statistics.settled(), names, until.confidence, until.margin)


@contextlib.contextmanager
def unjoined_threads(threads: int) -> Iterator[ThreadPoolExecutor]:
    """A thread pool that is never waited for on the way out: a thread stuck in a
    strategy's compiled code would hold the process forever (runner.py's docstring)."""
    pool = ThreadPoolExecutor(max_workers=threads)
    try:
        yield pool
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def take_in_order(
    all_blocks: list[tuple[int, int]],
    kept: set[int],
    in_flight: int,
    start: Callable[[int, int, int], Any],
    take: Callable[[int, int, int, Any], None],
    progress: Callable[[int], None] | None = None,
    decided: Callable[[int], Verdict | None] = lambda end: None,
    drain_on_stop: bool = False,
    watch: Callable[[], StrategyError | None] = lambda: stalled(DECISION_LIMIT),
) -> Played:
    """Play every block of ``all_blocks`` (first match, count) not in ``kept``, at most
    ``in_flight`` at a time, and take every block in order.

    ``start(index, first, n)`` begins playing a block and returns its future (of
    concurrent.futures or Dask: ``result()`` and ``cancel()``); ``take(index, first, n,
    result)`` adds a block to the results, with ``result`` None for a kept block.
    ``progress(n)``: the kept blocks' matches once at the start, then each played
    block's. ``decided(end)`` after each block: a verdict stops the run there; with
    ``drain_on_stop`` the blocks still in flight are waited for first (so that none is
    still writing when the caller tidies up). Futures not taken are cancelled. While it
    waits for a block, ``watch()`` is asked every POLL seconds: the error it returns (a
    decide that never returns, mexsim/game/stall_watch.py) is raised."""
    if progress:
        progress(sum(n for index, (_, n) in enumerate(all_blocks) if index in kept))
    index = 0
    while index < len(all_blocks) and index in kept:  # nothing to play before these
        first, n = all_blocks[index]
        take(index, first, n, None)
        index += 1
        stopped = decided(first + n)
        if stopped is not None:
            return Played(0, index, stopped)
    todo = iter(range(index, len(all_blocks)))
    pending: deque[tuple[int, int, int, Any]] = deque()
    played = flying = 0
    taken = index
    try:
        while True:
            while flying < in_flight:
                nxt = next(todo, None)
                if nxt is None:
                    break
                first, n = all_blocks[nxt]
                if nxt in kept:  # past a gap the players left: taken, not played
                    pending.append((nxt, first, n, None))
                    continue
                flying += 1
                pending.append((nxt, first, n, start(nxt, first, n)))
            if not pending:
                return Played(played, taken, None)
            done, first, n, future = pending.popleft()
            if future is None:
                take(done, first, n, None)
            else:
                flying -= 1
                take(done, first, n, _waited(future, watch))
                played += n
                if progress:
                    progress(n)
            taken = done + 1
            stopped = decided(first + n)
            if stopped is not None:
                if drain_on_stop:
                    for *_, other in pending:
                        if other is not None:
                            with contextlib.suppress(Exception):
                                other.result()
                    pending.clear()
                return Played(played, taken, stopped)
    finally:
        for *_, future in pending:
            if future is not None:
                future.cancel()


def _waited(future: Any, watch: Callable[[], StrategyError | None]) -> Any:
    """``future.result()`` (a thread's or a Dask task's block), asking ``watch()`` every
    POLL seconds for a decide that never returns, in this process or on a worker."""
    while True:
        try:
            return future.result(timeout=POLL)
        except TimeoutError:
            if future.done():  # the block itself raised TimeoutError (an OSError)
                raise
            error = watch()
            if error is not None:
                raise error from None
