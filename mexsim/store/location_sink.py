"""A shared location (``--out URL``) as a run's sink (mexsim/store/sink.py): whoever
plays a block writes its parts there and hands back only its totals, which are folded
here in match order; nothing is committed until the manifest is written
(mexsim/store/location.py)."""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from mexsim.analysis.accumulate import RunAccumulator, RunStatistics
from mexsim.analysis.designer import BASE, MatchFacts
from mexsim.analysis.run_fold import RunFold
from mexsim.store.location import Location, is_local, open_location, write_part
from mexsim.store.parts import block_facts, block_statistics, stamped, variant_of_block
from mexsim.store.results_folder import OutputLock
from mexsim.store.sink import Note

# a block's totals[match, player], deals, luck-adjusted totals (None without luck) and
# designer facts: what the client's statistics fold (RunFold.add)
Totals = tuple[np.ndarray, np.ndarray, np.ndarray | None, MatchFacts | None]


def write_location_block(
    url: str, run_id: str, index: int, rounds: pa.Table, matches: pa.Table, names: list[str]
) -> Totals:
    """Block ``index``'s two parts written to ``url``; what the client's statistics fold
    (``Totals``)."""
    fs, root = open_location(url)
    # stamped as a folder run's parts are: --resume checks the run, the block and the rows
    write_part(fs, root, "rounds", index, stamped(rounds, run_id, index))
    write_part(fs, root, "matches", index, stamped(matches, run_id, index))
    return (*block_statistics(matches, names, len(names)), block_facts(rounds))


class LocationSink:
    """The shared location ``url`` (see the module docstring)."""

    remote_writes = True
    # blocks in flight may still be writing at a stop: let them end, so that commit
    # removes every part beyond it
    drain_on_stop = True

    def __init__(
        self,
        url: str,
        names: list[str],
        players: int,
        luck: bool,
        variants: Sequence[str] = (BASE,),
    ) -> None:
        self.target = url
        self.names, self.players = names, players
        self.location = Location(url)
        # one run at a time, as for a local folder; an object store has no such lock
        self.lock = OutputLock(Path(self.location.root)) if is_local(self.location.fs) else None
        self.run_id = ""
        self.kept: set[int] = set()
        self.blocks_in = 0
        self.fold = RunFold(players, luck, variants)
        self.matches = 0

    def reserve(self) -> None:
        if self.lock is not None:
            Path(self.location.root).parent.mkdir(parents=True, exist_ok=True)
            self.lock.acquire()

    def check(
        self, run_id: str, identity: dict[str, Any], resume: bool, force: bool, note: Note
    ) -> None:
        self.run_id = run_id
        self.kept = self.location.prepare(
            run_id, identity, resume, force, note, alone=self.lock is not None
        )

    def open(self, run_id: str, identity: dict[str, Any], total: int, note: Note) -> set[int]:
        return self.kept

    @property
    def statistics(self) -> RunAccumulator:
        return self.fold.baseline

    def write_block(self, index: int, rounds: pa.Table, matches: pa.Table) -> Totals:
        return write_location_block(self.target, self.run_id, index, rounds, matches, self.names)

    def take(self, index: int, written: Totals | None) -> None:
        if written is None:  # a kept block: its totals (and luck) from its matches part
            written = self.location.kept_totals(index, self.run_id, self.names, self.players)
        self.fold.add(variant_of_block(index, len(self.fold.names)), *written)
        self.blocks_in = index + 1

    def close(self) -> RunStatistics:
        statistics = self.fold.close()
        self.matches = statistics.matches
        return statistics

    def publish(self, fill: Callable[[Path], None], finishing: Callable[[], None]) -> None:
        with tempfile.TemporaryDirectory(prefix="mexsim-tables-") as folder:
            tables = Path(folder)
            fill(tables)
            finishing()
            self.location.commit(self.blocks_in, self.run_id, self.matches, tables)

    def stopped(self, what: str) -> str:
        """ "At least": the blocks in flight (a cluster's tasks, abandoned threads) may
        still write theirs after the count, and --resume takes them too (a work folder is
        sealed first: parts.WorkFolder.seal; a remote worker's task cannot be)."""
        try:
            kept = len(self.location.done())
        except OSError:
            kept = 0
        if kept == 0:
            return f"{what}: no results written"
        return (
            f"{what}: at least {kept:,} finished blocks kept at {self.target}; rerun the "
            "same command with --resume to continue"
        )

    def failed(self, exc: OSError) -> str:
        return self.stopped(f"{self.target}: {exc.strerror or exc}")

    def discard(self) -> None:
        pass  # a shared location's parts stay for the user to see (never removed unasked)

    def release(self) -> None:
        if self.lock is not None:
            self.lock.release()
