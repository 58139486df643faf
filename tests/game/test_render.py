"""mexsim.game.render: a hand-made trace (docs/interface.md, "Game trace") told as text."""

from __future__ import annotations

from typing import Any

from mexsim.game.render import render_text, tile_text

PLAYERS = [
    {"seat": 0, "player": "greedy", "strategy": "greedy"},
    {"seat": 1, "player": "random", "strategy": "random"},
]
RULES = {
    "preset": "seed-001",
    "max_pip": 3,
    "first_turn": "train",
    "engine": "holder",
    "draw_to_start": False,
    "double_blank_points": 0,
    "hand_size": 4,
}

# A legal blocked round of a double-3 game, seed-001 rules, two players:
# seat 0 places the engine and chains 3|1, 1|1 (R12: draws 1|0 and satisfies it);
# seat 1 chains 3|2, 2|1; seat 0 draws the last tile 3|0 and plays it; then nobody
# can play: seat 1 and seat 0 pass (marking their trains, R8), seat 1 passes again (R15).
BLOCKED_MATCH: list[dict[str, Any]] = [
    {"event": "match", "match": 7, "seed": 2026, "players": PLAYERS, "rules": RULES},
    {
        "event": "deal",
        "round": 0,
        "engine": 3,
        "hands": [[[3, 3], [1, 3], [1, 1], [2, 2]], [[2, 3], [0, 0], [1, 2], [0, 2]]],
        "boneyard": [[0, 1], [0, 3]],
    },
    {"event": "engine", "round": 0, "seat": 0},
    {"event": "play", "round": 0, "seat": 0, "tile": [1, 3], "train": 0},
    {"event": "play", "round": 0, "seat": 0, "tile": [1, 1], "train": 0},
    {"event": "draw", "round": 0, "seat": 0, "tile": [0, 1]},
    {"event": "play", "round": 0, "seat": 0, "tile": [0, 1], "train": 0},
    {"event": "play", "round": 0, "seat": 1, "tile": [2, 3], "train": 1},
    {"event": "play", "round": 0, "seat": 1, "tile": [1, 2], "train": 1},
    {"event": "draw", "round": 0, "seat": 0, "tile": [0, 3]},
    {"event": "play", "round": 0, "seat": 0, "tile": [0, 3], "train": 0},
    {"event": "pass", "round": 0, "seat": 1},
    {"event": "pass", "round": 0, "seat": 0},
    {"event": "pass", "round": 0, "seat": 1},
    {"event": "round_end", "round": 0, "reason": "blocked", "penalties": [4, 2]},
    {"event": "match_end", "totals": [4, 2]},
]


def lines_of(events: list[dict[str, Any]]) -> list[str]:
    return [line.strip() for line in render_text(events).splitlines()]


def test_tile_text_puts_the_higher_half_first() -> None:
    assert tile_text([5, 12]) == "12|5"
    assert tile_text((12, 5)) == "12|5"
    assert tile_text([0, 0]) == "0|0"


def test_blocked_round_lines() -> None:
    lines = lines_of(BLOCKED_MATCH)
    expected = [
        "Match 7 (seed 2026)",
        "seat 0: greedy [greedy]",
        "Round 0 — engine 3|3",
        "seat 0 (greedy), 4 tiles, 16 pips: 3|3 3|1 2|2 1|1",
        "seat 1 (random), 4 tiles, 10 pips: 3|2 2|1 2|0 0|0",
        "boneyard: 2 tiles",
        "seat 0 (greedy) places the engine 3|3 and starts",
        "seat 0 (greedy) plays 3|1 on its own train — open end 1",
        "seat 0 (greedy) plays 1|1 on its own train — open end 1 (double: plays again)",
        "seat 0 (greedy) draws 1|0 — boneyard 1",
        "seat 0 (greedy) plays 1|0 on its own train — open end 0 (satisfies the double 1|1)",
        "seat 1 (random) plays 3|2 on its own train — open end 2",
        "seat 1 (random) plays 2|1 on its own train — open end 1",
        "seat 0 (greedy) draws 3|0 — boneyard 0",
        "seat 0 (greedy) plays 3|0 on its own train — open end 3",
        "seat 1 (random) cannot play, passes: train opened",
        "seat 0 (greedy) cannot play, passes: train opened",
        "seat 1 (random) cannot play, passes (train already open)",
        "End of round 0: blocked (nobody can play and the boneyard is empty)",
        "seat 0 *: 3|3 · 3|1 · 1|1 · 1|0 · 3|0 → 3",
        "seat 1 *: 3|3 · 3|2 · 2|1 → 1",
        "Mexican: 3|3 → 3",
        "seat 0 (greedy):   4   total    4   (2|2)",
        "seat 1 (random):   2   total    2   (2|0 0|0)",
        "Winner: seat 1 (random) with 2",
    ]
    for line in expected:
        assert line in lines, line
    # actions appear in trace order
    positions = [lines.index(line) for line in expected]
    assert positions == sorted(positions)


