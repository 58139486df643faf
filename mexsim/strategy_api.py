"""What a strategy file imports: the decide signature, the decorator and view helpers.

A strategy is a file in ``strategies/`` (or a folder named by the config or
``--strategies``) defining::

    NAME = "my_strategy"                 # how configs name it
    DESCRIPTION = "one line"              # shown by `mexsim strategies`
    PARAMS = {"weight": 0.5}              # numbers, with defaults (at most 8)

    @strategy
    def decide(view, params):             # view: int64[:] (mexsim.view), params: float64[:]
        return 0                          # the index of the chosen legal move

``params`` holds the values in PARAMS order. ``decide`` must return an index in
``0 .. view[N_MOVES] - 1``; anything else stops the run with an error naming the
strategy, the match and the round.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

from mexsim.rng import xoshiro_bounded
from mexsim.view import (
    HAND,
    MAX_WORDS,
    MOVE_TILE,
    MOVE_TRAIN,
    N_MOVES,
    NUMBER_MASK,
    RNG,
    TILE_HI,
    TILE_LO,
    TILE_PIPS,
    WORDS,
)

DECIDE_SIGNATURE = types.int64(types.int64[::1], types.float64[::1])

# Compiled once for the fixed signature and cached on disk; numba checks the strategy
# file's own timestamp, so an edited strategy is recompiled, never stale.
strategy = njit(DECIDE_SIGNATURE, cache=True)


@njit(cache=True)
def random_below(view, n):
    """A uniform number in 0..n-1 from the mover's own stream (advances it)."""
    value, s0, s1, s2, s3 = xoshiro_bounded(
        n, np.uint64(view[RNG]), np.uint64(view[RNG + 1]), np.uint64(view[RNG + 2]),
        np.uint64(view[RNG + 3]))
    view[RNG] = np.int64(s0)
    view[RNG + 1] = np.int64(s1)
    view[RNG + 2] = np.int64(s2)
    view[RNG + 3] = np.int64(s3)
    return value


@njit(cache=True)
def n_moves(view):
    return view[N_MOVES]


@njit(cache=True)
def move_tile(view, i):
    return view[MOVE_TILE + i]


@njit(cache=True)
def move_train(view, i):
    return view[MOVE_TRAIN + i]


@njit(cache=True)
def is_double(view, tile):
    return view[TILE_LO + tile] == view[TILE_HI + tile]


@njit(cache=True)
def pips(view, tile):
    return view[TILE_PIPS + tile]


@njit(cache=True)
def other_end(view, tile, number):
    """The half of ``tile`` left open when it is laid against ``number``."""
    lo = view[TILE_LO + tile]
    return view[TILE_HI + tile] if lo == number else lo


@njit(cache=True)
def hand_word(view, w):
    return np.uint64(view[HAND + w])


@njit(cache=True)
def number_word(view, number, w):
    """Word w of the mask of tiles carrying ``number``."""
    return np.uint64(view[NUMBER_MASK + number * MAX_WORDS + w])


@njit(cache=True)
def hand_count(view):
    """Tiles in the mover's hand."""
    total = 0
    for w in range(view[WORDS]):
        m = np.uint64(view[HAND + w])
        while m:
            m &= m - np.uint64(1)
            total += 1
    return total


@njit(cache=True)
def heaviest_move(view):
    """The move with the heaviest tile (lowest number); ties go to the earliest move."""
    best = 0
    for i in range(1, view[N_MOVES]):
        if view[MOVE_TILE + i] < view[MOVE_TILE + best]:
            best = i
    return best
