"""The rules of a round as a step over one state (mexsim/game/state.py): written once,
driven by every caller that plays a round a decision at a time.

    new_round(state, seed, deal, rnd)  the deal (R3, R5's shuffle), the engine (R5), and
                                       the game on to the first decision
    state[N_MOVES], MOVE_TILE + i ...  the legal moves of the seat to move (state[SEAT]),
                                       in docs/rules.md's "Move order"
    apply(state, i)                    that seat plays move i; the rest of the turn follows
                                       the rules (R11's chain, R12's follow-up, R13's duty,
                                       R14 going out), then the next seats' turns (draws
                                       and passes, R8's markers, R10, R15's blocking, R18)
                                       up to the next decision, or the round's end
    to_move(state), round_over(state)  whose decision it is (-1: the round is over)
    observe(state, seat, n_notes, view) the R17 view of ``seat``, as a decide gets it
    end_round(state)                   R16's penalties added to the match's scores

A *decision* is any point where a seat has at least one legal move: a caller asks its
strategy only when there are two or more (the core plays a forced move without asking,
docs/rules.md "Move order"), and calls apply either way.

The forward model (mexsim/strategy/forward.py: play_out is apply until the round is
over), `mexsim.tournament.table.Game` (a person's seat, a learning library) and the
tree searches play through these functions; the luck walk (mexsim/game/luck.py) keeps
the table of a recorded match with new_trains and lay_tile. The reference engine and
the referee are written apart from them on purpose: they are the independent oracles
the differential tests hold this code to.
"""

from __future__ import annotations

import numpy as np

from mexsim.game.rng import (
    STREAM_SHUFFLE,
    seed_words,
    strategy_key,
    stream_key,
    xoshiro_bounded,
)
from mexsim.game.state import (
    OUTCOME_BLOCKED,
    OUTCOME_GOES_ON,
    OUTCOME_OUT,
    W_BONEYARD,
    W_BONEYARD_END,
    W_DRAWN,
    W_FIT,
    W_HANDS,
    W_HISTORY_END,
    W_LEFT,
    W_MARKED_BITS,
    W_N_SCAN,
    W_NOTES,
    W_OUTCOME,
    W_PENALTY,
    W_PLAYED,
    W_PUBLIC,
    W_SCAN,
    W_STREAMS,
    W_TURNS,
    W_WENT_OUT,
)
from mexsim.game.view import (
    BONEYARD,
    DUTY,
    ENGINE,
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
    MAX_MEMORY,
    MAX_PIP,
    MAX_PLAYERS,
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
    PLAYERS,
    RNG,
    ROUND,
    RULE_DOUBLE_BLANK_POINTS,
    RULE_DRAW_LIMIT,
    RULE_DRAW_TO_START,
    RULE_FIRST_TURN_TRAIN,
    RULE_HAND_SIZE,
    RULE_MEXICAN_TRAIN,
    RULE_SET_ASIDE,
    SCORE,
    SEAT,
    SEAT_DRAWS,
    SEAT_PASSES,
    SEAT_STARTED,
    TABLE_TILES,
    TILE_HI,
    TILE_LO,
    TILE_PIPS,
    TILES,
    TRAIN_END,
    TRAIN_LEN,
    TRAIN_MARKED,
    TRAIN_TILES,
)
from mexsim.jit.bits import trailing_zeros
from mexsim.jit.options import compiled

_u = np.uint64
U1 = _u(1)
U2 = _u(2)
U4 = _u(4)
U15 = _u(15)
# unsigned offsets where the listing is hottest: numba tests a signed index for a
# negative value (Python's wraparound) on every access; an unsigned one it cannot be
UMOVE_TILE = _u(MOVE_TILE)
UMOVE_TRAIN = _u(MOVE_TRAIN)
UTRAIN_END = _u(TRAIN_END)
UHANDS = _u(W_HANDS)
UFIT = _u(W_FIT)
UTILE_LO = _u(TILE_LO)
UTILE_HI = _u(TILE_HI)
UTRAIN_LEN = _u(TRAIN_LEN)
UTRAIN_TILES = _u(TRAIN_TILES)
UTABLE_TILES = _u(TABLE_TILES)
UTRAIN_MARKED = _u(TRAIN_MARKED)
UHAND_SIZE = _u(HAND_SIZE)
UPLAYED = _u(W_PLAYED)
U6 = _u(6)
UBONEYARD = _u(W_BONEYARD)
USEAT_DRAWS = _u(SEAT_DRAWS)
USEAT_PASSES = _u(SEAT_PASSES)
USEAT_STARTED = _u(SEAT_STARTED)
UTURNS = _u(W_TURNS)


