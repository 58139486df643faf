"""The planner's dense path, on bitmasks: counts for unweighted hands (pip_weight 0),
floats for weighted ones.

Hands that close more than a few independent cycles (mexsim/planner/sparse.py takes the
others) are planned by a branch and bound, as in tests/planner/general.py, but here on
the words of the sparse path: a hand is a simple graph on at most 16 numbers plus doubles, so
number x's unused tiles are one word ``adj[x]`` (bit y: tile x|y). With every tile
worth 1 a chain's value is a count, and everything the search does per node is a few
word operations:

* the part reachable from the chain's end is a breadth-first closure of words (the
  next layer is the OR of adj[x] over the frontier, less what was reached); its tiles
  and its numbers of odd degree are popcounts;
* the bound: those tiles less what parity forces out. The tiles a trail from v to u
  leaves out have odd degree exactly at the odd numbers other than v and u (and at v
  when v is even and u is not v): they hold a T-join of them, so at least a minimum
  matching of them by distance (tiles, a BFS of words from each) is left out; the end
  u is left free by a stand-in matched to it (a trail ending at an even number is no
  better, see tests/planner/general.py). Of the doubles on leaves only the end's is laid;
* the certificate: the tiles that minimum T-join leaves have even degree but at v and
  the end, so the part joined to v is one Euler trail (Hierholzer on words). When it
  takes all of them it meets the bound: the best completion, no search below;
* a table of (end, tiles used) states searched already (tiles numbered in one 64-bit
  word), and aspiration: ask for chains worth more than a threshold just under the
  bound, lowering it while none is found.

First, the pieces hanging off the rest by a single tile (a bridge, found by Tarjan's
low links on words) are solved apart, innermost first: a trail that crosses a bridge
away from the start cannot come back, so the most it gains beyond it is a smaller
problem solved once (the same search, from the far end) and added to trails ending
at the near end. Dangling trees are the simplest case. What a trail gains by ending
at a number (such a piece, or a double on a leaf) enters the bound through the
stand-in: matched to w it costs the least of G - g(x) + dist(w, x) over the numbers
x (G: the most any end gains, counted in the reach), which prices ending at x beyond
a path from w, even numbers too. Hands whose T-join removed such a piece (say a
triangle behind a bridge) made the certificate fall short; apart, both are settled at
once (docs/speed-history.md, "The planner's paths", has the measurements).

It is exact within DENSE_NODE_BUDGET nodes (then a DENSE_FALLBACK_BUDGET search from the
best of some random walks keeps the best chain found), like the general planner.
Values are counts, so it works in integers.

Weighted hands (a tile worth 1 + pip_weight * pips) take the same functions, compiled
a second time: ``w`` is None unweighted, so numba prunes every ``w is None`` branch
and the integer path is unchanged, and else the values (tile and double values,
pieces' gains, distances, prices, the matching table) are read from a float view of
the one scratch allocation. What differs: the reach sums tile values and its quick
bound also counts the cheapest tile at each odd number; the T-join prices are
shortest paths by tile value (_dijkstra on words, a number of two tiles passed
through losing its double), their paths followed by parent; values compare within
EPS; and aspiration asks straight for a chain better than the certificate.

A chain is kept as the numbers it reaches; laid out, each double follows the first
arrival at its number (R12: doubles can be followed).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mexsim.jit.bits import popcount, trailing_zeros
from mexsim.jit.callee import callee
from mexsim.jit.options import compiled
from mexsim.planner.dense_bound import _component, _min_removal, _reach
from mexsim.planner.dense_scratch import (
    ADJ,
    AT,
    BEST,
    BRIDGE,
    CAND,
    DFS,
    DIST,
    DP,
    DW,
    EID,
    FRESH,
    LAYER,
    MINW,
    ODD,
    PAIR,
    POP,
    PX,
    REM,
    SCRATCH,
    STACK,
    TABLE,
    TABLE_CAP,
    TAIL,
    TILE_OF,
    TLEN,
    TMASK,
    TRAIL,
    TSEQ,
    WT,
    _double,
    _eps,
    _tile,
)
from mexsim.planner.limits import (
    DENSE_FALLBACK_BUDGET,
    DENSE_NODE_BUDGET,
    DENSE_TJOIN_FROM,
    DENSE_TJOIN_WEIGHTED,
    DEPTH,
    WALKS,
    WIDTH,
)
from mexsim.planner.state_table import FIRST_SIZE, full, regrow, seen_before


# with reference counts (refcounts=True), whoever calls it: it makes its scratch and the
# search its table of states (mexsim/planner/state_table.py)
@compiled(cache=True, refcounts=True)
def dense_chain(start, hand, n, lo, hi, max_pip, chain):
    """Best chain from ``start`` with the tiles hand[:n], every tile worth 1. Writes the
    chain's tiles in laying order to ``chain`` and returns (length, value)."""
    s = np.empty(SCRATCH, dtype=np.int64)
    return _plan(s, s, None, start, hand, n, lo, hi, max_pip, chain)


