"""The longest-train planner: the best chain of one's own tiles from an open end.

Seed 000's advice is to build the longest possible train of one's own tiles and keep
those tiles for it. Exactly: tiles are edges between their two numbers, a chain laid
from number ``start`` is a trail (each tile used once), and a double ``d|d`` can be
slipped into the chain whenever it passes through ``d`` (R12 lets it be followed), so
a chain's value is the value of its non-double tiles plus that of the doubles on the
numbers it visits. A tile is worth ``1 + pip_weight * pips``.

The search is exact. When the tiles joined to ``start`` close few independent cycles
(sparse hands, the usual case) it simply tries every trail; otherwise it is a branch
and bound, kept fast three ways:

* a bound: the tiles still reachable from the chain's end, less those that parity
  forces out — the left-out tiles join up the numbers of odd degree in pairs, so at
  least a minimum matching of them by distance (a T-join) is left out;
* an Euler shortcut: when every reachable tile fits one trail, that is the best
  completion, and no branching is needed below;
* aspiration: searches ask for chains worth at least a threshold just under the root
  bound, lowered step by step, so pruning is tight from the first node; and a table
  of (end, tiles used) states searched already skips orderings of the same trail.

``longest_chain`` is numba-compiled and works on plain arrays so strategies can call
it; ``longest_chain_brute_force`` is the plain-Python check the tests compare it with.
"""

from __future__ import annotations

from itertools import permutations

import numpy as np
from numba import njit

MAX_MATCHED = 8  # odd numbers matched exactly by the T-join bound
PLAIN_CYCLES = 5  # at most this many independent cycles: try every trail
NODE_BUDGET = 50_000  # nodes for the exact search; huge dense hands may exceed it
FALLBACK_BUDGET = 50_000  # then a bottom-up search with this many more
WALKS = 256  # quick random chains that set its floor
TJOIN_FROM = 12.0  # reachable value above which the search also uses the T-join bound
EPS = 1e-9
GOLDEN = np.uint64(0x9E3779B97F4A7C15)
MIX = np.uint64(0xBF58476D1CE4E5B9)


