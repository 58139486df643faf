"""A strategy file whose import starts a thread (issue 32, row 12): the command never
exited (Python waits for non-daemon threads), and Ctrl-C printed a traceback and
returned 0. The file is refused in one line, and the command ends without waiting."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.tournament.runs import mexsim_in

SPAWNER = """\
import threading
import time

from mexsim.strategy.api import strategy

NAME = "spawner"
DESCRIPTION = "starts a thread as it loads"
threading.Thread(target=time.sleep, args=(3600,), name="forever").start()


@strategy
def decide(view, params):
    return 0
"""


def mexsim(folder: Path, *args: str) -> subprocess.CompletedProcess:
    return mexsim_in(folder, *args, timeout=300)


@pytest.mark.slow
@pytest.mark.processes
@pytest.mark.compiles
def test_a_file_that_leaves_a_thread_is_refused_and_waited_for_by_nothing(tmp_path: Path):
    folder = tmp_path / "strategies"
    folder.mkdir()
    (folder / "spawner.py").write_text(SPAWNER, encoding="utf-8")
    listed = mexsim(tmp_path, "strategies")  # unused there: a warning, then the list
    assert listed.returncode == 0, listed.stderr
    assert "started a thread that is still running (forever)" in listed.stderr
    assert "greedy" in listed.stdout
    (tmp_path / "cfg.toml").write_text(
        '[run]\nmatches = 3\n[[players]]\nstrategy = "spawner"\n[[players]]\nstrategy = "greedy"\n',
        encoding="utf-8",
    )
    run = mexsim(tmp_path, "run", "cfg.toml", "--out", "res", "--quiet")
    assert run.returncode == 2, run.stderr
    errors = [line for line in run.stderr.splitlines() if line.startswith("mexsim: error")]
    assert len(errors) == 1 and "may not start threads" in errors[0]
    assert not (tmp_path / "res").exists()
