"""`mexsim run --out URL` (issue 12 item 3): parts written straight to a shared location
by whoever plays them, committed by a manifest; the rows and row groups of a local run,
resumable, never replacing committed results."""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from mexsim.errors import Interrupted
from mexsim.running import runner
from mexsim.store import location
from mexsim.store.location_sink import LocationSink
from mexsim.tournament.config import load_config, with_overrides
from tests.tournament.runs import (
    config_text,
    ctrl_c,
    kill_a_worker_mid_run,
    one_line_error,
    run_cli,
    write_config,
)

pytest.importorskip("fsspec")

MATCHES = 400  # 7 blocks of 64 matches (the last one short)
BLOCKS = 7
KINDS = ("rounds", "matches")


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("shared")


@pytest.fixture(scope="module")
def cfg(folder: Path) -> Path:
    return write_config(folder, config_text(folder / "unused", matches=MATCHES))


@pytest.fixture(scope="module")
def local(folder: Path, cfg: Path) -> Path:
    out = folder / "local"
    result = run_cli(cfg, "--out", out, "--workers", "1", "--quiet")
    assert result.exit_code == 0, result.stderr
    return out


def url(path: Path) -> str:
    return f"file://{path}"


def manifest(out: Path) -> dict[str, Any]:
    return json.loads((out / location.MANIFEST).read_text())


def parts_table(out: Path, kind: str) -> pa.Table:
    return pa.concat_tables(pq.read_table(out / f) for f in manifest(out)["files"][kind])


def same_content(local: Path, out: Path, blocks: int = BLOCKS) -> None:
    """The same rows and row groups as the local run's files; the same tables."""
    for kind in KINDS:
        whole = pq.ParquetFile(local / f"{kind}.parquet")
        files = manifest(out)["files"][kind]
        assert len(files) == whole.metadata.num_row_groups == blocks
        for group, name in enumerate(files):
            part = pq.ParquetFile(out / name)
            assert part.metadata.num_row_groups == 1
            assert part.read().equals(whole.read_row_group(group)), (kind, group)
            stamp = part.schema_arrow.metadata  # the run, as the whole's; the block, the rows
            assert stamp[b"mexsim.block"] == str(group).encode() and b"mexsim.digest" in stamp
            assert stamp[b"mexsim.run_id"] == whole.schema_arrow.metadata[b"mexsim.run_id"]
        assert parts_table(out, kind).equals(whole.read())
    for name in ("summary.csv", "head_to_head.csv"):
        assert (out / name).read_bytes() == (local / name).read_bytes(), name


def test_a_url_out_holds_the_rows_and_row_groups_of_a_local_run(
    local: Path, cfg: Path, tmp_path: Path
) -> None:
    out = tmp_path / "shared"
    result = run_cli(cfg, "--out", url(out), "--workers", "2", "--quiet")
    assert result.exit_code == 0, result.stderr
    assert url(out) in result.stdout
    same_content(local, out)
    m = manifest(out)
    assert m["format"] == location.MANIFEST_FORMAT and m["matches"] == MATCHES
    assert not (out / location.WORK_FILE).exists()
    assert sorted(p.name for p in (out / "matches").iterdir()) == [
        Path(f).name for f in m["files"]["matches"]
    ]  # nothing but the committed parts
    run = json.loads((out / "run.json").read_text())
    assert run["matches"] == MATCHES and run["run_id"] == m["run_id"]
    # what docs/interface.md shows readers: pandas reads the folder of parts in match order
    whole = pd.read_parquet(local / "matches.parquet")
    pd.testing.assert_frame_equal(pd.read_parquet(out / "matches"), whole)
    listed = pq.read_table([str(out / f) for f in m["files"]["matches"]]).to_pandas()
    pd.testing.assert_frame_equal(listed, whole)


def test_parts_are_the_same_bytes_for_any_worker_count(cfg: Path, tmp_path: Path) -> None:
    runs = {}
    for workers in ("1", "2"):
        out = tmp_path / f"w{workers}"
        assert run_cli(cfg, "--out", url(out), "--workers", workers, "--quiet").exit_code == 0
        runs[workers] = {
            name: (out / name).read_bytes()
            for kind in KINDS
            for name in manifest(out)["files"][kind]
        }
    assert runs["1"] == runs["2"]


