"""Durable blocks: a run's work folder, filled block by block, from which the results
files are assembled.

A run is cut into blocks of a fixed number of matches (``block_size``, a function of
the match count only). Each block, once played, is written as two small Parquet files
(``parts/NNNNNNNN.rounds.parquet`` and ``….matches.parquet``: footers written, fsynced,
then renamed into place), so a block on disk is complete or absent, whatever kills the
process. ``work.json`` records the run id the blocks belong to. The final
``rounds.parquet`` and ``matches.parquet`` are always assembled from the parts, one row
group per block, whether the run was interrupted and resumed or not: the files are the
same bytes for any worker count, block timing or resume point.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from mexsim.tournament.identity import RUN_ID_KEY
from mexsim.tournament.output import fsync_file

MIN_BLOCK = 64
MAX_BLOCK = 4096  # ~0.1-1 s of play: resume loses little, memory stays small
BLOCKS_WANTED = 256
WORK_FILE = "work.json"
COMPRESSION = "zstd"


def block_size(matches: int) -> int:
    """Matches per block (and per row group): from the match count alone."""
    return min(MAX_BLOCK, max(MIN_BLOCK, -(-matches // BLOCKS_WANTED)))


def blocks(matches: int) -> list[tuple[int, int]]:
    """(first match, count) of every block, in order."""
    size = block_size(matches)
    return [(first, min(size, matches - first)) for first in range(0, matches, size)]


def with_run_id(table: pa.Table, run_id: str) -> pa.Table:
    return table.replace_schema_metadata({RUN_ID_KEY: run_id.encode()})


class WorkFolder:
    """A run's hidden work folder beside its results folder."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.parts = path / "parts"
        self.results = path / "results"

    @classmethod
    def create(cls, path: Path, run_id: str, identity: dict[str, Any]) -> WorkFolder:
        path.mkdir()
        work = cls(path)
        try:
            work.parts.mkdir()
            _write_durably(path / WORK_FILE, json.dumps(
                {"run_id": run_id, "identity": identity}, indent=1).encode())
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
                path.unlink()
            else:
                names.add(path.name)
        return {int(name.split(".")[0]) for name in names
                if name.endswith(".matches.parquet")
                and name.replace(".matches.", ".rounds.") in names}

    def _part(self, index: int, kind: str) -> Path:
        return self.parts / f"{index:08d}.{kind}.parquet"

    def write_block(self, index: int, rounds: pa.Table, matches: pa.Table) -> None:
        # rounds first: a block counts as done once its matches part exists
        for kind, table in (("rounds", rounds), ("matches", matches)):
            final = self._part(index, kind)
            tmp = final.with_name(final.name + ".tmp")
            pq.write_table(table, tmp, compression=COMPRESSION, row_group_size=max(
                1, table.num_rows))
            fsync_file(tmp)
            os.replace(tmp, final)

    def assemble(self, count: int, run_id: str, names: list[str], players: int,
                 ) -> np.ndarray:
        """Write results/rounds.parquet and results/matches.parquet from the ``count``
        blocks' parts, one row group per block; returns totals[match, player] (NaN
        where a player of a pool sat a match out)."""
        if self.results.exists():
            shutil.rmtree(self.results)
        self.results.mkdir()
        totals_parts = []
        for kind in ("rounds", "matches"):
            writer = None
            for index in range(count):
                table = pq.read_table(self._part(index, kind))
                if writer is None:
                    writer = pq.ParquetWriter(self.results / f"{kind}.parquet",
                                              with_run_id(table, run_id).schema,
                                              compression=COMPRESSION)
                writer.write_table(with_run_id(table, run_id),
                                   row_group_size=max(1, table.num_rows))
                if kind == "matches":
                    totals_parts.append(_totals(table, names, players))
            if writer is not None:
                writer.close()
        return np.concatenate(totals_parts) if totals_parts else np.empty((0, players),
                                                                          np.float32)

    def remove(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)


def _totals(table: pa.Table, names: list[str], players: int) -> np.ndarray:
    """totals[match, player] of one block's matches table."""
    match = table.column("match").to_numpy()
    player = table.column("player").combine_chunks()
    index = np.array([names.index(v) for v in player.dictionary.to_pylist()], dtype=np.int64)
    who = index[player.indices.to_numpy()]
    first = int(match[0]) if len(match) else 0
    rows = int(match[-1]) - first + 1 if len(match) else 0
    totals = np.full((rows, players), np.nan, dtype=np.float32)
    totals[match - first, who] = table.column("total").to_numpy()
    return totals


def _write_durably(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    fsync_file(tmp)
    os.replace(tmp, path)


def iter_missing(all_blocks: list[tuple[int, int]], done: set[int]
                 ) -> Iterator[tuple[int, int, int]]:
    """(index, first, n) of the blocks still to play, in order."""
    for index, (first, n) in enumerate(all_blocks):
        if index not in done:
            yield index, first, n
