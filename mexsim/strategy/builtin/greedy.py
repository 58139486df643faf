"""greedy: lay the heaviest legal tile.

Ties (one tile legal on several trains) go to the earliest move in the engine's order:
own train, then the Mexican train, then the other trains clockwise (docs/rules.md).
"""

from mexsim.game.view import MOVE_TILE, N_MOVES
from mexsim.strategy.api import strategy

NAME = "greedy"
DESCRIPTION = "heaviest legal tile first; ties: own train, Mexican, then clockwise"
PARAMS: dict[str, float] = {}


@strategy
def decide(view, params):
    best = 0
    for i in range(1, view[N_MOVES]):
        if view[MOVE_TILE + i] < view[MOVE_TILE + best]:  # lower number = heavier
            best = i
    return best
