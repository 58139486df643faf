"""`make bench` (issue 33): the forward model's rollouts a second on one core.

From the decisions of recorded seed-001 matches (4 seats: the views the reference
engine showed), each rollout builds a world from the view (world_from_view), deals the
hidden tiles from the mover's stream (deal_world, inference on) and plays the round out
with 4 x the rollout policy (play_out), all in one compiled loop. Prints rollouts a
second (CPU time, best of 5) from decisions early in a round (a whole round to play)
and from every decision, for greedy and longest_train as the rollout policy; beside
each, play_out_trusting's rate (the world itself shown to the policy, no copy: the
built-in search's rollouts) and play_out's ratio to it.
Goal (issue 33): >= 100,000 rounds a second with 4 x greedy rollouts.
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from mexsim.game import view as V
from mexsim.game.reference import Round, play_match
from mexsim.game.rules import resolve_rules
from mexsim.strategy import forward as F
from mexsim.strategy.builtin.greedy import decide as greedy
from mexsim.strategy.builtin.longest_train import decide as longest_train
from mexsim.strategy.policy import resolve_policies


def recorded_views(matches: int) -> np.ndarray:
    """The view of every decision of ``matches`` seed-001 matches, one row each."""
    views = []
    fill = Round.fill_view

    def filled(self: Round, seat: int, *args: object, **kwargs: object) -> None:
        fill(self, seat, *args, **kwargs)
        views.append(self.view.copy())

    Round.fill_view = filled  # type: ignore[method-assign]
    try:
        rules = resolve_rules({"preset": "seed-001"}, 4)
        policies = resolve_policies(["longest_train", "greedy", "early_doubles", "random"])
        for match in range(matches):
            play_match(rules, 2026, match, policies)
    finally:
        Round.fill_view = fill  # type: ignore[method-assign]
    return np.array(views)


def rollouts(views, rounds, policy, params):  # pragma: no cover - compiled per policy
    world = F.new_world()
    total = 0
    for k in range(rounds):
        view = views[k % views.shape[0]].copy()
        F.world_from_view(view, world)
        F.deal_world(view, world, True)
        total += F.play_out(world, view[V.MOVE_TILE], view[V.MOVE_TRAIN], policy, params)
    return total


def rollouts_trusting(views, rounds, policy, params):  # pragma: no cover - compiled
    world = F.new_world()
    total = 0
    for k in range(rounds):
        view = views[k % views.shape[0]].copy()
        F.world_from_view(view, world)
        F.deal_world(view, world, True)
        tile, train = view[V.MOVE_TILE], view[V.MOVE_TRAIN]
        total += F.play_out_trusting(world, tile, train, policy, params)
    return total


def rate(views: np.ndarray, policy: object, rounds: int, trusting: bool = False) -> float:
    params = np.zeros(V.MAX_PARAMS, dtype=np.float64)
    run = njit(rollouts_trusting if trusting else rollouts)
    run(views, 2, policy, params)  # compile
    best = 0.0
    for _ in range(5):
        start = time.process_time()
        run(views, rounds, policy, params)
        best = max(best, rounds / (time.process_time() - start))
    return best


def main() -> None:
    views = recorded_views(4)
    early = views[views[:, V.HISTORY_LEN] < 12]
    print("forward model: rollouts a second, one core (world, deal with inference, play out)")
    policies = (("greedy", greedy, 20_000), ("longest_train", longest_train, 2_000))
    for name, policy, rounds in policies:
        for where, rows in (("early in a round", early), ("every decision", views)):
            shown = rate(rows, policy, rounds)
            trusting = rate(rows, policy, rounds, trusting=True)
            print(
                f"  4 x {name:<14} {where:<17} {shown:>10,.0f} /s"
                f"   play_out_trusting {trusting:>10,.0f} /s ({shown / trusting:.2f})"
            )
    print("goal (issue 33): >= 100,000 a second with 4 x greedy rollouts")


if __name__ == "__main__":
    main()
