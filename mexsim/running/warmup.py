"""A cold cache compiles in parallel: the engine and each strategy file, a core each.

numba compiles on one core, and a first run (nothing cached yet for this version of
mexsim) holds over a minute of it: the engine's kernels, longest_train with its
planner, the other strategies. None of them needs another's machine code, so on a
cold cache the commands that play first compile them in compiler processes at once,
one per core, each filling numba's on-disk cache; the command itself then loads
everything from the cache. The jobs, and which wait for which, are
mexsim/running/compile_jobs.py's.

A compiler process takes job after job (``python -m mexsim.running.warmup --serve``: one job
a line on its stdin, each answered with the same line when done) rather than one process a
job: a process pays for numba's start and compiles numba's own helpers (array
allocation, iteration, errors) once for all of its jobs, a quarter of a small
strategy's compile. A job that fails (a broken strategy file) is left to the command,
which compiles that part itself and reports any error in its usual one line; a
compiler process that dies with its job is replaced for the jobs after it.
``python -m mexsim.running.warmup JOB`` runs one job: one of compile_jobs.JOB_NAMES or the
path of a strategy file.

A job's line is its name as a JSON string: a file's name may hold a newline, a carriage
return or bytes that are not UTF-8 (Python's surrogate escapes), and each would break a
plain line into two jobs, or fail to be written at all.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from mexsim.game.engine_cache import engine_is_cold
from mexsim.jit.compile_notice import compiling, restate
from mexsim.running.compile_jobs import JOB_NAMES, run_job, warm_up_jobs

SERVE = "--serve"
POLL = 0.05  # seconds between looks at the running jobs
# A job still running after this many seconds is named in the compile notice: the
# longest takes ~16 CPU-s, so one that runs this long is a strategy file that hangs (or
# a machine far too busy), and the notice says which (the command itself names the
# file it is loading; the warm-up's notice named none, and waited for ever)
LONG = 60.0
STEP = "the engine and the strategies, in parallel"


def warm_up(
    strategy_dirs: Sequence[str | Path] = (),
    cores: int | None = None,
    players: Iterable[Mapping[str, Any]] = (),
) -> None:
    """On a cold cache, compile the engine and the strategies in parallel processes
    (see the module docstring), ``cores`` of them at most (``mexsim run --workers``),
    never more than this process may run on; nothing otherwise. ``players``: the
    config's [[players]] tables (compile_jobs.warm_up_jobs)."""
    if not engine_is_cold():
        return
    cores = max(1, min(cores or usable_cores(), usable_cores()))
    if cores == 1:
        return  # one core compiles no faster in processes: the command does it
    # the compilers are stopped (the pool's exit) before a signal ends the command
    with compiling(STEP), _signals_after_compilers(), _Compilers(cores) as pool:
        pool.run(warm_up_jobs(strategy_dirs, players))


class _Signalled(BaseException):
    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


@contextmanager
def _signals_after_compilers() -> Iterator[None]:
    """SIGTERM and SIGHUP do what they would have done (end the command, by default)
    once the compiler processes are stopped: their default action ended the command at
    once and left its compilers running their jobs. Ctrl-C is a KeyboardInterrupt
    already, which stops them."""
    if threading.current_thread() is not threading.main_thread():
        yield  # a library caller's thread: signals stay theirs
        return

    def stop(signum: int, frame: object) -> None:
        raise _Signalled(signum)

    previous = {signum: signal.signal(signum, stop) for signum in (signal.SIGTERM, signal.SIGHUP)}
    signalled = None
    try:
        yield
    except _Signalled as exc:
        signalled = exc.signum
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    if signalled is not None:
        signal.raise_signal(signalled)  # the command's own answer to it, now


