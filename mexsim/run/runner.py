"""`mexsim run`: play a config's matches on all cores and keep every finished block.

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

import os
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mexsim.analysis.accumulate import RunStatistics
from mexsim.analysis.sequential import Verdict
from mexsim.errors import ConfigError, Interrupted, OutputError, StrategyError
from mexsim.jit.ast_guard import serialise_ast_parse
from mexsim.run.dask.cluster import (
    ClusterPlayer,
    open_player,
    parse_address,
    start_workers_early,
)
from mexsim.run.in_order import StopRule, stop_rule, take_in_order, unjoined_threads
from mexsim.run.machine_limits import check_resources
from mexsim.run.preparation import load_engine, luck_model, played_tables
from mexsim.run.run_record import RunResult, nothing, write_run_json
from mexsim.run.stop_signals import Stop, StopSignals
from mexsim.store import results_folder as output
from mexsim.store.location import is_url
from mexsim.store.parts import Assembler, Block, WorkFolder, blocks, write_and_read
from mexsim.strategy.policy import Policy
from mexsim.tournament.config import Config
from mexsim.tournament.identity import differences, run_id
from mexsim.tournament.lineup import player_policies
from mexsim.tournament.luck import LuckModel
from mexsim.tournament.resolved import config_identity


def run(
    config: Config,
    out: Path | str,
    workers: int,
    force: bool = False,
    progress: Callable[[int], None] | None = None,
    write_tables: Callable[[Path, RunStatistics], None] | None = None,
    resume: bool = False,
    note: Callable[[str], None] | None = None,
    started: float | None = None,
    until: StopRule | None = None,
    cluster: str | None = None,
) -> RunResult:
    """Play all matches of ``config`` into ``out``; ``progress(n)`` after each block;
    ``write_tables(folder, statistics)`` (the comparison's tables) before the folder is
    published (the run's statistics, gathered block by block:
    mexsim/analysis/accumulate.py); ``note(line)``
    for what the user should know (a resumed or discarded work folder). ``started``:
    when the command began (``time.perf_counter``), for the wall time.

    ``until``: stop once decided (``--until decided``); ``cluster``: play the blocks on
    a Dask cluster (``local:N`` or a scheduler address: mexsim/run/dask/cluster.py).

    ``out``: a results folder, or an fsspec URL (``file:///…``, ``s3://…``) where the
    blocks are written as parts by whoever plays them (mexsim/run/url_runner.py).

    Raises ConfigError (refused before play), OutputError (the system refused a
    write), OutputConflict (complete results not put in place) or Interrupted."""
    started = time.perf_counter() if started is None else started
    serialise_ast_parse()  # before any thread of the run parses (mexsim/jit/ast_guard.py)
    note = note or (lambda line: None)
    check_resources(f"{config.path} [run]", config.matches, len(config.players), workers)
    if cluster:
        parse_address(cluster)  # a bad address is refused before anything is done
        start_workers_early(cluster)  # a local cluster's workers load meanwhile
    if is_url(out):
        from mexsim.run.url_runner import run_shared

        return run_shared(
            config,
            str(out),
            workers,
            force,
            progress,
            write_tables,
            resume,
            note,
            started,
            until,
            cluster,
        )
    out = Path(out)
    signals = StopSignals()
    signals.install()
    lock = output.OutputLock(out)
    work: WorkFolder | None = None
    assembler: Assembler | None = None
    close_cluster = nothing
    try:
        try:
            players = player_policies(config)
            identity = config_identity(config)
            rid = run_id(identity)
            try:
                output.parent_of(out).mkdir(parents=True, exist_ok=True)
                lock.acquire()
            except OSError as exc:
                raise ConfigError(f"{out}: output path not writable ({exc.strerror})") from None
            before = output.inspect(out, force)
            stale = _stale_work(out, rid, identity, resume, force, note)
            model = luck_model(config, players)
            load_engine(config, players, cluster, model)
            player, close_cluster = open_player(cluster, config)
            if player is not None:
                workers = player.workers
                note(f"playing on {player.workers} Dask workers; dashboard {player.dashboard}")
            work = _work_folder(out, stale, rid, identity)
            all_blocks = blocks(config.matches)
            kept = work.done()  # blocks are written in parallel: not always a prefix
            done = len(kept)
            if done:
                note(f"resuming {work.path}: {done:,} of {len(all_blocks):,} blocks already played")
            play_start = time.perf_counter()
            assembler = Assembler(
                work, rid, [p.name for p in config.players], len(players), config.luck
            )
            played, stopped = _play(
                config,
                players,
                work,
                assembler,
                all_blocks,
                kept,
                workers,
                progress,
                until,
                player,
                model,
            )
            if stopped is not None:
                note(stopped.describe())
            play_seconds = time.perf_counter() - play_start
            summary_start = time.perf_counter()
            statistics = assembler.close()
            if write_tables:
                write_tables(work.results, statistics)
            summary_seconds = time.perf_counter() - summary_start
            wall = time.perf_counter() - started
            result = RunResult(
                out, assembler.matches, workers, wall, play_seconds, summary_seconds, played
            )
            write_run_json(work.results, config, rid, result, done, until, stopped, model)
            output.write_marker(work.results, rid)
            signals.finishing = True
            output.publish(work.results, out, before, force)
            work.remove()
            return RunResult(
                out,
                assembler.matches,
                workers,
                time.perf_counter() - started,
                play_seconds,
                summary_seconds,
                played,
            )
        except (KeyboardInterrupt, Stop) as exc:
            signum = exc.signum if isinstance(exc, Stop) else signal.SIGINT
            raise Interrupted(_kept_message("interrupted", work), signum) from None
        except OSError as exc:
            raise OutputError(
                _kept_message(f"{exc.filename or out}: {exc.strerror or exc}", work)
            ) from None
        except StrategyError:
            if work is not None:  # the strategy must change, and with it the run id:
                work.remove()  # its blocks could never be resumed
            raise
        # anything else (OutputConflict, a bug) keeps the work folder: the next run
        # names it, --resume continues it
    finally:
        if assembler is not None:
            assembler.abandon()  # closed already when the run succeeded
        close_cluster()
        signals.restore()
        lock.release()


def _play(
    config: Config,
    players: list[Policy],
    work: WorkFolder,
    assembler: Assembler,
    all_blocks: list[tuple[int, int]],
    kept: set[int],
    workers: int,
    progress: Callable[[int], None] | None,
    until: StopRule | None = None,
    cluster: ClusterPlayer | None = None,
    model: LuckModel | None = None,
) -> tuple[int, Verdict | None]:
    """Play the blocks not ``kept`` (on disk already, from an interrupted run), adding
    every block to the results in order (mexsim/run/in_order.py); returns the
    matches played and, when ``until`` stopped the run, the verdict that did. Blocks are
    played on ``cluster`` when given, else on ``workers`` threads, which are never
    joined on the way out (see the module docstring)."""
    tasks = None
    in_flight = 2 * workers
    if cluster:  # several consecutive blocks a task (block_tasks.py), each written alone
        tasks = cluster.tasks(all_blocks, kept, model)
        in_flight = 2 * tasks.per_task * cluster.workers
    # Threads play the blocks (or wait for the cluster's result), convert them and write
    # their part files; this thread only appends them to the results files in order
    # and folds their totals (the serial step: README, "Speed", the writer's ceiling).
    threads = min(in_flight, os.cpu_count() or 1) if cluster else workers
    with unjoined_threads(threads) as pool:

        def start(index: int, first: int, n: int) -> Any:
            remote = tasks.start(index) if tasks else None
            return pool.submit(
                _play_and_write, config, players, work, assembler, index, first, n, remote, model
            )

        def take(index: int, first: int, n: int, block: Block | None) -> None:
            assembler.add(index, block)  # None: a kept block, read from its parts

        played = take_in_order(
            all_blocks,
            kept,
            in_flight,
            start,
            take,
            progress,
            stop_rule(until, config, assembler.statistics),
        )
    return played.matches, played.stopped


def _play_and_write(
    config: Config,
    players: list[Policy],
    work: WorkFolder,
    assembler: Assembler,
    index: int,
    first: int,
    n: int,
    remote: Any = None,
    model: LuckModel | None = None,
) -> Block:
    """On a pool thread: play block ``index`` (or wait for the cluster's ``remote``
    result), with its luck scored when ``model`` is given, convert it, write its parts
    and read them back for the assembler."""
    rounds_table, matches_table = played_tables(
        config, players, assembler.names, first, n, model, remote
    )
    return write_and_read(
        work,
        index,
        rounds_table,
        matches_table,
        assembler.run_id,
        assembler.names,
        assembler.players,
    )


def interrupted_seed(out: str) -> int | None:
    """The seed of the interrupted run whose work folder ``out`` has, if one has
    (the newest): what ``--resume`` continues when the config draws its seed."""
    if is_url(out):
        return None
    found = [WorkFolder(p) for p in output.work_folders(Path(out))]
    seeds = []
    for work in found:
        seed = (work.info() or {}).get("identity", {}).get("config", {}).get("run", {}).get("seed")
        if isinstance(seed, int):
            seeds.append((work.path.stat().st_mtime, seed))
    return max(seeds)[1] if seeds else None


def _stale_work(
    out: Path,
    rid: str,
    identity: dict[str, Any],
    resume: bool,
    force: bool,
    note: Callable[[str], None],
) -> WorkFolder | None:
    """The work folders dead runs to ``out`` left (the lock is ours: every one is
    stale): the one to resume, or None; the others are discarded (--force) or
    refused."""
    for aside in output.work_folders(out, output.ASIDE_SUFFIX):  # never removed for you
        note(
            f"{aside} holds old results of {out} that a run moved aside before it died; "
            "move them back or delete them"
        )
    found = [WorkFolder(p) for p in output.work_folders(out)]
    ours = next((w for w in found if (w.info() or {}).get("run_id") == rid), None)
    if resume and ours is not None:
        others = [w for w in found if w is not ours]
    else:
        ours, others = None, found
    if resume and ours is None:
        other = next((w for w in others if w.info()), None)
        if other is not None and not force:
            theirs = other.info() or {}
            raise ConfigError(
                f"{out}: cannot resume: the interrupted run in {other.path} had another "
                f"config ({differences(theirs['identity'], identity)}); run it with "
                "that config, or add --force to discard it and start afresh"
            )
        note(f"nothing to resume for {out}: starting afresh")
    for stale in others:
        blocks_kept = len(stale.done())
        if not force:
            what = (
                "of this config: add --resume to continue it"
                if (stale.info() or {}).get("run_id") == rid
                else "of another config or mexsim version"
            )
            raise ConfigError(
                f"{out}: a run that died left {blocks_kept:,} played blocks in "
                f"{stale.path} ({what}, or --force to discard it)"
            )
        stale.remove()
        note(f"removed {stale.path}, left by a run that died ({blocks_kept:,} blocks)")
    return ours


def _work_folder(
    out: Path, stale: WorkFolder | None, rid: str, identity: dict[str, Any]
) -> WorkFolder:
    path = output.parent_of(out) / f".{out.name}{output.WORK_SUFFIX}{os.getpid()}"
    if stale is None:
        return WorkFolder.create(path, rid, identity)
    if stale.path != path:
        os.rename(stale.path, path)
    return WorkFolder(path)


def _kept_message(what: str, work: WorkFolder | None) -> str:
    """What an interrupted or failed run left: nothing, or its finished blocks."""
    if work is None:
        return f"{what}: no results written"
    try:
        kept = len(work.seal())
    except OSError:  # not counted: kept all the same, never removed unseen
        return (
            f"{what}: finished blocks kept in {work.path}; rerun the same command "
            "with --resume to continue"
        )
    if kept == 0:
        work.remove()
        return f"{what}: no results written"
    return (
        f"{what}: {kept:,} finished blocks kept in {work.path}; rerun the same command "
        "with --resume to continue"
    )
