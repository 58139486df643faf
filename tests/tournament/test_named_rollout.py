"""A config naming search's rollout policy: ``params = { rollout = "mine" }`` (issue 33).

The name is checked as a strategy's name is, the built-in rollouts' names are their
numbers, the named strategy's files are in the run's identity, and the run is the same
on any number of workers."""

from __future__ import annotations

from pathlib import Path

import pytest

from mexsim.errors import ConfigError
from mexsim.tournament.config import load_config
from mexsim.tournament.identity import run_id
from mexsim.tournament.resolved import config_identity
from tests.tournament.runs import mexsim_in, run_cli

LAST_MOVE = """
from mexsim.strategy.api import move_count, strategy

NAME = "last_move"
DESCRIPTION = "the last legal move"

@strategy
def decide(view, params):
    return move_count(view) - 1
"""


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One strategies folder for the tests that leave it as it is: its files are loaded
    (and last_move compiled and vetted) once."""
    folder = tmp_path_factory.mktemp("named") / "strategies"
    folder.mkdir()
    (folder / "last_move.py").write_text(LAST_MOVE)
    (folder / "broken.py").write_text('NAME = "broken"\nraise ValueError\n')
    (folder / "boom.py").write_text(BOOM)
    (folder / "scribbler.py").write_text(SCRIBBLER)
    (folder / "stray.py").write_text(STRAY)
    return folder


BOOM = """
from mexsim.strategy.api import move_count, strategy

NAME = "boom"
DESCRIPTION = "raises where it has many moves"

@strategy
def decide(view, params):
    if move_count(view) > 3:
        raise ValueError("too many moves")
    return 0
"""

# Writes 7 over every word of its view, then plays the first move: in a world of search
# that once corrupted the world's own state, and the run spun forever (issue 33)
SCRIBBLER = """
from mexsim.strategy.api import strategy

NAME = "scribbler"
DESCRIPTION = "writes over its whole view"

@strategy
def decide(view, params):
    for k in range(len(view)):
        view[k] = 7
    return 0
"""

STRAY = """
from mexsim.strategy.api import move_count, strategy

NAME = "stray"
DESCRIPTION = "an index past the legal moves where it has several"

@strategy
def decide(view, params):
    return move_count(view) if move_count(view) > 1 else 0
"""


def _project(tmp_path: Path, rollout: str, folder: Path | None = None) -> Path:
    if folder is None:
        folder = tmp_path / "strategies"
        folder.mkdir(exist_ok=True)
        (folder / "last_move.py").write_text(LAST_MOVE)
    path = tmp_path / "cfg.toml"
    path.write_text(
        f'[run]\nmatches = 6\nseed = 5\nout = "res"\nstrategies = ["{folder}"]\n'
        '[rules]\npreset = "seed-001"\n'
        f'[[players]]\nstrategy = "search"\nparams = {{ worlds = 1, rollout = {rollout} }}\n'
        '[[players]]\nstrategy = "greedy"\n'
    )
    return path


def test_a_rollout_is_a_strategys_name(tmp_path: Path, shared: Path) -> None:
    cfg = load_config(_project(tmp_path, '"last_move"', shared))
    assert cfg.players[0].params["rollout"] == "last_move"
    # the built-in rollouts' names are their numbers: the same player, the same run
    by_name = load_config(_project(tmp_path, '"counter"', shared))
    by_number = load_config(_project(tmp_path, "2", shared))
    assert by_name.players == by_number.players
    assert run_id(config_identity(by_name)) == run_id(config_identity(by_number))


def test_a_player_is_named_by_the_strategy_it_names(tmp_path: Path, shared: Path) -> None:
    """Named by default as a sweep's player is (the summary shows what it rolls out
    with); a name that is a number is that number, not a strategy of its own; a name
    given is kept; a sweep of another parameter keeps the rollout in its players' names."""
    cfg = load_config(_project(tmp_path, '"last_move"', shared))
    assert cfg.players[0].name == "search[rollout=last_move]"
    assert load_config(_project(tmp_path, '"counter"', shared)).players[0].name == "search"
    path = _project(tmp_path, '"last_move"', shared)
    text = path.read_text()
    path.write_text(text.replace('strategy = "search"', 'strategy = "search"\nname = "s"'))
    assert load_config(path).players[0].name == "s"
    path.write_text(text.replace("worlds = 1", "worlds = [1, 2]"))
    names = [p.name for p in load_config(path).players]
    assert names[:2] == ["search[rollout=last_move,worlds=1]", "search[rollout=last_move,worlds=2]"]


