"""`mexsim run --out URL`: results written as parts straight to a shared location.

With a large cluster one client cannot receive, convert and compress every block
(README, "Speed": the writer's ceiling), so when ``out`` is an fsspec URL
(``file:///…``, ``s3://…``, ``gs://…``; fsspec comes with ``mexsim[dask]``) whoever
plays a block — a Dask worker or, without ``--cluster``, a thread of this process —
also converts it and writes it to the location itself (mexsim/run/url_block.py), and
returns only its match totals (a few numbers per match) for the statistics the client
gathers. The location's layout and commit: mexsim/store/location.py.
"""

from __future__ import annotations

import contextlib
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mexsim.analysis.accumulate import RunAccumulator, RunStatistics
from mexsim.errors import Interrupted, OutputError, StrategyError
from mexsim.run.in_order import Played, stop_rule, take_in_order, unjoined_threads
from mexsim.run.preparation import load_engine, luck_model
from mexsim.run.run_record import RunResult, nothing, write_run_json
from mexsim.run.stop_signals import Stop, StopSignals
from mexsim.run.url_block import play_and_write
from mexsim.store.location import Location, is_local
from mexsim.store.parts import blocks
from mexsim.store.results_folder import OutputLock
from mexsim.tournament.config import Config
from mexsim.tournament.luck import LuckModel
from mexsim.tournament.resolved import config_identity


def run_shared(
    config: Config,
    url: str,
    workers: int,
    force: bool,
    progress: Any,
    write_tables: Any,
    resume: bool,
    note: Callable[[str], None],
    started: float,
    until: Any,
    cluster: str | None,
) -> Any:
    """``runner.run`` for a URL ``out`` (see the module docstring)."""
    from mexsim.run.dask.cluster import open_player
    from mexsim.tournament.identity import run_id as make_run_id
    from mexsim.tournament.lineup import player_policies

    location = Location(url)
    signals = StopSignals()
    signals.install()
    lock = None
    if is_local(location.fs):
        # one run at a time, as for a local folder; an object store has no such lock
        lock = OutputLock(Path(location.root))
    close_cluster = nothing
    try:
        try:
            players = player_policies(config)
            identity = config_identity(config)
            rid = make_run_id(identity)
            if lock is not None:
                Path(location.root).parent.mkdir(parents=True, exist_ok=True)
                lock.acquire()
            kept = location.prepare(rid, identity, resume, force, note)
            model = luck_model(config, players)
            load_engine(config, players, cluster, model)  # before any thread
            player, close_cluster = open_player(cluster, config)
            if player is not None:
                workers = player.workers
                note(f"playing on {player.workers} Dask workers; dashboard {player.dashboard}")
            all_blocks = blocks(config.matches)
            statistics = RunAccumulator(len(players), config.luck)
            play_start = time.perf_counter()
            played, blocks_in, stopped = _play(
                config,
                players,
                location,
                rid,
                all_blocks,
                kept,
                workers,
                player,
                statistics,
                progress,
                stop_rule(until, config, statistics),
                model,
            )
            if stopped is not None:
                note(stopped.describe())
            play_seconds = time.perf_counter() - play_start
            summary_start = time.perf_counter()
            stats: RunStatistics = statistics.close()
            with tempfile.TemporaryDirectory(prefix="mexsim-tables-") as folder:
                tables = Path(folder)
                if write_tables:
                    write_tables(tables, stats)
                summary_seconds = time.perf_counter() - summary_start
                result = RunResult(
                    url,
                    stats.matches,
                    workers,
                    time.perf_counter() - started,
                    play_seconds,
                    summary_seconds,
                    played,
                )
                write_run_json(tables, config, rid, result, len(kept), until, stopped, model)
                signals.finishing = True
                location.commit(blocks_in, rid, stats.matches, tables)
            return RunResult(
                url,
                stats.matches,
                workers,
                time.perf_counter() - started,
                play_seconds,
                summary_seconds,
                played,
            )
        except (KeyboardInterrupt, Stop) as exc:
            import signal

            signum = exc.signum if isinstance(exc, Stop) else signal.SIGINT
            raise Interrupted(_kept(location, "interrupted"), signum) from None
        except OSError as exc:
            raise OutputError(_kept(location, f"{url}: {exc.strerror or exc}")) from None
        except StrategyError:
            raise
    finally:
        close_cluster()
        signals.restore()
        if lock is not None:
            lock.release()


def _play(
    config: Config,
    players: list,
    location: Location,
    rid: str,
    all_blocks: list[tuple[int, int]],
    kept: set[int],
    workers: int,
    player: Any,
    statistics: RunAccumulator,
    progress: Any,
    decided: Callable[[int], Any],
    model: LuckModel | None = None,
) -> Played:
    """Play and write the blocks not ``kept`` (there already), with their luck scored
    by ``model`` when given, folding every block's totals in match order
    (mexsim/run/in_order.py)."""
    url = location.url
    names = [p.name for p in config.players]
    tasks = None
    in_flight = 2 * workers
    if player:  # several consecutive blocks a task (block_tasks.py), each its own parts
        tasks = player.tasks(all_blocks, kept, model, write=(url, rid))
        in_flight = 2 * tasks.per_task * player.workers
    with contextlib.nullcontext() if player else unjoined_threads(workers) as pool:

        def start(index: int, first: int, n: int) -> Any:
            if tasks:
                return tasks.start(index)
            assert pool is not None  # no cluster: threads play the blocks
            return pool.submit(play_and_write, url, rid, config, players, index, first, n, model)

        def take(index: int, first: int, n: int, totals: Any) -> None:
            if totals is None:  # a kept block: its totals (and luck) from its matches part
                totals = location.kept_totals(index, names, len(players))
            statistics.add(*totals)

        # blocks in flight may still be writing at a stop: let them end, so that
        # commit removes every part beyond it
        return take_in_order(
            all_blocks, kept, in_flight, start, take, progress, decided, drain_on_stop=True
        )


def _kept(location: Location, what: str) -> str:
    """What a stopped run left at the location. "At least": the blocks in flight (a
    cluster's tasks, abandoned threads) may still write theirs after the count, and
    --resume takes them too (a work folder is sealed first: parts.WorkFolder.seal; a
    remote worker's task cannot be)."""
    try:
        kept = len(location.done())
    except OSError:
        kept = 0
    if kept == 0:
        return f"{what}: no results written"
    return (
        f"{what}: at least {kept:,} finished blocks kept at {location.url}; rerun the "
        "same command with --resume to continue"
    )
