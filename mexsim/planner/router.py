"""The longest-train planner: the best chain of one's own tiles from an open end.

Seed 000's advice is to build the longest possible train of one's own tiles and keep
those tiles for it. Exactly: tiles are edges between their two numbers, a chain laid
from number ``start`` is a trail (each tile used once), and a double ``d|d`` can be
slipped into the chain whenever it passes through ``d`` (R12 lets it be followed), so
a chain's value is the value of its non-double tiles plus that of the doubles on the
numbers it visits. A tile is worth ``1 + pip_weight * pips``.

The search is exact, by one of three paths (longest_chain routes a hand):

1. sparse hands — the tiles joined to ``start`` close at most a few independent
   cycles, the usual case — try every trail on bitmask words, after peeling the trees
   that dangle off the rest (a trail that enters one cannot come back, so each
   number's best path down its trees is found once and added to the trails ending
   there): mexsim/planner/sparse.py. Those its first SWITCH_STEPS steps do not settle
   go on to
2. the dense path, on the same words (mexsim/planner/dense.py; counts unweighted,
   floats weighted; up to double-15, pip_weight >= 0): the bound, certificate and
   search below, with the pieces beyond bridges solved apart;
3. general_chain (tests/planner/general.py), the same method on adjacency lists
   (which also tries every trail of sparse hands itself): the independent reference
   the tests hold the other two to. It is not on longest_chain's route, so that a
   strategy using the planner does not compile it (it was a third of longest_train's
   first compile): every set up to double-15 fits the words, and longest_chain
   refuses what they cannot take, negative pip weights (tiles worth less than 0 leave
   the bounds of every path unsound: the general path too).

The method of the dense paths:

* a bound: the tiles still reachable from the chain's end, less those that parity
  forces out — the left-out tiles join up the numbers of odd degree in pairs, so at
  least a minimum matching of them by distance (a T-join) is left out — and less the
  doubles on leaves the chain cannot end at. Distance is the value of the shortest
  path: tiles times the tile value when all tiles are worth the same (pip_weight 0),
  else Dijkstra by tile values, where a path through a number of two tiles also loses
  that number's double (weighted hands are ~100x slower to search without both);
* a certificate: the tiles that such a minimum T-join leaves have even degree but at
  the ends, so the part joined to the chain's end is one Euler trail. When it holds all
  of them it meets the bound and is the best completion; otherwise it is a good chain
  to start from. On most dense hands the one at the start settles it without search;
* a branch and bound below it, using both at every node (the Euler shortcut — every
  reachable tile fits one trail — is the T-join-free case), with aspiration (searches
  ask for chains worth more than a threshold just under the bound, lowered step by
  step; weighted hands ask straight for a better chain than the certificate) and a
  table of (end, tiles used) states searched already, which skips orderings of the
  same trail. A chain that meets the bound ends the search.

Which of several equally good chains it returns is unspecified (it follows the search
order, and changed when that did).

``longest_chain`` is numba-compiled and works on plain arrays so strategies can call
it; ``tests.planner.brute_force`` is the plain-Python check the tests compare it with.
Search limits shared by the paths live in mexsim/planner/limits.py.
"""

from __future__ import annotations

import numpy as np

from mexsim.jit.options import compiled
from mexsim.planner.dense import dense_chain, dense_chain_in, weighted_dense_chain
from mexsim.planner.limits import SWITCH_STEPS, WIDTH
from mexsim.planner.sparse import sparse_chain, sparse_count_chain


# inlined into its callers, as sparse_chain into it: the calls (arrays and tuples across
# a call boundary) cost ~6 % of a 4 x longest_train match, measured in process time
@compiled(cache=True, inline="always")
def longest_chain(start, hand, n, lo, hi, pips, pip_weight, max_pip, chain):
    """Best chain from number ``start`` with the tiles hand[:n] (tile numbers indexing
    the lo/hi/pips tables). Writes the chain's tiles in laying order to ``chain`` (a
    double right after arriving at its number) and returns (length, value)."""
    if not (pip_weight >= 0.0 and max_pip < WIDTH):
        raise ValueError("longest_chain plans with pip_weight >= 0 on sets up to double-15")
    # A strategy may pass anything, and the paths check no index they make from these
    # (the sparse path's scratch is in its frame: mexsim/planner/stack_array.py): every
    # one is checked here, once, so that a wrong input raises rather than writes out of
    # bounds. (The shortcut below passes over the hand again: folded into this loop,
    # which cannot stop early, it was no faster.)
    if n > hand.shape[0] or n > chain.shape[0]:
        raise ValueError("longest_chain: n is more tiles than hand, or chain, holds")
    for i in range(n):
        t = hand[i]
        if t < 0 or t >= lo.shape[0] or t >= hi.shape[0] or t >= pips.shape[0]:
            raise ValueError("longest_chain: a tile number outside the tile tables")
        if not (0 <= lo[t] <= hi[t] <= max_pip):
            raise ValueError("longest_chain: a tile outside the set (0 <= low <= high <= max_pip)")
    return _route(start, hand, n, lo, hi, pips, pip_weight, max_pip, chain)