@njit(inline="always")
def dense_chain_in(s, start, hand, n, lo, hi, max_pip, chain):
    """dense_chain in the caller's scratch ``s`` (SCRATCH int64s, their values any: each
    is written before it is read), for a caller that plans often (the kernel's
    longest_train, mexsim/game/kernel_longest_train.py): no malloc and free of ~292
    KiB a plan. Inlined: the call is _plan's."""
    return _plan(s, s, None, start, hand, n, lo, hi, max_pip, chain)


@compiled(cache=True, refcounts=True)
def weighted_dense_chain(start, hand, n, lo, hi, pips, pip_weight, max_pip, chain):
    """dense_chain for weighted hands: a tile is worth 1 + pip_weight * pips (floats,
    compared within EPS). The same code, compiled a second time with the values read
    from a float view of the scratch (``w``: None for unweighted plans, so numba prunes
    the weighted branches there and the integer path is what it was)."""
    s = np.empty(SCRATCH, dtype=np.int64)
    f = s.view(np.float64)
    min_w = np.inf
    for i in range(n):
        t = hand[i]
        a = lo[t]
        b = hi[t]
        value = 1.0 + pip_weight * pips[t]
        if a == b:
            f[DW + a] = value
        else:
            f[WT + a * WIDTH + b] = value
            f[WT + b * WIDTH + a] = value
            min_w = min(min_w, value)
    f[MINW] = min_w
    return _plan(s, f, f, start, hand, n, lo, hi, max_pip, chain)


@callee(refcounts=False)
def _plan(s, f, w, start, hand, n, lo, hi, max_pip, chain):
    """dense_chain with scratch ``s``, values in ``f`` (s itself, or its float view
    when weighted: ``w`` is f then, None unweighted)."""
    V = max_pip + 1
    # np.int64, not a literal 0: numba types a call while it still sees the literal and
    # would compile every callee twice, for Literal[int](0) and for int64 (~1/3 of the
    # planner's first compile)
    dbl = np.int64(0)
    for x in range(WIDTH):
        s[ADJ + x] = 0
        f[TAIL + x] = 0
        s[TLEN + x] = 0
    s[TMASK] = 0
    for i in range(n):
        t = hand[i]
        a = lo[t]
        b = hi[t]
        s[TILE_OF + a * WIDTH + b] = t
        if a == b:
            dbl |= 1 << a
        else:
            s[TILE_OF + b * WIDTH + a] = t
            s[ADJ + a] |= 1 << b
            s[ADJ + b] |= 1 << a
    # the part joined to start: number its tiles (for the table), drop the rest
    comp = _component(s, start)
    m = np.int64(0)
    for x in range(V):
        if not (comp >> x) & 1:
            s[ADJ + x] = 0
            continue
        row = s[ADJ + x]
        while row:
            y = trailing_zeros(row)
            row &= row - 1
            if x < y:
                s[EID + x * WIDTH + y] = m
                s[EID + y * WIDTH + x] = m
                m += 1
    n_bridges = _bridges(s, start)
    # Pieces beyond bridges, innermost first: a trail that crosses one cannot come
    # back, so the best it gains there is solved once and added to trails ending at
    # the near end.
    done = 0
    while done < n_bridges:
        p = s[BRIDGE + 3 * done]
        q = s[BRIDGE + 3 * done + 1]
        side = s[BRIDGE + 3 * done + 2]
        done += 1
        s[ADJ + p] &= ~(1 << q)
        s[ADJ + q] &= ~(1 << p)
        value, length = _solve(s, f, w, q, dbl, m)
        value += _tile(f, w, p, q)
        if value > f[TAIL + p]:
            f[TAIL + p] = value
            s[TLEN + p] = length + 1
            s[TSEQ + p * DEPTH] = q
            for i in range(1, length + 1):
                s[TSEQ + p * DEPTH + i] = s[BEST + i]
            s[TMASK] |= 1 << p
        bits = side
        while bits:
            x = trailing_zeros(bits)
            bits &= bits - 1
            s[ADJ + x] = 0
    best_value, best_len = _solve(s, f, w, start, dbl, m)
    # lay it out, on into the pieces at its end, each double on first arrival
    length = 0
    v = start
    placed = 0
    if (dbl >> v) & 1:
        chain[length] = s[TILE_OF + v * WIDTH + v]
        length += 1
        placed |= 1 << v
    i = 1
    k = 0
    piece = -1  # the number whose piece is being laid
    while True:
        if i <= best_len:
            y = s[BEST + i]
            i += 1
        elif piece >= 0 and k < s[TLEN + piece]:
            y = s[TSEQ + piece * DEPTH + k]
            k += 1
        elif s[TLEN + v] > 0 and piece != v:
            piece = v
            y = s[TSEQ + v * DEPTH]
            k = 1
        else:
            break
        chain[length] = s[TILE_OF + v * WIDTH + y]
        length += 1
        v = y
        if (dbl >> v) & 1 and not (placed >> v) & 1:
            chain[length] = s[TILE_OF + v * WIDTH + v]
            length += 1
            placed |= 1 << v
    return length, float(best_value)


