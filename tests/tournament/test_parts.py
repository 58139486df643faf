"""The results files' appender threads (mexsim/tournament/parts.py): the same bytes as
appending on the calling thread, and an error of the thread reaches the caller."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from mexsim.tournament.parts import COMPRESSION, Appender


def tables(count: int) -> list[pa.Table]:
    rng = np.random.default_rng(7)
    return [pa.table({"match": np.arange(i * 100, i * 100 + 100 + i, dtype=np.int64),
                      "total": rng.integers(0, 300, 100 + i).astype(np.int32)})
            for i in range(count)]


def test_an_appender_writes_the_bytes_of_a_writer_on_the_calling_thread(tmp_path: Path
                                                                        ) -> None:
    blocks = tables(12)  # more than the queue holds
    direct = tmp_path / "direct.parquet"
    with pq.ParquetWriter(direct, blocks[0].schema, compression=COMPRESSION) as writer:
        for table in blocks:
            writer.write_table(table, row_group_size=table.num_rows)
    appender = Appender(tmp_path / "threaded.parquet")
    for table in blocks:
        appender.put(table)
    appender.close()
    assert (tmp_path / "threaded.parquet").read_bytes() == direct.read_bytes()
    assert pq.ParquetFile(direct).metadata.num_row_groups == len(blocks)


def test_an_error_of_the_thread_reaches_the_caller(tmp_path: Path) -> None:
    appender = Appender(tmp_path / "missing" / "results.parquet")  # no such folder
    with pytest.raises(OSError):
        for table in tables(12):  # the thread fails at once: a put or the close says so
            appender.put(table)
        appender.close()
    assert not appender.thread.is_alive()


def test_an_abandoned_appender_stops(tmp_path: Path) -> None:
    appender = Appender(tmp_path / "results.parquet")
    appender.put(tables(1)[0])
    appender.abandon()
    appender.thread.join(timeout=5)
    assert not appender.thread.is_alive()
