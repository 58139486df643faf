"""`mexsim report` on a results directory in the parts form (`mexsim run --out
file:///DIR`: manifest.json, rounds/ and matches/ parts): the tables and plots of the
single-file form of the same run, streamed part by part; a run in progress, a missing
part, a part of another run and a remote URL refused in one line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from mexsim.analysis import provenance, results_stream
from mexsim.analysis.comparison import analyze_directory
from mexsim.analysis.plots import PLOT_FILES
from mexsim.cli import app
from mexsim.store import location
from mexsim.tournament.identity import RUN_ID_KEY
from tests.tournament.runs import (
    assert_no_crash,
    config_text,
    one_line_error,
    run_cli,
    write_config,
)

pytest.importorskip("fsspec")

runner = CliRunner()
MATCHES = 200  # 4 blocks of 64 matches (the last one short): 4 parts of each kind


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(single files, parts) of one config and seed."""
    folder = tmp_path_factory.mktemp("report-parts")
    cfg = write_config(folder, config_text(folder / "unused", matches=MATCHES))
    single, parts = folder / "single", folder / "parts"
    assert run_cli(cfg, "--out", single, "--workers", "1", "--quiet").exit_code == 0
    result = run_cli(cfg, "--out", f"file://{parts}", "--workers", "2", "--quiet")
    assert result.exit_code == 0, result.stderr
    assert len(json.loads((parts / "manifest.json").read_text())["files"]["matches"]) == 4
    return single, parts


def report(argument: str | Path) -> tuple[str, str]:
    """(the tables printed, the lines naming the plots written) of a report that
    succeeded."""
    result = runner.invoke(app, ["report", str(argument)])
    assert_no_crash(result)
    assert result.exit_code == 0, (result.stdout, result.stderr)
    tables, _, wrote = result.stdout.partition("\nwrote ")
    return tables, "wrote " + wrote


def files(folder: Path) -> dict[Path, bytes]:
    return {p.relative_to(folder): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_the_manifest_names_are_those_the_runner_writes() -> None:
    assert (provenance.MANIFEST, provenance.WORK_FILE, provenance.MANIFEST_FORMAT) == (
        location.MANIFEST,
        location.WORK_FILE,
        location.MANIFEST_FORMAT,
    )


@pytest.mark.slow
def test_report_on_parts_equals_report_on_the_single_files(
    runs: tuple[Path, Path], tmp_path: Path
) -> None:
    single, parts = runs
    # folders of one name: a plot is headed by its run's folder name (issue 35)
    one, many = tmp_path / "single" / "res", tmp_path / "parts" / "res"
    shutil.copytree(single, one)
    shutil.copytree(parts, many)
    before = files(many)
    tables_one, _ = report(one)
    tables_many, wrote_many = report(f"file://{many}")  # the URL run --out was given
    assert tables_many == tables_one
    assert report(many)[0] == tables_one  # and the plain path
    # the same plots, beside the results, as for the single files; nothing else touched
    after = files(many)
    assert {p: b for p, b in after.items() if p in before} == before
    assert sorted(map(str, set(after) - set(before))) == sorted(PLOT_FILES)
    for name in PLOT_FILES:
        assert str(many / name) in wrote_many
        assert (many / name).read_bytes() == (one / name).read_bytes(), name
    # the frames and the CSV bytes they give
    a, digest_a = analyze_directory(one)
    b, digest_b = analyze_directory(many)
    for name in ("summary", "pairs", "head_to_head"):
        pd.testing.assert_frame_equal(getattr(b, name), getattr(a, name), check_exact=True)
    assert (digest_b.total_counts == digest_a.total_counts).all()
    old = results_stream.BATCH_ROWS
    results_stream.BATCH_ROWS = 7  # matches straddle batches, and parts: summed in
    try:  # another order, the same up to rounding
        c, digest_c = analyze_directory(many)
    finally:
        results_stream.BATCH_ROWS = old
    for name in ("summary", "pairs", "head_to_head"):
        pd.testing.assert_frame_equal(
            getattr(c, name), getattr(a, name), check_exact=False, rtol=1e-9
        )
    assert (digest_c.total_counts == digest_a.total_counts).all()
    a.write(tmp_path / "single")
    b.write(tmp_path / "parts")
    for name in ("summary.csv", "comparisons.csv", "head_to_head.csv"):
        assert (many / name).read_bytes() == (one / name).read_bytes(), name


def test_a_run_in_progress_is_refused(runs: tuple[Path, Path], tmp_path: Path) -> None:
    _, parts = runs
    folder = tmp_path / "in-progress"
    shutil.copytree(parts, folder)
    manifest = json.loads((folder / "manifest.json").read_text())
    (folder / "manifest.json").unlink()
    (folder / "work.json").write_text(json.dumps({"run_id": manifest["run_id"]}))
    line = one_line_error(runner.invoke(app, ["report", str(folder)]), 2)
    assert "work.json" in line and "--resume" in line
    assert not list(folder.glob("*.png"))


def test_a_missing_part_is_refused(runs: tuple[Path, Path], tmp_path: Path) -> None:
    _, parts = runs
    folder = tmp_path / "missing"
    shutil.copytree(parts, folder)
    (folder / "rounds" / "00000002.parquet").unlink()
    line = one_line_error(runner.invoke(app, ["report", f"file://{folder}"]), 2)
    assert "rounds/00000002.parquet" in line and "missing" in line
    assert not list(folder.glob("*.png"))


def test_a_part_of_another_run_is_refused(runs: tuple[Path, Path], tmp_path: Path) -> None:
    _, parts = runs
    folder = tmp_path / "mixed"
    shutil.copytree(parts, folder)
    path = folder / "matches" / "00000001.parquet"
    table = pq.read_table(path)
    pq.write_table(
        table.replace_schema_metadata({**table.schema.metadata, RUN_ID_KEY: b"0" * 64}), path
    )
    line = one_line_error(runner.invoke(app, ["report", str(folder)]), 2)
    assert "different runs" in line and "matches/00000001.parquet" in line
    assert not list(folder.glob("*.png"))


@pytest.mark.parametrize(
    "manifest",
    [
        '{"format": "mexsim parts", "files": {"rounds": ["../x.parquet"], "matches": []}}',
        "not json",
    ],
)
def test_a_broken_manifest_is_refused(
    runs: tuple[Path, Path], tmp_path: Path, manifest: str
) -> None:
    _, parts = runs
    folder = tmp_path / "broken"
    shutil.copytree(parts, folder)
    (folder / "manifest.json").write_text(manifest)
    assert "manifest.json" in one_line_error(runner.invoke(app, ["report", str(folder)]), 2)


def test_a_remote_url_is_refused_saying_what_to_do() -> None:
    line = one_line_error(runner.invoke(app, ["report", "s3://bucket/runs/big"]), 2)
    assert "s3://bucket/runs/big" in line and "local folder" in line