@callee(refcounts=False)
def _bridges(s, start):
    """The bridges of the part joined to start (Tarjan's low links, a depth-first
    search on words), innermost first (in the order the search leaves them): their
    near and far numbers and far sides (the far number's subtree, without start) in
    BRIDGE. Returns how many."""
    disc = DFS
    low = DFS + WIDTH
    sub = DFS + 2 * WIDTH
    for x in range(WIDTH):
        s[disc + x] = -1
    n = 0
    t = 1
    top = 0
    s[STACK] = start
    s[POP] = s[ADJ + start]
    s[disc + start] = 0
    s[low + start] = 0
    s[sub + start] = 1 << start
    while top >= 0:
        x = s[STACK + top]
        rest = s[POP + top]
        if rest:
            y = trailing_zeros(rest)
            s[POP + top] = rest & (rest - 1)
            if top > 0 and y == s[STACK + top - 1]:
                continue  # the tile it came by (one per pair of numbers)
            if s[disc + y] < 0:
                s[disc + y] = t
                s[low + y] = t
                s[sub + y] = 1 << y
                t += 1
                top += 1
                s[STACK + top] = y
                s[POP + top] = s[ADJ + y]
            elif s[disc + y] < s[low + x]:
                s[low + x] = s[disc + y]
        else:
            top -= 1
            if top >= 0:
                p = s[STACK + top]
                s[sub + p] |= s[sub + x]
                if s[low + x] < s[low + p]:
                    s[low + p] = s[low + x]
                if s[low + x] > s[disc + p]:  # nothing below x reaches above it
                    s[BRIDGE + 3 * n] = p
                    s[BRIDGE + 3 * n + 1] = x
                    s[BRIDGE + 3 * n + 2] = s[sub + x]
                    n += 1
    return n


@callee(refcounts=False)
def _solve(s, f, w, start, dbl, m):
    """The best trail from start over the words as they are, plus the piece at its
    end (TAIL): (value, length), its numbers after start in BEST[1:]."""
    eps = _eps(w)
    root = _double(f, w, dbl, start)
    seen = 1 << start
    best_value = root + f[TAIL + start]
    best_len = 0
    if s[ADJ + start] == 0:
        return best_value, best_len
    reach, n_odd, _, odd, bonus = _reach(s, f, w, start, seen, dbl)
    loss, size = _min_removal(s, f, w, start, odd, n_odd, seen, dbl, bonus)
    bound = root + reach - loss
    if size > 0 or n_odd <= 1:  # (else Hierholzer's trail would not be one)
        c_value, c_len = _completion(s, f, w, start, root, size, seen, dbl)
        if c_value > best_value + eps:
            best_value, best_len = c_value, c_len
            for i in range(1, best_len + 1):
                s[BEST + i] = s[TRAIL + i]
    if best_value < bound - eps:
        best_value, best_len = _improve(
            s, f, w, start, root, seen, dbl, m, best_value, best_len, bound
        )
    return best_value, best_len


