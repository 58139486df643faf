"""What a strategy file imports: the decide signature, the decorator and view helpers.

A strategy is a file in ``strategies/`` (or a folder named by the config or
``--strategies``) defining::

    NAME = "my_strategy"                 # how configs name it
    DESCRIPTION = "one line"              # shown by `mexsim strategies`
    PARAMS = {"weight": 0.5}              # numbers, with defaults (at most 8)

    @strategy
    def decide(view, params):             # view: int64[:] (mexsim.game.view), params: float64[:]
        return 0                          # the index of the chosen legal move

``params`` holds the values in PARAMS order. ``decide`` must return an index in
``0 .. view[N_MOVES] - 1``; anything else stops the run with an error naming the
strategy, the match and the round.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

from mexsim.game.rng import xoshiro_bounded
from mexsim.game.view import RNG

DECIDE_SIGNATURE = types.int64(types.int64[::1], types.float64[::1])

# Compiled once for the fixed signature and cached on disk; numba checks the strategy
# file's own timestamp, so an edited strategy is recompiled, never stale.
strategy = njit(DECIDE_SIGNATURE, cache=True)


@njit(cache=True)
def random_below(view, n):
    """A uniform number in 0..n-1 from the mover's own stream (advances it)."""
    value, s0, s1, s2, s3 = xoshiro_bounded(
        n, np.uint64(view[RNG]), np.uint64(view[RNG + 1]), np.uint64(view[RNG + 2]),
        np.uint64(view[RNG + 3]))
    view[RNG] = np.int64(s0)
    view[RNG + 1] = np.int64(s1)
    view[RNG + 2] = np.int64(s2)
    view[RNG + 3] = np.int64(s3)
    return value
