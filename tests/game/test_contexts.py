"""The kernels' argument bundles (mexsim/game/contexts.py): built right from the rules
and players, and compiled into numba's on-disk cache like loose arguments."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mexsim.game.contexts import RuleNumbers
from mexsim.game.kernel_longest_train import LONGEST_TRAIN_SLOT, in_table_decide
from mexsim.game.play import KernelArgs
from mexsim.game.rules import MAX_STRATEGIES, resolve_rules
from mexsim.game.strategy_limits import MAX_PARAMS
from mexsim.game.tiles import tile_set
from mexsim.strategy.policy import Policy, resolve_policies
from mexsim.strategy.registry import available_strategies

ROOT = Path(__file__).resolve().parents[2]


def test_kernel_args_bundle_the_rules_players_and_tiles():
    rules = resolve_rules(
        {"preset": "standard", "double_blank_points": 50, "max_pip": 9, "hand_size": 7}, 3
    )
    args = KernelArgs.build(rules, resolve_policies(["greedy", "random", "greedy"]))
    numbers, funcs, players, tiles = args.kernel_args()
    assert numbers == RuleNumbers(
        players=3,
        max_pip=9,
        hand_size=7,
        first_turn_train=False,
        set_aside=True,
        draw_to_start=False,
        double_blank_points=50,
        draw_limit=1,
        mexican_train=True,
    )
    assert len(funcs) == MAX_STRATEGIES + 1  # the strategies' slots, LONGEST_TRAIN_SLOT
    assert funcs[LONGEST_TRAIN_SLOT] is funcs[0]  # no longest_train: none compiled for it
    assert players.func.tolist() == [0, 1, 0]
    assert players.params.shape == (3, MAX_PARAMS)
    assert players.n_params.tolist() == [0, 0, 0]
    ts = tile_set(9)
    assert all(
        np.array_equal(a, b)
        for a, b in zip(tiles, (ts.lo, ts.hi, ts.pips, ts.number_mask), strict=True)
    )


def test_the_last_slot_is_longest_train_in_the_table_when_a_seat_plays_it():
    """The kernel plays longest_train at pip_weight 0 on its private table, through
    funcs[LONGEST_TRAIN_SLOT]; a weighted longest_train is called with the view."""
    rules = resolve_rules({}, 2)
    funcs = KernelArgs.build(rules, resolve_policies(["longest_train", "greedy"])).funcs
    assert funcs[LONGEST_TRAIN_SLOT] is in_table_decide()
    weighted = Policy(available_strategies()["longest_train"], (0.5,))
    funcs = KernelArgs.build(rules, [weighted, *resolve_policies(["greedy"])]).funcs
    assert funcs[LONGEST_TRAIN_SLOT] is funcs[0]


def test_first_turn_and_draw_to_start_come_through():
    numbers = KernelArgs.build(
        resolve_rules({"preset": "seed-000"}, 2), resolve_policies(["greedy"] * 2)
    ).numbers
    assert (numbers.first_turn_train, numbers.set_aside, numbers.draw_to_start) == (
        False,
        False,
        True,
    )
    numbers = KernelArgs.build(
        resolve_rules({"preset": "seed-001"}, 2), resolve_policies(["greedy"] * 2)
    ).numbers
    assert (numbers.first_turn_train, numbers.draw_to_start) == (True, False)


PLAY_ALL_ENTRY_POINTS = """\
import json
from mexsim.game import kernel
from mexsim.game.play import play_dealt_round, play_match_results, play_matches_results
from mexsim.game.rules import resolve_rules
from mexsim.strategy.policy import resolve_policies
rules = resolve_rules({"max_pip": 6, "hand_size": 5}, 2)
play_match_results(rules, resolve_policies(["greedy", "random"]), 1, 0, record=True)
play_matches_results(rules, resolve_policies(["greedy", "random"]), 1, 0, 2)
play_dealt_round(rules, resolve_policies(["greedy", "greedy"]), 0,
                 [[1, 2, 3, 4, 5], [6, 7, 8, 9, 10]], list(range(11, 28)) + [0])
print(json.dumps({f.__name__: [sum(f.stats.cache_hits.values()),
                               sum(f.stats.cache_misses.values())]
                  for f in (kernel.play_match, kernel.play_matches, kernel.play_dealt_round)}))
"""


@pytest.mark.slow
@pytest.mark.processes
def test_the_kernels_load_from_the_cache_in_a_new_process():
    """Named tuples of arrays are part of the kernels' signatures; numba must still find
    the compiled kernels on disk, or every process would compile them (minutes)."""

    def run() -> dict[str, list[int]]:
        done = subprocess.run(
            [sys.executable, "-c", PLAY_ALL_ENTRY_POINTS],
            cwd=ROOT,
            env=os.environ,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    run()  # compiles whatever this session has not cached yet
    assert run() == {"play_match": [1, 0], "play_matches": [1, 0], "play_dealt_round": [1, 0]}
