"""Issue 11, "never lose a result": one test per case of its table, and --resume.

Kill and interrupt tests send real signals to real `mexsim run` processes; the others
run the command in-process. Runs are small (fast strategies) and share numba's cache.
"""

from __future__ import annotations

import filecmp
import json
import re
import resource
import shutil
import signal
import time
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from mexsim.cli import app
from mexsim.running import runner as runner_module
from mexsim.running.run_record import TIMING_FIELDS
from mexsim.store.parts import Assembler, blocks
from mexsim.store.results_folder import MARKER
from tests.tournament.runs import (
    ROOT,
    cli_runner,
    config_text,
    ctrl_c,
    finish,
    interrupt,
    mexsim,
    one_line_error,
    parts_done,
    run_cli,
    temp_folders,
    wait_for_parts,
    wait_until,
    write_config,
)

SPIN = ROOT / "tests" / "fixtures" / "strategies_spin"
BIG = 20_000  # matches of a run that is killed on the way
BLOCKS = len(blocks(BIG))  # 157 blocks of 128 matches
RESULT_FILES = ("rounds.parquet", "matches.parquet", "summary.csv", "head_to_head.csv", MARKER)


def same_results(a: Path, b: Path) -> None:
    """Every file byte for byte (cmp), and run.json apart from its timing fields."""
    for name in RESULT_FILES:
        assert filecmp.cmp(a / name, b / name, shallow=False), name
    ja, jb = (json.loads((d / "run.json").read_text()) for d in (a, b))
    for key in TIMING_FIELDS:
        ja.pop(key), jb.pop(key)
    ja["config"]["run"].pop("out"), jb["config"]["run"].pop("out")
    assert ja == jb


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("safety")


@pytest.fixture(scope="module")
def cfg(folder: Path) -> Path:
    return write_config(folder, config_text(folder / "unused", matches=BIG))


@pytest.fixture(scope="module")
def reference(folder: Path, cfg: Path) -> Path:
    """An uninterrupted run of BIG matches (2 workers), to compare others with."""
    out = folder / "reference"
    result = run_cli(cfg, "--out", out, "--workers", "2", "--quiet")
    assert result.exit_code == 0, result.stderr
    return out


# --- row 8: the same bytes for any worker count --------------------------------------


@pytest.mark.slow
def test_files_are_byte_identical_for_any_worker_count(
    reference: Path, folder: Path, cfg: Path
) -> None:
    out = folder / "w1"
    assert run_cli(cfg, "--out", out, "--workers", "1", "--quiet").exit_code == 0
    same_results(reference, out)
    groups = pq.ParquetFile(out / "matches.parquet").metadata.num_row_groups
    assert groups == BLOCKS  # one per block, whatever the timing


# --- rows 2 and 7: killed runs keep their blocks; --resume gives the same bytes -------


@pytest.mark.slow
@pytest.mark.processes
@pytest.mark.parametrize(
    ("signum", "status", "after"),
    [
        (signal.SIGKILL, -signal.SIGKILL, 1),
        (signal.SIGKILL, -signal.SIGKILL, 150),
        (signal.SIGTERM, 143, 20),
        (signal.SIGHUP, 129, 20),
        (signal.SIGINT, 130, 20),
    ],
)
def test_a_killed_run_resumes_to_identical_files(
    reference: Path, cfg: Path, tmp_path: Path, signum: int, status: int, after: int
) -> None:
    out = tmp_path / "res"
    proc = mexsim("run", cfg, "--out", out, "--workers", "2", "--quiet")
    wait_for_parts(proc, tmp_path, after)
    code, stdout, stderr, took = interrupt(proc, signum)
    assert took < 2.0
    assert code == status, stderr
    assert "Traceback" not in stdout + stderr
    if signum != signal.SIGKILL:
        assert stderr.splitlines()[-1].startswith("mexsim: interrupted: "), stderr
        assert "--resume" in stderr
    assert not out.exists()
    kept = parts_done(tmp_path)
    assert kept >= after

    refused = run_cli(cfg, "--out", out, "--quiet")  # without --resume: named, kept
    assert "--resume" in one_line_error(refused, 2)
    assert parts_done(tmp_path) == kept

    resumed = run_cli(cfg, "--out", out, "--workers", "1", "--quiet", "--resume")
    assert resumed.exit_code == 0, resumed.stderr
    assert f"{kept:,} of {BLOCKS} blocks already played" in resumed.stderr
    same_results(reference, out)
    assert json.loads((out / "run.json").read_text())["resumed_blocks"] == kept
    assert temp_folders(tmp_path) == []


