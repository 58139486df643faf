"""A Ctrl-C the command answers ends ``python -m mexsim`` with its documented status,
130, wherever the signal found it: also inside code that a library (or a strategy file)
runs with ``exec`` or ``eval`` of a string, which namedtuple, dataclasses and numba do
as they load. CPython takes a KeyboardInterrupt that leaves such a string for one that
no one handled, and ``python -m`` then ends by SIGINT (-2) after the command's one line,
whatever status the command chose (seen as a rare flake of a Ctrl-C test)."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from tests.tournament.runs import config_text, finish, mexsim, wait_until, write_config

# it sleeps in the command's own process, not in the child that imports each edit of a
# file first (mexsim/strategy/first_import.py), which it passes
STRATEGY = """\
exec("import os, pathlib, time\\n"
     "from mexsim.strategy import first_import\\n"
     "if not first_import.IN_CHILD:\\n"
     "    pathlib.Path({marks!r}, str(os.getpid())).touch()\\n"
     "    time.sleep(60)\\n")

from mexsim.strategy.api import strategy

NAME = "slow_to_load"
DESCRIPTION = "sleeps inside exec as it loads, until a Ctrl-C"


@strategy
def decide(view, params):
    return 0
"""


@pytest.mark.processes
@pytest.mark.compiles
@pytest.mark.parametrize("command", ["run", "strategies"])
def test_ctrl_c_inside_a_string_exec_ends_with_status_130(tmp_path: Path, command: str) -> None:
    marks = tmp_path / "loading"
    marks.mkdir()
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "slow_to_load.py").write_text(STRATEGY.format(marks=str(marks)))
    players = '[[players]]\nstrategy = "slow_to_load"\n[[players]]\nstrategy = "greedy"\n'
    cfg = write_config(tmp_path, config_text(tmp_path / "r", matches=8, players=players))
    args = (
        ["run", cfg, "--strategies", mine, "--workers", "1", "--quiet"]
        if command == "run"
        else ["strategies", "--strategies", mine]
    )
    proc = mexsim(*args)
    wait_until(
        proc, lambda: (marks / str(proc.pid)).exists(), "the command never loaded the strategy file"
    )
    proc.send_signal(signal.SIGINT)
    code, _, err = finish(proc, 60)
    assert code == 130, err
    lines = [line for line in err.splitlines() if not line.startswith("mexsim: compiling")]
    assert lines == ["mexsim: interrupted"], err  # the first run's notice aside


@pytest.mark.slow
@pytest.mark.processes
@pytest.mark.compiles
def test_sigterm_while_check_compiles_is_one_line(tmp_path):
    """Issue 32, row 23: SIGTERM during `mexsim check` ended it with 143 and no line."""
    import signal
    import subprocess
    import sys
    import time

    folder = tmp_path / "strategies"
    folder.mkdir()
    (folder / "slow.py").write_text(
        "import time\nfrom mexsim.strategy.api import strategy\n"
        "NAME = 'slow'\nDESCRIPTION = 'sleeps as it loads'\ntime.sleep(60)\n\n"
        "@strategy\ndef decide(view, params):\n    return 0\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "mexsim", "check", "slow", "--strategies", str(folder)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(4)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 143, err
    lines = [line for line in err.splitlines() if "compiling" not in line]
    assert lines == ["mexsim: interrupted by SIGTERM"], err


@pytest.mark.processes
def test_ctrl_c_once_the_results_are_shown_leaves_them_complete(tmp_path: Path) -> None:
    """Issue 32, row 22: a Ctrl-C just after the comparison was printed ended the run
    with 130 and no line, though its results were complete and in place. Once they are
    shown nothing is left to stop; while they are printed, the line says they are
    complete."""
    out = tmp_path / "r"
    cfg = write_config(tmp_path, config_text(out, matches=8))
    proc = mexsim("run", cfg, "--workers", "1", "--quiet")
    assert proc.stdout is not None
    for line in proc.stdout:
        if "ratings" in line:  # the comparison's last line
            proc.send_signal(signal.SIGINT)
            break
    code, _, err = finish(proc, 60)
    assert "Traceback" not in err
    if code != 0:  # the signal came while the lines were still being written
        assert code == 130, err
        assert err.splitlines()[-1].startswith(
            "mexsim: interrupted while the comparison was printed; the results are "
            f"complete in {out}"
        ), err
    assert (out / "matches.parquet").is_file() and (out / "summary.csv").is_file()


def test_a_command_after_a_finished_run_in_one_process_heeds_signals_again(
    tmp_path: Path,
) -> None:
    """The signals a finished run stops heeding are not SIG_IGN, which the processes
    started afterwards inherit: a test process that ran one in process started
    `mexsim` processes deaf to Ctrl-C and SIGTERM (they ran to their timeouts)."""
    from tests.tournament.runs import run_cli

    cfg = write_config(tmp_path, config_text(tmp_path / "r", matches=8))
    assert run_cli(cfg, "--quiet").exit_code == 0
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        assert signal.getsignal(signum) != signal.SIG_IGN
    proc = mexsim("strategies", "--strategies", str(tmp_path / "nowhere"))
    code, _, err = finish(proc, 60)
    assert code == 2, err  # it ran at all; and a signal would reach it:
    proc = mexsim("replay", cfg, "--match", "1")
    proc.send_signal(signal.SIGTERM)
    code, _, err = finish(proc, 60)
    assert code in (143, -signal.SIGTERM), err
