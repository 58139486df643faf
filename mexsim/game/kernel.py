"""The numba core: whole matches played through the step (mexsim/game/step.py).

The rules of docs/rules.md are the step's: this module deals each round
(step.shuffle_deal, step.start_round), asks for the move at each decision — a built-in's
rule played here, or a strategy's decide shown its view — and applies it (step.apply),
which carries the game on to the next decision. The differential tests hold it to
mexsim/game/reference.py, trace for trace and view for view. No Python objects in here:
state is a handful of fixed-shape arrays (P players, T tiles, N = max pip):

    view        int64[view.SIZE]  the public table, as strategies see it (mexsim/game/view.py):
                                  written afresh from the private table at a decision
    boneyard    int64[T]          a given deal's order (play_dealt_round)
    rng         uint64[P, 4]      xoshiro256** state of each seat's strategy stream
    st          int64[view.SIZE + PRIVATE_SIZE]  the private table: the step's state
                                  (mexsim/game/state.py: the view's layout, then every
                                  hand, the boneyard and the round's counters), then the
                                  bookkeeping of the view shown and the built-ins' scratch
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

The rounds run in one function, a block of matches shares one set of working arrays.
play_rounds makes no array and is compiled without numba's reference counts, as the
step's functions are: the step's functions are inlined into it, and with the counts on
every inlined call paid an atomic increment and decrement of the state (a fifth of a
match of greedy, found with perf).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mexsim.game.contexts import Outputs, PlayerArrays, RoundScratch
from mexsim.game.enums import (
    BAD_INDEX,
    BAD_NOTE,
    N_EVENT_FIELDS,
    Calling,
    Dispatch,
    Event,
    EventField,
    Field,
    Reason,
    Status,
)
from mexsim.game.kernel_longest_train import LONGEST_TRAIN_SLOT
from mexsim.game.kernel_view import fill_static_view, restore_fixed_view, show_public_table
from mexsim.game.private_table import (
    DRAWS,
    FIXED_WRITTEN_BY,
    HANDS,
    HISTORY_HELD,
    HISTORY_SHOWN,
    MOVES_SHOWN,
    NOTES_SHOWN,
    PARAMS_SHOWN,
    PASSES,
    PLAYED,
    PRIVATE_SIZE,
    TABLE_SHOWN,
    TURNS,
)
from mexsim.game.rng import (
    seed_words,
    strategy_key,
    xoshiro_bounded,
)
from mexsim.game.state import (
    OUTCOME_BLOCKED,
    OUTCOME_GOES_ON,
    W_BONEYARD,
    W_LEFT,
    W_OUTCOME,
    W_PENALTY,
    W_PUBLIC,
    W_WENT_OUT,
)

# the move list's offsets as unsigned numbers, as the step indexes it (no test for a
# negative index on each access)
from mexsim.game.step import (
    UMOVE_TILE,
    UMOVE_TRAIN,
    core_apply,
    end_round,
    shuffle_deal,
    start_round,
)
from mexsim.game.view import (
    ENGINE,
    EXPLAINING,
    FIRST_MOVER,
    H_DRAW,
    H_ENGINE,
    H_PLAY,
    HAND,
    HISTORY,
    HISTORY_LEN,
    LAID_THIS_TURN,
    MATCH,
    MAX_MEMORY,
    MAX_PARAMS,
    MAX_WORDS,
    MOVE_TILE,
    N_MOVES,
    NOTES,
    PASS_COUNT,
    RNG,
    ROUND,
    RULE_FIRST_TURN_TRAIN,
    SEAT,
    SIZE,
    TILE_LO,
    TILES,
    TRAIN_END,
    TRAIN_TILES,
)
from mexsim.jit.bits import trailing_zeros
from mexsim.jit.options import compiled


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


@njit(cache=True)
def start_match(match, rules, seats, tiles, scratch, view):
    """Make the scratch arrays and the view those of a new match: the view's static
    part (also copied into the private table, laid out as the view's), scores and notes
    at zero, nothing shown yet."""
    P = rules.players
    lo, hi, pips, number_mask = tiles
    st = scratch.st
    fill_static_view(view, match, rules, lo, hi, pips, number_mask)
    for i in range(HAND):  # a loop, not a slice copy: see _event
        st[i] = view[i]
    for i in range(TILE_LO, MOVE_TILE):  # the tile tables, read by the step and the
        st[i] = view[i]  # built-ins called on this table
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


@compiled(cache=True, refcounts=False, error_model="numpy")
def play_rounds(
    seed, deal, rnd0, rnd1, dealt, rules, funcs, seats, tiles, scratch, out, n_ev, record, dispatch
):
    """Play rounds rnd0 .. rnd1-1 of a match into out.res[rnd, seat, Field.*]; returns
    n_ev, the event rows written so far (-1 when a strategy failed: see out.status).

    The rules are the step's (mexsim/game/step.py), on the private table as its state:
    this loop deals each round, asks for each decision's move and applies it. Each round
    is dealt by R3/R5's shuffle of (seed, deal, round), unless ``dealt`` >= 0: then
    scratch.boneyard[:dealt] is the deal (hands first, as the shuffle lays it out). The
    rounds run in one call, not one call a round: a call that takes the bundles of
    mexsim/game/contexts.py pays two atomic reference counts for each of their ~25
    arrays."""
    P = rules.players
    H = rules.hand_size
    seat_func, params, n_params, n_memory, calling = seats
    rng, boneyard, pbuf, memory, st = scratch
    view, res, ev, status = out
    W = MAX_WORDS
    # whether any seat is shown the view, and so its public table (R17), or the events
    # are recorded (from the history): a table of the built-ins the kernel plays keeps
    # none of it (~2 % of 4 x greedy's match)
    public = record or dispatch != Dispatch.engine_only
    if dispatch == Dispatch.explained:  # mexsim replay --moves (a fixed scalar: kept in
        st[EXPLAINING] = 1  # the private table, restored from it as the others are)
        view[EXPLAINING] = 1
    if dispatch == Dispatch.plugin and not record:
        public = False
        for s in range(P):
            if calling[s] == Calling.user or calling[s] == Calling.builtin:
                public = True
    st[W_PUBLIC] = 1 if public else 0
    for rnd in range(rnd0, rnd1):
        if dealt >= 0:
            for k in range(dealt):
                st[W_BONEYARD + k] = boneyard[k]
            n = dealt
        else:
            n = shuffle_deal(st, seed, deal, rnd)
        start_round(st, rnd, n)
        st[HISTORY_SHOWN] = 0
        n_seen = 0  # history entries turned into event rows
        drawn_seen = P * H  # boneyard tiles drawn as those entries say
        if record:
            n_ev = deal_events(st, ev, n_ev, rnd, P, H, n)
        while True:
            if record:
                n_ev, n_seen, drawn_seen = history_events(st, ev, n_ev, rnd, n_seen, drawn_seen)
            if st[W_OUTCOME] != OUTCOME_GOES_ON:
                break
            # --- a decision of `seat` (R9: which legal play is the strategy's choice); a
            # forced move is played without asking (docs/rules.md, "Move order")
            seat = st[SEAT]
            us = np.uint64(seat)  # unsigned: no wraparound test on the seat's rows
            nm = st[N_MOVES]
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
            elif dispatch == Dispatch.plugin and calling[us] == Calling.builtin_on_table:
                # a shipped strategy's own decide called on the private table, which is
                # laid out as the view where it reads (the step wrote the turn's words,
                # the moves, the trains; the tile tables are the match's), given the
                # mover's hand, parameters and notes: no view filled
                status[Status.match] = st[MATCH]
                status[Status.round] = rnd
                status[Status.seat] = seat
                for w in range(W):
                    st[HAND + w] = st[HANDS + 4 * seat + w]
                for k in range(n_params[us]):
                    pbuf[k] = params[us, k]
                for k in range(n_params[us], st[PARAMS_SHOWN]):
                    pbuf[k] = 0.0
                st[PARAMS_SHOWN] = n_params[us]
                for k in range(n_memory[us]):
                    st[NOTES + k] = memory[us, k]
                i = funcs[seat_func[us]](st, pbuf)
                for k in range(n_memory[us]):
                    memory[us, k] = st[NOTES + k]
            elif dispatch == Dispatch.plugin and (calling[us] == Calling.longest_train_in_kernel):
                # longest_train's rule on the private table, which holds its notes and
                # the turn's words (SEAT, N_MOVES, DUTY: the step wrote them)
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
                    restore_fixed_view(view, st)
                    st[FIXED_WRITTEN_BY] = -1
                for k in range(PASS_COUNT, RULE_FIRST_TURN_TRAIN):  # the turn's scalars
                    view[k] = st[k]
                view[ROUND] = st[ROUND]
                view[ENGINE] = st[ENGINE]
                for k in range(SEAT, TILES):  # SEAT, BONEYARD, N_OPEN, FIRST_TURN, DUTY
                    view[k] = st[k]
                view[N_MOVES] = nm
                view[LAID_THIS_TURN] = st[LAID_THIS_TURN]
                for k in range(TRAIN_END, HAND):  # the trains and seats
                    view[k] = st[k]
                show_public_table(view, st, st[HISTORY_LEN])
                for w in range(W):
                    view[HAND + w] = st[HANDS + 4 * seat + w]
                # the moves beyond view[N_MOVES] all zero: what an earlier decision
                # showed beyond them cleared
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
                if calling[us] == Calling.user:
                    st[FIXED_WRITTEN_BY] = seat
                    st[HISTORY_SHOWN] = 0  # the history is shown afresh next time
                    # notes past its MEMORY were zero when it was called (cleared as shown,
                    # or refused at the seat that wrote them): one written now would be
                    # lost to it and shown to the next seat; refused, as `check` does
                    for k in range(n_memory[us], MAX_MEMORY):
                        if view[NOTES + k] != 0:
                            status[Status.bad_choice] = BAD_NOTE
                            status[Status.choice] = k
                            status[Status.n_moves] = n_memory[us]
                            return -1
                for k in range(4):
                    rng[us, k] = np.uint64(view[RNG + k])
                for k in range(n_memory[us]):
                    memory[us, k] = view[NOTES + k]
                if i < 0 or i >= nm:
                    status[Status.bad_choice] = BAD_INDEX
                    status[Status.choice] = i
                    status[Status.n_moves] = nm
                    return -1
            core_apply(st, i)

        # R16: the penalties (the step scored the hands), into the results
        outcome = st[W_OUTCOME]
        for s in range(P):
            res[rnd, s, Field.penalty] = st[W_PENALTY + s]
            res[rnd, s, Field.tiles_left] = st[W_LEFT + s]
            res[rnd, s, Field.went_out] = 1 if st[W_WENT_OUT] == s else 0
            res[rnd, s, Field.blocked] = 1 if outcome == OUTCOME_BLOCKED else 0
            res[rnd, s, Field.tiles_played] = st[PLAYED + s]
            res[rnd, s, Field.draws] = st[DRAWS + s]
            res[rnd, s, Field.first] = 1 if s == st[FIRST_MOVER] else 0
            res[rnd, s, Field.turns] = st[TURNS + s]
            res[rnd, s, Field.passes] = st[PASSES + s]
        end_round(st)
        if record:
            reason = Reason.blocked if outcome == OUTCOME_BLOCKED else Reason.out
            n_ev = _event(ev, n_ev, Event.round_end, rnd, -1, -1, reason)
    return n_ev


@njit(cache=True)
def deal_events(st, ev, n_ev, rnd, P, H, n):
    """The deal of the state's round (its first ``n`` boneyard words) as event rows: the
    hands as dealt (before R5's search for the engine), each in tile order, then the
    boneyard in its order; returns n_ev moved on."""
    for s in range(P):
        w0 = np.uint64(0)
        w1 = np.uint64(0)
        w2 = np.uint64(0)
        for k in range(s * H, s * H + H):
            t = st[W_BONEYARD + k]
            bit = np.uint64(1) << np.uint64(t & 63)
            if t < 64:
                w0 |= bit
            elif t < 128:
                w1 |= bit
            else:
                w2 |= bit
        for w, m in ((0, w0), (1, w1), (2, w2)):
            while m:
                t = 64 * w + np.int64(trailing_zeros(m))
                m &= m - np.uint64(1)
                n_ev = _event(ev, n_ev, Event.deal_hand, rnd, s, t, 0)
    for k in range(P * H, n):
        n_ev = _event(ev, n_ev, Event.deal_boneyard, rnd, -1, st[W_BONEYARD + k], 0)
    return n_ev


@njit(cache=True)
def history_events(st, ev, n_ev, rnd, n_seen, drawn_seen):
    """The round's public history since entry ``n_seen`` as event rows (a draw with the
    tile drawn: the boneyard's next, counted from ``drawn_seen``); returns the three
    counts moved on."""
    for k in range(n_seen, st[HISTORY_LEN]):
        entry = st[HISTORY + k]
        kind = entry & 15
        seat = (entry >> 4) & 15
        if kind == H_ENGINE:
            n_ev = _event(ev, n_ev, Event.engine, rnd, seat, -1, 0)
        elif kind == H_PLAY:
            tile = ((entry >> 8) & 255) - 1
            train = ((entry >> 16) & 15) - 1
            n_ev = _event(ev, n_ev, Event.play, rnd, seat, tile, train)
        elif kind == H_DRAW:
            n_ev = _event(ev, n_ev, Event.draw, rnd, seat, st[W_BONEYARD + drawn_seen], 0)
            drawn_seen += 1
        else:  # H_PASS, H_MARK
            n_ev = _event(ev, n_ev, Event.pass_, rnd, seat, -1, 0)
    return n_ev, st[HISTORY_LEN], drawn_seen


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