@njit(cache=True)
def longest_chain(start, hand, n, lo, hi, pips, pip_weight, max_pip, chain):
    """Best chain from number ``start`` with the tiles hand[:n] (tile numbers indexing
    the lo/hi/pips tables). Writes the chain's tiles in laying order to ``chain`` (a
    double right after arriving at its number) and returns (length, value)."""
    V = max_pip + 1
    e_a = np.empty(max(1, n), dtype=np.int64)  # non-double tiles as edges a-b
    e_b = np.empty(max(1, n), dtype=np.int64)
    e_w = np.empty(max(1, n), dtype=np.float64)
    e_t = np.empty(max(1, n), dtype=np.int64)
    dbl_w = np.zeros(V, dtype=np.float64)  # the double on each number, if held
    dbl_t = np.full(V, -1, dtype=np.int64)
    m = 0
    min_w = 1.0
    for i in range(n):
        t = hand[i]
        w = 1.0 + pip_weight * pips[t]
        if lo[t] == hi[t]:
            dbl_w[lo[t]] = w
            dbl_t[lo[t]] = t
        else:
            e_a[m] = lo[t]
            e_b[m] = hi[t]
            e_w[m] = w
            e_t[m] = t
            min_w = w if m == 0 else min(min_w, w)
            m += 1
    adj_start = np.zeros(V + 1, dtype=np.int64)  # edges at number x: adj[adj_start[x]:..]
    for k in range(m):
        adj_start[e_a[k] + 1] += 1
        adj_start[e_b[k] + 1] += 1
    for x in range(V):
        adj_start[x + 1] += adj_start[x]
    adj = np.empty(max(1, 2 * m), dtype=np.int64)
    fill = adj_start[:V].copy()
    for k in range(m):
        adj[fill[e_a[k]]] = k
        fill[e_a[k]] += 1
        adj[fill[e_b[k]]] = k
        fill[e_b[k]] += 1

    g = (V, m, adj, adj_start, e_a, e_b, e_w, dbl_w, dbl_t, min_w)
    ints = np.zeros((7, max(V, m) + 2), dtype=np.int64)  # scratch rows, see the helpers
    dist = np.empty((MAX_MATCHED, V), dtype=np.int64)
    dp = np.empty(1 << MAX_MATCHED, dtype=np.int64)
    used = np.zeros(max(1, m), dtype=np.bool_)
    visits = np.zeros(V, dtype=np.int64)
    visits[start] = 1
    root = dbl_w[start] if dbl_t[start] >= 0 else 0.0
    best_path = np.empty(max(1, m), dtype=np.int64)
    best_value, best_len = root, 0
    if m > 0:
        reach, n_odd = _reach(start, g, used, visits, ints)
        numbers = 0
        tiles = 0
        for x in range(V):
            numbers += ints[0, x]
            tiles += ints[1, x]
        budget = NODE_BUDGET
        dense = tiles // 2 - numbers + 1 > PLAIN_CYCLES
        proven = False  # best_path holds the best chain there is
        if dense:
            removal = _min_removal(start, n_odd, g, used, ints, dist, dp) if n_odd > 1 else 0
            threshold = root + reach - removal * min_w
            step = min_w
            while threshold > root + EPS and budget > 0:
                threshold = max(threshold - step, root)
                found, value, length, nodes = _search(start, root, threshold, g, used,
                                                      visits, ints, dist, dp, best_path,
                                                      False, budget)
                if found:
                    best_value, best_len = value, length
                    proven = nodes <= budget
                    break
                budget -= nodes
                step *= 2.0  # widen quickly when the bound was far off
        if not proven:
            # Few independent cycles, so few trails: trying them all is cheapest. Or a
            # huge hand exhausted the budget: then a branch and bound from the best of
            # many quick walks (or of what was found), improving until its own budget
            # runs out.
            if dense:
                walk_path = np.empty(max(1, m), dtype=np.int64)
                walk_value, walk_len = _walks(start, root, g, used, visits, ints, walk_path)
                if walk_value > best_value + EPS:
                    best_value, best_len = walk_value, walk_len
                    best_path[:walk_len] = walk_path[:walk_len]
            found, value, length, nodes = _search(start, root, best_value, g, used, visits,
                                                  ints, dist, dp, best_path, not dense,
                                                  FALLBACK_BUDGET if dense else NODE_BUDGET)
            if found:
                best_value, best_len = value, length

    # lay out the chain: each double right after arriving at its number
    placed = np.zeros(V, dtype=np.bool_)
    length = 0
    v = start
    if dbl_t[v] >= 0:
        chain[length] = dbl_t[v]
        length += 1
        placed[v] = True
    for i in range(best_len):
        k = best_path[i]
        chain[length] = e_t[k]
        length += 1
        v = e_b[k] if e_a[k] == v else e_a[k]
        if dbl_t[v] >= 0 and not placed[v]:
            chain[length] = dbl_t[v]
            length += 1
            placed[v] = True
    return length, best_value


@njit(cache=True)
def _reach(v, g, used, visits, ints):
    """Value of the unused tiles reachable from v (and the doubles of numbers not yet
    visited among them); the count of odd-degree numbers other than v. Leaves each
    reached number's unused degree in ints[1] and reached flags in ints[0]."""
    V, _, adj, adj_start, e_a, e_b, e_w, dbl_w, dbl_t, _ = g
    seen = ints[0]
    deg = ints[1]
    stack = ints[2]
    for x in range(V):
        seen[x] = 0
        deg[x] = 0
    reach = 0.0
    top = 1
    stack[0] = v
    seen[v] = 1
    while top > 0:
        top -= 1
        x = stack[top]
        if visits[x] == 0 and dbl_t[x] >= 0:
            reach += dbl_w[x]
        for s in range(adj_start[x], adj_start[x + 1]):
            k = adj[s]
            if used[k]:
                continue
            deg[x] += 1
            y = e_b[k] if e_a[k] == x else e_a[k]
            if x < y:  # each tile once, from its smaller number
                reach += e_w[k]
            if not seen[y]:
                seen[y] = 1
                stack[top] = y
                top += 1
    n_odd = 0
    leaf_doubles = 0.0
    best_leaf_double = 0.0
    for x in range(V):
        if seen[x] and deg[x] % 2 == 1 and x != v:
            n_odd += 1
            if deg[x] == 1 and visits[x] == 0 and dbl_t[x] >= 0:
                # a leaf can only be entered as the chain's last number: of the
                # doubles on leaves, one at most is laid
                leaf_doubles += dbl_w[x]
                best_leaf_double = max(best_leaf_double, dbl_w[x])
    return reach - leaf_doubles + best_leaf_double, n_odd


