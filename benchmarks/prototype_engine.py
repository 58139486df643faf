"""The speed limit: a bare prototype of the same game, to measure the core against.

4 x greedy under the seed-001 rules on a double-12 set (docs/rules.md), written as
tight as numba allows: hands are two uint64 words per seat, every helper takes and
returns plain numbers, the shuffle draws from a counter-seeded generator (splitmix64 of
(seed, match, round, i): no state to carry), and greedy is folded into the move search
(the lowest set bit over the usable trains, first train in the engine's order on a
tie) instead of listing moves and asking. Its rules are simpler than the core's, on
purpose (issue 14): no R13 duty queue (a double still obliges another play, R12, but
nobody must serve it), no R15 count (a round is blocked after P passes in a row with
the boneyard empty), no per-seat statistics but the penalties, no trace or view. So it
is not the same game move for move; it is the same amount of work, a turn at a time,
without the bookkeeping, and the core's rate over its rate is "how far from the limit"
(benchmarks/bench_engine.py prints both; README, "Speed").

Run alone: ``python benchmarks/prototype_engine.py`` prints its rate and turns a match.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

# this checkout's mexsim: run as a script, Python would import the virtual
# environment's editable install, which may be another checkout's (bench_engine.py
# imports this file first, and so gets the same)
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mexsim.game.tiles import tile_set

P = 4  # players
N = 12  # double-12
H = 15  # tiles a hand (R3)
T = (N + 1) * (N + 2) // 2  # 91 tiles: two words
U1 = np.uint64(1)
ZERO = np.uint64(0)
GOLDEN = np.uint64(0x9E3779B97F4A7C15)
MIX1 = np.uint64(0xBF58476D1CE4E5B9)
MIX2 = np.uint64(0x94D049BB133111EB)
EMPTY = np.uint64(0)


@njit(inline="always")
def _mix(x):
    z = x + GOLDEN
    z = (z ^ (z >> np.uint64(30))) * MIX1
    z = (z ^ (z >> np.uint64(27))) * MIX2
    return z ^ (z >> np.uint64(31))


@njit(inline="always")
def _bounded(key, i, n):
    """A number in 0..n-1 from the counter (key, i): Lemire's multiply, no retry (the
    bias of under 2^-25 does not matter to a benchmark)."""
    x = _mix(key ^ np.uint64(i))
    return np.int64(((x >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@njit(inline="always")
def _lowest(w0, w1):
    """The lowest tile number in the two-word set (w0, w1), or T when it is empty."""
    if w0:
        return np.int64(trailing_zeros(w0))
    if w1:
        return 64 + np.int64(trailing_zeros(w1))
    return T


@njit(inline="always")
def _bit(t):
    return U1 << np.uint64(t & 63)


@njit(cache=True)
def play(seed, first_match, n_matches, lo, hi, pips, mask0, mask1):
    """Play n_matches matches; returns (sum of all penalties, turns played)."""
    hand0 = np.zeros(P, dtype=np.uint64)
    hand1 = np.zeros(P, dtype=np.uint64)
    end = np.zeros(P + 1, dtype=np.int64)  # open end of train t; P is the Mexican train
    order = np.empty(T, dtype=np.int64)
    checksum = 0
    turns = 0
    for match in range(first_match, first_match + n_matches):
        for rnd in range(N + 1):
            key = _mix(_mix(np.uint64(seed) ^ np.uint64(match)) ^ np.uint64(rnd))
            for t in range(T):
                order[t] = t
            for i in range(T - 1, 0, -1):  # Fisher-Yates
                j = _bounded(key, i, i + 1)
                tmp = order[i]
                order[i] = order[j]
                order[j] = tmp
            for s in range(P):
                hand0[s] = EMPTY
                hand1[s] = EMPTY
                for k in range(s * H, s * H + H):
                    t = order[k]
                    if t < 64:
                        hand0[s] |= _bit(t)
                    else:
                        hand1[s] |= _bit(t)
            bpos = P * H
            engine = N - rnd
            engine_tile = 0
            while lo[engine_tile] != engine or hi[engine_tile] != engine:
                engine_tile += 1
            eb = _bit(engine_tile)
            seat = -1
            for s in range(P):
                if (hand0[s] if engine_tile < 64 else hand1[s]) & eb:
                    seat = s
            if seat < 0:  # R5: draw clockwise until the engine turns up
                seat = rnd % P
                while True:
                    t = order[bpos]
                    bpos += 1
                    if t == engine_tile:
                        break
                    if t < 64:
                        hand0[seat] |= _bit(t)
                    else:
                        hand1[seat] |= _bit(t)
                    seat = seat + 1 if seat + 1 < P else 0
            else:
                if engine_tile < 64:
                    hand0[seat] ^= eb
                else:
                    hand1[seat] ^= eb
            for tr in range(P + 1):
                end[tr] = engine
            marked = 0  # bit s: train s carries a marker
            first = (1 << P) - 1  # bit s: seat s has not had its first turn
            passes = 0
            while True:  # one turn of `seat`
                turns += 1
                is_first = (first >> seat) & 1
                first &= ~(1 << seat)
                h0 = hand0[seat]
                h1 = hand1[seat]
                drawn = False
                out = False
                laid = 0
                last_double = False
                while True:  # one tile laid (or a draw, or the pass)
                    # greedy: the heaviest tile (lowest number) that fits any usable
                    # train, then the first usable train it fits, own train first
                    e = end[seat]
                    u0 = mask0[e]
                    u1 = mask1[e]
                    if not is_first:
                        e = end[P]
                        u0 |= mask0[e]
                        u1 |= mask1[e]
                        for k in range(1, P):  # marked trains, without a branch
                            tr = seat + k if seat + k < P else seat + k - P
                            keep = ZERO - np.uint64((marked >> tr) & 1)
                            e = end[tr]
                            u0 |= mask0[e] & keep
                            u1 |= mask1[e] & keep
                    best = _lowest(h0 & u0, h1 & u1)
                    best_tr = seat
                    if best < T and not is_first:
                        a = lo[best]
                        b = hi[best]
                        if end[seat] != a and end[seat] != b:
                            best_tr = P
                            if end[P] != a and end[P] != b:
                                for k in range(1, P):
                                    tr = seat + k if seat + k < P else seat + k - P
                                    if (marked >> tr) & 1 and (end[tr] == a or end[tr] == b):
                                        best_tr = tr
                                        break
                    if best == T:
                        if is_first and laid > 0 and not last_double:
                            break  # R11: the first turn's chain stops, no draw
                        if bpos < T and not drawn:
                            t = order[bpos]  # R10: draw one and look again
                            bpos += 1
                            drawn = True
                            if t < 64:
                                h0 |= _bit(t)
                            else:
                                h1 |= _bit(t)
                            continue
                        marked |= 1 << seat  # R8: pass and mark
                        passes += 1
                        break
                    if best < 64:
                        h0 ^= _bit(best)
                    else:
                        h1 ^= _bit(best)
                    end[best_tr] = hi[best] if lo[best] == end[best_tr] else lo[best]
                    if best_tr == seat:
                        marked &= ~(1 << seat)
                    passes = 0
                    drawn = False
                    laid += 1
                    last_double = lo[best] == hi[best]
                    if (h0 | h1) == ZERO:
                        out = True
                        break
                    if not last_double and not is_first:
                        break  # a non-double ends an ordinary turn (R12)
                hand0[seat] = h0
                hand1[seat] = h1
                if out or (passes >= P and bpos == T):
                    break
                seat = seat + 1 if seat + 1 < P else 0
            for s in range(P):  # R16
                m = hand0[s]
                while m:
                    checksum += pips[trailing_zeros(m)]
                    m &= m - U1
                m = hand1[s]
                while m:
                    checksum += pips[64 + trailing_zeros(m)]
                    m &= m - U1
    return checksum, turns


def tables() -> tuple[np.ndarray, ...]:
    """(lo, hi, pips, mask0, mask1) of the double-12 set: a number's tiles, word by word."""
    ts = tile_set(N)
    return (
        ts.lo,
        ts.hi,
        ts.pips,
        np.ascontiguousarray(ts.number_mask[:, 0]),
        np.ascontiguousarray(ts.number_mask[:, 1]),
    )


def prototype_rate(n: int, seed: int = 2026, repeats: int = 3) -> tuple[float, float]:
    """(matches per second of process CPU time, best of ``repeats``; turns a match)."""
    args = tables()
    play(seed, 0, 2, *args)  # compile / load the cache
    best, turns = 0.0, 0
    for _ in range(repeats):
        start = time.process_time()
        _, turns = play(seed, 0, n, *args)
        best = max(best, n / (time.process_time() - start))
    return best, turns / n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--matches", type=int, default=100_000)
    args = parser.parse_args()
    rate, turns = prototype_rate(args.matches)
    print(
        f"prototype: 4 x greedy, seed-001, one core: {rate:,.0f} matches/s, "
        f"{turns:.0f} turns a match, {1e9 / rate / turns:.1f} ns a turn"
    )


if __name__ == "__main__":
    main()
