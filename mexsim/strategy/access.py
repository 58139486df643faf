"""The decision view by name: accessors a strategy calls instead of raw offsets.

Every accessor is ``@njit(inline="always")``: numba pastes its body into the caller
before optimising, so ``train_end(view, t)`` compiles to the same single load as
``view[TRAIN_END + t]`` — no call, no reference counting of the array (a plain call
that takes an array costs an atomic increment and decrement). The view layout stays
one int64 array (mexsim.game.view), so the engines, the referee's tests and a
strategy written against raw offsets are untouched. ``hand_tiles`` is a generator:
numba compiles it into the loop that uses it (measured as fast as the hand-written
bit loop, benchmarks/bench_view_api.py).

Conventions (docs/rules.md): tiles are numbered heaviest first (tile 0 is N|N), so
"heavier" is "lower number"; seats are trains 0..P-1 and the Mexican train is train P;
moves are listed in the engine's order (own train, Mexican, then clockwise).
"""

from __future__ import annotations

import operator
from collections import namedtuple
from collections.abc import Mapping
from typing import Any

import numpy as np
from numba import njit, types
from numba.core.errors import TypingError
from numba.extending import overload

from mexsim.game.view import (
    BONEYARD,
    DUTY,
    ENGINE,
    EXPLAINING,
    FIRST_TURN,
    HAND,
    HAND_SIZE,
    LAID_THIS_TURN,
    MAX_PIP,
    MAX_WORDS,
    MOVE_TILE,
    MOVE_TRAIN,
    N_MOVES,
    N_OPEN,
    NOTES,
    NUMBER_MASK,
    OPEN_DOUBLES,
    PLAYERS,
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
    TILE_HI,
    TILE_LO,
    TILE_PIPS,
    TILES,
    TRAIN_END,
    TRAIN_LEN,
    TRAIN_MARKED,
)
from mexsim.jit.bits import trailing_zeros

inline = njit(inline="always")

# Indices into the view as unsigned numbers: numba tests a signed index for a negative
# value on every access (Python's wraparound: a compare, a conditional move and an
# address computation), which an unsigned one cannot hold (docs/speed-history.md, third pass).
# The accessors cast their index with _ix (integers only) and add these offsets. The
# sum wraps as int64's did, so every index that lands in the view reads the same word as before;
# a sum below zero, which Python's wraparound sent to the view's far end, is now past
# the view: an IndexError in a user's strategy (compiled with the bounds check).
_u = np.uint64
U6 = _u(6)
UHAND = _u(HAND)
UHAND_SIZE = _u(HAND_SIZE)
UMOVE_TILE = _u(MOVE_TILE)
UN_MOVES = _u(N_MOVES)
UMOVE_TRAIN = _u(MOVE_TRAIN)
UNOTES = _u(NOTES)
UNUMBER_MASK = _u(NUMBER_MASK)
UOPEN_DOUBLES = _u(OPEN_DOUBLES)
USCORE = _u(SCORE)
UTILE_HI = _u(TILE_HI)
UTILE_LO = _u(TILE_LO)
UTILE_PIPS = _u(TILE_PIPS)
UTRAIN_END = _u(TRAIN_END)
UTRAIN_LEN = _u(TRAIN_LEN)
UTRAIN_MARKED = _u(TRAIN_MARKED)
UWORDS = _u(MAX_WORDS)


def _ix(i):
    """An accessor's index as an unsigned number (compiled: see _ix_typed)."""
    return np.uint64(operator.index(i))


@overload(_ix, inline="always")
def _ix_typed(i):
    # np.uint64(i) truncates a float: an index computed with / (a float) would read a
    # neighbouring word silently, where view[offset + float] was numba's typing error
    if not isinstance(i, (types.Integer, types.Boolean)):
        raise TypingError(f"an accessor's index must be an integer, got {i}")
    return lambda i: np.uint64(i)


# --------------------------------------------------------------- the table


@inline
def my_seat(view):
    """The deciding seat (its own train has the same number)."""
    return view[SEAT]


@inline
def players(view):
    """P, the number of seats."""
    return view[PLAYERS]


@inline
def round_number(view):
    """The round, 0-based."""
    return view[ROUND]


@inline
def engine_number(view):
    """The number of this round's engine double (N - round)."""
    return view[ENGINE]


@inline
def max_pip(view):
    """N of the double-N set."""
    return view[MAX_PIP]


@inline
def tile_count(view):
    """T, the tiles in the set (tile numbers 0..T-1)."""
    return view[TILES]


@inline
def boneyard_size(view):
    """Tiles left to draw."""
    return view[BONEYARD]


@inline
def first_turn(view):
    """True during the mover's first turn of the round (R11)."""
    return view[FIRST_TURN] == 1