@njit(cache=True)
def _min_removal(v, n_odd, g, used, ints, dist, dp):
    """Fewest unused tiles a trail from v must leave out of its reachable part (after
    _reach): over the trail's possible ends u, a minimum T-join of odd(G) xor {v, u},
    i.e. a minimum perfect matching of those numbers by distance in tiles. Falls back
    to the pair count when there are too many odd numbers to match exactly."""
    V, _, adj, adj_start, e_a, e_b, _, _, _, _ = g
    if n_odd + 1 > MAX_MATCHED:
        return n_odd // 2
    seen = ints[0]
    deg = ints[1]
    queue = ints[2]
    odd = ints[3]
    k = 0
    for x in range(V):
        if seen[x] and deg[x] % 2 == 1 and x != v:
            odd[k] = x
            k += 1
    odd[k] = v
    for i in range(k + 1):  # breadth-first distances from each of them
        for x in range(V):
            dist[i, x] = -1
        dist[i, odd[i]] = 0
        head = 0
        tail = 1
        queue[0] = odd[i]
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
                    queue[tail] = y
                    tail += 1
    # dp[mask]: cheapest perfect matching of the members of mask (bit i = odd[i])
    dp[0] = 0
    for mask in range(1, 1 << (k + 1)):
        dp[mask] = -1
        i = 0
        while not (mask >> i) & 1:
            i += 1
        rest = mask & ~(1 << i)
        bits = rest
        while bits:
            j = 0
            while not (bits >> j) & 1:
                j += 1
            bits &= ~(1 << j)
            sub = dp[rest & ~(1 << j)]
            if sub >= 0:
                cost = sub + dist[i, odd[j]]
                if dp[mask] < 0 or cost < dp[mask]:
                    dp[mask] = cost
    all_odd = (1 << k) - 1
    v_bit = 1 << k
    # v odd: the trail ends at some odd u; v even: it closes at v or ends at an odd u,
    # which leaves v odd in what is left out
    best = -1 if deg[v] % 2 == 1 else dp[all_odd]
    for u in range(k):
        rest = all_odd & ~(1 << u)
        c = dp[rest] if deg[v] % 2 == 1 else dp[rest | v_bit]
        if c >= 0 and (best < 0 or c < best):
            best = c
    return max(best, 0)


