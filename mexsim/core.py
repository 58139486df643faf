"""The numba core: the rules of RULES.md compiled, playing whole matches.

It mirrors mexsim/reference.py branch for branch (docs/rules.md is the procedure);
the differential tests hold the two to identical traces. No Python objects in here:
state is a handful of fixed-shape arrays, laid out as follows (P players, T tiles,
N = max pip, W = words per hand: 2 up to double-14, 3 for double-15):

    hands       uint64[P, W]   bitmask of the tiles in each seat's hand
    boneyard    int64[T]       tile numbers; sc[S_BPOS] .. sc[S_BEND] is what is left
    train_end   int64[P+1]     open end of each train; train P is the Mexican train
    train_len   int64[P+1]     tiles on each train
    marked      int64[P+1]     1 while the train carries a marker (R8)
    open_dbl    int64[P+1]     trains ending in an open double, oldest first (R13)
    sc          int64[N_SC]    scalars: boneyard window, open-double count, R15 count…
    rng         uint64[P, 4]   xoshiro256** state of each seat's strategy stream
    move_tile   int64[M]       legal moves (tile, train) in docs/rules.md order,
    move_train  int64[M]       M = T·(P+1) at most
    scan        int64[P+1]     the trains a move list covers, in that order

The turn loop is written out in one function on purpose: helpers that take arrays pay
atomic reference counting on every call (measured: two thirds of the run time), so the
only helpers here take and return plain numbers.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from mexsim.rng import (
    STREAM_SHUFFLE,
    STREAM_STRATEGY,
    U1,
    seed_words,
    stream_key,
    xoshiro_bounded,
)
from mexsim.strategy_registry import GREEDY

# event rows: (kind, round, seat, tile, train-or-reason)
EV_DEAL_HAND = 0
EV_DEAL_BONEYARD = 1
EV_ENGINE = 2
EV_DRAW = 3
EV_PLAY = 4
EV_PASS = 5
EV_ROUND_END = 6
EV_FIELDS = 5
REASON_OUT = 0
REASON_BLOCKED = 1

# per round and seat result fields (the rounds.parquet columns)
F_PENALTY = 0
F_TILES_LEFT = 1
F_WENT_OUT = 2
F_BLOCKED = 3
F_TILES_PLAYED = 4
F_DRAWS = 5
N_FIELDS = 6

# which trains a move list covers
ON_OLDEST_DOUBLE = 0
ON_OWN_TRAIN = 1
ON_USABLE_TRAINS = 2

# turn outcomes
GOES_ON = 0
OUT = 1
BLOCKED = 2



@njit(cache=True)
def _bit(t):
    return U1 << np.uint64(t & 63)


@njit(cache=True)
def engine_tile_of(rnd, N, lo, hi):
    """The tile number of round rnd's engine double (N-rnd)|(N-rnd) (R4)."""
    engine = N - rnd
    for t in range(lo.shape[0]):
        if lo[t] == engine and hi[t] == engine:
            return t
    return -1


@njit(cache=True)
def shuffle_deal(seed, match, rnd, N, set_aside, lo, hi, order):
    """R3/R5: the tiles (without the engine under set_aside), Fisher–Yates shuffled into
    order[:n]; returns n. Seats take H tiles each from the front, the rest is the boneyard."""
    engine_tile = engine_tile_of(rnd, N, lo, hi)
    n = 0
    for t in range(lo.shape[0]):
        if not (set_aside and t == engine_tile):
            order[n] = t
            n += 1
    r0, r1, r2, r3 = seed_words(stream_key(seed, match, STREAM_SHUFFLE, rnd))
    for i in range(n - 1, 0, -1):
        j, r0, r1, r2, r3 = xoshiro_bounded(i + 1, r0, r1, r2, r3)
        tmp = order[i]
        order[i] = order[j]
        order[j] = tmp
    return n