@pytest.mark.slow
@pytest.mark.processes
def test_sigkill_while_replacing_never_loses_both(
    reference: Path, cfg: Path, tmp_path: Path
) -> None:
    """SIGKILL at many moments of a --force run over existing results (the summary and
    the swap included): the folder always holds complete old or new results."""
    out = tmp_path / "res"
    assert run_cli(cfg, "--out", out, "--seed", "99", "--matches", "400", "--quiet").exit_code == 0
    old_id = json.loads((out / "run.json").read_text())["run_id"]
    seen = set()
    for delay in (0.0, 0.2, 0.4, 0.6, 0.8, 1.0, 1.3, 1.6, 2.0, 2.5, 3.0, 4.0):
        proc = mexsim(
            "run", cfg, "--out", out, "--force", "--quiet", "--matches", "400", "--seed", "7"
        )
        wait_for_parts(proc, tmp_path, 1)
        time.sleep(delay)
        proc.kill()
        finish(proc)
        marker = json.loads((out / MARKER).read_text())
        assert marker["run_id"] == json.loads((out / "run.json").read_text())["run_id"]
        assert pq.read_table(out / "matches.parquet").num_rows == 400 * 4
        seen.add("old" if marker["run_id"] == old_id else "new")
        if "new" in seen:
            break
        for work in temp_folders(tmp_path):  # what the killed run left
            assert (work / "work.json").exists()
            shutil.rmtree(work)
    assert "old" in seen  # killed while playing at least once


def test_interrupt_while_writing_the_summary_keeps_the_old_results(
    cfg: Path, tmp_path: Path
) -> None:
    """Row 1: Ctrl-C (a real SIGINT) at the moment the new summary is written."""
    out = tmp_path / "res"
    assert run_cli(cfg, "--out", out, "--matches", "200", "--quiet").exit_code == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}

    def summary_then_ctrl_c(folder: Path, statistics: Any) -> None:
        (folder / "summary.csv").write_text("half a summary")
        ctrl_c()

    from mexsim.tournament.config import load_config, with_overrides

    config = with_overrides(load_config(cfg), matches=200, seed=5, out=str(out))
    with pytest.raises(runner_module.Interrupted) as caught:
        runner_module.run(
            config,
            out,
            runner_module.RunOptions(workers=2, force=True),
            runner_module.RunHooks(write_tables=summary_then_ctrl_c),
        )
    assert caught.value.signum == signal.SIGINT
    assert "--resume" in str(caught.value)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    result = run_cli(
        cfg, "--out", out, "--matches", "200", "--seed", "5", "--quiet", "--resume", "--force"
    )
    assert result.exit_code == 0, result.stderr
    assert json.loads((out / "run.json").read_text())["seed"] == 5
    assert temp_folders(tmp_path) == []


# --- issue 10: a strategy stuck in a loop; Ctrl-C and SIGTERM still stop at once -----


@pytest.mark.slow
@pytest.mark.processes
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_stop_signal_ends_a_stuck_strategy_within_two_seconds(tmp_path: Path, signum: int) -> None:
    out = tmp_path / "res"
    players = '[[players]]\nstrategy = "spin"\n[[players]]\nstrategy = "greedy"\n'
    cfg = write_config(tmp_path, config_text(out, matches=100, players=players))
    proc = mexsim("run", cfg, "--strategies", SPIN, "--workers", "2", "--quiet")
    # playing (after loading or compiling)
    wait_until(proc, lambda: temp_folders(tmp_path), "the run never started")
    time.sleep(1.0)  # the workers are inside `spin`
    code, _, stderr, took = interrupt(proc, signum)
    assert took < 2.0
    assert code == 128 + signum, stderr
    assert stderr.splitlines() == ["mexsim: interrupted: no results written"]
    assert temp_folders(tmp_path) == [] and not out.exists()


# --- rows 3-6: what is at --out ------------------------------------------------------


@pytest.mark.slow
@pytest.mark.processes
def test_a_second_run_to_the_same_out_is_refused(cfg: Path, tmp_path: Path) -> None:
    out = tmp_path / "res"
    first = mexsim("run", cfg, "--out", out, "--workers", "1", "--quiet")
    try:
        wait_for_parts(first, tmp_path, 1)
        line = one_line_error(run_cli(cfg, "--out", out, "--quiet", "--force"), 2)
        assert "another mexsim run" in line and str(first.pid) in line
    finally:
        first.send_signal(signal.SIGINT)
        finish(first, timeout=30)


