"""Properties of every built-in strategy, and of longest_train's planner.

Game states come from real matches: the reference engine (mexsim/game/reference.py) plays
hypothesis-drawn rules, seatings and seeds, and every decision is recorded as the
strategy received it (view with its random stream words and notes, params) together
with what it chose and which tiles were hidden from it at that moment. The tests
then call each strategy's compiled ``decide`` on copies of those views.

longest_train plans exactly, which takes exponential time on big dense hands (a
40-tile hand of a two-player double-12 game ran for minutes): its decisions with more
than PLANNED_HAND_LIMIT tiles in hand are left out here, and made by greedy in the
recorded games.
"""

from __future__ import annotations

import random
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from unittest.mock import patch

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from mexsim.errors import StrategyError
from mexsim.game import play, reference
from mexsim.game import view as V
from mexsim.game.play import core_trace, play_dealt_round, play_match_results
from mexsim.game.reference import Player, Round, make_players, static_view
from mexsim.game.rules import Rules, resolve_rules
from mexsim.game.tiles import tile_set
from mexsim.planner import longest_chain
from mexsim.strategy.policy import Policy
from mexsim.strategy.registry import available_strategies
from tests.planner.brute_force import longest_chain_brute_force
from tests.profiles import examples
from tests.strategies_hyp import matches, rules_and_seats, seeds

BUILTINS = available_strategies()
NAMES = sorted(BUILTINS)
# longest_train's module as the registry loaded it (its notes layout); importing the
# file again under another name would not match numba's cache of it
LT = sys.modules[BUILTINS["longest_train"].decide.py_func.__module__]
PROBE_DIR = Path(__file__).resolve().parents[1] / "fixtures" / "strategies_probe"
PARAM_VALUES = st.sampled_from([0.0, 0.1, 0.5, 1.0, 2.5])
PLANNERS = {"longest_train", "search"}  # exponential on big dense hands (see the docstring)
PLANNED_HAND_LIMIT = 20
MASK64 = (1 << 64) - 1


def hand_size(view: np.ndarray) -> int:
    return sum(bin(int(w) & MASK64).count("1") for w in view[V.HAND : V.HAND + V.MAX_WORDS])


def tractable(name: str, view: np.ndarray) -> bool:
    return name not in PLANNERS or hand_size(view) <= PLANNED_HAND_LIMIT


# search at its defaults plays 8 worlds of longest_train rollouts a move: as another
# seat of a drawn game, one world of greedy rollouts (tests/strategies_hyp.py)
CHEAP_DEFAULTS = {"search": (1.0, 0.0, 1.0, 0.0)}


def seat(name: str, params: tuple[float, ...] | None = None, extra=()) -> Policy:
    info = available_strategies(extra)[name]
    if params is None:
        params = CHEAP_DEFAULTS.get(name, tuple(info.params.values()))
    return Policy(info, params)


def padded(params: tuple[float, ...]) -> np.ndarray:
    out = np.zeros(V.MAX_PARAMS, dtype=np.float64)
    out[: len(params)] = params
    return out


# --------------------------------------------------------------- recorded decisions


@dataclass
class Decision:
    seat: int
    name: str  # the strategy that chose (greedy stands in for PLANNERS on big hands)
    view: np.ndarray  # as the strategy received it (a copy)
    params: np.ndarray
    choice: int
    hidden: frozenset[int]  # tiles in the other hands and the boneyard at that moment
    owner: str = ""  # the seat's own strategy (whose notes the view holds)


def record_match(rules: Rules, seed: int, match: int, seats: list[Policy]) -> list[Decision]:
    """Play a match in the reference engine; every decision a strategy made."""
    decisions: list[Decision] = []
    hidden: list[frozenset[int]] = []
    fill_view, choose = Round.fill_view, Player.choose

    def spy_fill_view(self, seat, *args):
        fill_view(self, seat, *args)
        hidden.append(
            frozenset(self.boneyard).union(*(h for s, h in enumerate(self.hands) if s != seat))
        )

    def spy_choose(self, view):
        decide = self.decide

        def recording(v, p):
            d = Decision(int(v[V.SEAT]), self.name, v.copy(), p.copy(), -1, hidden[-1], self.name)
            if not tractable(self.name, v):
                d.name = "greedy"
                d.choice = BUILTINS["greedy"].decide(v, p)
            else:
                d.choice = decide(v, p)
            decisions.append(d)
            return d.choice

        self.decide = recording
        try:
            return choose(self, view)
        finally:
            self.decide = decide

    with (
        patch.object(Round, "fill_view", spy_fill_view),
        patch.object(Player, "choose", spy_choose),
    ):
        reference.play_match(rules, seed, match, seats)
    return decisions