@callee(refcounts=False)
def _completion(s, f, w, v, value, size, seen, dbl):
    """The unused tiles joined to v less the minimum T-join _min_removal matched (size
    numbers; 0: all of them, when every number but v and one other is even), laid as
    one Euler trail from v. Returns (value with it, its tiles); the trail's numbers
    (after v) go to TRAIL[1:]. Weighted, the paths follow Dijkstra's parents."""
    for x in range(WIDTH):
        s[REM + x] = s[ADJ + x]
    if size > 0:
        free = size - 1
        mask = (1 << size) - 1
        while mask:  # each matched pair's shortest path, XORed out
            i = trailing_zeros(mask)
            rest = mask & ~(1 << i)
            bits = rest
            while bits:
                j = trailing_zeros(bits)
                bits &= bits - 1
                # (the same sum as _matching's minimum: equal, floats too)
                if f[PAIR + i * WIDTH + j] + f[DP + (rest & ~(1 << j))] == f[DP + mask]:
                    x = s[ODD + j] if j != free else s[PX + i]  # (PX: the path's end)
                    if w is None and x != s[ODD + i]:
                        d = s[DIST + i * WIDTH + x]
                        while d > 0:
                            d -= 1
                            y = trailing_zeros(s[ADJ + x] & s[LAYER + i * (WIDTH + 1) + d])
                            s[REM + x] ^= 1 << y
                            s[REM + y] ^= 1 << x
                            x = y
                    elif w is not None:
                        while x != s[ODD + i]:
                            y = s[LAYER + i * (WIDTH + 1) + x]
                            s[REM + x] ^= 1 << y
                            s[REM + y] ^= 1 << x
                            x = y
                    mask = rest & ~(1 << j)
                    break
    # Hierholzer: the numbers popped, reversed, are the trail from v
    top = 0
    s[STACK] = v
    n = 0
    while top >= 0:
        x = s[STACK + top]
        row = s[REM + x]
        if row:
            y = trailing_zeros(row)
            s[REM + x] = row & (row - 1)
            s[REM + y] &= ~(1 << x)
            top += 1
            s[STACK + top] = y
        else:
            s[POP + n] = x
            n += 1
            top -= 1
    for i in range(n):
        s[TRAIL + i] = s[POP + n - 1 - i]
    for i in range(1, n):
        y = s[TRAIL + i]
        if w is None:
            if not (seen >> y) & 1:
                value += (dbl >> y) & 1
                seen |= 1 << y
        else:
            value += f[WT + s[TRAIL + i - 1] * WIDTH + y]
            if not (seen >> y) & 1:
                value += f[DW + y] if (dbl >> y) & 1 else 0.0
                seen |= 1 << y
    if w is None:
        value += n - 1
    return value + f[TAIL + s[TRAIL + n - 1]], n - 1


@callee(refcounts=False)
def _improve(s, f, w, start, root, seen, dbl, m, best_value, best_len, bound):
    """The best chain from a chain worth best_value (BEST) when none is worth more than
    bound: aspiration, then a fallback search from random walks. Returns (value,
    length). Weighted hands ask straight for a better chain than the certificate (as
    planner._improve: their bound stays a little above it, so each lowering would
    search the same nodes again)."""
    eps = _eps(w)
    budget = np.int64(DENSE_NODE_BUDGET)
    if w is None:
        threshold = bound
        step = 1
    else:
        step = f[MINW]
        threshold = best_value + step
    while threshold > best_value + eps and budget > 0:
        threshold = max(threshold - step, best_value)
        found, value, length, nodes = _search(
            s, f, w, start, root, seen, dbl, m, threshold, bound, budget
        )
        if found:
            best_value, best_len = value, length
            if nodes <= budget:
                return best_value, best_len
            break
        if nodes <= budget and threshold <= best_value + eps:
            return best_value, best_len
        budget -= nodes
        bound = threshold
        step *= 2
    walk_value, walk_len = _walks(s, f, w, start, root, seen, dbl)
    if walk_value > best_value + eps:
        best_value, best_len = walk_value, walk_len
        for i in range(1, walk_len + 1):
            s[BEST + i] = s[TRAIL + i]
    found, value, length, _ = _search(
        s, f, w, start, root, seen, dbl, m, best_value, bound, np.int64(DENSE_FALLBACK_BUDGET)
    )
    return (value, length) if found else (best_value, best_len)