@inline
def on_duty(view):
    """True when the legal moves serve the oldest open double (R13)."""
    return view[DUTY] == 1


@inline
def laid_this_turn(view):
    """Tiles the mover has laid so far this turn (> 0 after its own double, R12)."""
    return view[LAID_THIS_TURN]


@inline
def hand_size(view, seat):
    """Tiles in a seat's hand (any seat's; only the mover's own tiles are shown)."""
    return view[UHAND_SIZE + _ix(seat)]


@inline
def score(view, seat):
    """A seat's total of the previous rounds."""
    return view[USCORE + _ix(seat)]


# --------------------------------------------------------------- trains


@inline
def mexican_train(view):
    """The Mexican train's number (P); see ``has_mexican_train``."""
    return view[PLAYERS]


# --------------------------------------------------------------- the rules (docs/rules.md)


@inline
def has_mexican_train(view):
    """Whether the table has a Mexican train (R19: ``mexican_train = false`` has none)."""
    return view[RULE_MEXICAN_TRAIN] != 0


@inline
def draw_limit(view):
    """Tiles a player draws for one play it cannot make (R18): 1 by default; the set's
    size under ``draw_limit = "until_playable"``."""
    return view[RULE_DRAW_LIMIT]


@inline
def first_turn_is_train(view):
    """Whether a first turn lays a chain on the own train (R11 ``first_turn = "train"``)."""
    return view[RULE_FIRST_TURN_TRAIN] != 0


@inline
def engine_set_aside(view):
    """Whether the engine is set aside before the deal (R5 ``engine = "set_aside"``)."""
    return view[RULE_SET_ASIDE] != 0


@inline
def draws_to_start(view):
    """Whether a player without a started train keeps drawing (R11 ``draw_to_start``)."""
    return view[RULE_DRAW_TO_START] != 0


@inline
def double_blank_points(view):
    """What 0|0 left in a hand scores (R16)."""
    return view[RULE_DOUBLE_BLANK_POINTS]


@inline
def dealt_hand_size(view):
    """Tiles dealt to each seat at the start of a round (R3)."""
    return view[RULE_HAND_SIZE]


@inline
def explaining(view):
    """Whether ``mexsim replay --moves`` is asking why: what the strategy ``print``s now
    is shown beside its choice. Never true in a run, so an explanation costs a run
    nothing; it must not change the move (the replay checks that it does not)."""
    return view[EXPLAINING] != 0


@inline
def is_mexican(view, train):
    return train == view[PLAYERS]


@inline
def is_mine(view, train):
    """Whether ``train`` is the mover's own train."""
    return train == view[SEAT]


@inline
def train_owner(view, train):
    """The seat that owns ``train``, or -1 for the Mexican train."""
    return -1 if train == view[PLAYERS] else train


@inline
def train_end(view, train):
    """The number a tile must carry to go on ``train``."""
    return view[UTRAIN_END + _ix(train)]


@inline
def train_length(view, train):
    """Tiles on ``train`` (0 while it is only the engine's number)."""
    return view[UTRAIN_LEN + _ix(train)]


@inline
def is_marked(view, train):
    """Whether ``train`` carries a marker (open to everyone, R8)."""
    return view[UTRAIN_MARKED + _ix(train)] == 1


@inline
def open_double_count(view):
    """Open doubles on the table (R13)."""
    return view[N_OPEN]


@inline
def open_double_train(view, k):
    """The train of the k-th open double, oldest first (k = 0 is the one R13 serves)."""
    return view[UOPEN_DOUBLES + _ix(k)]


# --------------------------------------------------------------- tiles


@inline
def low(view, tile):
    """A tile's smaller half."""
    return view[UTILE_LO + _ix(tile)]


@inline
def high(view, tile):
    """A tile's larger half."""
    return view[UTILE_HI + _ix(tile)]


@inline
def pips(view, tile):
    """A tile's face value (what it costs left in hand)."""
    return view[UTILE_PIPS + _ix(tile)]


@inline
def is_double(view, tile):
    return view[UTILE_LO + _ix(tile)] == view[UTILE_HI + _ix(tile)]


@inline
def carries(view, tile, number):
    """Whether either half of ``tile`` is ``number``."""
    return view[UTILE_LO + _ix(tile)] == number or view[UTILE_HI + _ix(tile)] == number


@inline
def other_end(view, tile, number):
    """The open end ``tile`` leaves when laid against ``number`` (which it carries)."""
    lo = view[UTILE_LO + _ix(tile)]
    return view[UTILE_HI + _ix(tile)] if lo == number else lo


@inline
def heavier(a, b):
    """Whether tile ``a`` is heavier than tile ``b`` (tiles are numbered heaviest first)."""
    return a < b


