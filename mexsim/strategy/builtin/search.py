"""search: try every legal move in worlds that agree with what it sees; keep the best.

Determinized flat Monte Carlo over the forward model (mexsim/strategy/forward.py): the
hidden tiles are dealt ``worlds`` times (32) from the seat's own stream (keeping what each
seat has shown it lacks, with ``infer``), the same worlds for every move; in each, the
move is laid and the round played out by the rollout policy at every seat; the move
with the lowest mean of its penalty minus the others' mean penalty is played (ties: the
earliest move). ``rollout``: 0 greedy, 1 longest_train (the default), 2 counter, each
with its default parameters; a config may also name any strategy, a user's included
(``params = { rollout = "mine" }``: decide_naming). ``budget`` > 0 caps the
rollouts of one decision: with many legal moves, fewer worlds each (at least one).

What it costs and how strong it is: docs/strategies.md, "Search". A search of your own,
with your own rollout policy or scoring: docs/writing-strategies.md, "Playing ahead".
"""

import types
from functools import cache

import numpy as np

from mexsim.jit.options import compiled, key_cache_on
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
    play_out_as,
    world_bad_choices,
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
# The parameter a config may also give as a strategy's name (mexsim/strategy/registry.py,
# StrategyInfo.naming): these names are its numbers; any other is played by decide_naming
NAMED_PARAM = "rollout"
NAMED_VALUES = {"greedy": 0.0, "longest_train": 1.0, "counter": 2.0}

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


# Inlined where it is called, so that ``policy`` is a direct call of the strategy named
# there: passed on as a value, numba would refuse to cache the caller (forward.py)
@compiled(cache=True, inline="always")
def _best_move(view, params, policy, values, guarded):
    n = move_count(view)
    worlds = max(1, int(params[P.worlds]))
    if params[P.budget] > 0:
        worlds = max(1, min(worlds, int(params[P.budget]) // n))
    infer = params[P.infer] >= 0.5
    seats = players(view)
    world = new_world()
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
            mine = play_out_as(world, tile, train, policy, values, guarded)
            if world_bad_choices(world):
                raise ValueError("its rollout policy chose a move outside the legal moves")
            others = -mine
            for s in range(seats):
                others += world_penalty(world, s)
            score += mine - others / (seats - 1)
        if score < best_score:
            best, best_score = i, score
    return best


# Compiled with reference counts (the worlds are arrays it makes), unlike decide: the
# built-ins' decide keeps none (mexsim/strategy/api.py, strategy)
@compiled(cache=True, refcounts=True)
def _search(view, params):
    rollout = int(params[P.rollout])
    values = _rollout_params(rollout)
    if rollout == 0:
        return _best_move(view, params, greedy, values, False)
    if rollout == 1:
        return _best_move(view, params, longest_train, values, False)
    return _best_move(view, params, counter, values, False)


@strategy
def decide(view, params):
    return _search(view, params)


@compiled(cache=True, refcounts=True)
def _values(defaults):
    values = np.zeros(len(defaults))
    for k in range(len(defaults)):
        values[k] = defaults[k]
    return values


def _rolling_out(view, params):
    """decide_naming's form: ROLLOUT, ROLLOUT_DEFAULTS and GUARDED are each copy's own."""
    values = _values(ROLLOUT_DEFAULTS)  # type: ignore[name-defined]  # noqa: F821
    return _best_move(view, params, ROLLOUT, values, GUARDED)  # type: ignore[name-defined]  # noqa: F821


def decide_naming(rollout, defaults, key, digest, trusted):
    """search's decide with the strategy whose compiled decide is ``rollout`` (its
    default parameter values ``defaults``) as the rollout policy of every seat; shown
    its own copy of each view unless ``trusted`` (a built-in: forward.play_out_as).

    A copy of _rolling_out whose globals name that strategy, so the rollout is a direct
    call, compiled once and cached on disk under its own name (``key``: the strategy's
    name and place) and kept fresh by ``digest`` (its source files' contents: numba
    checks only this file's timestamp)."""
    values = tuple(float(v) for v in defaults)
    return _rolling_out_form(rollout, values, key, digest, bool(trusted))


@cache
def _rolling_out_form(rollout, defaults, key, digest, trusted):
    padded = (*defaults, *(0.0,) * (8 - len(defaults)))  # the kernels pad them so too
    scope = dict(globals(), ROLLOUT=rollout, ROLLOUT_DEFAULTS=padded, GUARDED=not trusted)
    func = types.FunctionType(_rolling_out.__code__, scope, "decide")
    func.__qualname__ = f"decide_rolling_out_{key}"
    form = compiled(cache=True, refcounts=True)(func)
    key_cache_on(form, digest)
    from mexsim.game.signature import DECIDE_SIGNATURE

    form.compile(DECIDE_SIGNATURE)
    form.disable_compile()
    return form
