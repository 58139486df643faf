"""`make bench`: engine throughput, measured side by side in one run.

A 4-player table of `greedy` under each preset: matches per second of the numba core on
one core, the same seeds on the pure-Python reference engine, and their ratio.
Targets (issue 2): >= 20,000 matches/s per core and >= 50x the reference.
"""

from __future__ import annotations

import argparse
import time

from mexsim.engine import play_matches_results
from mexsim.reference import play_match
from mexsim.rules import PRESETS, resolve_rules

SEED = 2026


def rate(fn, n: int) -> float:
    start = time.perf_counter()
    fn(n)
    return n / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--core-matches", type=int, default=50_000)
    parser.add_argument("--reference-matches", type=int, default=200)
    args = parser.parse_args()
    seats = ["greedy"] * 4
    print(f"{'preset':<10} {'core m/s':>10} {'reference m/s':>14} {'ratio':>8}")
    for preset in PRESETS:
        rules = resolve_rules({"preset": preset}, 4)
        play_matches_results(rules, seats, SEED, 0, 2)  # compile / load the cache

        def core(n, rules=rules):
            play_matches_results(rules, seats, SEED, 0, n)

        def reference(n, rules=rules):
            for m in range(n):
                play_match(rules, SEED, m, seats)

        core_rate = max(rate(core, args.core_matches) for _ in range(3))
        ref_rate = rate(reference, args.reference_matches)
        print(f"{preset:<10} {core_rate:>10,.0f} {ref_rate:>14,.1f} {core_rate / ref_rate:>7,.0f}x")


if __name__ == "__main__":
    main()