@compiled(cache=True, refcounts=False, inline="always")
def _bit(t):
    return np.int64(U1 << _u(t & 63))


@compiled(cache=True, refcounts=False, inline="always")
def holds(state, base, t):
    """Whether the bitmask words at ``state[base:]`` hold tile ``t``."""
    return (_u(state[base + (t >> 6)]) >> _u(t & 63)) & U1 == U1


@compiled(cache=True, refcounts=False, inline="always")
def give_tile(state, seat, tile):
    """Put ``tile`` in ``seat``'s hand."""
    state[W_HANDS + 4 * seat + (tile >> 6)] |= _bit(tile)


@compiled(cache=True, refcounts=False)
def to_move(state):
    """The seat whose decision it is; -1 once the round is over."""
    return -1 if state[W_OUTCOME] != OUTCOME_GOES_ON else state[SEAT]


@compiled(cache=True, refcounts=False, inline="always")
def round_over(state):
    """Whether the round has ended (a seat went out, R14, or it blocked, R15)."""
    return state[W_OUTCOME] != OUTCOME_GOES_ON


@compiled(cache=True, refcounts=False, inline="always")
def _history(state, kind, seat, tile, train):
    """A public event at the end of the round's history (mexsim/game/view.py's packing),
    when the state keeps the public table."""
    if state[W_PUBLIC] == 0:
        return
    at = HISTORY + state[HISTORY_LEN]
    state[at] = kind | (seat << 4) | ((tile + 1) << 8) | ((train + 1) << 16)
    state[HISTORY_LEN] += 1
    if at + 1 > state[W_HISTORY_END]:
        state[W_HISTORY_END] = at + 1


@compiled(cache=True, refcounts=False, inline="always")
def _set_end(state, tr, end):
    """Train ``tr`` ends in ``end`` (R6): the tiles that fit it are that number's."""
    state[TRAIN_END + tr] = end
    row = NUMBER_MASK + end * MAX_WORDS
    f = W_FIT + 4 * tr
    for w in range(MAX_WORDS):
        state[f + w] = state[row + w]


@compiled(cache=True, refcounts=False, inline="always")
def _lay(state, seat, t, tr):
    """Lay tile ``t`` on train ``tr`` (R6, R8, R12, R13, R15); True when it is a double."""
    # unsigned offsets: no test for a negative index (see UMOVE_TILE)
    us = _u(seat)
    ut = _u(t)
    utr = _u(tr)
    lo = state[UTILE_LO + ut]
    hi = state[UTILE_HI + ut]
    _set_end(state, tr, lo + hi - state[UTRAIN_END + utr])  # the other half is the end
    state[UTRAIN_LEN + utr] += 1
    word = (us << U2) + (ut >> U6)
    state[UHANDS + word] ^= _bit(t)
    state[UHAND_SIZE + us] -= 1
    if state[W_PUBLIC] != 0:  # R17: what every seat saw
        state[UTRAIN_TILES + (utr << U2) + (ut >> U6)] |= _bit(t)
        state[UTABLE_TILES + (ut >> U6)] |= _bit(t)
        _history(state, H_PLAY, seat, t, tr)
    if tr == seat:
        state[UTRAIN_MARKED + us] = 0  # R8: the owner's play removes the marker
        state[W_MARKED_BITS] &= ~(1 << seat)
    n_open = state[N_OPEN]
    for k in range(n_open):  # R13: a tile on an open double satisfies it
        if state[OPEN_DOUBLES + k] == tr:
            for j in range(k, n_open - 1):
                state[OPEN_DOUBLES + j] = state[OPEN_DOUBLES + j + 1]
            n_open -= 1
            state[OPEN_DOUBLES + n_open] = -1
            break
    if lo == hi:  # R12: a double stays open until covered
        state[OPEN_DOUBLES + n_open] = tr
        n_open += 1
    state[N_OPEN] = n_open
    state[PASS_COUNT] = 0  # R15: a play resets the count
    state[UPLAYED + us] += 1
    return lo == hi


