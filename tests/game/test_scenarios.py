"""Hand-built rounds, one or more per rule id (docs/rules.md, R1–R16).

Every deal uses a double-6 set and the deterministic "greedy" strategy (heaviest tile =
lowest tile number; ties: own train, Mexican, then the other trains clockwise), so each
round's course can be worked out by hand from docs/rules.md. Every round is played by
both engines — the pure-Python reference and the numba core — which must emit identical
events; the test then checks the course of the round step by step.

A step is written compactly: "0 56>1" = seat 0 plays 5|6 on train 1 ("M" = Mexican),
"1 +34" = seat 1 draws 3|4, "2 pass", "1 engine" (the seat that placed the engine /
takes the first turn), and the round's end as "out [penalties]" / "blocked [penalties]".
Round 0 (engine 6|6) and the "standard"-like options below are the default.
"""

from __future__ import annotations

import pytest

from mexsim.errors import ConfigError
from mexsim.game.enums import Field
from mexsim.game.play import play_dealt_round
from mexsim.game.reference import Round, make_players, static_view
from mexsim.game.rules import default_hand_size, resolve_rules, tile_count
from mexsim.game.tiles import tile_set
from mexsim.strategy.policy import resolve_policies

TS6 = tile_set(6)
BASE = {"max_pip": 6, "engine": "set_aside", "first_turn": "single", "draw_to_start": False}


def tiles(pairs):
    return [int(TS6.index[a, b]) for a, b in pairs]


def play(hands, boneyard, r=0, **options):
    """Play round r of a hand-made deal in both engines; returns (res[seat, field], events).

    ``hands``/``boneyard`` are (a, b) pairs; the player count and hand size follow from
    ``hands``; ``options`` override BASE.
    """
    P = len(hands)
    rules = resolve_rules({**BASE, "hand_size": len(hands[0]), **options}, P)
    hand_tiles, bone_tiles = [tiles(h) for h in hands], tiles(boneyard)
    ref_events: list[dict] = []
    result = Round(
        rules,
        r,
        [list(h) for h in hand_tiles],
        list(bone_tiles),
        make_players(rules, resolve_policies(["greedy"] * P), 0, 0),
        static_view(rules, 0),
        ref_events.append,
    ).play_round()
    res, core_events = play_dealt_round(
        rules, resolve_policies(["greedy"] * P), r, hand_tiles, bone_tiles
    )
    assert core_events == ref_events
    assert res[:, Field.penalty].tolist() == result.penalties
    assert res[:, Field.tiles_left].tolist() == result.tiles_left
    assert res[:, Field.tiles_played].tolist() == result.tiles_played
    assert res[:, Field.draws].tolist() == result.draws
    assert res[:, Field.blocked].tolist() == [int(result.blocked)] * P
    assert res[:, Field.went_out].tolist() == [int(s == result.went_out) for s in range(P)]
    return res, ref_events


def step(e: dict) -> str:
    kind = e["event"]
    if kind == "play":
        a, b = e["tile"]
        return f"{e['seat']} {a}{b}>{'M' if e['train'] == 'mexican' else e['train']}"
    if kind == "draw":
        a, b = e["tile"]
        return f"{e['seat']} +{a}{b}"
    if kind in ("pass", "engine"):
        return f"{e['seat']} {kind}"
    assert kind == "round_end"
    return f"{e['reason']} {e['penalties']}"


def steps(events: list[dict]) -> list[str]:
    assert events[0]["event"] == "deal"
    return [step(e) for e in events[1:]]


# ------------------------------------------------------------------ R1–R4: set, seats, deal
def test_R1_tile_counts_and_heaviest_first_numbering():
    """R1: (N+1)(N+2)/2 tiles; docs/rules.md: numbered by value desc, then higher half desc."""
    for n, count in ((6, 28), (9, 55), (12, 91), (15, 136)):
        ts = tile_set(n)
        assert ts.count == tile_count(n) == count
        assert sorted(ts.tile(t) for t in range(count)) == [
            (a, b) for a in range(n + 1) for b in range(a, n + 1)
        ]
        assert ts.tile(0) == (n, n) and ts.tile(count - 1) == (0, 0)
        assert all(ts.pips[t] >= ts.pips[t + 1] for t in range(count - 1))
    assert [TS6.tile(t) for t in range(6)] == [(6, 6), (5, 6), (4, 6), (5, 5), (3, 6), (4, 5)]
    ts12 = tile_set(12)
    twelve = [ts12.tile(t) for t in range(ts12.count) if ts12.pips[t] == 12]
    assert twelve == [(0, 12), (1, 11), (2, 10), (3, 9), (4, 8), (5, 7), (6, 6)]


