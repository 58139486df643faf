"""`make bench` (scaling part, issue 12): where a run's time goes, the writer's ceiling,
end to end on 1 and 2 workers and on a local Dask cluster, and peak memory by size.

Side by side in one run (sizes are arguments, so the big sizes can be run later on a
quiet machine):

1. **Phases** of an in-process ``run`` of ``--matches`` default matches on one worker
   thread: each step's CPU time, taken with ``time.thread_time`` inside the thread
   that does it (play runs on the worker thread, the rest on the main thread, so they
   overlap and are still told apart): play, Arrow conversion (``block_tables``), Parquet
   (the part files and the results files, written and read back), the per-block
   statistics fold, the tables at the end (ratings, head to head, the rest), and the
   wall time after the last block arrived (the post-play share; target <= 5 %).
2. **Writer ceiling**: the runner itself with ``play_block`` replaced by a lookup of a
   few blocks played beforehand (play costs nothing; conversion, part files, reading
   back, results files, fold and the end of the run are the runner's own code, on all
   cores): matches/s absorbed, and its ratio to one core's play rate (>= 10 x); and the
   CPU per match of each serial step (each results file's appender thread, the main
   thread's fold), whose busiest caps a machine with cores to spare.
3. **End to end**: the whole ``mexsim run`` command in a fresh process: ``--workers 1``,
   ``--workers 2`` (>= 1.8 x) and ``--cluster local:2`` (within 10 % of 2 threads);
   ``--rounds N`` runs them N times in turn and takes the median of each round's ratio.
4. **Memory**: peak RSS of a fresh ``mexsim run`` and ``mexsim report`` process (its own,
   from ``wait4``) at each of ``--memory-sizes``; it should not grow with matches.

``--only phases,ceiling,e2e,memory`` picks sections. CPU is what counts on a shared
machine: process CPU seconds are printed beside every wall time.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "configs" / "default.toml"
SECTIONS = ("phases", "ceiling", "e2e", "memory")


class Phases:
    """CPU seconds per named step, summed over the threads that ran it."""

    def __init__(self) -> None:
        self.cpu: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)
        self.lock = threading.Lock()

    def wrap(self, name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(function)
        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.thread_time()
            try:
                return function(*args, **kwargs)
            finally:
                with self.lock:
                    self.cpu[name] += time.thread_time() - start
                    self.calls[name] += 1

        return timed


def patch(target: Any, attribute: str, replacement: Any, undo: list) -> None:
    undo.append((target, attribute, getattr(target, attribute)))
    setattr(target, attribute, replacement)


def load_default(matches: int) -> Any:
    from mexsim.tournament.config import load_config, with_overrides

    return with_overrides(load_config(CONFIG), matches=matches)


def write_tables_for(config: Any) -> Callable[[Path, Any], None]:
    """What `mexsim run` does with the statistics at the end (mexsim/cli.py)."""
    import numpy as np

    from mexsim.analysis.comparison import analyze_statistics, config_sweeps

    names = [p.name for p in config.players]
    kinds = [p.strategy for p in config.players]

    def write_tables(folder: Path, statistics: Any) -> None:
        analysis = analyze_statistics(
            statistics,
            names,
            kinds,
            config_sweeps(config.players),
            np.full(len(names), np.nan),
            config.rules.rounds,
        )
        analysis.write(folder)
        analysis.format()

    return write_tables


def phases(matches: int, work: Path) -> tuple[dict[str, float], float]:
    """Section 1; returns the CPU per phase and one core's play rate."""
    import mexsim.analysis.comparison as comparison
    import mexsim.analysis.summary as summary
    import mexsim.running.preparation as preparation
    import mexsim.running.runner as runner
    import mexsim.store.folder_sink as folder_sink
    import mexsim.store.parts as parts
    from mexsim.analysis.accumulate import RunAccumulator

    config = load_default(matches)
    timer = Phases()
    undo: list = []
    patch(preparation, "play_block", timer.wrap("play", preparation.play_block), undo)
    patch(
        preparation, "block_tables", timer.wrap("Arrow conversion", preparation.block_tables), undo
    )
    patch(
        parts.WorkFolder,
        "write_block",
        timer.wrap("Parquet: part files", parts.WorkFolder.write_block),
        undo,
    )
    patch(
        parts.Appender,
        "_loop",
        timer.wrap("Parquet: results files (own threads)", parts.Appender._loop),
        undo,
    )
    patch(parts, "read_block", timer.wrap("read back", parts.read_block), undo)
    patch(parts, "block_totals", timer.wrap("fold: block totals", parts.block_totals), undo)
    patch(RunAccumulator, "add", timer.wrap("fold: accumulate", RunAccumulator.add), undo)
    patch(
        folder_sink.output,
        "publish",
        timer.wrap("end: publish (fsync, swap)", folder_sink.output.publish),
        undo,
    )
    patch(
        parts.WorkFolder,
        "remove",
        timer.wrap("end: remove the parts", parts.WorkFolder.remove),
        undo,
    )
    patch(
        summary,
        "ratings_from_statistics",
        timer.wrap("ratings", summary.ratings_from_statistics),
        undo,
    )
    patch(
        comparison,
        "head_to_head_table",
        timer.wrap("head to head", comparison.head_to_head_table),
        undo,
    )
    last_block = [0.0]

    def progress(n: int) -> None:
        last_block[0] = time.perf_counter()

    write_tables = timer.wrap("tables at the end (all)", write_tables_for(config))
    try:
        # a first tiny run loads the kernels, so that the timed one measures the run only
        runner.run(load_default(10), work / "warm", runner.RunOptions(force=True))
        cpu0 = time.process_time()
        result = runner.run(
            config,
            work / "phases",
            runner.RunOptions(force=True),
            runner.RunHooks(progress=progress, write_tables=write_tables),
        )
        done = time.perf_counter()
        cpu = time.process_time() - cpu0
    finally:
        for target, attribute, original in reversed(undo):
            setattr(target, attribute, original)
    c = dict(timer.cpu)
    totals, accumulate = c.pop("fold: block totals", 0.0), c.pop("fold: accumulate", 0.0)
    # nested steps: the block's totals are taken while reading it back (a pool thread)
    c["Parquet: read parts back"] = c.pop("read back", 0.0) - totals
    c["statistics fold (main thread)"] = accumulate
    c["statistics fold: block totals"] = totals
    tables = c.pop("tables at the end (all)", 0.0)
    c["tables: ratings"] = c.pop("ratings", 0.0)
    c["tables: head to head"] = c.pop("head to head", 0.0)
    c["tables: the rest (summary, pairs, csv)"] = (
        tables - c["tables: ratings"] - c["tables: head to head"]
    )
    post_play = done - last_block[0]
    play_rate = matches / c["play"]
    print(
        f"phases: {matches:,} matches of configs/default.toml, --workers 1 (in process), "
        f"wall {result.wall_seconds:.1f} s, process CPU {cpu:.1f} s"
    )
    width = max(len(k) for k in c)
    for name, seconds in sorted(c.items(), key=lambda kv: -kv[1]):
        print(
            f"  {name:<{width}}  {seconds:8.2f} s CPU  {100 * seconds / cpu:5.1f} %  "
            f"{1e6 * seconds / matches:7.2f} us/match"
        )
    print(f"  one core plays {play_rate:,.0f} matches/s (CPU time of the playing thread)")
    print(
        f"  after the last block: {post_play:.2f} s = "
        f"{100 * post_play / result.wall_seconds:.1f} % of the run (target <= 5 %)"
    )
    return c, play_rate


