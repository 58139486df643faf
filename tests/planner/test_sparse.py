"""The planner's fast path (mexsim/planner/sparse.py): every trail of a sparse hand, on
bitmask words. It must take exactly the hands with few independent cycles, return the
best chain of those (R12: a double is followed where the chain reaches its number), and
work up to double-15, where a number's tiles fill all 16 bits of its word."""

from __future__ import annotations

from itertools import pairwise

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from mexsim.game.tiles import tile_set
from mexsim.planner.limits import SPARSE_CYCLES
from mexsim.planner.limits import SPARSE_NODE_BUDGET as NODE_BUDGET
from mexsim.planner.sparse import sparse_chain, sparse_count_chain
from tests.profiles import examples
from tests.strategy.test_strategies import best_value, check_chain, hands, tables


def cycles_joined_to(max_pip: int, hand: list[int], start: int) -> int:
    """Independent cycles (tiles - numbers + 1) of the non-double tiles joined to start."""
    ts = tile_set(max_pip)
    edges = [ts.tile(t) for t in hand if ts.tile(t)[0] != ts.tile(t)[1]]
    joined, grew = {start}, True
    while grew:
        grew = False
        for a, b in edges:
            if (a in joined) != (b in joined):
                joined |= {a, b}
                grew = True
    tiles = sum(1 for a, _ in edges if a in joined)
    return tiles - len(joined) + 1


def run_sparse(
    max_pip: int, hand: list[int], start: int, pip_weight: float, budget: int = NODE_BUDGET
):
    lo, hi, pips = tables(max_pip)  # writable, as the game passes them: no new compile
    chain = np.full(max(1, len(hand)), -1, dtype=np.int64)
    taken, length, value = sparse_chain(
        start,
        np.array(hand, dtype=np.int64),
        len(hand),
        lo,
        hi,
        pips,
        pip_weight,
        max_pip,
        chain,
        budget,
    )
    return taken, chain[:length].tolist(), value


@settings(max_examples=examples(300), deadline=None)
@given(hands({6: (2, 14), 9: (2, 16), 12: (2, 18), 15: (2, 18)}))
def test_sparse_path_takes_exactly_the_sparse_hands_and_plans_them_exactly(case):
    max_pip, hand, start, pip_weight = case
    taken, chain, value = run_sparse(max_pip, hand, start, pip_weight)
    assert taken == (cycles_joined_to(max_pip, hand, start) <= SPARSE_CYCLES)
    if taken:
        check_chain(max_pip, hand, start, pip_weight, chain, value)
        ts = tile_set(max_pip)
        assert abs(value - best_value(start, [ts.tile(t) for t in hand], pip_weight)) < 1e-9


@settings(max_examples=examples(100), deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([0.0, 0.5]))
def test_sparse_path_on_double_fifteen_paths_through_number_fifteen(seed, pip_weight):
    """Long paths and small cycles over all 16 numbers of a double-15 set, with their
    doubles: the highest bit of every word is used."""
    ts = tile_set(15)
    rng = np.random.default_rng(seed)
    order = rng.permutation(16).tolist()
    pairs = list(pairwise(order))  # a path through every number
    pairs += [(order[i], order[i + 2]) for i in rng.choice(14, size=3, replace=False)]
    pairs += [(x, x) for x in rng.choice(16, size=4, replace=False).tolist()]
    hand = sorted({int(ts.index[min(a, b), max(a, b)]) for a, b in pairs})
    start = int(rng.choice([order[0], order[-1], 15]))
    taken, chain, value = run_sparse(15, hand, start, pip_weight)
    assert taken
    check_chain(15, hand, start, pip_weight, chain, value)
    assert abs(value - best_value(start, [ts.tile(t) for t in hand], pip_weight)) < 1e-9


def test_a_tree_hanging_off_a_cycle_is_entered_last():
    """From 2: the square 2-1-0-3-2, and the path 2-4-5 with the double 5|5 hanging
    off it. Entering the tree first would strand the square, so the best chain goes
    round the square and then down the tree: all six tiles and the double."""
    ts = tile_set(6)
    pairs = [(1, 2), (0, 1), (0, 3), (2, 3), (2, 4), (4, 5), (5, 5)]
    hand = [int(ts.index[a, b]) for a, b in pairs]
    taken, chain, value = run_sparse(6, hand, 2, 0.0)
    assert taken and value == 7.0
    check_chain(6, hand, 2, 0.0, chain, value)
    assert [ts.tile(t) for t in chain[-3:]] == [(2, 4), (4, 5), (5, 5)]


@settings(max_examples=examples(200), deadline=None)
@given(hands({9: (4, 14), 12: (8, 18)}, st.sampled_from([0.0, 1.0])), st.integers(1, 40))
def test_a_search_out_of_steps_hands_the_plan_back(case, budget):
    """Unweighted plans get a few dozen steps here before the dense path takes them
    (planner.SWITCH_STEPS): what is not settled within the budget is declined, never
    returned unproven, and what is returned is the best."""
    max_pip, hand, start, pip_weight = case
    taken, chain, value = run_sparse(max_pip, hand, start, pip_weight, budget)
    if taken:
        check_chain(max_pip, hand, start, pip_weight, chain, value)
        ts = tile_set(max_pip)
        assert abs(value - best_value(start, [ts.tile(t) for t in hand], pip_weight)) < 1e-9


def test_a_cycle_needing_more_steps_than_allowed_is_declined():
    """From 0: the triangle 0-1-2 and 2|3 hanging off it. Parity leaves one tile out,
    so the best is three (0|1 1|2 2|3): two steps of the search, one is not enough."""
    ts = tile_set(6)
    hand = [int(ts.index[a, b]) for a, b in ((0, 1), (1, 2), (0, 2), (2, 3))]
    assert run_sparse(6, hand, 0, 0.0, budget=1)[0] is False
    taken, chain, value = run_sparse(6, hand, 0, 0.0)
    assert taken and value == 3.0
    check_chain(6, hand, 0, 0.0, chain, value)
    assert run_sparse(6, hand, 0, 0.0, budget=2)[0] is True


def run_counting(max_pip: int, hand: list[int], start: int, budget: int = NODE_BUDGET):
    lo, hi, _ = tables(max_pip)
    chain = np.full(max(1, len(hand)), -1, dtype=np.int64)
    taken, length, value = sparse_count_chain(
        start, np.array(hand, dtype=np.int64), len(hand), lo, hi, max_pip, chain, budget
    )
    return taken, chain[:length].tolist(), value


@settings(max_examples=examples(300), deadline=None)
@given(
    hands({6: (2, 14), 9: (2, 16), 12: (2, 18), 15: (2, 18)}, st.just(0.0)),
    st.sampled_from([NODE_BUDGET, 96, 8]),
)
def test_the_counting_form_is_the_weighted_form_at_weight_zero(case, budget):
    """sparse_count_chain (every tile worth 1, counts from the words) takes the same
    hands, in the same steps, and returns the same chain as sparse_chain at pip_weight
    0: longest_train's games do not depend on which form planned them."""
    max_pip, hand, start, _ = case
    assert run_counting(max_pip, hand, start, budget) == run_sparse(
        max_pip, hand, start, 0.0, budget
    )
