"""`make bench` (tournament part): what duplicate deals buy, and what tournaments cost.

1. Interval width: the same table plays N matches with independent deals and N matches
   with duplicate deals (same seed); for every player the 95 % interval on the paired
   difference from the best player is compared. Issue 5 expects the ratio
   duplicate / independent well below 1.
2. Cost: matches per second of a pool (8 players at tables of 4, duplicate deals)
   against the plain 4-player table, and the analysis after a run (ratings, head to
   head, sweeps) per match.

Fast strategies only (greedy, early_doubles, mexican_first, random), all cores.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

from mexsim.analysis import analyze
from mexsim.config import load_config
from mexsim.runner import run

TABLE = ("greedy", "early_doubles", "mexican_first", "random")


def config_text(out: Path, matches: int, tournament: str, players: list[str]) -> str:
    body = "".join(f'[[players]]\nstrategy = "{s}"\nname = "{n}"\n' for n, s in
                   zip(players, [p.split("#")[0] for p in players], strict=True))
    return (f"[run]\nmatches = {matches}\nseed = 2026\nout = {json.dumps(str(out))}\n"
            f"[tournament]\n{tournament}{body}")


def play(work: Path, label: str, matches: int, tournament: str, players: list[str]
         ) -> tuple[dict, float]:
    path = work / f"{label}.toml"
    path.write_text(config_text(work / label, matches, tournament, players))
    cfg = load_config(path)
    got: dict = {}

    def keep(tmp: Path, totals: np.ndarray, deals: np.ndarray) -> None:
        got["totals"], got["deals"] = totals.copy(), deals.copy()

    result = run(cfg, work / label, workers=os.cpu_count() or 1, force=True, summarize=keep)
    got["names"] = [p.name for p in cfg.players]
    got["strategies"] = [p.strategy for p in cfg.players]
    return got, result.matches_per_second


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--matches", type=int, default=40_000)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="mexsim-bench-tournament-"))
    try:
        players = list(TABLE)
        play(work, "warmup", 8, "", players)
        runs = {}
        for label, tournament in (("independent", ""), ("duplicate", "duplicate = true\n")):
            got, rate = play(work, label, args.matches, tournament, players)
            start = time.perf_counter()
            analysis = analyze(got["totals"], got["deals"], got["names"], got["strategies"],
                               {}, 13)
            runs[label] = (analysis.summary.set_index("player"), rate,
                           time.perf_counter() - start)
        print(f"tournament: {args.matches:,} matches of {', '.join(TABLE)} (seed-001 rules)")
        ind, dup = runs["independent"][0], runs["duplicate"][0]
        print("  95% interval on the paired difference from the best, width "
              "(independent -> duplicate, ratio):")
        for player in ind.index:
            w_ind = ind.loc[player, "diff_vs_best_hi"] - ind.loc[player, "diff_vs_best_lo"]
            w_dup = dup.loc[player, "diff_vs_best_hi"] - dup.loc[player, "diff_vs_best_lo"]
            if w_ind > 0:
                print(f"    {player:14s} {w_ind:7.2f} -> {w_dup:7.2f}  ratio {w_dup / w_ind:.2f}"
                      f"  (diff {ind.loc[player, 'diff_vs_best']:+.1f} / "
                      f"{dup.loc[player, 'diff_vs_best']:+.1f})")
        for label, (_, rate, seconds) in runs.items():
            print(f"  {label}: {rate:,.0f} matches/s; analysis (ratings, head to head) "
                  f"{seconds:.1f} s = {1e6 * seconds / args.matches:.0f} us/match")
        pool = [f"{s}#{i}" for i in range(2) for s in TABLE]
        _, pool_rate = play(work, "pool", args.matches, "table_size = 4\nduplicate = true\n",
                            pool)
        print(f"  pool of 8 at tables of 4, duplicate: {pool_rate:,.0f} matches/s "
              f"(plain table {runs['independent'][1]:,.0f})")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
