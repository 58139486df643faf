"""ismcts: single-observer information-set MCTS over the forward model — the experiment
behind docs/strategies.md's comparison with the built-in search, not a shipped strategy.
It walks each dealt world a decision at a time with the forward model's step
(``apply``, mexsim/game/step.py), so a tree chooses at every decision it reaches.

    mexsim run CONFIG --strategies benchmarks/strategies     # strategy = "ismcts"

Each iteration deals a world from the mover's stream, walks a
tree of moves (every seat's, keyed by seat, tile and train) choosing by UCB among the
moves legal in that world (counting each child's availability), adds one node (the
move longest_train would play there, when it is untried: else the first untried), plays
the rest of the round with longest_train and backs up each seat's result (its penalty
against the others' mean). Iterations: ``worlds`` x the legal moves, the rollouts
search would spend. The root's most visited move is played."""

import numpy as np
from numba import njit

from mexsim.game.view import MOVE_TILE, MOVE_TRAIN, N_MOVES, SEAT
from mexsim.strategy.api import move_count, move_tile, move_train, players, strategy
from mexsim.strategy.builtin.longest_train import decide as longest_train
from mexsim.strategy.forward import (
    W_PENALTY,
    _choose,
    apply,
    deal_world,
    new_world,
    round_over,
    world_from_view,
)

NAME = "ismcts"
DESCRIPTION = "information-set MCTS over sampled worlds, longest_train rollouts"
PARAMS = {"worlds": (32.0, 1.0, 4096.0), "c": (60.0, 0.0, 1000.0)}


@njit(inline="always")
def _pick(world, seat, nm, node, first_child, sibling, key, visits, avail, total, count, c, pref):
    """The tree's choice at a decision of ``seat`` among nm listed moves: an untried one
    (expanded: a new node), else UCB over the children legal here. Returns (move, child, new)."""
    untried = -1
    best, best_child, best_value = 0, -1, -np.inf
    for i in range(nm):
        k = (seat << 20) | (world[MOVE_TILE + i] << 8) | world[MOVE_TRAIN + i]
        child = first_child[node]
        while child >= 0 and key[child] != k:
            child = sibling[child]
        if child < 0:
            if untried < 0 or i == pref:
                untried = i
            continue
        avail[child] += 1
        value = total[child] / visits[child] + c * np.sqrt(np.log(avail[child]) / visits[child])
        if value > best_value:
            best, best_child, best_value = i, child, value
    if untried >= 0:
        new = count[0]
        count[0] += 1
        key[new] = (seat << 20) | (world[MOVE_TILE + untried] << 8) | world[MOVE_TRAIN + untried]
        first_child[new] = -1
        sibling[new] = first_child[node]
        first_child[node] = new
        visits[new] = 0
        total[new] = 0.0
        avail[new] = 1
        return untried, new, True
    return best, best_child, False


@njit
def _iterate(world, values, first_child, sibling, key, visits, avail, total, owner, count, c, path):
    """One iteration from the mover's decision in a dealt world; fills path; returns its length."""
    in_tree = True
    node = 0
    depth = 0
    started = False
    while not round_over(world):
        seat = world[SEAT]
        nm = world[N_MOVES]
        pref = 0 if nm == 1 else _choose(world, longest_train, values, False)
        if in_tree and (nm > 1 or not started):
            i, child, new = _pick(
                world,
                seat,
                nm,
                node,
                first_child,
                sibling,
                key,
                visits,
                avail,
                total,
                count,
                c,
                pref,
            )
            owner[child] = seat
            path[depth] = child
            depth += 1
            node = child
            if new:
                in_tree = False
        else:
            i = pref
        started = True
        apply(world, i)
    return depth


@njit
def _ismcts(view, params):
    n = move_count(view)
    seats = players(view)
    iterations = max(1, int(params[0])) * n
    c = params[1]
    size = iterations + 2
    first_child = np.full(size, -1, np.int64)
    sibling = np.full(size, -1, np.int64)
    key = np.zeros(size, np.int64)
    visits = np.zeros(size, np.int64)
    avail = np.zeros(size, np.int64)
    total = np.zeros(size)
    owner = np.zeros(size, np.int64)
    count = np.ones(1, np.int64)  # node 0 is the root
    path = np.zeros(size, np.int64)
    values = np.zeros(8)
    world = new_world()
    for _ in range(iterations):
        world_from_view(view, world)
        deal_world(view, world, True)
        depth = _iterate(
            world, values, first_child, sibling, key, visits, avail, total, owner, count, c, path
        )
        all_pen = 0.0
        for s in range(seats):
            all_pen += world[W_PENALTY + s]
        for d in range(depth):
            nd = path[d]
            s = owner[nd]
            mine = world[W_PENALTY + s]
            visits[nd] += 1
            total[nd] += -(mine - (all_pen - mine) / (seats - 1))
    # the root's most visited child: its move among the view's
    best, best_visits = 0, -1
    child = first_child[0]
    while child >= 0:
        if visits[child] > best_visits:
            best_visits = visits[child]
            best = child
        child = sibling[child]
    k = key[best]
    for i in range(n):
        if (move_tile(view, i) << 8) | move_train(view, i) == (k & ((1 << 20) - 1)):
            return i
    return 0


@strategy
def decide(view, params):
    return _ismcts(view, params)
