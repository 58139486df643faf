"""random: a uniformly random legal move, from the player's own random stream."""

from mexsim.strategy_api import random_below, strategy
from mexsim.view import N_MOVES

NAME = "random"
DESCRIPTION = "a uniformly random legal move"
PARAMS: dict[str, float] = {}


@strategy
def decide(view, params):
    return random_below(view, view[N_MOVES])
