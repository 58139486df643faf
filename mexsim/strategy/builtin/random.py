"""random: a uniformly random legal move, from the player's own random stream."""

from mexsim.strategy.api import move_count, random_below, strategy

NAME = "random"
DESCRIPTION = "a uniformly random legal move"
PARAMS: dict[str, float] = {}


@strategy
def decide(view, params):
    return random_below(view, move_count(view))
