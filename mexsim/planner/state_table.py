"""The planner searches' table of states searched already: (end number, tiles used).

Two orderings of the same tiles that end at the same number leave the same problem
behind, so a depth-first search that meets a state again can skip it. The table is open
addressing on two arrays (end, tile set as a 64-bit word; end -1: empty), doubled when
half full. Shared by the list search (tests/planner/general.py) and the bitmask one
(mexsim/planner/dense.py).
"""

from __future__ import annotations

import numpy as np
from numba import njit

import mexsim.jit  # noqa: F401 - numba's cache folder chosen before anything caches

# the multipliers of splitmix64 (mexsim/game/rng.py), as a hash of (end, tiles used)
GOLDEN = np.uint64(0x9E3779B97F4A7C15)
MIX = np.uint64(0xBF58476D1CE4E5B9)
FIRST_SIZE = 256


@njit(cache=True, inline="always")
def _slot(v, mask, size):
    return np.int64(((mask ^ (np.uint64(v) * GOLDEN)) * MIX) >> np.uint64(40)) & (size - 1)


@njit(cache=True, inline="always")
def seen_before(table_v, table_m, v, mask):
    """Whether (v, mask) was searched already; if not, it is added, and the caller
    counts it and grows the table when it is half full (``full``, then ``regrow``).
    (Inlined: it runs at every node of the searches. It returns no array: numba counts
    references to arrays a function returns, two atomic adds each, which were an eighth
    of the dense path's time.)"""
    size = table_v.shape[0]
    slot = _slot(v, mask, size)
    while table_v[slot] >= 0 and not (table_v[slot] == v and table_m[slot] == mask):
        slot = (slot + 1) & (size - 1)
    if table_v[slot] >= 0:
        return True
    table_v[slot] = v
    table_m[slot] = mask
    return False


@njit(cache=True, inline="always")
def full(table_v, n_table):
    """Whether a table holding n_table states is half full: time to grow it."""
    return 2 * n_table > table_v.shape[0]


@njit(cache=True, inline="always")
def regrow(table_v, table_m, new_v, new_m):
    """The entries of one table inserted into another, larger (a power of two), which
    is emptied first (its ends all -1), for a caller that keeps its tables in memory of
    its own (mexsim/planner/dense.py's scratch; the tests' reference planner)."""
    size = new_v.shape[0]
    new_v[:] = -1
    for i in range(table_v.shape[0]):
        if table_v[i] >= 0:
            slot = _slot(table_v[i], table_m[i], size)
            while new_v[slot] >= 0:
                slot = (slot + 1) & (size - 1)
            new_v[slot] = table_v[i]
            new_m[slot] = table_m[i]
