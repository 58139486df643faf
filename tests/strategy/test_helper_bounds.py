"""Every helper a strategy can call checks its indices against the array it is given:
an index from the strategy's code that lands outside it raises IndexError, reported as
that strategy's fault in one line, and never reads or writes the game's memory.

The accessors are inlined into a user's decide, which is compiled with numba's bounds
check; the forward model's small helpers are inlined too, and the larger ones (and the
few accessors that are not inlined) carry the bounds check themselves. The attacks of
the hostile author's table (a heap read through world_penalty, writes past the view
through give_tile, set_stream and set_note, tile_text past the view) and their
siblings, each one case of one strategy file (one compile), chosen by a parameter.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mexsim.errors import StrategyError
from mexsim.game.play import play_match_results
from mexsim.game.rules import resolve_rules
from mexsim.strategy.policy import Policy, resolve_policies
from mexsim.strategy.registry import available_strategies

ATTACKS = {
    # case: the statement decide runs (``view``; ``world``, a world of the view)
    "world_penalty_reads_past": "x = world_penalty(view, 100000)",
    "give_tile_writes_past_the_view": "give_tile(view, 100000, 3)",
    "give_tile_into_a_view": "give_tile(view, 3, 3)",
    "set_stream_writes_past": "set_stream(view, 100000, 1, 2, 3, 4)",
    "set_note_writes_past": "set_note(view, 100000, 0, 5)",
    "tile_text_reads_past": "x = len(tile_text(view, 100000))",
    "hand_tiles_of_a_short_array": "for t in hand_tiles(view[:5]):\n            x += t",
    "stack_boneyard_on_a_view": "stack_boneyard(view, 3)",
    "whose_turn_of_a_view": "x = whose_turn(view)",
    "legal_move_count_of_a_view": "x = legal_move_count(view)",
    "world_bad_choices_of_a_view": "x = world_bad_choices(view)",
    "world_unconstrained_of_a_view": "x = world_unconstrained(view)",
    "world_from_view_into_a_view": "world_from_view(view, view)",
    "deal_world_into_a_view": "x = deal_world(view, view, True)",
    "random_below_of_a_short_array": "x = random_below(view[:5], 3)",
    "apply_past_the_moves": "apply(world, 100000)",
    "apply_move_of_a_huge_tile": "apply_move(world, 100000, 0)",
    "a_world_with_a_huge_table": (
        "world[PLAYERS] = 10**6\n"
        "        world[TILES] = 10**6\n"
        "        x = play_out(world, move_tile(view, 0), move_train(view, 0), greedy, params)"
    ),
}

TEXT = """\
import numpy as np

from mexsim.game.view import PLAYERS, TILES
from mexsim.strategy.api import (
    hand_tiles, int_param, move_tile, move_train, param_index, random_below, strategy,
    tile_text,
)
from mexsim.strategy.builtin.greedy import decide as greedy
from mexsim.strategy.forward import (
    apply, apply_move, deal_world, give_tile, legal_move_count, new_world, play_out,
    set_note, set_stream, stack_boneyard, whose_turn, world_bad_choices, world_from_view,
    world_penalty, world_unconstrained,
)

NAME = "out_of_bounds"
DESCRIPTION = "one out-of-bounds call, chosen by its parameter"
PARAMS = {"attack": (0.0, 0.0, 100.0)}
P = param_index(PARAMS)


@strategy
def decide(view, params):
    attack = int_param(params, P.attack)
    world = new_world()
    world_from_view(view, world)
    x = 0
"""


@pytest.fixture(scope="module")
def strategy_info(tmp_path_factory: pytest.TempPathFactory):
    folder: Path = tmp_path_factory.mktemp("bounds")
    lines = [TEXT]
    for k, statement in enumerate(ATTACKS.values(), start=1):
        lines.append(f"    if attack == {k}:\n        {statement}\n")
    lines.append("    return x * 0\n")
    (folder / "out_of_bounds.py").write_text("".join(lines), encoding="utf-8")
    return available_strategies([folder])["out_of_bounds"]


RULES = resolve_rules({}, 2)


@pytest.mark.compiles
def test_the_file_plays_when_it_attacks_nothing(strategy_info):
    play_match_results(RULES, resolve_policies(["greedy", Policy(strategy_info, (0.0,))]), 1, 3)


@pytest.mark.compiles
@pytest.mark.parametrize("case", list(ATTACKS))
def test_an_index_outside_the_array_raises_index_error(strategy_info, case: str):
    attack = float(list(ATTACKS).index(case) + 1)
    policies = resolve_policies(["greedy", Policy(strategy_info, (attack,))])
    with pytest.raises(StrategyError) as err:
        play_match_results(RULES, policies, 1, 3)
    message = str(err.value)
    assert message.startswith(
        "strategy 'out_of_bounds' (seat 1) in match 3, round 0 raised IndexError"
    ), message
    assert "\n" not in message
