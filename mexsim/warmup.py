"""A cold cache compiles in parallel: the engine and each strategy file in a process.

numba compiles on one core, and a first run (nothing cached yet for this version of
mexsim) holds over a minute of it: the engine's kernels, longest_train with its
planner, the other strategies. None of them needs another's machine code, so on a
cold cache the commands that play first compile them in worker processes at once,
as many as there are cores, each filling numba's on-disk cache; the command itself
then loads everything from the cache. The planner's two bitmask paths (unweighted and
weighted: most of longest_train's compile) are jobs of their own, and a strategy file
that uses the planner starts after them, to load them rather than compile them again.
A job that fails (a broken strategy file) is left to the command, which compiles that
part itself and reports any error in its usual one line. ``python -m mexsim.warmup
JOB`` runs one job: ``engine``, ``planner``, ``weighted-planner`` or the path of a
strategy file.
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
PLANNER = ("weighted-planner", "planner")  # the longest first
POLL = 0.05  # seconds between looks at the running jobs


def warm_up_jobs(strategy_dirs: Sequence[str | Path] = ()) -> list[tuple[str, tuple[str, ...]]]:
    """(job, the jobs it waits for), in the order they should start: the planner's
    paths and the engine, then the strategy files of these folders, largest first (the
    longest compiles start first, so that they do not end last)."""
    from mexsim.strategy.registry import strategy_dirs as folders

    files = [path for folder in folders(strategy_dirs) if folder.is_dir()
             for path in folder.glob("*.py") if not path.name.startswith("_")]
    files.sort(key=lambda path: (-path.stat().st_size, str(path)))
    return [*((job, ()) for job in (*PLANNER, ENGINE)),
            *((str(path), PLANNER if _uses_planner(path) else ()) for path in files)]


def _uses_planner(path: Path) -> bool:
    try:
        return "mexsim.planner" in path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


def warm_up(strategy_dirs: Sequence[str | Path] = (), cores: int | None = None) -> None:
    """On a cold cache, compile the engine and the strategies in parallel processes
    (see the module docstring); nothing otherwise."""
    if not cache_is_cold():
        return
    cores = max(1, cores or os.cpu_count() or 1)
    if cores == 1:
        return  # one core compiles no faster in processes: the command does it
    waiting = warm_up_jobs(strategy_dirs)
    running: dict[str, subprocess.Popen] = {}
    with compiling("the engine and the strategies, in parallel"):
        try:
            while waiting or running:
                ready = [(job, after) for job, after in waiting
                         if not any(earlier in running or earlier in dict(waiting)
                                    for earlier in after)]
                for job, after in ready[:cores - len(running)]:
                    waiting.remove((job, after))
                    running[job] = subprocess.Popen(
                        job_command(job), stdin=subprocess.DEVNULL,
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                time.sleep(POLL)
                running = {job: p for job, p in running.items() if p.poll() is None}
        finally:  # interrupted (Ctrl-C reaches the jobs too, as they share the
            # terminal's process group): no compiler left running behind the command
            for process in running.values():
                process.kill()
                process.wait()


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


def compile_planner(weighted: bool) -> None:
    """Compile (or load) one of the planner's bitmask paths for the argument types
    longest_chain passes (mexsim/planner/router.py; the hand's size is a popcount's
    uint64): the same types, or longest_train would compile it again."""
    import numpy as np

    from mexsim.game.tiles import tile_set
    from mexsim.planner.dense import dense_chain, weighted_dense_chain

    tiles = tile_set(6)
    # writable copies: longest_train passes slices of the view, and numba compiles
    # read-only arrays (the tile set's) apart
    lo, hi, pips = (np.array(a, dtype=np.int64) for a in (tiles.lo, tiles.hi, tiles.pips))
    hand = np.arange(10, dtype=np.int64)
    chain = np.zeros(10, dtype=np.int64)
    start, n, max_pip = np.int64(0), np.uint64(10), np.int64(6)
    if weighted:
        weighted_dense_chain(start, hand, n, lo, hi, pips, 0.5, max_pip, chain)
    else:
        dense_chain(start, hand, n, lo, hi, max_pip, chain)


def main(argv: Sequence[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m mexsim.warmup engine|planner|weighted-planner|STRATEGY.py",
              file=sys.stderr)
        return 2
    if argv[0] == ENGINE:
        compile_engine()
    elif argv[0] in PLANNER:
        compile_planner(weighted=argv[0] == PLANNER[0])
    else:
        from mexsim.strategy.registry import load_strategy_file

        load_strategy_file(Path(argv[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
