"""The built-in early_doubles' choice, made by the kernel without filling the view.

mexsim/strategy/builtin/early_doubles.py is the strategy as a user reads it: lay the
heaviest double (on the own train first, with ``own_first``); having laid one this
turn, follow the newest open double with the heaviest tile that leaves an end the hand
holds another tile for; else the heaviest tile. Its seats cost the kernel the view's
fill and a call at every decision (~5 % of a match of the default table, docs/speed-history.md,
"ninth pass"), so for the shipped file (enums.Calling.early_doubles_in_kernel) the
kernel applies the same rule to its private table: the listed moves, the hand's words
and the open doubles, where the view would have shown them. A user's copy is called;
tests/strategy/test_plugins.py plays one against the other, move for move.
"""

from __future__ import annotations

import numpy as np

from mexsim.game.private_table import HI_COPY, LO_COPY, NUMBER_COPY
from mexsim.game.view import MAX_WORDS, MOVE_TILE, MOVE_TRAIN, OPEN_DOUBLES, TRAIN_END
from mexsim.jit.options import compiled

# unsigned: numba tests a signed index for a negative value at every access
UMOVE_TILE = np.uint64(MOVE_TILE)
UMOVE_TRAIN = np.uint64(MOVE_TRAIN)
UTRAIN_END = np.uint64(TRAIN_END)


# A call of its own, compiled without numba's reference counts: inlined into the turn
# loop, which keeps them, each array it takes took and dropped a count at every
# decision (a third of a match of 4 x early_doubles in those atomic adds: docs/speed-history.md,
# "tenth pass")
@compiled(cache=True, refcounts=False)
def early_doubles_choice(st, hand_at, seat, nm, laid, n_open, own_first):
    """The move early_doubles chooses among the nm listed in ``st`` (the kernel's
    private table, laid out as the view, with copies of the tile tables: private_table.py),
    for the mover ``seat`` whose hand is the words at st[hand_at:], having laid ``laid``
    tiles this turn with ``n_open`` open doubles. (One array: each array argument is
    seven words to pass.)"""
    heaviest = 0
    heaviest_tile = st[UMOVE_TILE]
    double = -1
    double_own = False
    double_tile = 0
    for i in range(nm):
        tile = st[UMOVE_TILE + np.uint64(i)]
        if tile < heaviest_tile:  # tiles are numbered heaviest first
            heaviest = i
            heaviest_tile = tile
        if st[LO_COPY + tile] == st[HI_COPY + tile]:
            own = st[UMOVE_TRAIN + np.uint64(i)] == seat
            if (
                double < 0
                or (own_first and own and not double_own)
                or ((own == double_own or not own_first) and tile < double_tile)
            ):
                double = i
                double_own = own
                double_tile = tile
    if double >= 0:
        return double
    if laid > 0 and n_open > 0:
        # following its own double (the newest open one): a tile whose other end the
        # hand holds another tile for, the heaviest such; else the heaviest
        train = st[OPEN_DOUBLES + n_open - 1]
        best = -1
        best_tile = 0
        best_keeps = False
        for i in range(nm):
            if st[UMOVE_TRAIN + np.uint64(i)] != train:
                continue
            tile = st[UMOVE_TILE + np.uint64(i)]
            a = st[LO_COPY + tile]
            end = st[HI_COPY + tile] if a == st[UTRAIN_END + np.uint64(train)] else a
            held = np.uint64(0)
            for w in range(MAX_WORDS):
                word = np.uint64(st[hand_at + w]) & np.uint64(st[NUMBER_COPY + end * MAX_WORDS + w])
                if w == tile >> 6:
                    word &= ~(np.uint64(1) << np.uint64(tile & 63))
                held |= word
            keeps = held != 0
            if best < 0 or (keeps and not best_keeps) or (keeps == best_keeps and tile < best_tile):
                best = i
                best_tile = tile
                best_keeps = keeps
        if best >= 0:
            return best
    return heaviest
