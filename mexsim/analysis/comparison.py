"""Everything a run's comparison says, from one (match × player) matrix of totals:
the per-player summary (with ratings), every pair compared, the head-to-head table and
the sweep verdicts.

``mexsim run`` builds it from the totals it holds in memory; ``mexsim report`` from a
results directory's ``matches.parquet`` and ``run.json``; both give the same tables.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from mexsim.analysis.deals import unit_means, unit_starts
from mexsim.analysis.head_to_head import format_head_to_head, head_to_head
from mexsim.analysis.pairs import compare_pairs, format_pairs
from mexsim.analysis.summary import format_summary, summarize, summarize_totals, total_matrix
from mexsim.analysis.sweeps import compare_sweeps, format_sweeps

MATRIX_MAX_PLAYERS = 12  # wider head-to-head matrices go to the CSV only


@dataclass(frozen=True)
class Analysis:
    summary: pd.DataFrame
    pairs: pd.DataFrame
    head_to_head: pd.DataFrame
    sweeps: pd.DataFrame
    deals: int
    matches: int

    def write(self, folder: Path) -> None:
        """summary.csv, comparisons.csv, head_to_head.csv and (when the config sweeps)
        sweeps.csv."""
        # a k-way tie gives 1/k of a win: fractional counts, rounded for people
        self.summary.assign(wins=self.summary["wins"].round(3)).to_csv(
            folder / "summary.csv", index=False)
        self.pairs.to_csv(folder / "comparisons.csv", index=False)
        self.head_to_head.to_csv(folder / "head_to_head.csv", index=False)
        if len(self.sweeps):
            self.sweeps.to_csv(folder / "sweeps.csv", index=False)

    def format(self) -> str:
        parts = [format_summary(self.summary)]
        if self.deals != self.matches:
            parts.append(f"  duplicate deals: {self.deals:,} deals x their seat rotations = "
                         f"{self.matches:,} matches; intervals treat each deal as one unit.")
        ratings = ", ".join(
            f"{r.player} {r.rating:.0f} [{r.rating_lo:.0f}, {r.rating_hi:.0f}]"
            for r in self.summary.sort_values("rating", ascending=False).itertuples()
            if np.isfinite(r.rating))
        if ratings:
            parts.append(f"  ratings (Bradley-Terry, Elo scale, 95% interval): {ratings}")
        if len(self.pairs) > 1:
            parts.append(format_pairs(self.pairs))
        players = list(self.summary["player"])
        if 2 < len(players) <= MATRIX_MAX_PLAYERS:
            parts.append("")
            parts.append(format_head_to_head(self.head_to_head, players))
        if len(self.sweeps):
            parts.append("")
            parts.append(format_sweeps(self.sweeps, self.head_to_head))
        return "\n".join(parts)


def analyze(totals: np.ndarray, deals: np.ndarray, players: Sequence[str],
            strategies: Sequence[str], sweeps: Mapping[str, Sequence[str]],
            rounds: int) -> Analysis:
    """The analysis of an in-memory run (totals NaN where a player sat a match out)."""
    summary = summarize_totals(totals, players, strategies, rounds, deals)
    return _finish(summary, np.asarray(totals, dtype=float), list(players), deals, sweeps)


def analyze_results(directory: Path, matches: pd.DataFrame, rounds: pd.DataFrame
                    ) -> Analysis:
    """The analysis of a results directory (its run.json names the sweeps)."""
    summary = summarize(matches, rounds)
    ordered = matches.sort_values("match", kind="stable")
    totals, players = total_matrix(ordered)
    column = "deal" if "deal" in ordered.columns else "match"
    deals = ordered.drop_duplicates("match")[column].to_numpy(dtype=np.int64)
    return _finish(summary, totals, [str(p) for p in players], deals,
                   _sweeps_of(directory / "run.json"))


def _finish(summary: pd.DataFrame, totals: np.ndarray, players: list[str],
            deals: np.ndarray, sweeps: Mapping[str, Sequence[str]]) -> Analysis:
    deals = np.asarray(deals, dtype=np.int64)
    ranked = list(summary["player"])  # best first: the matrix and CSV follow it
    order = [players.index(p) for p in ranked]
    h2h = head_to_head(totals[:, order], ranked, deals)
    pairs = compare_pairs(unit_means(totals, unit_starts(deals)), players, ranked)
    present = {p: [m for m in members if m in players] for p, members in sweeps.items()}
    swept = compare_sweeps(totals, players, deals, {k: v for k, v in present.items() if v})
    return Analysis(summary, pairs, h2h, swept, len(np.unique(deals)), len(totals))


def config_sweeps(players: Sequence[object]) -> dict[str, list[str]]:
    """Sweep name -> its players, from PlayerSpec-like objects (``name``, ``sweep``)."""
    sweeps: dict[str, list[str]] = {}
    for p in players:
        if getattr(p, "sweep", ""):
            sweeps.setdefault(p.sweep, []).append(p.name)
    return sweeps


def _sweeps_of(run_json: Path) -> dict[str, list[str]]:
    try:
        players = json.loads(run_json.read_text())["config"]["players"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    sweeps: dict[str, list[str]] = {}
    for p in players:
        if isinstance(p, dict) and p.get("sweep"):
            sweeps.setdefault(str(p["sweep"]), []).append(str(p["name"]))
    return sweeps