@callee(refcounts=False)
def _walks(s, f, w, start, root, seen0, dbl):
    """The best of WALKS random chains from start (TRAIL[1:]; the last walk's numbers
    in STACK). Returns (value, length); leaves the words as found."""
    best_value = root
    best_len = 0
    state = np.uint64(0x9E3779B97F4A7C15)
    for _walk in range(WALKS):
        value = root
        seen = seen0
        v = start
        length = 0
        while True:
            row = s[ADJ + v]
            if row == 0:
                break
            state ^= state << np.uint64(13)
            state ^= state >> np.uint64(7)
            state ^= state << np.uint64(17)
            pick = np.int64(state % np.uint64(popcount(row)))
            for _ in range(pick):
                row &= row - 1
            y = trailing_zeros(row)
            s[ADJ + v] &= ~(1 << y)
            s[ADJ + y] &= ~(1 << v)
            length += 1
            s[STACK + length] = y
            value += _tile(f, w, v, y)
            if not (seen >> y) & 1:
                value += _double(f, w, dbl, y)
                seen |= 1 << y
            v = y
        value += f[TAIL + v]
        if value > best_value + _eps(w):
            best_value = value
            best_len = length
            for i in range(1, length + 1):
                s[TRAIL + i] = s[STACK + i]
        v = start
        for i in range(1, length + 1):
            y = s[STACK + i]
            s[ADJ + v] |= 1 << y
            s[ADJ + y] |= 1 << v
            v = y
    return best_value, best_len


@callee(refcounts=False)
def _search(s, f, w, start, root, seen, dbl, m, threshold, stop, budget):
    """_search_in with its table of states in the scratch (TABLE): no allocation and no
    reference counts, which were ~2 % of a match of 4 x longest_train when each of a
    plan's searches made, counted and freed a table on the heap (docs/speed-history.md,
    "eleventh pass"). A search that outgrows the scratch's table is asked again from
    the start with a larger one on the heap: the same search, so the same answer."""
    tab_v = s[TABLE : TABLE + 2 * TABLE_CAP]
    tab_m = s[TABLE + 2 * TABLE_CAP : TABLE + 4 * TABLE_CAP].view(np.uint64)
    found, value, length, nodes = _search_in(
        s, f, w, start, root, seen, dbl, m, threshold, stop, budget, tab_v, tab_m
    )
    if nodes < 0:
        return _search_on_heap(s, f, w, start, root, seen, dbl, m, threshold, stop, budget)
    return found, value, length, nodes


@callee(refcounts=True)
def _search_on_heap(s, f, w, start, root, seen, dbl, m, threshold, stop, budget):
    """_search_in with its table on the heap, 16 times the scratch's and then larger
    until the search fits (with numba's reference counts, for the table's arrays)."""
    cap = 16 * TABLE_CAP
    while True:
        tab_v = np.empty(2 * cap, dtype=np.int64)
        tab_m = np.empty(2 * cap, dtype=np.uint64)
        found, value, length, nodes = _search_in(
            s, f, w, start, root, seen, dbl, m, threshold, stop, budget, tab_v, tab_m
        )
        if nodes >= 0:
            return found, value, length, nodes
        cap *= 16


@njit(inline="always")
def _unwind(s, depth):
    """The tiles of a trail ``depth`` steps deep put back in the words (ADJ)."""
    while depth > 0:
        u = s[AT + depth - 1]
        x = s[AT + depth]
        s[ADJ + u] |= 1 << x
        s[ADJ + x] |= 1 << u
        depth -= 1


