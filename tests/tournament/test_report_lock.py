"""`report DIR` and `run --force DIR` cannot mix (issue 32, row 7): a report that read
the old files while the run replaced the folder wrote their plots into the new one,
both exiting 0. A report holds the results folder's lock shared, a run exclusively, so
either one is refused in one line while the other holds it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mexsim.cli import app
from mexsim.store.results_folder import OutputLock
from tests.tournament.runs import cli_runner, config_text, one_line_error, run_cli, write_config


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("report_lock")
    out = folder / "out"
    config = write_config(folder, config_text(out, matches=8))
    assert run_cli(config).exit_code == 0
    return config, out


def test_a_report_is_refused_while_a_run_writes_the_folder(results: tuple[Path, Path]) -> None:
    _, out = results
    run = OutputLock(out)
    run.acquire()
    try:
        line = one_line_error(cli_runner.invoke(app, ["report", str(out)]), 2)
    finally:
        run.release()
    assert line == (
        f"mexsim: error: {out}: another mexsim run (pid {os.getpid()}) is writing this "
        "results directory; report it once the run has ended"
    )
    assert not list(out.glob("*.png"))


def test_a_forced_run_is_refused_while_a_report_reads_the_folder(
    results: tuple[Path, Path],
) -> None:
    config, out = results
    before = {p.name: p.stat().st_mtime_ns for p in out.iterdir()}
    report = OutputLock(out, reading=True)
    report.acquire()
    try:
        line = one_line_error(run_cli(config, "--force"), 2)
    finally:
        report.release()
    assert line == (
        f"mexsim: error: {out}: a mexsim report (pid {os.getpid()}) is reading this results "
        "directory; wait for it to end or choose another --out"
    )
    assert {p.name: p.stat().st_mtime_ns for p in out.iterdir()} == before
    assert not report.path.exists()  # the last holder takes the lock file away


def test_reports_share_the_lock_and_the_last_one_removes_it(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    first, second = OutputLock(out, reading=True), OutputLock(out, reading=True)
    first.acquire()
    second.acquire()
    first.release()
    assert second.path.exists()  # still held: a run must not take a fresh file
    with pytest.raises(Exception, match="is reading this results directory"):
        OutputLock(out).acquire()
    second.release()
    assert not second.path.exists()
    run = OutputLock(out)
    run.acquire()  # free now
    run.release()


def test_a_report_writes_its_plots_whole_and_leaves_no_lock(results: tuple[Path, Path]) -> None:
    _, out = results
    done = cli_runner.invoke(app, ["report", str(out)])
    assert done.exit_code == 0, done.stderr
    assert len(list(out.glob("*.png"))) == 5
    assert not [p for p in out.parent.iterdir() if p.name.startswith(".")]
    assert not [p for p in out.iterdir() if ".tmp-" in p.name]


def test_the_plots_say_which_run_they_show(results: tuple[Path, Path]) -> None:
    """Issue 35: the plots' titles said nothing of the config, the matches or the seed.
    Each figure is headed by the run's folder, matches, seed, rules and version."""
    from mexsim.cli import _caption

    _, out = results
    caption = _caption(out)
    assert caption.startswith(f"{out.name}: 8 matches, seed 7, ")
    assert caption.endswith(f"mexsim {__import__('mexsim').__version__}")
