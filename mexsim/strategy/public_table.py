"""The public table by name (R17): which tiles are out, where, and what each seat did.

Everything here is what every player at a real table sees: the tiles on each train and
the round's engine, the round's events in order (who laid which tile where, who drew,
who passed and put out a marker) and each seat's counters. Nothing here says which
tile a seat drew: the drawer finds it in its own hand.

Like mexsim.strategy.access, every accessor is ``@njit(inline="always")``: pasted into
the caller, a single load where it reads one word. ``lacking_numbers`` replays the
round's history (a few hundred words at most) each call.

The history's entries are read by position ``i`` in ``0 .. history_length(view) - 1``,
oldest first; ``history_kind`` is one of H_ENGINE, H_PLAY, H_DRAW, H_PASS, H_MARK
(mexsim/game/view.py). Draws made while searching for the engine (R5, engine =
"holder") come before the H_ENGINE entry.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mexsim.game.view import (
    ENGINE,
    FIRST_MOVER,
    H_DRAW,
    H_ENGINE,
    H_PLAY,
    HAND,
    HISTORY,
    HISTORY_LEN,
    MAX_TRAINS,
    MAX_WORDS,
    NUMBER_MASK,
    PASS_COUNT,
    PLAYERS,
    RULE_MEXICAN_TRAIN,
    SEAT_DRAWS,
    SEAT_PASSES,
    SEAT_STARTED,
    TABLE_TILES,
    TILE_HI,
    TILE_LO,
    TILES,
    TRAIN_TILES,
)
from mexsim.planner.stack_array import stack_array
from mexsim.strategy.access import _ix

inline = njit(inline="always")

_u = np.uint64
U1 = _u(1)
U2 = _u(2)
U6 = _u(6)
UHAND = _u(HAND)
UHISTORY = _u(HISTORY)
UNUMBER_MASK = _u(NUMBER_MASK)
USEAT_DRAWS = _u(SEAT_DRAWS)
USEAT_PASSES = _u(SEAT_PASSES)
USEAT_STARTED = _u(SEAT_STARTED)
UTABLE_TILES = _u(TABLE_TILES)
UTILE_HI = _u(TILE_HI)
UTILE_LO = _u(TILE_LO)
UTRAIN_TILES = _u(TRAIN_TILES)
UWORDS = _u(MAX_WORDS)
_REPLAY_SLOTS = 2 * MAX_TRAINS  # lacking_numbers' scratch (a constant: numba's literal)

# --------------------------------------------------------------- tiles out and unseen


@inline
def is_played(view, tile):
    """Whether ``tile`` is on the table: on a train, or the round's engine."""
    word = np.uint64(view[UTABLE_TILES + (_ix(tile) >> U6)])
    return (word >> np.uint64(tile & 63)) & U1 == U1


@inline
def played_word(view, w):
    """Word ``w`` of the bitmask of the tiles on the table (the engine included)."""
    return np.uint64(view[UTABLE_TILES + _ix(w)])


@inline
def train_tiles_word(view, train, w):
    """Word ``w`` of the bitmask of the tiles on ``train`` (bit t of word t >> 6)."""
    return np.uint64(view[UTRAIN_TILES + (_ix(train) << U2) + _ix(w)])


@inline
def unseen_word(view, w):
    """Word ``w`` of the bitmask of the unseen tiles: in the set, neither on the table
    nor in the mover's hand (so in another hand or the boneyard)."""
    t = view[TILES]
    first = w * 64
    if t <= first:
        in_set = np.uint64(0)
    elif t - first >= 64:
        in_set = ~np.uint64(0)
    else:
        in_set = (U1 << np.uint64(t - first)) - U1
    return in_set & ~np.uint64(view[UTABLE_TILES + _ix(w)]) & ~np.uint64(view[UHAND + _ix(w)])


@inline
def is_unseen(view, tile):
    """Whether ``tile`` is in another hand or the boneyard: neither the mover's nor on
    the table."""
    bit = np.uint64(tile & 63)
    w = _ix(tile) >> U6
    seen = np.uint64(view[UTABLE_TILES + w]) | np.uint64(view[UHAND + w])
    return 0 <= tile < view[TILES] and (seen >> bit) & U1 == 0


@inline
def unseen_carrying(view, number):
    """How many unseen tiles carry ``number``: 0 means no other seat can ever follow a
    train ending in it but from the boneyard's draws, and none lies there either."""
    count = 0
    for w in range(MAX_WORDS):
        bits = unseen_word(view, w) & np.uint64(view[UNUMBER_MASK + _ix(number) * UWORDS + _ix(w)])
        while bits:
            count += 1
            bits &= bits - U1
    return count


@inline
def train_of(view, tile):
    """The train ``tile`` lies on, or -1 (not laid on a train: unplayed, or the engine)."""
    bit = np.uint64(tile & 63)
    w = _ix(tile) >> U6
    for train in range(view[PLAYERS] + 1):
        if (np.uint64(view[UTRAIN_TILES + (np.uint64(train) << U2) + w]) >> bit) & U1:
            return train
    return -1


# --------------------------------------------------------------- the seats' counters


@inline
def draws_this_round(view, seat):
    """Tiles ``seat`` drew this round (those drawn searching for the engine too)."""
    return view[USEAT_DRAWS + _ix(seat)]


@inline
def passes_this_round(view, seat):
    """Times ``seat`` passed this round."""
    return view[USEAT_PASSES + _ix(seat)]