@pytest.mark.slow
def test_R2_play_goes_clockwise_from_the_first_player():
    """R2: seat s is followed by (s+1) mod P; round 1 of 3 players starts at seat 1 (R5)."""
    _, ev = play([[(2, 5), (0, 0)], [(4, 5), (0, 1)], [(3, 5), (0, 2)]], [(1, 1)], r=1)
    assert steps(ev) == [
        "1 engine",
        "1 45>1",
        "2 35>2",
        "0 25>0",
        "1 +11",
        "1 pass",
        "2 pass",
        "0 pass",
        "1 pass",
        "2 02>0",
        "out [0, 3, 0]",
    ]
    for players in (1, 11):
        with pytest.raises(ConfigError, match="players"):
            resolve_rules({}, players)


def test_R3_hand_sizes_and_deal_that_does_not_fit():
    """R3: the double-12 table; hand_size needed off double-12; >= 1 tile left to draw."""
    table = {2: 15, 3: 15, 4: 15, 5: 12, 6: 12, 7: 10, 8: 10, 9: 8, 10: 8}
    for players, size in table.items():
        assert default_hand_size(players) == size
        assert resolve_rules({}, players).hand_size == size
        assert resolve_rules({"preset": "standard"}, players).hand_size == size
        # seed 000: "every player takes twelve" (ten for 7-8 players, eight for 9-10)
        seed_000 = 12 if players <= 6 else size
        assert default_hand_size(players, "seed-000") == seed_000
        assert resolve_rules({"preset": "seed-000"}, players).hand_size == seed_000
    assert resolve_rules({"preset": "seed-000", "hand_size": 15}, 4).hand_size == 15
    assert resolve_rules({"hand_size": 7}, 4).hand_size == 7
    with pytest.raises(ConfigError, match="hand_size"):
        resolve_rules({"max_pip": 6, "hand_size": 1}, 2)  # docs/rules.md: at least 2
    with pytest.raises(ConfigError, match="'hand_size' is required when max_pip = 6"):
        resolve_rules({"max_pip": 6}, 2)
    # 3 players, double-6: holder deals from 28 tiles (9 each fits: 27 + 1), set_aside
    # from 27 (9 each leaves an empty boneyard).
    assert resolve_rules({"max_pip": 6, "hand_size": 9, "engine": "holder"}, 3).hand_size == 9
    with pytest.raises(ConfigError, match="does not fit"):
        resolve_rules({"max_pip": 6, "hand_size": 9, "engine": "set_aside"}, 3)
    assert resolve_rules({"hand_size": 9}, 10).hand_size == 9  # 90 of 91 tiles + 1
    with pytest.raises(ConfigError, match="does not fit"):
        resolve_rules({"hand_size": 10}, 10)


@pytest.mark.parametrize("r", range(7))
def test_R4_round_r_uses_engine_N_minus_r(r):
    """R4: round r's engine is (N−r)|(N−r); every empty train's open end is that number."""
    e = 6 - r
    starter, other = r % 2, 1 - r % 2

    def t(a, b):
        return (min(a % 7, b % 7), max(a % 7, b % 7))

    hands = [[], []]
    hands[starter] = [t(e, e + 1), t(e, e + 2)]
    hands[other] = [t(e + 3, e + 4), t(e + 3, e + 5)]
    _, ev = play(hands, [t(e + 4, e + 5)], r=r)
    assert resolve_rules(BASE | {"hand_size": 2}, 2).rounds == 7
    assert ev[0]["engine"] == e
    assert ev[1] == {"event": "engine", "round": r, "seat": starter}
    first = ev[2]
    assert first["event"] == "play" and first["seat"] == starter and first["train"] == starter
    assert e in first["tile"] and first["tile"] in (list(t(e, e + 1)), list(t(e, e + 2)))