@compiled(cache=True, refcounts=False, inline="always")
def lay_tile(state, seat, t, tr):
    """``seat`` lays tile ``t`` on train ``tr``: the table's part of a play (R6's new end,
    R8's marker lifted, R12/R13's open doubles), apply_move's first step. The luck walk
    (mexsim/game/luck.py) replays a match's plays with it."""
    return _lay(state, seat, t, tr)


@compiled(cache=True, refcounts=False, inline="always")
def new_trains(state, engine):
    """Every train starts at the engine (R6), unmarked, and no double is open."""
    for tr in range(MAX_TRAINS):
        _set_end(state, tr, engine)
        state[TRAIN_LEN + tr] = 0
        state[TRAIN_MARKED + tr] = 0
        state[OPEN_DOUBLES + tr] = -1
    state[W_MARKED_BITS] = 0
    state[N_OPEN] = 0
    state[PASS_COUNT] = 0


@compiled(cache=True, refcounts=False, inline="always")
def _draw(state, seat):
    """``seat`` draws the boneyard's next tile (R10, R18; R5's search for the engine);
    returns it."""
    t = state[UBONEYARD + _u(state[W_DRAWN])]
    state[W_DRAWN] += 1
    us = _u(seat)
    state[UHANDS + (us << U2) + (_u(t) >> U6)] |= _bit(t)
    state[UHAND_SIZE + us] += 1
    state[USEAT_DRAWS + us] += 1
    _history(state, H_DRAW, seat, -1, -1)
    return t


@compiled(cache=True, refcounts=False, boundscheck=True)
def score_round(state, seat, outcome):
    """The round is over (``seat`` moved last): R16's penalty of each hand, 0|0 (the last
    tile) at double_blank_points, and the outcome."""
    last = state[TILES] - 1
    for s in range(state[PLAYERS]):
        pen = 0
        left = 0
        for w in range(MAX_WORDS):
            m = _u(state[W_HANDS + 4 * s + w])
            while m:
                t = 64 * w + np.int64(trailing_zeros(m))
                m &= m - U1
                left += 1
                pen += state[RULE_DOUBLE_BLANK_POINTS] if t == last else state[TILE_PIPS + t]
        state[W_PENALTY + s] = pen
        state[W_LEFT + s] = left
    state[W_OUTCOME] = outcome
    state[W_WENT_OUT] = seat if outcome == OUTCOME_OUT else -1


@compiled(cache=True, refcounts=False, inline="always")
def _scan_turn(state, seat, first, duty):
    """The trains a listing of ``seat``'s turn covers, in move order (docs/rules.md: own,
    Mexican, then marked trains clockwise; R13's oldest double on a duty turn; R11's own
    train on a first turn), packed four bits a train into state[W_SCAN]. Fixed for the
    turn but for the own marker, which only a play on the own train removes, and so
    never adds a train."""
    players = state[PLAYERS]
    n_scan = 1
    if duty:
        scan = _u(state[OPEN_DOUBLES])
    else:
        scan = _u(seat)
        if not first:
            if state[RULE_MEXICAN_TRAIN] != 0:
                scan |= _u(players) << U4  # R7: the Mexican train (R19: if any)
                n_scan = 2
            # R7: others' trains only while marked; clockwise from the next seat
            others = state[W_MARKED_BITS] & ~(1 << seat)
            all_seats = (1 << players) - 1
            rot = ((others >> (seat + 1)) | (others << (players - seat - 1))) & all_seats
            while rot:
                tr = seat + 1 + np.int64(trailing_zeros(rot))
                rot &= rot - 1
                tr = tr - players if tr >= players else tr
                scan |= _u(tr) << _u(4 * n_scan)
                n_scan += 1
    state[W_SCAN] = np.int64(scan)
    state[W_N_SCAN] = n_scan


@compiled(cache=True, refcounts=False, inline="always")
def _list_word(state, m, base, tr, nm):
    """The moves of one word of fitting tiles (``m``, tiles ``base`` + bit) on train
    ``tr`` listed after the nm already listed, heaviest first; returns the new count."""
    while m:
        u = _u(nm)
        state[UMOVE_TILE + u] = base + np.int64(trailing_zeros(m))
        state[UMOVE_TRAIN + u] = tr
        nm += 1
        m &= m - U1
    return nm