@callee(refcounts=False)
def _search_in(s, f, w, start, root, seen, dbl, m, threshold, stop, budget, tab_v, tab_m):
    """Depth-first branch and bound for the best trail from start worth more than
    threshold, in at most ``budget`` nodes; ``stop`` bounds every trail, so one worth
    it ends the search. Returns (found, value, length, nodes); the trail's numbers go
    to BEST[1:]. Out of budget, the best found so far (and nodes > budget). Weighted,
    values are floats compared within EPS, and the T-join bound (a Dijkstra from each
    odd number) is taken from DENSE_TJOIN_WEIGHTED cheapest tiles' worth. The table of
    states (state_table.py) lives in tab_v and tab_m, two halves each, grown from one
    half into the other; a search that would outgrow a half returns nodes -1, the
    words as it found them."""
    cap = tab_v.shape[0] // 2
    eps = _eps(w)
    limit = DENSE_TJOIN_FROM if w is None else DENSE_TJOIN_WEIGHTED * f[MINW]
    memo = m <= 64
    half = 0
    table_v = tab_v[:FIRST_SIZE]
    table_m = tab_m[:FIRST_SIZE]
    table_v[:] = -1
    n_table = 0
    mask = np.uint64(0)
    best_value = threshold
    best_len = 0
    found = False
    value = root
    depth = 0
    s[AT] = start
    s[CAND] = s[ADJ + start]
    entering = True
    nodes = 0
    while True:
        v = s[AT + depth]
        prune = False
        if entering:
            nodes += 1
        if nodes > budget or best_value >= stop - eps:
            _unwind(s, depth)  # keeping the best
            break
        if entering:
            entering = False
            if memo:  # the same tiles ending at the same number: searched already
                prune = seen_before(table_v, table_m, v, mask)
                if not prune:
                    n_table += 1
                    if full(table_v, n_table):
                        size = 2 * table_v.shape[0]
                        if size > cap:  # too big for these halves
                            _unwind(s, depth)
                            return False, best_value, 0, np.int64(-1)
                        half = 1 - half
                        new_v = tab_v[half * cap : half * cap + size]
                        new_m = tab_m[half * cap : half * cap + size]
                        regrow(table_v, table_m, new_v, new_m)
                        table_v, table_m = new_v, new_m
            if not prune:
                reach, n_odd, quick_loss, odd, bonus = _reach(s, f, w, v, seen, dbl)
                prune = value + reach - quick_loss <= best_value + eps
                if not prune and n_odd <= 1:
                    # every reachable tile fits one trail from v: the best completion
                    # unless ending elsewhere gains more
                    c_value, c_len = _completion(s, f, w, v, value, np.int64(0), seen, dbl)
                    if c_value > best_value + eps:
                        best_value = c_value
                        best_len = depth + c_len
                        for i in range(1, depth + 1):
                            s[BEST + i] = s[AT + i]
                        for i in range(1, c_len + 1):
                            s[BEST + depth + i] = s[TRAIL + i]
                        found = True
                    prune = c_value >= value + reach - eps
                if not prune and (reach > limit or n_odd <= 1):
                    loss, size = _min_removal(s, f, w, v, odd, n_odd, seen, dbl, bonus)
                    bound = value + reach - loss
                    prune = bound <= best_value + eps
                    if not prune and size > 0:
                        c_value, c_len = _completion(s, f, w, v, value, size, seen, dbl)
                        if c_value > best_value + eps:
                            best_value = c_value
                            best_len = depth + c_len
                            for i in range(1, depth + 1):
                                s[BEST + i] = s[AT + i]
                            for i in range(1, c_len + 1):
                                s[BEST + depth + i] = s[TRAIL + i]
                            found = True
                        prune = c_value >= bound - eps
        advanced = False
        if not prune:
            c = s[CAND + depth]
            if c:
                y = trailing_zeros(c)
                s[CAND + depth] = c & (c - 1)
                s[ADJ + v] &= ~(1 << y)
                s[ADJ + y] &= ~(1 << v)
                if memo:
                    mask ^= np.uint64(1) << np.uint64(s[EID + v * WIDTH + y])
                fresh = 1 - ((seen >> y) & 1)
                if w is None:
                    value += 1 + (fresh & (dbl >> y))
                else:
                    value += f[WT + v * WIDTH + y]
                    if fresh & (dbl >> y):
                        value += f[DW + y]
                seen |= 1 << y
                depth += 1
                s[FRESH + depth] = fresh
                s[AT + depth] = y
                s[CAND + depth] = s[ADJ + y]
                if value + f[TAIL + y] > best_value + eps:  # ending here, on into its piece
                    best_value = value + f[TAIL + y]
                    best_len = depth
                    for i in range(1, depth + 1):
                        s[BEST + i] = s[AT + i]
                    found = True
                advanced = True
                entering = True
        if not advanced:  # backtrack
            if depth == 0:
                break
            u = s[AT + depth - 1]
            s[ADJ + u] |= 1 << v
            s[ADJ + v] |= 1 << u
            if memo:
                mask ^= np.uint64(1) << np.uint64(s[EID + u * WIDTH + v])
            if w is None:
                value -= 1
                if s[FRESH + depth]:
                    value -= (dbl >> v) & 1
            else:
                value -= f[WT + u * WIDTH + v]
                if s[FRESH + depth] and (dbl >> v) & 1:
                    value -= f[DW + v]
            if s[FRESH + depth]:
                seen &= ~(1 << v)
            depth -= 1
    return found, best_value, best_len, nodes
