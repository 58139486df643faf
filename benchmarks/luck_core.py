"""The luck of a match's chance events, replayed from its event rows (issue 13 study).

Walks the rows of kernel.play_match(..., record=True, ...) keeping the table (who holds each
tile, train ends, markers, open doubles) and, at every chance event, scores each seat j
with a value model V_j (an estimate of seat j's round penalty, quadratic in the
features below; luck_study.py fits it on a pilot block):

* a draw by seat s: luck_j = V_j(after the tile drawn) - mean over every tile u still in
  the boneyard of V_j(after u) — the next tile is uniform over the boneyard whatever
  happened before, so the term has mean zero given the past, under any strategy;
* the deal: luck_j = V_j(the hands dealt) - mean over the P rotations of the hands
  among the seats of V_j — the hands are exchangeable, so each rotation has the
  deal's distribution and the term has mean zero.

Adjusted total = total - all luck terms: unbiased whatever V is; a good V makes it
less variable. A study prototype: not part of mexsim (see docs/luck.md for why).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mexsim.game.enums import Event, EventField
from mexsim.planner import longest_chain

# per-seat statistics
S_N = 0
S_PIPS = 1
S_DOUBLES = 2
S_PLAYABLE = 3
S_CHAIN = 4
S_CHAIN_PIPS = 5
N_STATS = 6

# features of seat j
NF = 14


@njit(cache=True)
def seat_stats(owner, s, ends, P, N, lo, hi, pips, engine_tile, hand, chain, out):
    """Hand statistics of seat s (the engine tile, while still in a hand, left out)."""
    n = 0
    pp = 0
    dbl = 0
    play = 0
    own = ends[s]
    mex = ends[P]
    for t in range(lo.shape[0]):
        if owner[t] == s and t != engine_tile:
            hand[n] = t
            n += 1
            pp += pips[t]
            if lo[t] == hi[t]:
                dbl += 1
            if lo[t] == own or hi[t] == own or lo[t] == mex or hi[t] == mex:
                play += 1
    length, _ = longest_chain(own, hand, n, lo, hi, pips, 0.0, N, chain)
    cp = 0
    for k in range(length):
        cp += pips[chain[k]]
    out[S_N] = n
    out[S_PIPS] = pp
    out[S_DOUBLES] = dbl
    out[S_PLAYABLE] = play
    out[S_CHAIN] = length
    out[S_CHAIN_PIPS] = cp


@njit(cache=True)
def seat_features(j, stats, P, mover, bone, n_open, marked, holder, x):
    """Features of seat j from every seat's statistics and the table."""
    n = stats[j, S_N]
    x[0] = n
    x[1] = stats[j, S_PIPS]
    x[2] = stats[j, S_DOUBLES]
    x[3] = stats[j, S_PLAYABLE]
    x[4] = stats[j, S_CHAIN]
    x[5] = n - stats[j, S_CHAIN]
    x[6] = stats[j, S_PIPS] - stats[j, S_CHAIN_PIPS]
    x[7] = marked[j]
    mn = 1 << 30
    mr = 1 << 30
    for k in range(P):
        if k != j:
            mn = min(mn, stats[k, S_N])
            mr = min(mr, stats[k, S_N] - stats[k, S_CHAIN])
    x[8] = mn
    x[9] = mr
    x[10] = bone
    x[11] = n_open
    x[12] = (j - mover) % P
    x[13] = 1.0 if holder == j else 0.0


@njit(cache=True)
def value(x, mu, sd, coef):
    """The quadratic model: coef over [1, z, z_a z_b (a <= b)], z = (x - mu) / sd."""
    m = x.shape[0]
    z = np.empty(m)
    for a in range(m):
        z[a] = (x[a] - mu[a]) / sd[a]
    v = coef[0]
    k = 1
    for a in range(m):
        v += coef[k] * z[a]
        k += 1
    for a in range(m):
        for b in range(a, m):
            v += coef[k] * z[a] * z[b]
            k += 1
    return v


def n_coef(m: int = NF) -> int:
    return 1 + m + m * (m + 1) // 2


@njit(cache=True)
def _all_values(stats, P, mover, bone, n_open, marked, holder, mu, sd, coef, x, out):
    for j in range(P):
        seat_features(j, stats, P, mover, bone, n_open, marked, holder, x)
        out[j] = value(x, mu, sd, coef)


