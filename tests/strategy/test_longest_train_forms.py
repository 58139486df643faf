"""longest_train's two compiled forms: counting plans at pip_weight 0, weighted otherwise.

The default form plans with the router's counting entry (longest_unweighted_chain),
so that a first run does not compile the planner's weighted form; a pip_weight other
than 0 plays a second decide, compiled when a run first asks for it. Both must choose
alike wherever both may play (pip_weight 0), and a run at the default must never
compile the weighted form.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mexsim.game import view as V
from mexsim.game.enums import Dispatch
from mexsim.game.play import play_match_results
from mexsim.game.rules import resolve_rules
from mexsim.game.signature import DECIDE_SIGNATURE, ready
from mexsim.game.stand_in import stand_in_decide
from mexsim.planner.router import longest_unweighted_chain
from mexsim.strategy.policy import Policy
from mexsim.strategy.registry import available_strategies, load_strategy_file
from mexsim.testing import check_strategy
from tests.profiles import examples
from tests.strategy.test_strategies import hands, plan, tables

ROOT = Path(__file__).resolve().parents[2]


@settings(max_examples=examples(300), deadline=None)
@given(hands({6: (0, 17), 9: (0, 20), 12: (0, 20)}, st.just(0.0)))
def test_the_counting_entry_plans_the_chain_longest_chain_plans_at_weight_0(case):
    max_pip, hand, start, _ = case
    lo, hi, pips = tables(max_pip)
    chain = np.full(max(1, len(hand)), -1, dtype=np.int64)
    length, value = longest_unweighted_chain(
        start, np.array(hand, dtype=np.int64), np.uint64(len(hand)), lo, hi, pips, max_pip, chain
    )
    assert (chain[:length].tolist(), value) == plan(max_pip, hand, start, 0.0)


ARGS = DECIDE_SIGNATURE.args


def test_pip_weight_picks_the_form():
    info = available_strategies()["longest_train"]
    assert Policy(info, (0.0,)).decide is info.decide
    weighted = Policy(info, (0.5,)).decide
    assert weighted is not info.decide and weighted is Policy(info, (2.0,)).decide
    # compiled when asked for; the plain form when first needed (signature.ready)
    assert list(weighted.signatures) == list(ready(info.decide).signatures) == [ARGS]


@settings(max_examples=examples(25), deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([2, 3, 4]), st.sampled_from([9, 12]))
def test_both_forms_play_alike_at_pip_weight_0(seed, players, max_pip):
    """Every seat longest_train at pip_weight 0: its own form, then the weighted one
    forced on it (it plans with the same path at weight 0), match results equal."""
    info = available_strategies()["longest_train"]
    forced = dataclasses.replace(info, decide=Policy(info, (0.5,)).decide, decide_for=None)
    rules = resolve_rules({"max_pip": max_pip, "hand_size": 8 if max_pip == 9 else 10}, players)
    own = play_match_results(rules, [Policy(info, (0.0,))] * players, seed, 0, record=True)
    other = play_match_results(rules, [Policy(forced, (0.0,))] * players, seed, 0, record=True)
    assert all(np.array_equal(a, b) for a, b in zip(own, other, strict=True))  # every move


@pytest.mark.compiles
def test_a_users_decide_for_is_not_taken(tmp_path: Path):
    """Only a built-in may pick its decide by parameters: a user's file is vetted as
    its decide, and that is what plays, whatever else it defines."""
    path = tmp_path / "picky.py"
    path.write_text(
        textwrap.dedent("""
        from mexsim.strategy.api import strategy
        NAME = "picky"
        DESCRIPTION = "defines a decide_for"
        PARAMS = {"w": 0.0}

        @strategy
        def decide(view, params):
            return 0

        def decide_for(params):
            raise RuntimeError("never asked")
    """)
    )
    info = load_strategy_file(path)
    assert info.decide_for is None
    assert Policy(info, (1.0,)).decide is info.decide


@pytest.mark.slow
@pytest.mark.processes
def test_the_default_form_never_reaches_the_weighted_planner(tmp_path: Path):
    """In a fresh process, decide and its planning function compiled afresh (not
    loaded from numba's cache, which types no callee): the weighted dense and sparse
    paths are never typed, so a first run at pip_weight 0 does not compile them."""
    code = textwrap.dedent("""
        import sys
        from numba import njit
        from mexsim.planner.dense import weighted_dense_chain
        from mexsim.planner.sparse import sparse_chain, sparse_count_chain
        from mexsim.strategy.api import DECIDE_SIGNATURE
        from mexsim.strategy.registry import available_strategies
        info = available_strategies()["longest_train"]
        module = sys.modules[info.decide.py_func.__module__]
        njit(module._replan.py_func).compile("(int64[::1], int64, uint64, uint64, uint64)")
        njit(info.decide.py_func).compile(DECIDE_SIGNATURE)
        print(len(weighted_dense_chain.signatures), len(module._replan_weighted.signatures),
              module._weighted.cache_info().currsize, len(sparse_chain.signatures),
              len(sparse_count_chain.signatures) > 0)
    """)
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        env=os.environ | {"PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0", "0", "0", "0", "True"]


def test_the_default_form_refuses_a_weight_rather_than_ignore_it():
    """Called directly with a pip_weight (not through Policy.decide, which picks the
    form), the counting form raises: it would otherwise plan without the weight."""
    info = available_strategies()["longest_train"]
    view = np.zeros(V.SIZE, dtype=np.int64)
    with pytest.raises(ValueError, match="decide_for"):
        info.decide(view, np.full(V.MAX_PARAMS, 0.5))


@pytest.mark.slow
def test_the_contract_checks_the_form_its_weight_plays():
    """check_strategy with a pip_weight checks (and times) the weighted form, in this
    process and in the second one it asks for the same choices."""
    report = check_strategy("longest_train", examples=5, params=[0.5])
    assert report.failure is None and report.decisions > 0


@pytest.mark.compiles
def test_a_users_file_importing_the_builtin_decide_cannot_pick_its_form(tmp_path: Path):
    """A user's file that imports longest_train's decide is trusted as that decide, but
    a decide_for of its own would pick code nobody vetted, to play without bounds
    checks: only a decide_for a built-in file defines is taken."""
    path = tmp_path / "sneaky.py"
    path.write_text(
        textwrap.dedent("""
        from mexsim.strategy.api import strategy
        from mexsim.strategy.builtin.longest_train import decide  # noqa: F401
        NAME = "sneaky"
        DESCRIPTION = "longest_train's decide, and a form of its own"
        PARAMS = {"pip_weight": (0.0, 0.0, 100.0)}
        MEMORY = 32

        @strategy
        def unvetted(view, params):
            return 0

        def decide_for(params):
            return unvetted
    """)
    )
    info = load_strategy_file(path)
    assert info.decide_for is None
    assert Policy(info, (0.5,)).decide is info.decide


@pytest.mark.compiles
def test_a_users_file_reexporting_both_builtin_names_plays_their_forms(tmp_path: Path):
    """Importing decide and decide_for from the built-in is still the built-in."""
    path = tmp_path / "mine.py"
    path.write_text(
        textwrap.dedent("""
        from mexsim.strategy.builtin.longest_train import (  # noqa: F401
            MEMORY, PARAMS, decide, decide_for)
        NAME = "mine"
        DESCRIPTION = "longest_train under another name"
    """)
    )
    info = load_strategy_file(path)  # (its import is a module apart from the registry's)
    weighted = Policy(info, (0.5,)).decide
    assert weighted is not info.decide and weighted.py_func.__name__ == "_decide_weighted"
    assert Policy(info, (0.0,)).decide is info.decide


def test_parameter_values_not_given_play_as_0():
    """A Policy with fewer values than PARAMS: the kernels pad them with 0, so the
    form is the pip_weight-0 one (it was an IndexError)."""
    info = available_strategies()["longest_train"]
    assert Policy(info, ()).decide is info.decide
    assert info.decide_with(np.zeros(0)) is info.decide


def test_two_forms_share_a_slot_when_the_kernels_have_none_to_spare(monkeypatch):
    """The config counts strategies by name, the kernels count compiled decides: 16
    strategies, longest_train among them at pip_weight 0 and 0.5, were 17 decides, and
    the run ended in a traceback (ValueError). Then its seats all play the weighted
    form, which plans by counting at pip_weight 0 (the same moves: above)."""
    import mexsim.game.play as play

    monkeypatch.setattr(play, "MAX_STRATEGIES", 2)  # (the arguments only: nothing plays)
    known = available_strategies()
    longest = known["longest_train"]
    players = [Policy(longest, (0.0,)), Policy(known["greedy"], ()), Policy(longest, (0.5,))]
    args = play.KernelArgs.build(resolve_rules({}, 3), players)
    assert args.decides == (Policy(longest, (0.5,)).decide, known["greedy"].decide)
    # greedy's rule is the kernel's own: its slot holds the stand-in (mexsim/game/stand_in.py)
    assert args.funcs[:2] == (Policy(longest, (0.5,)).decide, stand_in_decide())
    assert args.arrays.func.tolist() == [0, 1, 0]
    assert args.arrays.params[:, 0].tolist() == [0.0, 0.0, 0.5]
    roomy = play.KernelArgs.build(resolve_rules({}, 2), players[:2])  # a slot each
    assert roomy.decides == (longest.decide, known["greedy"].decide)
    assert roomy.funcs[:2] == (stand_in_decide(), stand_in_decide())
    assert roomy.kernel_args(Dispatch.called)[1][:2] == (longest.decide, known["greedy"].decide)
