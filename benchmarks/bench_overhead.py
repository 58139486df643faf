"""`make bench` (issue 37): does the kernel's speed reach a user's run?

For a 4 x greedy table and the default table (seed-001 rules) at each of ``--sizes``
matches, ``mexsim run --workers 1`` in a fresh process (warm cache): its play rate
(the matches over run.json's ``play_seconds``) beside the kernel's own rate, measured
in this process just before and after it on the same machine (the same tables and
seeds, one thread, wall time, the better of two), so that the ratio is read off one
run. Then the warm start (a 1-match run of configs/default.toml, best of 4) and, with
``--cold``, the cold start (the same on an empty cache: benchmarks/bench_cold_start.py).

Goals (issue 37): 40,000 matches at >= 0.85 x the kernel, 4,000 at >= 0.6 x; warm
start <= 1.0 s; cold start <= 15 s on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mexsim.game.play import play_matches_results
from mexsim.game.rules import resolve_rules
from mexsim.strategy.policy import resolve_policies

ROOT = Path(__file__).resolve().parents[1]
SEED = 2026
TABLES = {
    "4 x greedy": ["greedy"] * 4,
    "default table": ["longest_train", "early_doubles", "greedy", "random"],
}


def config_text(strategies: list[str]) -> str:
    players = "".join(f'[[players]]\nstrategy = "{s}"\n' for s in strategies)
    return (
        f'[run]\nmatches = 1000\nseed = {SEED}\n\n[rules]\npreset = "seed-001"\n\n'
        f"[seating]\nrotate = true\n\n{players}"
    )


def kernel_rate(strategies: list[str], n: int) -> float:
    """Matches a second of the kernel alone, one thread, wall time, the better of two."""
    rules = resolve_rules({"preset": "seed-001"}, 4)
    seats = resolve_policies(strategies)
    play_matches_results(rules, seats, SEED, 0, 2)  # load the cache
    best = 0.0
    for _ in range(2):
        start = time.perf_counter()
        play_matches_results(rules, seats, SEED, 0, n)
        best = max(best, n / (time.perf_counter() - start))
    return best


def run_rate(config: Path, matches: int, out: Path) -> float:
    """Matches a second of play in a fresh `mexsim run --workers 1` (run.json)."""
    subprocess.run(
        [
            sys.executable,
            "-m",
            "mexsim",
            "run",
            str(config),
            "--matches",
            str(matches),
            "--workers",
            "1",
            "--out",
            str(out),
            "--force",
            "--quiet",
        ],
        cwd=ROOT,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    record = json.loads((out / "run.json").read_text())
    return matches / record["play_seconds"]


def warm_start(out: Path) -> float:
    """The best of 4 one-match runs, after one that loads the cache and writes Python's
    compiled modules, as an installed mexsim has them (this project's machines set
    PYTHONDONTWRITEBYTECODE, which compiles mexsim's ~110 modules from source at every
    start: ~0.13 s more)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    best = float("inf")
    for attempt in range(5):
        start = time.perf_counter()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "mexsim",
                "run",
                "configs/default.toml",
                "--matches",
                "1",
                "--out",
                str(out),
                "--force",
                "--quiet",
            ],
            cwd=ROOT,
            check=True,
            stdout=subprocess.DEVNULL,
            env=env,
        )
        if attempt:
            best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="4000,40000,400000", help="matches a run")
    parser.add_argument("--kernel-matches", type=int, default=20_000)
    parser.add_argument("--cold", action="store_true", help="also the cold start")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    work = Path(tempfile.mkdtemp(prefix="mexsim-overhead-"))
    print("the kernel's speed in a run: mexsim run --workers 1 against the kernel alone")
    print(f"{'table':<14} {'matches':>9} {'run /s':>9} {'kernel /s':>10} {'ratio':>6}")
    for table, strategies in TABLES.items():
        config = work / f"{table.replace(' ', '-')}.toml"
        config.write_text(config_text(strategies), encoding="utf-8")
        run_rate(config, 10, work / "warm")  # the strategies' cache, once
        for size in sizes:
            before = kernel_rate(strategies, args.kernel_matches)
            rate = run_rate(config, size, work / "out")
            after = kernel_rate(strategies, args.kernel_matches)
            kernel = max(before, after)
            print(f"{table:<14} {size:>9,} {rate:>9,.0f} {kernel:>10,.0f} {rate / kernel:>6.2f}")
    print(f"warm start, a 1-match run of configs/default.toml: {warm_start(work / 'one'):.2f} s")
    if args.cold:
        sys.path.insert(0, str(Path(__file__).parent))
        from bench_cold_start import cold_run

        seconds, _ = cold_run(None)
        print(f"cold start, the same on an empty cache, all cores: {seconds:.1f} s")


if __name__ == "__main__":
    main()
