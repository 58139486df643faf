"""Parameter sweeps: which value of a swept parameter is best, and is it significantly so.

A config parameter given as a list (``params = { pip_weight = [0.0, 0.5, 1.0] }``)
becomes one player per value (mexsim/tournament/config.py). Here each sweep's players are compared
with the sweep's best (lowest mean total) by the paired per-deal difference in total —
the same statistic as the summary's ``diff_vs_best``, restricted to the sweep (in a
pool: the deal-adjusted totals and differences of mexsim/analysis/adjusted.py) — so the
answer reads "0.5 is best; 1.0 is +1.3 [+0.8, +1.9] points worse, p = 1e-6".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from mexsim.analysis.accumulate import RunStatistics, accumulate
from mexsim.analysis.adjusted import adjusted_totals, best_first
from mexsim.analysis.formatting import number, p_value
from mexsim.analysis.stats import CONFIDENCE
from mexsim.analysis.summary import differences

SWEEP_COLUMNS = [
    "sweep",
    "player",
    "value",
    "matches",
    "adjusted_total",
    "diff_vs_sweep_best",
    "diff_lo",
    "diff_hi",
    "diff_p_value",
    "best",
    "method",
    "p_holm",
    "separated",
]


def compare_sweeps(
    totals: np.ndarray | RunStatistics,
    players: Sequence[str],
    deals: np.ndarray | None,
    sweeps: Mapping[str, Sequence[str]],
    pairs: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """One row per swept player (columns ``SWEEP_COLUMNS``), each sweep best first.

    ``sweeps`` maps a sweep's name to its players' names (as in ``players``, the
    columns of the match × player ``totals``, or of a run's statistics). ``pairs``:
    the run's every-pair comparison (mexsim/analysis/pairs.py), whose Holm-corrected
    verdict the sweep takes for each value against the sweep's best (``p_holm``,
    ``separated``), so that a sweep never says "significant" of a pair that
    comparisons.csv calls "not separated". Without it, Holm over the
    sweep's own comparisons with its best."""
    run = totals if isinstance(totals, RunStatistics) else accumulate(totals, deals)
    column = {name: i for i, name in enumerate(players)}
    means_all = adjusted_totals(run)
    method = "paired" if run.complete else "deal-adjusted"
    rows = []
    for sweep, members in sweeps.items():
        cols = np.array([column[m] for m in members])
        means = means_all[cols]
        order = best_first(means, members)  # tied players in the same order however split
        best = int(cols[order[0]])
        diff, lo, hi, p = differences(run, cols, best)
        for k in order:
            is_best = cols[k] == best
            rows.append(
                (
                    sweep,
                    members[k],
                    _value(sweep, members[k]),
                    int(run.player_matches[cols[k]]),
                    float(means[k]),
                    0.0 if is_best else float(diff[k]),
                    0.0 if is_best else float(lo[k]),
                    0.0 if is_best else float(hi[k]),
                    np.nan if is_best else float(p[k]),
                    bool(is_best),
                    method,
                )
            )
    table = pd.DataFrame(rows, columns=SWEEP_COLUMNS[:-2])
    table["p_holm"] = _holm_of(table, pairs)
    table["separated"] = (table["p_holm"] < 1 - CONFIDENCE) & ~table["best"]
    return table


def _holm_of(table: pd.DataFrame, pairs: pd.DataFrame | None) -> np.ndarray:
    """Each row's Holm-adjusted p-value against its sweep's best: the run's family of
    every pair when given, else the sweeps' own comparisons."""
    if not len(table):
        return np.empty(0)
    if pairs is None or not len(pairs):
        from mexsim.analysis.pairs import holm

        return holm(table["diff_p_value"].to_numpy(dtype=float))
    adjusted = {}
    for r in pairs.itertuples(index=False):
        adjusted[(r.player, r.opponent)] = adjusted[(r.opponent, r.player)] = r.p_holm
    best = table[table["best"]].set_index("sweep")["player"]
    return np.array(
        [
            np.nan if r.best else adjusted.get((best[r.sweep], r.player), np.nan)
            for r in table.itertuples(index=False)
        ],
        dtype=float,
    )