def test_an_interrupted_url_run_resumes_to_the_same_content(
    local: Path, cfg: Path, tmp_path: Path, monkeypatch: Any
) -> None:
    out = tmp_path / "shared"
    original = LocationSink.write_block

    def ctrl_c_at_block_three(*args: Any) -> Any:
        result = original(*args)
        if args[1] == 3:  # (sink, index, rounds, matches)
            ctrl_c()
        return result

    monkeypatch.setattr(LocationSink, "write_block", ctrl_c_at_block_three)
    config = with_overrides(load_config(cfg), out=url(out))
    with pytest.raises(Interrupted) as caught:  # a real SIGINT, in process
        runner.run(config, url(out), runner.RunOptions())
    assert caught.value.signum == signal.SIGINT
    assert "--resume" in str(caught.value) and url(out) in str(caught.value)
    # blocks in flight may still write theirs after the count: a floor, said as one
    assert "interrupted: at least " in str(caught.value)
    assert not (out / location.MANIFEST).exists() and (out / location.WORK_FILE).exists()
    monkeypatch.setattr(LocationSink, "write_block", original)

    again = run_cli(cfg, "--out", url(out), "--quiet")  # without --resume: named, kept
    assert "--resume" in one_line_error(again, 2)
    resumed = run_cli(cfg, "--out", url(out), "--workers", "2", "--quiet", "--resume")
    assert resumed.exit_code == 0, resumed.stderr
    assert "blocks already played" in resumed.stderr
    same_content(local, out)
    assert json.loads((out / "run.json").read_text())["resumed_blocks"] >= 3


@pytest.mark.processes
def test_resume_refuses_a_kept_part_of_another_run(
    cfg: Path, tmp_path: Path, monkeypatch: Any
) -> None:
    """Issue 32, case 4: a URL run's parts carry their run id, which --resume never
    checked: a part of another run was committed beside this run's. Now they are
    stamped as a folder run's parts are (run, block, digest of the rows), and a part of
    another run, moved, stripped of its stamp or changed is one line naming it, status
    4, and nothing is committed."""
    out = tmp_path / "shared"
    original = LocationSink.write_block

    def ctrl_c_at_block_two(*args: Any) -> Any:
        result = original(*args)
        if args[1] == 2:  # (sink, index, rounds, matches)
            ctrl_c()
        return result

    monkeypatch.setattr(LocationSink, "write_block", ctrl_c_at_block_two)
    with pytest.raises(Interrupted):
        runner.run(with_overrides(load_config(cfg), out=url(out)), url(out), runner.RunOptions())
    monkeypatch.setattr(LocationSink, "write_block", original)
    part = out / "matches" / "00000000.parquet"
    table = pq.read_table(part)
    stamp = table.schema.metadata
    for damage, said in [
        ({**stamp, b"mexsim.run_id": b"another"}, "another run"),
        ({**stamp, b"mexsim.block": b"1"}, "is block 1, not 0"),  # a part moved (row 5)
        ({b"mexsim.run_id": stamp[b"mexsim.run_id"]}, "carries no stamp"),
        ("rows", "was changed after it was written"),  # overwritten in place (row 2)
    ]:
        if damage == "rows":
            changed = table.set_column(0, table.field(0), pa.array([7] * table.num_rows))
            pq.write_table(changed.cast(table.schema), part)
        else:
            pq.write_table(table.replace_schema_metadata(damage), part)
        resumed = run_cli(cfg, "--out", url(out), "--workers", "1", "--quiet", "--resume")
        assert resumed.exit_code == 4, resumed.stderr
        line = resumed.stderr.splitlines()[-1]
        assert line.startswith("mexsim: error: ") and "00000000.parquet" in line
        assert said in line and "--force" in line, line
        assert not (out / location.MANIFEST).exists()


def test_committed_results_at_a_url_are_never_replaced(cfg: Path, tmp_path: Path) -> None:
    out = tmp_path / "shared"
    assert run_cli(cfg, "--out", url(out), "--matches", "64", "--quiet").exit_code == 0
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    for extra in ([], ["--force"], ["--resume", "--force"]):
        line = one_line_error(run_cli(cfg, "--out", url(out), "--quiet", *extra), 2)
        assert url(out) in line and "manifest.json" in line
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before

    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    for extra in ([], ["--force"]):
        line = one_line_error(run_cli(cfg, "--out", url(foreign), "--quiet", *extra), 2)
        assert "not written by mexsim" in line
    assert (foreign / "notes.txt").read_text() == "mine"


def test_a_url_without_fsspec_support_is_one_line(cfg: Path) -> None:
    line = one_line_error(run_cli(cfg, "--out", "nosuchscheme://bucket/r", "--quiet"), 2)
    assert "nosuchscheme://bucket/r" in line


def test_until_decided_commits_only_the_blocks_it_used(tmp_path: Path) -> None:
    players = '[[players]]\nstrategy = "greedy"\n[[players]]\nstrategy = "random"\n'
    out = tmp_path / "shared"
    cfg = write_config(tmp_path, config_text(out, matches=20_000, players=players))
    result = run_cli(
        cfg, "--out", url(out), "--until", "decided", "--margin", "0.5", "--workers", "2", "--quiet"
    )
    assert result.exit_code == 0, result.stderr
    m = manifest(out)
    assert m["matches"] < 20_000
    assert parts_table(out, "matches").num_rows == 2 * m["matches"]
    for kind in KINDS:  # the blocks played past the stop were removed before the commit
        assert sorted(p.name for p in (out / kind).iterdir()) == [
            Path(f).name for f in m["files"][kind]
        ]


