"""A cold cache compiles in parallel: the engine and each strategy file in a process.

numba compiles on one core, and a first run (nothing cached yet for this version of
mexsim) holds over a minute of it: the engine's kernels, longest_train with its
planner, the other strategies. None of them needs another's machine code, so on a
cold cache the commands that play first compile them in worker processes at once,
as many as there are cores, each filling numba's on-disk cache; the command itself
then loads everything from the cache. A job that fails (a broken strategy file) is
left to the command, which compiles that part itself and reports any error in its
usual one line. ``python -m mexsim.warmup JOB`` runs one job: ``engine`` or the path
of a strategy file.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from mexsim.compile_notice import cache_is_cold, compiling

ENGINE = "engine"
POLL = 0.05  # seconds between looks at the running jobs


def warm_up_jobs(strategy_dirs: Sequence[str | Path] = ()) -> list[str]:
    """The engine, then the strategy files of these folders, largest first: the
    longest compiles start first, so they do not end last."""
    from mexsim.strategy.registry import strategy_dirs as folders

    files = [path for folder in folders(strategy_dirs) if folder.is_dir()
             for path in folder.glob("*.py") if not path.name.startswith("_")]
    files.sort(key=lambda path: (-path.stat().st_size, str(path)))
    return [ENGINE, *(str(path) for path in files)]


def warm_up(strategy_dirs: Sequence[str | Path] = (), cores: int | None = None) -> None:
    """On a cold cache, compile the engine and the strategies in parallel processes
    (see the module docstring); nothing otherwise."""
    if not cache_is_cold():
        return
    cores = max(1, cores or os.cpu_count() or 1)
    if cores == 1:
        return  # one core compiles no faster in processes: the command does it
    waiting = warm_up_jobs(strategy_dirs)
    running: list[subprocess.Popen] = []
    with compiling("the engine and the strategies, in parallel"):
        try:
            while waiting or running:
                while waiting and len(running) < cores:
                    running.append(subprocess.Popen(
                        job_command(waiting.pop(0)), stdin=subprocess.DEVNULL,
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
                time.sleep(POLL)
                running = [job for job in running if job.poll() is None]
        finally:  # interrupted (Ctrl-C reaches the jobs too, as they share the
            # terminal's process group): no compiler left running behind the command
            for job in running:
                job.kill()
                job.wait()


def job_command(job: str) -> list[str]:
    return [sys.executable, "-m", "mexsim.warmup", job]


def compile_engine() -> None:
    """Compile (or load) the kernels a run plays, with a built-in strategy: their
    machine code is the same whatever the strategies (mexsim/game/play.py)."""
    import numpy as np

    from mexsim.game.play import play_scheduled
    from mexsim.game.rules import resolve_rules
    from mexsim.strategy.policy import Policy
    from mexsim.strategy.registry import BUILTIN_STRATEGIES, load_strategy_file

    greedy = load_strategy_file(BUILTIN_STRATEGIES / "greedy.py")
    rules = resolve_rules({}, 2)
    no_matches = np.zeros(0, dtype=np.int64)
    play_scheduled(rules, [Policy(greedy, ())] * 2, 0, no_matches, no_matches.copy(),
                   np.zeros((0, 2), dtype=np.int64))


def main(argv: Sequence[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m mexsim.warmup engine|STRATEGY.py", file=sys.stderr)
        return 2
    if argv[0] == ENGINE:
        compile_engine()
    else:
        from mexsim.strategy.registry import load_strategy_file

        load_strategy_file(Path(argv[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
