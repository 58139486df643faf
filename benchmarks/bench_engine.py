"""`make bench` (engine part): throughput measured side by side in one run.

A 4-player table of `greedy` under each preset, on one core: matches per second of the
numba core with greedy as a plug-in (what users run), the same seeds on the pure-Python
reference engine, and their ratio. Then the cost of plug-in dispatch: the same table
with greedy compiled into the core as a direct call (view filled the same way), and the
engine alone. Targets: issue 2 (>= 20,000 matches/s per core, >= 50x the reference),
issue 3 (dispatch overhead <= 10 %).
"""

from __future__ import annotations

import argparse
import time

from mexsim.game.enums import Dispatch
from mexsim.game.play import play_matches_results
from mexsim.game.reference import play_match
from mexsim.game.rules import PRESETS, resolve_rules

SEED = 2026
SEATS = ["greedy"] * 4


def rate(fn, n: int, repeats: int = 1) -> float:
    """Best of ``repeats`` runs of fn(n), in matches per second of this process's CPU
    time: on a shared virtual machine wall time varied by ~8 % from run to run, the
    process time by under 1 %. The runs are single-threaded, so it is per core."""
    best = 0.0
    for _ in range(repeats):
        start = time.process_time()
        fn(n)
        best = max(best, n / (time.process_time() - start))
    return best


def core_rate(rules, n: int, dispatch: int = Dispatch.plugin) -> float:
    play_matches_results(rules, SEATS, SEED, 0, 2, dispatch=dispatch)  # compile / load
    return rate(lambda k: play_matches_results(rules, SEATS, SEED, 0, k, dispatch=dispatch),
                n, repeats=3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--core-matches", type=int, default=30_000)
    parser.add_argument("--reference-matches", type=int, default=100)
    args = parser.parse_args()

    print("engine: 4 x greedy, one core, matches per second")
    print(f"{'preset':<10} {'core':>9} {'reference':>10} {'ratio':>7}")
    for preset in PRESETS:
        rules = resolve_rules({"preset": preset}, 4)
        fast = core_rate(rules, args.core_matches)
        slow = rate(lambda k, rules=rules: [play_match(rules, SEED, m, SEATS)
                                            for m in range(k)], args.reference_matches)
        print(f"{preset:<10} {fast:>9,.0f} {slow:>10,.1f} {fast / slow:>6,.0f}x")

    rules = resolve_rules({"preset": "seed-001"}, 4)
    plugin = core_rate(rules, args.core_matches)
    hardwired = core_rate(rules, args.core_matches, Dispatch.hardwired)
    engine = core_rate(rules, args.core_matches, Dispatch.engine_only)
    print("\ndispatch: 4 x greedy, seed-001, matches per second")
    print(f"  plug-in (first-class function) {plugin:>9,.0f}")
    print(f"  hard-wired call                {hardwired:>9,.0f}"
          f"   plug-in overhead {hardwired / plugin - 1:+.1%}")
    print(f"  engine alone (no view filled)  {engine:>9,.0f}")


if __name__ == "__main__":
    main()