pytest.importorskip("distributed")


@pytest.mark.processes
def test_a_local_cluster_writes_the_parts_of_a_threaded_run(
    local: Path, cfg: Path, tmp_path: Path
) -> None:
    out = tmp_path / "dask"
    result = run_cli(cfg, "--out", url(out), "--cluster", "local:2", "--quiet")
    assert result.exit_code == 0, result.stderr
    assert "Dask workers" in result.stderr
    same_content(local, out)


@pytest.mark.slow
@pytest.mark.processes
def test_a_worker_killed_during_a_url_run_loses_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker process killed while it plays and writes parts: the scheduler runs its
    blocks again elsewhere (a part written twice is the same bytes; a half-written one
    is a temporary file that the commit removes) and the committed location holds what
    a run on one thread writes."""
    cfg = write_config(tmp_path, config_text(tmp_path / "unused", matches=3_000))
    one = tmp_path / "one"
    assert run_cli(cfg, "--out", url(one), "--workers", "1", "--quiet").exit_code == 0
    killed = kill_a_worker_mid_run(monkeypatch)
    out = tmp_path / "dask"
    result = run_cli(cfg, "--out", url(out), "--cluster", "local:2", "--quiet")
    assert killed and result.exit_code == 0, result.stderr
    assert manifest(out) == manifest(one)
    committed = sorted(p.relative_to(one) for p in one.rglob("*"))
    assert sorted(p.relative_to(out) for p in out.rglob("*")) == committed
    for name in committed:
        if (one / name).is_file() and name.name != "run.json":  # run.json: timings
            assert (out / name).read_bytes() == (one / name).read_bytes(), name


@pytest.mark.parametrize("locked", [True, False], ids=["a-file-system", "an-object-store"])
def test_a_location_a_run_left_without_a_played_block_is_taken_over(
    cfg: Path, tmp_path: Path, monkeypatch: Any, locked: bool
) -> None:
    """A run stopped before any block was written (a strategy's fault in its first
    blocks, a kill) leaves its work file at the location, kept there as a location's
    parts are; the same command then refused: "a run that died left 0 played blocks
    there (… add --resume …, or --force …)", with nothing to resume or lose (attacking
    helper, session 27)."""
    out = tmp_path / "shared"
    for kind in KINDS:
        (out / kind).mkdir(parents=True)
    (out / "rounds" / "3.parquet").write_bytes(b"half a block: its matches part never came")
    (out / location.WORK_FILE).write_text(json.dumps({"run_id": "died", "identity": {}}))
    (out / "notes.txt").write_text("mine")  # whatever else is there stays
    if not locked:
        # an object store has no lock: its work file may be a run's still starting, not
        # a dead one's; taken over, that run later wrote over this one's committed parts
        monkeypatch.setattr("mexsim.store.location_sink.is_local", lambda fs: False)
        assert "a run that died left 0 played blocks" in one_line_error(
            run_cli(cfg, "--out", url(out), "--quiet"), 2
        )
        return
    for flags in ((), ("--force",)):  # --force too: nothing there to discard
        again = run_cli(cfg, "--out", url(out), "--quiet", *flags)
        assert again.exit_code == 0, again.stderr
        assert "the run that died there had played no block: starting afresh" in again.stderr
        assert (out / location.MANIFEST).exists() and (out / "notes.txt").read_text() == "mine"
        (out / location.MANIFEST).unlink()  # as if it had died again before its first block
        (out / location.WORK_FILE).write_text(json.dumps({"run_id": "died", "identity": {}}))
        for part in (out / "matches").iterdir():
            part.unlink()


@pytest.mark.parametrize("flags", [(), ("--resume",), ("--force",)])
def test_a_folder_run_left_without_a_played_block_is_taken_over(
    cfg: Path, tmp_path: Path, flags: tuple[str, ...]
) -> None:
    """The same for a folder run killed before its first block: its work folder held
    nothing to resume or lose, and the next run refused until --force (with --resume:
    "cannot resume: the interrupted run … had another config")."""
    from mexsim.store import results_folder
    from mexsim.store.parts import WorkFolder

    out = tmp_path / "r"
    stale = tmp_path / f".r{results_folder.WORK_SUFFIX}99999"
    WorkFolder.create(stale, "died", {"config": {"run": {"matches": 1}}})
    again = run_cli(cfg, "--out", out, "--quiet", *flags)
    assert again.exit_code == 0, again.stderr
    assert "left by a run that died before it played a block" in again.stderr
    assert not stale.exists() and (out / "run.json").exists()
