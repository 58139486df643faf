"""A user's strategy that calls a built-in's code, or writes over the view's fixed part.

The built-ins are compiled without bounds checks; a user's decide that writes over its
view and hands it to one is given a bounds-checked twin instead
(mexsim/strategy/checked_builtins.py). What a user's strategy writes over the view's
parts fixed for the match (its scalars, the tile tables) is written back before
another seat's strategy sees the view, in the core and the reference alike; and a
strategy that raises is named by the kernel's own record of the seat, match and round,
not by the view's words it may have overwritten.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from mexsim.game import reference
from mexsim.game.play import core_trace, play_matches_results
from mexsim.game.rules import resolve_rules
from mexsim.strategy.policy import Policy, resolve_policies
from mexsim.strategy.registry import available_strategies
from tests.cli_output import without_compile_notes

ROOT = Path(__file__).resolve().parents[2]

DELEGATES = """\
from mexsim.strategy.api import strategy
{imports}
from mexsim.game.view import MATCH, N_MOVES, ROUND, SEAT

NAME = "{name}"
DESCRIPTION = "hands a built-in its view"
PARAMS = {params}
MEMORY = {memory}  # the built-in's own: its notes are kept in the caller's


@strategy
def decide(view, params):
{scribble}
    return {call}(view, params)
"""

# the notes a built-in keeps (its MEMORY): a strategy that calls it declares as many
MEMORY_OF = {"longest_train": 32, "counter": 32}

# (built-in, imported by name or as a module, what the view is written over with)
SCRIBBLED = {
    "early_doubles_moves": ("early_doubles", "name", "    view[N_MOVES] = 1 << 40"),
    "greedy_moves": ("greedy", "module", "    view[N_MOVES] = 1 << 40"),
    "mexican_first_moves": ("mexican_first", "name", "    view[N_MOVES] = 1 << 40"),
    "longest_train_seat_match_round": (
        "longest_train",
        "module",
        "    view[SEAT] = 1 << 40\n    view[MATCH] = 1 << 40\n    view[ROUND] = -5",
    ),
    "random_moves": ("random", "name", "    view[N_MOVES] = 1 << 40"),
}
PARAMS_OF = {"early_doubles": '{"own_first": 1.0}', "longest_train": '{"pip_weight": 0.0}'}


def delegating_file(folder: Path, name: str, builtin: str, style: str, scribble: str) -> None:
    if style == "name":
        imports = f"from mexsim.strategy.builtin.{builtin} import decide as builtin_decide"
        call = "builtin_decide"
    else:
        imports = f"from mexsim.strategy.builtin import {builtin}"
        call = f"{builtin}.decide"
    (folder / f"{name}.py").write_text(
        DELEGATES.format(
            imports=imports,
            name=name,
            params=PARAMS_OF.get(builtin, "{}"),
            scribble=scribble or "    pass",
            call=call,
            memory=MEMORY_OF.get(builtin, 0),
        ),
        encoding="utf-8",
    )


@pytest.mark.slow
@pytest.mark.processes
@pytest.mark.compiles
@pytest.mark.parametrize("case", sorted(SCRIBBLED))
def test_a_built_in_handed_a_written_over_view_fails_the_users_strategy_in_one_line(
    tmp_path: Path, case: str
):
    """Each built-in, called from a user's decide that wrote over the move count or
    its seat (and match and round) first: the run stops with exit 1 and one line naming
    the user's strategy, where the built-in read far beyond the view (a segmentation
    fault), random_below drew from 2**40 moves (it never ended), or the message read the
    seat from the view (an internal error)."""
    builtin, style, scribble = SCRIBBLED[case]
    strategies = tmp_path / "strategies"
    strategies.mkdir()
    delegating_file(strategies, "mine", builtin, style, scribble)
    (tmp_path / "cfg.toml").write_text(
        '[run]\nmatches = 3\nseed = 1\nout = "res"\n'
        '[[players]]\nstrategy = "mine"\n[[players]]\nstrategy = "greedy"\n',
        encoding="utf-8",
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-m", "mexsim", "run", "cfg.toml", "--quiet"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    lines = without_compile_notes(done.stderr).splitlines()
    assert done.returncode == 1 and len(lines) == 1, done.stderr
    assert lines[0].startswith("mexsim: error: strategy 'mine' (seat 0) in match 0, round 0 "), (
        done.stderr
    )
    assert not (tmp_path / "res").exists()


@pytest.mark.slow
@pytest.mark.compiles
@pytest.mark.parametrize("builtin", ["mexican_first", "longest_train", "early_doubles"])
def test_a_user_strategy_that_calls_a_built_in_plays_exactly_like_it(tmp_path: Path, builtin: str):
    """The bounds-checked twin plays the built-in's moves: a user's decide that only
    calls it plays the same games (by name and as a module)."""
    for style in ("name", "module"):
        folder = tmp_path / style
        folder.mkdir()
        delegating_file(folder, "mine", builtin, style, "")
        known = available_strategies([folder])
        rules = resolve_rules({}, 3)
        mine = resolve_policies(
            [
                Policy(known["mine"], tuple(known[builtin].params.values())),
                "greedy",
                "longest_train",
            ]
        )
        theirs = resolve_policies([builtin, "greedy", "longest_train"])
        assert core_trace(rules, mine, 5, 2) == core_trace(rules, theirs, 5, 2)


FIXED_SCRIBBLER = """\
from mexsim.strategy.api import strategy
from mexsim.game.view import MATCH, MAX_PIP, MOVE_TILE, PLAYERS, TILE_LO, TILES, WORDS

NAME = "{name}"
DESCRIPTION = "the heaviest move, then writes over the view's fixed part"


@strategy
def decide(view, params):
    best = 0
    for i in range(1, view[11]):
        if view[MOVE_TILE + i] < view[MOVE_TILE + best]:
            best = i
    if {scribble}:
        for k in range(TILE_LO, MOVE_TILE):
            view[k] = 1 << 40
        for k in (MAX_PIP, PLAYERS, TILES, WORDS, MATCH, 14, 15):
            view[k] = 1 << 40
    return best
"""


@pytest.mark.compiles
def test_what_a_strategy_writes_over_the_fixed_view_no_other_seat_sees(tmp_path: Path):
    """A user's strategy that writes over the view's scalars and tile tables after each
    decision, beside longest_train weighted and mexican_first (called, and reading the
    tile tables) and the built-ins the kernel plays (longest_train at pip_weight 0
    among them): the same games as its twin that does not, in the core and in the
    reference engine. Before, longest_train planned on the written-over tables and the
    run stopped with an internal error."""
    for name, scribble in (("scribbler", "True"), ("twin", "False")):
        (tmp_path / f"{name}.py").write_text(
            FIXED_SCRIBBLER.format(name=name, scribble=scribble), encoding="utf-8"
        )
    known = available_strategies([tmp_path])
    for players in (3, 5):
        rules = resolve_rules({}, players)
        others = resolve_policies(
            [
                Policy(known["longest_train"], (0.5,)),
                "mexican_first",
                "longest_train",
                "early_doubles",
            ][: players - 1]
        )
        scribbling = [Policy(known["scribbler"], ()), *others]
        twin = [Policy(known["twin"], ()), *others]
        for match in (0, 3):
            expected = core_trace(rules, twin, 9, match)
            assert core_trace(rules, scribbling, 9, match) == expected
            assert reference.play_match(rules, 9, match, scribbling).events == expected
        assert (
            play_matches_results(rules, scribbling, 9, 0, 20)
            == play_matches_results(rules, twin, 9, 0, 20)
        ).all()
