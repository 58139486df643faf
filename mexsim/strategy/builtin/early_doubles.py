"""early_doubles: seed 000's other advice — get doubles down early.

It lays a double whenever it can (on its own train first, when ``own_first`` is 1),
the heaviest first. Having laid one, it follows it with the tile that best satisfies
it: one whose open end it can go on with later, the heaviest such. Otherwise it plays
its heaviest tile.
"""

import numpy as np

from mexsim.game.view import (
    HAND,
    LAID_THIS_TURN,
    MAX_WORDS,
    MOVE_TILE,
    MOVE_TRAIN,
    N_MOVES,
    N_OPEN,
    NUMBER_MASK,
    OPEN_DOUBLES,
    SEAT,
    TILE_HI,
    TILE_LO,
    TRAIN_END,
)
from mexsim.strategy.api import strategy

NAME = "early_doubles"
DESCRIPTION = "lays doubles as soon as possible, follows them well, else heaviest"
PARAMS = {"own_first": (1.0, 0.0, 1.0)}  # (default, lowest, highest): a switch


@strategy
def decide(view, params):
    seat = view[SEAT]
    own_first = params[0] >= 0.5
    best_double = -1
    best_double_own = False
    heaviest = 0
    for i in range(view[N_MOVES]):
        t = view[MOVE_TILE + i]
        if t < view[MOVE_TILE + heaviest]:
            heaviest = i
        if view[TILE_LO + t] == view[TILE_HI + t]:
            own = view[MOVE_TRAIN + i] == seat
            better = best_double < 0 or (own_first and own and not best_double_own) or (
                (own == best_double_own or not own_first) and t < view[MOVE_TILE + best_double])
            if better:
                best_double = i
                best_double_own = own
    if best_double >= 0:
        return best_double

    if view[LAID_THIS_TURN] > 0 and view[N_OPEN] > 0:
        # following its own double (the newest open one): prefer a tile that leaves an
        # end it holds another tile for
        train = view[OPEN_DOUBLES + view[N_OPEN] - 1]
        end = view[TRAIN_END + train]
        best = -1
        best_keeps = False
        for i in range(view[N_MOVES]):
            if view[MOVE_TRAIN + i] != train:
                continue
            t = view[MOVE_TILE + i]
            lo = view[TILE_LO + t]
            new_end = view[TILE_HI + t] if lo == end else lo
            keeps = False
            for w in range(MAX_WORDS):
                mine = np.uint64(view[HAND + w]) & np.uint64(view[NUMBER_MASK +
                                                                  new_end * MAX_WORDS + w])
                if w == t >> 6:
                    mine &= ~(np.uint64(1) << np.uint64(t & 63))
                if mine:
                    keeps = True
            if best < 0 or (keeps and not best_keeps) or (
                    keeps == best_keeps and t < view[MOVE_TILE + best]):
                best = i
                best_keeps = keeps
        if best >= 0:
            return best
    return heaviest
