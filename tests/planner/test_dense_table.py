"""The dense search's table of states in the scratch, and its way out when it is full.

mexsim/planner/dense.py keeps each search's table of states (end, tiles used) in the
plan's scratch, TABLE_CAP entries a half, so that a search makes and frees nothing. A
search that would outgrow it is asked again from the start with the table on the heap
(``_search_on_heap``), which must give the very chain the search would have given had
its table never been full. At TABLE_CAP = 4096 that almost never happens in play, so
this test builds a copy of the module with a 256-entry table (which the table's first
growth already outgrows) and holds it to the real one, chain for chain.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from mexsim.jit import callee
from mexsim.planner import dense
from tests.strategy.test_strategies import tables

# A hand from a recorded 4 x longest_train match (seed-001 rules, double-12) whose
# dense search outgrows a 256-entry table, and on which a search that gave up there
# instead of asking again plans a different chain (checked when this test was written)
OUTGROWN = (1, [2, 3, 6, 8, 12, 13, 15, 16, 19, 21, 26, 30, 47, 50, 53, 57, 59, 66, 67, 82, 90])


@pytest.fixture(scope="module")
def small_table(tmp_path_factory: pytest.TempPathFactory):
    """mexsim.planner.dense compiled again with TABLE_CAP = 256."""
    source = Path(dense.__file__).read_text(encoding="utf-8")
    # the scratch keeps its size (mexsim/planner/dense_scratch.py): this copy's table
    # takes the first 4 x 256 of its 4 x 4096 words
    taken, imported = "    TABLE_CAP,\n", "from mexsim.planner.state_table import"
    assert source.count(taken) == 1 and source.count(imported) == 1
    small = source.replace(taken, "").replace(imported, "TABLE_CAP = 1 << 8\n" + imported)
    folder = tmp_path_factory.mktemp("small_table")
    path = folder / "dense_small_table.py"
    path.write_text(small, encoding="utf-8")
    registered = len(callee.CALLEES)
    spec = importlib.util.spec_from_file_location("dense_small_table", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["dense_small_table"] = module
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        # its callees are not mexsim's (tests/test_callee.py reads mexsim's sources)
        del callee.CALLEES[registered:]
        sys.modules.pop("dense_small_table", None)


def _chain(module, max_pip: int, start: int, hand: list[int]) -> list[int]:
    lo, hi, _ = tables(max_pip)
    chain = np.full(len(hand), -1, dtype=np.int64)
    length, _ = module.dense_chain(
        start, np.array(hand, dtype=np.int64), len(hand), lo, hi, max_pip, chain
    )
    return chain[:length].tolist()


@pytest.mark.slow
def test_a_search_that_outgrows_the_scratchs_table_plans_the_same_chain(small_table):
    start, hand = OUTGROWN
    assert _chain(small_table, 12, start, hand) == _chain(dense, 12, start, hand)


@pytest.mark.parametrize("seed", range(40))
def test_a_small_table_plans_the_chains_of_the_real_one(small_table, seed: int):
    """Random dense hands of double-12 and double-15: the same chain, tile for tile."""
    rng = np.random.default_rng(seed)
    max_pip = 12 if seed % 2 else 15
    tiles = (max_pip + 1) * (max_pip + 2) // 2
    hand = sorted(rng.choice(tiles, size=int(rng.integers(18, 40)), replace=False).tolist())
    start = int(rng.integers(0, max_pip + 1))
    assert _chain(small_table, max_pip, start, hand) == _chain(dense, max_pip, start, hand)
