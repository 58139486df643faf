"""The luck scorer of mexsim/game/luck.py: it plays the matches play_scheduled plays,
scores the deal and every draw as the definition says (checked against a plain Python
walk of the recorded events with a value model of the hand's pips alone), and its luck
has mean zero."""

from __future__ import annotations

import numpy as np
import pytest

from mexsim.game import luck
from mexsim.game.enums import Event, Field
from mexsim.game.play import play_match_results, play_scheduled, play_scheduled_luck
from mexsim.game.rules import resolve_rules
from mexsim.game.tiles import tile_set
from mexsim.strategy.policy import resolve_policies

PLAYERS = resolve_policies(["greedy", "random", "early_doubles", "mexican_first"])
SEED = 11
# an arbitrary model: every feature weighs in, the engine search included
WEIGHTS = np.array([3.0, 0.5, 2.0, -4.0, 5.0, -2.0, 0.3, 1.0, 1.5, -3.0])


def schedule(n: int, P: int) -> tuple[np.ndarray, np.ndarray]:
    ids = np.arange(n, dtype=np.int64)
    return ids, np.array([[(s - k) % P for s in range(P)] for k in range(n)])


@pytest.mark.parametrize("engine", ["holder", "set_aside"])
def test_the_luck_kernel_plays_the_matches_of_play_scheduled(engine: str) -> None:
    rules = resolve_rules({"engine": engine}, 4, where="test")
    ids, seating = schedule(40, 4)
    plain = play_scheduled(rules, PLAYERS, SEED, ids, ids, seating)
    for weights in (None, WEIGHTS):
        res, deal, draw, sums = play_scheduled_luck(
            rules, PLAYERS, SEED, ids, ids, seating, weights
        )
        assert np.array_equal(res, plain)
        if weights is None:  # the pilot: sums of every seat after every chance event
            assert not deal.any() and not draw.any()
            assert sums[0, 0] > 0 and sums[-1, -1] > 0
        else:
            assert not sums.any() and deal.any() and draw.any()


def pips_luck(rules, ev: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The definition, walked in Python, for V = pips in hand (the engine, while in a
    hand, left out): deal luck = own pips minus the mean over the seats' hands; draw
    luck = the tile's worth minus its mean over the boneyard, the engine's worth 0."""
    ts = tile_set(rules.max_pip)
    P = rules.players
    deal = np.zeros((rules.rounds, P))
    draw = np.zeros((rules.rounds, P))
    hands: dict[int, list[int]] = {}
    bone: set[int] = set()
    dealt = -1
    dealing = False
    engine = -1

    def worth(u: int) -> float:
        return 0.0 if u == engine else float(ts.pips[u])

    for kind, rnd, seat, t, _ in ev.tolist():
        if kind in (Event.deal_hand, Event.deal_boneyard):
            if dealt != rnd:
                dealt, hands, bone, dealing = rnd, {s: [] for s in range(P)}, set(), True
                engine = int(np.flatnonzero((ts.lo == ts.hi) & (ts.lo == rules.max_pip - rnd))[0])
            (hands[seat].append(t) if kind == Event.deal_hand else bone.add(t))
            continue
        if dealing:
            dealing = False
            pips = [sum(worth(u) for u in hands[s]) for s in range(P)]
            deal[rnd] = np.array(pips) - np.mean(pips)
        if kind == Event.draw:
            draw[rnd, seat] += worth(t) - np.mean([worth(u) for u in bone])
            bone.remove(t)
    return deal, draw


@pytest.mark.parametrize("engine", ["holder", "set_aside"])
def test_deal_and_draw_luck_follow_the_definition(engine: str) -> None:
    rules = resolve_rules({"engine": engine}, 3, where="test")
    w = np.zeros(luck.N_FEATURES)
    w[luck.F_PIPS] = 1.0
    seats = PLAYERS[:3]
    searched = 0
    for match in range(8):
        res, ev = play_match_results(rules, seats, SEED, match, record=True)
        want_deal, want_draw = pips_luck(rules, ev)
        ids = np.array([match])
        got = play_scheduled_luck(rules, seats, SEED, ids, ids, np.array([[0, 1, 2]]), w)
        assert np.array_equal(got[0][0], res)
        assert np.allclose(got[1][0], want_deal, atol=1e-9)
        assert np.allclose(got[2][0], want_draw, atol=1e-9)
        assert (res[:, :, Field.draws] > 0).any()  # the draws were exercised
        placed = True
        for kind in ev[:, 0].tolist():  # draws before the round's engine is set
            if kind == Event.deal_hand:
                placed = False
            elif kind == Event.engine:
                placed = True
            elif kind == Event.draw and not placed:
                searched += 1
    assert engine == "set_aside" or searched > 0  # engine searches were scored too


@pytest.mark.parametrize("engine", ["holder", "set_aside"])
def test_luck_has_mean_zero(engine: str) -> None:
    """Each seat's deal and draw luck per match, over 600 independent matches: within 5
    standard errors of zero (any fixed model; the engine search scored too)."""
    rules = resolve_rules({"engine": engine}, 4, where="test")
    ids, seating = schedule(600, 4)
    _, deal, draw, _ = play_scheduled_luck(rules, PLAYERS, SEED, ids, ids, seating, WEIGHTS)
    for term in (deal, draw):
        per_match = term.sum(axis=1)  # [match, seat]
        mean = per_match.mean(axis=0)
        se = per_match.std(axis=0, ddof=1) / np.sqrt(len(per_match))
        assert (se > 0).all()
        assert (np.abs(mean) < 5 * se).all(), (mean, se)
