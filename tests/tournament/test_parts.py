"""The results files' appender threads (mexsim/store/parts.py): the same bytes as
appending on the calling thread, and an error of the thread reaches the caller."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from mexsim.store.parts import Appender, blocks, parquet_options


@pytest.mark.parametrize(
    ("matches", "count", "size"),
    [
        (1, 1, 1),
        (200, 4, 64),
        (2_048, 32, 64),
        (4_000, 32, 125),  # a small run: few blocks, each's fixed cost spread
        (16_000, 125, 128),
        (40_000, 255, 157),
        (1_000_000, 256, 3_907),
        (2_000_000, 489, 4_096),
    ],
)
def test_a_run_is_cut_into_blocks_by_its_match_count(matches: int, count: int, size: int) -> None:
    cut = blocks(matches)
    assert len(cut) == count and cut[0] == (0, size)
    assert [first for first, _ in cut] == list(range(0, matches, size))
    assert sum(n for _, n in cut) == matches


def tables(count: int) -> list[pa.Table]:
    rng = np.random.default_rng(7)
    return [
        pa.table(
            {
                "match": np.arange(i * 100, i * 100 + 100 + i, dtype=np.int64),
                "total": rng.integers(0, 300, 100 + i).astype(np.int32),
            }
        )
        for i in range(count)
    ]


def test_an_appender_writes_the_bytes_of_a_writer_on_the_calling_thread(tmp_path: Path) -> None:
    blocks = tables(12)  # more than the queue holds
    direct = tmp_path / "direct.parquet"
    with pq.ParquetWriter(direct, blocks[0].schema, **parquet_options(blocks[0].schema)) as writer:
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


def test_resume_keeps_blocks_past_a_gap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks are written by the threads that play them, so a dead run's blocks need
    not be the first ones: --resume reads every block on disk and plays only the
    missing ones, and the files are those of an uninterrupted run."""
    import filecmp

    cfg, out, work = _stopped_at_block_five(tmp_path, monkeypatch)
    # blocks 0-4 were written before the Ctrl-C (_stopped_at_block_five), block 5 never
    assert work.done() == {0, 1, 2, 3, 4}
    for kind in ("rounds", "matches"):  # a gap: block 1 missing, blocks after it kept
        work.part(1, kind).unlink()
    kept = len(work.done())
    missing = set(range(7)) - work.done()
    assert 1 in missing and len(missing) < 7 - 1
    resumed, played = _resumed_counting(cfg, out, monkeypatch)
    assert resumed.exit_code == 0, resumed.stderr
    assert f"{kept:,} of 7 blocks already played" in resumed.stderr
    assert played == missing  # the blocks past the gap were read, not played again
    for name in ("rounds.parquet", "matches.parquet", "summary.csv"):
        assert filecmp.cmp(tmp_path / "whole" / name, out / name, shallow=False), name


def test_a_sealed_work_folder_takes_no_more_blocks(tmp_path: Path) -> None:
    """A stopped run seals its work folder before it counts the blocks kept: a play
    thread that finishes its block afterwards (they are abandoned, not joined) adds
    nothing, so the count it prints is the one --resume finds."""
    from mexsim.store.parts import WorkFolder

    work = WorkFolder.create(tmp_path / ".w.tmp-1", "run", {})
    table = pa.table({"x": [1, 2]})
    work.write_block(0, table, table)
    assert work.seal() == {0}
    work.write_block(1, table, table)
    assert work.done() == {0}
    assert sorted(p.name for p in work.parts.iterdir()) == [
        "00000000.matches.arrow",
        "00000000.rounds.arrow",
    ]


