"""Where a table's time goes, by compiled function, with Linux ``perf``.

numba's code lives in memory that ``perf`` cannot name: its samples read as bare
addresses. This script compiles the engine afresh (a temporary numba cache, so that
every function is compiled in this process and llvmlite knows its address), writes
``/tmp/perf-<pid>.map`` (perf's format for code made at run time: start, size, name),
then plays the timed matches and prints their window in CLOCK_MONOTONIC seconds:

    perf record -k CLOCK_MONOTONIC -F 4000 -o table.data \\
        python benchmarks/perf_map.py --table longest --matches 30000
    perf report -i table.data --no-children --sort sym --time START,END

(START,END: the window printed last; perf reads the map after this process has
ended, so the map stays, and the temporary cache goes). A function's size in the map
runs to the next known address, so a few samples of code numba made without a name
(its wrappers) land on the function before them; inlined callees count as their
caller. Samples just
after an atomic add (``NRT_incref``/``NRT_decref``: numba's reference counts) stand
for the wait on the stores before it as much as for the add (docs/speed-history.md, "The
planner, seventh pass").
"""

from __future__ import annotations

import argparse
import atexit
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's mexsim

TABLES = {
    "greedy": ["greedy"] * 4,
    "default": ["longest_train", "early_doubles", "greedy", "random"],
    "longest": ["longest_train"] * 4,
}


def write_perf_map() -> int:
    """/tmp/perf-<pid>.map for every function compiled in this process; how many."""
    from numba.core.registry import cpu_target

    engine = cpu_target.target_context.codegen()._engine._ee  # llvmlite's engine
    addresses = {}
    for module in list(engine._modules):
        for function in module.functions:
            if function.is_declaration:
                continue
            address = engine.get_function_address(function.name)
            if address:
                addresses[address] = function.name
    starts = sorted(addresses)
    with open(f"/tmp/perf-{os.getpid()}.map", "w", encoding="ascii") as out:
        for start, end in zip(starts, [*starts[1:], starts[-1] + 4096], strict=True):
            out.write(f"{start:x} {min(end - start, 1 << 20):x} {addresses[start]}\n")
    return len(starts)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--table", choices=sorted(TABLES), default="longest")
    parser.add_argument("--matches", type=int, default=30_000)
    args = parser.parse_args()
    if "NUMBA_CACHE_DIR" not in os.environ:  # compiled here, not loaded: named
        cache = tempfile.mkdtemp(prefix="mexsim-perf-cache-")
        atexit.register(shutil.rmtree, cache, ignore_errors=True)
        os.environ["NUMBA_CACHE_DIR"] = cache
    import mexsim.game.play as play
    from mexsim.game.rules import resolve_rules
    from mexsim.strategy.policy import resolve_policies

    rules = resolve_rules({"preset": "seed-001"}, 4)
    seats = resolve_policies(TABLES[args.table])
    play.play_matches_results(rules, seats, 2026, 0, 20)  # compile
    print(f"{write_perf_map()} functions in /tmp/perf-{os.getpid()}.map", file=sys.stderr)
    cpu, start = time.process_time(), time.monotonic()
    play.play_matches_results(rules, seats, 2026, 0, args.matches)
    end, cpu = time.monotonic(), time.process_time() - cpu
    print(
        f"{args.table}: {cpu / args.matches * 1e6:.1f} µs a match (CPU); "
        f"perf report --time {start:.3f},{end:.3f}",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
