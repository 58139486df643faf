"""What a caller may hand longest_chain: anything wrong raises ValueError, and nothing
is written or read out of bounds (the paths check no index; their scratch is in their
frame, where a stray write would hit the return address: mexsim/planner/stack_array.py).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mexsim.game.tiles import tile_set
from mexsim.planner import longest_chain

ROOT = Path(__file__).resolve().parents[2]


def _tables(max_pip: int = 12):
    ts = tile_set(max_pip)
    return (ts.lo.astype(np.int64), ts.hi.astype(np.int64), ts.pips.astype(np.int64))


def _plan(
    hand: list[int], n: int | None = None, chain_size: int = 200, tables=None, max_pip: int = 12
):
    lo, hi, pips = tables if tables is not None else _tables(max_pip)
    hand_array = np.array(hand, dtype=np.int64)
    return longest_chain(
        7,
        hand_array,
        len(hand) if n is None else n,
        lo,
        hi,
        pips,
        0.0,
        max_pip,
        np.zeros(chain_size, dtype=np.int64),
    )


HAND = [1, 2, 13, 14, 20, 33, 40, 51, 60, 77]  # double-12 tiles


def test_a_good_hand_plans():
    length, value = _plan(HAND)
    assert length >= 0 and value == float(length)


@pytest.mark.parametrize(
    "hand",
    [
        [*HAND, -1],  # wrapped to the last tile before the indices became unsigned
        [*HAND, 91],  # one past a double-12 set's tiles
        [*HAND, 1 << 40],
    ],
)
def test_a_tile_number_outside_the_tables_raises(hand: list[int]):
    with pytest.raises(ValueError, match="tile number"):
        _plan(hand)


def test_tables_whose_numbers_leave_the_set_raise():
    lo, hi, pips = _tables()
    lo[13] = 40  # a number no bitmask word has
    with pytest.raises(ValueError, match="outside the set"):
        _plan(HAND, tables=(lo, hi, pips))
    with pytest.raises(ValueError, match="outside the set"):
        _plan(HAND, max_pip=-1, tables=_tables())


@pytest.mark.parametrize("n, chain_size", [(len(HAND) + 1, 200), (len(HAND), 3)])
def test_more_tiles_than_hand_or_chain_hold_raises(n: int, chain_size: int):
    with pytest.raises(ValueError, match="holds"):
        _plan(HAND, n=n, chain_size=chain_size)


SCRIBBLER = '''\
"""Writes over its own view (every hand bit set, tiles past the set), then hands the
view to the built-in longest_train."""
from mexsim.strategy.api import strategy
from mexsim.game.view import HAND, TILE_PIPS
from mexsim.strategy.builtin.longest_train import decide as longest_train_decide

NAME = "scribbler"
DESCRIPTION = "longest_train on a view it wrote over"
PARAMS = {"pip_weight": 0.0}
MEMORY = 32


@strategy
def decide(view, params):
    for w in range(3):
        view[HAND + w] = -1
    for k in range(56):
        view[TILE_PIPS + k] = 0
    return longest_train_decide(view, params)
'''

# writes over its notes instead: the plan's length and the position in it, huge
NOTE_SCRIBBLER = SCRIBBLER.replace(
    "from mexsim.game.view import HAND, TILE_PIPS", "from mexsim.game.view import NOTES"
).replace(
    """    for w in range(3):
        view[HAND + w] = -1
    for k in range(56):
        view[TILE_PIPS + k] = 0
""",
    """    view[NOTES + 6] = 1 << 60
    view[NOTES + 7] = 1 << 40
""",
)

RUN = """
import sys
from mexsim.game.play import StrategyError, play_matches_results
from mexsim.game.rules import resolve_rules
from mexsim.strategy.policy import Policy
from mexsim.strategy.registry import available_strategies
known = available_strategies([sys.argv[1]])
try:
    play_matches_results(resolve_rules({"preset": "seed-001"}, 2),
                         [Policy(known["scribbler"], (0.0,)), Policy(known["greedy"], ())], 3, 0, 5)
except StrategyError as exc:
    print("refused:", exc)
"""


@pytest.mark.slow
@pytest.mark.processes
@pytest.mark.compiles
def test_a_view_written_over_and_handed_to_longest_train_is_the_strategy_s_fault(tmp_path: Path):
    # 192 hand bits overran longest_train's scratch of 2 x 136 tiles (SIGSEGV); the
    # hand's tiles past the set now raise, and the run names the strategy
    (tmp_path / "scribbler.py").write_text(SCRIBBLER, encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-c", RUN, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert result.returncode == 0, (result.returncode, result.stderr[-2000:])
    assert result.stdout.startswith("refused:"), result.stdout
    assert "scribbler" in result.stdout and "tile number" in result.stdout


@pytest.mark.slow
@pytest.mark.processes
@pytest.mark.compiles
def test_notes_written_over_and_handed_to_longest_train_stay_in_the_view(tmp_path: Path):
    # a plan's length and position of 2**60 and 2**40 read the plan's words far past the
    # view (SIGSEGV)
    assert "view[NOTES + 7] = 1 << 40" in NOTE_SCRIBBLER
    (tmp_path / "scribbler.py").write_text(NOTE_SCRIBBLER, encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-c", RUN, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert result.returncode == 0, (result.returncode, result.stderr[-2000:])