# ------------------------------------------------------------------ R5: engine, first player
def test_R5_holder_places_the_engine_and_starts():
    """R5 holder: the seat holding the round's double places it and takes the first turn."""
    _, ev = play(
        [[(1, 2), (0, 3), (0, 1)], [(6, 6), (5, 6), (4, 4)]], [(2, 2), (3, 3)], engine="holder"
    )
    assert steps(ev) == [
        "1 engine",
        "1 56>1",
        "0 +22",
        "0 pass",
        "1 +33",
        "1 pass",
        "0 pass",
        "blocked [11, 14]",
    ]


def test_R5_nobody_holds_the_engine_clockwise_draws_from_seat_r_mod_P():
    """R5 holder: nobody holds 5|5 (round 1): seats draw from seat 1 clockwise until it turns
    up; the drawer places it and starts; every other drawn tile stays in its drawer's hand."""
    res, ev = play(
        [[(0, 4), (0, 0)], [(4, 5), (1, 2)], [(3, 4), (0, 2)]],
        [(1, 6), (2, 6), (3, 6), (5, 5)],
        r=1,
        engine="holder",
    )
    assert steps(ev) == [
        "1 +16",
        "2 +26",
        "0 +36",
        "1 +55",
        "1 engine",
        "1 45>1",
        "2 pass",
        "0 pass",
        "1 pass",
        "2 34>1",
        "0 36>1",
        "1 16>1",
        "2 pass",
        "0 pass",
        "1 12>1",
        "out [4, 0, 10]",
    ]
    assert res[:, Field.draws].tolist() == [1, 2, 1]  # the search draws count as draws


def test_R5_set_aside_engine_is_in_no_hand_and_seat_r_mod_P_starts():
    """R5 set_aside: 4|4 (round 2) is never dealt; seat 2 mod 3 = 2 takes the first turn
    (here a "train" first turn that goes out)."""
    _, ev = play(
        [[(0, 1), (0, 2)], [(1, 2), (0, 3)], [(4, 6), (6, 6)]], [(3, 3)], r=2, first_turn="train"
    )
    dealt = [tile for hand in ev[0]["hands"] for tile in hand] + ev[0]["boneyard"]
    assert ev[0]["engine"] == 4 and [4, 4] not in dealt
    assert steps(ev) == ["2 engine", "2 46>2", "2 66>2", "out [3, 6, 0]"]


# ------------------------------------------------------------------ R6–R8: trains, markers
def test_R6_empty_open_train_may_be_started_by_others():
    """R6: an empty train's open end is the engine number; a tile's other half becomes the
    new end (4|6 turns the Mexican end to 4); seat 1's empty marked train is started by
    seat 0 with 3|6."""
    _, ev = play([[(5, 6), (4, 6), (3, 6)], [(0, 1), (0, 2), (1, 2)]], [(1, 1), (2, 2)])
    assert steps(ev) == [
        "0 engine",
        "0 56>0",
        "1 +11",
        "1 pass",
        "0 46>M",
        "1 +22",
        "1 pass",
        "0 36>1",
        "out [0, 12]",
    ]


def test_R7_first_turn_own_train_only():
    """R7/R11: on a first turn neither the Mexican train (seat 0 keeps 1|6) nor a marked
    train (seat 2 keeps 2|3 and 3|4 while train 0 is open at 3) may be used; later they may.
    (Policy 1's first turn is a duty turn, R13.)"""
    _, ev = play(
        [[(5, 6), (5, 5), (1, 6)], [(3, 5), (0, 4), (0, 2)], [(2, 3), (1, 2), (1, 4)]],
        [(0, 0), (3, 4), (0, 1)],
        first_turn="train",
    )
    assert steps(ev) == [
        "0 engine",
        "0 56>0",
        "0 55>0",
        "0 +00",
        "0 pass",
        "1 35>0",
        "2 +34",
        "2 pass",
        "0 16>M",
        "1 +01",
        "1 01>M",
        "2 34>0",
        "0 00>M",
        "out [0, 6, 13]",
    ]


def test_R7_other_trains_only_while_marked():
    """R7: seat 0 may not play 1|4 on seat 1's unmarked train (draws, passes); seat 1 may
    play 2|5 on seat 0's train once it carries a marker."""
    _, ev = play([[(2, 6), (1, 4)], [(4, 6), (2, 5)]], [(0, 3)])
    assert steps(ev) == ["0 engine", "0 26>0", "1 46>1", "0 +03", "0 pass", "1 25>0", "out [8, 0]"]


