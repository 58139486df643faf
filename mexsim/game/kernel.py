"""The numba core: the rules of docs/rules.md compiled, playing whole matches.

It mirrors mexsim/game/reference.py branch for branch (docs/rules.md is the procedure);
the differential tests hold the two to identical traces. No Python objects in here:
state is a handful of fixed-shape arrays (P players, T tiles, N = max pip, W = words
per hand: 2 up to double-14, 3 for double-15):

    view        int64[view.SIZE]  the public table, as strategies see it (mexsim/game/view.py):
                                  train ends, lengths, markers, open doubles (R13, oldest
                                  first), hand sizes, scores, and the legal moves in
                                  docs/rules.md order
    boneyard    int64[T]          the deal's order; boneyard[bpos:n] is still to draw
    rng         uint64[P, 4]      xoshiro256** state of each seat's strategy stream
    st          int64[view.SIZE + PRIVATE_SIZE]  the private table: the view's public part
                                  as the rules have it (every change is written to both;
                                  the view is restored from it after each strategy call),
                                  the moves as listed, and what only the core sees: the
                                  hands, per-seat counters, per-train masks
                                  (mexsim/game/private_table.py)

Strategies are plug-ins (mexsim/strategy/registry.py): a tuple of first-class functions
``decide(view, params) -> move index``, one per distinct strategy of the run, padded to
rules.MAX_STRATEGIES so that the kernels compile once whatever the table; each seat's
entry of ``seats.func`` picks its function. One slot more holds longest_train as the
kernel plays it, on its private table (mexsim/game/kernel_longest_train.py). Which
player sits where, and which deal a match replays (duplicate deals), come in as
arrays (mexsim/tournament/schedule.py decides them). The other arguments travel in the
named tuples of mexsim/game/contexts.py (the rules as numbers, the tile tables, the
players' arrays, the scratch arrays above, the outputs); the integer codes are
mexsim/game/enums.py's.

The rounds and their turn loop are written out in one function on purpose: helpers
that take arrays pay atomic reference counting on every call (measured: two thirds of
the run time; a call with the bundles below counts ~25 arrays in and out), so the only
helpers called in the loop take and return plain numbers; a block of matches shares
one set of working arrays. Where a turn's time goes, measured, is docs/speed-history.md.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mexsim.game.contexts import Outputs, PlayerArrays, RoundScratch
from mexsim.game.enums import (
    N_EVENT_FIELDS,
    Calling,
    Dispatch,
    Event,
    EventField,
    Field,
    Outcome,
    Reason,
    Scope,
    Status,
)
from mexsim.game.kernel_early_doubles import early_doubles_choice
from mexsim.game.kernel_longest_train import LONGEST_TRAIN_SLOT
from mexsim.game.kernel_view import fill_static_view, restore_fixed_view, show_public_table
from mexsim.game.private_table import (
    DRAWS,
    FIT,
    FIXED_WRITTEN_BY,
    HANDS,
    HI_COPY,
    HISTORY_HELD,
    HISTORY_SHOWN,
    LO_COPY,
    LT_NOTES,
    LT_NOTES_PER_SEAT,
    MOVES_SHOWN,
    NOTES_SHOWN,
    NUMBER_COPY,
    PARAMS_SHOWN,
    PASSES,
    PIPS_COPY,
    PLAYED,
    PRIVATE_SIZE,
    TABLE_SHOWN,
    TURNS,
)
from mexsim.game.rng import (
    STREAM_SHUFFLE,
    U1,
    seed_words,
    strategy_key,
    stream_key,
    xoshiro_bounded,
)
from mexsim.game.view import (
    BONEYARD,
    DUTY,
    ENGINE,
    EXPLAINING,
    FIRST_MOVER,
    FIRST_TURN,
    H_DRAW,
    H_ENGINE,
    H_MARK,
    H_PASS,
    H_PLAY,
    HAND,
    HAND_SIZE,
    HISTORY,
    HISTORY_LEN,
    LAID_THIS_TURN,
    MATCH,
    MAX_MEMORY,
    MAX_NUMBERS,
    MAX_PARAMS,
    MAX_TILES,
    MAX_TRAINS,
    MAX_WORDS,
    MOVE_TILE,
    MOVE_TRAIN,
    N_MOVES,
    N_OPEN,
    NOTES,
    NUMBER_MASK,
    OPEN_DOUBLES,
    PASS_COUNT,
    RNG,
    ROUND,
    SCORE,
    SEAT,
    SEAT_PASSES,
    SEAT_STARTED,
    SIZE,
    TABLE_TILES,
    TILE_HI,
    TILE_LO,
    TILE_PIPS,
    TRAIN_END,
    TRAIN_LEN,
    TRAIN_MARKED,
    TRAIN_TILES,
)
from mexsim.jit.bits import trailing_zeros

# Unsigned indices where the turn loop is hottest: numba tests a signed index for a
# negative value (Python's wraparound) on every access; an unsigned one it cannot be
# (docs/speed-history.md: ~5 % on 4 x greedy). Offsets are uint64 too: uint64 + int64 is a
# float in numba.
UMOVE_TILE = np.uint64(MOVE_TILE)
UMOVE_TRAIN = np.uint64(MOVE_TRAIN)
UTRAIN_END = np.uint64(TRAIN_END)
UTRAIN_LEN = np.uint64(TRAIN_LEN)
UTRAIN_MARKED = np.uint64(TRAIN_MARKED)
UHAND_SIZE = np.uint64(HAND_SIZE)
UPLAYED = np.uint64(PLAYED)
UTURNS = np.uint64(TURNS)
UPASSES = np.uint64(PASSES)
UDRAWS = np.uint64(DRAWS)
UFIT = np.uint64(FIT)
UHANDS = np.uint64(HANDS)
UHISTORY = np.uint64(HISTORY)
UTRAIN_TILES = np.uint64(TRAIN_TILES)
UTABLE_TILES = np.uint64(TABLE_TILES)
USEAT_PASSES = np.uint64(SEAT_PASSES)
U2 = np.uint64(2)
U4 = np.uint64(4)
U6 = np.uint64(6)
U15 = np.uint64(15)
UWORDS = np.uint64(MAX_WORDS)


@njit(cache=True)
def _sbit(t):
    """Tile t's bit in its word of a hand, as the int64 bit pattern st holds."""
    return np.int64(U1 << np.uint64(t & 63))


