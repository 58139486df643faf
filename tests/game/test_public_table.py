"""The public table in the view (R17): what it holds is true, public, and all there is.

The reference engine fills the public table from its own state at every decision (the
core's view is held to it word for word by tests/game/test_differential.py); these
tests hold the words, and the accessors that read them, to the game as it was played.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np
import pytest
from hypothesis import given, settings

from mexsim.game import reference
from mexsim.game import view as V
from mexsim.game.reference import Round, play_match
from mexsim.game.rules import MAX_PLAYERS, MIN_HAND_SIZE, MIN_PLAYERS, resolve_rules, tile_count
from mexsim.strategy import api
from mexsim.strategy.policy import resolve_policies
from tests.profiles import examples
from tests.strategies_hyp import matches, rules_and_seats, seeds


@contextmanager
def at_every_decision(check: Callable[[Round, np.ndarray, int], None]) -> Iterator[None]:
    """Run ``check(round, view, seat)`` on the reference engine's view at every decision,
    once the view is filled."""
    fill = Round.fill_view

    def filled(self: Round, seat: int, *args, **kwargs) -> None:
        fill(self, seat, *args, **kwargs)
        check(self, self.view, seat)

    Round.fill_view = filled
    try:
        yield
    finally:
        Round.fill_view = fill


def hand_numbers(rnd: Round, seat: int) -> int:
    numbers = 0
    for t in rnd.hands[seat]:
        numbers |= 1 << int(rnd.ts.lo[t]) | 1 << int(rnd.ts.hi[t])
    return numbers


def test_the_history_fits_the_longest_round_of_every_set_and_table():
    """view.MAX_HISTORY is view.py's bound at its largest: every set, table size and the
    smallest hand (the most tiles left to draw)."""
    worst = 0
    for max_pip in range(6, 16):
        T = tile_count(max_pip)
        for P in range(MIN_PLAYERS, MAX_PLAYERS + 1):
            boneyard = T - P * MIN_HAND_SIZE
            if boneyard < 1:
                continue
            worst = max(worst, 1 + (T - 1) + 2 * boneyard + (2 * P - 1) * T)
    assert worst == V.MAX_HISTORY


@pytest.mark.slow
@settings(max_examples=examples(30), deadline=None)
@given(rules_and_seats(max_players=6), seeds, matches)
def test_the_public_table_is_the_game_as_played(case, seed, match):
    """At every decision: the tiles on each train and on the table, the counters and the
    history are those of the reference's own state; every accessor reads them."""
    rules, seats = case
    seen = []

    def check(rnd: Round, view: np.ndarray, seat: int) -> None:
        P = rnd.P
        engine_tile = rnd.ts.double(rnd.engine)
        on_trains = {t: tr for tr in range(P + 1) for t in rnd.trains[tr].tiles}
        for t in range(rnd.ts.count):
            assert api.is_played(view, t) == (t in on_trains or t == engine_tile)
            assert api.train_of(view, t) == on_trains.get(t, -1)
            assert api.is_unseen(view, t) == (
                t not in on_trains and t != engine_tile and t not in rnd.hands[seat]
            )
        for n in range(rnd.rules.max_pip + 1):
            unseen = [
                t
                for t in range(rnd.ts.count)
                if api.is_unseen(view, t) and n in (rnd.ts.lo[t], rnd.ts.hi[t])
            ]
            assert api.unseen_carrying(view, n) == len(unseen)
        for s in range(P):
            assert api.draws_this_round(view, s) == rnd.draws[s]
            assert api.passes_this_round(view, s) == rnd.passes[s]
            assert api.has_started(view, s) == rnd.had_turn[s]
        assert api.pass_count(view) == rnd.pass_count
        assert api.first_mover(view) == rnd.first_mover
        assert api.history_length(view) == len(rnd.history)
        seen.append(
            (
                rnd.r,
                [
                    (
                        int(api.history_kind(view, i)),
                        int(api.history_seat(view, i)),
                        int(api.history_tile(view, i)),
                        int(api.history_train(view, i)),
                    )
                    for i in range(api.history_length(view))
                ],
            )
        )

    with at_every_decision(check):
        record = play_match(rules, seed, match, seats)
    # the history is the trace's public part: each decision's is a prefix of its round's
    kinds = {"play": V.H_PLAY, "draw": V.H_DRAW}
    per_round: dict[int, list] = {}
    for event in record.events:
        r = event.get("round")
        entries = per_round.setdefault(r, [])
        if event["event"] == "engine":
            engine = rules.max_pip - r
            tile = reference.tile_set(rules.max_pip).double(engine)
            entries.append((V.H_ENGINE, event["seat"], tile, -1))
        elif event["event"] in kinds:
            tile = -1
            train = -1
            if event["event"] == "play":
                a, b = event["tile"]
                tile = int(reference.tile_set(rules.max_pip).index[a, b])
                train = rules.players if event["train"] == "mexican" else event["train"]
            entries.append((kinds[event["event"]], event["seat"], tile, train))
        elif event["event"] == "pass":
            entries.append((-1, event["seat"], -1, -1))  # a pass, marking or not
    for r, history in seen:
        expected = per_round[r][: len(history)]
        got = [
            (-1, s, t, tr) if k in (V.H_PASS, V.H_MARK) else (k, s, t, tr)
            for k, s, t, tr in history
        ]
        assert got == expected


@settings(max_examples=examples(60), deadline=None)
@given(rules_and_seats(max_players=8), seeds, matches)
def test_lacking_numbers_are_never_in_the_hand(case, seed, match):
    """lacking_numbers(view, seat) is a proof, not a guess: at every decision, no seat
    holds a tile carrying a number it is said to lack; and it says something often."""
    rules, seats = case

    def check(rnd: Round, view: np.ndarray, seat: int) -> None:
        for s in range(rnd.P):
            lacks = int(api.lacking_numbers(view, s))
            assert lacks & hand_numbers(rnd, s) == 0, (s, bin(lacks), rnd.hands[s])

    with at_every_decision(check):
        play_match(rules, seed, match, seats)


