"""The referee against the engine: it accepts every core-generated game and rejects
mutated ones, naming the broken rule (both directions)."""

from __future__ import annotations

import copy

import pytest

from mexsim.game.play import core_trace
from mexsim.game.referee import RefereeError, check_trace
from mexsim.game.rules import resolve_rules
from mexsim.strategy.policy import resolve_policies

PRESETS = ("seed-001", "seed-000", "standard")
SEATS = ("greedy", "random")


def header(rules, match, seed):
    return {
        "event": "match",
        "match": match,
        "seed": seed,
        "players": [
            {"seat": s, "player": f"p{s}", "strategy": SEATS[s % 2]} for s in range(rules.players)
        ],
        "rules": rules.to_dict(),
    }


def trace(preset: str, players: int, match: int, seed: int = 7, **options) -> list[dict]:
    rules = resolve_rules({"preset": preset, **options}, players)
    seats = resolve_policies([SEATS[s % 2] for s in range(players)])
    return core_trace(rules, seats, seed, match, header=header(rules, match, seed))


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("players", range(2, 11))
def test_referee_accepts_core_games(preset, players):
    """27 tables x 80 matches: 2,160 complete games, every one legal."""
    for match in range(80):
        check_trace(trace(preset, players, match))


@pytest.mark.parametrize(
    "options",
    [
        {"draw_to_start": True, "first_turn": "train"},
        {"engine": "set_aside", "first_turn": "train", "double_blank_points": 50},
        {"max_pip": 15, "hand_size": 12},
        {"max_pip": 9, "hand_size": 7, "engine": "set_aside"},
        {"max_pip": 6, "hand_size": 3, "draw_to_start": True},
    ],
)
def test_referee_accepts_core_games_under_other_options(options):
    for match in range(40):
        check_trace(trace("seed-000", 4, match, **options))


def first(events, predicate):
    return next(i for i, e in enumerate(events) if predicate(e))


def rejects(events) -> RefereeError:
    with pytest.raises(RefereeError) as info:
        check_trace(events)
    return info.value


@pytest.fixture(scope="module")
def game() -> list[dict]:
    return trace("seed-001", 4, 3)


def test_dropped_draw_is_rejected(game):
    events = copy.deepcopy(game)
    # a draw followed by a pass: without the draw, the pass came without drawing (R10)
    i = next(
        k
        for k in range(len(events) - 1)
        if events[k]["event"] == "draw" and events[k + 1]["event"] == "pass"
    )
    del events[i]
    assert rejects(events).rule in {"R10", "R9", "R5"}


def test_illegal_train_is_rejected(game):
    events = copy.deepcopy(game)
    i = first(events, lambda e: e["event"] == "play" and e["train"] == "mexican")
    seat = events[i]["seat"]
    closed = next(s for s in range(4) if s != seat)
    events[i]["train"] = closed  # a tile on someone else's (unmarked or ill-fitting) train
    err = rejects(events)
    assert err.rule in {"R6", "R7", "R13"}
    assert err.index == i


def test_extra_play_is_rejected(game):
    events = copy.deepcopy(game)
    i = first(events, lambda e: e["event"] == "play" and e["round"] == 2)
    events.insert(i + 1, dict(events[i]))  # the same tile played twice
    assert rejects(events).index == i + 1


def test_wrong_total_is_rejected(game):
    events = copy.deepcopy(game)
    events[-1]["totals"][0] += 1
    assert rejects(events).rule == "R4"


def test_wrong_penalty_is_rejected(game):
    events = copy.deepcopy(game)
    i = first(events, lambda e: e["event"] == "round_end")
    events[i]["penalties"][1] += 5
    assert rejects(events).rule == "R16"


def test_ignored_open_double_is_rejected():
    """Find a duty turn in core games and make the mover play elsewhere (R13)."""
    for match in range(50):
        events = trace("standard", 4, match)
        last_tile: dict = {}
        for i, e in enumerate(events):
            if e["event"] == "deal":
                last_tile = {}
            if e["event"] != "play":
                continue
            duty = events[i - 1]["seat"] != e["seat"] and any(a == b for a, b in last_tile.values())
            if duty:
                mutated = copy.deepcopy(events)
                mutated[i]["train"] = "mexican" if e["train"] != "mexican" else e["seat"]
                err = rejects(mutated)
                assert err.rule in {"R13", "R6"}
                assert err.index == i
                return
            last_tile[e["train"]] = e["tile"]
    pytest.fail("no duty turn found in 50 matches")


def test_round_that_should_have_ended_is_rejected(game):
    """Strip the last play of a round that ended 'out': the round ends too early (R14)."""
    events = copy.deepcopy(game)
    i = first(events, lambda e: e["event"] == "round_end" and e["reason"] == "out")
    assert events[i - 1]["event"] == "play"
    del events[i - 1]
    assert rejects(events).index <= i - 1
