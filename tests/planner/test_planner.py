"""The planner on weighted hands (pip_weight > 0), where tiles differ in value.

Weighted hands take other paths through the planner than unweighted ones: shortest
paths by tile value price the T-join bound, and the search works from value bounds
rather than tile counts. These tests hold it to the definitions the unweighted tests
use (tests/strategy/test_strategies.py): every ordered subset on tiny hands, every chain with
(end, tiles used) states remembered on bigger ones, for weights that make values
halves (0.5), whole numbers (1.0, 2.0) and inexact binary fractions (0.1, 0.3, drawn
floats).
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from mexsim.game.tiles import tile_set
from mexsim.planner import dense
from mexsim.planner.dense import weighted_dense_chain
from mexsim.planner.router import longest_unweighted_chain, trusted_joined_unweighted_chain
from tests.planner.brute_force import longest_chain_brute_force
from tests.planner.general import general_chain
from tests.profiles import examples
from tests.strategy.test_strategies import (
    assert_plan_is_best,
    best_value,
    check_chain,
    hands,
    plan,
    tables,
)

WEIGHTS = st.one_of(
    st.sampled_from([0.5, 1.0, 0.25, 0.1, 0.3, 2.0]),
    st.floats(0.01, 3.0, allow_nan=False, allow_infinity=False),
)


def weighted_hands(sizes: dict[int, tuple[int, int]]) -> st.SearchStrategy:
    return hands(sizes, WEIGHTS)


@settings(max_examples=examples(300), deadline=None)
@given(weighted_hands({6: (2, 7), 9: (2, 7), 12: (2, 7)}))
def test_weighted_planner_equals_brute_force(case):
    assert_plan_is_best(case, longest_chain_brute_force)


@settings(max_examples=examples(200), deadline=None)
@given(weighted_hands({6: (8, 17), 9: (12, 20), 12: (14, 20)}))
def test_weighted_planner_is_exact_on_dense_hands(case):
    """Many cycles: the weighted T-join bound and certificate, the search below them."""
    assert_plan_is_best(case, best_value)


# each example's brute force takes seconds: a few of these densest hands, and the
# weighted paths are held to the general planner on many more below
@settings(max_examples=examples(12), deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([0.5, 1.0, 0.3]))
def test_weighted_planner_is_exact_on_full_double_six_sets(seed, pip_weight):
    """All 28 tiles of a double-6 set but a few: every number has high degree, the
    densest hands there are."""
    rng = np.random.default_rng(seed)
    hand = sorted(rng.choice(28, size=int(rng.integers(18, 23)), replace=False).tolist())
    start = int(rng.integers(0, 7))
    assert_plan_is_best((6, hand, start, pip_weight), best_value)


@pytest.mark.parametrize("pip_weight", [-0.5, float("nan")])
def test_longest_chain_refuses_weights_no_path_plans(pip_weight):
    """A negative (or NaN) weight is a clear error, not a wrong plan: with tiles worth
    less than nothing the bounds of every path are unsound."""
    from mexsim.planner import longest_chain

    ts = tile_set(6)
    hand = np.array([int(ts.index[0, 1]), int(ts.index[1, 2]), int(ts.index[2, 0])], dtype=np.int64)
    lo, hi, pips = tables(6)  # writable, as the game passes them: no new compile
    with pytest.raises(ValueError, match="pip_weight >= 0"):
        longest_chain(0, hand, 3, lo, hi, pips, pip_weight, 6, np.zeros(3, dtype=np.int64))


def test_weighted_planner_prefers_pips_to_length():
    """From 0: 0|1 1|2 2|3 (three tiles, 9 pips) or 0|6 6|6 (two tiles, 18 pips), not
    both. pip_weight 0 takes the three tiles; 0.5 prices them 7.5 against 11 and 1.0
    12 against 20, so both take the two."""
    ts = tile_set(6)
    hand = [int(ts.index[a, b]) for a, b in ((0, 1), (1, 2), (2, 3), (0, 6), (6, 6))]
    for pip_weight, tiles, worth in (
        (0.0, [(0, 1), (1, 2), (2, 3)], 3.0),
        (0.5, [(0, 6), (6, 6)], 11.0),
        (1.0, [(0, 6), (6, 6)], 20.0),
    ):
        chain, value = plan(6, hand, 0, pip_weight)
        assert sorted(ts.tile(t) for t in chain) == tiles
        assert value == pytest.approx(worth)


@settings(max_examples=examples(100), deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([0.0, 0.5, 1.0]))
def test_planner_is_exact_on_big_sparse_hands(seed, pip_weight):
    """16–19 tiles of a double-12 set: about half of such hands join 15 or more tiles to
    the start with few cycles, where unweighted plans start from the T-join certificate
    and try every trail that could beat it (weighted ones try every trail)."""
    rng = np.random.default_rng(seed)
    hand = sorted(rng.choice(91, size=int(rng.integers(16, 20)), replace=False).tolist())
    start = int(rng.integers(0, 13))
    assert_plan_is_best((12, hand, start, pip_weight), best_value)


@settings(max_examples=examples(150), deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([0.0, 0.5, 1.0, 0.3]))
def test_planner_is_exact_on_trees_hanging_off_cycles(seed, pip_weight):
    """A random tree over some numbers of a double-12 set, a few tiles closing cycles
    and some doubles: the planner searches only the cycles' part and adds the best path
    down the dangling trees at each end (start on a cycle, in a tree or a leaf)."""
    rng = np.random.default_rng(seed)
    ts = tile_set(12)
    numbers = rng.permutation(13)[: int(rng.integers(4, 14))].tolist()
    pairs = {
        tuple(sorted((int(numbers[int(rng.integers(0, i))]), x)))
        for i, x in enumerate(numbers)
        if i > 0
    }
    for _ in range(int(rng.integers(0, 4))):  # cycles
        a, b = rng.choice(numbers, size=2, replace=False).tolist()
        pairs.add(tuple(sorted((a, b))))
    for x in numbers:
        if rng.random() < 0.3:
            pairs.add((x, x))
    hand = sorted(int(ts.index[a, b]) for a, b in pairs)
    start = int(numbers[int(rng.integers(0, len(numbers)))])
    chain, value = plan(12, hand, start, pip_weight)
    check_chain(12, hand, start, pip_weight, chain, value)
    assert value == pytest.approx(best_value(start, [ts.tile(t) for t in hand], pip_weight))


def general_plan(max_pip: int, hand: list[int], start: int, pip_weight: float = 0.0) -> float:
    """The general planner's value (adjacency lists), bypassing the bitmask paths."""
    lo, hi, pips = tables(max_pip)
    chain = np.full(max(1, len(hand)), -1, dtype=np.int64)
    _, value = general_chain(
        start, np.array(hand, dtype=np.int64), len(hand), lo, hi, pips, pip_weight, max_pip, chain
    )
    return value


