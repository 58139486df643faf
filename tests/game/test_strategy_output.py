"""What a strategy prints appears at its decision in `mexsim replay` (issue 35), and a
strategy may explain its choice for `replay --moves` (the built-ins that plan do)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mexsim.cli import app
from mexsim.game.referee import check_jsonl

pytestmark = pytest.mark.compiles

runner = CliRunner()

# prints, at each decision it is asked, the tile it chooses (the heaviest, as greedy)
TALKER = """
from mexsim.strategy.api import heavier, move_count, move_tile, my_seat, strategy, tile_text

NAME = "talker"
DESCRIPTION = "greedy, saying what it lays"


@strategy
def decide(view, params):
    best = 0
    for i in range(1, move_count(view)):
        if heavier(move_tile(view, i), move_tile(view, best)):
            best = i
    print("seat", my_seat(view), "lays", tile_text(view, move_tile(view, best)))
    return best
"""

# chooses the lightest move instead when asked to explain: a replay must refuse it
TURNCOAT = """
from mexsim.strategy.api import explaining, move_count, strategy

NAME = "turncoat"
DESCRIPTION = "plays otherwise when explaining"


@strategy
def decide(view, params):
    if explaining(view):
        print("explaining")
        return move_count(view) - 1
    return 0
"""


def project(tmp_path: Path, players: list[str], files: dict[str, str]) -> Path:
    folder = tmp_path / "strategies"
    folder.mkdir()
    for name, text in files.items():
        (folder / f"{name}.py").write_text(text, encoding="utf-8")
    tables = "".join(f'[[players]]\nstrategy = "{p}"\n' for p in players)
    config = tmp_path / "cfg.toml"
    config.write_text(
        f'[run]\nmatches = 4\nseed = 7\nstrategies = "strategies"\n\n'
        f'[rules]\npreset = "seed-001"\nmax_pip = 6\nhand_size = 7\n\n{tables}',
        encoding="utf-8",
    )
    return config


def replay(config: Path, *extra: str) -> str:
    result = runner.invoke(app, ["replay", str(config), "--match", "1", *extra])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_a_print_appears_after_the_move_it_was_printed_at(tmp_path: Path) -> None:
    config = project(tmp_path, ["talker", "greedy", "talker"], {"talker": TALKER})
    text = replay(config)
    lines = text.splitlines()
    said = [k for k, line in enumerate(lines) if line.startswith("    > ")]
    assert said, text
    assert "Match 1" in lines[0] + lines[1]  # nothing printed before the narrative
    for k in said:
        seat, tile = re.fullmatch(r"    > seat (\d) lays (\d+\|\d+)", lines[k]).groups()
        move = lines[k - 1]
        assert move.startswith(f"seat {seat} (talker") and f" plays {tile} on " in move, lines[
            k - 1 : k + 1
        ]
    # a forced move is played without asking: never followed by a print
    plays = [k for k, line in enumerate(lines) if " (talker" in line and " plays " in line]
    assert len(said) < len(plays)


def test_prints_are_print_events_in_the_jsonl_trace_and_the_referee_passes_them(
    tmp_path: Path,
) -> None:
    config = project(tmp_path, ["talker", "greedy"], {"talker": TALKER})
    text = replay(config, "--format", "jsonl")
    events = [json.loads(line) for line in text.splitlines()]  # every line is JSON
    check_jsonl(text)
    said = [k for k, ev in enumerate(events) if ev["event"] == "print"]
    assert said
    for k in said:
        ev, move = events[k], events[k + 1]
        assert set(ev) == {"event", "round", "seat", "text"}
        assert move["event"] == "play" and (move["seat"], move["round"]) == (
            ev["seat"],
            ev["round"],
        )
        high, low = ev["text"].split()[-1].split("|")
        assert sorted(move["tile"]) == sorted([int(high), int(low)])


def test_the_planners_explain_their_plan_with_moves(tmp_path: Path) -> None:
    config = project(tmp_path, ["longest_train", "counter", "greedy"], {})
    plain = replay(config)
    assert "    > " not in plain  # only --moves asks the built-ins why
    text = replay(config, "--moves")
    lines = text.splitlines()
    planner = re.compile(r"seat \d \((longest_train|counter)")
    for k, line in enumerate(lines):
        if line.startswith("    chose from") and planner.match(lines[k - 1]):
            assert lines[k + 1].startswith("    > plan"), lines[k - 1 : k + 2]
    plans = [line for line in lines if line.startswith("    > plan for its own train (")]
    assert any("(new)" in p for p in plans) and any("(kept)" in p for p in plans)
    # the moves themselves are the run's: the same narrative without the explanations
    assert [line for line in lines if not line.startswith("    ")] == [
        line for line in plain.splitlines() if not line.startswith("    ")
    ]


def test_a_strategy_that_plays_otherwise_when_explaining_is_refused(tmp_path: Path) -> None:
    config = project(tmp_path, ["greedy", "turncoat"], {"turncoat": TURNCOAT})
    assert "explaining" not in replay(config)
    result = runner.invoke(app, ["replay", str(config), "--match", "1", "--moves"])
    assert result.exit_code != 0
    message = result.stderr.strip().splitlines()
    assert len(message) == 1, result.stderr
    assert "strategy 'turncoat' (seat" in message[0] and "explain" in message[0]
    assert "Traceback" not in result.output


def test_a_check_counts_a_strategys_prints_and_checks_it_across_processes(
    tmp_path: Path,
) -> None:
    """A printing strategy passes the check (the second process's prints were read as
    its choices: an internal error), and its thousands of lines are counted, not shown."""
    config = project(tmp_path, ["talker", "greedy"], {"talker": TALKER})
    path = config.parent / "strategies" / "talker.py"
    result = runner.invoke(app, ["check", str(path), "--examples", "5"])
    assert result.exit_code == 0, result.output
    assert "lays" not in result.stdout
    assert "talker: passed" in result.stdout
    assert re.search(r"note: it printed [\d,]+ lines while deciding, not shown here", result.stdout)


def test_a_run_counts_a_strategys_prints_and_shows_its_own_output(tmp_path: Path) -> None:
    config = project(tmp_path, ["talker", "greedy"], {"talker": TALKER})
    out = tmp_path / "out"
    result = runner.invoke(app, ["run", str(config), "--out", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    assert "lays" not in result.stdout and "lays" not in result.stderr
    assert "4 matches in" in result.stdout
    assert re.search(r"the strategies printed [\d,]+ lines while deciding", result.stderr)