# one signature: called with literal arguments (0, -1), numba would compile a twin of
# it for each combination (seven, 1.4 CPU-s)
@njit("int64(int64[:, :], int64, int64, int64, int64, int64, int64)", cache=True)
def _event(ev, n, kind, rnd, seat, tile, extra):
    """Write event row n of a trace; returns n + 1.

    Element by element, and never as a slice or a tuple assigned to the row: numba
    compiles those with a shape check whose error message (formatting the shapes as
    text) took ~10 of the engine's 31 CPU-s of a cold compile (docs/speed-history.md, cold
    start). The same holds for every array copy in this file."""
    ev[n, EventField.kind] = kind
    ev[n, EventField.round] = rnd
    ev[n, EventField.seat] = seat
    ev[n, EventField.tile] = tile
    ev[n, EventField.extra] = extra
    return n + 1


@njit(inline="always")
def _entry(kind, seat, tile, train):
    """A public event as the view's history holds it (mexsim/game/view.py)."""
    return kind | (seat << 4) | ((tile + 1) << 8) | ((train + 1) << 16)


@njit(inline="always")
def _list_word(st, m, base, tr, nm):
    """List the moves of one word of fitting tiles (``m``, tiles ``base`` + bit) on train
    ``tr`` into the private table after the nm already listed, heaviest first; returns
    the new count.

    Inlined into the turn loop by numba before optimisation, so it takes the arrays
    without a call or reference counting (docs/speed-history.md, third pass: within the noise
    of the loop written out once per word, which it replaced)."""
    while m:
        t = base + np.int64(trailing_zeros(m))
        u = np.uint64(nm)
        st[UMOVE_TILE + u] = t
        st[UMOVE_TRAIN + u] = tr
        nm += 1
        m &= m - U1
    return nm


@njit(cache=True)
def engine_tile_of(rnd, N, lo, hi):
    """The tile number of round rnd's engine double (N-rnd)|(N-rnd) (R4)."""
    engine = N - rnd
    for t in range(lo.shape[0]):
        if lo[t] == engine and hi[t] == engine:
            return t
    return -1


@njit(cache=True)
def start_match(match, rules, seats, tiles, scratch, view):
    """Make the scratch arrays and the view those of a new match: the view's static
    part (also copied into the private table, so that st[:HAND] is laid out as the
    view's public part), scores and notes at zero, nothing shown yet."""
    P = rules.players
    lo, hi, pips, number_mask = tiles
    st = scratch.st
    fill_static_view(view, match, rules, lo, hi, pips, number_mask)
    for i in range(HAND):  # a loop, not a slice copy: see _event
        st[i] = view[i]
    # the tile tables that the built-ins the kernel plays read in the private table, and
    # longest_train's notes there (mexsim/game/private_table.py)
    for t in range(MAX_TILES):
        st[LO_COPY + t] = view[TILE_LO + t]
        st[HI_COPY + t] = view[TILE_HI + t]
        st[PIPS_COPY + t] = view[TILE_PIPS + t]
    for k in range(MAX_NUMBERS * MAX_WORDS):
        st[NUMBER_COPY + k] = view[NUMBER_MASK + k]
    for k in range(LT_NOTES, LT_NOTES + P * LT_NOTES_PER_SEAT):  # the seats at the table
        st[k] = 0
    st[MOVES_SHOWN] = 0  # the view was cleared: nothing shown is left to clear
    st[PARAMS_SHOWN] = 0
    st[NOTES_SHOWN] = 0
    st[FIXED_WRITTEN_BY] = -1
    # the public table as a decision last showed it, if one did: cleared (a match of
    # the built-ins the kernel plays shows none, and pays nothing for it)
    if st[TABLE_SHOWN] != 0:
        for k in range(TRAIN_TILES, SIZE):
            view[k] = 0
        st[TABLE_SHOWN] = 0
    st[HISTORY_HELD] = 0  # (HISTORY_SHOWN is each round's to reset)
    scratch.pbuf[:] = 0.0
    for s in range(P):
        for k in range(seats.n_memory[s]):
            scratch.memory[s, k] = 0