@njit(cache=True)
def _search(start, root, threshold, g, used, visits, ints, dist, dp, best_path, plain,
            budget):
    """Depth-first branch and bound for the best trail from start worth more than
    threshold (``plain``: no bounds, every trail is tried), visiting at most ``budget``
    nodes. Returns (found, value, length, nodes visited); the trail's tiles go to
    best_path. Out of budget, it returns the best trail found so far."""
    _, m, adj, adj_start, e_a, e_b, e_w, dbl_w, dbl_t, min_w = g
    path = ints[4]  # tile (edge) taken at each depth
    at = ints[5]  # number reached at each depth
    cursor = ints[6]  # next adjacency slot to try at each depth
    memo = m <= 64 and not plain  # states are keyed by a 64-bit set of used tiles
    table_v = np.full(256, -1, dtype=np.int64)
    table_m = np.zeros(256, dtype=np.uint64)
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
            if nodes > budget:  # out of budget: unwind, keeping the best found so far
                while depth > 0:
                    depth -= 1
                    k = path[depth]
                    used[k] = False
                    visits[at[depth + 1]] -= 1
                break
        if entering and not plain:
            entering = False
            if memo:  # the same tiles ending at the same number: searched already
                size = table_v.shape[0]
                slot = np.int64(((mask ^ (np.uint64(v) * GOLDEN)) * MIX) >> np.uint64(40))
                slot &= size - 1
                while table_v[slot] >= 0 and not (table_v[slot] == v and table_m[slot] == mask):
                    slot = (slot + 1) & (size - 1)
                if table_v[slot] >= 0:
                    prune = True
                else:
                    table_v[slot] = v
                    table_m[slot] = mask
                    n_table += 1
                    if 2 * n_table > size:
                        table_v, table_m = _grow(table_v, table_m)
            if not prune:
                reach, n_odd = _reach(v, g, used, visits, ints)
                prune = value + reach - (n_odd // 2) * min_w <= best_value + EPS
                if not prune and n_odd > 1 and reach > TJOIN_FROM:
                    # worth its cost only on big remainders
                    removal = _min_removal(v, n_odd, g, used, ints, dist, dp)
                    prune = value + reach - removal * min_w <= best_value + EPS
                if not prune and n_odd <= 1:
                    # every reachable tile fits one trail from v: the best completion
                    best_value = value + reach
                    best_len = depth + _euler_trail(v, g, used, best_path[depth:])
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
def _walks(start, root, g, used, visits, ints, best_path):
    """The best of WALKS quick chains from start (each tile chosen at random among those
    that fit, from a fixed sequence): a floor for the search on huge hands. Returns
    (value, length); the chain's tiles go to best_path. Leaves used/visits as found."""
    _, _, adj, adj_start, e_a, e_b, e_w, dbl_w, dbl_t, _ = g
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
def _grow(table_v, table_m):
    """Double the table of searched states, re-inserting its entries."""
    size = 2 * table_v.shape[0]
    new_v = np.full(size, -1, dtype=np.int64)
    new_m = np.zeros(size, dtype=np.uint64)
    for i in range(table_v.shape[0]):
        if table_v[i] >= 0:
            slot = np.int64(((table_m[i] ^ (np.uint64(table_v[i]) * GOLDEN)) * MIX)
                            >> np.uint64(40)) & (size - 1)
            while new_v[slot] >= 0:
                slot = (slot + 1) & (size - 1)
            new_v[slot] = table_v[i]
            new_m[slot] = table_m[i]
    return new_v, new_m


@njit(cache=True)
def _euler_trail(v, g, used, out):
    """Hierholzer: an Euler trail from v over the unused tiles reachable from v (the
    caller checked that one exists). Writes edge ids to out; returns how many."""
    _, m, adj, adj_start, e_a, e_b, _, _, _, _ = g
    taken = used.copy()
    cursor = adj_start.copy()
    stack_v = np.empty(m + 1, dtype=np.int64)
    stack_e = np.empty(m + 1, dtype=np.int64)
    reverse = np.empty(max(1, m), dtype=np.int64)
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
                taken[k] = True
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


def chain_value(chain: list[tuple[int, int]], pip_weight: float) -> float:
    return sum(1.0 + pip_weight * (a + b) for a, b in chain)


def longest_chain_brute_force(start: int, tiles: list[tuple[int, int]],
                              pip_weight: float) -> float:
    """The best chain value by trying every ordered subset (tests only: tiny hands)."""
    best = 0.0
    for r in range(1, len(tiles) + 1):
        for order in permutations(range(len(tiles)), r):
            end, ok = start, True
            for i in order:
                a, b = tiles[i]
                if a == end:
                    end = b
                elif b == end:
                    end = a
                else:
                    ok = False
                    break
            if ok:
                best = max(best, chain_value([tiles[i] for i in order], pip_weight))
    return best