def test_R8_marker_set_by_pass_removed_by_own_play():
    """R8: seat 0's pass opens train 0 (seat 1 plays 2|3 on it); seat 0's 3|4 on its own
    train removes the marker, so seat 1 may not play 1|4 there (draws, passes); seat 0's
    next pass marks it again and seat 1 plays 1|4."""
    _, ev = play([[(2, 6), (0, 0), (3, 4)], [(5, 6), (2, 3), (1, 4)]], [(0, 1), (1, 1)])
    assert steps(ev) == [
        "0 engine",
        "0 26>0",
        "1 56>1",
        "0 +01",
        "0 pass",
        "1 23>0",
        "0 34>0",
        "1 +11",
        "1 pass",
        "0 pass",
        "1 14>0",
        "0 01>0",
        "1 pass",
        "0 00>0",
        "out [0, 2]",
    ]


# ------------------------------------------------------------------ R9–R13: turns
def test_R9_R10_must_play_draw_one_play_it_if_it_fits_else_pass():
    """R9/R10: a player with a legal move plays it; without one they draw exactly one tile
    (seat 0 draws 2|4 and passes although 3|5 is left), play the drawn tile if it fits
    (4|6, 3|5), else pass; with an empty boneyard they pass at once."""
    _, ev = play([[(3, 6), (1, 1)], [(0, 5), (0, 2)]], [(4, 6), (2, 4), (3, 5)])
    assert steps(ev) == [
        "0 engine",
        "0 36>0",
        "1 +46",
        "1 46>1",
        "0 +24",
        "0 pass",
        "1 +35",
        "1 35>0",
        "0 pass",
        "1 05>0",
        "0 pass",
        "1 02>0",
        "out [8, 0]",
    ]


def test_R11_first_turn_train_chains_single_plays_one_tile():
    """R11 "train": seat 0 lays 3|6, 3|5, 2|5 and stops without drawing; seat 1's chain ends
    on the double 4|4, so it draws 2|4, lays it and goes on (nothing fits: the turn ends).
    "single": the same deal, one tile per first turn."""
    deal = ([[(3, 6), (3, 5), (2, 5), (1, 1)], [(4, 6), (4, 4), (0, 0), (0, 1)]], [(2, 4), (1, 6)])
    _, ev = play(*deal, first_turn="train")
    assert steps(ev) == [
        "0 engine",
        "0 36>0",
        "0 35>0",
        "0 25>0",
        "1 46>1",
        "1 44>1",
        "1 +24",
        "1 24>1",
        "0 +16",
        "0 16>M",
        "1 01>M",
        "0 pass",
        "1 00>M",
        "out [2, 0]",
    ]
    _, ev = play(*deal, first_turn="single")
    assert steps(ev) == [
        "0 engine",
        "0 36>0",
        "1 46>1",
        "0 35>0",
        "1 44>1",
        "1 +24",
        "1 24>1",
        "0 25>0",
        "1 +16",
        "1 16>M",
        "0 11>M",
        "out [0, 1]",
    ]


def test_R11_draw_to_start_keeps_drawing_while_own_train_is_empty():
    """R11 draw_to_start: seat 0 (empty train) draws 0|1, 0|2, 1|6 and plays 1|6; once a
    train is started a player draws once (seat 1 draws 4|4 and passes, 5|5 is left).
    Without the option seat 0 draws 0|1 once and passes."""
    deal = ([[(1, 1), (2, 2)], [(3, 6), (0, 4)]], [(0, 1), (0, 2), (1, 6), (4, 4), (5, 5)])
    _, ev = play(*deal, draw_to_start=True)
    assert steps(ev) == [
        "0 engine",
        "0 +01",
        "0 +02",
        "0 +16",
        "0 16>0",
        "1 36>1",
        "0 11>0",
        "0 01>0",
        "1 +44",
        "1 pass",
        "0 02>0",
        "1 +55",
        "1 pass",
        "0 22>0",
        "out [0, 22]",
    ]
    _, ev = play(*deal, draw_to_start=False)
    assert steps(ev) == [
        "0 engine",
        "0 +01",
        "0 pass",
        "1 36>1",
        "0 +02",
        "0 pass",
        "1 +16",
        "1 16>M",
        "0 11>M",
        "0 01>M",
        "1 04>M",
        "out [6, 0]",
    ]


