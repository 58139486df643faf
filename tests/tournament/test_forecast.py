"""A long run says, once, about how long it will take (mexsim/running/forecast.py)."""

from __future__ import annotations

import pytest

from mexsim.running.forecast import Forecast, duration


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize("workers", [1, 2, 4])
def test_the_forecast_uses_the_pace_of_the_blocks_played_side_by_side(workers):
    clock = Clock()
    forecast = Forecast(total=2000, workers=workers, clock=clock)
    forecast.update(0)
    clock.now += 30.0  # the first block: compiling and starting, no part of the pace
    assert forecast.update(64) is None
    clock.now += 8.0  # then `workers` blocks of 64 in 8 s
    lines = [forecast.update(64) for _ in range(workers)]
    assert lines[:-1] == [None] * (workers - 1)
    rate = 64 * workers / 8.0
    remaining = 2000 - 64 * (workers + 1)
    assert lines[-1] == (
        f"about {duration(remaining / rate)} more for the {remaining:,} matches left, at the "
        f"pace of the blocks after the first, {rate:,.1f} matches/s (Ctrl-C stops it; "
        "--resume then continues)"
    )
    clock.now += 8.0
    assert forecast.update(64) is None  # once


def test_a_short_run_and_a_resumed_one_are_timed_on_what_is_left():
    clock = Clock()
    quick = Forecast(total=4000, workers=1, clock=clock)
    quick.update(0)
    clock.now += 20.0  # a slow first block (a compile) says nothing of the rest
    assert quick.update(64) is None
    clock.now += 0.05
    assert quick.update(64) is None  # ~3 s to go: nothing to say
    resumed = Forecast(total=2000, workers=1, at_most=True, clock=clock)
    resumed.update(1000)  # 1,000 kept: they take no time
    clock.now += 60.0
    assert resumed.update(100) is None
    clock.now += 5.0
    line = resumed.update(100)
    assert line is not None and line.startswith("at most about 40 s more for the 800 matches")


def test_durations_read_as_a_person_says_them():
    assert [duration(s) for s in (45, 89.4, 420, 5300, 9000)] == [
        "45 s",
        "89 s",
        "7 min",
        "88 min",
        "2.5 h",
    ]
