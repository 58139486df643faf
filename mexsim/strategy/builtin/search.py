"""search: try every legal move in worlds that agree with what it sees; keep the best.

Determinized flat Monte Carlo over the forward model (mexsim/strategy/forward.py): the
hidden tiles are dealt ``worlds`` times (32) from the seat's own stream (keeping what each
seat has shown it lacks, with ``infer``), the same worlds for every move; in each, the
move is laid and the round played out by the rollout policy at every seat; the move
with the lowest mean of its penalty minus the others' mean penalty is played (ties: the
earliest move). ``rollout``: 0 greedy, 1 longest_train (the default), 2 counter, each
with its default parameters. ``budget`` > 0 caps the rollouts of one decision: with
many legal moves, fewer worlds each (at least one).

What it costs and how strong it is: docs/strategies.md, "Search". A search of your own,
with your own rollout policy or scoring: docs/writing-strategies.md, "Playing ahead".
"""

import numpy as np

from mexsim.jit.options import compiled
from mexsim.strategy.api import (
    RNG,
    move_count,
    move_tile,
    move_train,
    param_index,
    players,
    strategy,
)
from mexsim.strategy.builtin.counter import PARAMS as COUNTER_PARAMS
from mexsim.strategy.builtin.counter import decide as counter
from mexsim.strategy.builtin.greedy import decide as greedy
from mexsim.strategy.builtin.longest_train import PARAMS as LONGEST_TRAIN_PARAMS
from mexsim.strategy.builtin.longest_train import decide as longest_train
from mexsim.strategy.forward import (
    deal_world,
    new_world,
    play_out,
    world_from_view,
    world_penalty,
)

NAME = "search"
DESCRIPTION = "plays each move out in sampled worlds with a rollout policy; keeps the best"
PARAMS = {
    "worlds": (32.0, 1.0, 4096.0),
    "rollout": (1.0, 0.0, 2.0),
    "infer": (1.0, 0.0, 1.0),
    "budget": (0.0, 0.0, 1e6),
}
P = param_index(PARAMS)

# the rollout policies' parameters: their defaults (PARAMS order)
_LT_PIP_WEIGHT = LONGEST_TRAIN_PARAMS["pip_weight"][0]
_COUNTER_DEFAULTS = tuple(spec[0] for spec in COUNTER_PARAMS.values())


@compiled(cache=True, refcounts=True)
def _rollout_params(rollout):
    values = np.zeros(8)
    if rollout == 1:
        values[0] = _LT_PIP_WEIGHT
    elif rollout == 2:
        for k in range(len(_COUNTER_DEFAULTS)):
            values[k] = _COUNTER_DEFAULTS[k]
    return values


# Compiled with reference counts (the worlds are arrays it makes), unlike decide: the
# built-ins' decide keeps none (mexsim/strategy/api.py, strategy)
@compiled(cache=True, refcounts=True)
def _search(view, params):
    n = move_count(view)
    worlds = max(1, int(params[P.worlds]))
    if params[P.budget] > 0:
        worlds = max(1, min(worlds, int(params[P.budget]) // n))
    rollout = int(params[P.rollout])
    infer = params[P.infer] >= 0.5
    seats = players(view)
    world = new_world()
    values = _rollout_params(rollout)
    start = view[RNG : RNG + 4].copy()  # the same worlds for every move
    best, best_score = 0, np.inf
    for i in range(n):
        view[RNG : RNG + 4] = start
        tile = move_tile(view, i)
        train = move_train(view, i)
        score = 0.0
        for _ in range(worlds):
            world_from_view(view, world)
            deal_world(view, world, infer)
            if rollout == 0:
                mine = play_out(world, tile, train, greedy, values)
            elif rollout == 1:
                mine = play_out(world, tile, train, longest_train, values)
            else:
                mine = play_out(world, tile, train, counter, values)
            others = -mine
            for s in range(seats):
                others += world_penalty(world, s)
            score += mine - others / (seats - 1)
        if score < best_score:
            best, best_score = i, score
    return best


@strategy
def decide(view, params):
    return _search(view, params)