def test_R12_double_obliges_another_play_with_its_own_draw():
    """R12: after 5|5 on its own train seat 0 must play again — anywhere usable: 3|6 on the
    Mexican train, leaving 5|5 open. Later seat 0 draws 3|3, plays it (a double) and must
    play again: it draws once more (4|4), cannot play, passes; 3|3 stays open (R13)."""
    _, ev = play(
        [[(5, 6), (5, 5), (3, 6), (0, 1)], [(4, 6), (2, 2), (0, 0), (2, 5)]], [(3, 3), (4, 4)]
    )
    assert steps(ev) == [
        "0 engine",
        "0 56>0",
        "1 46>1",
        "0 55>0",
        "0 36>M",
        "1 25>0",
        "0 +33",
        "0 33>M",
        "0 +44",
        "0 pass",
        "1 pass",
        "0 pass",
        "blocked [9, 4]",
    ]


def test_R13_oldest_open_double_first_and_duty_passes_along():
    """R13: seat 0 leaves 5|5 (train 0) and then 4|4 (Mexican) open. Seat 1 must serve the
    oldest, 5|5, with 0|5 (not its heavier 2|4); seat 0 cannot serve 4|4, draws once,
    passes; the duty passes to seat 1, who serves it with 2|4."""
    _, ev = play(
        [[(5, 6), (4, 6), (5, 5), (4, 4), (1, 1)], [(3, 6), (3, 5), (2, 4), (0, 5), (1, 2)]],
        [(1, 3), (3, 3)],
    )
    assert steps(ev) == [
        "0 engine",
        "0 56>0",
        "1 36>1",
        "0 46>M",
        "1 35>1",
        "0 55>0",
        "0 44>M",
        "0 +13",
        "0 pass",
        "1 05>0",
        "0 +33",
        "0 pass",
        "1 24>M",
        "0 pass",
        "1 12>M",
        "out [12, 0]",
    ]


def test_R13_duty_on_a_first_turn_draws_once_and_ends_the_turn():
    """R13/R11: seat 0's "train" chain ends on the open 5|5. Seats 1 and 2 owe it on their
    first turns: seat 1 draws once (not more, despite draw_to_start) and passes; seat 2
    draws 2|5, serves the double and its turn ends (no chain of 4|6, 3|6)."""
    _, ev = play(
        [[(5, 6), (5, 5), (2, 2)], [(1, 3), (0, 3), (0, 4)], [(3, 6), (4, 6), (0, 1)]],
        [(1, 2), (1, 4), (2, 5), (4, 4)],
        first_turn="train",
        draw_to_start=True,
    )
    assert steps(ev) == [
        "0 engine",
        "0 56>0",
        "0 55>0",
        "0 +12",
        "0 pass",
        "1 +14",
        "1 pass",
        "2 +25",
        "2 25>0",
        "0 22>0",
        "0 12>0",
        "out [0, 16, 20]",
    ]


# ------------------------------------------------------------------ R14–R16: end and scoring
def test_R14_going_out_ends_the_round_at_once_also_on_a_double():
    """R14: seat 0's last tile is the double 5|5: the round ends at once (no further play,
    no draw), in a "train" chain and in an ordinary turn."""
    deal = ([[(5, 6), (5, 5)], [(0, 1), (0, 2)]], [(0, 3)])
    res, ev = play(*deal, first_turn="train")
    assert steps(ev) == ["0 engine", "0 56>0", "0 55>0", "out [0, 3]"]
    assert res[:, Field.went_out].tolist() == [1, 0] and res[:, Field.blocked].tolist() == [0, 0]
    _, ev = play(*deal, first_turn="single")
    assert steps(ev) == ["0 engine", "0 56>0", "1 +03", "1 pass", "0 55>0", "out [0, 6]"]


def test_R15_new_marker_restarts_the_blocked_count():
    """R15: after seat 0's plain pass (count 1) seat 1's pass puts a new marker (count 1,
    not 2 = P) with the boneyard empty: not blocked — seat 0 then plays 1|3 on the newly
    opened train 1. Later two passes after the last play (count 1, 2) block the round."""
    res, ev = play([[(1, 3), (1, 1)], [(3, 6), (0, 0)]], [(2, 2)])
    assert steps(ev) == [
        "0 engine",
        "0 +22",
        "0 pass",
        "1 36>1",
        "0 pass",
        "1 pass",
        "0 13>1",
        "1 pass",
        "0 11>1",
        "0 pass",
        "1 pass",
        "blocked [4, 0]",
    ]
    assert res[:, Field.blocked].tolist() == [1, 1] and res[:, Field.went_out].tolist() == [0, 0]


