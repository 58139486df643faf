"""mexican_first: spend tiles on the public trains, keep the own train for the end.

It plays on the Mexican train when it can, then on other players' open trains, and on
its own train only when nothing else fits — the heaviest tile first each time. Its own
train stays a reserve that only it can use while unmarked.
"""

from mexsim.game.view import MOVE_TILE, MOVE_TRAIN, N_MOVES, PLAYERS, SEAT
from mexsim.strategy.api import strategy

NAME = "mexican_first"
DESCRIPTION = "plays on the Mexican train, then open trains, own train last; heaviest first"
PARAMS: dict[str, float] = {}


@strategy
def decide(view, params):
    seat = view[SEAT]
    mexican = view[PLAYERS]
    best = 0
    best_rank = 3
    for i in range(view[N_MOVES]):
        tr = view[MOVE_TRAIN + i]
        rank = 0 if tr == mexican else (2 if tr == seat else 1)
        if rank < best_rank or (rank == best_rank and view[MOVE_TILE + i] < view[MOVE_TILE + best]):
            best = i
            best_rank = rank
    return best
