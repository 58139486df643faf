"""`make bench` (referee part): how fast the referee checks a match's trace.

The referee replays every event of a trace in pure Python and checks it against the
rules (mexsim/game/referee.py); the tests run it over thousands of the core's games,
so its speed bounds how many a test can afford. Traces of 4 × greedy and of the
default table, double-12 (seed-001), from the core; milliseconds a match in this
process's CPU time, best of three (a timed test was flaky on a loaded machine:
the figure lives here). The target it was built to: under 20 ms a match.
"""

from __future__ import annotations

import argparse
import time

from mexsim.game.play import core_trace
from mexsim.game.referee import check_trace
from mexsim.game.rules import resolve_rules
from mexsim.strategy.policy import resolve_policies

SEED = 2026
TABLES = {
    "4 x greedy": ["greedy"] * 4,
    "default table": ["longest_train", "early_doubles", "greedy", "random"],
}


def header(rules, seats: list[str], match: int) -> dict:
    """The trace's first event, as `mexsim replay` writes it."""
    return {
        "event": "match",
        "match": match,
        "seed": SEED,
        "players": [
            {"seat": s, "player": f"p{s}", "strategy": name} for s, name in enumerate(seats)
        ],
        "rules": rules.to_dict(),
    }


def ms_a_match(traces: list[list[dict]], repeats: int = 3) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        for trace in traces:
            check_trace(trace)
        best = min(best, (time.process_time() - start) / len(traces))
    return 1000 * best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--matches", type=int, default=50)
    args = parser.parse_args()
    rules = resolve_rules({"preset": "seed-001"}, 4)
    print("referee: a match's trace checked, double-12, one core (target < 20 ms)")
    for name, seats in TABLES.items():
        policies = resolve_policies(seats)
        traces = [
            core_trace(rules, policies, SEED, m, header=header(rules, seats, m))
            for m in range(args.matches)
        ]
        events = sum(len(t) for t in traces) / len(traces)
        print(f"  {name:<14} {ms_a_match(traces):6.1f} ms a match ({events:.0f} events)")


if __name__ == "__main__":
    main()
