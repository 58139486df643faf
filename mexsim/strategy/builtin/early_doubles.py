"""early_doubles: seed 000's other advice — get doubles down early.

It lays a double whenever it can (on its own train first, when ``own_first`` is 1),
the heaviest first. Having laid one, it follows it with the tile that best satisfies
it: one whose open end it can go on with later, the heaviest such. Otherwise it plays
its heaviest tile.
"""

from mexsim.strategy.api import (
    count_carrying,
    flag_param,
    heavier,
    is_double,
    is_mine,
    laid_this_turn,
    move_count,
    move_end,
    move_tile,
    move_train,
    open_double_count,
    open_double_train,
    param_index,
    strategy,
)

NAME = "early_doubles"
DESCRIPTION = "lays doubles as soon as possible, follows them well, else heaviest"
PARAMS = {"own_first": (1.0, 0.0, 1.0)}  # (default, lowest, highest): a switch
P = param_index(PARAMS)


@strategy
def decide(view, params):
    own_first = flag_param(params, P.own_first)
    heaviest, heaviest_tile = 0, move_tile(view, 0)  # (tiles kept, not read back)
    # the best double to lay, whether on the own train, and its tile
    double, double_own, double_tile = -1, False, 0
    for i in range(move_count(view)):
        tile = move_tile(view, i)
        if heavier(tile, heaviest_tile):
            heaviest, heaviest_tile = i, tile
        if is_double(view, tile):
            own = is_mine(view, move_train(view, i))
            if (
                double < 0
                or (own_first and own and not double_own)
                or ((own == double_own or not own_first) and heavier(tile, double_tile))
            ):
                double, double_own, double_tile = i, own, tile
    if double >= 0:
        return double

    if laid_this_turn(view) > 0 and open_double_count(view) > 0:
        # following its own double (the newest open one): prefer a tile that leaves an
        # end it holds another tile for
        train = open_double_train(view, open_double_count(view) - 1)
        best, best_keeps = -1, False
        for i in range(move_count(view)):
            if move_train(view, i) != train:
                continue
            tile = move_tile(view, i)
            keeps = count_carrying(view, move_end(view, i), tile) > 0
            if (
                best < 0
                or (keeps and not best_keeps)
                or (keeps == best_keeps and heavier(tile, move_tile(view, best)))
            ):
                best, best_keeps = i, keeps
        if best >= 0:
            return best
    return heaviest
