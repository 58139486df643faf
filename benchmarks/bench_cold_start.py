"""`make bench` (cold start part): a new user's first `mexsim run`, on an empty cache.

Runs `mexsim run configs/default.toml --matches 1` in a fresh process with an empty
cache folder (XDG_CACHE_HOME in a temporary folder), so that numba compiles the engine
and every strategy, as on the first run after installing or upgrading mexsim; prints
the wall time (the one match and its summary take well under a second of it) and the
lines the compile notice printed. Then the same with one core (`--workers 1`: the
compile jobs run one after another) for the parallel warm-up's share. Target (issue
14): <= 25 s to the first match on the issue author's machine, never silent for more
than 2 s (tests/test_compile_notice.py holds the latter).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def cold_run(workers: int | None) -> tuple[float, list[str]]:
    cache = Path(tempfile.mkdtemp(prefix="mexsim-cold-"))
    try:
        args = [
            sys.executable,
            "-m",
            "mexsim",
            "run",
            "configs/default.toml",
            "--matches",
            "1",
            "--out",
            str(cache / "out"),
        ]
        if workers:
            args += ["--workers", str(workers)]
        start = time.perf_counter()
        done = subprocess.run(
            args,
            cwd=ROOT,
            env=os.environ | {"XDG_CACHE_HOME": str(cache)},
            capture_output=True,
            text=True,
            check=True,
        )
        wall = time.perf_counter() - start
        return wall, [
            line for line in done.stderr.splitlines() if line.startswith("mexsim: compiling")
        ]
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--one-core",
        action="store_true",
        help="also time the first run with --workers 1 (no parallel warm-up)",
    )
    args = parser.parse_args()
    print("cold start: `mexsim run configs/default.toml --matches 1`, empty cache")
    wall, lines = cold_run(None)
    print(f"  all cores ({os.cpu_count()}): {wall:.1f} s")
    for line in lines:
        print(f"    {line}")
    if args.one_core:
        wall_one, _ = cold_run(1)
        print(
            f"  --workers 1 (compiled in turn): {wall_one:.1f} s "
            f"(parallel warm-up: {wall_one / wall:.2f}x)"
        )


if __name__ == "__main__":
    main()
