"""decisions.parquet: each block's decisions part, written durably by the thread that
played the block, then joined in match order into the results folder's file.

A part holds its block's rows as row groups of a bounded size (the walk's chunks,
mexsim/tournament/decision_rows.py), so neither a part nor the file is ever held whole in
memory; the same config gives the same parts and the same file, whatever the workers."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from mexsim.store.parts import WorkFolder
from mexsim.store.results_folder import fsync_file

FILE = "decisions.parquet"
KIND = "decisions"
COMPRESSION = "zstd"


def part_path(work: WorkFolder, index: int) -> Path:
    return work.parts / f"{index:08d}.{KIND}.parquet"


def write_part(work: WorkFolder, index: int, tables: Iterable[pa.Table]) -> None:
    """Block ``index``'s rows, a row group a table, durably under its final name (before
    the block's own parts, which make it count as played)."""
    final = part_path(work, index)
    tmp = final.with_name(final.name + ".tmp")
    writer: pq.ParquetWriter | None = None
    try:
        for table in tables:
            if writer is None:
                writer = pq.ParquetWriter(tmp, table.schema, compression=COMPRESSION)
            writer.write_table(table, row_group_size=max(1, table.num_rows))
    finally:
        if writer is not None:
            writer.close()
    if writer is None:  # no rows: an empty file of no schema is never written
        return
    fsync_file(tmp)
    os.replace(tmp, final)


def join_parts(work: WorkFolder, blocks: int, into: Path) -> int:
    """decisions.parquet in ``into`` from the parts of blocks 0 … blocks-1, row group by
    row group; returns the rows written."""
    writer: pq.ParquetWriter | None = None
    rows = 0
    try:
        for index in range(blocks):
            path = part_path(work, index)
            if not path.exists():  # a block whose recorded players made no decision
                continue
            part = pq.ParquetFile(path)
            for g in range(part.num_row_groups):
                table = part.read_row_group(g)
                if writer is None:
                    writer = pq.ParquetWriter(into / FILE, table.schema, compression=COMPRESSION)
                writer.write_table(table, row_group_size=max(1, table.num_rows))
                rows += table.num_rows
    finally:
        if writer is not None:
            writer.close()
    return rows
