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
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from mexsim.analysis.accumulate import RunStatistics, accumulate
from mexsim.analysis.designer import designer_table, format_designer
from mexsim.analysis.formatting import number
from mexsim.analysis.head_to_head import format_head_to_head, head_to_head_table
from mexsim.analysis.pairs import compare_pairs, format_pairs
from mexsim.analysis.summary import (
    format_summary,
    summary_table,
)
from mexsim.analysis.sweeps import compare_sweeps, format_sweeps

if TYPE_CHECKING:
    from mexsim.analysis.results_stream import ResultsDigest

VARIANTS_FILE = "variants.csv"
MATRIX_MAX_PLAYERS = 12  # wider head-to-head matrices go to the CSV only


@dataclass(frozen=True)
class Analysis:
    summary: pd.DataFrame
    pairs: pd.DataFrame
    head_to_head: pd.DataFrame
    sweeps: pd.DataFrame
    deals: int
    matches: int
    # the designer's facts per rule variant (mexsim/analysis/designer.py): variants.csv
    variants: pd.DataFrame | None = None
    seats: int = 0

    def write(self, folder: Path) -> None:
        """summary.csv, comparisons.csv, head_to_head.csv and (when the config sweeps)
        sweeps.csv."""
        # a k-way tie gives 1/k of a win: fractional counts, rounded for people
        self.summary.assign(wins=self.summary["wins"].round(3)).to_csv(
            folder / "summary.csv", index=False
        )
        self.pairs.to_csv(folder / "comparisons.csv", index=False)
        self.head_to_head.to_csv(folder / "head_to_head.csv", index=False)
        if len(self.sweeps):
            self.sweeps.to_csv(folder / "sweeps.csv", index=False)
        if self.variants is not None:
            self.variants.to_csv(folder / VARIANTS_FILE, index=False)

    def format(self) -> str:
        parts = [format_summary(self.summary)]
        said = plain_words(self.summary, self.head_to_head, self.pairs)
        if said:
            parts.insert(0, said)
        disagreement = best_disagrees(self.summary, self.head_to_head)
        if disagreement:
            parts.append(disagreement)
        if self.variants is not None and len(self.variants) > 1:
            parts.insert(
                0,
                f"Players under the baseline rules, variant {self.variants['variant'].iloc[0]!r} "
                "(the variants are compared below):",
            )
        if self.deals != self.matches:
            parts.append(
                f"  duplicate deals: {self.deals:,} deals x their seat rotations = "
                f"{self.matches:,} matches; intervals treat each deal as one unit."
            )
        ratings = ", ".join(
            f"{r.player} {number(r.rating, 0)} [{number(r.rating_lo, 0)}, {number(r.rating_hi, 0)}]"
            for r in self.summary.sort_values("rating", ascending=False).itertuples()
            if np.isfinite(r.rating)
        )
        if ratings:
            parts.append(f"  ratings (Bradley-Terry, Elo scale, 95% interval): {ratings}")
        if self.variants is not None and len(self.variants) == 1:
            parts.append(format_designer(self.variants, self.seats))
        if len(self.pairs) > 1:
            parts.append(format_pairs(self.pairs))
        players = list(self.summary["player"])
        if 2 < len(players) <= MATRIX_MAX_PLAYERS:
            parts.append("")
            parts.append(format_head_to_head(self.head_to_head, players))
        if len(self.sweeps):
            parts.append("")
            parts.append(format_sweeps(self.sweeps, self.head_to_head))
        if self.variants is not None and len(self.variants) > 1:
            parts.append(format_designer(self.variants, self.seats))
        return "\n".join(parts)


PLAIN_MOST = 4  # sentences before "and N more": the others are in the table below


def plain_words(summary: pd.DataFrame, head_to_head: pd.DataFrame, pairs: pd.DataFrame) -> str:
    """The comparison in plain words, one sentence for each other player against the
    best: how many points a match apart, the 95 % interval, how often the
    best finished ahead; "cannot tell apart" where the run's verdict (Holm over every
    pair, comparisons.csv) does not separate them."""
    if len(summary) < 2:
        return ""
    best = summary.iloc[0]
    ahead = {(r.player, r.opponent): r.share for r in head_to_head.itertuples(index=False)}
    separated = {}
    for r in pairs.itertuples(index=False):
        separated[(r.player, r.opponent)] = separated[(r.opponent, r.player)] = r.separated
    lines = []
    for r in summary.iloc[1 : 1 + PLAIN_MOST].itertuples(index=False):
        diff, lo, hi = r.diff_vs_best, r.diff_vs_best_lo, r.diff_vs_best_hi
        if not np.isfinite(diff):
            continue
        share = ahead.get((best["player"], r.player))
        often = (
            f", and finishes ahead in {100 * share:.0f} % of their shared matches"
            if share is not None and np.isfinite(share)
            else ""
        )
        if separated.get((best["player"], r.player), False):
            lines.append(
                f"{best['player']} scores {number(diff, 1)} fewer points a match than "
                f"{r.player} (95 % sure: between {number(lo, 1)} and {number(hi, 1)})"
                f"{often}."
            )
        else:
            lines.append(
                f"{best['player']} and {r.player} cannot be told apart yet: "
                f"{number(diff, 1)} points a match (95 %: {number(lo, 1, True)} to "
                f"{number(hi, 1, True)}){often}; more matches would tell."
            )
    more = len(summary) - 1 - PLAIN_MOST
    if more > 0:
        lines.append(f"({more} more player{'s' if more > 1 else ''} in the table below.)")
    return "\n".join(lines) + "\n" if lines else ""