@njit(boundscheck=True)  # not inlined: checked here, whoever calls it
def tile_text(view, tile):
    """A tile as text, higher half first (``12|5``): for ``print`` while debugging."""
    return str(view[UTILE_HI + _ix(tile)]) + "|" + str(view[UTILE_LO + _ix(tile)])


# --------------------------------------------------------------- the own hand


@inline
def holds(view, tile):
    """Whether the mover's hand holds ``tile``."""
    return (np.uint64(view[UHAND + (_ix(tile) >> U6)]) >> np.uint64(tile & 63)) & np.uint64(1) == 1


@njit(boundscheck=True)  # as tile_text
def hand_tiles(view):
    """The mover's tiles, heaviest first: ``for tile in hand_tiles(view):``."""
    for w in range(MAX_WORDS):
        bits = np.uint64(view[UHAND + _ix(w)])
        while bits:
            yield w * 64 + trailing_zeros(bits)
            bits &= bits - np.uint64(1)


@inline
def count_carrying(view, number, skip):
    """How many tiles of the mover's hand carry ``number``, not counting tile ``skip``
    (pass -1 to count them all)."""
    count = 0
    for w in range(MAX_WORDS):
        bits = np.uint64(view[UHAND + _ix(w)]) & np.uint64(
            view[UNUMBER_MASK + _ix(number) * UWORDS + _ix(w)]
        )
        if skip >= 0 and w == skip >> 6:
            bits &= ~(np.uint64(1) << np.uint64(skip & 63))
        while bits:
            count += 1
            bits &= bits - np.uint64(1)
    return count


@inline
def hand_word(view, w):
    """Word ``w`` of the mover's hand as a bitmask (bit t of word t >> 6 is tile t; for
    strategies that work on whole sets of tiles at once)."""
    return np.uint64(view[UHAND + _ix(w)])


@inline
def carrying_word(view, number, w):
    """Word ``w`` of the bitmask of every tile that carries ``number``."""
    return np.uint64(view[UNUMBER_MASK + _ix(number) * UWORDS + _ix(w)])


@inline
def tile_tables(view):
    """Every tile's (low, high, pips), as arrays indexed by tile number."""
    t = view[TILES]
    return (
        view[TILE_LO : TILE_LO + t],
        view[TILE_HI : TILE_HI + t],
        view[TILE_PIPS : TILE_PIPS + t],
    )


# --------------------------------------------------------------- the legal moves


@inline
def move_count(view):
    """The legal moves offered (always at least 2: a forced move is not asked)."""
    return view[N_MOVES]


@inline
def _legal(view, i):
    """``i`` as an index of a legal move; IndexError past them. The words beyond the
    moves are inside the view, so numba's bounds check cannot see a loop that reads one
    move too many (``move_tile(view, i + 1)``): it read a cleared word as tile 0."""
    k = _ix(i)
    if k >= _ix(view[UN_MOVES]):
        raise IndexError("move index past the legal moves (allowed: 0 .. move_count(view) - 1)")
    return k


@inline
def move_tile(view, i):
    """The tile legal move ``i`` lays."""
    return view[UMOVE_TILE + _legal(view, i)]


@inline
def move_train(view, i):
    """The train legal move ``i`` lays it on."""
    return view[UMOVE_TRAIN + _legal(view, i)]


@inline
def move_end(view, i):
    """The open end legal move ``i`` leaves on its train."""
    i = _legal(view, i)
    tile = view[UMOVE_TILE + i]
    lo = view[UTILE_LO + _ix(tile)]
    end = view[UTRAIN_END + _ix(view[UMOVE_TRAIN + _ix(i)])]
    return view[UTILE_HI + _ix(tile)] if lo == end else lo


# --------------------------------------------------------------- notes and parameters


@inline
def note(view, k):
    """Word k of the strategy's notes (kept between its decisions; needs MEMORY > k)."""
    return view[UNOTES + _ix(k)]


@inline
def set_note(view, k, value):
    view[UNOTES + _ix(k)] = value


@inline
def int_param(params, k):
    """Parameter ``k`` as an integer, rounded half up (parameters arrive as floats:
    a sweep over 1, 2, 3 gives 1.0, 2.0, 3.0)."""
    return np.int64(np.floor(params[k] + 0.5))


@inline
def flag_param(params, k):
    """Parameter ``k`` as a yes/no flag (>= 0.5 is yes)."""
    return params[k] >= 0.5


def param_index(params: Mapping[str, float | tuple[float, float, float]]) -> Any:
    """A named tuple of the PARAMS positions, so ``params[P.pip_weight]`` reads by name:
    ``P = param_index(PARAMS)`` at module level (numba freezes it as constants)."""
    return namedtuple("ParamIndex", list(params))(*range(len(params)))
