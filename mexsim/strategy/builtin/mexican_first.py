"""mexican_first: spend tiles on the public trains, keep the own train for the end.

It plays on the Mexican train when it can, then on other players' open trains, and on
its own train only when nothing else fits — the heaviest tile first each time. Its own
train stays a reserve that only it can use while unmarked.
"""

from mexsim.strategy.api import (
    heavier,
    is_mexican,
    is_mine,
    move_count,
    move_tile,
    move_train,
    strategy,
)

NAME = "mexican_first"
DESCRIPTION = "plays on the Mexican train, then open trains, own train last; heaviest first"
PARAMS: dict[str, float] = {}


@strategy
def decide(view, params):
    best, best_rank, best_tile = 0, 3, 0
    for i in range(move_count(view)):
        train = move_train(view, i)
        tile = move_tile(view, i)
        rank = 0 if is_mexican(view, train) else (2 if is_mine(view, train) else 1)
        if rank < best_rank or (rank == best_rank and heavier(tile, best_tile)):
            best, best_rank, best_tile = i, rank, tile
    return best
