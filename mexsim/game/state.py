"""The game's state: one int64 array that the step (mexsim/game/step.py) advances.

Its first view.SIZE words are laid out as the view (mexsim/game/view.py): the public
table as every seat sees it, the rule options, the tile tables, the moves legal now and
the mover's turn (SEAT, FIRST_TURN, DUTY, LAID_THIS_TURN, N_MOVES). So showing a seat its
view (R17) is a copy of those words with the seat's own hand, stream and notes put in,
and a strategy can be called with the state itself as its view where it is trusted to
write nothing. Beyond them, what only the state knows: every seat's hand, the boneyard's
order, each seat's random stream and notes, the tiles each seat laid and its turns, and
the round's result once it is over.

The forward model's *worlds* (mexsim/strategy/forward.py) are states built from one
seat's view; the names keep its W_ prefix.
"""

from __future__ import annotations

from mexsim.game.view import MAX_MEMORY, MAX_PLAYERS, MAX_TILES, MAX_TRAINS, SIZE

W_HANDS = SIZE  # [MAX_PLAYERS * 4] each seat's hand, word w of seat s at W_HANDS + 4s + w
W_BONEYARD = W_HANDS + 4 * MAX_PLAYERS  # [MAX_TILES] the boneyard, drawn from the front
W_DRAWN = W_BONEYARD + MAX_TILES  # tiles drawn from it so far: the rest is [W_DRAWN, end)
W_BONEYARD_END = W_DRAWN + 1
W_STREAMS = W_BONEYARD_END + 1  # [MAX_PLAYERS * 4] each seat's xoshiro256** stream
W_NOTES = W_STREAMS + 4 * MAX_PLAYERS  # [MAX_PLAYERS * MAX_MEMORY] each seat's notes
W_PLAYED = W_NOTES + MAX_PLAYERS * MAX_MEMORY  # [MAX_PLAYERS] tiles each seat laid
W_PENALTY = W_PLAYED + MAX_PLAYERS  # [MAX_PLAYERS] each seat's penalty once played out
W_LEFT = W_PENALTY + MAX_PLAYERS  # [MAX_PLAYERS] tiles left in each hand then
W_OUTCOME = W_LEFT + MAX_PLAYERS  # 0 while the round goes on, 1 a seat went out, 2 blocked
W_WENT_OUT = W_OUTCOME + 1  # the seat that went out, -1 when blocked
W_MOVER = W_WENT_OUT + 1  # the seat whose decision a world was built for
W_HISTORY_END = W_MOVER + 1  # how far a rollout wrote history (cleared on reuse)
W_BAD_CHOICES = W_HISTORY_END + 1  # rollout choices outside the legal moves
W_UNCONSTRAINED = W_BAD_CHOICES + 1  # 1: the hidden tiles were dealt without inference
W_SHOWN = W_UNCONSTRAINED + 1  # 1 once the policy's own view was shown this world whole
W_TURNS = W_SHOWN + 1  # [MAX_PLAYERS] turns each seat began this round
# what the step keeps of the turn in progress and of the table, so that a listing is a
# few loads (step.resume_turn writes them from the table's words):
W_FIT = W_TURNS + MAX_PLAYERS  # [MAX_TRAINS * 4] the tiles carrying each train's open end
W_MARKED_BITS = W_FIT + 4 * MAX_TRAINS  # bit s set while seat s's train carries a marker
W_SCAN = W_MARKED_BITS + 1  # the turn's trains to list, four bits each, in move order
W_N_SCAN = W_SCAN + 1  # how many
W_PUBLIC = W_N_SCAN + 1  # 1: the public table (history, tiles laid) is kept; 0: not
W_SCRATCH = W_PUBLIC + 1  # [MAX_TILES] a deal's shuffle
# (beyond W_SCRATCH: kept when a world is built again)
W_SHOWN_HISTORY = W_SCRATCH + MAX_TILES  # history entries the policy's view holds
W_SHOWN_MOVES = W_SHOWN_HISTORY + 1  # moves its view lists (beyond them: zero)
W_VIEW = W_SHOWN_MOVES + 1  # [SIZE] the view a policy is called with (its own copy)
WORLD_SIZE = W_VIEW + SIZE

# W_OUTCOME
OUTCOME_GOES_ON = 0
OUTCOME_OUT = 1
OUTCOME_BLOCKED = 2