def weighted_dense_plan(
    max_pip: int, hand: list[int], start: int, pip_weight: float
) -> tuple[list[int], float]:
    """The weighted bitmask path (mexsim/planner/dense.py) called directly, so that it
    plans sparse hands too, which longest_chain would give to the sparse path."""
    lo, hi, pips = tables(max_pip)
    chain = np.full(max(1, len(hand)), -1, dtype=np.int64)
    length, value = weighted_dense_chain(
        start, np.array(hand, dtype=np.int64), len(hand), lo, hi, pips, pip_weight, max_pip, chain
    )
    return chain[:length].tolist(), value


def assert_weighted_dense_is_best(case: tuple) -> None:
    """The weighted bitmask path's chain is valid, worth what it says and worth
    ``best_value`` (every chain, doubles as ordinary tiles: R12 lets a chain lay each
    double on arrival at its number, which the path counts on first arrival)."""
    assert_plan_is_best(case, best_value, weighted_dense_plan)


@settings(max_examples=examples(200), deadline=None)
@given(weighted_hands({6: (2, 17), 9: (8, 20)}))
def test_weighted_dense_path_equals_the_definition(case):
    """Weighted hands on bitmask words: Dijkstra by tile value prices the T-join
    bound, floats compared within EPS, the certificate and search with values."""
    assert_weighted_dense_is_best(case)


@settings(max_examples=examples(10), deadline=None)  # each example's brute force takes seconds
@given(st.integers(0, 2**32 - 1), WEIGHTS)
def test_weighted_dense_path_on_full_double_six_sets(seed, pip_weight):
    """18–22 of the 28 double-6 tiles: the densest hands, on the weighted bitmask path
    and through longest_chain."""
    rng = np.random.default_rng(seed)
    hand = sorted(rng.choice(28, size=int(rng.integers(18, 23)), replace=False).tolist())
    start = int(rng.integers(0, 7))
    assert_weighted_dense_is_best((6, hand, start, pip_weight))
    assert_plan_is_best((6, hand, start, pip_weight), best_value)


@settings(max_examples=examples(200), deadline=None)
@given(hands({6: (12, 17), 9: (14, 20)}, st.just(0.0)))
def test_dense_unweighted_planner_equals_the_definition(case):
    """Unweighted hands with many cycles take the bitmask branch and bound
    (mexsim/planner/dense.py): T-join bound and certificate on words, every double
    counted on first arrival at its number (R12: doubles can be followed)."""
    assert_plan_is_best(case, best_value)


UNWEIGHTED = st.just(0.0)


