"""Durable blocks: a run's work folder, filled block by block, from which the results
files are assembled.

A run is cut into blocks of a fixed number of matches (``block_size``, a function of
the match count only). Each block, once played, is written as two small Arrow IPC files
(``parts/NNNNNNNN.rounds.arrow`` and ``….matches.arrow``: footers written, fsynced,
then renamed into place), so a block on disk is complete or absent, whatever kills the
process. The parts are written and read back once each, by the thread that played the
block: Arrow's own format (lz4 buffers) costs ~4.5 µs of CPU a match for both, where
Parquet parts cost ~19 (docs/speed-history.md), for ~1.5 × the disk while the run lasts.
``work.json`` records the run id the blocks belong to. The final
``rounds.parquet`` and ``matches.parquet`` are streamed from the parts as blocks are
written (``Assembler``), one row group per block, whether the run was interrupted and
resumed or not: the files are the same bytes for any worker count, block timing or
resume point.
"""

from __future__ import annotations

import hashlib
import json
import os
import queue
import shutil
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.ipc as ipc
import pyarrow.parquet as pq

from mexsim.analysis.accumulate import RunStatistics
from mexsim.analysis.designer import BASE, ROUND_COLUMNS, MatchFacts, match_facts
from mexsim.analysis.run_fold import RunFold
from mexsim.errors import OutputError
from mexsim.store.result_tables import values_of
from mexsim.store.results_folder import fsync_file
from mexsim.tournament.identity import RUN_ID_KEY

MIN_BLOCK = 64
MAX_BLOCK = 4096  # ~0.1-1 s of play: resume loses little, memory stays small
BLOCKS_WANTED = 256
# A block costs ~4 ms of CPU beside play whatever its size (two part files created,
# fsynced and renamed, a row group of each results file, the statistics' fold): 64 µs a
# match at 64 matches, more than 4 x greedy's play. So a run has at most FEWEST_BLOCKS
# blocks until they reach SMALL_BLOCK matches (4,000 matches of 4 x greedy: 0.50 ->
# 0.69-0.79 of the kernel's rate, docs/speed.md); not larger, for a search player's few
# matches a second (progress, --until and a stop are heard block by block)
SMALL_BLOCK = 128
FEWEST_BLOCKS = 32
WORK_FILE = "work.json"
COMPRESSION = "zstd"  # the results files
# Columns that number rows (kept plain: a dictionary of nearly as many distinct values
# as rows costs encoding time and bytes), and the columns whose row-group statistics
# are kept (a row group is a block of consecutive matches, so min/max of these select
# row groups; every row group holds every round, seat and player, so their min/max
# select nothing). Together ~1.8 µs of the results files' ~10 µs a match, for smaller
# files (docs/speed-history.md, "The results files' encoding").
PLAIN_COLUMNS = ("match", "deal", "seat")
STATISTICS_COLUMNS = ("match", "deal")
PART_COMPRESSION = "lz4"  # the parts' buffers: written and read back once, quickly
PART_SUFFIX = "arrow"
# a part's stamp beside RUN_ID_KEY (``stamped``): the block it is, and a digest of its rows
BLOCK_KEY = b"mexsim.block"
DIGEST_KEY = b"mexsim.digest"
# mexsim wrote its parts as Parquet files before: a run it left interrupted is resumed
# with the blocks its stop message said were kept, read as they are
OLD_PART_SUFFIX = "parquet"


def parquet_options(schema: pa.Schema) -> dict[str, Any]:
    """How the results files (and a shared location's parts) are encoded."""
    return {
        "compression": COMPRESSION,
        # a CRC of every page, verified as it is read: a byte flipped on disk is
        # found, where a page of numbers could decode to others
        "write_page_checksum": True,
        "use_dictionary": [c for c in schema.names if c not in PLAIN_COLUMNS],
        "write_statistics": [c for c in schema.names if c in STATISTICS_COLUMNS],
    }