@compiled(cache=True, refcounts=False, inline="always")
def _list(state, seat, new_tile):
    """``seat``'s legal moves on the turn's trains into the state's move list, in the
    core's order (each train's tiles heaviest first); after a draw (``new_tile`` >= 0,
    nothing fitted before it) only the drawn tile can fit. Returns the count; the list
    beyond it holds what an earlier listing left (observe shows none of it)."""
    scan = _u(state[W_SCAN])
    n_scan = state[W_N_SCAN]
    nm = 0
    if new_tile >= 0:
        a = state[TILE_LO + new_tile]
        b = state[TILE_HI + new_tile]
        for _ in range(n_scan):
            utr = scan & U15
            scan >>= U4
            e = state[UTRAIN_END + utr]
            if a == e or b == e:
                state[UMOVE_TILE + _u(nm)] = new_tile
                state[UMOVE_TRAIN + _u(nm)] = np.int64(utr)
                nm += 1
    else:
        hand = UHANDS + (_u(seat) << U2)
        h0 = _u(state[hand])
        h1 = _u(state[hand + U1])
        h2 = _u(state[hand + U2])
        if h2 == 0:
            # two words: the hand holds no tile beyond 127 (always so up to double-14,
            # the default double-12 included), so the third word is neither loaded nor
            # tested
            for _ in range(n_scan):
                utr = scan & U15
                scan >>= U4
                f = UFIT + (utr << U2)
                m0 = h0 & _u(state[f])
                m1 = h1 & _u(state[f + U1])
                if (m0 | m1) == 0:
                    continue  # the common case: nothing fits this train
                tr = np.int64(utr)
                nm = _list_word(state, m0, 0, tr, nm)
                nm = _list_word(state, m1, 64, tr, nm)
        else:
            for _ in range(n_scan):
                utr = scan & U15
                scan >>= U4
                f = UFIT + (utr << U2)
                m0 = h0 & _u(state[f])
                m1 = h1 & _u(state[f + U1])
                m2 = h2 & _u(state[f + U2])
                if (m0 | m1 | m2) == 0:
                    continue
                tr = np.int64(utr)
                nm = _list_word(state, m0, 0, tr, nm)
                nm = _list_word(state, m1, 64, tr, nm)
                nm = _list_word(state, m2, 128, tr, nm)
    return nm


@compiled(cache=True, refcounts=False, inline="always")
def _begin_turn(state, seat):
    """``seat``'s turn begins (R2): its trains listed, its words set; returns whether it is
    its first turn of the round (R11) and whether it has R13's duty."""
    us = _u(seat)
    first = state[USEAT_STARTED + us] == 0
    state[USEAT_STARTED + us] = 1
    state[UTURNS + us] += 1
    duty = state[N_OPEN] > 0  # R13: the oldest open double must be served
    _scan_turn(state, seat, first, duty)
    return first, duty


def _play_on(state, seat, first, duty, laid, last_double, in_turn):
    """Play on from ``seat``'s turn (``in_turn``: its turn goes on; else the next seat's
    begins) to the next decision, listed in the state, or the round's end."""
    players = state[PLAYERS]
    draw_limit = state[RULE_DRAW_LIMIT]
    draw_to_start = state[RULE_DRAW_TO_START] != 0
    chain_rule = state[RULE_FIRST_TURN_TRAIN] != 0
    while True:
        if not in_turn:  # the next seat's turn begins (R2: clockwise)
            seat = seat + 1 if seat + 1 < players else 0
            first, duty = _begin_turn(state, seat)
            laid = 0
            last_double = False
        chain = first and chain_rule and not duty  # R11 "train"
        in_turn = False
        drawn = 0  # draws made for the current obligation to play
        new_tile = -1  # after a draw, the only tile that can have become playable
        while True:
            nm = _list(state, seat, new_tile)
            if nm > 0:  # a decision: the strategy's (R9), or a forced move
                state[SEAT] = seat
                state[N_MOVES] = nm
                state[FIRST_TURN] = 1 if first else 0
                state[DUTY] = 1 if duty else 0
                state[LAID_THIS_TURN] = laid
                state[BONEYARD] = state[W_BONEYARD_END] - state[W_DRAWN]
                return
            if chain and laid > 0 and not last_double:
                break  # R11: the chain stops; no draw, no marker
            keep = draw_to_start and not duty and state[UTRAIN_LEN + _u(seat)] == 0  # R11
            if state[W_DRAWN] < state[W_BONEYARD_END] and (drawn < draw_limit or keep):
                new_tile = _draw(state, seat)  # R10/R18: draw a tile and look again
                drawn += 1
                continue
            us = _u(seat)
            state[USEAT_PASSES + us] += 1  # R8/R10: pass, marking the own train
            if state[UTRAIN_MARKED + us] == 0:
                state[UTRAIN_MARKED + us] = 1
                state[W_MARKED_BITS] |= 1 << seat
                state[PASS_COUNT] = 1  # R15: a new marker restarts the count
                _history(state, H_MARK, seat, -1, -1)
            else:
                state[PASS_COUNT] += 1
                _history(state, H_PASS, seat, -1, -1)
            if state[W_DRAWN] == state[W_BONEYARD_END] and state[PASS_COUNT] >= players:
                score_round(state, seat, OUTCOME_BLOCKED)  # R15
                return
            break