def test_a_sweep_of_rollouts_is_one_player_each(tmp_path: Path, shared: Path) -> None:
    cfg = load_config(_project(tmp_path, '["greedy", "last_move"]', shared))
    assert [(p.name, p.params["rollout"]) for p in cfg.players[:2]] == [
        ("search[rollout=greedy]", 0.0),
        ("search[rollout=last_move]", "last_move"),
    ]


def test_the_named_strategys_files_are_in_the_run_id(tmp_path: Path) -> None:
    before = run_id(config_identity(load_config(_project(tmp_path, '"last_move"'))))
    path = _project(tmp_path, '"last_move"')
    (tmp_path / "strategies" / "last_move.py").write_text(LAST_MOVE + "# edited\n")
    assert run_id(config_identity(load_config(path))) != before


@pytest.mark.parametrize(
    ("rollout", "expected"),
    [
        (
            '"last_mov"',
            ["'params.rollout' = 'last_mov' is not a known strategy", "mean 'last_move'?"],
        ),
        ('"search"', ["'params.rollout' = 'search' is 'search' itself", "1 (longest_train)"]),
        ('"broken"', ["'params.rollout' = 'broken' cannot be loaded", "broken.py"]),
        ("true", ["'params.rollout' must be a number, a strategy's name or a non-empty"]),
        ("[]", ["'params.rollout' must be a number, a strategy's name", "got [] (default: 1)"]),
        ("1.5", ["'params.rollout' = 1.5 is none of its numbers", "0 (greedy), 1 ("]),
        ("[0, 2.5]", ["'params.rollout' = 2.5 is none of its numbers"]),
        ('["greedy", 0]', ["lists a value twice"]),
    ],
)
def test_a_bad_rollout_is_one_line(
    tmp_path: Path, shared: Path, rollout: str, expected: list[str]
) -> None:
    path = _project(tmp_path, rollout, shared)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert "\n" not in message and str(path) in message
    for part in expected:
        assert part in message


def test_another_parameter_takes_no_name(tmp_path: Path, shared: Path) -> None:
    path = _project(tmp_path, "1", shared)
    path.write_text(path.read_text().replace("worlds = 1", 'worlds = "last_move"'))
    with pytest.raises(ConfigError, match=r"'params.worlds' must be a number or a non-empty"):
        load_config(path)


@pytest.mark.compiles
def test_a_run_with_a_users_rollout_is_the_same_on_any_workers(
    tmp_path: Path, shared: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    path = _project(tmp_path, '"last_move"', shared)
    files = {}
    for workers in ("1", "2"):
        result = run_cli(path, "--workers", workers, "--out", f"w{workers}", "--quiet")
        assert result.exit_code == 0, result.output
        files[workers] = (tmp_path / f"w{workers}" / "matches.parquet").read_bytes()
    assert files["1"] == files["2"]


@pytest.mark.compiles
def test_a_rollout_that_raises_is_named_in_one_line(
    tmp_path: Path, shared: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = run_cli(_project(tmp_path, '"boom"', shared), "--workers", "1", "--quiet")
    assert result.exit_code == 1, result.output  # a strategy misbehaved (docs/interface.md)
    assert result.output.count("\n") == 1
    assert "strategy 'search with rollout boom' (seat 0)" in result.output
    assert "raised ValueError: too many moves" in result.output


@pytest.mark.compiles
@pytest.mark.processes
def test_a_rollout_that_writes_over_its_view_harms_no_world(
    tmp_path: Path, shared: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a process of its own with a time limit: the bug it guards against was a hang
    path = _project(tmp_path, '"scribbler"', shared)
    proc = mexsim_in(tmp_path, "run", str(path), "--workers", "1", "--quiet", timeout=400)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.compiles
def test_a_rollout_choosing_an_impossible_move_is_named_in_one_line(
    tmp_path: Path, shared: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = run_cli(_project(tmp_path, '"stray"', shared), "--workers", "1", "--quiet")
    assert result.exit_code == 1, result.output  # a strategy misbehaved (docs/interface.md)
    assert result.output.count("\n") == 1
    assert "strategy 'search with rollout stray' (seat 0)" in result.output
    assert "its rollout policy chose a move outside the legal moves" in result.output
