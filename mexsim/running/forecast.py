"""How long a run will take, said once when it is long (a search player plays a few
matches a second, and a run of thousands should say so rather than sit silent).

The first call gives the matches kept from an interrupted run (mexsim/running/in_order.py
reports them before any block plays); then each played block's. The pace is measured
from the first played block on, never before it: what comes first — compiling a
strategy, a thread's or a Dask worker's start, the first calls — is no part of the rest
of the run, and counted in it made estimates of minutes for runs that took seconds.
Once ``workers`` more blocks are in (one each, played side by side, so that their pace
is the run's), the rest is timed at that pace, and a run with FORECAST_SECONDS or more
to go gets one line.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

FORECAST_SECONDS = 30.0


def duration(seconds: float) -> str:
    """``seconds`` as a person reads it: 45 s, 7 min, 2.5 h."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


@dataclass
class Forecast:
    total: int  # the run's matches, kept ones included
    workers: int
    at_most: bool = False  # --until may stop the run sooner
    clock: Callable[[], float] = time.perf_counter
    started: float | None = None
    kept: int = 0
    played: int = 0
    blocks: int = 0
    told: bool = False

    def update(self, n: int) -> str | None:
        """Take a progress report of ``n`` matches; the forecast's line when it is due."""
        now = self.clock()
        if self.started is None:  # the kept matches, before any block plays
            self.started, self.kept = now, n
            return None
        self.blocks += 1
        if self.blocks == 1:  # the first block: the pace is measured from here
            self.started, self.kept = now, self.kept + n
            return None
        self.played += n
        if self.told or self.blocks <= self.workers:
            return None
        self.told = True
        remaining = self.total - self.kept - self.played
        rate = self.played / max(now - self.started, 1e-9)
        seconds = remaining / rate
        if seconds < FORECAST_SECONDS:
            return None
        bound = "at most " if self.at_most else ""
        return (
            f"{bound}about {duration(seconds)} more for the {remaining:,} matches left, at "
            f"the pace of the blocks after the first, {rate:,.1f} matches/s (Ctrl-C stops "
            "it; --resume then continues)"
        )