@njit(cache=True, error_model="numpy")
def play_round(rnd, n, P, N, H, first_turn_train, set_aside, draw_to_start,
               double_blank_points, codes, lo, hi, pips, number_mask, rng, hands, boneyard,
               train_end, train_len, marked, open_dbl, had_turn, played, draws, move_tile,
               move_train, scan, res, ev, n_ev, record):
    """Play round ``rnd`` dealt as boneyard[:n] (see shuffle_deal) into res[rnd, seat, F_*];
    returns n_ev, the event rows written so far."""
    T = lo.shape[0]
    W = number_mask.shape[1]
    engine = N - rnd  # R4
    engine_tile = engine_tile_of(rnd, N, lo, hi)
    hands[:, :] = 0
    for s in range(P):
        for k in range(s * H, s * H + H):
            hands[s, boneyard[k] >> 6] |= _bit(boneyard[k])
    bpos = P * H  # the boneyard is boneyard[bpos:n], drawn from the front
    if record:
        for s in range(P):
            for t in range(T):
                if hands[s, t >> 6] & _bit(t):
                    ev[n_ev] = (EV_DEAL_HAND, rnd, s, t, 0)
                    n_ev += 1
        for k in range(bpos, n):
            ev[n_ev] = (EV_DEAL_BONEYARD, rnd, -1, boneyard[k], 0)
            n_ev += 1
    train_end[:] = engine
    train_len[:] = 0
    marked[:] = 0
    had_turn[:] = 0
    played[:] = 0
    draws[:] = 0
    n_open = 0  # open doubles in open_dbl[:n_open]
    count = 0  # R15

    # R5: the engine and the first player
    if set_aside:
        seat = rnd % P
    else:
        seat = -1
        for s in range(P):
            if hands[s, engine_tile >> 6] & _bit(engine_tile):
                seat = s
        if seat < 0:  # nobody holds it: draw clockwise until it turns up
            seat = rnd % P
            while True:
                t = boneyard[bpos]
                bpos += 1
                hands[seat, t >> 6] |= _bit(t)
                draws[seat] += 1
                if record:
                    ev[n_ev] = (EV_DRAW, rnd, seat, t, 0)
                    n_ev += 1
                if t == engine_tile:
                    break
                seat = seat + 1 if seat + 1 < P else 0
        hands[seat, engine_tile >> 6] ^= _bit(engine_tile)
    if record:
        ev[n_ev] = (EV_ENGINE, rnd, seat, -1, 0)
        n_ev += 1

    outcome = GOES_ON
    while True:
        # --- one turn of `seat` (docs/rules.md, "A turn")
        first = had_turn[seat] == 0
        had_turn[seat] = 1
        duty = n_open > 0  # R13: the oldest open double must be served
        if duty:
            which = ON_OLDEST_DOUBLE
        elif first:
            which = ON_OWN_TRAIN  # R11: first turn on the own train only
        else:
            which = ON_USABLE_TRAINS
        chain = first and first_turn_train and not duty  # R11 "train"
        laid = False
        last_double = False
        drawn = 0  # draws made for the current obligation to play
        while True:
            # legal moves: own, Mexican, then marked trains clockwise (docs/rules.md)
            n_scan = 1
            if which == ON_OLDEST_DOUBLE:
                scan[0] = open_dbl[0]
            else:
                scan[0] = seat
                if which == ON_USABLE_TRAINS:
                    scan[1] = P  # R7: the Mexican train
                    n_scan = 2
                    tr = seat
                    for _ in range(P - 1):
                        tr = tr + 1 if tr + 1 < P else 0
                        if marked[tr]:  # R7: another train only while it carries a marker
                            scan[n_scan] = tr
                            n_scan += 1
            nm = 0
            for i in range(n_scan):
                tr = scan[i]
                end = train_end[tr]
                for w in range(W):
                    m = hands[seat, w] & number_mask[end, w]
                    while m:
                        move_tile[nm] = (w << 6) + trailing_zeros(m)
                        move_train[nm] = tr
                        nm += 1
                        m &= m - U1

            if nm == 0:
                if chain and laid and not last_double:
                    break  # R11: the chain stops; no draw, no marker
                keep = draw_to_start and not duty and train_len[seat] == 0  # R11
                if bpos < n and (drawn == 0 or keep):
                    t = boneyard[bpos]  # R10: draw one tile and look again
                    bpos += 1
                    hands[seat, t >> 6] |= _bit(t)
                    draws[seat] += 1
                    drawn += 1
                    if record:
                        ev[n_ev] = (EV_DRAW, rnd, seat, t, 0)
                        n_ev += 1
                    continue
                # R8/R10: pass and mark the own train
                if record:
                    ev[n_ev] = (EV_PASS, rnd, seat, -1, 0)
                    n_ev += 1
                if marked[seat] == 0:
                    marked[seat] = 1
                    count = 1  # R15: a new marker restarts the count
                else:
                    count += 1
                if bpos == n and count >= P:
                    outcome = BLOCKED  # R15
                break

            # the strategy chooses; built-in dispatch until the plug-in interface lands
            if codes[seat] == GREEDY:  # heaviest tile = lowest number; ties: earliest
                i = 0
                for k in range(1, nm):
                    if move_tile[k] < move_tile[i]:
                        i = k
            else:
                i, a0, a1, a2, a3 = xoshiro_bounded(nm, rng[seat, 0], rng[seat, 1],
                                                    rng[seat, 2], rng[seat, 3])
                rng[seat, 0] = a0
                rng[seat, 1] = a1
                rng[seat, 2] = a2
                rng[seat, 3] = a3

            t = move_tile[i]
            tr = move_train[i]
            train_end[tr] = hi[t] if lo[t] == train_end[tr] else lo[t]
            train_len[tr] += 1
            hands[seat, t >> 6] ^= _bit(t)
            if tr == seat:
                marked[seat] = 0  # R8: the owner's play removes the marker
            for k in range(n_open):  # R13: a tile on an open double satisfies it
                if open_dbl[k] == tr:
                    for j in range(k, n_open - 1):
                        open_dbl[j] = open_dbl[j + 1]
                    n_open -= 1
                    break
            is_double = lo[t] == hi[t]
            if is_double:
                open_dbl[n_open] = tr  # R12: a double stays open until covered
                n_open += 1
            count = 0  # R15: a play resets the count
            played[seat] += 1
            drawn = 0
            if record:
                ev[n_ev] = (EV_PLAY, rnd, seat, t, tr)
                n_ev += 1
            empty = True
            for w in range(W):
                if hands[seat, w]:
                    empty = False
            if empty:
                outcome = OUT  # R14: going out ends the round at once
                break
            laid = True
            last_double = is_double
            if duty or (not chain and not is_double):
                break  # R13: serving a double ends the turn; R12: so does a non-double
        if outcome != GOES_ON:
            break
        seat = seat + 1 if seat + 1 < P else 0  # R2: clockwise

    # R16: penalties, 0|0 (tile T-1) at double_blank_points
    for s in range(P):
        pen = 0
        left = 0
        for w in range(W):
            m = hands[s, w]
            while m:
                t = (w << 6) + trailing_zeros(m)
                m &= m - U1
                left += 1
                pen += double_blank_points if t == T - 1 else pips[t]
        res[rnd, s, F_PENALTY] = pen
        res[rnd, s, F_TILES_LEFT] = left
        res[rnd, s, F_WENT_OUT] = 1 if (outcome == OUT and s == seat) else 0
        res[rnd, s, F_BLOCKED] = 1 if outcome == BLOCKED else 0
        res[rnd, s, F_TILES_PLAYED] = played[s]
        res[rnd, s, F_DRAWS] = draws[s]
    if record:
        ev[n_ev] = (EV_ROUND_END, rnd, -1, -1,
                    REASON_BLOCKED if outcome == BLOCKED else REASON_OUT)
        n_ev += 1
    return n_ev


