"""greedy: lay the heaviest legal tile.

Ties (one tile legal on several trains) go to the earliest move in the engine's order:
own train, then the Mexican train, then the other trains clockwise (docs/rules.md).
"""

from mexsim.strategy.api import heavier, move_count, move_tile, strategy

NAME = "greedy"
DESCRIPTION = "heaviest legal tile first; ties: own train, Mexican, then clockwise"
PARAMS: dict[str, float] = {}


@strategy
def decide(view, params):
    best = 0
    for i in range(1, move_count(view)):
        if heavier(move_tile(view, i), move_tile(view, best)):
            best = i
    return best