@st.composite
def games(draw: st.DrawFn, name: str):
    """Rules, seats (``name`` in one of them, with drawn params), seed, match, that seat."""
    rules, _ = draw(rules_and_seats(max_players=6))
    names = draw(st.lists(st.sampled_from(NAMES), min_size=rules.players, max_size=rules.players))
    tested = draw(st.integers(0, rules.players - 1))
    params = tuple(draw(PARAM_VALUES) for _ in BUILTINS[name].params)
    seats = [seat(n) for n in names]
    seats[tested] = seat(name, params)
    return rules, seats, draw(seeds), draw(matches), tested


def as_seen_by(name: str, d: Decision, tested: int) -> tuple[np.ndarray, np.ndarray]:
    """The decision's view and params for strategy ``name`` sitting in seat ``tested``.

    Another seat's decision is a valid game state too; there ``name`` starts with fresh
    (zero) notes, as at the start of a match, and the tested seat's params."""
    view = d.view.copy()
    if d.seat != tested:
        view[V.NOTES : V.NOTES + BUILTINS[name].memory] = 0
    return view, d.params


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=examples(40), deadline=None)
@given(data=st.data())
def test_returns_only_legal_moves(name, data):
    rules, seats, seed, match, tested = data.draw(games(name))
    params = padded(seats[tested].params)
    for d in record_match(rules, seed, match, seats):
        view, _ = as_seen_by(name, d, tested)
        assert view[V.N_MOVES] >= 2  # forced moves are not asked
        if not tractable(name, view):
            continue
        choice = seats[tested].decide(view, params)
        assert 0 <= choice < view[V.N_MOVES], (d.seat, choice, view[V.N_MOVES])
        if d.seat == tested and d.name == name:
            assert choice == d.choice  # the same call the engine made


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=examples(25), deadline=None)
@given(data=st.data())
def test_deterministic_for_a_given_random_stream(name, data):
    """Same view (random stream words and notes included): same choice, same view
    after; and a strategy writes nothing but its random stream and its own notes."""
    rules, seats, seed, match, tested = data.draw(games(name))
    info = BUILTINS[name]
    params = padded(seats[tested].params)
    writable = np.zeros(V.SIZE, dtype=bool)
    writable[V.RNG : V.RNG + 4] = True
    writable[V.NOTES : V.NOTES + info.memory] = True
    for d in record_match(rules, seed, match, seats):
        before, _ = as_seen_by(name, d, tested)
        if not tractable(name, before):
            continue
        first, second = before.copy(), before.copy()
        choice = seats[tested].decide(first, params)
        assert seats[tested].decide(second, params) == choice
        np.testing.assert_array_equal(first, second)
        changed = np.flatnonzero(first != before)
        assert writable[changed].all(), f"{name} wrote view words {changed.tolist()}"
        if name == "random":  # it draws from its own stream: the words advance
            assert (first[V.RNG : V.RNG + 4] != before[V.RNG : V.RNG + 4]).any()


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=examples(15), deadline=None)
@given(data=st.data())
def test_both_engines_play_it_alike(name, data):
    """The numba core and the reference engine hand it the same views (notes, params,
    random stream included): identical traces."""
    rules, seats, seed, match, _ = data.draw(games(name))
    if any(d.name != seats[d.seat].name for d in record_match(rules, seed, match, seats)):
        return  # a stand-in was needed: the real game has a hand too big to plan
    expected = reference.play_match(rules, seed, match, seats).events
    assert core_trace(rules, seats, seed, match) == expected


def test_random_follows_its_stream():
    """Not a constant: other stream words give other choices (over many decisions)."""
    rules = resolve_rules({}, 4)
    decisions = record_match(rules, 5, 0, [seat("random")] * 4)
    decide = BUILTINS["random"].decide
    differ = 0
    for d in decisions:
        other = d.view.copy()
        other[V.RNG : V.RNG + 4] = [11, 22, 33, 44]
        differ += decide(other, d.params) != d.choice
    assert len(decisions) > 20
    assert differ > len(decisions) // 4


# --------------------------------------------------------------- hidden information


class Halt(Exception):
    pass


