"""What the luck adjustment costs (docs/luck.md): matches per CPU second on one thread,
played plainly and with every chance event scored, side by side in one process.

Plays the same blocks of a config's matches (its players, seating and deals) with
``play_scheduled`` and with ``play_scheduled_luck`` (mexsim/game/luck.py, a model
fitted by the run's pilot), alternating, ``--repeats`` times each, and reports the
best process CPU time of each (the machine may be shared: CPU time, not wall time).

    python benchmarks/bench_luck.py                               # configs/default.toml
    python benchmarks/bench_luck.py --config configs/head-to-head.toml --matches 8192

``--widths DIR`` instead reads a luck-adjusted run's ``matches.parquet`` and prints, for
every pair of players, the 95 % interval of the raw and of the luck-adjusted paired
difference (deals as units) and the ratio of their widths, and each player's mean luck.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from mexsim.game.play import play_scheduled, play_scheduled_luck
from mexsim.tournament.config import config_schedule, load_config
from mexsim.tournament.lineup import player_policies
from mexsim.tournament.luck import fit_luck_model


def widths(folder: str) -> None:
    import pandas as pd

    matches = pd.read_parquet(
        f"{folder}/matches.parquet", columns=["match", "player", "total", "luck", "deal"]
    )
    matches["adjusted"] = matches["total"] - matches["luck"]
    players = list(dict.fromkeys(matches["player"].astype(str)))
    unit = (
        matches.groupby(["deal", "player"], observed=True)[["total", "adjusted", "luck"]]
        .mean()
        .unstack()
    )
    n = len(unit)
    print(f"{folder}: {matches['match'].nunique():,} matches, {n:,} deals")
    for p in players:
        luck = unit["luck"][p]
        print(
            f"  luck of {p} per match: {luck.mean():+.3f} +- "
            f"{1.96 * luck.std(ddof=1) / np.sqrt(n):.3f}"
        )
    for i, a in enumerate(players):
        for b in players[i + 1 :]:
            half = {}
            for kind in ("total", "adjusted"):
                diff = unit[kind][a] - unit[kind][b]
                half[kind] = 1.96 * diff.std(ddof=1) / np.sqrt(n)
                print(f"  {a} - {b} {kind}: {diff.mean():+.2f} +- {half[kind]:.2f}")
            print(f"  {a} - {b}: width ratio {half['adjusted'] / half['total']:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--config", default="configs/default.toml")
    parser.add_argument("--matches", type=int, default=4096)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--widths", metavar="DIR")
    args = parser.parse_args()
    if args.widths:
        widths(args.widths)
        return
    config = load_config(args.config)
    players = player_policies(config)
    schedule = config_schedule(config)
    ids = np.arange(args.matches, dtype=np.int64)
    deals, seating = schedule.deals(0, args.matches), schedule.seating(0, args.matches)
    start = time.process_time()
    model = fit_luck_model(config, players)  # compiles too, the first time
    print(
        f"pilot and fit (first call compiles): {time.process_time() - start:.1f} s CPU; "
        f"R2 {model.r2:.3f}"
    )
    weights = np.array(model.weights)
    play_scheduled(config.rules, players, config.seed, ids[:1], deals[:1], seating[:1])
    best = {"off": np.inf, "on": np.inf}
    for _ in range(args.repeats):
        for label in best:
            start = time.process_time()
            if label == "off":
                play_scheduled(config.rules, players, config.seed, ids, deals, seating)
            else:
                play_scheduled_luck(
                    config.rules, players, config.seed, ids, deals, seating, weights
                )
            best[label] = min(best[label], time.process_time() - start)
    off, on = (args.matches / best[k] for k in ("off", "on"))
    print(
        f"{args.config}: {args.matches:,} matches, one thread, best of {args.repeats}: "
        f"luck off {off:,.0f} matches/CPU s, luck on {on:,.0f} matches/CPU s "
        f"(x{best['on'] / best['off']:.2f} the CPU time)"
    )


if __name__ == "__main__":
    main()
