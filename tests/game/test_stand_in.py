"""The kernels' strategy slots hold a stand-in for the shipped strategies whose rule the
kernel makes itself (mexsim/game/stand_in.py): their own decides are compiled only
when something calls them, never by a run, and the stand-in, were it ever called,
stops the run rather than play a move. (early_doubles' own decide the kernel calls, on
its private table: its slot holds it.)"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from mexsim.errors import StrategyError
from mexsim.game.enums import Dispatch
from mexsim.game.play import KernelArgs, play_match_results, play_scheduled
from mexsim.game.rules import resolve_rules
from mexsim.game.stand_in import stand_in_decide
from mexsim.strategy.policy import Policy, resolve_policies
from mexsim.strategy.registry import available_strategies
from tests.tournament.runs import python_in

KERNEL_PLAYED = ["longest_train", "early_doubles", "greedy", "random"]

# a fresh process (this one may have compiled them): a block of the default table, then
# whether each shipped decide the kernel plays itself was compiled, or loaded, for it
NEVER_COMPILED = """
import numpy as np
from mexsim.game.play import play_scheduled
from mexsim.game.rules import resolve_rules
from mexsim.strategy.policy import resolve_policies

players = resolve_policies(["longest_train", "early_doubles", "greedy", "random"])
ids = np.arange(4, dtype=np.int64)
seating = np.array([[(s + k) % 4 for s in range(4)] for k in range(4)], dtype=np.int64)
res = play_scheduled(resolve_rules({}, 4), players, 7, ids, ids.copy(), seating)
assert res.any()
print(*(len(p.strategy.decide.overloads) for p in players))
"""
ON_TABLE = 1  # early_doubles' seat in KERNEL_PLAYED: its own decide is called


@pytest.mark.processes
def test_a_run_compiles_no_decide_the_kernel_plays_itself() -> None:
    done = python_in(NEVER_COMPILED)
    assert done.returncode == 0, done.stderr
    # longest_train's was 4.6 CPU-s; early_doubles' the kernel calls
    assert done.stdout.split() == ["0", "1", "0", "0"]


def test_the_slots_hold_the_stand_in_and_the_called_dispatch_the_decides() -> None:
    players = resolve_policies(KERNEL_PLAYED)
    args = KernelArgs.build(resolve_rules({}, 4), players)
    assert args.decides == tuple(p.decide for p in players)
    assert {args.funcs[s] for s in range(4) if s != ON_TABLE} == {stand_in_decide()}
    assert args.funcs[ON_TABLE] is args.decides[ON_TABLE]
    called = args.kernel_args(Dispatch.called)[1]
    assert called[:4] == args.decides  # compiled when asked, and closed as before
    assert all(not getattr(d, "_can_compile", True) for d in called[:4])
    assert args.kernel_args()[1] == args.funcs


def test_every_seat_called_plays_as_the_kernel_plays_it() -> None:
    """Dispatch.called (benchmarks; `replay --moves` likewise) calls every seat's own
    decide: the same match, move for move, as the kernel's own rules play it."""
    rules = resolve_rules({}, 4)
    players = resolve_policies(KERNEL_PLAYED)
    ids = np.arange(3, dtype=np.int64)
    seating = np.array([[(s + k) % 4 for s in range(4)] for k in range(3)], dtype=np.int64)
    own = play_scheduled(rules, players, 11, ids, ids.copy(), seating)
    called = play_scheduled(rules, players, 11, ids, ids.copy(), seating, Dispatch.called)
    assert np.array_equal(own, called)


def test_the_stand_in_called_stops_the_run_naming_the_seat() -> None:
    greedy = available_strategies()["greedy"]
    impostor = Policy(dataclasses.replace(greedy, name="impostor", decide=stand_in_decide()), ())
    with pytest.raises(StrategyError, match=r"strategy 'impostor' .* chose move -1"):
        play_match_results(resolve_rules({}, 2), [impostor, Policy(greedy, ())], 1, 0)


def test_the_kernel_played_callings_are_the_shipped_files_twins() -> None:
    """enums.IN_KERNEL_CALLINGS (the game's layer) names the callings that
    mexsim/strategy/origin.py gives the shipped files the kernel plays itself (the rest
    of them it calls on its private table)."""
    from mexsim.game.enums import IN_KERNEL_CALLINGS, Calling
    from mexsim.strategy.origin import _KERNEL_TWINS

    assert set(_KERNEL_TWINS.values()) == IN_KERNEL_CALLINGS | {Calling.builtin_on_table}