@st.composite
def twin_deals(draw: st.DrawFn):
    """Two deals of one round that agree on everything R17 shows the first mover at its
    first decision — its own hand, the table, the hand sizes — and differ in what it
    must not see: the other hands and the boneyard's order.

    The mover is the first to play (it holds the engine, or starts under set_aside) and
    holds two tiles that fit the engine, so it decides before anything else happens."""
    rules, _ = draw(rules_and_seats(max_players=6))
    P, H = rules.players, rules.hand_size
    r = draw(st.integers(0, rules.rounds - 1))
    ts = tile_set(rules.max_pip)
    number = rules.max_pip - r
    engine_tile = ts.double(number)
    set_aside = rules.engine == "set_aside"
    assume(H - (0 if set_aside else 1) >= 2)
    mover = r % P if set_aside else draw(st.integers(0, P - 1))
    fitting = [t for t in range(ts.count) if t != engine_tile and number in ts.tile(t)]
    two = draw(st.permutations(fitting))[:2]
    rest = draw(st.permutations([t for t in range(ts.count) if t != engine_tile and t not in two]))
    own_count = H - 2 - (0 if set_aside else 1)
    own = two + rest[:own_count] + ([] if set_aside else [engine_tile])
    unseen_a = rest[own_count:]
    unseen_b = draw(st.permutations(unseen_a))
    assume(unseen_a != unseen_b)

    def deal(unseen):
        others = iter(range(0, (P - 1) * H, H))
        hands = [own if s == mover else unseen[(k := next(others)) : k + H] for s in range(P)]
        return hands, unseen[(P - 1) * H :]

    return rules, r, mover, deal(unseen_a), deal(unseen_b), draw(seeds), draw(matches)


def reference_first_view(rules, r, mover, hands, boneyard, seed, match) -> np.ndarray:
    players = make_players(rules, [seat("greedy")] * rules.players, seed, match)
    seen = []

    def halt(view, params):
        seen.append(view.copy())
        raise Halt

    players[mover].decide = halt
    with pytest.raises(Halt):
        Round(
            rules,
            r,
            [list(h) for h in hands],
            list(boneyard),
            players,
            static_view(rules, match),
            lambda e: None,
        ).play_round()
    return seen[0]


def core_first_view(rules, r, hands, boneyard, seed, match) -> np.ndarray:
    """The view the numba core filled for the first decision (read from its work
    array when the probe strategy halts the round)."""
    works = []
    play_round = play.kernel.play_dealt_round

    def spy(*args):
        works.append(args[-1].view_array)  # the Outputs: the view is its work array
        return play_round(*args)

    probe = seat("probe", (1.0,), extra=[PROBE_DIR])
    with (
        patch.object(play.kernel, "play_dealt_round", spy),
        pytest.raises(StrategyError, match=r"'probe'.*probe halted"),
    ):
        play_dealt_round(rules, [probe] * rules.players, r, hands, boneyard, seed, match)
    return works[0].copy()


@settings(max_examples=examples(50), deadline=None)
@given(twin_deals())
def test_the_view_holds_no_hidden_information(case):
    """Deals that differ only in the other hands and the boneyard give the mover the
    same view, word for word, in both engines, and so the same choice."""
    rules, r, mover, (hands_a, bone_a), (hands_b, bone_b), seed, match = case
    ref_a = reference_first_view(rules, r, mover, hands_a, bone_a, seed, match)
    ref_b = reference_first_view(rules, r, mover, hands_b, bone_b, seed, match)
    np.testing.assert_array_equal(ref_a, ref_b)
    assert ref_a[V.SEAT] == mover and ref_a[V.N_MOVES] >= 2
    core_a = core_first_view(rules, r, hands_a, bone_a, seed, match)
    core_b = core_first_view(rules, r, hands_b, bone_b, seed, match)
    np.testing.assert_array_equal(core_a, core_b)
    np.testing.assert_array_equal(core_a, ref_a)
    for name, info in BUILTINS.items():
        if tractable(name, ref_a):
            params = padded(tuple(info.params.values()))
            assert info.decide(ref_a.copy(), params) == info.decide(ref_b.copy(), params), name


LEAK_SEATS = ("longest_train", "greedy", "random", "early_doubles")


def leak_decisions() -> list[Decision]:
    rules = resolve_rules({}, len(LEAK_SEATS))
    return [d for m in range(3) for d in record_match(rules, 7, m, [seat(n) for n in LEAK_SEATS])]


