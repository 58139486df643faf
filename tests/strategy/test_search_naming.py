"""search's rollout named in a config (``params = { rollout = "mine" }``): the decide
that plays a named strategy (StrategyInfo.naming) is search itself, the named strategy
called where the numbered one was."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from mexsim.game.play import play_matches_results
from mexsim.game.rules import resolve_rules
from mexsim.strategy.policy import Policy
from mexsim.strategy.registry import available_strategies

pytestmark = pytest.mark.compiles

LAST_MOVE = """
from mexsim.strategy.api import move_count, strategy

NAME = "last_move"
DESCRIPTION = "the last legal move"
PARAMS = {"unused": 3.0}

@strategy
def decide(view, params):
    return move_count(view) - 1
"""


def _search(worlds: float, rollout: float, known: dict, named: str | None = None) -> Policy:
    info = known["search"]
    if named is not None:
        info = info.naming(known[named])
    return Policy(info, (worlds, rollout, 1.0, 0.0))


@pytest.mark.parametrize(("named", "number"), [("greedy", 0.0), ("counter", 2.0)])
def test_a_named_rollout_plays_as_its_number(named: str, number: float) -> None:
    """The form compiled for a named strategy plays every decision as search with that
    strategy's number does: the same worlds, the same rollouts, the same choices."""
    known = available_strategies((), {"search", "greedy", "counter", "longest_train"})
    rules = resolve_rules({"preset": "seed-001"}, 3)
    opponents = [Policy(known["longest_train"], (0.0,)), Policy(known["greedy"], ())]
    numbered = play_matches_results(rules, [_search(3, number, known), *opponents], 7, 0, 2)
    by_name = play_matches_results(rules, [_search(3, -1.0, known, named), *opponents], 7, 0, 2)
    assert np.array_equal(numbered, by_name)
    assert numbered.sum() > 0


def test_a_users_rollout_is_played_cached_and_named_in_the_sources(tmp_path: Path) -> None:
    folder = tmp_path / "strategies"
    folder.mkdir()
    (folder / "last_move.py").write_text(LAST_MOVE)
    known = available_strategies([str(folder)], {"search", "last_move", "greedy"})
    rules = resolve_rules({"preset": "seed-001"}, 2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mine = _search(2, -1.0, known, "last_move")
    assert not [w for w in caught if "Cannot cache" in str(w.message)]
    assert mine.strategy.sources[-1] == str(folder / "last_move.py")
    assert mine.strategy.trusted  # the user's code plays only in worlds of its own
    greedy = Policy(known["greedy"], ())
    played = play_matches_results(rules, [mine, greedy], 11, 0, 2)
    assert np.array_equal(played, play_matches_results(rules, [mine, greedy], 11, 0, 2))
    # another rollout plays otherwise
    other = play_matches_results(rules, [_search(2, 0.0, known), greedy], 11, 0, 2)
    assert not np.array_equal(played, other)
    # the same strategy asked for again is the same compiled form, not another compile
    assert known["search"].naming(known["last_move"]).decide is mine.strategy.decide
