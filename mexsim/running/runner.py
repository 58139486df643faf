"""`mexsim run`: play a config's matches on all cores and keep every finished block.

One runner for a results folder and a shared location alike: where the blocks go is a
sink's business (mexsim/store/sink.py: folder_sink.py, location_sink.py).

Matches are played in fixed blocks (mexsim/store/parts.py) by threads (the numba
kernels release the GIL); the thread that played a block also converts it to Arrow,
writes it durably into the run's hidden work folder ``.NAME.tmp-PID`` and reads it
back, and the main thread appends the blocks to the results files in match order and
folds their statistics (the one serial step), so memory stays bounded, a killed run
keeps what it played (``--resume`` continues it), and the files depend on (config,
seed) only — never on the worker count, block timing or resume point. When all blocks
are in, the results are assembled, summarised and put in place of ``out`` without ever
losing both old and new results (mexsim/store/results_folder.py).

Ctrl-C, SIGTERM and SIGHUP stop a run at once: the main thread stops waiting, keeps the
finished blocks and raises :class:`~mexsim.errors.Interrupted`; worker threads, which
may be stuck in a strategy's compiled code and cannot be interrupted, are abandoned
(the command line then ends the process without joining them).
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mexsim.analysis.accumulate import RunStatistics
from mexsim.errors import ConfigError, Interrupted, OutputError, ResourceShortage, StrategyError
from mexsim.game.stall_watch import DECISION_LIMIT, run_watched, stalled
from mexsim.game.strategy_output import output_counted, printed_note
from mexsim.jit.ast_guard import serialise_ast_parse
from mexsim.running.dask.cluster import (
    ClusterPlayer,
    open_player,
    parse_address,
    start_workers_early,
)
from mexsim.running.decisions_run import refuse_with_decisions
from mexsim.running.in_order import (
    Played,
    StopRule,
    standing,
    stop_rule,
    take_in_order,
    unjoined_threads,
)
from mexsim.running.machine_limits import SHORTAGE_ADVICE, check_resources, resource_shortage
from mexsim.running.preparation import load_engine, luck_model, play_raw, tables_of
from mexsim.running.run_record import RunResult, nothing, write_run_json
from mexsim.running.stop_signals import Stop, StopSignals
from mexsim.store.folder_sink import FolderSink, interrupted_seed
from mexsim.store.location import is_url
from mexsim.store.location_sink import LocationSink
from mexsim.store.parts import run_blocks
from mexsim.store.sink import Note, ResultsSink
from mexsim.strategy.policy import Policy
from mexsim.tournament.config import Config
from mexsim.tournament.decision_rows import block_decisions
from mexsim.tournament.identity import run_id
from mexsim.tournament.lineup import player_policies
from mexsim.tournament.luck import LuckModel
from mexsim.tournament.resolved import config_identity

__all__ = ["RunHooks", "RunOptions", "RunResult", "interrupted_seed", "run"]


def _say_nothing(line: str) -> None:
    pass


@dataclass(frozen=True)
class RunOptions:
    """How to play: ``workers`` threads (or a cluster's workers), replacing results
    (``force``), continuing an interrupted run (``resume``), stopping once decided
    (``until``: ``--until decided``) and on a Dask cluster (``cluster``: ``local:N`` or
    a scheduler address, mexsim/running/dask/cluster.py); a decide running for
    ``decision_limit`` seconds stops the run (mexsim/game/stall_watch.py; 0: never)."""

    workers: int = 1
    force: bool = False
    resume: bool = False
    until: StopRule | None = None
    cluster: str | None = None
    decision_limit: float = DECISION_LIMIT


@dataclass(frozen=True)
class RunHooks:
    """What the caller hears of a run: ``progress(n)`` after each block (the kept
    blocks' matches first); ``write_tables(folder, statistics)`` writes the comparison's
    tables before the results are published (the run's statistics, gathered block by
    block: mexsim/analysis/accumulate.py); ``note(line)``: what the user should know (a
    resumed or discarded work folder, the verdict that stopped the run)."""

    progress: Callable[[int], None] | None = None
    write_tables: Callable[[Path, RunStatistics], None] | None = None
    note: Callable[[str], None] = _say_nothing


def run(
    config: Config,
    out: Path | str,
    options: RunOptions,
    hooks: RunHooks | None = None,
    started: float | None = None,
) -> RunResult:
    """Play all matches of ``config`` into ``out`` as ``options`` say, telling ``hooks``;
    ``started``: when the command began (``time.perf_counter``), for the wall time.

    ``out``: a results folder, or an fsspec URL (``file:///…``, ``s3://…``) where the
    blocks are written as parts by whoever plays them (mexsim/store/location_sink.py).

    Raises ConfigError (refused before play), OutputError (the system refused a
    write), OutputConflict (complete results not put in place) or Interrupted."""
    started = time.perf_counter() if started is None else started
    serialise_ast_parse()  # before any thread of the run parses (mexsim/jit/ast_guard.py)
    hooks = hooks or RunHooks()
    note, progress, write_tables = hooks.note, hooks.progress, hooks.write_tables
    workers, force, resume = options.workers, options.force, options.resume
    until, cluster = options.until, options.cluster
    check_resources(f"{config.path} [run]", config.matches, len(config.players), workers)
    if cluster:
        parse_address(cluster)  # a bad address is refused before anything is done
        start_workers_early(cluster)  # a local cluster's workers load meanwhile
    if until is not None and config.variants:
        raise ConfigError(
            f"{config.path}: --until cannot stop a run with rule variants ([[variants]] or "
            "lists in [rules]: every variant plays every match, so that they stay paired); "
            "drop --until, or set the matches"
        )
    if config.decisions:
        refuse_with_decisions(config, out, until, cluster)
    names = [p.name for p in config.players]
    variants = config.variant_names
    sink: ResultsSink = (
        LocationSink(str(out), names, len(names), config.luck, variants)
        if is_url(out)
        else FolderSink(Path(out), names, len(names), config.luck, variants)
    )
    signals = StopSignals()
    signals.install()
    close_cluster = nothing
    try:
        try:
            players = player_policies(config)
            identity = config_identity(config)
            rid = run_id(identity)
            sink.reserve()
            sink.check(rid, identity, resume, force, note)
            # the luck model's pilot plays strategies too: on a thread of its own, so that
            # a decide that never returns is named and a stop signal is heard meanwhile
            model = run_watched(lambda: luck_model(config, players), options.decision_limit)
            load_engine(config, players, cluster, model)  # before any thread
            player, close_cluster = open_player(cluster, config)
            if player is not None:
                workers = player.workers
                workers_said = f"{player.workers} Dask worker{'' if player.workers == 1 else 's'}"
                note(f"playing on {workers_said}; dashboard {player.dashboard}")
            kept = sink.open(rid, identity, len(run_blocks(config.matches, len(variants))), note)
            play_start = time.perf_counter()
            with output_counted() as printed:  # a strategy's debugging prints
                played = _play(
                    config,
                    players,
                    sink,
                    rid,
                    kept,
                    workers,
                    progress,
                    until,
                    player,
                    model,
                    options.decision_limit,
                    note,
                )
            if printed.lines:
                note(printed_note(printed.lines))
            judged, said = played.stopped, None
            if judged is not None:
                said = judged.describe()
            elif until is not None:  # played to the cap: where the comparison stands
                judged = standing(until, names, sink.statistics)
                said = judged.describe(cap=config.matches)
            if said is not None:
                note(said)
            play_seconds = time.perf_counter() - play_start
            summary_start = time.perf_counter()
            statistics = sink.close()
            statistics.designer.rules = [v.describe() for v in config.variants]
            summary_seconds = 0.0

            def outcome() -> RunResult:
                return RunResult(
                    sink.target,
                    statistics.matches,
                    workers,
                    time.perf_counter() - started,
                    play_seconds,
                    summary_seconds,
                    played.matches,
                )

            def fill(folder: Path) -> None:
                nonlocal summary_seconds
                if config.decisions:
                    assert isinstance(sink, FolderSink)  # refused for a URL
                    sink.join_decisions(folder, len(run_blocks(config.matches, len(variants))))
                if write_tables:
                    write_tables(folder, statistics)
                summary_seconds = time.perf_counter() - summary_start
                write_run_json(
                    folder,
                    config,
                    rid,
                    outcome(),
                    len(kept),
                    until,
                    said,
                    judged is not None and judged.decided,
                    model,
                )

            sink.publish(fill, lambda: setattr(signals, "finishing", True))
            return outcome()
        except (KeyboardInterrupt, Stop) as exc:
            signum = exc.signum if isinstance(exc, Stop) else signal.SIGINT
            raise Interrupted(sink.stopped("interrupted"), signum) from None
        except StrategyError:
            sink.discard()  # the strategy must change, and with it the run id
            raise
        except Exception as exc:
            shortage = resource_shortage(exc)
            if shortage is not None:  # before an OSError: ENOMEM is one, but not the disk's
                raise ResourceShortage(sink.stopped(f"{shortage}; {SHORTAGE_ADVICE}")) from None
            if isinstance(exc, OSError):
                raise OutputError(sink.failed(exc)) from None
            raise
    finally:
        sink.release()
        close_cluster()
        signals.restore()


def _play(
    config: Config,
    players: list[Policy],
    sink: ResultsSink,
    rid: str,
    kept: set[int],
    workers: int,
    progress: Callable[[int], None] | None,
    until: StopRule | None = None,
    cluster: ClusterPlayer | None = None,
    model: LuckModel | None = None,
    decision_limit: float = DECISION_LIMIT,
    note: Note = lambda text: None,
) -> Played:
    """Play the blocks not ``kept`` (kept by an interrupted run), taking every block into
    the sink in match order (mexsim/running/in_order.py). Blocks are played on ``cluster``
    when given, else on ``workers`` threads, which are never joined on the way out (see
    the module docstring). A sink whose blocks a cluster's tasks write themselves gets
    their totals; otherwise threads play the blocks (or wait for the cluster's result),
    convert them and write their parts, and this thread only takes them in order (the
    serial step: docs/speed-history.md, the writer's ceiling)."""
    all_blocks = run_blocks(config.matches, len(config.variant_names))
    names = [p.name for p in config.players]
    tasks = None
    # blocks in flight: with two stages (play, then write) a player needs a block or
    # two ahead of the writer to never wait for it (small blocks: 0.42 -> 0.47 of the
    # kernel's rate at 4,000 matches of the default table, docs/speed.md)
    in_flight = 4 * workers
    if cluster:  # several consecutive blocks a task (block_tasks.py), each written alone
        write = (str(sink.target), rid) if sink.remote_writes else None
        tasks = cluster.tasks(all_blocks, kept, model, write=write)
        in_flight = 2 * tasks.per_task * cluster.workers
    threads = min(in_flight, os.cpu_count() or 1) if cluster else workers
    remote_writes = cluster is not None and sink.remote_writes

    def write_played(index: int, first: int, n: int, played: Future) -> Any:
        rounds, matches = tables_of(config, names, first, n, played.result())
        return sink.write_block(index, rounds, matches)

    def play_deciding(index: int, first: int, n: int) -> Any:
        """The block played and its decisions written (their part before the block's)."""
        assert isinstance(sink, FolderSink)  # refused for a URL
        res, tables = block_decisions(config, players, first, n)
        sink.write_decisions(index, tables)
        return res, None

    # Two stages, each on threads of its own: one plays blocks back to back (the kernel
    # releases the GIL), the other converts each played block and writes its parts, so
    # the players never wait for a write (~20 us a match of 4 x greedy's ~75 came off the
    # playing thread: docs/speed-history.md)
    def pools() -> Any:
        return contextlib.nullcontext() if remote_writes else unjoined_threads(threads)

    with pools() as pool, pools() as writers:

        def start(index: int, first: int, n: int) -> Any:
            remote = tasks.start(index) if tasks else None
            if pool is None:  # the cluster's tasks write the blocks: their totals
                return remote
            if config.decisions:
                played = pool.submit(play_deciding, index, first, n)
            else:
                played = pool.submit(play_raw, config, players, first, n, model, remote)
            return writers.submit(write_played, index, first, n, played)

        def take(index: int, first: int, n: int, written: Any) -> None:
            sink.take(index, written)

        return take_in_order(
            all_blocks,
            kept,
            in_flight,
            start,
            take,
            progress,
            stop_rule(until, config, sink.statistics),
            drain_on_stop=sink.drain_on_stop,
            watch=lambda: (
                stalled(decision_limit)
                or (cluster.stalled(decision_limit, note) if cluster else None)
            ),
        )
