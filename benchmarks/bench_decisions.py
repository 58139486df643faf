"""What decisions.parquet costs a run: the same config played with and without
``--decisions``, in turns, each run's play time (run.json's ``play_seconds``: compiling
left out) and matches a second; the median of REPEAT turns and the ratio.

    python benchmarks/bench_decisions.py [--repeat 3]

Two tables: configs/default.toml (4 built-ins, every seat recorded: the cheapest play,
so the dearest ratio) and `search` against longest_train, head to head (search's
decisions recorded: the dataset the learning loop fits, docs/learning.md).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from pathlib import Path

import mexsim

SEARCH = """[run]
matches = {matches}
seed = 2026
decisions = ["search"]

[[players]]
strategy = "search"

[[players]]
strategy = "longest_train"
"""


def play_seconds(config: Path, out: Path, matches: int, decisions: bool) -> float:
    mexsim.run(config, matches=matches, out=out, force=True, decisions=decisions)
    return float(json.loads((out / "run.json").read_text())["play_seconds"])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    folder = Path(tempfile.mkdtemp())
    search = folder / "search.toml"
    tables = [
        ("configs/default.toml, every seat recorded", Path("configs/default.toml"), 20_000),
        ("search against longest_train, search recorded", search, 400),
    ]
    for label, config, matches in tables:
        if config == search:
            search.write_text(SEARCH.format(matches=matches), encoding="utf-8")
            plain_config = folder / "search-plain.toml"
            plain_config.write_text(
                SEARCH.format(matches=matches).replace('decisions = ["search"]\n', ""),
                encoding="utf-8",
            )
        else:
            plain_config = config
        play_seconds(config, folder / "warm", 200, True)  # compiled before timing
        plain, deciding = [], []
        for _ in range(a.repeat):
            plain.append(play_seconds(plain_config, folder / "plain", matches, False))
            # (the search config records by its own [run] decisions)
            deciding.append(play_seconds(config, folder / "deciding", matches, config != search))
        size = (folder / "deciding" / "decisions.parquet").stat().st_size
        p, d = statistics.median(plain), statistics.median(deciding)
        print(f"{label}, {matches:,} matches (median of {a.repeat}):")
        print(f"  without: {p:.2f} s, {matches / p:,.0f} matches/s")
        kb = size / matches / 1e3
        print(
            f"  with decisions.parquet: {d:.2f} s, {matches / d:,.0f} matches/s, {kb:.1f} KB/match"
        )
        print(f"  throughput with it: {p / d:.2f} of without")


if __name__ == "__main__":
    main()
