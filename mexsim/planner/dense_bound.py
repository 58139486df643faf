"""The dense planner's bound (mexsim/planner/dense.py): the tiles still reachable from a
chain's end less those parity forces out — a minimum matching of the odd numbers by
distance (a T-join: BFS distances unweighted, Dijkstra by tile value weighted) — and
less the doubles on leaves the chain cannot end at."""

from __future__ import annotations

import numpy as np

from mexsim.jit.bits import popcount, trailing_zeros
from mexsim.jit.callee import callee
from mexsim.planner.dense_scratch import (
    ADJ,
    BON,
    CAP,
    DIST,
    DP,
    DW,
    LAYER,
    MINW,
    ODD,
    PAIR,
    PX,
    TAIL,
    TMASK,
    WT,
    _double,
)
from mexsim.planner.limits import (
    WIDTH,
)


@callee(refcounts=False)
def _component(s, v):
    """The numbers joined to v by unused tiles (a word)."""
    comp = 1 << v
    frontier = comp
    while frontier:
        nxt = 0
        while frontier:
            x = trailing_zeros(frontier)
            frontier &= frontier - 1
            nxt |= s[ADJ + x]
        frontier = nxt & ~comp
        comp |= frontier
    return comp


@callee(refcounts=False)
def _reach(s, f, w, v, seen, dbl):
    """(Tiles reachable from v plus the doubles a chain could still add there and the
    most it gains at its end, the count of odd numbers other than v, a quick bound on
    what parity leaves out, the word of those odd numbers, the word of the numbers
    where ending gains: a piece beyond a bridge (TAIL) or a double on a leaf, which is
    entered only as the chain's end). Weighted, values: the tiles' sum, and the quick
    bound is also half the cheapest tiles at the odd numbers less the dearest of them
    (each odd number but the end keeps a left-out tile; a tile serves two)."""
    comp = _component(s, v)
    ends = 0
    odd = 0
    leaf_dbl = 0
    total = 0.0
    bits = comp
    while bits:
        x = trailing_zeros(bits)
        bits &= bits - 1
        row = s[ADJ + x]
        d = popcount(row)
        ends += d
        if w is not None:
            row &= ~((2 << x) - 1)  # each tile once, from its smaller number
            while row:
                y = trailing_zeros(row)
                row &= row - 1
                total += f[WT + x * WIDTH + y]
        if d & 1:
            odd |= 1 << x
            if d == 1:
                leaf_dbl |= 1 << x
    odd &= ~(1 << v)
    leaf_dbl &= dbl & ~seen & ~(1 << v)
    laid = dbl & comp & ~seen & ~leaf_dbl
    bonus = leaf_dbl | (s[TMASK] & comp)
    gain = f[TAIL + v] * 0  # 0 of the values' type (int, or float weighted)
    bits = bonus
    while bits:
        x = trailing_zeros(bits)
        bits &= bits - 1
        if w is None:  # (not a call: this runs at every node)
            gain = max(gain, f[TAIL + x] + ((leaf_dbl >> x) & 1))
        else:
            gain = max(gain, f[TAIL + x] + (f[DW + x] if (leaf_dbl >> x) & 1 else 0.0))
    n_odd = popcount(odd)
    if w is None:
        return ends // 2 + popcount(laid) + gain, n_odd, n_odd // 2, odd, bonus
    while laid:
        x = trailing_zeros(laid)
        laid &= laid - 1
        total += f[DW + x]
    cheapest_sum = 0.0
    cheapest_max = 0.0
    bits = odd
    while bits:
        x = trailing_zeros(bits)
        bits &= bits - 1
        row = s[ADJ + x]
        cheapest = np.inf
        while row:
            y = trailing_zeros(row)
            row &= row - 1
            cheapest = min(cheapest, f[WT + x * WIDTH + y])
        cheapest_sum += cheapest
        cheapest_max = max(cheapest_max, cheapest)
    loss = max((n_odd // 2) * f[MINW], 0.5 * (cheapest_sum - cheapest_max))
    return total + gain, n_odd, loss, odd, bonus


@callee(refcounts=False)
def _min_removal(s, f, w, v, odd, n_odd, seen, dbl, bonus):
    """Least count a trail from v must leave out of what _reach counted: a minimum
    matching by BFS distance of the odd numbers other than v, v when it is even, and a
    stand-in for the trail's end. A trail ending at u gains g(u) there (_reach's bonus
    numbers) and _reach counted the most, G: matched to w, the stand-in costs the
    least of G - g(x) + dist(w, x) over x (x = w, or x the end beyond the path from w:
    a trail ending at an even x leaves out a T-join with a path from x to some w).
    Returns (it, the numbers matched: 0 when too many to match exactly, and the count
    is the pair count's); leaves ODD, DIST, LAYER, PAIR, PX and DP for _completion.
    Weighted, distances are shortest paths by tile value (_dijkstra), the values in
    the float view."""
    closable = popcount(s[ADJ + v]) % 2 == 0
    size = n_odd + 2 if closable else n_odd + 1
    if size > CAP:
        if w is None:
            return n_odd // 2, 0
        return (n_odd // 2) * f[MINW], 0
    k = 0
    bits = odd
    while bits:
        x = trailing_zeros(bits)
        bits &= bits - 1
        s[ODD + k] = x
        k += 1
    s[ODD + k] = v
    gain = f[TAIL + v] * 0  # 0 of the values' type (int, or float weighted)
    bits = bonus
    while bits:
        x = trailing_zeros(bits)
        bits &= bits - 1
        g = f[TAIL + x]
        if x != v and popcount(s[ADJ + x]) == 1 and (dbl >> x) & 1 and not (seen >> x) & 1:
            g += _double(f, w, dbl, x)  # a double on a leaf
        f[BON + x] = g
        gain = max(gain, g)
    free = size - 1
    later = 0  # (weighted) the numbers matched after the i-th: Dijkstra's targets
    if w is not None:
        for i in range(free):
            later |= 1 << s[ODD + i]
    for i in range(free):
        a = s[ODD + i]
        if w is None:
            _bfs(s, i, a)
        else:
            later &= ~(1 << a)
            _dijkstra(s, f, i, a, seen, dbl, later | bonus)
        price = gain - (f[BON + a] if (bonus >> a) & 1 else 0)
        s[PX + i] = a
        bits = bonus
        while bits:
            x = trailing_zeros(bits)
            bits &= bits - 1
            through = gain - f[BON + x] + f[DIST + i * WIDTH + x]
            if through < price:
                price = through
                s[PX + i] = x
        f[PAIR + i * WIDTH + free] = price
    for i in range(free):
        for j in range(i + 1, free):
            f[PAIR + i * WIDTH + j] = f[DIST + i * WIDTH + s[ODD + j]]
    return _matching(f, size), size


@callee(refcounts=False)
def _bfs(s, i, src):
    """Distances in tiles from src (DIST[i], for the numbers reached) and the layers
    (LAYER[i][d]: the numbers d tiles away), as words."""
    reached = 1 << src
    frontier = reached
    d = 0
    s[DIST + i * WIDTH + src] = 0
    s[LAYER + i * (WIDTH + 1)] = frontier
    while frontier:
        nxt = 0
        while frontier:
            x = trailing_zeros(frontier)
            frontier &= frontier - 1
            nxt |= s[ADJ + x]
        frontier = nxt & ~reached
        reached |= frontier
        d += 1
        s[LAYER + i * (WIDTH + 1) + d] = frontier
        bits = frontier
        while bits:
            x = trailing_zeros(bits)
            bits &= bits - 1
            s[DIST + i * WIDTH + x] = d


@callee(refcounts=False)
def _dijkstra(s, f, i, src, seen, dbl, need):
    """Weighted hands: shortest distances by tile value from src (DIST[i], floats) and
    the number each is reached from (LAYER[i], ints), on words; the nearest is picked
    by a scan of the few numbers waiting. A path through a number of two tiles takes
    both, so that number's double (if not laid yet) is lost with them, as in
    planner._dijkstra: the least-valued T-join is made of such paths. It stops when
    the numbers in ``need`` are settled (their distances and paths are final then)."""
    dist = DIST + i * WIDTH
    parent = LAYER + i * (WIDTH + 1)
    f[dist + src] = 0.0
    reached = 1 << src
    waiting = reached
    while waiting:
        bits = waiting
        x = trailing_zeros(bits)
        bits &= bits - 1
        while bits:
            y = trailing_zeros(bits)
            bits &= bits - 1
            if f[dist + y] < f[dist + x]:
                x = y
        waiting &= ~(1 << x)
        need &= ~(1 << x)
        if need == 0:
            return
        row = s[ADJ + x]
        base = f[dist + x]
        if x != src and popcount(row) == 2 and (dbl >> x) & 1 and not (seen >> x) & 1:
            base += f[DW + x]
        while row:
            y = trailing_zeros(row)
            row &= row - 1
            d = base + f[WT + x * WIDTH + y]
            if not (reached >> y) & 1:
                reached |= 1 << y
                waiting |= 1 << y
                f[dist + y] = d
                s[parent + y] = x
            elif d < f[dist + y]:
                f[dist + y] = d
                s[parent + y] = x


@callee(refcounts=False)
def _matching(s, size):
    """Cheapest perfect matching of 0..size-1 by PAIR (i < j), as planner._matching:
    DP[mask] for the masks 'match the lowest one with another' reaches from all. ``s``
    is the scratch or (weighted prices) its float view."""
    s[DP] = 0
    for r in range(size // 2 - 1, -1, -1):
        members = size - 2 * r
        # only masks of ``members`` of the numbers r.. (the r lowest are matched by
        # then): combinations of size - r bits, shifted by r. Every combination of
        # size bits with that count, as before, was ~3x the masks at size 8
        combo = (1 << members) - 1
        top = 1 << (size - r)
        while combo < top:
            mask = combo << r
            i = trailing_zeros(mask)
            rest = mask & ~(1 << i)
            best = 1 << 40
            bits = rest
            while bits:
                j = trailing_zeros(bits)
                bits &= bits - 1
                cost = s[PAIR + i * WIDTH + j] + s[DP + (rest & ~(1 << j))]
                if cost < best:
                    best = cost
            s[DP + mask] = best
            low = combo & -combo
            ripple = combo + low
            combo = (((ripple ^ combo) >> 2) // low) | ripple
    return s[DP + (1 << size) - 1]
