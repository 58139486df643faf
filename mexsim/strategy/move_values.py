"""Each legal move's expected round penalty for the seat to move, by the forward model: what
a hint shows a person and what a review rates a decision by.

From the seat's view only (R17: nothing hidden is read), the hidden tiles are dealt
``worlds`` times (forward.deal_world, keeping what each seat has shown it lacks), the same
worlds for every move; in each, the move is laid and the round played out by
longest_train at every seat (the built-in search's default rollout). A move's value is
the mean of the seat's penalty over the worlds, with the standard error of that mean;
two moves are compared on the same worlds, so their difference's error is that of the
paired differences (``paired_errors``).
"""

from __future__ import annotations

import numpy as np

from mexsim.jit.options import compiled
from mexsim.strategy.api import RNG, move_count, move_tile, move_train
from mexsim.strategy.builtin.longest_train import decide as longest_train
from mexsim.strategy.forward import (
    deal_world,
    new_world,
    play_out_trusting,
    world_from_view,
)

# worlds a hint deals: a few thousand rollouts a decision, a few hundredths of a second
HINT_WORLDS = 500


# it makes the world's array; nogil: a review rates decisions on several threads
@compiled(cache=True, refcounts=True, nogil=True)
def world_penalties(view, worlds, infer):
    """penalties[i, k]: the seat's round penalty when it plays legal move i in world k
    (the same worlds for every move). ``view`` is a decide's view of the seat to move;
    its random stream deals the worlds and is left as it was."""
    n = move_count(view)
    out = np.zeros((n, worlds), dtype=np.float64)
    values = np.zeros(8)  # longest_train's parameters: pip_weight 0, its default
    world = new_world()
    start = view[RNG : RNG + 4].copy()
    for i in range(n):
        view[RNG : RNG + 4] = start  # the same worlds for every move
        tile = move_tile(view, i)
        train = move_train(view, i)
        for k in range(worlds):
            world_from_view(view, world)
            deal_world(view, world, infer)
            out[i, k] = play_out_trusting(world, tile, train, longest_train, values)
    view[RNG : RNG + 4] = start
    return out


def expected_penalties(
    view: np.ndarray, worlds: int = HINT_WORLDS, infer: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """(mean, standard error) of each legal move's round penalty over ``worlds`` worlds;
    ``view`` is not changed."""
    pens = world_penalties(view.copy(), int(worlds), bool(infer))
    mean = pens.mean(axis=1)
    err = pens.std(axis=1, ddof=1) / np.sqrt(worlds) if worlds > 1 else np.zeros(len(mean))
    return mean, err


def paired_errors(pens: np.ndarray, best: int) -> np.ndarray:
    """The standard error of each move's mean penalty minus move ``best``'s, from the
    paired differences over the same worlds (0 for ``best`` itself)."""
    worlds = pens.shape[1]
    if worlds < 2:
        return np.zeros(pens.shape[0])
    diff = pens - pens[best]
    return diff.std(axis=1, ddof=1) / np.sqrt(worlds)