def best_disagrees(summary: pd.DataFrame, head_to_head: pd.DataFrame) -> str:
    """Why the best can trail another player on screen (a pool's `*` best
    trailed the runner-up in head to head, win % and raw mean, with no word why): a
    line for each player that finished ahead of the best in more than half their
    shared matches (the interval above 50 %)."""
    if len(summary) < 2 or not len(head_to_head):
        return ""
    best = str(summary.iloc[0]["player"])
    pooled = bool((summary["adjusted_total"] != summary["mean_total"]).any())
    lines = []
    for r in head_to_head.itertuples(index=False):
        if r.opponent != best or not r.share_lo > 0.5:
            continue
        lines.append(
            f"  why {best} is best although {r.player} finished ahead of it in "
            f"{100 * r.share:.1f} % [{100 * r.share_lo:.1f}, {100 * r.share_hi:.1f}] of "
            "their shared matches: the ranking is by points (the mean total"
            + (
                ", adjusted for the deals: in a pool the players met different tables, "
                "so raw means, win % and ratings compare them on different deals"
                if pooled
                else ""
            )
            + f"); {r.player} wins more often by small margins and loses by more."
        )
    return "\n".join(lines)


def analyze(
    totals: np.ndarray,
    deals: np.ndarray,
    players: Sequence[str],
    strategies: Sequence[str],
    sweeps: Mapping[str, Sequence[str]],
    rounds: int,
) -> Analysis:
    """The analysis of an in-memory run (totals NaN where a player sat a match out)."""
    return analyze_statistics(
        accumulate(totals, deals),
        players,
        strategies,
        sweeps,
        np.full(len(players), np.nan),
        rounds,
    )


def analyze_statistics(
    run: RunStatistics,
    players: Sequence[str],
    strategies: Sequence[str],
    sweeps: Mapping[str, Sequence[str]],
    mean_penalty: np.ndarray,
    rounds: int | None = None,
) -> Analysis:
    """The analysis from a run's statistics, gathered block by block as ``mexsim run``
    plays (mexsim/analysis/accumulate.py). Without per-round penalties (``mean_penalty``
    NaN), ``rounds`` gives the mean penalty per round as mean total / rounds."""
    names = pd.Index(list(players), dtype=object)
    summary = summary_table(run, names, np.asarray(strategies, dtype=object), mean_penalty)
    if rounds is not None and np.isnan(mean_penalty).all():
        summary["mean_round_penalty"] = summary["mean_total"] / rounds
    ranked = list(summary["player"])  # best first: the matrix and CSV follow it
    order = [list(players).index(p) for p in ranked]
    h2h = head_to_head_table(run, list(players), order)
    pairs = compare_pairs(run, list(players), ranked)
    present = {p: [m for m in members if m in players] for p, members in sweeps.items()}
    swept = compare_sweeps(run, list(players), None, {k: v for k, v in present.items() if v}, pairs)
    designer = run.designer
    variants = None if designer is None else designer_table(designer)
    seats = 0 if designer is None else designer.seats
    return Analysis(summary, pairs, h2h, swept, run.deals, run.matches, variants, seats)


def analyze_results(
    directory: Path, matches: pd.DataFrame, rounds: pd.DataFrame | None
) -> Analysis:
    """The analysis of a results directory's tables in memory (its run.json names the
    sweeps); :func:`analyze_directory` streams the files instead."""
    from mexsim.analysis.results_stream import digest_tables

    return analyze_digest(digest_tables(matches, rounds), _sweeps_of(directory / "run.json"))


def analyze_digest(digest: ResultsDigest, sweeps: Mapping[str, Sequence[str]]) -> Analysis:
    """The analysis of a results directory streamed into a digest
    (mexsim/analysis/results_stream.py)."""
    return analyze_statistics(
        digest.run, digest.players, digest.strategies, sweeps, digest.mean_round_penalty()
    )


def analyze_directory(directory: Path) -> tuple[Analysis, ResultsDigest]:
    """Stream a results directory and analyse it (its run.json names the sweeps)."""
    from mexsim.analysis.results_stream import read_results

    digest = read_results(directory)
    if digest.run.designer is not None:
        digest.run.designer.rules = _variant_rules(directory / "run.json")
    return analyze_digest(digest, _sweeps_of(directory / "run.json")), digest


def config_sweeps(players: Sequence[Any]) -> dict[str, list[str]]:
    """Sweep name -> its players, from PlayerSpec-like objects (``name``, ``sweep``)."""
    sweeps: dict[str, list[str]] = {}
    for p in players:
        if getattr(p, "sweep", ""):
            sweeps.setdefault(p.sweep, []).append(p.name)
    return sweeps


def analyze_run(config: Any, statistics: RunStatistics) -> Analysis:
    """The comparison of a run of ``config`` (a tournament Config) from its statistics,
    as ``mexsim run`` writes it beside the results."""
    return analyze_statistics(
        statistics,
        [p.name for p in config.players],
        [p.strategy for p in config.players],
        config_sweeps(config.players),
        np.full(len(config.players), np.nan),
        config.rules.rounds,
    )


def _variant_rules(run_json: Path) -> list[str]:
    """Each rule variant's changes in words, from run.json (none without variants)."""
    from mexsim.tournament.variants import describe_changes

    try:
        variants = json.loads(run_json.read_text())["config"].get("variants", [])
        return [describe_changes(v["changes"]) for v in variants]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return []


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