@njit(cache=True)
def replay(ev, P, N, set_aside, lo, hi, pips, mu, sd, coef, collect, X, Xrs, deal_luck, draw_luck):
    """Walk one match's event rows. collect: write the features after each chance event
    (deal, draw) of every seat to X (rows), with (round, seat) in Xrs; returns rows.
    Otherwise add each chance event's luck to deal_luck[round, seat] / draw_luck."""
    T = lo.shape[0]
    owner = np.full(T, -2, dtype=np.int64)
    ends = np.zeros(P + 1, dtype=np.int64)
    marked = np.zeros(P, dtype=np.int64)
    open_tr = np.full(P + 1, -1, dtype=np.int64)
    stats = np.zeros((P, N_STATS), dtype=np.int64)
    save = np.zeros(N_STATS, dtype=np.int64)
    hand = np.empty(T, dtype=np.int64)
    chain = np.empty(T, dtype=np.int64)
    x = np.zeros(NF)
    vals = np.zeros(P)
    acc = np.zeros(P)
    rot_owner = np.empty(T, dtype=np.int64)
    dirty = np.zeros(P, dtype=np.int64)
    rows = 0
    n_open = 0
    dealing = False
    placed = False
    rnd = -1
    engine_tile = -1
    bone = 0
    for i in range(ev.shape[0]):
        kind = ev[i, EventField.kind]
        r = ev[i, EventField.round]
        s = ev[i, EventField.seat]
        t = ev[i, EventField.tile]
        if kind == Event.deal_hand or kind == Event.deal_boneyard:
            if not dealing:  # a new round
                dealing = True
                rnd = r
                owner[:] = -2
                engine = N - r
                for u in range(T):
                    if lo[u] == engine and hi[u] == engine:
                        engine_tile = u
                ends[:] = engine
                marked[:] = 0
                open_tr[:] = -1
                n_open = 0
                placed = set_aside
                bone = 0
            if kind == Event.deal_hand:
                owner[t] = s
            else:
                owner[t] = -1
                bone += 1
            continue
        if dealing:  # the deal is complete: its luck, against the seats' rotations
            dealing = False
            acc[:] = 0.0
            for rot in range(P):
                for u in range(T):
                    o = owner[u]
                    rot_owner[u] = (o - rot) % P if o >= 0 else o
                holder = rot_owner[engine_tile] if not set_aside else -1
                mover = holder if holder >= 0 else rnd % P
                for k in range(P):
                    seat_stats(
                        rot_owner, k, ends, P, N, lo, hi, pips, engine_tile, hand, chain, stats[k]
                    )
                if collect and rot == 0:
                    for j in range(P):
                        seat_features(j, stats, P, mover, bone, n_open, marked, holder, X[rows])
                        Xrs[rows, 0] = rnd
                        Xrs[rows, 1] = j
                        rows += 1
                if not collect:
                    _all_values(
                        stats, P, mover, bone, n_open, marked, holder, mu, sd, coef, x, vals
                    )
                    if rot == 0:
                        for j in range(P):
                            deal_luck[rnd, j] += vals[j]
                    acc += vals
            if not collect:
                for j in range(P):
                    deal_luck[rnd, j] -= acc[j] / P
            for k in range(P):  # the actual hands again
                seat_stats(owner, k, ends, P, N, lo, hi, pips, engine_tile, hand, chain, stats[k])
                dirty[k] = 0
        if kind == Event.draw:
            for k in range(P):
                if dirty[k]:
                    seat_stats(
                        owner, k, ends, P, N, lo, hi, pips, engine_tile, hand, chain, stats[k]
                    )
                    dirty[k] = 0
            holder = owner[engine_tile] if not placed else -1
            mover = s if placed or t == engine_tile else (s + 1) % P
            if not collect:
                # every tile the boneyard could have given
                acc[:] = 0.0
                cnt = 0
                for u in range(T):
                    if owner[u] != -1:
                        continue
                    owner[u] = s
                    save[:] = stats[s]
                    seat_stats(
                        owner, s, ends, P, N, lo, hi, pips, engine_tile, hand, chain, stats[s]
                    )
                    h = owner[engine_tile] if not placed else -1
                    mv = s if (placed or u == engine_tile) else (s + 1) % P
                    _all_values(stats, P, mv, bone - 1, n_open, marked, h, mu, sd, coef, x, vals)
                    acc += vals
                    cnt += 1
                    if u == t:
                        for j in range(P):
                            draw_luck[rnd, j] += vals[j]
                    stats[s] = save
                    owner[u] = -1
                for j in range(P):
                    draw_luck[rnd, j] -= acc[j] / cnt
            owner[t] = s
            bone -= 1
            seat_stats(owner, s, ends, P, N, lo, hi, pips, engine_tile, hand, chain, stats[s])
            if collect:
                holder = owner[engine_tile] if not placed else -1
                for j in range(P):
                    seat_features(j, stats, P, mover, bone, n_open, marked, holder, X[rows])
                    Xrs[rows, 0] = rnd
                    Xrs[rows, 1] = j
                    rows += 1
        elif kind == Event.engine:
            owner[engine_tile] = -2
            placed = True
        elif kind == Event.play:
            tr = ev[i, EventField.extra]
            ends[tr] = hi[t] if lo[t] == ends[tr] else lo[t]
            owner[t] = -2
            if tr == s:
                marked[s] = 0
            for k in range(n_open):
                if open_tr[k] == tr:
                    for q in range(k, n_open - 1):
                        open_tr[q] = open_tr[q + 1]
                    n_open -= 1
                    open_tr[n_open] = -1
                    break
            if lo[t] == hi[t]:
                open_tr[n_open] = tr
                n_open += 1
            # recomputed at the next chance event: the mover's hand, the train's owner
            # (its end), everyone after a Mexican play (what plays now)
            if tr == P:
                dirty[:] = 1
            else:
                dirty[tr] = 1
            dirty[s] = 1
        elif kind == Event.pass_:
            marked[s] = 1
    return rows