@st.composite
def bridged_hands(draw: st.DrawFn, weights: st.SearchStrategy[float] = UNWEIGHTED):
    """Two or three dense clusters of double-12 numbers joined in a row by single tiles
    (bridges), a few leaves and doubles; the start in any cluster."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    ts = tile_set(12)
    numbers = rng.permutation(13).tolist()
    cuts = sorted(rng.choice(range(3, 10), size=int(rng.integers(1, 3)), replace=False))
    clusters = [numbers[a:b] for a, b in pairwise([0, *cuts, 13])]
    pairs = set()
    for c in clusters:
        for i, x in enumerate(c):
            for y in c[i + 1 :]:
                if rng.random() < 0.6:
                    pairs.add(tuple(sorted((x, y))))
    for c, d in pairwise(clusters):
        pairs.add(tuple(sorted((int(rng.choice(c)), int(rng.choice(d))))))
    for x in range(13):
        if rng.random() < 0.25:
            pairs.add((x, x))
    pairs = sorted(pairs)
    keep = rng.permutation(len(pairs))[:20]
    hand = sorted(int(ts.index[pairs[i]]) for i in keep)
    return 12, hand, int(rng.integers(0, 13)), draw(weights)


@settings(max_examples=examples(150), deadline=None)
@given(bridged_hands())
def test_dense_planner_is_exact_across_bridges(case):
    """A trail that crosses a bridge away from the start never comes back: hands made
    of clusters joined by single tiles (R12: a double is laid on arrival)."""
    assert_plan_is_best(case, best_value)


@settings(max_examples=examples(150), deadline=None)
@given(bridged_hands(WEIGHTS))
def test_weighted_dense_path_is_exact_across_bridges(case):
    """Weighted clusters joined by bridges: each piece beyond a bridge is solved apart
    with values (its far double counted, R12) and added to trails ending at the near
    end; directly and through longest_chain."""
    assert_weighted_dense_is_best(case)
    assert_plan_is_best(case, best_value)


@pytest.mark.slow
@settings(max_examples=examples(150), deadline=None)
@given(st.integers(0, 2**32 - 1), WEIGHTS)
def test_weighted_dense_path_equals_the_general_planner(seed, pip_weight):
    """18–24 tiles of a double-12 set, weighted: the bitmask path and the general
    planner (adjacency lists, Dijkstra on lists) find chains of the same value."""
    rng = np.random.default_rng(seed)
    hand = sorted(rng.choice(91, size=int(rng.integers(18, 25)), replace=False).tolist())
    start = int(rng.integers(0, 13))
    expected = general_plan(12, hand, start, pip_weight)
    chain, value = weighted_dense_plan(12, hand, start, pip_weight)
    check_chain(12, hand, start, pip_weight, chain, value)
    assert value == pytest.approx(expected, abs=1e-9)
    chain, value = plan(12, hand, start, pip_weight)
    check_chain(12, hand, start, pip_weight, chain, value)
    assert value == pytest.approx(expected, abs=1e-9)


@settings(max_examples=examples(150), deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_dense_planner_equals_the_general_planner(seed):
    """18–24 tiles of a double-12 set, unweighted: the bitmask path and the general
    planner (adjacency lists) find chains of the same value."""
    rng = np.random.default_rng(seed)
    hand = sorted(rng.choice(91, size=int(rng.integers(18, 25)), replace=False).tolist())
    start = int(rng.integers(0, 13))
    chain, value = plan(12, hand, start, 0.0)
    check_chain(12, hand, start, 0.0, chain, value)
    assert value == general_plan(12, hand, start)


@settings(max_examples=examples(300), deadline=None)
@given(hands({6: (0, 17), 9: (0, 20), 12: (0, 24), 15: (0, 30)}, UNWEIGHTED))
def test_the_kernels_unchecked_planner_plans_the_same_chain(case):
    """trusted_joined_unweighted_chain, which the kernel's longest_train plans with once
    it has seen that a tile other than start's double joins start (its arguments are
    the kernel's own), is longest_unweighted_chain without its checks and shortcuts:
    the same chain, tile for tile, on every set up to double-15, whatever its dense
    path's scratch held before."""
    max_pip, hand, start, _ = case
    lo, hi, pips = tables(max_pip)
    assume(len(hand) >= 2 and any(lo[t] != hi[t] and start in (lo[t], hi[t]) for t in hand))
    tiles = np.array(hand, dtype=np.int64)
    chains = [np.full(len(hand), -1, dtype=np.int64) for _ in range(2)]
    checked = longest_unweighted_chain(start, tiles, len(hand), lo, hi, pips, max_pip, chains[0])
    # its dense path plans in the kernel's scratch, which holds what the last plan
    # left: garbage here
    scratch = np.random.default_rng(len(hand)).integers(-(2**62), 2**62, dense.SCRATCH)
    unchecked = trusted_joined_unweighted_chain(
        start, tiles, len(hand), lo, hi, pips, max_pip, chains[1], scratch
    )
    assert checked == unchecked
    assert chains[0].tolist() == chains[1].tolist()
