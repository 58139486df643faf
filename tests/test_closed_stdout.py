"""A command started with its standard output closed (`mexsim replay … >&-`) says so in
one line and ends with the output error's status (4), `run` with its results in place:
the same rule for every command, never an internal error."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.processes


def closed_stdout(*args: str | Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "mexsim", *map(str, args)],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stdout=None,
        stderr=subprocess.PIPE,
        text=True,
        timeout=600,
        check=False,
        preexec_fn=lambda: os.close(1),  # the child's own standard output, closed
    )


@pytest.mark.parametrize(
    "args",
    [
        ("replay", "configs/double-six.toml", "--match", "0"),
        ("run", "configs/double-six.toml", "--matches", "20", "--quiet", "--force"),
    ],
    ids=["replay", "run"],
)
def test_a_closed_standard_output_is_one_line_and_status_4(args: tuple, tmp_path: Path):
    if args[0] == "run":
        args = (*args, "--out", str(tmp_path / "out"))
    done = closed_stdout(*args)
    lines = [line for line in done.stderr.splitlines() if not line.startswith("mexsim: compiling")]
    assert done.returncode == 4, done.stderr
    assert lines == [
        "mexsim: error: standard output: closed, so nothing can be shown (send it "
        "somewhere: > FILE, or > /dev/null)"
    ]
    if args[0] == "run":
        assert (tmp_path / "out" / "summary.csv").is_file()


@pytest.mark.parametrize(
    "args",
    [
        ("replay", "configs/double-six.toml", "--match", "0"),
        ("run", "configs/double-six.toml", "--matches", "20", "--force"),
    ],
    ids=["replay", "run"],
)
def test_a_reader_that_goes_away_ends_every_command_quietly(args: tuple, tmp_path: Path):
    """`mexsim run … | head -1`: the reader's choice, the same rule for every command —
    it finishes its work (run: the results in place) and exits 0, saying nothing."""
    if args[0] == "run":
        args = (*args, "--out", str(tmp_path / "out"))
    proc = subprocess.Popen(
        [sys.executable, "-m", "mexsim", *map(str, args)],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    proc.stdout.close()  # gone before the command writes a line
    _, err = proc.communicate(timeout=600)
    lines = [line for line in err.splitlines() if line.startswith("mexsim: error")]
    assert proc.returncode == 0, err
    assert lines == []
    if args[0] == "run":
        assert (tmp_path / "out" / "summary.csv").is_file()