@compiled(cache=True, inline="always")
def _route(start, hand, n, lo, hi, pips, pip_weight, max_pip, chain):
    """longest_chain's body after its checks: the shortcuts, then the paths."""
    if n <= 1:  # no choice to make: no graph either
        if n == 1 and (lo[hand[0]] == start or hi[hand[0]] == start):
            chain[0] = hand[0]
            return 1, 1.0 + pip_weight * pips[hand[0]]
        return 0, 0.0
    # no tile but start's double joins start (~18 % of the plans of 4 x longest_train
    # matches): that double or nothing, as the sparse path finds after building its
    # words, ~0.3 µs a plan
    joined = False
    double = -1
    for i in range(n):
        a = lo[hand[i]]
        b = hi[hand[i]]
        if a == start or b == start:
            if a != b:
                joined = True
                break
            double = hand[i]
    if not joined:
        if double < 0:
            return 0, 0.0
        chain[0] = double
        return 1, 1.0 + pip_weight * pips[double]
    return _paths(start, hand, n, lo, hi, pips, pip_weight, max_pip, chain, None)


@compiled(cache=True, inline="always")
def trusted_joined_unweighted_chain(start, hand, n, lo, hi, pips, max_pip, chain, dense_scratch):
    """``longest_unweighted_chain``'s chain without its checks or shortcuts: for the
    kernel's own use (mexsim/game/kernel_longest_train.py), whose hand, tile tables and
    scratch are its own and never a strategy's (the checks' pass over the hand was ~3 %
    of a match of 4 x longest_train), and which has seen on its bitmask hand that
    ``n >= 2`` and a tile other than start's double joins start (a few instructions on
    words; _route's pass over the tile list was ~2 %: docs/speed-history.md, "tenth" and
    "eleventh pass"). A strategy calls longest_chain."""
    return _paths(start, hand, n, lo, hi, pips, 0.0, max_pip, chain, dense_scratch)


@compiled(cache=True, inline="always")
def _paths(start, hand, n, lo, hi, pips, pip_weight, max_pip, chain, dense_scratch):
    """The sparse path, then the dense one, for a hand of two tiles or more in which a
    tile other than start's double joins start. The unweighted dense path plans in
    ``dense_scratch`` (dense.SCRATCH words) when given, else in one of its own."""
    if pip_weight == 0.0:  # every tile worth 1: counts
        sparse, length, value = sparse_count_chain(
            start, hand, n, lo, hi, max_pip, chain, np.int64(SWITCH_STEPS)
        )
        if sparse:
            return length, value
        if dense_scratch is None:
            return dense_chain(start, hand, n, lo, hi, max_pip, chain)
        return dense_chain_in(dense_scratch, start, hand, n, lo, hi, max_pip, chain)
    sparse, length, value = sparse_chain(
        start, hand, n, lo, hi, pips, pip_weight, max_pip, chain, np.int64(SWITCH_STEPS)
    )
    if sparse:
        return length, value
    return weighted_dense_chain(start, hand, n, lo, hi, pips, pip_weight, max_pip, chain)


@compiled(cache=True, inline="always")
def longest_unweighted_chain(start, hand, n, lo, hi, pips, max_pip, chain):
    """``longest_chain`` with pip_weight 0 (every tile worth 1), the same chain, for a
    caller that plans only so: inlined with the weight a constant, numba prunes the
    weighted branch before typing it, so the dense path's weighted form is not compiled
    (it is a quarter of a cold start's compiling: longest_train's default). numba
    compiles every callee it types, taken or not; tests/strategy/
    test_longest_train_forms.py holds the pruning."""
    return longest_chain(start, hand, n, lo, hi, pips, 0.0, max_pip, chain)
