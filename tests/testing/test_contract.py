"""mexsim.testing / `mexsim check`: every built-in passes; each broken strategy of the
table is caught by the check named for its fault."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mexsim.strategy.registry import available_strategies
from mexsim.strategy.starter import write_starter
from mexsim.testing import CHECKS, check_strategy, contract, format_report
from tests.cli_output import without_compile_notes

ROOT = Path(__file__).resolve().parents[2]
HEADER = """
import itertools
import os
import random
import time

import numpy as np
from numba import objmode

from mexsim.game.view import SEAT, SIZE
from mexsim.strategy.api import *  # noqa: F403

NAME = "{name}"
DESCRIPTION = "a broken strategy for the contract's tests"
PARAMS = {{}}
MEMORY = {memory}
CALLS = itertools.count()


@strategy
def decide(view, params):
"""

# name: (body of decide, MEMORY, the check that must catch it)
BROKEN = {
    "raises": ("raise ValueError('no idea what to play')", 0, "does not raise"),
    "one_past_the_end": ("return move_count(view)", 0, "returns a legal index"),
    "negative": ("return -1", 0, "returns a legal index"),
    "returns_float": ("return move_count(view) / 2", 0, "returns an integer"),
    "far_write": ("view[10**7] = 1\nreturn 0", 0, "no out-of-bounds access"),
    "write_past_view": ("view[SIZE + 3] = 1\nreturn 0", 0, "no out-of-bounds access"),
    "read_past_moves": ("return view[SIZE + move_count(view)] % 2", 0, "no out-of-bounds access"),
    "numpy_random": (
        "return np.random.randint(0, move_count(view))",
        0,
        "uses no global random state",
    ),
    "python_random": (
        "return random.randrange(move_count(view))",
        0,
        "uses no global random state",
    ),
    "writes_seat": ("view[SEAT] = 0\nreturn 0", 0, "writes only its random stream and notes"),
    "notes_without_memory": (
        "set_note(view, 0, 7)\nreturn 0",
        0,
        "writes only its random stream and notes",
    ),
    "notes_past_memory": (
        "set_note(view, 2, 7)\nreturn 0",
        2,
        "writes only its random stream and notes",
    ),
    "clock": (
        "with objmode(t='int64'):\n    t = time.perf_counter_ns()\nreturn t % move_count(view)",
        0,
        "deterministic",
    ),
    "python_counter": (
        "with objmode(c='int64'):\n    c = next(CALLS)\nreturn c % move_count(view)",
        0,
        "deterministic",
    ),
    # the pid mixed with the state (a tuple of ints hashes alike in every process): the
    # pid alone agreed across two processes whose pids differed by a multiple of every
    # move count seen (CI, once), and the check passed it
    "process_id": (
        "with objmode(p='int64'):\n"
        "    p = hash((os.getpid(), int(view.sum()))) & 0xFFFF\n"
        "return p % move_count(view)",
        0,
        "deterministic",
    ),
    # compiled code that differs by process: a string's hash is salted per process
    # (objmode, above, is refused as the file is vetted, under "deterministic")
    "string_hash": (
        "return (hash(str(int(view.sum()))) & 0xFFFF) % move_count(view)",
        0,
        "deterministic across processes",
    ),
    "untyped_name": ("return no_such_helper(view)", 0, "loads"),
    "no_return_on_a_path": ("if move_count(view) > 2:\n    return 0", 0, "loads"),
    "endless_loop": (
        "k = 1\nwhile k != 0:  # never 0\n    k = (k * 3 + 1) % 1_000_003 or 1\nreturn 0",
        0,
        "returns in time",
    ),
}


@pytest.fixture(autouse=True)
def short_limit(monkeypatch):
    """The endless loop is reported after 2 s, not the real 10."""
    monkeypatch.setattr(contract, "DECIDE_LIMIT_S", 2.0)


def write(tmp_path: Path, name: str, body: str, memory: int) -> Path:
    path = tmp_path / f"{name}.py"
    path.write_text(HEADER.format(name=name, memory=memory) + textwrap.indent(body, "    ") + "\n")
    return path


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(BROKEN))
def test_each_broken_strategy_is_caught_by_the_right_check(tmp_path, name):
    body, memory, check = BROKEN[name]
    report = check_strategy(str(write(tmp_path, name, body, memory)), examples=20, seed=1)
    assert not report.passed, name
    assert report.failure.check == check, format_report(report)
    text = format_report(report)
    assert f"FAILED check '{check}'" in text
    if check == "loads":  # numba's error condensed: the cause and where, one line each
        assert len(report.failure.cause.splitlines()) <= 2
        assert "importing" in text or "does not compile" in text
    if report.rounds == 0:  # refused before play by the vetting: file:line and the cause
        assert ".py:" in report.failure.cause and len(report.failure.cause.splitlines()) == 1
    elif check not in ("loads", "returns an integer", "deterministic across processes"):
        # shrunk to a real game state, shown as text and as JSON
        assert report.failure.game is not None and report.failure.decision is not None
        assert "legal moves: 0:" in text
        state = json.loads(text.split("as JSON: ", 1)[1])
        assert state["check"] == check and state["state"]["moves"]
        assert state["game"]["players"] >= 2


def test_the_table_covers_every_check_but_the_passing_ones():
    assert len(BROKEN) >= 12
    assert {check for _, _, check in BROKEN.values()} == set(CHECKS)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(available_strategies()))
def test_every_builtin_passes(name):
    report = check_strategy(name, examples=6, seed=2)
    assert report.passed, format_report(report)
    # a decision of a few ns can time at 0 after the timer's own cost is taken off
    # (random's did, every one of them, on a faster host): only a planning one must
    # measure above it
    assert report.decisions > 0 and 0 <= report.median_ns <= report.p99_ns
    assert report.million_match_seconds >= 0
    if name == "longest_train":
        assert report.million_match_seconds > 0


@pytest.mark.slow
@pytest.mark.compiles
def test_the_starter_file_passes(tmp_path):
    path = write_starter("my_first", tmp_path)
    report = check_strategy(str(path), examples=6, seed=3)
    assert report.passed, format_report(report)


def run_cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))  # this checkout's mexsim, from any folder
    return subprocess.run(
        [sys.executable, "-m", "mexsim", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.slow
@pytest.mark.processes
def test_cli_check_passes_a_builtin_and_fails_a_broken_one(tmp_path):
    done = run_cli("check", "greedy", "--examples", "4", "--seed", "5")
    assert done.returncode == 0, done.stderr
    assert "greedy: passed" in done.stdout and "decision time: median" in done.stdout
    assert "1,000,000 matches" in done.stdout
    body, memory, _ = BROKEN["one_past_the_end"]
    write(tmp_path, "one_past_the_end", body, memory)
    done = run_cli("check", "one_past_the_end", "--strategies", str(tmp_path), "--examples", "5")
    assert done.returncode == 1
    assert "FAILED check 'returns a legal index'" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr
    assert not list(tmp_path.glob(".hypothesis"))


@pytest.mark.slow
@pytest.mark.processes
@pytest.mark.parametrize(
    ("text", "cause"),
    [
        ("class Own(BaseException):\n    pass\n\n\nraise Own('mine')\n", "Own: mine"),
        ("import sys\nsys.exit(4)\n", "sys.exit(4)"),
        ("def broken(:\n", "syntax error"),
    ],
)
def test_cli_check_names_why_a_strategy_s_file_does_not_load(tmp_path, text, cause):
    """A name whose file is in the folder but does not load fails the contract's first
    check, as its path does, with the reason (it was 'not a known strategy', exit 2)."""
    (tmp_path / "fails.py").write_text(text + 'NAME = "fails"\n')
    for target in ("fails", str(tmp_path / "fails.py")):
        done = run_cli("check", target, "--strategies", str(tmp_path), "--examples", "2")
        assert done.returncode == 1, done.stderr
        assert "FAILED check 'loads'" in done.stdout and cause in done.stdout, done.stdout
        assert "Traceback" not in done.stdout + done.stderr


@pytest.mark.slow
@pytest.mark.processes
def test_cli_check_unknown_strategy_is_one_line(tmp_path):
    done = run_cli("check", "nope", cwd=tmp_path)
    assert done.returncode == 2
    stderr = without_compile_notes(done.stderr)
    assert stderr.startswith("mexsim: error: 'nope' is not a known strategy")
    assert len(stderr.splitlines()) == 1
    done = run_cli("check", "missing.py", cwd=tmp_path)
    assert done.returncode == 2 and "missing.py: strategy file not found" in done.stderr
    assert not any(tmp_path.iterdir())  # writes nothing where it runs


def test_the_second_process_imports_this_mexsim(tmp_path: Path, monkeypatch):
    """Checked from a folder holding another mexsim (a checkout, here a broken one),
    the second process imported that one (``-m`` puts the working folder first)."""
    import numpy as np

    from mexsim.game import view as V
    from mexsim.testing.crossprocess import choices_elsewhere

    (tmp_path / "mexsim").mkdir()
    (tmp_path / "mexsim" / "__init__.py").write_text("raise ImportError('another mexsim')\n")
    monkeypatch.chdir(tmp_path)
    info = available_strategies()["greedy"]
    views = np.zeros((1, V.SIZE), dtype=np.int64)
    assert choices_elsewhere(info.path, views, np.zeros((1, V.MAX_PARAMS))) == [0]
