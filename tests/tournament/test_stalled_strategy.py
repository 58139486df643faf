"""A strategy that never returns from some decisions: `mexsim run` names it in one line
and ends (exit 1), seated or as search's rollout, rather than never ending."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.tournament.runs import mexsim_in

# Loops forever once it has many moves: after many good decisions, as a user's bug does
LOOPS = """
from mexsim.strategy.api import move_count, strategy

NAME = "loops"
DESCRIPTION = "never returns where it has many moves"

@strategy
def decide(view, params):
    n = move_count(view)
    k = 0
    while n > 6:
        k += 1
        view[0] = k  # a side effect: the loop is not compiled away
    return 0
"""


@pytest.mark.compiles
@pytest.mark.processes
@pytest.mark.parametrize(
    ("player", "luck", "named"),
    [
        ('strategy = "loops"', False, "strategy 'loops' (seat "),
        # the luck model's pilot, played on its own before the run's blocks (it once hung,
        # deaf to SIGTERM: the main thread was in the strategy's code)
        ('strategy = "loops"', True, "strategy 'loops' (seat "),
        (
            'strategy = "search"\nparams = { worlds = 1, rollout = "loops" }',
            False,
            "strategy 'search with rollout loops' (seat ",
        ),
    ],
)
def test_a_decide_that_never_returns_is_named(
    tmp_path: Path, player: str, luck: bool, named: str
) -> None:
    (tmp_path / "strategies").mkdir()
    (tmp_path / "strategies" / "loops.py").write_text(LOOPS)
    config = tmp_path / "cfg.toml"
    config.write_text(
        '[run]\nmatches = 20\nseed = 3\nout = "res"\n[rules]\npreset = "seed-001"\n'
        f'[[players]]\n{player}\n[[players]]\nstrategy = "greedy"\n'
    )
    flags = ("--quiet", "--decision-limit", "2", *(("--luck",) if luck else ()))
    proc = mexsim_in(tmp_path, "run", str(config), "--workers", "2", *flags)
    assert proc.returncode == 1, proc.stderr  # a strategy misbehaved (docs/interface.md)
    lines = [line for line in proc.stderr.splitlines() if line.startswith("mexsim: error:")]
    assert len(lines) == 1, proc.stderr
    assert named in lines[0] and "has not returned in 2 s" in lines[0]
    # the pilot's matches are deals of its own: it said "in match 25", which a replay of
    # the run's match 25 did not stall in (attacking helper, session 27)
    assert (") in the luck model's pilot match " in lines[0]) == luck, lines[0]
    assert not (tmp_path / "res").exists()  # nothing of the run is left
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".res")]


@pytest.mark.slow
@pytest.mark.compiles
@pytest.mark.processes
@pytest.mark.parametrize("out", ["res", "file://{tmp}/res"], ids=["folder", "shared-location"])
def test_a_decide_that_never_returns_on_a_cluster_is_named(tmp_path: Path, out: str) -> None:
    """On --cluster the decide runs in a worker process, which this process's watch does
    not see: the run waited for ever. The client now asks the workers' own watches."""
    pytest.importorskip("distributed")
    (tmp_path / "strategies").mkdir()
    (tmp_path / "strategies" / "loops.py").write_text(LOOPS)
    config = tmp_path / "cfg.toml"
    config.write_text(
        f'[run]\nmatches = 20\nseed = 3\nout = "{out.format(tmp=tmp_path)}"\n'
        '[rules]\npreset = "seed-001"\n'
        '[[players]]\nstrategy = "loops"\n[[players]]\nstrategy = "greedy"\n'
    )
    flags = ("--quiet", "--decision-limit", "2", "--cluster", "local:2")
    proc = mexsim_in(tmp_path, "run", str(config), *flags, timeout=120)
    assert proc.returncode == 1, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.startswith("mexsim: error:")]
    assert len(lines) == 1, proc.stderr
    assert "strategy 'loops' (seat " in lines[0] and "has not returned in 2 s" in lines[0]
    assert "stays busy" not in lines[0]  # local:2's workers end with the command
    if out == "res":  # a shared location's parts stay, never removed unasked
        assert not (tmp_path / "res").exists()
        assert not [p for p in tmp_path.iterdir() if p.name.startswith(".res")]


@pytest.mark.slow
@pytest.mark.compiles
@pytest.mark.processes
def test_a_decide_stuck_on_a_users_cluster_is_not_blamed_on_the_next_run(tmp_path: Path) -> None:
    """A worker of the user's own cluster outlives the command: its thread stuck in a
    decide was reported again by the next run, of other strategies, as that run's."""
    pytest.importorskip("distributed")
    (tmp_path / "strategies").mkdir()
    (tmp_path / "strategies" / "loops.py").write_text(LOOPS)
    for name, first in (("loops", "loops"), ("greedy", "greedy")):
        (tmp_path / f"{name}.toml").write_text(
            f'[run]\nmatches = 20\nseed = 3\nout = "{name}-res"\n[rules]\npreset = "seed-001"\n'
            f'[[players]]\nstrategy = "{first}"\n[[players]]\nstrategy = "greedy"\n'
        )
    address = tmp_path / "scheduler.json"
    dask = [sys.executable, "-m", "distributed.cli"]
    started = [
        subprocess.Popen(
            [*dask[:2], f"distributed.cli.dask_{kind}", *args],
            cwd=tmp_path,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        for kind, args in (
            ("scheduler", ["--scheduler-file", str(address), "--port", "0", "--no-dashboard"]),
            ("worker", ["--scheduler-file", str(address), "--nthreads", "2", "--no-dashboard"]),
        )
    ]
    try:
        for _ in range(600):
            if address.exists() and "address" in address.read_text():
                break
            time.sleep(0.1)
        cluster = json.loads(address.read_text())["address"]
        flags = ("--quiet", "--decision-limit", "2", "--cluster", cluster)
        stuck = mexsim_in(tmp_path, "run", "loops.toml", *flags, timeout=120)
        assert stuck.returncode == 1, stuck.stderr
        assert "strategy 'loops' (seat " in stuck.stderr and "until restarted" in stuck.stderr
        # the worker's other thread plays the next run, whose tasks had the same keys as
        # the stuck one's (Dask then waited for it: the run never ended); the stuck
        # thread is not blamed on it (said in a note once the run has looked at it for
        # the decision limit: tests/tournament/test_worker_stall.py)
        after = mexsim_in(tmp_path, "run", "greedy.toml", *flags, timeout=120)
        assert after.returncode == 0, after.stderr
        assert "error" not in after.stderr and (tmp_path / "greedy-res" / "run.json").exists()
    finally:
        for process in started:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


@pytest.mark.compiles
@pytest.mark.processes
def test_a_replay_names_a_decide_that_never_returns(tmp_path: Path) -> None:
    (tmp_path / "strategies").mkdir()
    (tmp_path / "strategies" / "loops.py").write_text(LOOPS)
    config = tmp_path / "cfg.toml"
    config.write_text(
        '[run]\nmatches = 2\nseed = 3\n[rules]\npreset = "seed-001"\n'
        '[[players]]\nstrategy = "loops"\n[[players]]\nstrategy = "greedy"\n'
    )
    proc = mexsim_in(tmp_path, "replay", str(config), "--match", "0", "--decision-limit", "2")
    assert proc.returncode == 1, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.startswith("mexsim: error:")]
    assert len(lines) == 1, proc.stderr
    assert "strategy 'loops' (seat " in lines[0] and "has not returned in 2 s" in lines[0]
