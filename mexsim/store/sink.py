"""Where a run's results go, as the runner sees it (mexsim/running/runner.py): a results
folder (folder_sink.py) or a shared location (location_sink.py). The runner plays the
blocks; a sink keeps them, knows what an interrupted run left, and puts the finished
results in place."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from mexsim.analysis.accumulate import RunAccumulator, RunStatistics

Note = Callable[[str], None]


class ResultsSink(Protocol):
    @property
    def target(self) -> Path | str:
        """The folder or URL, as messages and the run's result name it."""

    @property
    def remote_writes(self) -> bool:
        """A cluster's tasks write their blocks themselves (and return their totals)."""

    @property
    def drain_on_stop(self) -> bool:
        """At a stop, the blocks in flight are waited for (none may still be writing
        when the sink tidies up)."""

    def reserve(self) -> None:
        """One run at a time per target (ConfigError when it cannot be written)."""

    def check(
        self, run_id: str, identity: dict[str, Any], resume: bool, force: bool, note: Note
    ) -> None:
        """Before anything is played: refuse what may not be replaced, decide what an
        interrupted run left (resumed, discarded with --force, or refused)."""

    def open(self, run_id: str, identity: dict[str, Any], total: int, note: Note) -> set[int]:
        """Ready to take the run's ``total`` blocks; returns those an interrupted run
        kept."""

    @property
    def statistics(self) -> RunAccumulator:
        """What the blocks taken so far add up to (for ``--until decided``)."""

    def write_block(self, index: int, rounds: Any, matches: Any) -> Any:
        """On a pool thread: block ``index``'s tables, written where they survive a kill;
        returns what ``take`` adds."""

    def take(self, index: int, written: Any) -> None:
        """In match order: a written block (None: a kept one) into the results."""

    def close(self) -> RunStatistics:
        """Every block taken: the run's statistics."""

    def publish(self, fill: Callable[[Path], None], finishing: Callable[[], None]) -> None:
        """``fill(folder)`` writes the tables and run.json beside the results; then
        ``finishing()`` (signals ignored from here), then the results are put in place."""

    def stopped(self, what: str) -> str:
        """The line for a run stopped by ``what``: what it kept, and how to go on."""

    def failed(self, exc: OSError) -> str:
        """The line for a write the system refused: where, why, and what was kept."""

    def discard(self) -> None:
        """A strategy failed: the blocks can never be resumed (its fix changes the run
        id), so they go."""

    def release(self) -> None:
        """Whatever happened: nothing left open, the target unlocked."""
