"""The layout of the kernel's private table (scratch.st, mexsim/game/kernel.py).

It is the game's state (mexsim/game/state.py), which the step (mexsim/game/step.py)
advances: its first view.SIZE words are laid out as the view (the public table, the
tile tables, the moves listed at MOVE_TILE / MOVE_TRAIN), then every hand, the
boneyard and the round's counters. Beyond the state come what only the kernel keeps,
in the one array the round loop already holds rather than in arrays of their own (each
array the loop keeps live costs registers: docs/speed-history.md): how much of the view
a decision showed last, and the built-ins' scratch.
"""

from __future__ import annotations

from mexsim.game.state import W_HANDS, W_PLAYED, W_TURNS, WORLD_SIZE
from mexsim.game.view import (
    MAX_MEMORY,
    MAX_PLAYERS,
    NUMBER_MASK,
    SEAT_DRAWS,
    SEAT_PASSES,
    SIZE,
    TILE_HI,
    TILE_LO,
    TILE_PIPS,
)
from mexsim.planner.dense import SCRATCH as DENSE_SCRATCH

# bookkeeping of the view a decision shows: how many moves, params and notes the last
# decision showed, so that what lies beyond can be cleared
MOVES_SHOWN = WORLD_SIZE
PARAMS_SHOWN = WORLD_SIZE + 1
NOTES_SHOWN = WORLD_SIZE + 2
# the seat whose user's strategy was called last and may have written over the view's
# fixed part (its scalars and tile tables), -1 when none: written back before another
# seat's strategy sees the view
FIXED_WRITTEN_BY = WORLD_SIZE + 3
# the history entries of this round the view holds (copied on from there at the next
# decision shown), and how far the view holds entries at all, an earlier round's too
# (cleared down to this round's then)
HISTORY_SHOWN = WORLD_SIZE + 4
HISTORY_HELD = WORLD_SIZE + 5
# 1 once a decision has shown the view's public table this match: a new match clears
# it then (a match of the built-ins the kernel plays never writes it)
TABLE_SHOWN = WORLD_SIZE + 6

# the round's counters, as the state keeps them (rounds.parquet's tiles_played, turns,
# passes and draws)
PLAYED = W_PLAYED
TURNS = W_TURNS
PASSES = SEAT_PASSES
DRAWS = SEAT_DRAWS
# [MAX_PLAYERS * 4] each seat's hand (hidden, R17): a bitmask over tile numbers, word w
# of seat s at HANDS + 4 * s + w (int64 bit patterns)
HANDS = W_HANDS
# longest_train's twin (mexsim/game/kernel_longest_train.py) reads the tile tables where
# the state keeps them, as the view shows them ([MAX_TILES] each, zero beyond the set;
# the tiles carrying number n, word w at NUMBER_COPY + n * MAX_WORDS + w), and keeps
# each seat's notes here
LO_COPY = TILE_LO
HI_COPY = TILE_HI
PIPS_COPY = TILE_PIPS
NUMBER_COPY = NUMBER_MASK
LT_NOTES = WORLD_SIZE + 8  # [MAX_PLAYERS * LT_NOTES_PER_SEAT]
LT_NOTES_PER_SEAT = MAX_MEMORY
# [DENSE_WORDS] the dense planner's scratch for longest_train's plans (~292 KiB, each
# word read only after a plan wrote it): a plan there pays no malloc and free
# (docs/speed-history.md, "eleventh pass")
DENSE = LT_NOTES + MAX_PLAYERS * LT_NOTES_PER_SEAT
DENSE_WORDS = DENSE_SCRATCH
PRIVATE_SIZE = DENSE + DENSE_WORDS - SIZE  # beyond the view's words