# _play_on, twice. Called (its body is the step's largest): the forward model's rollouts,
# start_round and Python. Inlined, numba types it anew in every caller: a strategy that
# rolls out with several policies paid it in each (search's decide took 89 s to compile
# with it inlined, 28 s called), and the rollouts ran slower for it (bench_forward: 4 x
# greedy 97k a second inlined, 128k called). Only the core inlines it (core_apply): there
# the call cost 8 % of a match of 4 x greedy (benchmarks/bench_paired.py). One signature:
# a call with literal arguments (start_round's) would compile a twin.
_advance = compiled(
    "void(int64[::1], int64, boolean, boolean, int64, boolean, boolean)",
    cache=True,
    refcounts=False,
    boundscheck=True,
)(_play_on)
_advance_inlined = compiled(cache=True, refcounts=False, inline="always")(_play_on)


@compiled(cache=True, refcounts=False, inline="always")
def _lay_move(state, tile, train):
    """The seat to move lays ``tile`` on ``train``; returns whether play goes on (False:
    it went out, R14, and the round is scored) and _play_on's arguments."""
    seat = state[SEAT]
    first = state[FIRST_TURN] != 0
    duty = state[DUTY] != 0
    chain = first and state[RULE_FIRST_TURN_TRAIN] != 0 and not duty
    double = _lay(state, seat, tile, train)
    laid = state[LAID_THIS_TURN] + 1
    if state[HAND_SIZE + seat] == 0:
        score_round(state, seat, OUTCOME_OUT)  # R14: going out ends the round at once
        return False, seat, first, duty, laid, double, False
    # R13: serving a double ends the turn; R12: so does a non-double, but in a chain
    in_turn = not (duty or (not chain and not double))
    return True, seat, first, duty, laid, double, in_turn


@compiled(cache=True, refcounts=False, inline="always")
def apply_move(state, tile, train):
    """The seat to move lays ``tile`` on ``train`` (one of its legal moves) and the game
    goes on as the rules say to the next decision or the round's end."""
    going, seat, first, duty, laid, double, in_turn = _lay_move(state, tile, train)
    if going:
        _advance(state, seat, first, duty, laid, double, in_turn)


@compiled(cache=True, refcounts=False, inline="always")
def apply(state, i):
    """The seat to move plays its legal move ``i``; see apply_move."""
    apply_move(state, state[MOVE_TILE + i], state[MOVE_TRAIN + i])


@compiled(cache=True, refcounts=False, inline="always")
def core_apply(state, i):
    """apply with the rest of the turn compiled into the caller: the core's."""
    tile = state[UMOVE_TILE + _u(i)]
    train = state[UMOVE_TRAIN + _u(i)]
    going, seat, first, duty, laid, double, in_turn = _lay_move(state, tile, train)
    if going:
        _advance_inlined(state, seat, first, duty, laid, double, in_turn)


