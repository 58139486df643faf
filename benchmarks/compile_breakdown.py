"""Where a cold compile's time goes: numba's compile events, per function and
specialisation, for each built-in strategy and the run's kernels.

Run in a fresh process with an empty cache (NUMBA_CACHE_DIR in a temporary folder,
set before mexsim is imported), one after another on one core:

    python benchmarks/compile_breakdown.py [--top 25]

Times are inclusive (a function's compile includes its callees' first compiles); a
function listed twice was compiled for two argument types (e.g. Literal[int](0) and
int64: numba types a call while it still sees a literal, see mexsim/planner/dense.py).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

if "mexsim" not in sys.modules:  # an empty cache, before numba reads its settings
    os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="mexsim-compile-")

from numba.core import event


class CompileTimes(event.Listener):
    def __init__(self) -> None:
        self.started: dict = {}
        self.times: list[tuple[float, str]] = []

    def on_start(self, ev) -> None:
        self.started[id(ev.data["dispatcher"]), str(ev.data["args"])] = time.perf_counter()

    def on_end(self, ev) -> None:
        key = (id(ev.data["dispatcher"]), str(ev.data["args"]))
        func = ev.data["dispatcher"].py_func
        self.times.append(
            (
                time.perf_counter() - self.started.pop(key),
                f"{func.__module__}.{func.__qualname__} {key[1]}",
            )
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--width", type=int, default=160)
    args = parser.parse_args()
    listener = CompileTimes()
    event.register("numba:compile", listener)
    from mexsim.game.signature import ready
    from mexsim.running.compile_jobs import compile_engine
    from mexsim.strategy.origin import BUILTIN_FOLDER
    from mexsim.strategy.registry import load_strategy_file

    print("cold compile, one core: seconds per step")
    for path in sorted(BUILTIN_FOLDER.glob("[!_]*.py")):
        start = time.perf_counter()
        # a shipped decide compiles when first needed: here, as a run that plays it would
        ready(load_strategy_file(path).decide)
        print(f"  strategy {path.stem:<14} {time.perf_counter() - start:6.1f}")
    start = time.perf_counter()
    compile_engine()
    print(f"  the engine (run)        {time.perf_counter() - start:6.1f}")
    print(f"\nthe {args.top} longest compiles (inclusive seconds, function and argument types)")
    for seconds, what in sorted(listener.times, reverse=True)[: args.top]:
        print(f"  {seconds:6.1f}  {what[: args.width]}")


if __name__ == "__main__":
    main()
