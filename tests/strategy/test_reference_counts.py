"""Code compiled without numba's reference counts (``_nrt=False``: the built-ins'
decide, their helpers, the sparse planner) must return no array: its caller would drop
a count that was never taken, and free the array under its own feet."""

from __future__ import annotations

import sys

from numba import types
from numba.core.registry import CPUDispatcher

from mexsim.game.play import play_matches_results
from mexsim.game.rules import resolve_rules
from mexsim.strategy.policy import Policy, resolve_policies
from mexsim.strategy.registry import available_strategies


def _holds_an_array(t: types.Type) -> bool:
    if isinstance(t, types.Array):
        return True
    if isinstance(t, types.BaseTuple):
        return any(_holds_an_array(x) for x in t.types)
    return False


def _uncounted() -> list[CPUDispatcher]:
    found = {}
    for name, module in list(sys.modules.items()):
        if name.startswith("mexsim"):  # mexsim's and the strategy files' modules
            for value in list(vars(module).values()):
                if isinstance(value, CPUDispatcher) and value.targetoptions.get("_nrt") is False:
                    found[id(value)] = value
    return list(found.values())


def test_what_is_compiled_without_reference_counts_returns_no_array():
    known = available_strategies()
    rules = resolve_rules({"preset": "seed-001"}, 4)
    weighted = Policy(known["longest_train"], (0.5,))
    for seats in (
        ["longest_train", "early_doubles", "greedy", "random"],
        [weighted, "mexican_first", "longest_train", "random"],
    ):
        play_matches_results(
            rules, resolve_policies(seats), 3, 0, 20
        )  # every such function compiled
    uncounted = _uncounted()
    names = {d.py_func.__name__ for d in uncounted}
    assert {"decide", "sparse_count_chain", "sparse_chain", "_replan"} <= names
    for dispatcher in uncounted:
        for signature in dispatcher.nopython_signatures:
            assert not _holds_an_array(signature.return_type), (
                dispatcher.py_func.__qualname__,
                signature,
            )