def test_no_other_players_moves_in_the_view():
    for d in leak_decisions():
        n = int(d.view[V.N_MOVES])
        stale = set(d.view[V.MOVE_TILE + n : V.MOVE_TILE + V.MAX_MOVES].tolist()) - {0}
        leaked = sorted(stale & d.hidden)
        assert not leaked, f"seat {d.seat} sees tiles {leaked} it must not see"


def test_no_other_players_notes_in_the_view():
    for d in leak_decisions():
        k = BUILTINS[d.owner].memory
        notes = d.view[V.NOTES + k : V.NOTES + V.MAX_MEMORY]
        assert not notes.any(), f"seat {d.seat} ({d.name}) sees notes {notes.tolist()}"


def test_core_shows_no_other_players_notes():
    rules = resolve_rules({}, 3)
    seats = [seat("longest_train"), seat("probe", (0.0,), extra=[PROBE_DIR]), seat("greedy")]
    for m in range(3):
        play_match_results(rules, seats, 7, m)


# --------------------------------------------------------------- the planner


@cache
def tables(max_pip: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    ts = tile_set(max_pip)
    return tuple(np.array(a, dtype=np.int64) for a in (ts.lo, ts.hi, ts.pips))


def plan(max_pip: int, hand: list[int], start: int, pip_weight: float) -> tuple[list[int], float]:
    lo, hi, pips = tables(max_pip)
    chain = np.full(max(1, len(hand)), -1, dtype=np.int64)
    length, value = longest_chain(
        start, np.array(hand, dtype=np.int64), len(hand), lo, hi, pips, pip_weight, max_pip, chain
    )
    return chain[:length].tolist(), value


def check_chain(
    max_pip: int, hand: list[int], start: int, pip_weight: float, chain: list[int], value: float
) -> None:
    """A chain laid from ``start`` with distinct tiles of the hand, worth ``value``."""
    ts = tile_set(max_pip)
    assert len(set(chain)) == len(chain), chain
    assert set(chain) <= set(hand), chain
    end, total = start, 0.0
    for t in chain:
        a, b = ts.tile(t)
        assert end in (a, b), (chain, t, end)
        end = b if a == end else a
        total += 1.0 + pip_weight * (a + b)
    assert value == pytest.approx(total)


def best_value(start: int, tiles: list[tuple[int, int]], pip_weight: float) -> float:
    """The best chain by trying every chain, remembering (end, tiles used) states: the
    definition, independent of the planner's graph view (doubles are ordinary tiles)."""
    weight = [1.0 + pip_weight * (a + b) for a, b in tiles]

    @cache
    def best(end: int, used: int) -> float:
        top = 0.0
        for i, (a, b) in enumerate(tiles):
            if not (used >> i) & 1 and end in (a, b):
                top = max(top, weight[i] + best(b if a == end else a, used | 1 << i))
        return top

    return best(start, 0)


PLAIN_WEIGHTS = st.sampled_from([0.0, 0.1, 1.0])


@st.composite
def hands(
    draw: st.DrawFn,
    sizes: dict[int, tuple[int, int]],
    weights: st.SearchStrategy[float] = PLAIN_WEIGHTS,
):
    """(max_pip, hand of tile numbers, start number, pip_weight); hand sizes per set."""
    max_pip = draw(st.sampled_from(sorted(sizes)))
    count = (max_pip + 1) * (max_pip + 2) // 2
    lo, hi = sizes[max_pip]
    hand = draw(st.lists(st.integers(0, count - 1), min_size=lo, max_size=hi, unique=True))
    return max_pip, hand, draw(st.integers(0, max_pip)), draw(weights)


@settings(max_examples=examples(300), deadline=None)
@given(hands({6: (0, 7), 9: (0, 7), 12: (0, 7)}))
def test_planner_equals_brute_force(case):
    assert_plan_is_best(case, longest_chain_brute_force)


def assert_plan_is_best(case: tuple, best, planner=None) -> None:
    """The planner's chain is valid, worth what it says, and worth ``best(start, tiles,
    pip_weight)``: the brute force on tiny hands, ``best_value`` on bigger ones.
    ``planner`` (default: ``plan``, i.e. longest_chain) maps a case to (chain, value)."""
    max_pip, hand, start, pip_weight = case
    chain, value = (planner or plan)(max_pip, hand, start, pip_weight)
    check_chain(max_pip, hand, start, pip_weight, chain, value)
    ts = tile_set(max_pip)
    assert value == pytest.approx(best(start, [ts.tile(t) for t in hand], pip_weight))


@settings(max_examples=examples(150), deadline=None)
@given(hands({6: (8, 17), 9: (12, 20)}))
def test_planner_is_exact_on_dense_hands(case):
    """Hands with many cycles, where the planner branches and bounds (T-join bound,
    Euler shortcut, transpositions) instead of trying every trail."""
    assert_plan_is_best(case, best_value)


def greedy_chains(
    max_pip: int, hand: list[int], start: int, pip_weight: float, tries: int = 50
) -> float:
    """The best of a heaviest-first greedy chain and randomized greedy chains."""
    ts = tile_set(max_pip)
    rng = random.Random(0)
    best = 0.0
    for attempt in range(tries):
        left, end, value = set(hand), start, 0.0
        while True:
            fits = sorted(t for t in left if end in ts.tile(t))
            if not fits:
                break
            doubles = [t for t in fits if ts.tile(t) == (end, end)]
            t = doubles[0] if doubles else (fits[0] if attempt == 0 else rng.choice(fits))
            a, b = ts.tile(t)
            left.remove(t)
            end = b if a == end else a
            value += 1.0 + pip_weight * (a + b)
        best = max(best, value)
    return best


@settings(max_examples=examples(10), deadline=None)
@given(hands({9: (25, 25), 12: (25, 25)}))
def test_planner_on_a_25_tile_hand(case):
    max_pip, hand, start, pip_weight = case
    chain, value = plan(max_pip, hand, start, pip_weight)
    check_chain(max_pip, hand, start, pip_weight, chain, value)
    assert value >= greedy_chains(max_pip, hand, start, pip_weight) - 1e-9


def test_planner_lays_doubles_where_it_arrives():
    """5|5 is slipped in when the chain reaches 5; 0|0 is never reached."""
    ts = tile_set(6)
    hand = [int(ts.index[a, b]) for a, b in ((6, 5), (5, 5), (5, 1), (0, 0))]
    chain, value = plan(6, hand, 6, 0.0)
    assert [ts.tile(t) for t in chain] == [(5, 6), (5, 5), (1, 5)]
    assert value == 3.0


def planned_tiles(view: np.ndarray, start: int, stop: int) -> list[int]:
    """longest_train's planned tiles at positions start..stop-1 (from its notes; its
    constants are note numbers, counted from view[NOTES])."""
    return [
        (int(view[V.NOTES + LT.PLAN_TILES + (p >> 3)]) >> ((p & 7) * 8)) & 255
        for p in range(start, stop)
    ]


@settings(max_examples=examples(20), deadline=None)
@given(data=st.data())
def test_longest_train_keeps_only_best_plans(data):
    """Whether it planned afresh or kept its plan (skipping planned tiles laid by forced
    moves, ignoring drawn tiles that cannot join it), what is left of the plan after
    each of its decisions is worth as much as a fresh plan from where it stands."""
    rules, seats, seed, match, tested = data.draw(games("longest_train"))
    decide = seats[tested].decide  # its form for the drawn pip_weight
    lo, hi, pips = tables(rules.max_pip)
    for d in record_match(rules, seed, match, seats):
        if d.seat != tested or d.name != "longest_train":
            continue
        view = d.view.copy()
        choice = decide(view, d.params)
        tile, train = view[V.MOVE_TILE + choice], view[V.MOVE_TRAIN + choice]
        pos, length = view[V.NOTES + LT.PLAN_POS], view[V.NOTES + LT.PLAN_LEN]
        advanced = train == tested and pos > 0 and planned_tiles(view, pos - 1, pos) == [tile]
        rest = planned_tiles(view, pos, length)
        if view[V.NOTES + LT.VALID] != 1 or (train == tested and not advanced) or tile in rest:
            continue  # the plan is broken: it plans afresh next time
        hand = [
            t
            for t in range(view[V.TILES])
            if t != tile and (int(view[V.HAND + t // 64]) >> (t % 64)) & 1
        ]
        chain = np.empty(max(1, len(hand)), dtype=np.int64)
        _, best = longest_chain(
            view[V.NOTES + LT.NEXT_END],
            np.array(hand, dtype=np.int64),
            len(hand),
            lo,
            hi,
            pips,
            d.params[0],
            rules.max_pip,
            chain,
        )
        worth = sum(1.0 + d.params[0] * pips[t] for t in rest)
        assert worth == pytest.approx(best), (d.view[V.ROUND], rest)
