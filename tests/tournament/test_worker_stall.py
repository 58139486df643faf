"""A decide that never returns on a Dask worker: the worker's watch answers the
client's question (mexsim/run/dask/worker_stall.py), and the client names it
(``ClusterPlayer.stalled``). The whole run: tests/tournament/test_stalled_strategy.py."""

from __future__ import annotations

from typing import Any

import numpy as np

from mexsim.game.enums import Status
from mexsim.game.stall_watch import StrategyStalled, watched
from mexsim.run.dask.cluster import ClusterPlayer
from mexsim.run.dask.worker_stall import stalled_here

SAID = "strategy 'loops' (seat 1) in match 7, round 2 has not returned in 5 s: …"


def test_a_worker_answers_with_the_decide_running_past_the_limit() -> None:
    status = np.zeros(len(Status), dtype=np.int64)
    with watched(status, lambda words: "strategy 'loops' (seat 1) in match 7, round 2"):
        assert stalled_here(1e-9) is None  # not deciding
        status[Status.deciding], status[Status.calls] = 1, 41
        assert stalled_here(1e-9) is None  # first seen now: timed from here
        said = stalled_here(1e-9)
        assert said is not None and said.startswith("strategy 'loops' (seat 1) in match 7")
        assert stalled_here(0) is None  # 0: no limit
    assert stalled_here(1e-9) is None  # the block ended: nothing watched


class FakeClient:
    def __init__(self, answers: dict[str, str | None] | Exception) -> None:
        self.answers = answers
        self.asked: list[float] = []

    def run(self, function: Any, limit: float) -> dict[str, str | None]:
        assert function is stalled_here
        self.asked.append(limit)
        if isinstance(self.answers, Exception):
            raise self.answers
        return self.answers


def player(client: FakeClient, local: bool) -> ClusterPlayer:
    made = ClusterPlayer.__new__(ClusterPlayer)  # no cluster: only what stalled uses
    made.client, made._cluster = client, (object() if local else None)
    return made


def test_the_client_names_a_workers_stalled_decide() -> None:
    client = FakeClient({"tcp://a:1": None, "tcp://b:2": SAID})
    error = player(client, local=True).stalled(5)
    assert isinstance(error, StrategyStalled) and str(error) == SAID
    # a cluster of the user's: its worker's thread cannot be stopped, and says so
    error = player(client, local=False).stalled(5)
    assert str(error) == SAID + "; worker tcp://b:2 stays busy with it until restarted"
    assert client.asked == [5, 5]


def test_no_stall_no_limit_and_a_worker_that_cannot_answer_are_no_error() -> None:
    assert player(FakeClient({"tcp://a:1": None}), local=True).stalled(5) is None
    unasked = FakeClient({"tcp://a:1": SAID})
    assert player(unasked, local=True).stalled(0) is None and unasked.asked == []
    gone = FakeClient(OSError("the worker died"))
    assert player(gone, local=True).stalled(5) is None and gone.asked == [5]