def test_a_folder_that_appears_during_the_run_is_not_touched(
    cfg: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "res"
    real = Assembler.close

    def close_while_user_writes(self: Any) -> Any:
        out.mkdir()
        (out / "mine.txt").write_text("user's file\n")
        return real(self)

    monkeypatch.setattr(Assembler, "close", close_while_user_writes)
    for force in ([], ["--force"]):
        line = one_line_error(run_cli(cfg, "--out", out, "--matches", "64", "--quiet", *force), 5)
        assert "appeared during the run" in line and "complete in" in line
        assert [p.name for p in out.iterdir()] == ["mine.txt"]
        kept = temp_folders(tmp_path)
        assert len(kept) == 1 and (kept[0] / "results" / "matches.parquet").exists()
        kept[0].rename(tmp_path / f"kept{len(force)}")
        shutil.rmtree(out)  # the user moves their folder away before the next try


def test_force_refuses_a_folder_mexsim_did_not_write(cfg: Path, tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "run.json").write_text("{}\n")
    (proj / "main.py").write_text("print('my code')\n")
    line = one_line_error(run_cli(cfg, "--out", proj, "--force", "--quiet"), 2)
    assert "not a results directory written by mexsim" in line
    assert sorted(p.name for p in proj.iterdir()) == ["main.py", "run.json"]
    assert temp_folders(tmp_path) == []


@pytest.mark.parametrize("dangling", [False, True])
def test_a_symlinked_out_is_refused_before_play(cfg: Path, tmp_path: Path, dangling: bool) -> None:
    target = tmp_path / "real"
    if not dangling:
        assert run_cli(cfg, "--out", target, "--matches", "64", "--quiet").exit_code == 0
    link = tmp_path / "link"
    link.symlink_to(target)
    before = sorted(p.name for p in target.iterdir()) if not dangling else None
    line = one_line_error(run_cli(cfg, "--out", link, "--force", "--quiet"), 2)
    assert "symbolic link" in line
    assert link.is_symlink()
    if not dangling:
        assert sorted(p.name for p in target.iterdir()) == before
    assert temp_folders(tmp_path) == []


@pytest.mark.slow
@pytest.mark.processes
def test_changed_config_refuses_to_resume_and_says_what_changed(cfg: Path, tmp_path: Path) -> None:
    out = tmp_path / "res"
    proc = mexsim("run", cfg, "--out", out, "--workers", "1", "--quiet")
    wait_for_parts(proc, tmp_path, 2)
    proc.kill()
    finish(proc)
    line = one_line_error(run_cli(cfg, "--out", out, "--seed", "8", "--resume"), 2)
    assert "cannot resume" in line and "run.seed 7 -> 8" in line
    result = run_cli(
        cfg, "--out", out, "--seed", "8", "--resume", "--force", "--matches", "64", "--quiet"
    )
    assert result.exit_code == 0 and "removed" in result.stderr, result.stderr
    assert temp_folders(tmp_path) == []


def test_a_dead_runs_folder_is_named_then_discarded_with_force(cfg: Path, tmp_path: Path) -> None:
    """Issue 10: a temporary folder of a dead process (here one of an older mexsim,
    without work.json) is named by the next run, and removed with --force."""
    out = tmp_path / "res"
    stale = tmp_path / ".res.tmp-999999"
    stale.mkdir()
    (stale / "rounds.parquet").write_bytes(b"PAR1 half written")
    line = one_line_error(run_cli(cfg, "--out", out, "--matches", "64", "--quiet"), 2)
    assert str(stale) in line and "--force" in line
    assert stale.exists()
    result = run_cli(cfg, "--out", out, "--matches", "64", "--quiet", "--force")
    assert result.exit_code == 0, result.stderr
    assert f"removed {stale}" in result.stderr
    assert temp_folders(tmp_path) == []


def test_resume_with_nothing_to_resume_starts_afresh(cfg: Path, tmp_path: Path) -> None:
    out = tmp_path / "res"
    result = run_cli(cfg, "--out", out, "--matches", "64", "--quiet", "--resume")
    assert result.exit_code == 0, result.stderr
    assert "nothing to resume" in result.stderr
    assert (out / MARKER).exists()


# --- rows 11 and 13: the system refuses a write ---------------------------------------


def limited_files(size: int) -> Any:
    """A child whose files may not grow past ``size`` bytes (EFBIG, like a full disk)."""

    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))

    return limit