def test_a_work_folder_of_parquet_parts_is_resumed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run interrupted by a mexsim that wrote its parts as Parquet (before they were
    Arrow IPC files) is resumed with its blocks kept: the stop message had said
    "N finished blocks kept ... --resume", and --resume found none and played them all
    again without a word (and without --resume the refusal counted 0 blocks)."""
    import filecmp

    from mexsim.store.parts import PART_COMPRESSION
    from tests.tournament.runs import run_cli

    cfg, out, work = _stopped_at_block_five(tmp_path, monkeypatch)
    kept = work.done()
    assert kept == {0, 1, 2, 3, 4}  # (_stopped_at_block_five)
    for index in kept:  # as mexsim wrote them before: a Parquet file, one row group
        for kind in ("rounds", "matches"):
            arrow = work.part(index, kind)
            table = pa.ipc.open_file(pa.OSFile(str(arrow))).read_all()
            pq.write_table(
                table,
                arrow.with_suffix(".parquet"),
                compression=PART_COMPRESSION,
                row_group_size=table.num_rows,
            )
            arrow.unlink()
    assert work.done() == kept

    refused = run_cli(cfg, "--out", out, "--workers", "1", "--quiet")
    assert refused.exit_code != 0
    assert f"left {len(kept):,} played blocks" in refused.stderr
    resumed, played = _resumed_counting(cfg, out, monkeypatch)
    assert resumed.exit_code == 0, resumed.stderr
    assert f"{len(kept):,} of 7 blocks already played" in resumed.stderr
    assert played == set(range(7)) - kept
    for name in ("rounds.parquet", "matches.parquet", "summary.csv"):
        assert filecmp.cmp(tmp_path / "whole" / name, out / name, shallow=False), name
    assert not list(tmp_path.glob(".res.tmp-*"))


@pytest.mark.parametrize("suffix", ["arrow", "parquet"])
def test_a_damaged_part_is_one_line_naming_it(tmp_path: Path, suffix: str) -> None:
    """A part file damaged on disk (truncated, overwritten) is refused by --resume in
    one line that names it and says what to do, not a pyarrow traceback."""
    from mexsim.errors import OutputError
    from mexsim.store.parts import WorkFolder, read_block, stamped

    work = WorkFolder.create(tmp_path / ".res.tmp-1", "run", {})
    table = stamped(pa.table({"match": np.arange(4, dtype=np.int64)}), "run", 0)
    work.write_block(0, table, table)
    damaged = work.part(0, "matches")
    if suffix == "parquet":  # as an older mexsim wrote it
        damaged = damaged.rename(damaged.with_suffix(".parquet"))
    damaged.write_bytes(b"PAR1 not a part")
    with pytest.raises(OutputError) as caught:
        read_block(work, 0, "run", ["a"], 1)
    message = str(caught.value)
    assert str(damaged) in message and "damaged" in message and "--force" in message
    assert "\n" not in message


def test_a_half_written_part_removed_meanwhile_does_not_hide_the_kept_blocks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Counting the blocks kept removes half-written parts while a sealed folder's play
    threads may remove theirs: one gone in between must not fail the count, which
    once read as "no results written" and removed the work folder with its blocks."""
    from mexsim.store.parts import WorkFolder

    work = WorkFolder.create(tmp_path / ".w.tmp-1", "run", {})
    table = pa.table({"x": [1, 2]})
    work.write_block(0, table, table)
    gone = work.parts / "00000001.rounds.arrow.tmp"  # listed, then removed by its thread
    real = Path.iterdir

    def listing(self: Path):
        yield from real(self)
        if self == work.parts:
            yield gone

    monkeypatch.setattr(Path, "iterdir", listing)
    assert work.seal() == {0}