def _value(sweep: str, player: str) -> str:
    """The swept values in a player's name: "lt[pip_weight=0.5]" -> "pip_weight=0.5"."""
    inner = player[len(sweep) :]
    return inner[1 : inner.index("]")] if inner.startswith("[") and "]" in inner else player


def range_edge(values: Sequence[str], best: str) -> str | None:
    """Advice when the best of a sweep of one number ("w=0.5") lies at the edge of the
    values swept (three or more): the best may lie beyond it."""
    parsed = []
    for v in values:
        name, sep, number_text = str(v).partition("=")
        if not sep or "," in number_text:
            return None
        try:
            parsed.append((name, float(number_text)))
        except ValueError:
            return None
    if len(parsed) < 3 or len({name for name, _ in parsed}) != 1:
        return None
    name, at = parsed[list(values).index(best)]
    numbers = [x for _, x in parsed]
    if at not in (min(numbers), max(numbers)):
        return None
    side = "highest" if at == max(numbers) else "lowest"
    return (
        f"the best value is the {side} swept ({best}): the best may lie beyond it; "
        f"widen the range of {name}"
    )


def format_sweeps(table: pd.DataFrame, head_to_head: pd.DataFrame | None = None) -> str:
    """Each sweep's verdict: the best value, and every other value's difference in total
    from it with its interval, p-value and whether it is significant — and, given the
    head-to-head table, how often it finished ahead of the best value.

    The two answer different questions: the difference is "by how many points, on
    average", the share "how often ahead". A value can finish ahead more often by small
    margins yet lose more points on average when it loses, so one can be significant
    and the other not; the lines say which is which."""
    share = (
        {}
        if head_to_head is None
        else {(r.player, r.opponent): r for r in head_to_head.itertuples(index=False)}
    )
    out = []
    for sweep, rows in table.groupby("sweep", sort=False):
        best = rows[rows["best"]].iloc[0]
        others = rows[~rows["best"]]
        adjusted = "method" in rows and rows["method"].iloc[0] == "deal-adjusted"
        label = "adjusted total (pool: deal-adjusted)" if adjusted else "mean total"
        out.append(
            f"sweep {sweep}: best {best['value']} ({label} {number(best['adjusted_total'], 2)})"
        )
        for r in others.itertuples(index=False):
            if hasattr(r, "separated"):  # the run's one verdict (comparisons.csv's)
                verdict = f", p_holm={p_value(r.p_holm)} -> " + (
                    "separated" if r.separated else "not separated"
                )
            else:
                significant = r.diff_p_value < 1 - CONFIDENCE
                verdict = " -> " + ("significant" if significant else "not significant")
            line = (
                f"  {r.value}: {number(r.diff_vs_sweep_best, 2, sign=True)} "
                f"[{number(r.diff_lo, 2, sign=True)}, {number(r.diff_hi, 2, sign=True)}]"
                f" points worse, p={p_value(r.diff_p_value)}{verdict} at {CONFIDENCE:.0%}"
            )
            h2h = share.get((r.player, best["player"])) if share else None
            if h2h is not None:
                ahead = not (h2h.share_lo <= 0.5 <= h2h.share_hi)
                line += (
                    f"; ahead of {best['value']} in {100 * h2h.share:.1f} % "
                    f"[{100 * h2h.share_lo:.1f}, {100 * h2h.share_hi:.1f}] of shared "
                    "matches" + (" (differs from 50 %)" if ahead else "")
                )
            out.append(line)
        if len(others):
            runner_up = others.iloc[0]
            better = (
                bool(runner_up["separated"])
                if "separated" in runner_up
                else runner_up["diff_p_value"] < 1 - CONFIDENCE
            )
            verdict = "separated from" if better else "not separated from"
            out.append(
                f"  the best value is {verdict} the next best ({runner_up['value']}) in points"
            )
        edge = range_edge(list(rows["value"]), str(best["value"]))
        if edge:
            out.append(f"  {edge}")
    if len(table):
        out.append(
            "  (intervals and p: each value against the best alone; the verdict: Holm over "
            "every pair of the run, as comparisons.csv says it"
            + (
                "; points: the average difference in total; % ahead: how often it finished "
                "ahead; they can disagree when margins differ)"
                if share
                else ")"
            )
        )
    return "\n".join(out)
