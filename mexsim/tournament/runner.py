"""`mexsim run`: play a config's matches on all cores and stream them to Parquet.

Matches are played in blocks by threads (the numba kernels release the GIL) and
written in match order as each block's turn comes, so memory stays bounded and the
files depend on (config, seed) only — never on the worker count, block sizes or the
order in which blocks finish. Everything is written into a hidden temporary folder
that is renamed into place only when complete.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mexsim import __version__
from mexsim.errors import ConfigError
from mexsim.game.enums import Field
from mexsim.game.play import play_scheduled
from mexsim.strategy.policy import Policy
from mexsim.tournament.config import Config, config_schedule
from mexsim.tournament.lineup import player_policies
from mexsim.tournament.results import MATCHES_SCHEMA, ROUNDS_SCHEMA, block_tables

TARGET_BLOCK_SECONDS = 0.2  # keeps Ctrl-C prompt and the progress bar lively
FIRST_BLOCK = 64
MAX_BLOCK = 50_000


class Interrupted(Exception):
    """Ctrl-C during a run: nothing was left behind."""


@dataclass(frozen=True)
class RunResult:
    directory: Path
    matches: int
    workers: int
    wall_seconds: float

    @property
    def matches_per_second(self) -> float:
        return self.matches / self.wall_seconds if self.wall_seconds > 0 else float("inf")


def timed_block(config: Config, players: list[Policy], first: int, n: int
                ) -> tuple[np.ndarray, float]:
    start = time.perf_counter()
    res = play_block(config, players, first, n)
    return res, time.perf_counter() - start


def play_block(config: Config, players: list[Policy], first: int, n: int) -> np.ndarray:
    """res[k, round, seat, field] of matches first … first+n-1, each with the seating
    and deal the config's schedule gives it (mexsim/tournament/schedule.py)."""
    schedule = config_schedule(config)
    return play_scheduled(config.rules, players, config.seed,
                          np.arange(first, first + n, dtype=np.int64),
                          schedule.deals(first, n), schedule.seating(first, n))


def resolved_config(config: Config) -> dict:
    """Every option spelled out, as run.json records it."""
    return {
        "run": {"matches": config.matches, "seed": config.seed, "out": config.out,
                "strategies": list(config.strategy_dirs)},
        "rules": config.rules.to_dict(),
        "seating": {"rotate": config.rotate},
        "tournament": {"duplicate": config.duplicate, "table_size": config.table_size,
                       "deals": config.deals,
                       "schedule_cycle": config_schedule(config).cycle},
        "players": [{"name": p.name, "strategy": p.strategy, "params": p.params}
                    | ({"sweep": p.sweep, "swept": list(p.swept)} if p.sweep else {})
                    for p in config.players],
    }


def prepare_output(out: Path, force: bool) -> Path:
    """Check the results folder can be written; returns the temporary folder to fill."""
    if out.exists() and not force:
        raise ConfigError(f"{out}: results directory exists (use --force to replace it)")
    if out.exists() and not out.is_dir():
        raise ConfigError(f"{out}: exists and is not a directory")
    if out.exists():
        here = Path.cwd().resolve()
        if out.resolve() == here or out.resolve() in here.parents:
            raise ConfigError(f"{out}: is the current directory or contains it (allowed: a "
                              "results directory of its own)")
        if not (out / "run.json").exists() and any(out.iterdir()):
            raise ConfigError(f"{out}: not a mexsim results directory (no run.json); "
                              "--force replaces only results directories")
    parent = out.parent if str(out.parent) else Path(".")
    try:
        parent.mkdir(parents=True, exist_ok=True)
        tmp = parent / f".{out.name}.tmp-{os.getpid()}"
        if tmp.exists():
            shutil.rmtree(tmp)
        tmp.mkdir()
    except OSError as exc:
        raise ConfigError(f"{out}: output path not writable ({exc.strerror})") from exc
    return tmp


def run(config: Config, out: Path, workers: int, force: bool = False,
        progress: Callable[[int], None] | None = None,
        summarize: Callable[[Path, np.ndarray, np.ndarray], None] | None = None
        ) -> RunResult:
    """Play all matches of ``config`` into ``out``; ``progress(n)`` after each block;
    ``summarize(tmp_folder, totals[match, player], deal[match])`` before the folder is
    published (totals NaN where a player of a pool sat a match out)."""
    import numba
    import pyarrow.parquet as pq

    players = player_policies(config)
    names = [p.name for p in config.players]
    strategies = [p.strategy for p in config.players]
    schedule = config_schedule(config)
    tmp = prepare_output(out, force)
    try:
        # Load (or compile) the kernels here, where Ctrl-C interrupts at once, rather
        # than in a worker thread the interrupt would have to wait for.
        play_block(config, players, 0, 0)
    except KeyboardInterrupt:
        shutil.rmtree(tmp, ignore_errors=True)
        raise Interrupted("interrupted: no results written") from None
    totals = np.full((config.matches, len(players)), np.nan, dtype=np.float32)
    start = time.perf_counter()
    try:
        rounds_writer = pq.ParquetWriter(tmp / "rounds.parquet", ROUNDS_SCHEMA,
                                         compression="zstd")
        matches_writer = pq.ParquetWriter(tmp / "matches.parquet", MATCHES_SCHEMA,
                                          compression="zstd")
        with ThreadPoolExecutor(max_workers=workers) as pool:
            pending: deque[tuple[int, int, Future]] = deque()
            next_match = 0
            block = FIRST_BLOCK
            try:
                while next_match < config.matches or pending:
                    while next_match < config.matches and len(pending) < 2 * workers:
                        n = min(block, config.matches - next_match)
                        pending.append((next_match, n, pool.submit(
                            timed_block, config, players, next_match, n)))
                        next_match += n
                    first, n, future = pending.popleft()
                    res, seconds = future.result()
                    # size later blocks so that one takes about TARGET_BLOCK_SECONDS
                    per_match = max(seconds / n, 1e-7)
                    block = int(min(MAX_BLOCK, max(FIRST_BLOCK, TARGET_BLOCK_SECONDS / per_match)))
                    who = schedule.seating(first, n)
                    rounds_table, matches_table = block_tables(
                        res, first, config.rules.max_pip, who, names, strategies,
                        schedule.deals(first, n))
                    rounds_writer.write_table(rounds_table)
                    matches_writer.write_table(matches_table)
                    seat_totals = res[..., Field.penalty].sum(axis=1)
                    np.put_along_axis(totals[first:first + n], who, seat_totals, axis=1)
                    if progress:
                        progress(n)
            except KeyboardInterrupt:
                for *_, future in pending:
                    future.cancel()
                raise
        rounds_writer.close()
        matches_writer.close()
        wall = time.perf_counter() - start
        result = RunResult(out, config.matches, workers, wall)
        (tmp / "run.json").write_text(json.dumps({
            "config": resolved_config(config),
            "mexsim_version": __version__,
            "numba_version": numba.__version__,
            "seed": config.seed,
            "matches": config.matches,
            "workers": workers,
            "wall_seconds": round(wall, 3),
            "matches_per_second": round(result.matches_per_second, 1),
        }, indent=2) + "\n")
        if summarize:
            summarize(tmp, totals, schedule.deals(0, config.matches))
        if out.exists():
            shutil.rmtree(out)
        tmp.rename(out)
        return result
    except KeyboardInterrupt:
        shutil.rmtree(tmp, ignore_errors=True)
        raise Interrupted("interrupted: no results written") from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