@inline
def has_started(view, seat):
    """Whether ``seat``'s first turn of the round has begun (R11)."""
    return view[USEAT_STARTED + _ix(seat)] == 1


@inline
def pass_count(view):
    """R15's count: the round is blocked when it reaches P with the boneyard empty."""
    return view[PASS_COUNT]


@inline
def first_mover(view):
    """The seat that placed the engine and moved first this round (R5)."""
    return view[FIRST_MOVER]


# --------------------------------------------------------------- the round's history


@inline
def history_length(view):
    """The round's public events so far."""
    return view[HISTORY_LEN]


@inline
def history_kind(view, i):
    """Event ``i``'s kind: H_ENGINE, H_PLAY, H_DRAW, H_PASS or H_MARK."""
    return view[UHISTORY + _ix(i)] & 15


@inline
def history_seat(view, i):
    """The seat that acted in event ``i``."""
    return (view[UHISTORY + _ix(i)] >> 4) & 15


@inline
def history_tile(view, i):
    """The tile of event ``i`` (laid, or the engine placed), -1 for a draw or pass."""
    return ((view[UHISTORY + _ix(i)] >> 8) & 255) - 1


@inline
def history_train(view, i):
    """The train event ``i`` laid its tile on, -1 for any other event."""
    return ((view[UHISTORY + _ix(i)] >> 16) & 15) - 1


@inline
def _usable_ends(ends, seat, duty_train, first, open_at_start, players, mexican):
    """The numbers a seat could have played on at a moment of its turn: the oldest open
    double's end on duty (R13), its own train's on a first turn (R11), else its own,
    the Mexican train's (if the table has one, R19) and the ends of the trains marked
    when the turn began (R7)."""
    if duty_train >= 0:
        return np.int64(1) << ends[duty_train]
    numbers = np.int64(1) << ends[seat]
    if not first:
        if mexican:
            numbers |= np.int64(1) << ends[players]
        for t in range(players):
            if (open_at_start >> t) & 1:
                numbers |= np.int64(1) << ends[t]
    return numbers


@inline
def lacking_numbers(view, seat):
    """The numbers ``seat`` has shown it holds no tile of, as a bitmask (bit n: number n):
    it drew or passed while they were playable for it, and has not drawn since (a draw
    it then could not play, or laid, shows the same again; at the decision right after
    a draw nothing is known yet: 0). Always true of its hand, never a guess.

    Replays the round's history: the trains' ends, markers and open doubles as each
    turn began (a turn is a run of events of one seat)."""
    players = view[PLAYERS]
    mexican = view[RULE_MEXICAN_TRAIN] != 0
    # no array allocated (a built-in's decide is compiled without reference counts):
    # the trains' ends, then the open doubles' trains oldest first, in the frame
    scratch = stack_array(_REPLAY_SLOTS)
    ends = scratch[:MAX_TRAINS]
    doubles = scratch[MAX_TRAINS:]
    for t in range(MAX_TRAINS):
        ends[t] = view[ENGINE]
    n_open = 0
    marked = 0
    started = 0
    placed = False
    mover = -1
    duty_train = -1
    first = False
    open_at_start = 0
    lacks = np.int64(0)
    pending = np.int64(0)  # what it lacked as it drew its last tile
    drawing = False  # its last event was a draw: is the drawn tile laid or kept?
    for i in range(view[HISTORY_LEN]):
        entry = view[UHISTORY + _ix(i)]
        kind = entry & 15
        s = (entry >> 4) & 15
        if kind == H_ENGINE:
            placed = True
            continue
        if not placed:
            continue  # drawn searching for the engine: no turn yet
        if s != mover:  # a new turn: its scope is fixed as it begins
            mover = s
            duty_train = doubles[0] if n_open > 0 else -1
            first = (started >> s) & 1 == 0
            started |= 1 << s
            open_at_start = marked & ~(1 << s)
        if kind == H_PLAY:
            tile = ((entry >> 8) & 255) - 1
            train = ((entry >> 16) & 15) - 1
            lo = view[UTILE_LO + _ix(tile)]
            hi = view[UTILE_HI + _ix(tile)]
            ends[train] = lo + hi - ends[train]
            if train == s:
                marked &= ~(1 << s)
            for k in range(n_open):
                if doubles[k] == train:
                    for j in range(k, n_open - 1):
                        doubles[j] = doubles[j + 1]
                    n_open -= 1
                    break
            if lo == hi:
                doubles[n_open] = train
                n_open += 1
            if s == seat and drawing:
                # the tile just drawn was this one (nothing else fitted): the hand is
                # as it was before the draw
                lacks |= pending
                drawing = False
        elif s == seat:
            numbers = _usable_ends(ends, s, duty_train, first, open_at_start, players, mexican)
            if kind == H_DRAW:
                # nothing fitted; the tile drawn may carry any number until it is laid
                # or it passes. A tile drawn before it and kept fitted nothing then, but
                # may carry what it lacked earlier
                if drawing:
                    lacks = pending
                pending = numbers
                drawing = True
            else:
                # a pass: nothing fits; a tile drawn and kept may carry what it lacked
                # before the draw
                lacks = (pending if drawing else lacks) | numbers
                drawing = False
                marked |= 1 << s
        elif kind != H_DRAW:
            marked |= 1 << s
    return 0 if drawing else lacks