@njit(cache=True)
def play_match(seed, match, P, N, H, first_turn_train, set_aside, draw_to_start,
               double_blank_points, codes, lo, hi, pips, number_mask, res, ev, record):
    """Play match ``match`` (R4: N+1 rounds) into res[round, seat, F_*]; returns n_ev."""
    T = lo.shape[0]
    rng = np.empty((P, 4), dtype=np.uint64)
    for s in range(P):
        rng[s, 0], rng[s, 1], rng[s, 2], rng[s, 3] = seed_words(
            stream_key(seed, match, STREAM_STRATEGY, s))
    hands = np.zeros((P, number_mask.shape[1]), dtype=np.uint64)
    boneyard = np.empty(T, dtype=np.int64)
    train_end = np.empty(P + 1, dtype=np.int64)
    train_len = np.empty(P + 1, dtype=np.int64)
    marked = np.empty(P + 1, dtype=np.int64)
    open_dbl = np.empty(P + 1, dtype=np.int64)
    had_turn = np.empty(P, dtype=np.int64)
    played = np.empty(P, dtype=np.int64)
    draws = np.empty(P, dtype=np.int64)
    move_tile = np.empty(T * (P + 1), dtype=np.int64)
    move_train = np.empty(T * (P + 1), dtype=np.int64)
    scan = np.empty(P + 1, dtype=np.int64)
    n_ev = 0
    for rnd in range(N + 1):
        n = shuffle_deal(seed, match, rnd, N, set_aside, lo, hi, boneyard)
        n_ev = play_round(rnd, n, P, N, H, first_turn_train, set_aside,
                          draw_to_start, double_blank_points, codes, lo, hi, pips, number_mask,
                          rng, hands, boneyard, train_end, train_len, marked, open_dbl,
                          had_turn, played, draws, move_tile, move_train, scan, res, ev,
                          n_ev, record)
    return n_ev