def test_set_aside_engine_mexican_double_and_going_out() -> None:
    # (from here on the traces need not be legal games: only the wording is tested)
    events = [
        {
            "event": "match",
            "match": 0,
            "seed": 1,
            "rules": {"engine": "set_aside"},
            "players": [
                {"seat": 0, "player": "ann", "strategy": "greedy"},
                {"seat": 1, "player": "bob", "strategy": "random"},
            ],
        },
        {
            "event": "deal",
            "round": 0,
            "engine": 5,
            "hands": [[[5, 5], [2, 5]], [[1, 2]]],
            "boneyard": [[0, 0]],
        },
        {"event": "engine", "round": 0, "seat": 1},
        {"event": "draw", "round": 0, "seat": 1, "tile": [0, 0]},
        {"event": "pass", "round": 0, "seat": 1},
        {"event": "play", "round": 0, "seat": 0, "tile": [5, 5], "train": "mexican"},
        {"event": "play", "round": 0, "seat": 0, "tile": [2, 5], "train": 1},
        {"event": "round_end", "round": 0, "reason": "out", "penalties": [0, 3]},
    ]
    lines = lines_of(events)
    for line in [
        "the engine 5|5 stands in the centre; seat 1 (bob) starts",
        "seat 1 (bob) draws 0|0 — boneyard 0",
        "seat 1 (bob) cannot play, passes: train opened",
        "seat 0 (ann) plays 5|5 on the Mexican train — open end 5 (double: plays again)",
        "seat 0 (ann) plays 5|2 on seat 1's train — open end 2 (goes out)",
        "End of round 0: seat 0 (ann) went out",
        "seat 1 *: 5|5 · 5|2 → 2",
        "Mexican: 5|5 · 5|5 → 5",
    ]:
        assert line in lines, line


def test_marker_removed_when_the_owner_plays_and_engine_search_draws() -> None:
    # no "match" event: seats are shown without names
    events = [
        {
            "event": "deal",
            "round": 2,
            "engine": 4,
            "hands": [[[1, 4], [0, 1]], [[2, 3]]],
            "boneyard": [[4, 4], [0, 2]],
        },
        {"event": "draw", "round": 2, "seat": 0, "tile": [4, 4]},
        {"event": "engine", "round": 2, "seat": 0},
        {"event": "pass", "round": 2, "seat": 1},
        {"event": "pass", "round": 2, "seat": 0},
        {"event": "play", "round": 2, "seat": 0, "tile": [1, 4], "train": 0},
        {"event": "play", "round": 2, "seat": 1, "tile": [1, 0], "train": 0},
    ]
    lines = lines_of(events)
    assert "seat 0 draws 4|4 (looking for the engine) — boneyard 1" in lines
    assert "seat 0 places the engine 4|4 and starts" in lines
    assert "seat 0 plays 4|1 on its own train — open end 1 (marker removed)" in lines
    assert "seat 1 plays 1|0 on seat 0's train — open end 0" in lines


def test_tied_winners_are_all_listed() -> None:
    events = [
        {
            "event": "match",
            "match": 3,
            "seed": 0,
            "rules": {},
            "players": [
                {"seat": s, "player": n, "strategy": "random"}
                for s, n in enumerate(["a", "b", "c"])
            ],
        },
        {"event": "match_end", "totals": [30, 12, 12]},
    ]
    lines = lines_of(events)
    assert "Winners (tied at 12, sharing the win): seat 1 (b), seat 2 (c)" in lines
    assert lines.index("seat 1 (b): 12") < lines.index("seat 0 (a): 30")


def test_running_totals_add_up_over_rounds() -> None:
    second_round = [
        {
            "event": "deal",
            "round": 1,
            "engine": 2,
            "hands": [[[2, 2], [1, 2]], [[0, 1], [0, 2]]],
            "boneyard": [[1, 1]],
        },
        {"event": "engine", "round": 1, "seat": 0},
        {"event": "play", "round": 1, "seat": 0, "tile": [1, 2], "train": 0},
        {"event": "round_end", "round": 1, "reason": "out", "penalties": [0, 3]},
        {"event": "match_end", "totals": [4, 5]},
    ]
    events = BLOCKED_MATCH[:-1] + second_round
    lines = lines_of(events)
    assert "seat 0 (greedy) plays 2|1 on its own train — open end 1 (goes out)" in lines
    assert "End of round 1: seat 0 (greedy) went out" in lines
    assert "seat 0 (greedy):   0   total    4   (no tiles)" in lines
    assert "seat 1 (random):   3   total    5   (2|0 1|0)" in lines
    assert "Winner: seat 0 (greedy) with 4" in lines
    assert "!!" not in render_text(events)


def test_text_ends_with_a_newline_and_unknown_events_are_shown() -> None:
    text = render_text([{"event": "mystery", "x": 1}])
    assert text.endswith("\n")
    assert "unknown event" in text


def test_a_seat_shows_the_parameters_its_player_plays() -> None:
    players = [
        {
            "seat": 0,
            "player": "search[rollout=mine]",
            "strategy": "search",
            "params": {"worlds": 8.0, "rollout": "mine", "infer": 1.0},
        },
        {"seat": 1, "player": "lt", "strategy": "longest_train", "params": {"pip_weight": 0.5}},
    ]
    header = {"event": "match", "match": 0, "seed": 1, "players": players, "rules": RULES}
    lines = lines_of([header])
    assert "seat 0: search[rollout=mine] [search: worlds=8, rollout=mine, infer=1]" in lines
    assert "seat 1: lt [longest_train: pip_weight=0.5]" in lines
