"""The result tables' columns built from numpy buffers (mexsim/store/result_tables.py):
the same Arrow arrays as ``pa.array`` makes, and read back to the same numpy values,
without importing pandas on the way (issue 37: the first block paid its import)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pyarrow as pa
import pytest

from mexsim.store.result_tables import _array, _strings, values_of

COLUMNS = [
    np.array([3, -1, 7], dtype=np.int64),
    np.array([1, 2], dtype=np.int8),
    np.array([-300, 0, 300, 5], dtype=np.int16),
    np.array([1, 2, 3], dtype=np.int32),
    np.array([0.5, -1.25], dtype=np.float64),
    np.array([True, False, True, True, False, False, True, False, True], dtype=np.bool_),
    np.array([], dtype=np.int16),
    np.array([], dtype=np.bool_),
]


@pytest.mark.parametrize("values", COLUMNS, ids=lambda v: f"{v.dtype}-{len(v)}")
def test_a_column_is_the_array_pa_array_makes_and_reads_back_the_same(values: np.ndarray) -> None:
    made = _array(values)
    assert made.equals(pa.array(values)) and made.type == pa.array(values).type
    back = values_of(made)
    assert back.dtype == values.dtype and np.array_equal(back, values)
    # a slice and a column of several chunks read back too
    assert np.array_equal(values_of(made.slice(1)), values[1:])
    chunked = pa.chunked_array([made, made])
    assert np.array_equal(values_of(chunked), np.concatenate([values, values]))


def test_strings_and_a_column_from_a_strided_view() -> None:
    assert _strings(["greedy", "lón", ""]).equals(pa.array(["greedy", "lón", ""]))
    wide = np.arange(12, dtype=np.int64).reshape(3, 4)[:, 1]  # not contiguous
    assert _array(wide).equals(pa.array(wide))
    with pytest.raises(ValueError, match="nulls"):
        values_of(pa.array([1, None]))


def test_a_block_is_converted_and_folded_without_pandas() -> None:
    probe = (
        "import sys, numpy as np\n"
        "from mexsim.store.result_tables import block_tables\n"
        "from mexsim.store.parts import block_facts, block_statistics\n"
        "res = np.ones((3, 13, 4, 10), dtype=np.int64)\n"
        "seats = np.tile(np.arange(4), (3, 1))\n"
        "names = ['a', 'b', 'c', 'd']\n"
        "rounds, matches = block_tables(res, 0, 12, seats, names, names)\n"
        "block_statistics(matches, names, 4); block_facts(rounds)\n"
        "print('pandas' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
