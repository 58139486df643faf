"""A strategy file that ends its process at import (issue 32, row 8): any file in a
strategies folder doing ``os._exit(0)``, even one no config used, made ``run``,
``strategies`` and ``check`` exit 0 with no output and no results. Only the files a
command plays are imported now — their names are read without running them — and a
file is imported first in a child process, which names it when it ends there."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.tournament.runs import mexsim_in

QUITTER = """\
import os

NAME = "quitter"
DESCRIPTION = "ends its process as it loads"
os._exit(0)
"""

COMPUTED_NAME = """\
from mexsim.strategy.api import strategy

NAME = "comp" + "uted"
DESCRIPTION = "names itself with an expression"


@strategy
def decide(view, params):
    return 0
"""

CONFIG = """\
[run]
matches = 3
strategies = "plugins"

[[players]]
strategy = "{first}"

[[players]]
strategy = "random"
"""


def mexsim(folder: Path, *args: str) -> subprocess.CompletedProcess:
    return mexsim_in(folder, *args)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / "quitter.py").write_text(QUITTER)
    (plugins / "computed.py").write_text(COMPUTED_NAME)
    for first in ("greedy", "quitter", "computed"):
        (tmp_path / f"{first}.toml").write_text(CONFIG.format(first=first))
    return tmp_path


@pytest.mark.processes
@pytest.mark.compiles
def test_a_run_not_using_the_file_never_imports_it(folder: Path) -> None:
    done = mexsim(folder, "run", "greedy.toml", "--out", "out")
    assert done.returncode == 0, done.stderr
    assert (folder / "out" / "matches.parquet").is_file()
    assert "quitter" not in done.stderr


@pytest.mark.processes
@pytest.mark.compiles
def test_a_run_using_it_names_the_file_in_one_line(folder: Path) -> None:
    done = mexsim(folder, "run", "quitter.toml", "--out", "out")
    assert done.returncode == 2, done.stderr
    line = done.stderr.strip().splitlines()[-1]
    assert line.startswith("mexsim: error: ") and "quitter.py" in line, done.stderr
    assert "ended its process (exit status 0)" in line
    assert not (folder / "out").exists()


@pytest.mark.processes
@pytest.mark.compiles
def test_the_listing_and_check_say_what_the_file_did(folder: Path) -> None:
    listed = mexsim(folder, "strategies", "--strategies", "plugins")
    assert listed.returncode == 0, listed.stderr
    assert "greedy" in listed.stdout and "quitter" not in listed.stdout
    warned = [ln for ln in listed.stderr.splitlines() if "warning" in ln]
    assert any("quitter.py" in w and "ended its process" in w for w in warned), warned
    assert any("computed.py" in w and "no NAME = '...' line" in w for w in warned), warned

    checked = mexsim(folder, "check", "quitter", "--strategies", "plugins")
    assert checked.returncode == 1, checked.stderr
    assert "FAILED check 'loads'" in checked.stdout
    assert "ended its process" in checked.stdout


@pytest.mark.processes
def test_a_name_not_written_as_a_string_is_refused_when_used(folder: Path) -> None:
    done = mexsim(folder, "run", "computed.toml", "--out", "out")
    assert done.returncode == 2, done.stderr
    line = done.stderr.strip().splitlines()[-1]
    assert "computed.py: no NAME = '...' line" in line, done.stderr
