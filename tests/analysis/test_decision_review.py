"""`mexsim analyze` (mexsim/analysis/decision_review.py): every decision of a recorded
match found as the referee finds them, each seen from its seat's view only, and rated:
zero where the choice is the best in every world, the gap where it is constructed bad."""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from mexsim.analysis.decision_review import (
    COLUMNS,
    decisions,
    rate,
    read_trace,
)
from mexsim.cli import app
from mexsim.game import view as V
from mexsim.game.referee import offered_moves
from mexsim.tournament.config import load_config
from mexsim.tournament.replay import trace_match
from tests.test_cli import assert_usage_error

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = ROOT / "configs" / "default.toml"
WORLDS = 48


@cache
def match_trace(match: int) -> tuple[dict, ...]:
    return tuple(trace_match(load_config(DEFAULT), match))


def events(match: int) -> list[dict]:
    return copy.deepcopy(list(match_trace(match)))


def write_trace(path: Path, evs: list[dict]) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in evs), encoding="utf-8")
    return path


def test_the_decisions_are_the_plays_the_referee_finds_with_a_choice() -> None:
    evs = events(0)
    offered = offered_moves(evs)
    with_choice = [k for k, moves in sorted(offered.items()) if len(moves) >= 2]
    found = decisions(evs)
    assert len(found) == len(with_choice)
    for d, k in zip(found, with_choice, strict=True):
        play = evs[k]
        assert (d.round, d.seat) == (play["round"], play["seat"])
        assert len(d.moves) == len(offered[k])
        assert offered[k][d.chosen][1] == play["train"]
        assert sorted(offered[k][d.chosen][0]) == sorted(play["tile"])
        # the seat's own view: its seat, its hand, no other's (R17)
        assert d.view[V.SEAT] == d.seat
        assert d.view[V.N_MOVES] == len(d.moves)


def test_each_seat_sees_only_its_own_hand() -> None:
    evs = events(1)
    for d in decisions(evs)[:40]:
        hand = [t for t in range(91) if (int(d.view[V.HAND + (t >> 6)]) >> (t & 63)) & 1]
        assert len(hand) == d.view[V.HAND_SIZE + d.seat]


def test_a_rating_is_the_chosen_moves_expected_penalty_less_the_best() -> None:
    found = decisions(events(2), seats=[1])
    assert {d.seat for d in found} == {1}
    rated = rate(found[:25], WORLDS, workers=2)
    again = rate(found[:25], WORLDS, workers=1)
    for r, r2 in zip(rated, again, strict=True):
        assert r.lost == pytest.approx(r.expected[r.decision.chosen] - r.expected.min())
        assert r.best == int(np.argmin(r.expected))
        assert r.low <= r.lost <= r.high
        assert r.lost == r2.lost  # the same worlds on any number of threads


def test_a_choice_that_is_best_in_every_world_loses_nothing() -> None:
    """With one tile left that fits two trains, every move goes out: 0 in every world."""
    last_tile = [
        d for m in range(4) for d in decisions(events(m)) if d.view[V.HAND_SIZE + d.seat] == 1
    ]
    assert last_tile
    for r in rate(last_tile, WORLDS):
        assert r.lost == 0 and r.low == 0 and r.high == 0
        assert not r.expected.any()


def test_a_move_constructed_to_be_bad_loses_its_gap() -> None:
    evs = events(3)
    found = decisions(evs)
    rated = rate(found[:60], WORLDS)
    worst_gap = max(rated, key=lambda r: r.expected.max() - r.expected.min())
    d = worst_gap.decision
    worst = int(np.argmax(worst_gap.expected))
    # the trace up to that decision, its play replaced by the worst move
    k = [i for i, e in enumerate(evs) if e.get("event") == "play"]
    plays_with_choice = [i for i in k if len(offered_moves(evs)[i]) >= 2]
    at = plays_with_choice[found.index(d)]
    tile, train = offered_moves(evs)[at][worst]
    cut = evs[: at + 1]
    cut[at] = dict(cut[at], tile=tile, train=train)
    (bad,) = rate(decisions(cut)[-1:], WORLDS)
    assert bad.decision.chosen == worst
    assert bad.lost == pytest.approx(worst_gap.expected.max() - worst_gap.expected.min())
    assert bad.low > 0


@pytest.mark.slow
def test_the_command_writes_the_table_and_the_plot(tmp_path: Path) -> None:
    trace = write_trace(tmp_path / "m.jsonl", events(0))
    result = CliRunner().invoke(
        app, ["analyze", str(trace), "--seat", "2", "--worlds", "16", "--quiet"]
    )
    assert result.exit_code == 0, result.output
    folder = tmp_path / "m-analysis"
    assert f"wrote {folder / 'analysis.csv'}" in result.stdout
    assert result.stdout.startswith("seat 2 (")
    rows = (folder / "analysis.csv").read_text(encoding="utf-8").splitlines()
    assert rows[0] == ",".join(COLUMNS)
    assert len(rows) - 1 == len(decisions(events(0), seats=[2]))
    assert (folder / "lost_by_round.png").stat().st_size > 1000


@pytest.mark.parametrize(
    ("content", "args", "message"),
    [
        (None, [], "no such trace"),
        ("{not json\n", [], ":1: not JSON"),
        ('{"event": "in_progress", "your_moves": []}\n', [], "still being played"),
        ("broken", [], "not JSON"),
        ("rule", [], "not a valid match trace"),
        ("ok", ["--seat", "9"], "--seat 9 is not at the table"),
    ],
)
def test_bad_input_is_one_line(
    tmp_path: Path, content: str | None, args: list[str], message: str
) -> None:
    trace = tmp_path / "t.jsonl"
    if content == "rule":  # a tile nobody held
        evs = events(0)
        play = next(e for e in evs if e.get("event") == "play")
        play["tile"] = [12, 11] if play["tile"] != [12, 11] else [12, 10]
        write_trace(trace, evs)
    elif content == "ok":
        write_trace(trace, events(0))
    elif content is not None:
        trace.write_text(content, encoding="utf-8")
    assert_usage_error(CliRunner().invoke(app, ["analyze", str(trace), *args]), message)
    assert not (tmp_path / "t-analysis").exists()


def test_a_folder_is_not_a_trace(tmp_path: Path) -> None:
    with pytest.raises(Exception, match="is a folder"):
        read_trace(tmp_path)
