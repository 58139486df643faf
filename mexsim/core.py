"""The numba core: the rules of RULES.md compiled, playing whole matches.

It mirrors mexsim/reference.py branch for branch (docs/rules.md is the procedure);
the differential tests hold the two to identical traces. No Python objects in here:
state is a handful of fixed-shape arrays, laid out as follows (P players, T tiles,
N = max pip, W = tiles.WORDS):

    hands       uint64[P, W]   bitmask of the tiles in each seat's hand
    boneyard    int64[T]       tile numbers; sc[S_BPOS] .. sc[S_BEND] is what is left
    train_end   int64[P+1]     open end of each train; train P is the Mexican train
    train_len   int64[P+1]     tiles on each train
    marked      int64[P+1]     1 while the train carries a marker (R8)
    open_dbl    int64[P+1]     trains ending in an open double, oldest first (R13)
    sc          int64[N_SC]    scalars: boneyard window, open-double count, R15 count…
    rng         uint64[P+1, 4] xoshiro256** states: one per seat, row P shuffles
    moves       int64[M, 2]    legal moves (tile, train) in docs/rules.md order

Helpers are ``inline="always"`` so that passing arrays costs no reference counting.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from mexsim.rng import STREAM_SHUFFLE, STREAM_STRATEGY, U1, bounded, seed_state, stream_key
from mexsim.strategy_registry import GREEDY
from mexsim.tiles import WORDS

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

# scalar slots
S_BPOS = 0
S_BEND = 1
S_NOD = 2
S_COUNT = 3
S_NEV = 4
N_SC = 5

# which trains a move list covers
ON_OLDEST_DOUBLE = 0
ON_OWN_TRAIN = 1
ON_USABLE_TRAINS = 2

# turn outcomes
GOES_ON = 0
OUT = 1
BLOCKED = 2


@njit(cache=True, inline="always")
def _has(hands, seat, t):
    return (hands[seat, t >> 6] >> np.uint64(t & 63)) & U1


@njit(cache=True, inline="always")
def _flip(hands, seat, t):
    hands[seat, t >> 6] ^= U1 << np.uint64(t & 63)


@njit(cache=True, inline="always")
def _hand_empty(hands, seat):
    for w in range(WORDS):
        if hands[seat, w]:
            return False
    return True


@njit(cache=True, inline="always")
def _add_moves(hands, seat, number_mask, end, train, moves, n):
    for w in range(WORDS):
        m = hands[seat, w] & number_mask[end, w]
        while m:
            moves[n, 0] = (w << 6) + trailing_zeros(m)
            moves[n, 1] = train
            n += 1
            m &= m - U1
    return n


@njit(cache=True, inline="always")
def _gen_moves(which, seat, P, hands, number_mask, train_end, marked, open_dbl, moves):
    """Legal moves in docs/rules.md order: own, Mexican, then marked trains clockwise."""
    if which == ON_OLDEST_DOUBLE:  # R13: oldest open double first
        t = open_dbl[0]
        return _add_moves(hands, seat, number_mask, train_end[t], t, moves, 0)
    n = _add_moves(hands, seat, number_mask, train_end[seat], seat, moves, 0)
    if which == ON_OWN_TRAIN:  # R11: first turn on the own train only
        return n
    n = _add_moves(hands, seat, number_mask, train_end[P], P, moves, n)  # R7
    for k in range(1, P):
        t = (seat + k) % P
        if marked[t]:  # R7: another player's train only while marked
            n = _add_moves(hands, seat, number_mask, train_end[t], t, moves, n)
    return n


@njit(cache=True, inline="always")
def _record(ev, sc, record, kind, rnd, seat, tile, extra):
    if record:
        i = sc[S_NEV]
        ev[i, 0] = kind
        ev[i, 1] = rnd
        ev[i, 2] = seat
        ev[i, 3] = tile
        ev[i, 4] = extra
        sc[S_NEV] = i + 1


@njit(cache=True, inline="always")
def _draw(seat, rnd, hands, boneyard, sc, draws, ev, record):
    """R10: take the next boneyard tile; -1 when the boneyard is empty."""
    if sc[S_BPOS] == sc[S_BEND]:
        return -1
    t = boneyard[sc[S_BPOS]]
    sc[S_BPOS] += 1
    _flip(hands, seat, t)
    draws[seat] += 1
    _record(ev, sc, record, EV_DRAW, rnd, seat, t, 0)
    return t


@njit(cache=True, inline="always")
def _choose(code, rng, seat, n, moves):
    """Built-in strategies; the plug-in interface will replace this dispatch."""
    if code == GREEDY:  # heaviest tile = lowest number; ties: earliest move
        best = 0
        for i in range(1, n):
            if moves[i, 0] < moves[best, 0]:
                best = i
        return best
    return bounded(rng, seat, n)


@njit(cache=True, inline="always")
def _play(seat, i, rnd, P, lo, hi, hands, moves, train_end, train_len, marked, open_dbl,
          sc, played, ev, record):
    """Lay moves[i]; returns the tile."""
    t = moves[i, 0]
    train = moves[i, 1]
    train_end[train] = hi[t] if lo[t] == train_end[train] else lo[t]
    train_len[train] += 1
    _flip(hands, seat, t)
    if train == seat:
        marked[seat] = 0  # R8: the owner's play removes the marker
    nod = sc[S_NOD]
    for k in range(nod):  # R13: a tile on an open double satisfies it
        if open_dbl[k] == train:
            for j in range(k, nod - 1):
                open_dbl[j] = open_dbl[j + 1]
            nod -= 1
            break
    if lo[t] == hi[t]:  # R12: a double stays open until covered
        open_dbl[nod] = train
        nod += 1
    sc[S_NOD] = nod
    sc[S_COUNT] = 0  # R15: a play resets the count
    played[seat] += 1
    _record(ev, sc, record, EV_PLAY, rnd, seat, t, train)
    return t


@njit(cache=True, inline="always")
def _pass(seat, rnd, P, marked, sc, ev, record):
    """R8/R10: pass and mark; returns BLOCKED when R15 ends the round."""
    _record(ev, sc, record, EV_PASS, rnd, seat, -1, 0)
    if marked[seat] == 0:
        marked[seat] = 1
        sc[S_COUNT] = 1  # R15: a new marker restarts the count
    else:
        sc[S_COUNT] += 1
    if sc[S_BPOS] == sc[S_BEND] and sc[S_COUNT] >= P:
        return BLOCKED
    return GOES_ON


@njit(cache=True)
def play_round(rnd, P, N, H, first_turn_train, set_aside, draw_to_start, double_blank_points,
               codes, lo, hi, pips, number_mask, rng, hands, boneyard, train_end, train_len,
               marked, open_dbl, had_turn, played, draws, moves, sc, res, ev, record):
    """Deal and play round ``rnd`` (R3–R16); fills res[rnd, seat, F_*]."""
    T = lo.shape[0]
    engine = N - rnd  # R4
    engine_tile = T - 1
    for t in range(T):
        if lo[t] == engine and hi[t] == engine:
            engine_tile = t
    # R3/R5: shuffle (engine set aside or not) and deal
    n = 0
    for t in range(T):
        if not (set_aside and t == engine_tile):
            boneyard[n] = t
            n += 1
    for i in range(n - 1, 0, -1):  # Fisher–Yates
        j = bounded(rng, P, i + 1)
        tmp = boneyard[i]
        boneyard[i] = boneyard[j]
        boneyard[j] = tmp
    hands[:, :] = 0
    for s in range(P):
        for k in range(H):
            _flip(hands, s, boneyard[s * H + k])
    sc[S_BPOS] = P * H
    sc[S_BEND] = n
    sc[S_NOD] = 0
    sc[S_COUNT] = 0
    if record:
        for s in range(P):
            for t in range(T):
                if _has(hands, s, t):
                    _record(ev, sc, record, EV_DEAL_HAND, rnd, s, t, 0)
        for k in range(sc[S_BPOS], sc[S_BEND]):
            _record(ev, sc, record, EV_DEAL_BONEYARD, rnd, -1, boneyard[k], 0)
    for s in range(P + 1):
        train_end[s] = engine
        train_len[s] = 0
        marked[s] = 0
    for s in range(P):
        had_turn[s] = 0
        played[s] = 0
        draws[s] = 0

    # R5: the engine and the first player
    if set_aside:
        seat = rnd % P
    else:
        seat = -1
        for s in range(P):
            if _has(hands, s, engine_tile):
                seat = s
                break
        if seat < 0:
            seat = rnd % P
            while _draw(seat, rnd, hands, boneyard, sc, draws, ev, record) != engine_tile:
                seat = (seat + 1) % P
        _flip(hands, seat, engine_tile)
    _record(ev, sc, record, EV_ENGINE, rnd, seat, -1, 0)

    outcome = GOES_ON
    while True:
        code = codes[seat]
        first = had_turn[seat] == 0
        had_turn[seat] = 1
        if sc[S_NOD] > 0:
            # R13: a duty turn — the oldest open double, one draw at most
            nm = _gen_moves(ON_OLDEST_DOUBLE, seat, P, hands, number_mask, train_end, marked,
                            open_dbl, moves)
            if nm == 0 and _draw(seat, rnd, hands, boneyard, sc, draws, ev, record) >= 0:
                nm = _gen_moves(ON_OLDEST_DOUBLE, seat, P, hands, number_mask, train_end,
                                marked, open_dbl, moves)
            if nm == 0:
                outcome = _pass(seat, rnd, P, marked, sc, ev, record)
            else:
                i = _choose(code, rng, seat, nm, moves)
                _play(seat, i, rnd, P, lo, hi, hands, moves, train_end, train_len, marked,
                      open_dbl, sc, played, ev, record)
                if _hand_empty(hands, seat):
                    outcome = OUT  # R14
        else:
            # R11 "train" chain, or an ordinary turn (R9/R10/R12)
            chain = first and first_turn_train
            which = ON_OWN_TRAIN if first else ON_USABLE_TRAINS
            laid = False
            last_double = False
            while True:
                nm = _gen_moves(which, seat, P, hands, number_mask, train_end, marked,
                                open_dbl, moves)
                if nm == 0:
                    if chain and laid and not last_double:
                        break  # R11: the chain stops; no draw, no marker
                    keep = draw_to_start and train_len[seat] == 0  # R11 draw_to_start
                    while _draw(seat, rnd, hands, boneyard, sc, draws, ev, record) >= 0:
                        nm = _gen_moves(which, seat, P, hands, number_mask, train_end, marked,
                                        open_dbl, moves)
                        if nm > 0 or not keep:
                            break
                    if nm == 0:
                        outcome = _pass(seat, rnd, P, marked, sc, ev, record)
                        break
                i = _choose(code, rng, seat, nm, moves)
                t = _play(seat, i, rnd, P, lo, hi, hands, moves, train_end, train_len, marked,
                          open_dbl, sc, played, ev, record)
                if _hand_empty(hands, seat):
                    outcome = OUT  # R14
                    break
                laid = True
                last_double = lo[t] == hi[t]
                if not chain and not last_double:
                    break  # R12: a non-double ends the turn
        if outcome != GOES_ON:
            break
        seat = (seat + 1) % P  # R2: clockwise

    # R16: penalties
    for s in range(P):
        pen = 0
        left = 0
        for t in range(T):
            if _has(hands, s, t):
                left += 1
                pen += double_blank_points if (lo[t] == 0 and hi[t] == 0) else pips[t]
        res[rnd, s, F_PENALTY] = pen
        res[rnd, s, F_TILES_LEFT] = left
        res[rnd, s, F_WENT_OUT] = 1 if (outcome == OUT and s == seat) else 0
        res[rnd, s, F_BLOCKED] = 1 if outcome == BLOCKED else 0
        res[rnd, s, F_TILES_PLAYED] = played[s]
        res[rnd, s, F_DRAWS] = draws[s]
    _record(ev, sc, record, EV_ROUND_END, rnd, -1, -1,
            REASON_BLOCKED if outcome == BLOCKED else REASON_OUT)


@njit(cache=True)
def play_match(seed, match, P, N, H, first_turn_train, set_aside, draw_to_start,
               double_blank_points, codes, lo, hi, pips, number_mask, res, ev, record):
    """Play match ``match`` (R4: N+1 rounds) into res[round, seat, F_*]; returns events."""
    T = lo.shape[0]
    rng = np.empty((P + 1, 4), dtype=np.uint64)
    for s in range(P):
        seed_state(rng, s, stream_key(seed, match, STREAM_STRATEGY, s))
    hands = np.zeros((P, WORDS), dtype=np.uint64)
    boneyard = np.empty(T, dtype=np.int64)
    train_end = np.empty(P + 1, dtype=np.int64)
    train_len = np.empty(P + 1, dtype=np.int64)
    marked = np.empty(P + 1, dtype=np.int64)
    open_dbl = np.empty(P + 1, dtype=np.int64)
    had_turn = np.empty(P, dtype=np.int64)
    played = np.empty(P, dtype=np.int64)
    draws = np.empty(P, dtype=np.int64)
    moves = np.empty((T * (P + 1), 2), dtype=np.int64)
    sc = np.zeros(N_SC, dtype=np.int64)
    for rnd in range(N + 1):
        seed_state(rng, P, stream_key(seed, match, STREAM_SHUFFLE, rnd))
        play_round(rnd, P, N, H, first_turn_train, set_aside, draw_to_start,
                   double_blank_points, codes, lo, hi, pips, number_mask, rng, hands, boneyard,
                   train_end, train_len, marked, open_dbl, had_turn, played, draws, moves, sc,
                   res, ev, record)
    return sc[S_NEV]


@njit(cache=True)
def play_matches(seed, first_match, n_matches, P, N, H, first_turn_train, set_aside,
                 draw_to_start, double_blank_points, codes, lo, hi, pips, number_mask, res):
    """Play matches first_match … first_match+n-1 into res[k, round, seat, F_*]."""
    ev = np.empty((1, EV_FIELDS), dtype=np.int64)
    for k in range(n_matches):
        play_match(seed, first_match + k, P, N, H, first_turn_train, set_aside, draw_to_start,
                   double_blank_points, codes, lo, hi, pips, number_mask, res[k], ev, False)