def block_size(matches: int) -> int:
    """Matches per block (and per row group): from the match count alone. At least
    64, ⌈matches / 32⌉ up to 128, and ⌈matches / 256⌉ up to 4,096: 4,000 matches play
    in 32 blocks of 125, 16,000 in 125 of 128, 40,000 in 255 of 157."""
    least = min(SMALL_BLOCK, max(MIN_BLOCK, -(-matches // FEWEST_BLOCKS)))
    return min(MAX_BLOCK, max(least, -(-matches // BLOCKS_WANTED)))


def blocks(matches: int) -> list[tuple[int, int]]:
    """(first match, count) of every block, in order."""
    size = block_size(matches)
    return [(first, min(size, matches - first)) for first in range(0, matches, size)]


def run_blocks(matches: int, variants: int = 1) -> list[tuple[int, int]]:
    """(first, count) of every block of a run with ``variants`` rule variants, in the
    order they are played and written: block b of every variant, then block b + 1, so
    that the variants' paired statistics hold a block or two (analysis/designer.py).
    Variant v's matches are numbered from v × matches (``Config.played_at``)."""
    return [(v * matches + first, n) for first, n in blocks(matches) for v in range(variants)]


def variant_of_block(index: int, variants: int) -> int:
    """The variant whose matches block ``index`` of ``run_blocks`` holds."""
    return index % variants


def with_run_id(table: pa.Table, run_id: str) -> pa.Table:
    return table.replace_schema_metadata({RUN_ID_KEY: run_id.encode()})


def _digest(table: pa.Table) -> bytes:
    """A digest of a table's columns and values (not its metadata): the bytes of its
    Arrow stream, dictionaries included."""
    plain = table.replace_schema_metadata(None)
    sink = pa.BufferOutputStream()
    with ipc.new_stream(sink, plain.schema) as writer:
        writer.write_table(plain)
    return hashlib.sha256(sink.getvalue()).hexdigest()[:32].encode()


def stamped(table: pa.Table, run_id: str, index: int) -> pa.Table:
    """A part as it is written: its rows, with the run and the block it belongs to and a
    digest of its contents, so that a part moved, copied from another run or changed
    in place is refused when it is read back (--resume included), never taken."""
    return table.replace_schema_metadata(
        {RUN_ID_KEY: run_id.encode(), BLOCK_KEY: str(index).encode(), DIGEST_KEY: _digest(table)}
    )


def check_stamp(
    table: pa.Table, path: Path | str, run_id: str, index: int, fix: str, rows: bool = True
) -> None:
    """OutputError naming ``path`` unless its part is block ``index`` of run ``run_id``,
    as written (``rows``: its digest checked too; ``fix``: what to do). A part without a
    stamp is refused too: stripped, or an older mexsim's, whose run id differs anyway."""
    meta = table.schema.metadata or {}
    if DIGEST_KEY not in meta:
        problem = (
            "carries no stamp of the run and block it belongs to (stripped, or not this mexsim's)"
        )
    elif meta.get(RUN_ID_KEY, b"").decode(errors="replace") != run_id:
        problem = "belongs to another run (another config, seed or mexsim)"
    elif meta.get(BLOCK_KEY) != str(index).encode():
        problem = f"is block {meta.get(BLOCK_KEY, b'?').decode(errors='replace')}, not {index}"
    elif rows and _digest(table) != meta[DIGEST_KEY]:
        problem = "was changed after it was written"
    else:
        return
    raise OutputError(f"{path}: this part {problem}; {fix}")


class WorkFolder:
    """A run's hidden work folder beside its results folder."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.parts = path / "parts"
        self.results = path / "results"
        # sealed when the run stops: the play threads are abandoned, not joined, and one
        # that finishes its block later must not add it after the stop message counted
        # the blocks kept (it would say fewer than --resume then finds)
        self._sealing = threading.Lock()
        self._sealed = False

    @classmethod
    def create(cls, path: Path, run_id: str, identity: dict[str, Any]) -> WorkFolder:
        path.mkdir()
        work = cls(path)
        try:
            work.parts.mkdir()
            _write_durably(
                path / WORK_FILE,
                json.dumps({"run_id": run_id, "identity": identity}, indent=1).encode(),
            )
        except BaseException:
            work.remove()
            raise
        return work

    def info(self) -> dict[str, Any] | None:
        """work.json, or None if it is missing or unreadable."""
        try:
            data = json.loads((self.path / WORK_FILE).read_text())
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) and isinstance(data.get("run_id"), str) else None

    def done(self) -> set[int]:
        """Indices of the blocks on disk (both parts present); removes half-written
        part files."""
        if not self.parts.is_dir():
            return set()
        names = set()
        for path in self.parts.iterdir():
            if path.name.endswith(".tmp"):
                # a sealed folder's play threads remove their own, maybe at this moment
                path.unlink(missing_ok=True)
            else:
                names.add(path.name)
        return {
            int(name.split(".")[0])
            for name in names
            if name.endswith((f".matches.{PART_SUFFIX}", f".matches.{OLD_PART_SUFFIX}"))
            and name.replace(".matches.", ".rounds.") in names
        }

    def part(self, index: int, kind: str) -> Path:
        return self.parts / f"{index:08d}.{kind}.{PART_SUFFIX}"

    def kept_part(self, index: int, kind: str) -> Path:
        """Block ``index``'s part on disk: ours, or an older mexsim's (OLD_PART_SUFFIX)."""
        path = self.part(index, kind)
        old = path.with_suffix(f".{OLD_PART_SUFFIX}")
        return old if not path.exists() and old.exists() else path

    def write_block(self, index: int, rounds: pa.Table, matches: pa.Table) -> None:
        """Write block ``index``'s parts; nothing once the folder is sealed."""
        written = []
        for kind, table in (("rounds", rounds), ("matches", matches)):
            final = self.part(index, kind)
            tmp = final.with_name(final.name + ".tmp")
            _write_part(table, tmp)
            fsync_file(tmp)
            written.append((tmp, final))
        with self._sealing:
            for tmp, final in written:
                if self._sealed:
                    tmp.unlink(missing_ok=True)
                else:  # rounds first: a block counts as done once its matches part exists
                    os.replace(tmp, final)

    def seal(self) -> set[int]:
        """Take no more blocks; returns those on disk (``done``)."""
        with self._sealing:
            self._sealed = True
        return self.done()

    def remove(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)


@dataclass(frozen=True)
class Block:
    """A block as the results files take it: its two tables read back from its part
    files (with the run id), and its match totals and deals for the statistics."""

    rounds: pa.Table
    matches: pa.Table
    totals: np.ndarray
    deals: np.ndarray
    adjusted: np.ndarray | None = None  # luck-adjusted totals ([analysis] luck = true)
    facts: MatchFacts | None = None  # its matches' designer facts (analysis/designer.py)


def read_block(
    work: WorkFolder, index: int, run_id: str, names: list[str], players: int, rows: bool = True
) -> Block:
    """Block ``index`` from its part files, each checked to be that block of this run
    (``rows``: and unchanged since it was written, as a part kept by a dead run is)."""
    tables = []
    for kind in ("rounds", "matches"):
        path = work.kept_part(index, kind)
        table = _read_part(path, work)
        check_stamp(table, path, run_id, index, _fix(work), rows)
        tables.append(with_run_id(table, run_id))
    rounds, matches = tables
    return Block(rounds, matches, *block_statistics(matches, names, players), block_facts(rounds))


def _fix(work: WorkFolder) -> str:
    return f"delete {work.path}, or rerun without --resume and with --force to start afresh"


def _write_part(table: pa.Table, path: Path) -> None:
    options = ipc.IpcWriteOptions(compression=PART_COMPRESSION)
    with (
        pa.OSFile(str(path), "wb") as sink,
        ipc.new_file(sink, table.schema, options=options) as writer,
    ):
        writer.write_table(table)


def _read_part(path: Path, work: WorkFolder) -> pa.Table:
    try:
        if path.suffix == f".{OLD_PART_SUFFIX}":
            return pq.read_table(path, page_checksum_verification=True)
        # read, not memory-mapped: the buffers are decompressed into memory of their own
        with pa.OSFile(str(path)) as source:
            return ipc.open_file(source).read_all()
    except pa.ArrowInvalid as exc:  # written whole and renamed: damaged after, on disk
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise OutputError(
            f"{path}: a part file of the interrupted run is damaged ({reason}); {_fix(work)}"
        ) from None


def write_and_read(
    work: WorkFolder,
    index: int,
    rounds: pa.Table,
    matches: pa.Table,
    run_id: str,
    names: list[str],
    players: int,
) -> Block:
    """Write block ``index`` durably; the block as the results files take it.

    Called on the thread that played the block, so that conversion and compression run
    in parallel and the thread that appends to the results files (the only serial step)
    does little more than that (docs/speed-history.md: the writer's ceiling). The
    tables are passed on as they were written, not read back (a fifth of a block's
    writing): an Arrow file gives back the very columns it was given, so a block played
    now and one kept by an interrupted run, read from its parts, are the same bytes in
    the results files (tests/tournament/test_run.py holds a resumed run to that)."""
    work.write_block(index, stamped(rounds, run_id, index), stamped(matches, run_id, index))
    rounds, matches = with_run_id(rounds, run_id), with_run_id(matches, run_id)
    return Block(rounds, matches, *block_statistics(matches, names, players), block_facts(rounds))


class Appender:
    """Appends tables to one Parquet file, one row group each, in the order given, on a
    thread of its own: the two results files are written side by side and beside the
    statistics fold, so the run's one serial step is the slowest of the three, not
    their sum (pyarrow encodes and compresses without the GIL). An error of the thread
    (a full disk) is raised at the next ``put`` or at ``close``."""

    QUEUED = 4  # blocks waiting: bounded memory, enough to ride out a slow write

    def __init__(self, path: Path) -> None:
        self.path = path
        self.queue: queue.Queue[pa.Table | None] = queue.Queue(maxsize=self.QUEUED)
        self.error: BaseException | None = None
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._loop, name=f"mexsim-{path.name}", daemon=True)
        self.thread.start()

    def put(self, table: pa.Table) -> None:
        self._raise()
        self.queue.put(table)

    def close(self) -> None:
        """Write what is queued, finish the file; raise the thread's error, if any."""
        self.queue.put(None)
        self.thread.join()
        self._raise()

    def abandon(self) -> None:
        """Stop the thread without finishing the file (a run that failed or stopped)."""
        self.stopped.set()

    def _raise(self) -> None:
        if self.error is not None:
            raise self.error

    def _loop(self) -> None:
        writer = None
        try:
            while not self.stopped.is_set():
                try:
                    table = self.queue.get(timeout=0.2)
                except queue.Empty:
                    continue
                if table is None:
                    break
                if writer is None:
                    writer = pq.ParquetWriter(
                        self.path, table.schema, **parquet_options(table.schema)
                    )
                writer.write_table(table, row_group_size=max(1, table.num_rows))
        except BaseException as exc:  # handed to the main thread, which reports it
            self.error = exc
            self.stopped.set()
        finally:
            if writer is not None:
                try:
                    writer.close()
                except BaseException as exc:
                    self.error = self.error or exc
            while not self.queue.empty():  # unblock a put waiting on a failed thread
                self.queue.get_nowait()


class Assembler:
    """Streams blocks into results/rounds.parquet and results/matches.parquet as
    they are written, one row group per block, and folds each block's match totals
    into the run's statistics (mexsim/analysis/accumulate.py: memory independent of
    the number of matches).

    Every block is appended as read back from its part files, whether it was just
    played (read back by the thread that wrote it: :func:`write_and_read`) or kept by
    an interrupted run: the final files are the same bytes either way, and nothing is
    re-encoded at the end of a run. Each file is appended on a thread of its own
    (:class:`Appender`)."""

    def __init__(
        self,
        work: WorkFolder,
        run_id: str,
        names: list[str],
        players: int,
        luck: bool = False,
        variants: Sequence[str] = (BASE,),
    ) -> None:
        if work.results.exists():
            shutil.rmtree(work.results)
        work.results.mkdir()
        self.work, self.run_id, self.names, self.players = work, run_id, names, players
        self.appenders = {
            kind: Appender(work.results / f"{kind}.parquet") for kind in ("rounds", "matches")
        }
        self.fold = RunFold(players, luck, variants)
        self.matches = 0

    def add(self, index: int, block: Block | None = None) -> None:
        """Append block ``index``: ``block`` as its writer read it back
        (:func:`write_and_read`), or, for a block kept by an interrupted run, read from
        its part files here."""
        if block is None:
            block = read_block(self.work, index, self.run_id, self.names, self.players)
        self.appenders["rounds"].put(block.rounds)
        self.appenders["matches"].put(block.matches)
        self.fold.add(
            variant_of_block(index, len(self.fold.names)),
            block.totals,
            block.deals,
            block.adjusted,
            block.facts,
        )
        self.matches += len(block.totals)

    def close(self) -> RunStatistics:
        """Finish the files; the run's statistics."""
        for appender in self.appenders.values():
            appender.close()
        return self.fold.close()

    def abandon(self) -> None:
        """Stop the file threads of a run that failed or was stopped."""
        for appender in self.appenders.values():
            appender.abandon()


def block_statistics(
    matches: pa.Table, names: list[str], players: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """What the run's statistics fold of one block's matches table
    (``RunAccumulator.add``): its totals[match, player], its deals and, when the table
    has a ``luck`` column (``[analysis] luck = true``), the luck-adjusted totals
    (total − luck), else None."""
    totals, deals = block_totals(matches, names, players)
    if "luck" not in matches.column_names:
        return totals, deals, None
    return totals, deals, totals - block_totals(matches, names, players, "luck")[0]


def block_facts(rounds: pa.Table) -> MatchFacts | None:
    """The designer's facts of one block's matches (mexsim/analysis/designer.py); None
    for a table without their columns."""
    if not all(name in rounds.column_names for name in ROUND_COLUMNS):
        return None
    return match_facts({name: values_of(rounds.column(name)) for name in ROUND_COLUMNS})


def block_totals(
    table: pa.Table, names: list[str], players: int, column: str = "total"
) -> tuple[np.ndarray, np.ndarray]:
    """totals[match, player] of one block's matches table (NaN where a player of a pool
    sat a match out), and each match's deal; ``column``: another per-player column in
    the same layout (``luck``)."""
    match = values_of(table.column("match"))
    player = table.column("player").combine_chunks()
    index = np.array([names.index(v) for v in player.dictionary.to_pylist()], dtype=np.int64)
    who = index[values_of(player.indices)]
    first = int(match[0]) if len(match) else 0
    rows = int(match[-1]) - first + 1 if len(match) else 0
    totals = np.full((rows, players), np.nan)
    totals[match - first, who] = values_of(table.column(column))
    deals = np.empty(rows, dtype=np.int64)
    deals[match - first] = values_of(table.column("deal"))
    return totals, deals


def _write_durably(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    fsync_file(tmp)
    os.replace(tmp, path)
