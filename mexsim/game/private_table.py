"""The layout of the kernel's private table (scratch.st, mexsim/game/kernel.py).

Its first view.SIZE words are laid out as the view: st[:HAND] holds the view's public
part as the rules have it (the kernel writes every change to both), and its moves are
listed at MOVE_TILE / MOVE_TRAIN. Its public table (TRAIN_TILES ... HISTORY) is kept
here as the game goes and copied on to the view only when a decision shows it (the
view keeps the entries shown so far: a copy is of the new ones). Where the view keeps
its tile tables the table keeps bookkeeping. Beyond view.SIZE come what the view has
no place for, kept in the one array the turn loop already holds rather than in arrays
of their own (each array the loop keeps live costs registers: docs/speed-history.md).
"""

from __future__ import annotations

from mexsim.game.view import (
    MAX_MEMORY,
    MAX_NUMBERS,
    MAX_PLAYERS,
    MAX_TILES,
    MAX_TRAINS,
    MAX_WORDS,
    SEAT_DRAWS,
    SIZE,
    TILE_LO,
)
from mexsim.planner.dense import SCRATCH as DENSE_SCRATCH

# bookkeeping slots (where the view keeps its tile table): how many moves, params and
# notes the last decision showed, so that what lies beyond can be cleared
MOVES_SHOWN = TILE_LO
PARAMS_SHOWN = TILE_LO + 1
NOTES_SHOWN = TILE_LO + 2
# the seat whose user's strategy was called last and may have written over the view's
# fixed part (its scalars and tile tables), -1 when none: written back before another
# seat's strategy sees the view
FIXED_WRITTEN_BY = TILE_LO + 3
# the history entries of this round the view holds (copied on from there at the next
# decision shown), and how far the view holds entries at all, an earlier round's too
# (cleared down to this round's then)
HISTORY_SHOWN = TILE_LO + 4
HISTORY_HELD = TILE_LO + 5
# 1 once a decision has shown the view's public table this match: a new match clears
# it then (a match of the built-ins the kernel plays never writes it)
TABLE_SHOWN = TILE_LO + 6

PLAYED = SIZE  # [MAX_PLAYERS] tiles each seat has laid this round
# [MAX_PLAYERS] turns each seat has taken this round, and [MAX_PLAYERS] its passes, kept
# whether or not a strategy reads the public table (rounds.parquet's turns, passes)
TURNS = PLAYED + MAX_PLAYERS
PASSES = TURNS + MAX_PLAYERS
# [MAX_PLAYERS] tiles each seat has drawn this round: where the view shows them
DRAWS = SEAT_DRAWS
# [MAX_TRAINS * 4] the tiles carrying train tr's open end, word w at FIT + 4 * tr + w
# (number_mask's row of the end, as int64 bit patterns): listing a train's moves is
# then one load a word, not a load of the end and then of its row
FIT = PASSES + MAX_PLAYERS
# [MAX_PLAYERS * 4] each seat's hand (hidden, R17): a bitmask over tile numbers, word w
# of seat s at HANDS + 4 * s + w (int64 bit patterns)
HANDS = FIT + 4 * MAX_TRAINS
# the built-ins the kernel plays on this table (mexsim/game/kernel_longest_train.py,
# kernel_early_doubles.py) read the tile tables here, as the view shows them
# ([MAX_TILES] each, zero beyond the set; the tiles carrying number n, word w at
# NUMBER_COPY + n * MAX_WORDS + w); longest_train keeps each seat's notes here
LO_COPY = HANDS + 4 * MAX_PLAYERS
HI_COPY = LO_COPY + MAX_TILES
PIPS_COPY = HI_COPY + MAX_TILES
NUMBER_COPY = PIPS_COPY + MAX_TILES  # [MAX_NUMBERS * MAX_WORDS]
LT_NOTES = NUMBER_COPY + MAX_NUMBERS * MAX_WORDS  # [MAX_PLAYERS * LT_NOTES_PER_SEAT]
LT_NOTES_PER_SEAT = MAX_MEMORY
# [DENSE_WORDS] the dense planner's scratch for longest_train's plans (~292 KiB, each
# word read only after a plan wrote it): a plan there pays no malloc and free
# (docs/speed-history.md, "eleventh pass")
DENSE = LT_NOTES + MAX_PLAYERS * LT_NOTES_PER_SEAT
DENSE_WORDS = DENSE_SCRATCH
PRIVATE_SIZE = DENSE + DENSE_WORDS - SIZE