@njit(cache=True, error_model="numpy")
def play_rounds(
    seed, deal, rnd0, rnd1, dealt, rules, funcs, seats, tiles, scratch, out, n_ev, record, dispatch
):
    """Play rounds rnd0 .. rnd1-1 of a match into out.res[rnd, seat, Field.*]; returns
    n_ev, the event rows written so far (-1 when a strategy failed: see out.status).

    Each round is dealt by R3/R5's shuffle of (seed, deal, round) into scratch.boneyard,
    unless ``dealt`` >= 0: then scratch.boneyard[:dealt] is the deal (hands first, as
    the shuffle lays it out). The rounds run in one call, not one call a round: a call
    that takes the bundles of mexsim/game/contexts.py pays two atomic reference counts
    for each of their ~25 arrays."""
    (
        P,
        N,
        H,
        first_turn_train,
        set_aside,
        draw_to_start,
        double_blank_points,
        draw_limit,
        mexican_train,
    ) = rules
    seat_func, params, n_params, n_memory, calling = seats
    lo, hi, pips, number_mask = tiles
    rng, boneyard, pbuf, memory, st = scratch
    view, res, ev, status = out
    T = lo.shape[0]
    W = MAX_WORDS
    number_bits = number_mask.ravel()  # row n at n * MAX_WORDS: a constant stride
    # whether any seat is shown the view, and so its public table (R17): a table of the
    # built-ins the kernel plays keeps none of it (~2 % of 4 x greedy's match)
    public = dispatch != Dispatch.engine_only
    if dispatch == Dispatch.explained:  # mexsim replay --moves (a fixed scalar: kept in
        st[EXPLAINING] = 1  # the private table, restored from it as the others are)
        view[EXPLAINING] = 1
    if dispatch == Dispatch.plugin:
        public = False
        for s in range(P):
            if calling[s] == Calling.user or calling[s] == Calling.builtin:
                public = True
    for rnd in range(rnd0, rnd1):
        engine = N - rnd  # R4
        engine_tile = engine_tile_of(rnd, N, lo, hi)
        if dealt >= 0:
            n = dealt
        else:
            # R3/R5: the tiles (without the engine under set_aside) Fisher-Yates
            # shuffled; seats take H tiles each from the front, the rest is the boneyard
            n = 0
            for t in range(T):
                if not (set_aside and t == engine_tile):
                    boneyard[n] = t
                    n += 1
            r0, r1, r2, r3 = seed_words(stream_key(seed, deal, STREAM_SHUFFLE, rnd))
            for i in range(n - 1, 0, -1):
                j, r0, r1, r2, r3 = xoshiro_bounded(i + 1, r0, r1, r2, r3)
                tmp = boneyard[i]
                boneyard[i] = boneyard[j]
                boneyard[j] = tmp
        for s in range(P):
            for w in range(MAX_WORDS):
                st[HANDS + 4 * s + w] = 0
            for k in range(s * H, s * H + H):
                t = boneyard[k]
                st[HANDS + 4 * s + (t >> 6)] |= _sbit(t)
        bpos = P * H  # the boneyard is boneyard[bpos:n], drawn from the front
        if record:
            for s in range(P):
                for t in range(T):
                    if st[HANDS + 4 * s + (t >> 6)] & _sbit(t):
                        n_ev = _event(ev, n_ev, Event.deal_hand, rnd, s, t, 0)
            for k in range(bpos, n):
                n_ev = _event(ev, n_ev, Event.deal_boneyard, rnd, -1, boneyard[k], 0)
        st[ROUND] = rnd
        st[ENGINE] = engine
        for tr in range(MAX_TRAINS):
            st[TRAIN_END + tr] = engine
            st[TRAIN_LEN + tr] = 0
            st[TRAIN_MARKED + tr] = 0
            st[OPEN_DOUBLES + tr] = -1
        for tr in range(P + 1):  # every train starts at the engine (R6)
            for w in range(MAX_WORDS):
                st[FIT + 4 * tr + w] = np.int64(number_bits[engine * MAX_WORDS + w])
        for s in range(P):
            st[HAND_SIZE + s] = H
            st[PLAYED + s] = 0
            st[TURNS + s] = 0
            st[PASSES + s] = 0
        # the public table (R17): no tile laid, no event seen; the view's copy of the
        # last round's history is cleared when a decision next shows it
        if public:
            for k in range(TRAIN_TILES, HISTORY_LEN):
                st[k] = 0
            st[TABLE_TILES + (engine_tile >> 6)] = _sbit(engine_tile)
        else:
            for s in range(P):
                st[DRAWS + s] = 0
        st[HISTORY_SHOWN] = 0
        n_hist = 0
        fresh = (1 << P) - 1  # bit s set until seat s has had its first turn
        n_open = 0  # open doubles, st[OPEN_DOUBLES : OPEN_DOUBLES + n_open]
        marked_bits = 0  # bit s set while train s carries a marker (mirrors TRAIN_MARKED)
        all_seats = (1 << P) - 1
        count = 0  # R15

        # R5: the engine and the first player
        if set_aside:
            seat = rnd % P
        else:
            seat = -1
            for s in range(P):
                if st[HANDS + 4 * s + (engine_tile >> 6)] & _sbit(engine_tile):
                    seat = s
            if seat < 0:  # nobody holds it: draw clockwise until it turns up
                seat = rnd % P
                while True:
                    t = boneyard[bpos]
                    bpos += 1
                    st[HANDS + 4 * seat + (t >> 6)] |= _sbit(t)
                    st[DRAWS + seat] += 1
                    st[HAND_SIZE + seat] += 1
                    if public:
                        st[HISTORY + n_hist] = _entry(H_DRAW, seat, -1, -1)
                        n_hist += 1
                    if record:
                        n_ev = _event(ev, n_ev, Event.draw, rnd, seat, t, 0)
                    if t == engine_tile:
                        break
                    seat = seat + 1 if seat + 1 < P else 0
            st[HANDS + 4 * seat + (engine_tile >> 6)] ^= _sbit(engine_tile)
            st[HAND_SIZE + seat] -= 1
        first_mover = seat
        if public:
            st[HISTORY + n_hist] = _entry(H_ENGINE, seat, engine_tile, -1)
            n_hist += 1
        if record:
            n_ev = _event(ev, n_ev, Event.engine, rnd, seat, -1, 0)
        # the view's trains and seats, as the round starts; from here on every change
        # to them is written to the private table and the view alike (and a decision
        # restores the view after the strategy's call), so that a decision finds the
        # view's table already written: copying it before the call loaded words that
        # single stores had just written, which waits for them to retire
        # (docs/speed-history.md)
        for k in range(TRAIN_END, HAND):
            view[k] = st[k]

        outcome = Outcome.goes_on
        while True:
            # --- one turn of `seat` (docs/rules.md, "A turn")
            us = np.uint64(seat)  # unsigned: no wraparound test on the seat's rows
            st[UTURNS + us] += 1
            first = (fresh >> seat) & 1 == 1
            fresh &= ~(1 << seat)
            if public:
                st[SEAT_STARTED + us] = 1
            duty = n_open > 0  # R13: the oldest open double must be served
            if duty:
                which = Scope.oldest_double
            elif first:
                which = Scope.own_train  # R11: first turn on the own train only
            else:
                which = Scope.usable_trains
            chain = first and first_turn_train and not duty  # R11 "train"
            laid = 0
            last_double = False
            drawn = 0  # draws made for the current obligation to play
            # the trains a move list covers: own, Mexican, then marked trains clockwise
            # (docs/rules.md, "Move order"); fixed for the turn but for the own marker,
            # which only a play on the own train removes, and so never adds a train.
            # Packed four bits a train into one word (P <= 10: at most 11 trains), which
            # stays in a register where a list in memory cost a load a train
            n_scan = 1
            if which == Scope.oldest_double:
                scan = np.uint64(st[OPEN_DOUBLES])
            else:
                scan = us
                if which == Scope.usable_trains and mexican_train:
                    scan |= np.uint64(P) << U4  # R7: the Mexican train (R19: if any)
                    n_scan = 2
                if which == Scope.usable_trains:
                    # R7: others' trains only while marked; clockwise from the next seat
                    others = marked_bits & ~(1 << seat)
                    rot = ((others >> (seat + 1)) | (others << (P - seat - 1))) & all_seats
                    while rot:
                        tr = seat + 1 + np.int64(trailing_zeros(rot))
                        rot &= rot - 1
                        tr = tr - P if tr >= P else tr
                        scan |= np.uint64(tr) << np.uint64(4 * n_scan)
                        n_scan += 1
            new_tile = -1  # after a draw, the only tile that can have become playable
            while True:
                nm = 0
                if new_tile >= 0:
                    # nothing fitted before the draw: only the drawn tile may fit now
                    a = lo[new_tile]
                    b = hi[new_tile]
                    sw = scan
                    for _ in range(n_scan):
                        utr = sw & U15
                        sw >>= U4
                        tr = np.int64(utr)
                        e = st[UTRAIN_END + utr]
                        if a == e or b == e:
                            st[MOVE_TILE + nm] = new_tile
                            st[MOVE_TRAIN + nm] = tr
                            nm += 1
                else:
                    hand = UHANDS + (us << U2)
                    h0 = np.uint64(st[hand])
                    h1 = np.uint64(st[hand + U1])
                    h2 = np.uint64(st[hand + U2])
                    sw = scan
                    if h2 == 0:
                        # two words: the hand holds no tile beyond 127 (always so up to
                        # double-14, the default double-12 included), so the third word
                        # of each train is neither loaded nor tested
                        for _ in range(n_scan):
                            utr = sw & U15
                            sw >>= U4
                            f = UFIT + (utr << U2)
                            m0 = h0 & np.uint64(st[f])
                            m1 = h1 & np.uint64(st[f + U1])
                            if (m0 | m1) == 0:
                                continue  # the common case: nothing fits this train
                            tr = np.int64(utr)
                            nm = _list_word(st, m0, 0, tr, nm)
                            nm = _list_word(st, m1, 64, tr, nm)
                    else:
                        for _ in range(n_scan):
                            utr = sw & U15
                            sw >>= U4
                            f = UFIT + (utr << U2)
                            m0 = h0 & np.uint64(st[f])
                            m1 = h1 & np.uint64(st[f + U1])
                            m2 = h2 & np.uint64(st[f + U2])
                            if (m0 | m1 | m2) == 0:
                                continue
                            tr = np.int64(utr)
                            nm = _list_word(st, m0, 0, tr, nm)
                            nm = _list_word(st, m1, 64, tr, nm)
                            nm = _list_word(st, m2, 128, tr, nm)

                if nm == 0:
                    if chain and laid > 0 and not last_double:
                        break  # R11: the chain stops; no draw, no marker
                    keep = draw_to_start and not duty and st[UTRAIN_LEN + us] == 0  # R11
                    if bpos < n and (drawn < draw_limit or keep):
                        t = boneyard[bpos]  # R10/R18: draw a tile and look again
                        bpos += 1
                        st[UHANDS + (us << U2) + (np.uint64(t) >> U6)] |= _sbit(t)
                        st[UDRAWS + us] += 1
                        drawn += 1
                        new_tile = t
                        st[UHAND_SIZE + us] += 1
                        view[UHAND_SIZE + us] = st[UHAND_SIZE + us]
                        if public:
                            st[UHISTORY + np.uint64(n_hist)] = _entry(H_DRAW, seat, -1, -1)
                            n_hist += 1
                        if record:
                            n_ev = _event(ev, n_ev, Event.draw, rnd, seat, t, 0)
                        continue
                    # R8/R10: pass and mark the own train
                    if record:
                        n_ev = _event(ev, n_ev, Event.pass_, rnd, seat, -1, 0)
                    kind = H_PASS
                    if st[UTRAIN_MARKED + us] == 0:
                        st[UTRAIN_MARKED + us] = 1
                        view[UTRAIN_MARKED + us] = 1
                        marked_bits |= 1 << seat
                        count = 1  # R15: a new marker restarts the count
                        kind = H_MARK
                    else:
                        count += 1
                    st[UPASSES + us] += 1
                    if public:
                        st[USEAT_PASSES + us] += 1
                        st[UHISTORY + np.uint64(n_hist)] = _entry(kind, seat, -1, -1)
                        n_hist += 1
                    if bpos == n and count >= P:
                        outcome = Outcome.blocked  # R15
                    break

                # the strategy chooses (R9: which legal play is the strategy's choice); a
                # forced move is played without asking (docs/rules.md, "Move order")
                if nm == 1:
                    i = 0
                elif dispatch == Dispatch.engine_only or (
                    dispatch == Dispatch.plugin and calling[us] == Calling.greedy_in_kernel
                ):
                    # greedy's rule (mexsim/strategy/builtin/greedy.py: the heaviest tile is
                    # the lowest number, ties to the earliest move) with neither the view's
                    # fill nor the call, which cost a fifth of a match of greedy
                    # (docs/speed-history.md); Dispatch.engine_only plays it for every seat
                    i = 0
                    for k in range(1, nm):
                        if st[MOVE_TILE + k] < st[MOVE_TILE + i]:
                            i = k
                elif dispatch == Dispatch.plugin and calling[us] == Calling.random_in_kernel:
                    # random's rule (mexsim/strategy/builtin/random.py: random_below on the
                    # seat's own stream), drawn from the stream where the kernel keeps it
                    # rather than through the view and a call
                    i, r0, r1, r2, r3 = xoshiro_bounded(
                        nm, rng[us, 0], rng[us, 1], rng[us, 2], rng[us, 3]
                    )
                    rng[us, 0] = r0
                    rng[us, 1] = r1
                    rng[us, 2] = r2
                    rng[us, 3] = r3
                elif dispatch == Dispatch.plugin and (
                    calling[us] == Calling.early_doubles_in_kernel
                ):
                    # early_doubles' rule on the private table, without the view's fill
                    # (mexsim/game/kernel_early_doubles.py). (The counts as np.int64:
                    # numba types the call while it sees their first values, literal 0s,
                    # and would compile it again for those)
                    i = early_doubles_choice(
                        st,
                        HANDS + 4 * seat,
                        seat,
                        np.int64(nm),
                        np.int64(laid),
                        np.int64(n_open),
                        params[us, 0] >= 0.5,
                    )
                elif dispatch == Dispatch.plugin and (
                    calling[us] == Calling.longest_train_in_kernel
                ):
                    # longest_train's rule on the private table, which holds its notes:
                    # called without the view's fill (mexsim/game/kernel_longest_train.py)
                    st[SEAT] = seat
                    st[N_MOVES] = nm
                    st[DUTY] = 1 if duty else 0
                    i = funcs[LONGEST_TRAIN_SLOT](st, pbuf)
                else:
                    # whose strategy this is, should it raise (the view's own words may
                    # have been written over by then)
                    status[Status.match] = st[MATCH]
                    status[Status.round] = rnd
                    status[Status.seat] = seat
                    # R17: the mover's view, written afresh from the private table (the
                    # core never reads the view back but for the mover's own stream and
                    # notes), with nothing left over from another seat, nor written by
                    # another seat's strategy over the parts fixed for the match
                    if st[FIXED_WRITTEN_BY] >= 0 and st[FIXED_WRITTEN_BY] != seat:
                        restore_fixed_view(view, st, lo, hi, pips, number_bits)
                        st[FIXED_WRITTEN_BY] = -1
                    view[PASS_COUNT] = count
                    view[FIRST_MOVER] = first_mover
                    show_public_table(view, st, n_hist)
                    view[ROUND] = rnd
                    view[ENGINE] = engine
                    view[SEAT] = seat
                    view[BONEYARD] = n - bpos
                    view[N_OPEN] = n_open
                    view[N_MOVES] = nm
                    view[FIRST_TURN] = 1 if first else 0
                    view[DUTY] = 1 if duty else 0
                    view[LAID_THIS_TURN] = laid
                    # the trains and seats are in the view already (written through)
                    for w in range(W):
                        view[HAND + w] = st[HANDS + 4 * seat + w]
                    # the moves were listed in the private table only (a listing with
                    # one legal move or none is never shown): copied now, and what an
                    # earlier decision showed beyond them cleared, so that beyond
                    # view[N_MOVES] the move list is all zero
                    for k in range(np.uint64(nm)):
                        view[UMOVE_TILE + k] = st[UMOVE_TILE + k]
                        view[UMOVE_TRAIN + k] = st[UMOVE_TRAIN + k]
                    for k in range(np.uint64(nm), np.uint64(st[MOVES_SHOWN])):
                        view[UMOVE_TILE + k] = 0
                        view[UMOVE_TRAIN + k] = 0
                    st[MOVES_SHOWN] = nm
                    for k in range(4):
                        view[RNG + k] = np.int64(rng[us, k])
                    for k in range(n_params[us]):
                        pbuf[k] = params[us, k]
                    for k in range(n_params[us], st[PARAMS_SHOWN]):
                        pbuf[k] = 0.0
                    st[PARAMS_SHOWN] = n_params[us]
                    for k in range(n_memory[us]):
                        view[NOTES + k] = memory[us, k]
                    for k in range(n_memory[us], st[NOTES_SHOWN]):
                        view[NOTES + k] = 0
                    st[NOTES_SHOWN] = n_memory[us]
                    if dispatch == Dispatch.hardwired:  # benchmark: greedy as a direct call
                        i = 0
                        for k in range(1, view[N_MOVES]):
                            if view[MOVE_TILE + k] < view[MOVE_TILE + i]:
                                i = k
                    else:
                        # a strategy that never returns is named by the run's watch
                        # (mexsim/game/stall_watch.py): it reads these while this runs
                        status[Status.calls] += 1
                        status[Status.deciding] = 1
                        i = funcs[seat_func[us]](view, pbuf)
                        status[Status.deciding] = 0
                    # R17: whatever the strategy wrote over the trains and seats is
                    # undone before anyone else sees the view (one block copy: the
                    # private table's last single stores have retired by now); a
                    # built-in writes none of it (~5 % of a match of built-ins)
                    if calling[us] == Calling.user:
                        for k in range(TRAIN_END, HAND):
                            view[k] = st[k]
                        st[FIXED_WRITTEN_BY] = seat
                        st[HISTORY_SHOWN] = 0  # the history is shown afresh next time
                    for k in range(4):
                        rng[us, k] = np.uint64(view[RNG + k])
                    for k in range(n_memory[us]):
                        memory[us, k] = view[NOTES + k]
                    if i < 0 or i >= nm:
                        status[Status.bad_choice] = 1
                        status[Status.choice] = i
                        status[Status.n_moves] = nm
                        return -1

                t = st[UMOVE_TILE + np.uint64(i)]
                tr = st[UMOVE_TRAIN + np.uint64(i)]
                ut = np.uint64(t)
                utr = np.uint64(tr)
                # the half that does not match the end becomes the new end (R6)
                new_end = lo[ut] + hi[ut] - st[UTRAIN_END + utr]
                st[UTRAIN_END + utr] = new_end
                view[UTRAIN_END + utr] = new_end
                row = np.uint64(new_end) * UWORDS
                f = UFIT + (utr << U2)
                st[f] = np.int64(number_bits[row])
                st[f + U1] = np.int64(number_bits[row + U1])
                st[f + U2] = np.int64(number_bits[row + U2])
                st[UTRAIN_LEN + utr] += 1
                view[UTRAIN_LEN + utr] = st[UTRAIN_LEN + utr]
                st[UHANDS + (us << U2) + (ut >> U6)] ^= _sbit(t)
                st[UHAND_SIZE + us] -= 1
                if public:  # R17: what every seat saw
                    st[UTRAIN_TILES + (utr << U2) + (ut >> U6)] |= _sbit(t)
                    st[UTABLE_TILES + (ut >> U6)] |= _sbit(t)
                    st[UHISTORY + np.uint64(n_hist)] = _entry(H_PLAY, seat, t, tr)
                    n_hist += 1
                view[UHAND_SIZE + us] = st[UHAND_SIZE + us]
                if tr == seat:
                    st[UTRAIN_MARKED + us] = 0  # R8: the owner's play removes the marker
                    view[UTRAIN_MARKED + us] = 0
                    marked_bits &= ~(1 << seat)
                for k in range(n_open):  # R13: a tile on an open double satisfies it
                    if st[OPEN_DOUBLES + k] == tr:
                        for j in range(k, n_open - 1):
                            st[OPEN_DOUBLES + j] = st[OPEN_DOUBLES + j + 1]
                            view[OPEN_DOUBLES + j] = st[OPEN_DOUBLES + j]
                        n_open -= 1
                        st[OPEN_DOUBLES + n_open] = -1
                        view[OPEN_DOUBLES + n_open] = -1
                        break
                is_double = lo[ut] == hi[ut]
                if is_double:
                    st[OPEN_DOUBLES + n_open] = tr  # R12: a double stays open until covered
                    view[OPEN_DOUBLES + n_open] = tr
                    n_open += 1
                count = 0  # R15: a play resets the count
                st[UPLAYED + us] += 1
                drawn = 0
                new_tile = -1
                if record:
                    n_ev = _event(ev, n_ev, Event.play, rnd, seat, t, tr)
                if st[UHAND_SIZE + us] == 0:
                    outcome = Outcome.out  # R14: going out ends the round at once
                    break
                laid += 1
                last_double = is_double
                if duty or (not chain and not is_double):
                    break  # R13: serving a double ends the turn; R12: so does a non-double
            if outcome != Outcome.goes_on:
                break
            seat = seat + 1 if seat + 1 < P else 0  # R2: clockwise

        # R16: penalties, 0|0 (tile T-1) at double_blank_points
        for s in range(P):
            pen = 0
            left = 0
            for w in range(W):
                m = np.uint64(st[HANDS + 4 * s + w])
                while m:
                    t = (w << 6) + trailing_zeros(m)
                    m &= m - U1
                    left += 1
                    pen += double_blank_points if t == T - 1 else pips[t]
            res[rnd, s, Field.penalty] = pen
            res[rnd, s, Field.tiles_left] = left
            res[rnd, s, Field.went_out] = 1 if (outcome == Outcome.out and s == seat) else 0
            res[rnd, s, Field.blocked] = 1 if outcome == Outcome.blocked else 0
            res[rnd, s, Field.tiles_played] = st[PLAYED + s]
            res[rnd, s, Field.draws] = st[DRAWS + s]
            res[rnd, s, Field.first] = 1 if s == first_mover else 0
            res[rnd, s, Field.turns] = st[TURNS + s]
            res[rnd, s, Field.passes] = st[PASSES + s]
            st[SCORE + s] += pen
        if record:
            reason = Reason.blocked if outcome == Outcome.blocked else Reason.out
            n_ev = _event(ev, n_ev, Event.round_end, rnd, -1, -1, reason)
    return n_ev