def usable_cores() -> int:
    """The cores this process may run on: os.cpu_count() counts the machine's, also
    under ``taskset -c 0`` or a container's CPU set (``--workers 8`` or an affinity of
    one core on two started as many compiler processes as that count, for cores they
    could not have: numba's start paid for each, no compile sooner)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on this system (macOS, Windows)
        return os.cpu_count() or 1


class _Compilers:
    """Up to ``cores`` compiler processes, each given a job when it is idle and the
    jobs its job waits for are done."""

    def __init__(self, cores: int) -> None:
        self.cores = cores
        self.selector = selectors.DefaultSelector()
        # process -> its job, and when the job began
        self.busy: dict[subprocess.Popen, tuple[str, float]] = {}
        self.step = STEP
        self.idle: list[subprocess.Popen] = []

    def __enter__(self) -> _Compilers:
        return self

    def __exit__(self, *exc: object) -> None:
        # done, failed or interrupted (Ctrl-C reaches the compilers too, as they share
        # the terminal's process group): no compiler left running behind the command
        for process in [*self.busy, *self.idle]:
            _stop(process)
        self.selector.close()

    def run(self, jobs: list[tuple[str, tuple[str, ...]]]) -> None:
        waiting = list(jobs)
        while waiting or self.busy:
            pending = {job for job, _ in waiting} | {job for job, _ in self.busy.values()}
            for job, after in [
                (job, after) for job, after in waiting if not pending.intersection(after)
            ]:
                process = self._free_process()
                if process is None:
                    break
                waiting.remove((job, after))
                self._give(process, job)
            self._collect()
            self._name_long_jobs()

    def _name_long_jobs(self) -> None:
        now = time.monotonic()
        long = sorted(job for job, began in self.busy.values() if now - began >= LONG)
        step = f"{STEP}; still on {', '.join(long)}" if long else STEP
        if step != self.step:
            restate(step)
            self.step = step

    def _free_process(self) -> subprocess.Popen | None:
        if self.idle:
            return self.idle.pop()
        if len(self.busy) >= self.cores:
            return None
        process = subprocess.Popen(
            server_command(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            encoding="ascii",
            bufsize=1,
        )
        assert process.stdout is not None  # piped
        self.selector.register(process.stdout, selectors.EVENT_READ, process)
        return process

    def _give(self, process: subprocess.Popen, job: str) -> None:
        assert process.stdin is not None  # piped
        try:
            process.stdin.write(encode_job(job) + "\n")
            process.stdin.flush()
        except OSError:  # it died while idle: its job is the command's
            self._drop(process)
            return
        self.busy[process] = (job, time.monotonic())

    def _collect(self) -> None:
        """Wait a moment for answers; an idle process takes the next job."""
        for key, _ in self.selector.select(POLL):
            process = key.data
            if process.stdout.readline():  # the job's line: done (or failed)
                self.busy.pop(process, None)
                self.idle.append(process)
            else:  # it died with its job: the command compiles that part itself
                self._drop(process)

    def _drop(self, process: subprocess.Popen) -> None:
        assert process.stdout is not None  # piped
        self.selector.unregister(process.stdout)
        self.busy.pop(process, None)
        _stop(process)


def _stop(process: subprocess.Popen) -> None:
    process.kill()
    process.wait()
    for pipe in (process.stdin, process.stdout):
        with contextlib.suppress(OSError):  # a write it never read: nothing to keep
            if pipe is not None:
                pipe.close()


def server_command() -> list[str]:
    return [sys.executable, "-m", "mexsim.running.warmup", SERVE]


def encode_job(job: str) -> str:
    """The job as one line of ASCII (see the module docstring)."""
    return json.dumps(job, ensure_ascii=True)


def serve() -> None:
    """Run the jobs named on stdin, one a line, answering each with its line on stdout
    when done, failed or not. What a strategy file prints goes nowhere, not into the
    answers: fd 1 is /dev/null from here on, the answers go to a copy of it. Nor does
    it read the jobs: fd 0 is /dev/null too, the jobs come from a copy of it (a file
    that read its stdin took the next jobs' lines, or waited for ever on a line the
    command sends only once this job is answered)."""
    answers = os.fdopen(os.dup(1), "w", encoding="ascii", buffering=1)
    jobs = os.fdopen(os.dup(0), "r", encoding="ascii")
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
    for line in jobs:
        # a failed job is the command's to report, in its one line, when it loads it
        with contextlib.suppress(Exception, SystemExit):
            run_job(json.loads(line))
        answers.write(line.rstrip("\n") + "\n")


def main(argv: Sequence[str]) -> int:
    if len(argv) != 1:
        print(
            f"usage: python -m mexsim.running.warmup {SERVE}|{'|'.join(JOB_NAMES)}|STRATEGY.py",
            file=sys.stderr,
        )
        return 2
    if argv[0] == SERVE:
        serve()
    else:
        run_job(argv[0])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
