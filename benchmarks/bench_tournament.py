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
import pandas as pd

from mexsim.analysis.comparison import analyze_statistics
from mexsim.running.runner import RunHooks, RunOptions, run
from mexsim.tournament.config import load_config

TABLE = ("greedy", "early_doubles", "mexican_first", "random")


def config_text(out: Path, matches: int, tournament: str, players: list[str]) -> str:
    body = "".join(
        f'[[players]]\nstrategy = "{s}"\nname = "{n}"\n'
        for n, s in zip(players, [p.split("#")[0] for p in players], strict=True)
    )
    return (
        f"[run]\nmatches = {matches}\nseed = 2026\nout = {json.dumps(str(out))}\n"
        f"[tournament]\n{tournament}{body}"
    )


def play(
    work: Path, label: str, matches: int, tournament: str, players: list[str]
) -> tuple[dict, float]:
    """One run of the table: its per-match totals (match x player, config order), each
    match's deal, the players, its analysis and its rate."""
    path = work / f"{label}.toml"
    path.write_text(config_text(work / label, matches, tournament, players))
    cfg = load_config(path)
    names = [p.name for p in cfg.players]
    got: dict = {"names": names, "strategies": [p.strategy for p in cfg.players]}

    def analyse(folder: Path, statistics: object) -> None:
        start = time.perf_counter()
        got["analysis"] = analyze_statistics(
            statistics, names, got["strategies"], {}, np.full(len(names), np.nan), 13
        )
        got["seconds"] = time.perf_counter() - start

    options = RunOptions(workers=os.cpu_count() or 1, force=True)
    result = run(cfg, work / label, options, RunHooks(write_tables=analyse))
    rows = pd.read_parquet(
        work / label / "matches.parquet", columns=["match", "player", "total", "deal"]
    )
    wide = rows.pivot(index="match", columns="player", values="total")
    got["totals"] = wide[names].to_numpy()
    got["deals"] = rows.groupby("match")["deal"].first().to_numpy()
    return got, result.matches_per_second


def unpaired_width(totals: np.ndarray, a: int, b: int) -> float:
    """Width of the 95 % interval on mean(a) - mean(b) ignoring that they shared deals."""
    x, y = totals[:, a].astype(float), totals[:, b].astype(float)
    return 2 * 1.96 * float(np.sqrt(x.var(ddof=1) / len(x) + y.var(ddof=1) / len(y)))


def compare(work: Path, label: str, players: list[str], matches: int) -> float:
    """Print the interval widths for one table; returns the independent run's rate."""
    runs = {}
    for kind, tournament in (("independent", ""), ("duplicate", "duplicate = true\n")):
        got, rate = play(work, f"{label}-{kind}", matches, tournament, players)
        runs[kind] = (got["analysis"].summary.set_index("player"), rate, got["seconds"], got)
    print(f"tournament: {matches:,} matches of {', '.join(players)} (seed-001 rules)")
    ind, dup = runs["independent"][0], runs["duplicate"][0]
    best = ind.index[0]
    print(
        "  95% interval on the paired difference from the best, width "
        "(independent -> duplicate, ratio; unpaired independent for contrast):"
    )
    got = runs["independent"][3]
    for player in ind.index[1:]:
        w_ind = ind.loc[player, "diff_vs_best_hi"] - ind.loc[player, "diff_vs_best_lo"]
        w_dup = dup.loc[player, "diff_vs_best_hi"] - dup.loc[player, "diff_vs_best_lo"]
        w_unp = unpaired_width(got["totals"], got["names"].index(player), got["names"].index(best))
        print(
            f"    {player:14s} {w_ind:6.2f} -> {w_dup:6.2f}  ratio {w_dup / w_ind:.2f}   "
            f"(unpaired {w_unp:6.2f}: ratio {w_dup / w_unp:.2f}; diff "
            f"{ind.loc[player, 'diff_vs_best']:+.1f} / {dup.loc[player, 'diff_vs_best']:+.1f})"
        )
    for kind, (_, rate, seconds, _) in runs.items():
        print(
            f"  {kind}: {rate:,.0f} matches/s; analysis (ratings, head to head) "
            f"{seconds:.1f} s = {1e6 * seconds / matches:.0f} us/match"
        )
    return runs["independent"][1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--matches", type=int, default=40_000)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="mexsim-bench-tournament-"))
    try:
        play(work, "warmup", 8, "", list(TABLE))
        plain = compare(work, "four", list(TABLE), args.matches)
        compare(work, "two", list(TABLE[:2]), args.matches)
        pool = [f"{s}#{i}" for i in range(2) for s in TABLE]
        _, pool_rate = play(work, "pool", args.matches, "table_size = 4\nduplicate = true\n", pool)
        print(
            f"  pool of 8 at tables of 4, duplicate: {pool_rate:,.0f} matches/s "
            f"(plain 4-player table {plain:,.0f})"
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
