"""What the strategies ``print`` while the core plays a recorded match, each line tagged
with the decision it was printed at, so that `mexsim replay` can show it there.

numba's ``print`` writes through Python's ``sys.stdout`` (taking the GIL), so for the
kernel call ``sys.stdout`` is a collector. A line belongs to the decision under way when
its first piece was written: the seat and round the kernel put in its status words
before calling the strategy, and the event rows recorded so far (the rows are filled
with -1 beforehand, so the first -1 is where the kernel will write next: the decision's
own move).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from mexsim.game.enums import EventField, Status

UNWRITTEN = -1  # an event row's kind before the kernel writes it (kinds are >= 0)


class Said(NamedTuple):
    """One line a strategy printed: before event row ``row`` (its decision's move)."""

    row: int
    round: int
    seat: int
    text: str


@dataclass
class _Collector:
    """A stand-in for sys.stdout during the kernel call."""

    ev: np.ndarray
    status: np.ndarray
    lines: list[Said] = field(default_factory=list)
    _open: tuple[int, int, int] | None = None  # (row, round, seat) of the line being written
    _text: list[str] = field(default_factory=list)

    def write(self, text: str) -> int:
        for piece in text.splitlines(keepends=True):
            if self._open is None:
                self._open = (self._rows_written(), *self._decision())
            self._text.append(piece)
            if piece.endswith("\n"):
                self._close()
        return len(text)

    def flush(self) -> None:
        pass

    def finish(self) -> list[Said]:
        if self._open is not None:
            self._close()
        return self.lines

    def _close(self) -> None:
        assert self._open is not None
        row, rnd, seat = self._open
        self.lines.append(Said(row, rnd, seat, "".join(self._text).rstrip("\n")))
        self._open, self._text = None, []

    def _decision(self) -> tuple[int, int]:
        return int(self.status[Status.round]), int(self.status[Status.seat])

    def _rows_written(self) -> int:
        kinds = self.ev[:, EventField.kind]
        unwritten = np.flatnonzero(kinds == UNWRITTEN)
        return int(unwritten[0]) if unwritten.size else len(kinds)


@contextmanager
def collect_output(ev: np.ndarray, status: np.ndarray) -> Iterator[list[Said]]:
    """Within the block, what is printed is collected (and not shown); the list yielded
    holds its lines once the block ends. ``ev`` is the event rows the kernel records
    into (filled with UNWRITTEN here)."""
    ev[:, EventField.kind] = UNWRITTEN
    collector = _Collector(ev, status)
    said: list[Said] = []
    saved = sys.stdout
    sys.stdout = collector
    try:
        yield said
    finally:
        sys.stdout = saved
        said.extend(collector.finish())


def said_event(line: Said) -> dict:
    """A printed line as a trace event (docs/interface.md, "Game trace")."""
    return {"event": "print", "round": line.round, "seat": line.seat, "text": line.text}


class LineCount:
    """A stand-in for sys.stdout that keeps nothing but the count of lines written."""

    def __init__(self) -> None:
        self.lines = 0

    def write(self, text: str) -> int:
        self.lines += text.count("\n")
        return len(text)

    def flush(self) -> None:
        pass


@contextmanager
def output_counted() -> Iterator[LineCount]:
    """Within the block, what is printed (by a strategy deciding, on any thread) is
    counted and not shown: a run or a check prints its own results, not thousands of a
    strategy's debugging lines between them (`mexsim replay` shows those at their
    decisions)."""
    count = LineCount()
    saved = sys.stdout
    sys.stdout = count
    try:
        yield count
    finally:
        sys.stdout = saved


def printed_note(lines: int, who: str = "the strategies") -> str:
    """What a run or a check says of the lines ``who`` printed (none: '')."""
    if not lines:
        return ""
    noun = "line" if lines == 1 else "lines"
    return (
        f"{who} printed {lines:,} {noun} while deciding, not shown here: "
        "mexsim replay CONFIG --match K shows them at their decisions"
    )