@njit(cache=True)
def new_scratch(P, T, view_size):
    """The working arrays of a block of matches (contexts.RoundScratch)."""
    st = np.zeros(view_size + PRIVATE_SIZE, dtype=np.int64)
    st[TABLE_SHOWN] = 1  # a view handed in may hold another block's public table
    return RoundScratch(
        np.empty((P, 4), dtype=np.uint64),
        np.empty(T, dtype=np.int64),
        np.zeros(MAX_PARAMS, dtype=np.float64),
        np.zeros((P, MAX_MEMORY), dtype=np.int64),
        st,
    )


@njit(cache=True)
def seed_streams(rng, seed, deal):
    """Each seat's strategy stream for the matches that play ``deal``."""
    for s in range(rng.shape[0]):
        rng[s, 0], rng[s, 1], rng[s, 2], rng[s, 3] = seed_words(strategy_key(seed, deal, s))


# nogil: `mexsim replay` waits for it on another thread, watching for a decide that
# never returns (mexsim/game/stall_watch.py, run_watched)
@njit(cache=True, nogil=True)
def play_match(seed, match, deal, rules, funcs, seats, tiles, out, record, dispatch):
    """Play match ``match`` (R4: N+1 rounds) into out.res[round, seat, Field.*]. Seat s
    plays funcs[seats.func[s]] with seats.params[s]; the shuffles and the seats' random
    streams come from ``deal`` (the match itself, unless duplicate deals replay one deal).

    Returns the number of event rows written, or -1 when a strategy chose an impossible
    move (details in out.status)."""
    view = out.view_array
    scratch = new_scratch(rules.players, tiles.lo.shape[0], view.shape[0])
    start_match(match, rules, seats, tiles, scratch, view)
    seed_streams(scratch.rng, seed, deal)
    return play_rounds(
        seed,
        deal,
        0,
        rules.max_pip + 1,
        -1,
        rules,
        funcs,
        seats,
        tiles,
        scratch,
        out,
        0,
        record,
        dispatch,
    )


