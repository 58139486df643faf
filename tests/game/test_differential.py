"""The numba core and the reference engine play identical games (docs/rules.md)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mexsim.game.enums import Field
from mexsim.game.play import core_trace, play_match_results, play_matches_results
from mexsim.game.reference import play_match
from mexsim.game.rng import STREAM_SHUFFLE, Xoshiro, key_py, seed_words, stream_key, xoshiro_bounded
from mexsim.strategy.policy import Policy, resolve_policies
from mexsim.strategy.registry import available_strategies
from tests.profiles import examples
from tests.strategies_hyp import matches, rules_and_seats, seeds

PROBES = Path(__file__).resolve().parents[1] / "fixtures" / "strategies_probe"


@settings(max_examples=examples(150), deadline=None)
@given(rules_and_seats(), seeds, matches)
def test_core_and_reference_traces_are_identical(case, seed, match):
    rules, seats = case
    reference = play_match(rules, seed, match, seats)
    assert core_trace(rules, seats, seed, match) == reference.events


@settings(max_examples=examples(30), deadline=None)
@given(rules_and_seats(max_players=6), seeds, matches)
def test_recording_a_trace_does_not_change_the_result(case, seed, match):
    rules, seats = case
    quiet, _ = play_match_results(rules, seats, seed, match, record=False)
    traced, events = play_match_results(rules, seats, seed, match, record=True)
    batch = play_matches_results(rules, seats, seed, match, 1)[0]
    assert len(events) > 0
    np.testing.assert_array_equal(quiet, traced)
    np.testing.assert_array_equal(quiet, batch)


@settings(max_examples=examples(30), deadline=None)
@given(rules_and_seats(max_players=5), seeds, matches)
def test_result_rows_agree_with_the_reference(case, seed, match):
    rules, seats = case
    ref = play_match(rules, seed, match, seats)
    res, _ = play_match_results(rules, seats, seed, match)
    for r, rr in enumerate(ref.rounds):
        assert list(res[r, :, Field.penalty]) == rr.penalties
        assert list(res[r, :, Field.tiles_left]) == rr.tiles_left
        assert list(res[r, :, Field.tiles_played]) == rr.tiles_played
        assert list(res[r, :, Field.draws]) == rr.draws
        assert list(res[r, :, Field.turns]) == rr.turns
        assert list(res[r, :, Field.passes]) == rr.passes
        assert list(res[r, :, Field.first]) == [int(s == rr.first) for s in range(rules.players)]
        turns = res[r, :, Field.turns]  # clockwise from the first mover: one turn apart
        assert turns.max() - turns.min() <= 1 and turns[rr.first] == turns.max() >= 1
        assert (res[r, :, Field.passes] <= turns).all()
        assert bool(res[r, 0, Field.blocked]) == rr.blocked
        went_out = [s for s in range(rules.players) if res[r, s, Field.went_out]]
        assert went_out == ([] if rr.blocked else [rr.went_out])


@settings(max_examples=examples(200), deadline=None)
@given(seeds, matches, matches)
def test_numba_and_python_generators_agree(seed, match, n):
    n = n % 5000 + 1
    words = seed_words(np.uint64(stream_key(np.uint64(seed), match, STREAM_SHUFFLE, 7)))
    py = Xoshiro(key_py(seed, match, STREAM_SHUFFLE, 7))
    assert [int(w) for w in words] == py.s
    state = [np.uint64(w) for w in words]  # numba hands uint64 back as Python ints
    for bound in (1, 2, 3, n, 2**31 + 11):
        value, *rest = xoshiro_bounded(bound, *state)
        state = [np.uint64(w) for w in rest]
        assert value == py.bounded(bound)
        assert 0 <= value < bound


def test_bounded_is_uniform():
    """Lemire's rejection keeps every value equally likely (chi-square, 6 buckets)."""
    rng = Xoshiro(key_py(1, 2, 3, 4))
    counts = np.bincount([rng.bounded(6) for _ in range(60_000)], minlength=6)
    chi2 = float(((counts - 10_000) ** 2 / 10_000).sum())
    assert chi2 < 20.5  # p = 0.001 for 5 degrees of freedom


def test_a_match_depends_on_seed_and_match_index_only():
    from mexsim.game.rules import resolve_rules

    rules = resolve_rules({}, 4)
    seats = resolve_policies(["random"] * 4)
    block = play_matches_results(rules, seats, 99, 10, 5)
    for k in range(5):
        alone, _ = play_match_results(rules, seats, 99, 10 + k)
        np.testing.assert_array_equal(block[k], alone)
    other_seed, _ = play_match_results(rules, seats, 100, 10)
    assert not np.array_equal(block[0], other_seed)


@pytest.mark.compiles
@settings(max_examples=examples(40), deadline=None)
@given(rules_and_seats(max_players=6), seeds, matches, st.data())
def test_the_views_agree_word_for_word_at_every_decision(case, seed, match, data):
    """Seats of view_hash choose by a hash of their whole view: one word differing
    between the core's view and the reference engine's, at any decision, would part
    the traces."""
    rules, seats = case
    probe = available_strategies([PROBES])["view_hash"]
    hashing = data.draw(
        st.lists(st.booleans(), min_size=len(seats), max_size=len(seats)).filter(any)
    )
    seats = [Policy(probe, ()) if h else s for s, h in zip(seats, hashing, strict=True)]
    reference = play_match(rules, seed, match, seats)
    assert core_trace(rules, seats, seed, match) == reference.events