def test_R15_blocked_after_P_passes_with_new_markers_counted_once():
    """R15: with the boneyard empty, seat 1's new marker sets the count to 1 and seat 0's
    repeated pass makes it 2 = P: blocked (seat 0's own new marker earlier also set 1)."""
    _, ev = play(
        [[(1, 2), (0, 3), (0, 1)], [(6, 6), (5, 6), (4, 4)]], [(2, 2), (3, 3)], engine="holder"
    )
    assert steps(ev)[-4:] == ["1 +33", "1 pass", "0 pass", "blocked [11, 14]"]


def test_R16_penalties_and_double_blank_points():
    """R16: each seat scores the pips left in hand; 0|0 is worth double_blank_points."""
    deal = ([[(1, 3), (1, 1)], [(3, 6), (0, 0)]], [(2, 2)])
    res, ev = play(*deal)
    assert ev[-1]["penalties"] == res[:, Field.penalty].tolist() == [4, 0]
    assert res[:, Field.tiles_left].tolist() == [1, 1]
    assert res[:, Field.tiles_played].tolist() == [2, 1] and res[:, Field.draws].tolist() == [1, 0]
    res, ev = play(*deal, double_blank_points=50)
    assert ev[-1]["penalties"] == res[:, Field.penalty].tolist() == [4, 50]
    res, _ = play([[(5, 6), (5, 5)], [(3, 4), (2, 6)]], [(0, 3)], first_turn="train")
    assert res[:, Field.penalty].tolist() == [0, 15]


# ------------------------------------------------------------------ R18–R19: house rules
@pytest.mark.parametrize("limit", [2, "until_playable"])
def test_R18_draw_limit_draws_on_until_a_tile_fits(limit):
    """R18: the R9/R10 deal again, with draw_limit 2 (or until playable): seat 0 draws
    2|4, which does not fit, draws again (3|5 fits its train) and plays it, where one
    draw would have passed."""
    _, ev = play([[(3, 6), (1, 1)], [(0, 5), (0, 2)]], [(4, 6), (2, 4), (3, 5)], draw_limit=limit)
    assert steps(ev) == [
        "0 engine",
        "0 36>0",
        "1 +46",
        "1 46>1",
        "0 +24",
        "0 +35",
        "0 35>0",
        "1 pass",
        "0 24>1",
        "1 02>1",
        "0 pass",
        "1 05>1",
        "out [2, 0]",
    ]


def test_R18_a_draw_limit_stops_at_the_limit():
    """R18: draw_limit 2 with three tiles that do not fit: two draws, then a pass."""
    _, ev = play([[(3, 6), (1, 1)], [(4, 6), (0, 0)]], [(0, 1), (0, 2), (0, 3)], draw_limit=2)
    assert steps(ev)[:6] == ["0 engine", "0 36>0", "1 46>1", "0 +01", "0 +02", "0 pass"]


def test_R19_without_the_mexican_train_nothing_is_laid_on_it():
    """R19: seat 0's 2|6 goes on the Mexican train (end 6) when the table has one; without
    it, seat 0 draws 0|0 and passes, and the round blocks."""
    hands, bone = [[(2, 6), (4, 6)], [(1, 6), (3, 5)]], [(0, 0)]
    _, ev = play(hands, bone)
    assert steps(ev) == ["0 engine", "0 46>0", "1 16>1", "0 26>M", "out [0, 8]"]
    _, ev = play(hands, bone, mexican_train=False)
    assert steps(ev) == [
        "0 engine",
        "0 46>0",
        "1 16>1",
        "0 +00",
        "0 pass",
        "1 pass",
        "0 pass",
        "blocked [8, 8]",
    ]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"draw_limit": 0}, "'draw_limit' = 0 is not allowed (allowed: 1..28 tiles"),
        ({"draw_limit": "always"}, '"until_playable"'),
        ({"draw_limit": True}, "'draw_limit' = True is not allowed"),
        ({"draw_limit": 29}, "1..28"),
        ({"mexican_train": "no"}, "'mexican_train'"),
    ],
)
def test_R18_R19_options_are_validated(options, message):
    with pytest.raises(ConfigError, match=None) as caught:
        resolve_rules({**BASE, "hand_size": 5, **options}, 2)
    assert message in str(caught.value)