@compiled(cache=True, refcounts=False, boundscheck=True)
def resume_turn(state):
    """The words the step keeps beside the table's (each train's fitting tiles, the
    markers as bits, the turn's trains), written from the table's own: for a state
    whose view part was written from elsewhere (the forward model's world_from_view),
    standing at the decision of state[SEAT] as FIRST_TURN and DUTY say."""
    bits = 0
    for tr in range(state[PLAYERS] + 1):
        _set_end(state, tr, state[TRAIN_END + tr])
    for s in range(state[PLAYERS]):
        if state[TRAIN_MARKED + s] != 0:
            bits |= 1 << s
    state[W_MARKED_BITS] = bits
    _scan_turn(state, state[SEAT], state[FIRST_TURN] != 0, state[DUTY] != 0)


@compiled(cache=True, refcounts=False)
def engine_tile(state, rnd):
    """The tile number of round rnd's engine double (N-rnd)|(N-rnd) (R4), counted from
    docs/rules.md's tile numbering (pips descending, ties by the higher half descending):
    the tiles of more pips than 2n, then those of 2n pips with a higher half than n."""
    top = state[MAX_PIP]
    n = top - rnd
    before = min(2 * n, top) - n
    for s in range(2 * n + 1, 2 * top + 1):  # a|b, a <= b <= N, a + b = s
        before += min(s, top) - (s + 1) // 2 + 1
    return before


@compiled(cache=True, refcounts=False)
def new_round(state, seed, deal, rnd):
    """Round ``rnd`` of a match whose fixed part (the rules, the tiles) the state holds:
    dealt by R3/R5's shuffle of (seed, deal, round), then started (start_round). Each
    seat's stream, notes and score are the match's and stay as they are."""
    start_round(state, rnd, shuffle_deal(state, seed, deal, rnd))


@compiled(cache=True, refcounts=False)
def shuffle_deal(state, seed, deal, rnd):
    """R3/R5: the tiles (without the engine when it is set aside) Fisher-Yates shuffled
    from (seed, deal, round) into the state's boneyard words; returns how many."""
    set_aside = state[RULE_SET_ASIDE] != 0
    e_tile = engine_tile(state, rnd)
    n = 0
    for t in range(state[TILES]):
        if not (set_aside and t == e_tile):
            state[W_BONEYARD + n] = t
            n += 1
    r0, r1, r2, r3 = seed_words(stream_key(seed, deal, STREAM_SHUFFLE, rnd))
    for i in range(n - 1, 0, -1):
        j, r0, r1, r2, r3 = xoshiro_bounded(i + 1, r0, r1, r2, r3)
        tmp = state[W_BONEYARD + i]
        state[W_BONEYARD + i] = state[W_BONEYARD + j]
        state[W_BONEYARD + j] = tmp
    return n


@compiled(cache=True, refcounts=False)
def start_round(state, rnd, n):
    """Round ``rnd`` from the deal in the state's first ``n`` boneyard words (hands
    first, as the shuffle lays it out): seats take their tiles from the front (R3), R5's
    engine is placed (drawn for when nobody holds it), the public table is fresh; then
    on to the first decision."""
    players = state[PLAYERS]
    hand_size = state[RULE_HAND_SIZE]
    set_aside = state[RULE_SET_ASIDE] != 0
    engine = state[MAX_PIP] - rnd  # R4
    e_tile = engine_tile(state, rnd)
    for s in range(MAX_PLAYERS):
        for w in range(4):
            state[W_HANDS + 4 * s + w] = 0
        state[HAND_SIZE + s] = hand_size if s < players else 0
        state[W_PLAYED + s] = 0
        state[W_TURNS + s] = 0
        state[W_PENALTY + s] = 0
        state[W_LEFT + s] = 0
    for s in range(players):  # seats take hand_size tiles each from the front (R3)
        for k in range(s * hand_size, s * hand_size + hand_size):
            give_tile(state, s, state[W_BONEYARD + k])
    state[W_DRAWN] = players * hand_size
    state[W_BONEYARD_END] = n
    state[ROUND] = rnd
    state[ENGINE] = engine
    new_trains(state, engine)
    state[LAID_THIS_TURN] = 0
    for k in range(TRAIN_TILES, HISTORY_LEN):  # the public table (R17)
        state[k] = 0
    for k in range(HISTORY, max(state[W_HISTORY_END], HISTORY + state[HISTORY_LEN])):
        state[k] = 0
    state[HISTORY_LEN] = 0
    state[W_HISTORY_END] = HISTORY
    state[TABLE_TILES + (e_tile >> 6)] = _bit(e_tile)
    state[W_OUTCOME] = OUTCOME_GOES_ON
    state[W_WENT_OUT] = -1
    # R5: the engine and the first player
    if set_aside:
        seat = rnd % players
    else:
        seat = -1
        for s in range(players):
            if holds(state, W_HANDS + 4 * s, e_tile):
                seat = s
        if seat < 0:  # nobody holds it: draw clockwise until it turns up
            seat = rnd % players
            while _draw(state, seat) != e_tile:
                seat = seat + 1 if seat + 1 < players else 0
        state[W_HANDS + 4 * seat + (e_tile >> 6)] ^= _bit(e_tile)
        state[HAND_SIZE + seat] -= 1
    state[FIRST_MOVER] = seat
    _history(state, H_ENGINE, seat, e_tile, -1)
    # the first mover's first turn (R5: who places the engine moves first)
    first, duty = _begin_turn(state, seat)
    _advance(state, seat, first, duty, 0, False, True)


