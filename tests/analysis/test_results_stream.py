"""`mexsim report` streams a results directory in memory that does not grow with it
(issue 12): measured by counting the bytes pyarrow's memory pool holds at each batch,
not by timing or by the RSS of a big run."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from mexsim.analysis import results_stream

PLAYERS, ROUNDS = 4, 13
MATCHES_PER_GROUP = 100  # a row group per block of matches, as mexsim writes them


def _write_results(folder: Path, matches: int) -> int:
    """A results directory of ``matches`` matches with random penalties
    (incompressible: the file's bytes are its data); returns rounds.parquet's bytes."""
    folder.mkdir()
    rng = np.random.default_rng(matches)

    def names(rows: int) -> pa.DictionaryArray:  # as mexsim writes them
        return pa.DictionaryArray.from_arrays(
            np.arange(rows) % PLAYERS, [f"p{i}" for i in range(PLAYERS)]
        )

    rows = matches * PLAYERS
    pq.write_table(
        pa.table(
            {
                "match": np.arange(rows) // PLAYERS,
                "player": names(rows),
                "strategy": np.full(rows, "s"),
                "total": rng.integers(0, 300, rows),
            }
        ),
        folder / "matches.parquet",
        row_group_size=MATCHES_PER_GROUP * PLAYERS,
    )
    per_match = ROUNDS * PLAYERS
    rows = matches * per_match
    step = np.arange(rows) % per_match // PLAYERS
    pq.write_table(
        pa.table(
            {
                "match": np.arange(rows) // per_match,
                "round": step,
                "engine": 12 - step,
                "player": names(rows),
                "penalty": rng.normal(20.0, 5.0, rows),
            }
        ),
        folder / "rounds.parquet",
        compression="zstd",
        row_group_size=MATCHES_PER_GROUP * per_match,
    )
    return (folder / "rounds.parquet").stat().st_size


def _held_while_reading(folder: Path, monkeypatch) -> list[int]:
    """The bytes pyarrow's pool holds at every batch of every pass of read_results."""
    base = pa.total_allocated_bytes()
    held: list[int] = []

    def sampled(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            held.append(pa.total_allocated_bytes() - base)
            yield batch

    with monkeypatch.context() as patch:
        names, digest = results_stream._names_in_order, results_stream._digest
        patch.setattr(results_stream, "_names_in_order", lambda batches: names(sampled(batches)))
        patch.setattr(
            results_stream,
            "_digest",
            lambda players, m, r, luck=False, variants=("base",): digest(
                players, sampled(m), sampled(r), luck, variants
            ),
        )
        patch.setattr(results_stream, "BATCH_ROWS", 1 << 13)
        result = results_stream.read_results(folder)
    assert result.round_penalty.n.sum() > 0
    return held


def test_report_holds_the_same_for_four_times_the_row_groups(tmp_path, monkeypatch) -> None:
    """50 and 200 row groups: pyarrow holds as much at the larger as at the smaller.
    Its default pre-buffering kept every compressed byte read until the file was
    closed, so `mexsim report` grew with the matches (853 MB at ten million)."""
    small = _write_results(tmp_path / "small", 50 * MATCHES_PER_GROUP)
    large = _write_results(tmp_path / "large", 200 * MATCHES_PER_GROUP)
    assert large > 4_000_000  # 8 bytes of penalty a row, a million rows
    held_small = _held_while_reading(tmp_path / "small", monkeypatch)
    held_large = _held_while_reading(tmp_path / "large", monkeypatch)
    assert len(held_large) > 4 * len(held_small) - 8  # every batch of every pass sampled
    assert max(held_large) < max(held_small) * 1.25 + 100_000, (held_small, held_large)
    # a batch of the rounds columns the report reads (the designer facts' too): a sixth
    assert max(held_large) < large // 6, f"{max(held_large):,} bytes held of {large:,}"
    assert small < large  # the files did grow with the matches


def test_stream_batches_holds_a_row_group_and_a_batch(tmp_path, monkeypatch) -> None:
    """A file of 64 row groups of 8,192 incompressible doubles (4 MB) streamed in
    batches of 8,192 rows: what pyarrow holds is a few row groups' worth, not the file."""
    path = tmp_path / "x.parquet"
    values = np.random.default_rng(64).normal(size=64 * 8192)
    pq.write_table(pa.table({"x": values}), path, row_group_size=8192, compression="zstd")
    monkeypatch.setattr(results_stream, "BATCH_ROWS", 8192)
    base = pa.total_allocated_bytes()
    held, rows = [], 0
    for batch in results_stream.stream_batches([path], ["x", "absent"]):
        held.append(pa.total_allocated_bytes() - base)
        rows += batch.num_rows
    assert rows == len(values)
    assert max(held) < 8 * 8192 * 8, f"{max(held):,} bytes held of {path.stat().st_size:,}"