def ceiling(matches: int, work: Path, play_rate: float | None) -> None:
    """Section 2: the runner's own writing side (mexsim/running/runner.py ``_play``:
    conversion and part files on the pool's threads, results files and the fold on the
    main thread), fed blocks played beforehand: ``play_block`` is replaced by a lookup."""
    import numpy as np

    import mexsim.running.preparation as preparation
    import mexsim.running.runner as runner
    import mexsim.store.parts as parts
    from mexsim.store.parts import blocks
    from mexsim.tournament.lineup import player_policies

    config = load_default(matches)
    players = player_policies(config)
    all_blocks = blocks(matches)
    size = all_blocks[0][1]
    distinct = min(8, len(all_blocks))
    cpu0 = time.thread_time()
    played = [
        preparation.play_block(config, players, first, n) for first, n in all_blocks[:distinct]
    ]
    play_cpu = time.thread_time() - cpu0
    if play_rate is None:
        play_rate = sum(n for _, n in all_blocks[:distinct]) / play_cpu

    def pre_played(config: Any, players: Any, first: int, n: int) -> np.ndarray:
        return np.ascontiguousarray(played[(first // size) % distinct][:n])

    # the serial steps, each on one thread: appending to each results file, and the
    # main thread's share of a block (queueing it, folding its statistics)
    serial = Phases()
    original_loop = parts.Appender._loop

    def loop(self: Any) -> None:
        serial.wrap(f"append to {self.path.name}", original_loop)(self)

    threads = os.cpu_count() or 1
    undo: list = []
    patch(preparation, "play_block", pre_played, undo)
    patch(parts.Appender, "_loop", loop, undo)
    patch(
        parts.Assembler,
        "add",
        serial.wrap("main thread: queue and fold", parts.Assembler.add),
        undo,
    )
    try:
        cpu0 = time.process_time()
        result = runner.run(
            config,
            work / "ceiling",
            runner.RunOptions(workers=threads, force=True),
            runner.RunHooks(write_tables=write_tables_for(config)),
        )
        cpu = time.process_time() - cpu0
    finally:
        for target, attribute, original in reversed(undo):
            setattr(target, attribute, original)
    rate = matches / result.play_seconds
    print(
        f"writer ceiling: {matches:,} pre-played matches through the runner "
        f"({threads} threads convert and write parts, two append to the results files, the "
        "main thread folds): "
        f"{result.play_seconds:.1f} s, process CPU {cpu:.1f} s (with the end of the run)"
    )
    print(
        f"  {rate:,.0f} matches/s = {rate / play_rate:.1f} x one core's play rate of "
        f"{play_rate:,.0f} matches/s (target >= 10 x), on the {threads} cores of this machine"
    )
    step, busiest = max(serial.cpu.items(), key=lambda kv: kv[1])
    for name, seconds in sorted(serial.cpu.items()):
        print(f"  serial step {name}: {1e6 * seconds / matches:.2f} us/match CPU")
    print(
        f"  with cores to spare, the busiest serial step ({step}) caps the run at "
        f"{matches / busiest:,.0f} matches/s = {matches / busiest / play_rate:.1f} x one "
        "core's play rate (target >= 10 x)"
    )


# A small launcher between this process and the measured one: a child forked from this
# process would start with this process's resident pages counted in its peak (Linux
# keeps the high-water mark across exec), so the launcher, a bare interpreter of a few
# MB, forks it instead and reports its CPU time and peak RSS from wait4. It is also the
# "subreaper" of everything the command starts (Linux): a local cluster's workers are
# forks of a fork server that outlives the command by a moment and is nobody's child
# then, so without this its CPU (and its workers', which it reaps) went uncounted.
LAUNCHER = """import ctypes, json, os, subprocess, sys
try:
    ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
except (AttributeError, OSError):
    pass  # not Linux: only the command's own children are counted
child = subprocess.Popen(sys.argv[2:], stdout=subprocess.DEVNULL)
_, status, usage = os.wait4(child.pid, 0)
cpu, rss = usage.ru_utime + usage.ru_stime, usage.ru_maxrss
while True:  # the orphans the command left, each with the children it reaped
    try:
        _, _, usage = os.wait4(-1, 0)
    except ChildProcessError:
        break
    cpu, rss = cpu + usage.ru_utime + usage.ru_stime, max(rss, usage.ru_maxrss)
with open(sys.argv[1], "w") as report:
    json.dump([os.waitstatus_to_exitcode(status), cpu, rss], report)
"""


def child(args: list[str]) -> tuple[float, float, float]:
    """Run ``python -m mexsim ARGS`` in a fresh process: wall s, its CPU s (with every
    process it started, orphans too), the peak RSS in MB of it or of its largest
    child (wait4)."""
    with tempfile.NamedTemporaryFile(suffix=".json") as report:
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", LAUNCHER, report.name, sys.executable, "-m", "mexsim", *args],
            cwd=ROOT,
            stderr=subprocess.PIPE,
            text=True,
        )
        wall = time.perf_counter() - start
        status, cpu, maxrss_kb = json.loads(Path(report.name).read_text() or "[1, 0, 0]")
    if done.returncode != 0 or status != 0:
        raise SystemExit(f"mexsim {' '.join(args)} failed ({status}): {done.stderr}")
    return wall, cpu, maxrss_kb / 1024


BUSY_LOOP = (
    "import time\nstart = time.process_time()\ntotal = 0\n"
    "for i in range(20_000_000):\n    total += i\nprint(time.process_time() - start)"
)


def machine_speedup() -> float:
    """What two cores give here at best: two copies of a pure-Python loop at once
    against one alone, in CPU time per copy (a virtual machine's two cores may share
    one physical core, and then no program scales to 2 x)."""

    def copies(n: int) -> float:
        procs = [
            subprocess.Popen([sys.executable, "-c", BUSY_LOOP], stdout=subprocess.PIPE, text=True)
            for _ in range(n)
        ]
        return max(float(p.communicate()[0]) for p in procs)

    alone = copies(1)
    return 2 * alone / copies(2)


def end_to_end(matches: int, work: Path, dask: bool, rounds: int = 1) -> None:
    """The whole command on 1 worker, 2 workers and ``local:2``, ``rounds`` times in
    turn (each round in a new random order): a shared machine's other work moves a
    reading by more than the targets' margins (docs/speed-history.md, "At a million matches"),
    so each round's ratios are taken within the round and their median is the figure."""
    base = ["run", str(CONFIG), "--matches", str(matches), "--quiet", "--force"]
    child([*base[:3], "10", *base[4:], "--out", str(work / "warm")])  # load the cache
    rows = [("--workers 1", ["--workers", "1"]), ("--workers 2", ["--workers", "2"])]
    if dask:
        rows.append(("--cluster local:2", ["--cluster", "local:2"]))
    print(
        f"end to end: `mexsim run configs/default.toml --matches {matches}` in a fresh "
        f"process (wall of the whole command), {rounds} round(s)"
    )
    scaling, cluster = [], []
    order = random.Random(matches)
    for r in range(rounds):
        walls = {}
        for label, extra in order.sample(rows, len(rows)):
            wall, cpu, rss = child([*base, "--out", str(work / "e2e"), *extra])
            walls[label] = wall
            print(
                f"  {r + 1}: {label:<18} wall {wall:7.1f} s  {matches / wall:9,.0f} "
                f"matches/s  CPU {cpu:6.1f} s (with its children)  peak {rss:,.0f} MB"
            )
        scaling.append(walls["--workers 1"] / walls["--workers 2"])
        line = f"  {r + 1}: 2 workers / 1 worker {scaling[-1]:.2f} x"
        if dask:
            cluster.append(walls["--cluster local:2"] / walls["--workers 2"])
            line += f", local:2 / 2 threads {cluster[-1]:.2f}"
        print(line, flush=True)

    def spread(values: list[float]) -> str:
        return f"{statistics.median(values):.2f}" + (
            f" (rounds {min(values):.2f}-{max(values):.2f})" if len(values) > 1 else ""
        )

    print(
        f"  2 workers / 1 worker: {spread(scaling)} x "
        f"(target >= 1.8 x; this machine's own: {machine_speedup():.2f} x)"
    )
    if dask:
        print(f"  local:2 / 2 threads (wall): {spread(cluster)} (target <= 1.10)")
        # what the cluster adds whatever the size: its start-up (worker processes,
        # their imports and numba cache) and shutdown, from a run of a single block
        small = [*base[:3], "64", *base[4:], "--out", str(work / "e2e")]
        fixed = child([*small, "--cluster", "local:2"])[0] - child([*small, "--workers", "2"])[0]
        print(f"  local:2's fixed cost (a 64-match run, local:2 minus 2 threads): {fixed:.1f} s")


def memory(sizes: list[int], work: Path) -> None:
    print("memory: peak RSS of a fresh `mexsim run --workers 2` and `mexsim report`")
    for size in sizes:
        out = work / f"mem-{size}"
        wall, _, run_rss = child(
            [
                "run",
                str(CONFIG),
                "--matches",
                str(size),
                "--quiet",
                "--force",
                "--workers",
                "2",
                "--out",
                str(out),
            ]
        )
        rwall, _, report_rss = child(["report", str(out)])
        print(
            f"  {size:>12,} matches: run {run_rss:7,.0f} MB ({wall:.1f} s), "
            f"report {report_rss:7,.0f} MB ({rwall:.1f} s)"
        )
        shutil.rmtree(out, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--matches",
        type=int,
        default=200_000,
        help="matches for the phases, the ceiling and end to end",
    )
    parser.add_argument(
        "--memory-sizes",
        default="20000,80000",
        help="comma-separated match counts for the memory rows (e.g. 1000000,2000000,10000000)",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="end to end: rounds of 1 worker, 2 workers and local:2, each "
        "in a new order; the ratios' medians are the figures",
    )
    parser.add_argument(
        "--only",
        default=",".join(SECTIONS),
        help=f"comma-separated sections of {', '.join(SECTIONS)}",
    )
    args = parser.parse_args()
    chosen = set(args.only.split(","))
    unknown = chosen - set(SECTIONS)
    if unknown:
        parser.error(f"--only: unknown section {sorted(unknown)[0]!r}")
    sizes = [int(float(s)) for s in args.memory_sizes.split(",") if s.strip()]
    try:
        import distributed  # noqa: F401

        dask = True
    except ImportError:
        dask = False
    work = Path(tempfile.mkdtemp(prefix="mexsim-bench-scaling-"))
    sys.path.insert(0, str(ROOT))  # the mexsim of this checkout, as the children use
    try:
        play_rate = None
        if "phases" in chosen:
            _, play_rate = phases(args.matches, work)
        if "ceiling" in chosen:
            ceiling(args.matches, work, play_rate)
        if "e2e" in chosen:
            end_to_end(args.matches, work, dask, args.rounds)
        if "memory" in chosen:
            memory(sizes, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
