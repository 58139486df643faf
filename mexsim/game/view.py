"""The decision view: everything a strategy may see (R17), in one int64 array.

A strategy's ``decide(view, params)`` reads this array; nothing else about the game is
given to it, so other hands and the boneyard's order are out of its reach by
construction. The numba core keeps its public table state directly in the view (train
ends, lengths, markers, open doubles, hand sizes); before each decision it writes the
mover's own hand, the legal moves and the mover's random stream. The offsets are module
constants, so strategies index the view at compile-time constants:

    view[TRAIN_END + t]           open end of train t (t = seat; the Mexican train is P)
    view[MOVE_TILE + i]           tile of legal move i (0 <= i < view[N_MOVES])
    view[TILE_PIPS + tile]        a tile's value
    view[HISTORY + k]             the k-th public event of the round (k < view[HISTORY_LEN])

Tiles are numbered heaviest first (docs/rules.md): lower number = heavier tile.
Bitmask words (HAND, NUMBER_MASK) hold uint64 bit patterns; read them with
``np.uint64(view[HAND + w])``. A strategy that declares ``MEMORY = k`` keeps
view[NOTES : NOTES + k] from one of its decisions to the next for the whole match
(zero at the start); no other seat sees it.
"""

from __future__ import annotations

# re-exported: strategies and the kernel read the limits with the rest of the layout
from mexsim.game.strategy_limits import MAX_MEMORY as MAX_MEMORY
from mexsim.game.strategy_limits import MAX_PARAMS as MAX_PARAMS
from mexsim.game.tiles import WORDS as WORDS_PER_HAND

MAX_PLAYERS = 10
MAX_TRAINS = MAX_PLAYERS + 1
MAX_TILES = 136  # double-15
MAX_NUMBERS = 16
MAX_WORDS = WORDS_PER_HAND  # the core's bitmask words (mexsim.game.tiles.WORDS)
MAX_MOVES = MAX_TILES * MAX_TRAINS

# --- scalars
ROUND = 0  # round number r, 0-based
MAX_PIP = 1  # N of the double-N set
ENGINE = 2  # the engine number, N - r
PLAYERS = 3  # P; the Mexican train is train number P
SEAT = 4  # the deciding seat
BONEYARD = 5  # tiles left in the boneyard
N_OPEN = 6  # open doubles (R13), listed oldest first at OPEN_DOUBLES
FIRST_TURN = 7  # 1 during the mover's first turn of the round (R11)
DUTY = 8  # 1 when the legal moves serve the oldest open double (R13)
TILES = 9  # T, tiles in the set
WORDS = 10  # bitmask words per hand
N_MOVES = 11  # legal moves listed at MOVE_TILE / MOVE_TRAIN
LAID_THIS_TURN = 12  # tiles the mover has laid so far this turn
MATCH = 13  # the match index (for error messages; strategies need not use it)
PASS_COUNT = 14  # R15's count: the round is blocked when it reaches P with no boneyard
FIRST_MOVER = 15  # the seat that moved first this round (placed the engine, R5)
# the rule options (docs/rules.md), fixed for the match: public (R17), so that a
# strategy plays the variant it is in, not the one it was written for
RULE_FIRST_TURN_TRAIN = 16  # 1: first_turn = "train" (R11)
RULE_SET_ASIDE = 17  # 1: engine = "set_aside" (R5)
RULE_DRAW_TO_START = 18  # 1: draw_to_start (R11)
RULE_DOUBLE_BLANK_POINTS = 19  # what 0|0 left in a hand scores (R16)
RULE_HAND_SIZE = 20  # tiles dealt to each seat (R3)
RULE_DRAW_LIMIT = 21  # tiles drawn for one obligation to play (R18; T: until one fits)
RULE_MEXICAN_TRAIN = 22  # 1: the table has a Mexican train (R19)
# 1 while `mexsim replay --moves` asks the strategies to explain their choices (print
# them); never during a run, so an explanation costs a run nothing
EXPLAINING = 23

