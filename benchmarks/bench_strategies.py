"""`make bench` (strategies part): plug-in strategies, planner and warm start.

Matches per second on one core (CPU time, best of 5: see bench_engine.rate) for
4 x longest_train (pip_weight 0 and 1.0), 4 x early_doubles, 4 x mexican_first, the
default mixed table and counter, alone and beside longest_train (seed-001 rules); the
longest_train planner's time on random hands of 15, 20 and 25 tiles (pip_weight 0 and
1.0); and the warm start: a 1-match replay of configs/default.toml in a fresh process
once the cache is warm. Targets (issue 3): 4 x longest_train >= 5,000 matches/s/core;
a 25-tile plan well under a millisecond; warm start <= 2 s. pip_weight > 0 (issue:
~100x slower before the weighted T-join bound): within about 2x of pip_weight 0.

And what the bounds check of a user's strategy costs (issue 10): 4 x a built-in
against 4 x the same file loaded as a user's strategy (renamed, from a temporary
folder, so compiled with boundscheck=True). ``--boundscheck-only`` runs just that.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from bench_engine import rate  # a sibling script (benchmarks/ is on sys.path)

from mexsim.game.play import play_matches_results
from mexsim.game.rules import resolve_rules
from mexsim.game.tiles import tile_set
from mexsim.planner import longest_chain
from mexsim.strategy.policy import Policy, resolve_policies
from mexsim.strategy.registry import available_strategies

ROOT = Path(__file__).resolve().parents[1]
TABLES: dict[str, list[str | tuple[str, float]]] = {
    "4 x longest_train": ["longest_train"] * 4,
    "4 x longest_train, pip_weight 1.0": [("longest_train", 1.0)] * 4,
    "4 x early_doubles": ["early_doubles"] * 4,
    "4 x mexican_first": ["mexican_first"] * 4,
    "default (lt, ed, greedy, random)": ["longest_train", "early_doubles", "greedy", "random"],
    # called with the view and its public table (the kernel plays longest_train itself)
    "4 x counter": ["counter"] * 4,
    "counter + 3 x longest_train": ["counter", "longest_train", "longest_train", "longest_train"],
}


def table_rate(names: list[str | tuple[str, float]], n: int, repeats: int = 5) -> float:
    rules = resolve_rules({"preset": "seed-001"}, 4)
    strategies = available_strategies()
    seats = resolve_policies(
        [Policy(strategies[s[0]], (s[1],)) if isinstance(s, tuple) else s for s in names]
    )
    play_matches_results(rules, seats, 2026, 0, 2)  # compile / load the cache
    return rate(lambda k: play_matches_results(rules, seats, 2026, 0, k), n, repeats)


def boundscheck_cost(n: int) -> list[tuple[str, float, float]]:
    """(strategy, built-in rate, the same as a bounds-checked user strategy) per table of
    4, matches per second on one core."""
    rules = resolve_rules({"preset": "seed-001"}, 4)
    builtins = available_strategies()
    out = []
    with tempfile.TemporaryDirectory() as folder:
        for name in ("greedy", "early_doubles", "longest_train"):
            text = Path(builtins[name].path).read_text(encoding="utf-8")
            text = text.replace(f'NAME = "{name}"', f'NAME = "{name}_checked"')
            (Path(folder) / f"{name}_checked.py").write_text(text, encoding="utf-8")
        users = available_strategies([folder])
        for name in ("greedy", "early_doubles", "longest_train"):
            size = n * (1 if name == "longest_train" else 10)
            rates = []
            for info in (builtins[name], users[f"{name}_checked"]):
                seats = [Policy(info, tuple(info.params.values()))] * 4
                play_matches_results(rules, seats, 2026, 0, 2)  # compile / load the cache
                rates.append(
                    rate(lambda k, s=seats: play_matches_results(rules, s, 2026, 0, k), size, 5)
                )
            out.append((name, rates[0], rates[1]))
    return out


def print_boundscheck_cost(n: int) -> None:
    print(
        "bounds check: 4 x a built-in vs the same file as a user's (bounds-checked) "
        "strategy, one core, matches per second"
    )
    for name, trusted, checked in boundscheck_cost(n):
        print(
            f"  {name:<15} {trusted:>9,.0f} {checked:>9,.0f}  "
            f"({(trusted / checked - 1) * 100:+.1f} % time)"
        )


def planner_times(size: int, hands: int, pip_weight: float) -> tuple[float, float, float]:
    ts = tile_set(12)
    rng = random.Random(size)
    chain = np.empty(ts.count, dtype=np.int64)
    times = []
    for _ in range(hands):
        hand = np.array(rng.sample(range(ts.count), size), dtype=np.int64)
        start = time.perf_counter()
        longest_chain(rng.randint(0, 12), hand, size, ts.lo, ts.hi, ts.pips, pip_weight, 12, chain)
        times.append(time.perf_counter() - start)
    times.sort()
    return times[len(times) // 2], times[int(len(times) * 0.99)], times[-1]


def warm_start() -> float:
    cmd = [
        sys.executable,
        "-m",
        "mexsim",
        "replay",
        "configs/default.toml",
        "--match",
        "0",
        "--format",
        "jsonl",
    ]
    subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True)  # warm the cache
    start = time.perf_counter()
    subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--matches", type=int, default=2_000)
    parser.add_argument("--hands", type=int, default=300)
    parser.add_argument("--boundscheck-only", action="store_true")
    args = parser.parse_args()
    if args.boundscheck_only:
        print_boundscheck_cost(args.matches)
        return
    print("strategies: seed-001, one core, matches per second")
    for label, seats in TABLES.items():
        fast = not any("longest_train" in s for s in seats)
        n = args.matches * (10 if fast else 1)
        print(f"  {label:<34} {table_rate(seats, n):>9,.0f}")
    ts = tile_set(12)
    longest_chain(
        0,
        np.zeros(1, dtype=np.int64),
        0,
        ts.lo,
        ts.hi,
        ts.pips,
        0.0,
        12,
        np.zeros(1, dtype=np.int64),
    )  # compile / load for these array types
    print("\nplanner (longest_chain), random double-12 hands, microseconds")
    print(f"  {'pip_weight':>10} {'tiles':>5} {'median':>9} {'p99':>9} {'max':>11}")
    for pip_weight in (0.0, 1.0):
        for size in (15, 20, 25):
            med, p99, worst = planner_times(size, args.hands, pip_weight)
            print(
                f"  {pip_weight:>10} {size:>5} {med * 1e6:>9.1f} {p99 * 1e6:>9.1f}"
                f" {worst * 1e6:>11.1f}"
            )
    print(f"\nwarm start (1-match replay of configs/default.toml): {warm_start():.2f} s\n")
    print_boundscheck_cost(args.matches)


if __name__ == "__main__":
    main()