def test_lacking_numbers_are_found():
    """On a plain 4-seat table the replay infers something at most decisions' ends."""
    rules = resolve_rules({}, 4)
    said = []

    def check(rnd: Round, view: np.ndarray, seat: int) -> None:
        for s in range(rnd.P):
            lacks = int(api.lacking_numbers(view, s))
            assert lacks & hand_numbers(rnd, s) == 0
            said.append(lacks != 0)

    with at_every_decision(check):
        for match in range(3):
            play_match(
                rules, 5, match, resolve_policies(["greedy", "random", "longest_train", "greedy"])
            )
    assert 0.2 < sum(said) / len(said) < 1.0


@pytest.mark.parametrize("preset", ["seed-001", "seed-000", "standard"])
def test_hidden_tiles_change_no_other_seats_view(preset):
    """The same public history over different hidden tiles: a tile left in one hand to
    the round's end swapped with a tile the boneyard never gave up. Wherever the public
    events came out the same (the swapped tiles never became playable), every other
    seat's view at every decision is the same, word for word."""
    rules = resolve_rules({"preset": preset}, 3)
    seats = resolve_policies(["greedy", "longest_train", "greedy"])
    compared = 0
    for match in range(12):
        hands, boneyard = reference.deal(rules, 11, match, 0)
        base, base_events = _views_of_round(rules, hands, boneyard, seats)
        drawn = sum(1 for e in base_events if e["event"] == "draw")
        kept_to_end = _final_hands(rules, hands, boneyard, seats)
        tail = boneyard[drawn:]
        for s in range(rules.players):
            for x in sorted(kept_to_end[s] & set(hands[s]))[:3]:
                for y in tail[:3]:
                    other_hands = [list(h) for h in hands]
                    other_hands[s][other_hands[s].index(x)] = y
                    other_bone = [x if t == y else t for t in boneyard]
                    views, events = _views_of_round(rules, other_hands, other_bone, seats)
                    if _public(events) != _public(base_events):
                        continue
                    compared += 1
                    # the seats whose hands are the same are asked the same decisions
                    # (the swapped hand may have a choice more or less)
                    others = [(k, v) for k, v in base if k != s]
                    theirs = [(k, v) for k, v in views if k != s]
                    assert len(others) == len(theirs)
                    for (seat, a), (_, b) in zip(others, theirs, strict=True):
                        assert np.array_equal(a, b), seat
    assert compared >= 5


def _views_of_round(rules, hands, boneyard, seats):
    views: list[tuple[int, np.ndarray]] = []
    events: list[dict] = []

    def check(rnd: Round, view: np.ndarray, seat: int) -> None:
        views.append((seat, view.copy()))

    players = reference.make_players(rules, seats, 11, 0)
    view = reference.static_view(rules, 0)
    with at_every_decision(check):
        Round(rules, 0, hands, boneyard, players, view, events.append).play_round()
    return views, events


def _final_hands(rules, hands, boneyard, seats):
    players = reference.make_players(rules, seats, 11, 0)
    rnd = Round(rules, 0, hands, boneyard, players, reference.static_view(rules, 0), lambda e: None)
    rnd.play_round()
    return [set(h) for h in rnd.hands]


def _public(events):
    """The events every seat sees during the round: no deal, no drawn tile (the hands
    are shown at its end)."""
    return [
        {k: v for k, v in e.items() if not (e["event"] == "draw" and k == "tile")}
        for e in events
        if e["event"] not in ("deal", "round_end")
    ]


PUBLIC_SCRIBBLER = """\
from mexsim.strategy.api import strategy
from mexsim.game.view import HISTORY, HISTORY_LEN, MOVE_TILE, N_MOVES, TRAIN_TILES

NAME = "{name}"
DESCRIPTION = "the heaviest move, then writes over the view's public table"


@strategy
def decide(view, params):
    best = 0
    for i in range(1, view[N_MOVES]):
        if view[MOVE_TILE + i] < view[MOVE_TILE + best]:
            best = i
    if {scribble}:
        for k in range(TRAIN_TILES, HISTORY + view[HISTORY_LEN]):
            view[k] = 1 << 40
    return best
"""


@pytest.mark.compiles
def test_what_a_strategy_writes_over_the_public_table_no_other_seat_sees(tmp_path):
    """A user's strategy that writes over the trains' tiles, the counters and the
    history after each decision, beside seats that hash their whole view: the same
    games as its twin that does not, in the core and in the reference engine."""
    from pathlib import Path

    from mexsim.game.play import core_trace
    from mexsim.strategy.policy import Policy
    from mexsim.strategy.registry import available_strategies

    for name, scribble in (("scribbler", "True"), ("twin", "False")):
        (tmp_path / f"{name}.py").write_text(
            PUBLIC_SCRIBBLER.format(name=name, scribble=scribble), encoding="utf-8"
        )
    probes = Path(__file__).resolve().parents[1] / "fixtures" / "strategies_probe"
    known = available_strategies([tmp_path, probes])
    probe = Policy(known["view_hash"], ())
    for players in (2, 4):
        rules = resolve_rules({}, players)
        others = resolve_policies([probe, "longest_train", probe][: players - 1])
        scribbling = [Policy(known["scribbler"], ()), *others]
        twin = [Policy(known["twin"], ()), *others]
        for match in (0, 3):
            expected = core_trace(rules, twin, 9, match)
            assert core_trace(rules, scribbling, 9, match) == expected
            assert play_match(rules, 9, match, scribbling).events == expected