@compiled(cache=True, refcounts=False)
def end_round(state):
    """R16: the round's penalties added to each seat's match score."""
    for s in range(state[PLAYERS]):
        state[SCORE + s] += state[W_PENALTY + s]


@compiled(cache=True, refcounts=False)
def observe(state, seat, n_notes, view):
    """``seat``'s view (R17) into ``view`` (zero, or written by observe before): the public
    table and the rules, the seat's own hand, random stream and first ``n_notes`` notes;
    the legal moves when it is the seat to move (else none, and SEAT is ``seat``)."""
    deciding = state[W_OUTCOME] == OUTCOME_GOES_ON and state[SEAT] == seat
    shown_moves = view[N_MOVES]
    shown_history = view[HISTORY_LEN]
    for k in range(MOVE_TILE):
        view[k] = state[k]
    view[SEAT] = seat
    if not deciding:
        view[N_MOVES] = 0
        view[FIRST_TURN] = 0
        view[DUTY] = 0
        view[LAID_THIS_TURN] = 0
    for w in range(4):
        view[HAND + w] = state[W_HANDS + 4 * seat + w] if w < MAX_WORDS else 0
        view[RNG + w] = state[W_STREAMS + 4 * seat + w]
    for k in range(MAX_MEMORY):
        view[NOTES + k] = state[W_NOTES + MAX_MEMORY * seat + k] if k < n_notes else 0
    nm = view[N_MOVES]
    for k in range(nm):
        view[MOVE_TILE + k] = state[MOVE_TILE + k]
        view[MOVE_TRAIN + k] = state[MOVE_TRAIN + k]
    for k in range(nm, shown_moves):
        view[MOVE_TILE + k] = 0
        view[MOVE_TRAIN + k] = 0
    n_hist = state[HISTORY_LEN]
    for k in range(TRAIN_TILES, HISTORY + n_hist):
        view[k] = state[k]
    for k in range(HISTORY + n_hist, HISTORY + shown_history):
        view[k] = 0


@compiled(cache=True, refcounts=False)
def take_back(state, seat, n_notes, view):
    """What a decide may keep from one decision to the next, from the view it was shown
    back into the state: its stream and its first ``n_notes`` notes."""
    for k in range(4):
        state[W_STREAMS + 4 * seat + k] = view[RNG + k]
    for k in range(n_notes):
        state[W_NOTES + MAX_MEMORY * seat + k] = view[NOTES + k]


@compiled(cache=True, refcounts=False)
def new_match(state, seed, deal):
    """A match begins on a state whose fixed part is written (the rules and tiles:
    kernel_view.fill_static_view): each seat's stream from (seed, deal, seat), as the core
    seeds it, and every note and score at zero."""
    for s in range(MAX_PLAYERS):
        state[SCORE + s] = 0
        for k in range(MAX_MEMORY):
            state[W_NOTES + MAX_MEMORY * s + k] = 0
    for s in range(state[PLAYERS]):
        r0, r1, r2, r3 = seed_words(strategy_key(seed, deal, s))
        state[W_STREAMS + 4 * s] = np.int64(r0)
        state[W_STREAMS + 4 * s + 1] = np.int64(r1)
        state[W_STREAMS + 4 * s + 2] = np.int64(r2)
        state[W_STREAMS + 4 * s + 3] = np.int64(r3)
