"""The planner's fast path: every trail of a sparse hand, on bitmasks.

A domino set holds one tile per pair of numbers, so a hand is a simple graph on at
most 16 numbers (double-15) plus a double on some of them: number x's tiles fit in one
bitmask word ``adj[x]`` (bit y: the tile x|y is in hand and unused), and a trail is a
stack of numbers. Laying a tile clears two bits, taking it back sets them; a number's
untried tiles at each depth are one word. Most plans are of sparse hands — a round's
first plan is of ~15 tiles on 13 numbers, two or three independent cycles — where
trying every trail is cheapest, and on words instead of adjacency lists each step is a
few instructions (the list version spent most of a plan on bookkeeping, not search).

As in the general planner (tests/planner/general.py), the trees dangling off the rest are
peeled first: a trail entering one cannot come back, so each number's best path down
its trees is found once and added to the trails ending there; and a trail worth the
quick bound (reachable value less what parity must leave out) ends the search.

A tile is worth ``1 + pip_weight * pips`` and a double counts when the chain first
reaches its number; the returned chain lays each double right after arriving there.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mexsim.jit.bits import popcount, trailing_zeros
from mexsim.jit.options import compiled
from mexsim.planner.limits import DEPTH, EPS, SPARSE_CYCLES, WIDTH
from mexsim.planner.stack_array import stack_array

# int scratch: adjacency words, tile of each (x, y), next number down x's best tree;
# then per depth of the search: number reached, its untried tiles, whether the step
# first reached it, and the best trail's numbers
ADJ = 0
TILE_OF = ADJ + WIDTH
TAIL_NEXT = TILE_OF + WIDTH * WIDTH
AT = TAIL_NEXT + WIDTH
CAND = AT + DEPTH
FIRST = CAND + DEPTH
BEST = FIRST + DEPTH
INTS = BEST + DEPTH
# float scratch, after them: each (x, y) tile's value, each number's double, its
# trees' best gain
W = 0
DBL_W = W + WIDTH * WIDTH
TAIL_W = DBL_W + WIDTH
SCRATCH = INTS + TAIL_W + WIDTH  # one scratch in the plan's own frame, ~6 KiB

# Scratch indices are unsigned: numba tests a signed index for a negative value
# (Python's wraparound) on every access, and this is the planner's hottest code
u64 = np.uint64


# No reference counts (refcounts=False): the sparse path makes no array and returns
# none, and taking and dropping its arguments' counts, atomic adds, was ~2 % of a
# match of 4 x longest_train (docs/speed-history.md, "seventh pass")
@compiled(cache=True, refcounts=False)
def sparse_chain(start, hand, n, lo, hi, pips, pip_weight, max_pip, chain, budget):
    """Best chain from ``start`` with the tiles hand[:n] when the tiles joined to start
    close at most SPARSE_CYCLES independent cycles and trying their trails settles it
    within ``budget`` steps: (True, length, value), the chain in ``chain``; otherwise
    (False, 0, 0.0) and the caller plans it another way."""
    return _sparse(start, hand, n, lo, hi, pips, pip_weight, max_pip, chain, budget)


@compiled(cache=True, refcounts=False)
def sparse_count_chain(start, hand, n, lo, hi, max_pip, chain, budget):
    """sparse_chain with every tile worth 1 (pip_weight 0), the same chain: compiled
    with ``weight`` None, so numba prunes every weighted branch and values are counts
    read from the words (no value tables to fill or read)."""
    return _sparse(start, hand, n, lo, hi, lo, None, max_pip, chain, budget)


@njit(cache=True, inline="always")
def _sparse(start, hand, n, lo, hi, pips, weight, max_pip, chain, budget):
    """sparse_chain's body; ``weight`` is pip_weight, or None to count tiles (then a
    tile's value is 1 and a double's is its bit in ``dbl``: the float tables of values
    are neither filled nor read, and the bound is popcounts)."""
    V = max_pip + 1
    ints = stack_array(SCRATCH)
    reals = ints[INTS:].view(np.float64)
    dbl = 0
    for x in range(V):
        ints[u64(ADJ + x)] = 0
        ints[u64(TAIL_NEXT + x)] = -1
        reals[u64(TAIL_W + x)] = 0.0
        if weight is not None:
            reals[u64(DBL_W + x)] = 0.0
    for i in range(n):
        t = hand[u64(i)]
        a = lo[u64(t)]
        b = hi[u64(t)]
        ints[u64(TILE_OF + a * WIDTH + b)] = t
        if weight is not None:
            w = 1.0 + weight * pips[u64(t)]
        if a == b:
            dbl |= 1 << a
            if weight is not None:
                reals[u64(DBL_W + a)] = w
        else:
            ints[u64(TILE_OF + b * WIDTH + a)] = t
            ints[u64(ADJ + a)] |= 1 << b
            ints[u64(ADJ + b)] |= 1 << a
            if weight is not None:
                reals[u64(W + a * WIDTH + b)] = w
                reals[u64(W + b * WIDTH + a)] = w

    # the numbers joined to start, their tiles, and what the chain could be worth
    comp = 1 << start
    frontier = comp
    while frontier:
        x = trailing_zeros(frontier)
        frontier &= frontier - 1
        new = ints[u64(ADJ + x)] & ~comp
        comp |= new
        frontier |= new
    numbers = 0
    ends = 0  # tile ends: twice the tiles
    n_odd = 0
    if weight is None:  # every tile worth 1, a double worth its bit: counts of the words
        odd_leaf_doubles = 0
    else:
        reach = 0.0
        min_w = np.inf
        cheapest_sum = 0.0
        cheapest_max = 0.0
        leaf_doubles = 0.0
        best_leaf_double = 0.0
    bits = comp
    while bits:
        x = trailing_zeros(bits)
        bits &= bits - 1
        numbers += 1
        row = ints[u64(ADJ + x)]
        degree = popcount(row)
        ends += degree
        odd = x != start and degree % 2 == 1
        n_odd += odd
        # a leaf is only reached as the chain's end: one leaf double at most
        if weight is None:
            if odd and degree == 1:
                odd_leaf_doubles += (dbl >> x) & 1
        else:
            if x != start:
                reach += reals[u64(DBL_W + x)]
            cheapest = np.inf
            while row:
                y = trailing_zeros(row)
                row &= row - 1
                w = reals[u64(W + x * WIDTH + y)]
                cheapest = min(cheapest, w)
                if x < y:
                    reach += w
            min_w = min(min_w, cheapest)
            if odd:
                cheapest_sum += cheapest
                cheapest_max = max(cheapest_max, cheapest)
                if degree == 1 and (dbl >> x) & 1:
                    leaf_doubles += reals[u64(DBL_W + x)]
                    best_leaf_double = max(best_leaf_double, reals[u64(DBL_W + x)])
    if ends // 2 - numbers + 1 > SPARSE_CYCLES:
        return False, 0, 0.0
    # Each odd number but the end keeps a left-out tile, and a tile serves two: no
    # chain is worth more than ``stop``
    if weight is None:
        root = float((dbl >> start) & 1)
        reach = ends // 2 + popcount(dbl & comp & ~(1 << start))
        stop = root + reach - odd_leaf_doubles + min(odd_leaf_doubles, 1) - (n_odd // 2)
    else:
        root = reals[u64(DBL_W + start)]
        if ends == 0:
            min_w = 1.0
        loss = max((n_odd // 2) * min_w, 0.5 * (cheapest_sum - cheapest_max))
        stop = root + reach - leaf_doubles + best_leaf_double - loss

    # peel the dangling trees, leaves first: each number's best path down its trees
    leaves = 0
    bits = comp & ~(1 << start)
    while bits:
        x = trailing_zeros(bits)
        bits &= bits - 1
        if popcount(ints[u64(ADJ + x)]) == 1:
            leaves |= 1 << x
    while leaves:
        c = trailing_zeros(leaves)
        leaves &= leaves - 1
        p = trailing_zeros(ints[u64(ADJ + c)])
        ints[u64(ADJ + c)] = 0
        ints[u64(ADJ + p)] &= ~(1 << c)
        if weight is None:
            gain = 1.0 + ((dbl >> c) & 1) + reals[u64(TAIL_W + c)]
        else:
            gain = reals[u64(W + c * WIDTH + p)] + reals[u64(DBL_W + c)] + reals[u64(TAIL_W + c)]
        if gain > reals[u64(TAIL_W + p)]:
            reals[u64(TAIL_W + p)] = gain
            ints[u64(TAIL_NEXT + p)] = c
        if p != start and popcount(ints[u64(ADJ + p)]) == 1:
            leaves |= 1 << p

    # every trail through what is left, depth first
    best_value = root + reals[u64(TAIL_W + start)]
    best_len = 0
    live = False  # the best trail is the current one's first best_len steps, not copied
    value = root
    seen = 1 << start  # numbers the trail has reached (their doubles are counted)
    depth = 0
    ints[u64(AT)] = start
    ints[u64(CAND)] = ints[u64(ADJ + start)]
    nodes = 0
    exhausted = False
    while best_value < stop - EPS and nodes < budget:
        v = ints[u64(AT + depth)]
        c = ints[u64(CAND + depth)]
        if c:
            y = trailing_zeros(c)
            ints[u64(CAND + depth)] = c & (c - 1)
            ints[u64(ADJ + v)] &= ~(1 << y)
            ints[u64(ADJ + y)] &= ~(1 << v)
            fresh = 1 - ((seen >> y) & 1)
            if weight is None:
                value += 1.0 + (fresh & (dbl >> y))
            else:
                value += reals[u64(W + v * WIDTH + y)]
                value += fresh * reals[u64(DBL_W + y)]
            seen |= 1 << y
            depth += 1
            ints[u64(FIRST + depth)] = fresh
            ints[u64(AT + depth)] = y
            ints[u64(CAND + depth)] = ints[u64(ADJ + y)]
            nodes += 1
            total = value + reals[u64(TAIL_W + y)]
            if total > best_value + EPS:
                best_value = total
                best_len = depth
                live = True
        else:
            if depth == 0:
                exhausted = True
                break
            if live and depth == best_len:  # about to leave it: keep a copy
                for i in range(1, depth + 1):
                    ints[u64(BEST + i)] = ints[u64(AT + i)]
                live = False
            u = ints[u64(AT + depth - 1)]
            ints[u64(ADJ + u)] |= 1 << v
            ints[u64(ADJ + v)] |= 1 << u
            if weight is None:
                value -= 1.0 + (ints[u64(FIRST + depth)] & (dbl >> v))
            else:
                value -= reals[u64(W + u * WIDTH + v)]
            if ints[u64(FIRST + depth)]:
                if weight is not None:
                    value -= reals[u64(DBL_W + v)]
                seen &= ~(1 << v)
            depth -= 1

    if not exhausted and best_value < stop - EPS:
        return False, 0, 0.0  # out of budget
    if live:
        for i in range(1, best_len + 1):
            ints[u64(BEST + i)] = ints[u64(AT + i)]

    # lay it out, on down the best tree at its end, each double on arrival
    length = 0
    v = start
    placed = 0
    if (dbl >> v) & 1:
        chain[u64(length)] = ints[u64(TILE_OF + v * WIDTH + v)]
        length += 1
        placed |= 1 << v
    i = 1
    while True:
        if i <= best_len:
            y = ints[u64(BEST + i)]
            i += 1
        elif ints[u64(TAIL_NEXT + v)] >= 0:
            y = ints[u64(TAIL_NEXT + v)]
        else:
            break
        chain[u64(length)] = ints[u64(TILE_OF + v * WIDTH + y)]
        length += 1
        v = y
        if (dbl >> v) & 1 and not (placed >> v) & 1:
            chain[u64(length)] = ints[u64(TILE_OF + v * WIDTH + v)]
            length += 1
            placed |= 1 << v
    return True, length, best_value
