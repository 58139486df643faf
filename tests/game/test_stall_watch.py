"""mexsim.game.stall_watch: a decide running past the limit is named; one that returns,
or a kernel between decides, is not."""

from __future__ import annotations

import numpy as np

from mexsim.game.enums import N_STATUS, Status
from mexsim.game.stall_watch import StrategyStalled, stalled, watched


def _status(calls: int) -> np.ndarray:
    status = np.zeros(N_STATUS, dtype=np.int64)
    status[Status.calls], status[Status.deciding] = calls, 1
    status[Status.seat], status[Status.match], status[Status.round] = 1, 7, 3
    return status


def test_a_decide_running_past_the_limit_is_named() -> None:
    status = _status(calls=5)
    with watched(status, lambda s: f"strategy 'x' (seat {s[Status.seat]})"):
        assert stalled(10, now=100.0) is None  # first seen running: timed from here
        assert stalled(10, now=109.0) is None
        error = stalled(10, now=110.0)
        assert isinstance(error, StrategyStalled)
        assert str(error).startswith("strategy 'x' (seat 1) has not returned in 10 s")
        assert "--decision-limit" in str(error) and "\n" not in str(error)
        assert stalled(0, now=1e9) is None  # no limit
    assert stalled(10, now=1e9) is None  # the block is over: nothing watched


def test_decides_that_return_are_not_stalled() -> None:
    status = _status(calls=5)
    with watched(status, lambda s: "x"):
        assert stalled(10, now=0.0) is None
        status[Status.calls] = 6  # another decide began since: timed afresh
        assert stalled(10, now=15.0) is None
        assert stalled(10, now=24.0) is None
        status[Status.deciding] = 0  # the kernel between decides (its own rules)
        assert stalled(10, now=100.0) is None
        status[Status.calls], status[Status.deciding] = 7, 1
        assert stalled(10, now=101.0) is None
        assert stalled(10, now=110.0) is None
        assert stalled(10, now=111.0) is not None