def _stopped_at_block_five(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A 400-match run (7 blocks of 64) written whole to ``whole``, then the same run
    to ``res`` stopped by a real Ctrl-C while block 5 plays (never written), once blocks
    0-4 are on disk: (config path, out, its work folder)."""
    import time

    from mexsim.errors import Interrupted
    from mexsim.running import preparation, runner
    from mexsim.store.parts import WorkFolder
    from mexsim.tournament.config import load_config, with_overrides
    from tests.tournament.runs import config_text, ctrl_c_once_written, run_cli, write_config

    cfg = write_config(tmp_path, config_text(tmp_path / "whole", matches=400))
    assert run_cli(cfg, "--workers", "1", "--quiet").exit_code == 0
    original = preparation.play_block

    def ctrl_c_at_block_five(config: object, players: object, first: int, n: int) -> object:
        if first == 5 * 64:
            ctrl_c_once_written(tmp_path, 5)  # blocks 0-4 on disk, then Ctrl-C
            time.sleep(0.5)  # the main thread stops meanwhile
            raise RuntimeError("stopped")  # this block is never written
        return original(config, players, first, n)

    monkeypatch.setattr(preparation, "play_block", ctrl_c_at_block_five)
    out = tmp_path / "res"
    with pytest.raises(Interrupted):
        runner.run(with_overrides(load_config(cfg), out=str(out)), out, runner.RunOptions())
    monkeypatch.setattr(preparation, "play_block", original)
    return cfg, out, WorkFolder(next(tmp_path.glob(".res.tmp-*")))


def _resumed_counting(cfg: Path, out: Path, monkeypatch: pytest.MonkeyPatch):
    """`mexsim run CFG --out OUT --resume` on one worker: (its result, the blocks it
    played)."""
    from mexsim.running import preparation
    from tests.tournament.runs import run_cli

    original = preparation.play_block
    played: set[int] = set()

    def counting(config: object, players: object, first: int, n: int) -> object:
        if n:  # (0, 0) loads the kernels
            played.add(first // 64)
        return original(config, players, first, n)

    monkeypatch.setattr(preparation, "play_block", counting)
    return run_cli(cfg, "--out", out, "--workers", "1", "--quiet", "--resume"), played


def _stamped_work(tmp_path: Path, run_id: str = "run", name: str = ".res.tmp-1"):
    """A work folder holding blocks 0 and 1 as the runner writes them (stamped)."""
    from mexsim.store.parts import WorkFolder, write_and_read

    work = WorkFolder.create(tmp_path / name, run_id, {})
    for index in (0, 1):
        rounds = pa.table({"match": np.arange(4 * index, 4 * index + 4, dtype=np.int64)})
        matches = pa.table(
            {
                "match": np.repeat(np.arange(4 * index, 4 * index + 4, dtype=np.int64), 2),
                "player": pa.array(["a", "b"] * 4).dictionary_encode(),
                "total": np.arange(8, dtype=np.int32) + index,
                "win": np.tile([1.0, 0.0], 4),
                "deal": np.repeat(np.arange(4 * index, 4 * index + 4, dtype=np.int64), 2),
            }
        )
        write_and_read(work, index, rounds, matches, run_id, ["a", "b"], 2)
    return work


def _refused(work, index: int, run_id: str = "run") -> str:
    from mexsim.errors import OutputError
    from mexsim.store.parts import read_block

    with pytest.raises(OutputError) as caught:
        read_block(work, index, run_id, ["a", "b"], 2)
    message = str(caught.value)
    assert "\n" not in message and "--force" in message
    return message


def test_a_part_changed_in_place_is_refused_naming_it(tmp_path: Path) -> None:
    """Issue 32, case 2: a part overwritten in place, same size, stamp kept: --resume
    took it and committed other results; now the digest of its rows refuses it."""
    import pyarrow.ipc as ipc

    work = _stamped_work(tmp_path)
    path = work.part(1, "matches")
    with pa.OSFile(str(path)) as source:
        table = ipc.open_file(source).read_all()
    totals = table.column("total").to_numpy().copy()
    totals[0] += 1  # one total changed, the stamp kept
    changed = table.set_column(table.schema.get_field_index("total"), "total", pa.array(totals))
    with pa.OSFile(str(path), "wb") as sink, ipc.new_file(sink, changed.schema) as writer:
        writer.write_table(changed)
    message = _refused(work, 1)
    assert str(path) in message and "changed after it was written" in message


def test_a_part_of_another_run_is_refused_naming_it(tmp_path: Path) -> None:
    """Issue 32, case 3: parts copied from another seed's run were taken (the run id was
    stamped on when read); now a part carries its run's id and is checked."""
    ours = _stamped_work(tmp_path, "ours", ".res.tmp-1")
    theirs = _stamped_work(tmp_path, "theirs", ".res.tmp-2")
    for kind in ("rounds", "matches"):
        theirs.part(1, kind).replace(ours.part(1, kind))
    message = _refused(ours, 1, "ours")
    assert str(ours.part(1, "rounds")) in message and "another run" in message


def test_a_part_moved_to_another_block_is_refused_naming_it(tmp_path: Path) -> None:
    """Issue 32, case 5: block 41's part copied as block 40 was an internal error (exit
    70); now the block a part was written as is checked: one line, exit 4."""
    work = _stamped_work(tmp_path)
    for kind in ("rounds", "matches"):
        work.part(1, kind).replace(work.part(0, kind))
    message = _refused(work, 0)
    assert str(work.part(0, "rounds")) in message and "is block 1, not 0" in message


@pytest.mark.slow
def test_resume_refuses_a_moved_part_with_exit_4(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same through `mexsim run --resume`: one line naming the part, status 4."""
    cfg, out, work = _stopped_at_block_five(tmp_path, monkeypatch)
    for kind in ("rounds", "matches"):
        work.part(1, kind).replace(work.part(0, kind))
    result, _ = _resumed_counting(cfg, out, monkeypatch)
    assert result.exit_code == 4, result.stderr
    note, line = result.stderr.splitlines()  # "resuming ...", then the one error line
    assert note.startswith("mexsim: resuming ") and line.startswith("mexsim: error: ")
    assert str(work.part(0, "rounds")) in line and "is block 1, not 0" in line
    assert work.path.exists()  # the user's to delete: never removed for them