# --- blocks
TRAIN_END = 32  # [MAX_TRAINS] open end of each train
TRAIN_LEN = TRAIN_END + 16  # [MAX_TRAINS] tiles on each train
TRAIN_MARKED = TRAIN_LEN + 16  # [MAX_TRAINS] 1 while the train carries a marker (R8)
OPEN_DOUBLES = TRAIN_MARKED + 16  # [MAX_TRAINS] trains ending in an open double
HAND_SIZE = OPEN_DOUBLES + 16  # [MAX_PLAYERS] tiles in each seat's hand
SCORE = HAND_SIZE + 16  # [MAX_PLAYERS] each seat's total of the previous rounds
HAND = SCORE + 16  # [MAX_WORDS] the mover's own hand, a bitmask over tile numbers
RNG = HAND + 4  # [4] xoshiro256** state of the mover's own random stream
NOTES = RNG + 4  # [MAX_MEMORY] the mover's own notes, kept between its decisions
TILE_LO = NOTES + MAX_MEMORY  # [MAX_TILES] smaller half of each tile
TILE_HI = TILE_LO + MAX_TILES  # [MAX_TILES] larger half
TILE_PIPS = TILE_HI + MAX_TILES  # [MAX_TILES] face value
NUMBER_MASK = TILE_PIPS + MAX_TILES  # [MAX_NUMBERS * MAX_WORDS] tiles carrying number n
MOVE_TILE = NUMBER_MASK + MAX_NUMBERS * MAX_WORDS  # [MAX_MOVES]
MOVE_TRAIN = MOVE_TILE + MAX_MOVES  # [MAX_MOVES]

# --- the public table (R17): every tile laid and everything seen happen this round
TRAIN_TILES = MOVE_TRAIN + MAX_MOVES  # [MAX_TRAINS * 4] tiles on train t, word w at +4t+w
TABLE_TILES = TRAIN_TILES + 4 * MAX_TRAINS  # [4] every tile on the table, the engine too
SEAT_DRAWS = TABLE_TILES + 4  # [MAX_PLAYERS] tiles each seat drew this round
SEAT_PASSES = SEAT_DRAWS + 16  # [MAX_PLAYERS] each seat's passes this round
SEAT_STARTED = SEAT_PASSES + 16  # [MAX_PLAYERS] 1 once the seat's first turn has begun
HISTORY_LEN = SEAT_STARTED + 16  # entries in HISTORY
HISTORY = HISTORY_LEN + 1  # [MAX_HISTORY] the round's public events in order, zero beyond

# A history entry packs one public event into a word (mexsim.strategy.api's history_*
# accessors unpack it): kind in bits 0-3, the seat in 4-7, tile + 1 in 8-15 and
# train + 1 in 16-19 (0: none). A draw never shows the drawn tile, not even to the
# drawer, who finds it in its hand: one history serves every seat.
H_ENGINE = 0  # the seat placed the engine (tile) and moves first (R5)
H_PLAY = 1  # the seat laid tile on train
H_DRAW = 2  # the seat drew a tile (while searching for the engine too)
H_PASS = 3  # the seat passed; its train was marked already (R8)
H_MARK = 4  # the seat passed and put a new marker on its train (R8, R15)

# The longest round: one engine entry; at most T - 1 plays; at most B draws (B, the
# tiles left to draw after the deal, <= T - 2P) and as many passes made while the
# boneyard still held tiles (such a pass follows a draw of its own obligation); with
# the boneyard empty, at most 2P - 1 passes between two plays (after P passes every
# train is marked, and then R15's count reaches P within P - 1 more), over at most T
# stretches. For double-15 at 10 seats: 1 + 135 + 2 * 116 + 19 * 136 = 2952
# (tests/game/test_public_table.py checks every set and table size).
MAX_HISTORY = 2952
SIZE = HISTORY + MAX_HISTORY