@njit(cache=True)
def play_matches(seed, first_match, n_matches, P, N, H, first_turn_train, set_aside,
                 draw_to_start, double_blank_points, codes, lo, hi, pips, number_mask, res):
    """Play matches first_match … first_match+n-1 into res[k, round, seat, F_*]."""
    ev = np.empty((1, EV_FIELDS), dtype=np.int64)
    for k in range(n_matches):
        play_match(seed, first_match + k, P, N, H, first_turn_train, set_aside, draw_to_start,
                   double_blank_points, codes, lo, hi, pips, number_mask, res[k], ev, False)


@njit(cache=True)
def play_dealt_round(seed, match, rnd, order, n, T, P, N, H, first_turn_train, set_aside,
                     draw_to_start, double_blank_points, codes, lo, hi, pips, number_mask,
                     res, ev):
    """Play one round from a given deal (order[:n], as shuffle_deal lays it out), with
    events recorded: the entry point of the hand-built scenario tests."""
    rng = np.empty((P, 4), dtype=np.uint64)
    for s in range(P):
        rng[s, 0], rng[s, 1], rng[s, 2], rng[s, 3] = seed_words(
            stream_key(seed, match, STREAM_STRATEGY, s))
    boneyard = np.empty(T, dtype=np.int64)
    boneyard[:n] = order[:n]
    return play_round(rnd, n, P, N, H, first_turn_train, set_aside, draw_to_start,
                      double_blank_points, codes, lo, hi, pips, number_mask, rng,
                      np.zeros((P, number_mask.shape[1]), dtype=np.uint64), boneyard,
                      np.empty(P + 1, dtype=np.int64), np.empty(P + 1, dtype=np.int64),
                      np.empty(P + 1, dtype=np.int64), np.empty(P + 1, dtype=np.int64),
                      np.empty(P, dtype=np.int64), np.empty(P, dtype=np.int64),
                      np.empty(P, dtype=np.int64), np.empty(T * (P + 1), dtype=np.int64),
                      np.empty(T * (P + 1), dtype=np.int64), np.empty(P + 1, dtype=np.int64),
                      res, ev, 0, True)