@pytest.mark.slow
@pytest.mark.processes
def test_a_full_disk_is_one_line_and_keeps_the_old_results(
    reference: Path, cfg: Path, tmp_path: Path
) -> None:
    out = tmp_path / "res"
    assert run_cli(cfg, "--out", out, "--matches", "64", "--quiet").exit_code == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    code, _, stderr = finish(
        mexsim("run", cfg, "--out", out, "--force", "--quiet", preexec_fn=limited_files(160_000))
    )
    assert code == 4, stderr
    lines = stderr.splitlines()
    assert len(lines) == 1 and "File too large" in lines[0], stderr
    assert "--resume" in lines[0]  # the blocks that fitted are kept
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


@pytest.mark.slow
@pytest.mark.processes
def test_report_that_cannot_write_its_plots_is_one_line(reference: Path) -> None:
    code, stdout, stderr = finish(mexsim("report", reference, preexec_fn=limited_files(1000)))
    assert code == 4, stderr
    assert "mean total" in stdout  # the tables came first
    lines = stderr.splitlines()
    assert len(lines) == 1 and "cannot write the plots" in lines[0], stderr


# --- row 14: report checks the files belong together ----------------------------------


def test_report_refuses_files_of_two_runs(reference: Path, cfg: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    assert run_cli(cfg, "--out", other, "--matches", "64", "--quiet").exit_code == 0
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    for name in ("rounds.parquet", "run.json"):
        (mixed / name).write_bytes((reference / name).read_bytes())
    (mixed / "matches.parquet").write_bytes((other / "matches.parquet").read_bytes())
    line = one_line_error(cli_runner.invoke(app, ["report", str(mixed)]), 2)
    assert "different runs" in line
    swapped = tmp_path / "swapped"
    swapped.mkdir()
    (swapped / "matches.parquet").write_bytes((other / "rounds.parquet").read_bytes())
    (swapped / "rounds.parquet").write_bytes((other / "matches.parquet").read_bytes())
    line = one_line_error(cli_runner.invoke(app, ["report", str(swapped)]), 2)
    assert "not mexsim's matches table" in line
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    import pyarrow as pa

    for name in ("matches", "rounds"):
        pq.write_table(pa.table({"x": [1, 2]}), foreign / f"{name}.parquet")
    assert "missing columns" in one_line_error(cli_runner.invoke(app, ["report", str(foreign)]), 2)
    assert list(tmp_path.glob("*/*.png")) == []


# --- rows 9, 10, 12, 15, 16, 17: bad input refused before play, in one line -----------


def players_named(name: str) -> str:
    return (
        f'[[players]]\nname = {json.dumps(name)}\nstrategy = "greedy"\n'
        '[[players]]\nstrategy = "random"\n'
    )


BAD = [
    ("matches-10-to-12", lambda out: config_text(out, matches=10**12), [], ["matches"]),
    ("matches-int64-max", lambda out: config_text(out, matches=2**63 - 1), [], ["matches"]),
    ("workers-20000", lambda out: config_text(out), ["--workers", "20000"], ["--workers"]),
    ("out-300-chars", lambda out: config_text(out.parent / ("x" * 300)), [], ["bytes"]),
    ("out-nul", lambda out: config_text(str(out) + "\0x"), [], ["control character"]),
    ("flag-out-empty", lambda out: config_text(out), ["--out", ""], ["--out", "non-empty"]),
    (
        "toml-nested-deep",
        lambda out: "x = " + "[" * 100_000 + "]" * 100_000 + "\n",
        [],
        ["nested too deeply"],
    ),
    ("name-nul", lambda out: config_text(out, players=players_named("a\0b")), [], ["name"]),
    ("name-newline", lambda out: config_text(out, players=players_named("a\nb")), [], ["name"]),
    (
        "name-rtl-override",
        lambda out: config_text(out, players=players_named("a\u202eb")),
        [],
        ["name"],
    ),
    (
        "name-huge",
        lambda out: config_text(out, players=players_named("n" * 5_000_000)),
        [],
        ["name", "64"],
    ),
    (
        "param-nan",
        lambda out: config_text(
            out,
            players=(
                '[[players]]\nstrategy = "early_doubles"\nparams = { own_first = nan }\n'
                '[[players]]\nstrategy = "greedy"\n'
            ),
        ),
        [],
        ["own_first", "finite"],
    ),
    (
        "param-inf-sweep",
        lambda out: config_text(
            out,
            players=(
                '[[players]]\nstrategy = "early_doubles"\nparams = { own_first = [0, inf] }\n'
                '[[players]]\nstrategy = "greedy"\n'
            ),
        ),
        [],
        ["own_first", "finite"],
    ),
    (
        "strategies-nul",
        lambda out: '[run]\nstrategies = "a\\u0000b"\n' + players_named("x"),
        [],
        ["strategies", "control character"],
    ),
    (
        "strategies-300-chars",
        lambda out: f'[run]\nstrategies = "{"s" * 300}"\n' + players_named("x"),
        [],
        ["strategies", "bytes"],
    ),
    (
        "out-a-file",
        lambda out: config_text(out.parent / "afile"),
        ["--force"],
        ["afile", "not a directory"],
    ),
]


@pytest.mark.parametrize(("make", "args", "parts"), [pytest.param(*c[1:], id=c[0]) for c in BAD])
def test_bad_input_is_one_line(
    tmp_path: Path, make: Any, args: list[str], parts: list[str]
) -> None:
    (tmp_path / "afile").write_text("mine\n")
    cfg = write_config(tmp_path, make(tmp_path / "res"))
    before = sorted(tmp_path.rglob("*"))
    line = one_line_error(run_cli(cfg, *args, "--quiet"), 2)
    for part in parts:
        assert part in line, line
    assert "\0" not in line and len(line) < 600
    assert sorted(tmp_path.rglob("*")) == before
    assert (tmp_path / "afile").read_text() == "mine\n"


def test_a_config_with_a_bom_is_read(tmp_path: Path) -> None:
    out = tmp_path / "res"
    cfg = tmp_path / "bom.toml"
    cfg.write_bytes("\ufeff".encode() + config_text(out, matches=8).encode())
    result = run_cli(cfg, "--quiet")
    assert result.exit_code == 0, result.stderr


# --- row 18: the wall time covers the whole command -----------------------------------


def test_wall_time_covers_play_and_summary(reference: Path, cfg: Path, tmp_path: Path) -> None:
    info = json.loads((reference / "run.json").read_text())
    assert info["wall_seconds"] >= info["play_seconds"] + info["summary_seconds"] > 0
    begun = time.perf_counter()
    result = run_cli(cfg, "--out", tmp_path / "res", "--matches", "400", "--quiet")
    took = time.perf_counter() - begun
    match = re.search(
        r"400 matches in ([\d.]+) s \(play ([\d.]+) s, summary ([\d.]+) s", result.stdout
    )
    assert match, result.stdout
    wall, play, summary = map(float, match.groups())
    assert play + summary <= wall + 0.1 and wall <= took + 0.05
    assert wall >= 0.5 * took  # the command's time, not only the play


def test_force_keeps_what_the_user_put_in_the_results_folder(cfg: Path, tmp_path: Path) -> None:
    """Issue 32, held note: --force deleted the files a user had put inside a results
    folder, silently. They are kept in the new folder (files linked across before the
    exchange, folders moved after it), and the run says so; mexsim's own files (an old
    report's plots too) are replaced."""
    out = tmp_path / "res"
    assert run_cli(cfg, "--out", out, "--matches", "16", "--quiet").exit_code == 0
    (out / "notes.md").write_text("what I saw\n")
    (out / "analysis").mkdir()
    (out / "analysis" / "plot.py").write_text("print()\n")
    (out / "totals.png").write_bytes(b"an old report's plot")
    result = run_cli(cfg, "--out", out, "--matches", "32", "--quiet", "--force")
    assert result.exit_code == 0, result.stderr
    assert (out / "notes.md").read_text() == "what I saw\n"
    assert (out / "analysis" / "plot.py").read_text() == "print()\n"
    assert not (out / "totals.png").exists()
    assert "mexsim: kept what you had put in" in result.stderr
    assert "analysis, notes.md" in result.stderr
    assert temp_folders(tmp_path) == []


def test_report_names_a_missing_or_damaged_run_json(cfg: Path, tmp_path: Path) -> None:
    """Issue 32, held note: a missing or truncated run.json was reported as "files of
    different runs"."""
    out = tmp_path / "res"
    assert run_cli(cfg, "--out", out, "--matches", "16", "--quiet").exit_code == 0
    record = (out / "run.json").read_bytes()
    (out / "run.json").write_bytes(record[:40])
    line = one_line_error(cli_runner.invoke(app, ["report", str(out)]), 2)
    assert line.startswith(f"mexsim: error: {out / 'run.json'}: damaged"), line
    (out / "run.json").unlink()
    line = one_line_error(cli_runner.invoke(app, ["report", str(out)]), 2)
    assert line.startswith(f"mexsim: error: {out / 'run.json'}: missing"), line
