"""`make bench` (engine part): throughput measured side by side in one run.

A 4-player table of `greedy` under each preset, on one core: matches per second of the
numba core as users run it (the built-in greedy's choice is made in the kernel, without
a call: enums.Calling), the same seeds on the pure-Python reference engine, and their
ratio. Then the cost of plug-in dispatch: the same table with greedy called through its
plug-in as a user's strategy is (Dispatch.called), with greedy compiled into the core as
a direct call (view filled the same way), and the engine alone. Last, the limit: the
bare prototype of benchmarks/prototype_engine.py against the core, run in turns, with
nanoseconds a turn (a turn: one seat's moves, draws and pass between two other seats';
counted from the core's traces). Targets:
issue 2 (>= 20,000 matches/s per core, >= 50x the reference), issue 3 (dispatch
overhead <= 10 %), issue 14 (the core >= 0.5 x the prototype).
"""

from __future__ import annotations

import argparse
import time

from prototype_engine import play as play_prototype  # a sibling script
from prototype_engine import tables as prototype_tables

from mexsim.game.enums import Dispatch
from mexsim.game.play import core_trace, play_matches_results
from mexsim.game.reference import play_match
from mexsim.game.rules import PRESETS, resolve_rules
from mexsim.strategy.policy import resolve_policies

SEED = 2026
SEATS = resolve_policies(["greedy"] * 4)


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
    return rate(
        lambda k: play_matches_results(rules, SEATS, SEED, 0, k, dispatch=dispatch), n, repeats=3
    )


def turns_a_match(rules, n: int = 200) -> float:
    """Turns a match of 4 x greedy: a run of one seat's draws, plays and pass, in the
    core's traces of matches 0..n-1 (the engine's placement excluded)."""
    turns = 0
    for m in range(n):
        prev, started = None, False
        for e in core_trace(rules, SEATS, SEED, m):
            kind = e["event"]
            if kind in ("draw", "play", "pass") and started:
                turns += e["seat"] != prev
                prev = e["seat"]
            elif kind in ("deal", "engine", "round_end"):
                prev, started = None, kind == "engine"
    return turns / n


def limit_rates(rules, n: int, repeats: int = 5) -> tuple[float, float, float]:
    """(core, prototype matches/s, prototype turns a match), best of ``repeats`` runs
    taken in turns, so that both see the same load of a shared machine."""
    args = prototype_tables()
    play_prototype(SEED, 0, 2, *args)  # compile / load the cache
    play_matches_results(rules, SEATS, SEED, 0, 2)
    core = proto = 0.0
    turns = 0
    for _ in range(repeats):
        core = max(core, rate(lambda k: play_matches_results(rules, SEATS, SEED, 0, k), n))
        start = time.process_time()
        _, turns = play_prototype(SEED, 0, n, *args)
        proto = max(proto, n / (time.process_time() - start))
    return core, proto, turns / n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--core-matches", type=int, default=30_000)
    parser.add_argument("--reference-matches", type=int, default=100)
    parser.add_argument(
        "--limit-only", action="store_true", help="only the core against the prototype"
    )
    args = parser.parse_args()
    rules = resolve_rules({"preset": "seed-001"}, 4)
    if not args.limit_only:
        presets_and_dispatch(args)
    limit(rules, args.core_matches)


def presets_and_dispatch(args: argparse.Namespace) -> None:
    print("engine: 4 x greedy, one core, matches per second")
    print(f"{'preset':<10} {'core':>9} {'reference':>10} {'ratio':>7}")
    for preset in PRESETS:
        rules = resolve_rules({"preset": preset}, 4)
        fast = core_rate(rules, args.core_matches)
        slow = rate(
            lambda k, rules=rules: [play_match(rules, SEED, m, SEATS) for m in range(k)],
            args.reference_matches,
        )
        print(f"{preset:<10} {fast:>9,.0f} {slow:>10,.1f} {fast / slow:>6,.0f}x")

    rules = resolve_rules({"preset": "seed-001"}, 4)
    plugin = core_rate(rules, args.core_matches)
    called = core_rate(rules, args.core_matches, Dispatch.called)
    hardwired = core_rate(rules, args.core_matches, Dispatch.hardwired)
    engine = core_rate(rules, args.core_matches, Dispatch.engine_only)
    print("\ndispatch: 4 x greedy, seed-001, matches per second")
    print(f"  as run (greedy in the kernel)  {plugin:>9,.0f}")
    print(f"  plug-in (first-class function) {called:>9,.0f}")
    print(
        f"  hard-wired call                {hardwired:>9,.0f}"
        f"   plug-in overhead {hardwired / called - 1:+.1%}"
    )
    print(f"  engine alone (no view filled)  {engine:>9,.0f}")


def limit(rules, n: int) -> None:
    """The core against the prototype (issue 14), side by side."""
    core, proto, proto_turns = limit_rates(rules, n)
    core_turns = turns_a_match(rules)
    print("\nlimit: 4 x greedy, seed-001, the bare prototype (benchmarks/prototype_engine.py)")
    print(
        f"  core       {core:>9,.0f} matches/s, {core_turns:.0f} turns a match, "
        f"{1e9 / core / core_turns:5.1f} ns a turn"
    )
    print(
        f"  prototype  {proto:>9,.0f} matches/s, {proto_turns:.0f} turns a match, "
        f"{1e9 / proto / proto_turns:5.1f} ns a turn"
    )
    print(f"  core / prototype {core / proto:.2f} (matches/s; issue 14 asks >= 0.5)")


if __name__ == "__main__":
    main()
