"""Say what is happening while numba compiles, so that a first run never looks frozen.

With an empty cache (the first run after installing or upgrading mexsim, every CI run)
the engine and the strategies compile for a minute or more before the first match. A
step that is still going after SILENT_FOR seconds is announced: on a terminal a spinner
with the step, the seconds so far and the expected total, redrawn several times a
second; elsewhere (a log, a pipe) one line per step. Warm runs finish their steps
before SILENT_FOR and print nothing.

The expected total is the last cold compile's duration on this machine, kept beside
numba's cache folders (they are per version of mexsim's sources, the record is not);
before there is one, the figure measured on the project's development machine.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from mexsim.jit.cache_folders import mark_used, prune_unused

SILENT_FOR = 1.0  # seconds a step may take unannounced: a warm start takes ~0.5 s
REDRAW = 0.2  # seconds between spinner frames
FIRST_RUN_SECONDS = 20  # a cold compile of the default config: 13–15 s on 2 cores, 16–35 s before
RECORD = "cold-compile-seconds"  # in the parent of the numba cache folders
FRAMES = "|/-\\"

_lock = threading.Lock()
_current: list[CompileNotice] = []  # the notice open in this process, if any


def cache_folder() -> Path:
    """This version's numba cache folder (mexsim/jit/__init__.py chooses it)."""
    return Path(os.environ["NUMBA_CACHE_DIR"])


def cache_is_cold(index: Path | None) -> bool:
    """The function whose index file is ``index`` (mexsim.game.engine_cache names the
    engine's) was never compiled for this version and place of mexsim: the first run
    after installing or upgrading it. Without an index, any cached function counts."""
    if index is not None:
        return not index.exists()
    folder = cache_folder()
    return not folder.is_dir() or not any(folder.rglob("*.nbi"))


def never_cold() -> bool:
    return False


def expected_seconds() -> int:
    try:
        return max(1, round(float((cache_folder().parent / RECORD).read_text())))
    except (OSError, ValueError):
        return FIRST_RUN_SECONDS


def remember_seconds(seconds: float) -> None:
    with contextlib.suppress(OSError):  # only an estimate for next time
        (cache_folder().parent / RECORD).write_text(f"{seconds:.1f}\n")


class CompileNotice:
    """The announcer of one command's compile steps (see compile_notice)."""

    def __init__(self, stream: TextIO, cold: bool) -> None:
        self.stream = stream
        self.cold = cold
        self.expected = expected_seconds()
        self.terminal = stream.isatty()
        self.started = time.monotonic()
        self.step = ""
        self.step_started = self.started
        self.shown_step = ""  # the step last written as a line (not on a terminal)
        self.drawn = False  # a spinner line is on the terminal
        self.done = threading.Event()

    def begin(self, step: str) -> None:
        with _lock:
            self.step = step
            self.step_started = time.monotonic()

    def end(self) -> None:
        with _lock:
            self.step = ""
            self._clear()

    def _clear(self) -> None:
        if self.drawn:  # leave the line to what is printed next
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.drawn = False

    def describe(self) -> str:
        why = (
            f"first run of this version only, ~{self.expected} s in all"
            if self.cold
            else "first use, then cached"
        )
        return f"mexsim: compiling {self.step} ({why})"

    def tick(self, frame: str) -> None:
        with _lock:
            now = time.monotonic()
            if not self.step or now - self.step_started < SILENT_FOR:
                return
            if self.terminal:
                line = f"{frame} {self.describe()} {now - self.started:.0f} s"
                self.stream.write(f"\r{line}\x1b[K")
                self.drawn = True
            elif self.step != self.shown_step:
                self.stream.write(f"{self.describe()} ...\n")
                self.shown_step = self.step
            self.stream.flush()

    def spin(self) -> None:
        for frame in itertools.cycle(FRAMES):
            if self.done.wait(REDRAW):
                return
            self.tick(frame)

    def finish(self) -> None:
        self.done.set()
        with _lock:
            self._clear()


@contextmanager
def compiling(step: str) -> Iterator[None]:
    """Name what the block compiles (``the engine``, ``strategy greedy``) to the notice
    open in this process, if any."""
    with _lock:
        notice = _current[-1] if _current else None
    if notice is None:
        yield
        return
    notice.begin(step)
    try:
        yield
    finally:
        notice.end()


def restate(step: str) -> None:
    """Say the step open in this process (``compiling``) in other words, its start kept:
    what it is on, once that matters (a compiler process's job that takes long)."""
    with _lock:
        notice = _current[-1] if _current else None
        if notice is not None and notice.step:
            notice.step = step


@contextmanager
def compile_notice(
    quiet: bool = False, stream: TextIO | None = None, is_cold: Callable[[], bool] = never_cold
) -> Iterator[CompileNotice | None]:
    """Announce the compile steps ``compiling`` names inside the block, after SILENT_FOR
    seconds each; ``quiet`` says nothing (``--quiet``). ``is_cold`` says whether the
    cache is cold (mexsim.game.engine_cache.engine_is_cold for a command that plays): a
    cold cache's whole duration is recorded as the next estimate, and once it is warm the
    old versions' folders go."""
    cold = is_cold()
    started = time.monotonic()
    if quiet:
        yield None
    else:
        with _announcing(stream or sys.stderr, cold) as notice:
            yield notice
    # (a block that raised, Ctrl-C included, ends at the yield: nothing to wait for)
    mark_used(cache_folder())
    if cold and not is_cold():  # a new version's first run, compiled
        if not quiet:
            remember_seconds(time.monotonic() - started)
        prune_unused(cache_folder())  # the old versions' folders go


@contextmanager
def _announcing(stream: TextIO, cold: bool) -> Iterator[CompileNotice]:
    notice = CompileNotice(stream, cold)
    spinner = threading.Thread(target=notice.spin, name="mexsim-compile-notice", daemon=True)
    with _lock:
        _current.append(notice)
    spinner.start()
    try:
        yield notice
    finally:
        notice.finish()
        spinner.join()
        with _lock:
            _current.remove(notice)