@njit(cache=True, nogil=True)
def block_seats(P, players):
    """The seats' arrays of a block of matches, filled for each match by
    start_block_match."""
    return PlayerArrays(
        np.empty(P, dtype=np.int64),
        np.empty((P, players.params.shape[1]), dtype=np.float64),
        np.empty(P, dtype=np.int64),
        np.empty(P, dtype=np.int64),
        np.empty(P, dtype=np.int64),
    )


@njit(cache=True, nogil=True)
def start_block_match(
    k, seed, match_ids, deal_ids, seating, rules, players, seats, tiles, scratch, view
):
    """Seat the players of a block's match k (player seating[k, s] in seat s) and start
    it: fresh scores and notes, the seats' streams from its deal."""
    for s in range(rules.players):
        i = seating[k, s]
        seats.func[s] = players.func[i]
        for j in range(players.params.shape[1]):
            seats.params[s, j] = players.params[i, j]
        seats.n_params[s] = players.n_params[i]
        seats.n_memory[s] = players.n_memory[i]
        seats.calling[s] = players.calling[i]
    start_match(match_ids[k], rules, seats, tiles, scratch, view)
    seed_streams(scratch.rng, seed, deal_ids[k])


@njit(cache=True, nogil=True)
def play_matches(
    seed, match_ids, deal_ids, seating, rules, funcs, players, tiles, view, res, status, dispatch
):
    """Play match match_ids[k] from deal deal_ids[k], player seating[k, s] in seat s,
    into res[k, round, seat, Field.*]; player i plays funcs[players.func[i]] with
    players.params[i].

    Releases the GIL, so threads play blocks in parallel. Returns the number of
    matches completed (< len(match_ids) when a strategy failed)."""
    ev = np.empty((1, N_EVENT_FIELDS), dtype=np.int64)
    seats = block_seats(rules.players, players)
    # one set of working arrays for the whole block: start_match resets what a match
    # must find fresh
    scratch = new_scratch(rules.players, tiles.lo.shape[0], view.shape[0])
    for k in range(match_ids.shape[0]):
        start_block_match(
            k, seed, match_ids, deal_ids, seating, rules, players, seats, tiles, scratch, view
        )
        if (
            play_rounds(
                seed,
                deal_ids[k],
                0,
                rules.max_pip + 1,
                -1,
                rules,
                funcs,
                seats,
                tiles,
                scratch,
                Outputs(view, res[k], ev, status),
                0,
                False,
                dispatch,
            )
            < 0
        ):
            return k
    return match_ids.shape[0]


@njit(cache=True)
def play_dealt_round(seed, match, rnd, order, n, rules, funcs, seats, tiles, out):
    """Play one round from a given deal (order[:n], as the shuffle lays it out), with
    events recorded: the entry point of the hand-built scenario tests."""
    view = out.view_array
    scratch = new_scratch(rules.players, tiles.lo.shape[0], view.shape[0])
    start_match(match, rules, seats, tiles, scratch, view)
    seed_streams(scratch.rng, seed, match)
    for k in range(n):
        scratch.boneyard[k] = order[k]
    return play_rounds(
        seed,
        match,
        rnd,
        rnd + 1,
        n,
        rules,
        funcs,
        seats,
        tiles,
        scratch,
        out,
        0,
        True,
        Dispatch.plugin,
    )
