"""A strategy that never returns from some decisions: `mexsim run` names it in one line
and ends (exit 1), seated or as search's rollout, rather than never ending."""

from __future__ import annotations

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
