"""lightest_first: get rid of small tiles first, on the own train when it can."""
from mexsim.strategy.api import is_mine, move_count, move_tile, move_train, param_index, pips
from mexsim.strategy.api import strategy

NAME = "lightest_first"
DESCRIPTION = "plays its lightest legal tile, preferring its own train"
PARAMS = {"own_train_bonus": 1.0}
P = param_index(PARAMS)  # P.own_train_bonus == 0, its place in params


@strategy
def decide(view, params):
    best, best_score = 0, -1e9
    for i in range(move_count(view)):
        score = -1.0 * pips(view, move_tile(view, i))
        if is_mine(view, move_train(view, i)):
            score += params[P.own_train_bonus]
        if score > best_score:
            best, best_score = i, score
    return best
