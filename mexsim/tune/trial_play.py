"""Play a stretch of a config's matches on all cores and keep each player's match totals:
what a trial of ``mexsim tune`` and its validation play.

Every trial plays the same matches (0, 1, … of the study's seed): the same deals and
seatings, so any two trials are compared match by match (paired). Nothing is written:
a trial's result is a few numbers a match, kept in the study's database.
"""

from __future__ import annotations

import concurrent.futures as cf
import time
from collections.abc import Callable

import numpy as np

from mexsim.game.enums import Field
from mexsim.game.stall_watch import DECISION_LIMIT, stalled
from mexsim.running.block_play import play_block
from mexsim.running.dask.cluster import ClusterPlayer
from mexsim.running.dask.transfer import received
from mexsim.running.in_order import unjoined_threads
from mexsim.running.preparation import load_engine
from mexsim.strategy.policy import Policy
from mexsim.tournament.config import Config, config_schedule

POLL = 0.2  # seconds between looks for a stop signal or a stuck decide
BLOCKS_PER_WORKER = 4  # enough blocks that no core waits on the last one


def player_totals(
    config: Config,
    players: list[Policy],
    first: int,
    n: int,
    workers: int,
    progress: Callable[[int], None] = lambda n: None,
    decision_limit: float = DECISION_LIMIT,
    cluster: ClusterPlayer | None = None,
) -> np.ndarray:
    """totals[k, p]: player p's total over the rounds of match first + k (NaN where the
    player did not sit: never, without a pool), played in blocks on ``workers`` threads
    or on ``cluster``'s workers. The main thread waits in short steps, so a stop signal
    reaches it; a decide running past ``decision_limit`` seconds raises
    StrategyStalled."""
    unit = config.table_size
    lanes = cluster.workers if cluster else workers
    size = max(unit, -(-n // (BLOCKS_PER_WORKER * lanes) // unit * unit))
    blocks = [(f, min(size, first + n - f)) for f in range(first, first + n, size)]
    seating = config_schedule(config).seating(first, n)
    totals = np.full((n, len(config.players)), np.nan)

    def take(f: int, m: int, res: np.ndarray) -> None:
        k = np.arange(f - first, f - first + m)
        totals[k[:, None], seating[k]] = res[:, :, :, Field.penalty].sum(axis=1)
        progress(m)

    if cluster is not None:
        _on_cluster(cluster, config, blocks, take, decision_limit)
        return totals
    load_engine(config, players, None, None)  # here, before any thread, as a run does
    with unjoined_threads(workers) as pool:
        futures = {pool.submit(play_block, config, players, f, m): (f, m) for f, m in blocks}
        pending = set(futures)
        while pending:
            done, pending = cf.wait(pending, timeout=POLL, return_when=cf.FIRST_COMPLETED)
            for future in done:
                take(*futures[future], future.result())
            error = stalled(decision_limit)
            if error is not None:
                raise error
    return totals


def _on_cluster(
    cluster: ClusterPlayer,
    config: Config,
    blocks: list[tuple[int, int]],
    take: Callable[[int, int, np.ndarray], None],
    decision_limit: float,
) -> None:
    """The blocks played on a Dask cluster, one task each (a trial's few blocks)."""
    futures = {cluster.submit([block], config=config): block for block in blocks}
    pending = set(futures)
    next_look = time.monotonic() + 1.0
    try:
        while pending:
            done = {f for f in pending if f.done()}
            pending -= done
            for future in done:
                take(*futures[future], received(future.result()[0]))
            if time.monotonic() >= next_look:  # a question to every worker: not too often
                next_look = time.monotonic() + 1.0
                error = cluster.stalled(decision_limit)
                if error is not None:
                    raise error
            if pending and not done:
                time.sleep(POLL)
    finally:
        for future in pending:
            future.cancel()


def margins(totals: np.ndarray, player: int) -> np.ndarray:
    """Per match: the player's total minus the mean total of the others at its table
    (lower is better; 0: level with the table)."""
    others = np.delete(totals, player, axis=1)
    return totals[:, player] - np.nanmean(others, axis=1)
