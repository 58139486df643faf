"""A block of matches shares one set of working arrays (kernel.play_matches): nothing of
one match may leak into the next — not the scores, not a strategy's notes (MEMORY) or
params, not the view's move list, whoever sits where."""

from __future__ import annotations

import numpy as np
import pytest

from mexsim.game.play import play_match_results, play_scheduled
from mexsim.game.rules import resolve_rules
from mexsim.strategy.policy import Policy, resolve_policies
from mexsim.strategy.registry import available_strategies


@pytest.mark.parametrize("preset", ["seed-001", "standard"])
def test_a_block_plays_each_match_as_if_alone(preset: str) -> None:
    rules = resolve_rules({"preset": preset}, 4)
    builtins = available_strategies()
    # longest_train keeps notes and takes a param; random draws from its stream
    players = [
        Policy(builtins["longest_train"], (1.0,)),
        *resolve_policies(["random", "greedy", "early_doubles"]),
    ]
    n = 12
    match_ids = np.arange(100, 100 + n, dtype=np.int64)
    deal_ids = match_ids // 4  # duplicate deals: four matches replay each deal
    seating = (np.arange(4)[None, :] + np.arange(n)[:, None]) % 4  # rotate the seats
    block = play_scheduled(rules, players, 7, match_ids, deal_ids, seating)
    for k in range(n):
        seats = [players[i] for i in seating[k]]
        alone, _ = play_match_results(rules, seats, 7, int(match_ids[k]), deal=int(deal_ids[k]))
        np.testing.assert_array_equal(block[k], alone, err_msg=f"match {match_ids[k]}")
