"""A decide that never returns on a Dask worker: the worker's watch answers the
client's question (mexsim/running/dask/worker_stall.py), and the client names it
(``ClusterPlayer.stalled``). The whole run: tests/tournament/test_stalled_strategy.py."""

from __future__ import annotations

from typing import Any

import numpy as np

from mexsim.game.enums import Status
from mexsim.game.stall_watch import StrategyStalled, tagged, watched
from mexsim.running.dask.cluster import ClusterPlayer
from mexsim.running.dask.worker_stall import stalled_here

WHERE = "strategy 'loops' (seat 1) in match 7, round 2"
SAID = f"{WHERE} has not returned in 5 s: …"


def deciding() -> np.ndarray:
    status = np.zeros(len(Status), dtype=np.int64)
    status[Status.deciding], status[Status.calls] = 1, 41
    return status


def test_a_worker_answers_with_the_decide_running_past_the_limit() -> None:
    status = np.zeros(len(Status), dtype=np.int64)
    with tagged("run-a"), watched(status, lambda words: WHERE):
        assert stalled_here(1e-9, "run-a") == (None, None)  # not deciding
        status[Status.deciding], status[Status.calls] = 1, 41
        assert stalled_here(1e-9, "run-a") == (None, None)  # first seen now: timed from here
        mine, other = stalled_here(1e-9, "run-a")
        assert mine is not None and mine.startswith(WHERE) and other is None
        assert stalled_here(0, "run-a") == (None, None)  # 0: no limit
    assert stalled_here(1e-9, "run-a") == (None, None)  # the block ended: nothing watched


def test_a_decide_stuck_in_an_earlier_commands_task_is_not_this_ones() -> None:
    """A worker of the user's cluster outlives a run stopped by a stuck decide: the next
    run, of other strategies, was stopped naming the first run's strategy."""
    with tagged("earlier"), watched(deciding(), lambda words: WHERE):
        stalled_here(1e-9, "now")  # first seen
        mine, other = stalled_here(1e-9, "now")
        assert mine is None and other is not None and other.startswith(WHERE)
        mine, other = stalled_here(1e-9, "earlier")
        assert mine is not None and other is None


class FakeClient:
    def __init__(self, answers: dict[str, tuple[str | None, str | None]] | Exception) -> None:
        self.answers = answers
        self.asked: list[float] = []

    def run(self, function: Any, limit: float, tag: str) -> dict:
        assert function is stalled_here and tag == "this-run"
        self.asked.append(limit)
        if isinstance(self.answers, Exception):
            raise self.answers
        return self.answers


def player(client: FakeClient, local: bool) -> ClusterPlayer:
    made = ClusterPlayer.__new__(ClusterPlayer)  # no cluster: only what stalled uses
    made.client, made._cluster = client, (object() if local else None)
    made._tag, made._stuck_told = "this-run", set()
    return made


def test_the_client_names_a_workers_stalled_decide() -> None:
    client = FakeClient({"tcp://a:1": (None, None), "tcp://b:2": (SAID, None)})
    error = player(client, local=True).stalled(5)
    assert isinstance(error, StrategyStalled) and str(error) == SAID
    # a cluster of the user's: its worker's thread cannot be stopped, and says so
    error = player(client, local=False).stalled(5)
    assert str(error) == SAID + "; worker tcp://b:2 stays busy with it until restarted"
    assert client.asked == [5, 5]


def test_an_earlier_runs_stuck_decide_is_said_once_and_the_run_goes_on() -> None:
    notes: list[str] = []
    cluster = player(FakeClient({"tcp://a:1": (None, SAID)}), local=False)
    assert cluster.stalled(5, notes.append) is None
    assert cluster.stalled(5, notes.append) is None
    assert notes == [
        f"worker tcp://a:1 is still stuck in an earlier run's decide ({WHERE}): it holds "
        "one of the cluster's threads until it is restarted"
    ]


def test_no_stall_no_limit_and_a_worker_that_cannot_answer_are_no_error() -> None:
    assert player(FakeClient({"tcp://a:1": (None, None)}), local=True).stalled(5) is None
    unasked = FakeClient({"tcp://a:1": (SAID, None)})
    assert player(unasked, local=True).stalled(0) is None and unasked.asked == []
    gone = FakeClient(OSError("the worker died"))
    assert player(gone, local=True).stalled(5) is None and gone.asked == [5]
