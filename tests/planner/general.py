"""The planner on adjacency lists, any set: the reference path.

The tests hold the bitmask paths of longest_chain (mexsim/planner/router.py) to it;
longest_chain itself no longer routes here (every set up to double-15 fits the words,
and it refuses negative weights, which no path plans soundly), so that strategies
using the planner do not compile this one. The
method is the one the router's docstring describes: every trail of sparse hands, else
the T-join bound and certificate and a branch and bound with a table of states.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from mexsim.jit.options import compiled
from mexsim.planner.limits import EPS, SPARSE_CYCLES, WALKS
from mexsim.planner.state_table import FIRST_SIZE, full, regrow, seen_before

GENERAL_NODE_BUDGET = 50_000  # nodes for the exact search; huge dense hands may exceed it
GENERAL_FALLBACK_BUDGET = 50_000  # then a bottom-up search with this many more
GENERAL_TJOIN_FROM = 12.0  # reachable value above which the search also uses the T-join bound
# the same for weighted hands, in cheapest tiles: their T-join takes a Dijkstra per odd
# number, which repays itself only on big remainders (measured on real replans)
GENERAL_TJOIN_WEIGHTED = 100.0


@compiled(cache=True, refcounts=True)
def new_table(on):
    """An empty table (a one-slot dummy when ``on`` is false: more than 64 tiles)."""
    size = FIRST_SIZE if on else 1
    return np.full(size, -1, dtype=np.int64), np.zeros(size, dtype=np.uint64)


@compiled(cache=True, refcounts=True)
def grown(table_v, table_m):
    """The table doubled, its entries re-inserted."""
    size = 2 * table_v.shape[0]
    new_v = np.empty(size, dtype=np.int64)
    new_m = np.zeros(size, dtype=np.uint64)
    regrow(table_v, table_m, new_v, new_m)
    return new_v, new_m


MAX_MATCHED = 12  # numbers the T-join bound matches exactly (odd ones, start, free end)
SCRATCH_ROWS = 14  # rows of int scratch the helpers share (each names its rows)
# then the graph's rows of ints: non-double tiles as edges E_A-E_B (tile E_T), the
# double on each number if held, edges at number x (ADJ[ADJ_START[x]:ADJ_START[x + 1]]),
# edges on the chain being searched, times it visits each number, the best chain's
# edges, the first tile of the best path into each number's dangling trees (_peel)
E_A, E_B, E_T, DBL_T, ADJ_START, ADJ, USED, VISITS, BEST, TAIL_E = range(
    SCRATCH_ROWS, SCRATCH_ROWS + 10
)
REAL_ROWS = SCRATCH_ROWS + 10  # and of floats: edge values, double values, tail values
E_W, DBL_W, TAIL_W = 0, 1, 2
PLAIN_TJOIN = 15  # from this many tiles, bound that by the T-join and start from its trail


@njit(cache=True)
def general_chain(start, hand, n, lo, hi, pips, pip_weight, max_pip, chain):
    """longest_chain on adjacency lists (pip_weight >= 0): the tests' reference for
    mexsim/planner/dense.py, and a planner for sets beyond double-15."""
    V = max_pip + 1
    # All the int arrays are rows of one allocation (and the float ones of another):
    # the helpers' scratch rows, then the graph's. The plain path indexes them by row
    # (ints[ROW, i]): views of rows cost reference counting, ~0.1 us a plan.
    width = max(V + 1, 2 * n) + 2
    ints = np.empty((REAL_ROWS + 3, width), dtype=np.int64)
    reals = ints[REAL_ROWS:].view(np.float64)  # one allocation fewer (~0.1 us)
    for x in range(V + 1):
        ints[DBL_T, x] = -1
        reals[DBL_W, x] = 0.0
        ints[ADJ_START, x] = 0
        ints[VISITS, x] = 0
    m = 0
    min_w = 1.0
    max_w = 1.0
    for i in range(n):
        t = hand[i]
        w = 1.0 + pip_weight * pips[t]
        if lo[t] == hi[t]:
            reals[DBL_W, lo[t]] = w
            ints[DBL_T, lo[t]] = t
        else:
            ints[E_A, m] = lo[t]
            ints[E_B, m] = hi[t]
            reals[E_W, m] = w
            ints[E_T, m] = t
            ints[USED, m] = 0
            min_w = w if m == 0 else min(min_w, w)
            max_w = w if m == 0 else max(max_w, w)
            m += 1
    for k in range(m):
        ints[ADJ_START, ints[E_A, k] + 1] += 1
        ints[ADJ_START, ints[E_B, k] + 1] += 1
    for x in range(V):
        ints[ADJ_START, x + 1] += ints[ADJ_START, x]
        ints[0, x] = ints[ADJ_START, x]  # where number x's next edge goes
    for k in range(m):
        a = ints[E_A, k]
        ints[ADJ, ints[0, a]] = k
        ints[0, a] += 1
        b = ints[E_B, k]
        ints[ADJ, ints[0, b]] = k
        ints[0, b] += 1

    # uniform: every tile worth min_w, so distances in tiles price the T-join exactly
    uniform = max_w == min_w
    ints[VISITS, start] = 1
    root = reals[DBL_W, start] if ints[DBL_T, start] >= 0 else 0.0
    best_value, best_len = root, 0
    if m > 0:
        reach, n_odd, quick_loss = _reach(start, V, ints, reals, min_w, uniform)
        numbers = 0
        tiles = 0
        for x in range(V):
            numbers += ints[0, x]
            tiles += ints[1, x]
        plain = tiles // 2 - numbers + 1 <= SPARSE_CYCLES
        if plain and (tiles // 2 < PLAIN_TJOIN or not uniform):
            # few independent cycles, so few trails: trying them all is cheapest
            stop = root + reach - quick_loss  # no chain is worth more
            _peel(start, V, ints, reals)
            found, value, length, _ = _plain_search(
                start, root, root, stop, ints, reals, GENERAL_NODE_BUDGET
            )
            if found:
                best_value, best_len = value, length
        else:
            g = (
                V,
                m,
                ints[ADJ],
                ints[ADJ_START],
                ints[E_A],
                ints[E_B],
                reals[E_W],
                reals[DBL_W],
                ints[DBL_T],
                min_w,
                uniform,
            )
            used = ints[USED]  # edges on the chain being searched
            visits = ints[VISITS]  # times the chain being searched visits each number
            best_path = ints[BEST]
            dist = np.empty((2 * MAX_MATCHED, V), dtype=np.int64)  # BFS distances, parents
            # matched prices, then (weighted hands) shortest distances by weight
            pair = np.empty((2 * MAX_MATCHED, max(MAX_MATCHED, V)), dtype=np.float64)
            dp = np.empty(1 << MAX_MATCHED, dtype=np.float64)
            loss, matched = _min_removal(start, n_odd, g, used, visits, ints, dist, pair, dp)
            bound = root + reach - loss  # no chain is worth more
            # Usually the tiles a minimum T-join leaves make one trail, and that is the
            # best chain: start from it, and search only when it falls short.
            best_value, best_len = _tjoin_completion(
                start, root, matched, g, used, visits, ints, dist, pair, dp, best_path
            )
            if best_value < bound - EPS:
                if plain:
                    # Sparse but big: trying every trail that could beat the
                    # certificate, the T-join bound (tighter than the quick one when
                    # odd numbers lie apart) stops it when one meets it.
                    _peel(start, V, ints, reals)
                    found, value, length, _ = _plain_search(
                        start, root, best_value, bound, ints, reals, GENERAL_NODE_BUDGET
                    )
                    if found:
                        best_value, best_len = value, length
                else:
                    best_value, best_len = _improve(
                        start,
                        root,
                        best_value,
                        best_len,
                        bound,
                        g,
                        used,
                        visits,
                        ints,
                        reals,
                        dist,
                        pair,
                        dp,
                        best_path,
                    )

    # lay out the chain: each double right after arriving at its number
    for x in range(V):
        ints[0, x] = 0  # double placed
    length = 0
    v = start
    if ints[DBL_T, v] >= 0:
        chain[length] = ints[DBL_T, v]
        length += 1
        ints[0, v] = 1
    for i in range(best_len):
        k = ints[BEST, i]
        chain[length] = ints[E_T, k]
        length += 1
        v = ints[E_B, k] if ints[E_A, k] == v else ints[E_A, k]
        if ints[DBL_T, v] >= 0 and not ints[0, v]:
            chain[length] = ints[DBL_T, v]
            length += 1
            ints[0, v] = 1
    return length, best_value


@njit(cache=True)
def _improve(
    start,
    root,
    best_value,
    best_len,
    bound,
    g,
    used,
    visits,
    ints,
    reals,
    dist,
    pair,
    dp,
    best_path,
):
    """The best chain, searching from a chain worth best_value (in best_path) when no
    chain is worth more than bound. Returns (value, length)."""
    m = g[1]
    min_w = g[9]
    # Aspiration: ask for chains worth more than a threshold just under the bound, so
    # pruning is tight from the first node, lowering it (and the bound with it) while
    # none is found.
    budget = GENERAL_NODE_BUDGET
    threshold = bound
    step = min_w
    if not g[10]:
        # Weighted hands: the bound stays a little above the best chain, which the
        # certificate mostly is already, so each lowering would search the same
        # nodes again: ask straight for anything better than what we have.
        threshold = best_value + step
    while threshold > best_value + EPS and budget > 0:
        threshold = max(threshold - step, best_value)
        found, value, length, nodes = _search(
            start,
            root,
            threshold,
            bound,
            g,
            used,
            visits,
            ints,
            reals,
            dist,
            pair,
            dp,
            best_path,
            budget,
        )
        if found:  # the best there is, if it searched through
            best_value, best_len = value, length
            if nodes <= budget:
                return best_value, best_len
            break
        if nodes <= budget and threshold <= best_value + EPS:
            return best_value, best_len  # nothing beats what we had
        budget -= nodes
        bound = threshold
        step *= 2.0  # widen quickly when the bound was far off
    # A huge hand exhausted the budget: a branch and bound from the best of many quick
    # walks (or of what was found), improving until its own budget runs out.
    walk_path = np.empty(max(1, m), dtype=np.int64)
    walk_value, walk_len = _walks(start, root, g, used, visits, ints, walk_path)
    if walk_value > best_value + EPS:
        best_value, best_len = walk_value, walk_len
        best_path[:walk_len] = walk_path[:walk_len]
    found, value, length, _ = _search(
        start,
        root,
        best_value,
        bound,
        g,
        used,
        visits,
        ints,
        reals,
        dist,
        pair,
        dp,
        best_path,
        GENERAL_FALLBACK_BUDGET,
    )
    return (value, length) if found else (best_value, best_len)


@njit(cache=True)
def _reach(v, V, ints, reals, min_w, uniform):
    """Value of the unused tiles reachable from v (and the doubles of numbers not yet
    visited among them); the count of odd-degree numbers other than v; a quick lower
    bound on what parity leaves out of them (_min_removal's is tighter). Leaves each
    reached number's unused degree in ints[1] and reached flags in ints[0]; uses
    ints[2]. (Rows indexed directly: it runs at every node of _search.)"""
    for x in range(V):
        ints[0, x] = 0
        ints[1, x] = 0
    reach = 0.0
    top = 1
    ints[2, 0] = v
    ints[0, v] = 1
    while top > 0:
        top -= 1
        x = ints[2, top]
        if ints[VISITS, x] == 0 and ints[DBL_T, x] >= 0:
            reach += reals[DBL_W, x]
        for s in range(ints[ADJ_START, x], ints[ADJ_START, x + 1]):
            k = ints[ADJ, s]
            if ints[USED, k]:
                continue
            ints[1, x] += 1
            y = ints[E_B, k] if ints[E_A, k] == x else ints[E_A, k]
            if x < y:  # each tile once, from its smaller number
                reach += reals[E_W, k]
            if not ints[0, y]:
                ints[0, y] = 1
                ints[2, top] = y
                top += 1
    n_odd = 0
    leaf_doubles = 0.0
    best_leaf_double = 0.0
    # Each odd number but the end keeps a left-out tile, and a tile serves two: half
    # the sum of their cheapest tiles, less the dearest (the end's), is left out.
    cheapest_sum = 0.0
    cheapest_max = 0.0
    for x in range(V):
        if ints[0, x] and ints[1, x] % 2 == 1 and x != v:
            n_odd += 1
            if not uniform:
                cheapest = np.inf
                for s in range(ints[ADJ_START, x], ints[ADJ_START, x + 1]):
                    if not ints[USED, ints[ADJ, s]]:
                        cheapest = min(cheapest, reals[E_W, ints[ADJ, s]])
                cheapest_sum += cheapest
                cheapest_max = max(cheapest_max, cheapest)
            if ints[1, x] == 1 and ints[VISITS, x] == 0 and ints[DBL_T, x] >= 0:
                # a leaf can only be entered as the chain's last number: of the
                # doubles on leaves, one at most is laid
                leaf_doubles += reals[DBL_W, x]
                best_leaf_double = max(best_leaf_double, reals[DBL_W, x])
    loss = max((n_odd // 2) * min_w, 0.5 * (cheapest_sum - cheapest_max))
    return reach - leaf_doubles + best_leaf_double, n_odd, loss


@njit(cache=True)
def _min_removal(v, n_odd, g, used, visits, ints, dist, pair, dp):
    """Least value a trail from v must leave out of its reachable part, as _reach
    counted it. The tiles left out join up, in pairs, the numbers of odd degree other
    than v and the trail's end u (and v too, when v is even and u is not v): they hold
    a T-join of them, at least a minimum perfect matching of them by the value of the
    shortest path between them (by tiles times min_w when every tile is worth the same,
    breadth-first; by the tiles' values otherwise, Dijkstra: pricing each left-out tile
    at min_w made the weighted bound so weak that pip_weight > 0 searched ~100x
    longer). Of the doubles on leaves only the end's is laid.
    (A trail may also end at an even u; dropping the T-join path through u leaves one
    of the sets tried here, no dearer, so those ends need no try.)

    The end is left free by a stand-in number matched to it at no distance (but the
    leaf doubles lost). Returns (that value, how many were matched: 0 when there were
    too many odd numbers to match exactly, and the value is the pair count's) and
    leaves the matching for _tjoin_completion: the numbers in ints[3], parent tiles in
    dist[MAX_MATCHED:], the prices in pair and the table in dp."""
    V, _, _, _, _, _, _, dbl_w, dbl_t, min_w, uniform = g
    seen = ints[0]
    deg = ints[1]
    queue = ints[2]
    odd = ints[3]
    closable = deg[v] % 2 == 0
    size = n_odd + 2 if closable else n_odd + 1  # the numbers, v if even, the stand-in
    if size > MAX_MATCHED:
        return (n_odd // 2) * min_w, 0
    k = 0
    for x in range(V):
        if seen[x] and deg[x] % 2 == 1 and x != v:
            odd[k] = x
            k += 1
    odd[k] = v
    free = size - 1  # the stand-in for the trail's end
    for i in range(free):  # shortest distances (and parent tiles) from each
        if uniform:
            _bfs(i, odd[i], g, used, queue, dist)
        else:
            _dijkstra(i, odd[i], g, used, visits, seen, deg, queue, dist, pair[MAX_MATCHED + i])
    best_leaf = 0.0
    for i in range(k):
        best_leaf = max(best_leaf, _leaf_double(odd[i], deg, visits, dbl_w, dbl_t))
    for i in range(free):
        for j in range(i + 1, free):
            pair[i, j] = dist[i, odd[j]] * min_w if uniform else pair[MAX_MATCHED + i, odd[j]]
        # ending at u loses the doubles on the other leaves; closing at v, on all
        pair[i, free] = best_leaf - (
            _leaf_double(odd[i], deg, visits, dbl_w, dbl_t) if i < k else 0.0
        )
    return _matching(size, pair, dp), size


@njit(cache=True)
def _bfs(i, src, g, used, queue, dist):
    """Breadth-first distances in tiles from src over the unused tiles (dist[i]; -1:
    not reached) and the tile each number is reached by (dist[MAX_MATCHED + i])."""
    V, _, adj, adj_start, e_a, e_b, _, _, _, _, _ = g
    for x in range(V):
        dist[i, x] = -1
    dist[i, src] = 0
    head = 0
    tail = 1
    queue[0] = src
    while head < tail:
        x = queue[head]
        head += 1
        for s in range(adj_start[x], adj_start[x + 1]):
            e = adj[s]
            if used[e]:
                continue
            y = e_b[e] if e_a[e] == x else e_a[e]
            if dist[i, y] < 0:
                dist[i, y] = dist[i, x] + 1
                dist[MAX_MATCHED + i, y] = e
                queue[tail] = y
                tail += 1


@njit(cache=True)
def _dijkstra(i, src, g, used, visits, seen, deg, done, dist, d):
    """Shortest distances by tile value from src over the unused tiles, to the numbers
    marked in ``seen`` (d; the pick of the nearest is a scan: a dozen numbers), and the
    tile each is reached by (dist[MAX_MATCHED + i]). The least-valued T-join is made of
    such paths, so pricing pairs by them bounds weighted hands as tightly as counting
    tiles bounds unweighted ones."""
    V, _, adj, adj_start, e_a, e_b, e_w, dbl_w, dbl_t, _, _ = g
    for x in range(V):
        d[x] = np.inf
        done[x] = 0
    d[src] = 0.0
    while True:
        x = -1
        for y in range(V):
            if seen[y] and not done[y] and d[y] < np.inf and (x < 0 or d[y] < d[x]):
                x = y
        if x < 0:
            break
        done[x] = 1
        base = d[x]
        if x != src and deg[x] == 2 and visits[x] == 0 and dbl_t[x] >= 0:
            base += dbl_w[x]  # passing through takes both its tiles: its double is lost
        for s in range(adj_start[x], adj_start[x + 1]):
            e = adj[s]
            if used[e]:
                continue
            y = e_b[e] if e_a[e] == x else e_a[e]
            if base + e_w[e] < d[y]:
                d[y] = base + e_w[e]
                dist[MAX_MATCHED + i, y] = e


@njit(cache=True)
def _matching(size, pair, dp):
    """Cheapest perfect matching of 0..size-1 (pair[i, j], i < j: the price of i with
    j): dp[mask], the cheapest of the numbers in mask, for the masks the recursion
    'match the lowest one with another' reaches from all of them — those lacking the
    lowest r numbers and r more, counted from r = size/2 down (fewer than 2**size)."""
    dp[0] = 0.0
    for r in range(size // 2 - 1, -1, -1):
        # masks of size - 2r numbers among r .. size-1 (Gosper's hack, ascending)
        members = size - 2 * r
        mask = ((1 << members) - 1) << r
        top = 1 << size
        while mask < top:
            i = trailing_zeros(mask)
            rest = mask & ~(1 << i)
            best = np.inf
            bits = rest
            while bits:
                j = trailing_zeros(bits)
                bits &= bits - 1
                cost = pair[i, j] + dp[rest & ~(1 << j)]
                if cost < best:
                    best = cost
            dp[mask] = best
            low = mask & -mask
            ripple = mask + low
            mask = (((ripple ^ mask) >> 2) // low) | ripple
    return dp[(1 << size) - 1]


@njit(cache=True)
def _leaf_double(x, deg, visits, dbl_w, dbl_t):
    """The double on number x if x is an unvisited leaf (laid only if the trail ends
    there), else 0."""
    if deg[x] == 1 and visits[x] == 0 and dbl_t[x] >= 0:
        return dbl_w[x]
    return 0.0


@njit(cache=True)
def _tjoin_completion(v, value, size, g, used, visits, ints, dist, pair, dp, out):
    """A completion from v (worth ``value`` so far): the unused tiles reachable from v
    less the minimum T-join _min_removal matched (size numbers; 0: none, an empty
    completion), laid as one trail. Those tiles have every number even but v and the
    trail's end, so the part joined to v is one Euler trail. Returns (value, tiles)
    with the tiles in out; when the part is all of them it meets the bound."""
    V, m, _, _, e_a, e_b, e_w, dbl_w, dbl_t, _, _ = g
    if size == 0:
        return value, 0
    odd = ints[3]
    cut = ints[12]
    for e in range(m):
        cut[e] = 1 if used[e] else 0
    free = size - 1
    mask = (1 << size) - 1
    while mask:  # each matched pair's shortest path, XORed in
        i = trailing_zeros(mask)
        rest = mask & ~(1 << i)
        bits = rest
        while bits:
            j = trailing_zeros(bits)
            bits &= bits - 1
            if abs(pair[i, j] + dp[rest & ~(1 << j)] - dp[mask]) < EPS:
                if j != free:
                    x = odd[j]
                    while x != odd[i]:
                        e = dist[MAX_MATCHED + i, x]
                        cut[e] ^= 1
                        x = e_b[e] if e_a[e] == x else e_a[e]
                mask = rest & ~(1 << j)
                break
    n = _euler_trail(v, g, cut, ints, out)
    counted = ints[2]
    for x in range(V):
        counted[x] = 0
    x = v
    for i in range(n):
        e = out[i]
        value += e_w[e]
        x = e_b[e] if e_a[e] == x else e_a[e]
        if visits[x] == 0 and dbl_t[x] >= 0 and counted[x] == 0:
            value += dbl_w[x]
            counted[x] = 1
    return value, n


@njit(cache=True)
def _search(
    start, root, threshold, stop, g, used, visits, ints, reals, dist, pair, dp, best_path, budget
):
    """Depth-first branch and bound for the best trail from start worth more than
    threshold (_plain_search tries every trail instead), visiting at most ``budget``
    nodes; ``stop`` bounds every trail's value, so one worth it ends the search.
    Returns (found, value, length, nodes visited); the trail's tiles go to best_path.
    Out of budget, it returns the best trail found so far (and nodes > budget)."""
    _, m, adj, adj_start, e_a, e_b, e_w, dbl_w, dbl_t, min_w, uniform = g
    path = ints[4]  # tile (edge) taken at each depth
    at = ints[5]  # number reached at each depth
    cursor = ints[6]  # next adjacency slot to try at each depth
    memo = m <= 64  # states are keyed by a 64-bit set of used tiles
    table_v, table_m = new_table(memo)
    n_table = 0
    mask = np.uint64(0)
    best_value = threshold
    best_len = 0
    found = False
    value = root
    depth = 0
    at[0] = start
    cursor[0] = adj_start[start]
    entering = True
    nodes = 0
    while True:
        v = at[depth]
        prune = False
        if entering:
            nodes += 1
        if nodes > budget or best_value >= stop - EPS:
            # out of budget, or the best there is found: unwind, keeping it
            while depth > 0:
                depth -= 1
                k = path[depth]
                used[k] = False
                visits[at[depth + 1]] -= 1
            break
        if entering:
            entering = False
            if memo:  # the same tiles ending at the same number: searched already
                prune = seen_before(table_v, table_m, v, mask)
                if not prune:
                    n_table += 1
                    if full(table_v, n_table):
                        table_v, table_m = grown(table_v, table_m)
            if not prune:
                reach, n_odd, quick_loss = _reach(v, g[0], ints, reals, min_w, uniform)
                prune = value + reach - quick_loss <= best_value + EPS
                limit = GENERAL_TJOIN_FROM if uniform else GENERAL_TJOIN_WEIGHTED * min_w
                if not prune and n_odd > 1 and reach > limit:
                    # worth its cost only on big remainders
                    loss, matched = _min_removal(v, n_odd, g, used, visits, ints, dist, pair, dp)
                    bound = value + reach - loss
                    prune = bound <= best_value + EPS
                    if not prune and matched > 0:
                        comp = ints[13]
                        c_value, c_len = _tjoin_completion(
                            v, value, matched, g, used, visits, ints, dist, pair, dp, comp
                        )
                        if c_value > best_value + EPS:
                            best_value = c_value
                            best_len = depth + c_len
                            best_path[:depth] = path[:depth]
                            best_path[depth:best_len] = comp[:c_len]
                            found = True
                        prune = c_value >= bound - EPS  # it meets the bound: the best
                if not prune and n_odd <= 1:
                    # every reachable tile fits one trail from v: the best completion
                    cut = ints[12]
                    for e in range(m):
                        cut[e] = 1 if used[e] else 0
                    best_value = value + reach
                    best_len = depth + _euler_trail(v, g, cut, ints, best_path[depth:])
                    best_path[:depth] = path[:depth]
                    found = True
                    prune = True
        advanced = False
        if not prune:
            while cursor[depth] < adj_start[v + 1]:
                k = adj[cursor[depth]]
                cursor[depth] += 1
                if used[k]:
                    continue
                y = e_b[k] if e_a[k] == v else e_a[k]
                used[k] = True
                if memo:
                    mask ^= np.uint64(1) << np.uint64(k)
                path[depth] = k
                value += e_w[k]
                if visits[y] == 0 and dbl_t[y] >= 0:
                    value += dbl_w[y]
                visits[y] += 1
                depth += 1
                at[depth] = y
                cursor[depth] = adj_start[y]
                if value > best_value + EPS:
                    best_value = value
                    best_len = depth
                    best_path[:depth] = path[:depth]
                    found = True
                advanced = True
                entering = True
                break
        if not advanced:  # backtrack
            if depth == 0:
                break
            depth -= 1
            k = path[depth]
            used[k] = False
            if memo:
                mask ^= np.uint64(1) << np.uint64(k)
            y = at[depth + 1]
            visits[y] -= 1
            if visits[y] == 0 and dbl_t[y] >= 0:
                value -= dbl_w[y]
            value -= e_w[k]
    return found, best_value, best_len, nodes


@njit(cache=True)
def _plain_search(start, root, threshold, stop, ints, reals, budget):
    """Depth-first search trying every trail from start for the best one worth more
    than threshold, as _search would without its bounds and table; ``stop`` bounds
    every trail's value, so one worth it ends the search. Its own small function: as a
    mode of _search it cost ~0.3 us more a call, and most plans are small sparse ones.
    The tiles of dangling trees (_peel: marked used) are not searched: a trail ending
    at x is worth TAIL_W[x] more, by the path TAIL_E leads along.
    Returns (found, value, length, nodes visited); the trail goes to ints[BEST]."""
    path = 4  # rows: tile (edge) taken at each depth
    at = 5  # number reached at each depth
    cursor = 6  # next adjacency slot to try at each depth
    best_value = threshold
    best_len = 0
    best_end = start
    found = False
    if root + reals[TAIL_W, start] > best_value + EPS:
        best_value = root + reals[TAIL_W, start]
        found = True
    value = root
    depth = 0
    ints[at, 0] = start
    ints[cursor, 0] = ints[ADJ_START, start]
    nodes = 1
    while True:
        if nodes > budget or best_value >= stop - EPS:
            # out of budget, or the best there is found: unwind, keeping it
            while depth > 0:
                depth -= 1
                ints[USED, ints[path, depth]] = 0
                ints[VISITS, ints[at, depth + 1]] -= 1
            break
        v = ints[at, depth]
        advanced = False
        while ints[cursor, depth] < ints[ADJ_START, v + 1]:
            k = ints[ADJ, ints[cursor, depth]]
            ints[cursor, depth] += 1
            if ints[USED, k]:
                continue
            y = ints[E_B, k] if ints[E_A, k] == v else ints[E_A, k]
            ints[USED, k] = 1
            ints[path, depth] = k
            value += reals[E_W, k]
            if ints[VISITS, y] == 0 and ints[DBL_T, y] >= 0:
                value += reals[DBL_W, y]
            ints[VISITS, y] += 1
            depth += 1
            ints[at, depth] = y
            ints[cursor, depth] = ints[ADJ_START, y]
            if value + reals[TAIL_W, y] > best_value + EPS:
                best_value = value + reals[TAIL_W, y]
                best_len = depth
                best_end = y
                for i in range(depth):
                    ints[BEST, i] = ints[path, i]
                found = True
            advanced = True
            nodes += 1
            break
        if not advanced:  # backtrack
            if depth == 0:
                break
            depth -= 1
            k = ints[path, depth]
            ints[USED, k] = 0
            y = ints[at, depth + 1]
            ints[VISITS, y] -= 1
            if ints[VISITS, y] == 0 and ints[DBL_T, y] >= 0:
                value -= reals[DBL_W, y]
            value -= reals[E_W, k]
    if found:  # on into the dangling trees at its end
        x = best_end
        while ints[TAIL_E, x] >= 0:
            k = ints[TAIL_E, x]
            ints[BEST, best_len] = k
            best_len += 1
            x = ints[E_B, k] if ints[E_A, k] == x else ints[E_A, k]
    return found, best_value, best_len, nodes


@njit(cache=True)
def _peel(start, V, ints, reals):
    """The dangling trees: peels off, leaves first, the numbers (not start) joined by
    one unused tile to the rest, marking their tiles used. A trail that enters such a
    tree cannot come back, so it ends there, best along its most valuable path down:
    TAIL_W[x] is the most a trail ending at x gains in x's trees (TAIL_E[x] its first
    tile, -1: none). Uses _reach's degrees (ints[1]; updated) and ints[2]."""
    top = 0
    for x in range(V):
        ints[TAIL_E, x] = -1
        reals[TAIL_W, x] = 0.0
        if ints[1, x] == 1 and x != start:
            ints[2, top] = x
            top += 1
    while top > 0:
        top -= 1
        c = ints[2, top]
        k = -1
        for s in range(ints[ADJ_START, c], ints[ADJ_START, c + 1]):
            k = ints[ADJ, s]
            if not ints[USED, k]:
                break
        ints[USED, k] = 1
        p = ints[E_B, k] if ints[E_A, k] == c else ints[E_A, k]
        gain = reals[E_W, k] + reals[DBL_W, c] + reals[TAIL_W, c]
        if gain > reals[TAIL_W, p]:
            reals[TAIL_W, p] = gain
            ints[TAIL_E, p] = k
        ints[1, c] = 0
        ints[1, p] -= 1
        if ints[1, p] == 1 and p != start:
            ints[2, top] = p
            top += 1


@njit(cache=True)
def _walks(start, root, g, used, visits, ints, best_path):
    """The best of WALKS quick chains from start (each tile chosen at random among those
    that fit, from a fixed sequence): a floor for the search on huge hands. Returns
    (value, length); the chain's tiles go to best_path. Leaves used/visits as found."""
    _, _, adj, adj_start, e_a, e_b, e_w, dbl_w, dbl_t, _, _ = g
    path = ints[4]
    options = ints[5]
    best_value = root
    best_len = 0
    state = np.uint64(0x9E3779B97F4A7C15)
    for _walk in range(WALKS):
        value = root
        length = 0
        v = start
        while True:
            n = 0
            for s in range(adj_start[v], adj_start[v + 1]):
                if not used[adj[s]]:
                    options[n] = adj[s]
                    n += 1
            if n == 0:
                break
            state ^= state << np.uint64(13)
            state ^= state >> np.uint64(7)
            state ^= state << np.uint64(17)
            k = options[np.int64(state % np.uint64(n))]
            used[k] = True
            path[length] = k
            length += 1
            value += e_w[k]
            v = e_b[k] if e_a[k] == v else e_a[k]
            if visits[v] == 0 and dbl_t[v] >= 0:
                value += dbl_w[v]
            visits[v] += 1
        if value > best_value + EPS:
            best_value = value
            best_len = length
            best_path[:length] = path[:length]
        v = start  # undo the walk
        for i in range(length):
            k = path[i]
            used[k] = False
            v = e_b[k] if e_a[k] == v else e_a[k]
            visits[v] -= 1
    return best_value, best_len


@njit(cache=True)
def _euler_trail(v, g, taken, ints, out):
    """Hierholzer: an Euler trail from v over the tiles joined to v not marked in
    ``taken`` (ints[12]; it marks the tiles it lays; the caller checked that the parity
    allows one). Uses ints[7:11]. Writes edge ids to out; returns how many."""
    _, _, adj, adj_start, e_a, e_b, _, _, _, _, _ = g
    cursor = ints[7]
    stack_v = ints[8]
    stack_e = ints[9]
    reverse = ints[10]
    for x in range(adj_start.shape[0]):
        cursor[x] = adj_start[x]
    top = 0
    stack_v[0] = v
    stack_e[0] = -1
    n = 0
    while top >= 0:
        x = stack_v[top]
        moved = False
        while cursor[x] < adj_start[x + 1]:
            k = adj[cursor[x]]
            cursor[x] += 1
            if not taken[k]:
                taken[k] = 1
                top += 1
                stack_v[top] = e_b[k] if e_a[k] == x else e_a[k]
                stack_e[top] = k
                moved = True
                break
        if not moved:
            if stack_e[top] >= 0:
                reverse[n] = stack_e[top]
                n += 1
            top -= 1
    for i in range(n):
        out[i] = reverse[n - 1 - i]
    return n
