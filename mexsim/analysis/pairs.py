"""Every pair of players compared, with p-values corrected for the number of pairs.

The summary tests each player against the best only. With many players a reader also
asks "is the 2nd better than the 3rd?", and testing all P(P-1)/2 pairs at 5 % each would
find some difference by chance. Each pair's difference in total is the summary's
statistic (paired per deal, or deal-adjusted in a pool: mexsim/analysis/summary.py
``differences``); Holm's step-down method (``holm_adjusted``) then holds the chance of any
false "different" among all the pairs at 5 %, with more power than Bonferroni.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from mexsim.analysis.accumulate import RunStatistics, accumulate
from mexsim.analysis.formatting import p_value
from mexsim.analysis.stats import CONFIDENCE, holm_adjusted, quiet_degenerate
from mexsim.analysis.summary import differences

COMPARISON_COLUMNS = [
    "player",
    "opponent",
    "diff",
    "diff_lo",
    "diff_hi",
    "p_value",
    "p_holm",
    "separated",
]


def compare_pairs(
    units: np.ndarray | RunStatistics, players: Sequence[str], ranked: Sequence[str]
) -> pd.DataFrame:
    """One row per pair, the better-ranked player first (``ranked``: best first):
    ``diff`` is how many points the opponent's total is above the player's, with its
    interval and p-value, ``p_holm`` the Holm-adjusted p-value over all pairs, and
    ``separated`` whether the pair differs at 95 % after that correction.

    ``units`` is a run's statistics, or the (deal × player) matrix of per-deal mean
    totals, columns in ``players`` order."""
    run = units if isinstance(units, RunStatistics) else accumulate(units)
    column = {name: i for i, name in enumerate(players)}
    rows = []
    for k, name in enumerate(ranked[:-1]):
        later = np.array([column[o] for o in ranked[k + 1 :]])
        with quiet_degenerate():
            diff, lo, hi, p = differences(run, later, column[name])
        rows += [
            (name, other, diff[j], lo[j], hi[j], p[j]) for j, other in enumerate(ranked[k + 1 :])
        ]
    table = pd.DataFrame(rows, columns=COMPARISON_COLUMNS[:6])
    table["p_holm"] = holm(table["p_value"].to_numpy(dtype=float))
    table["separated"] = table["p_holm"] < 1 - CONFIDENCE
    return table


def holm(p_values: np.ndarray) -> np.ndarray:
    """Holm-adjusted p-values (mexsim/analysis/stats.py ``holm_adjusted``) over the
    finite ones; NaN stays NaN and does not count as a test."""
    adjusted = np.full(len(p_values), np.nan)
    tested = np.isfinite(p_values)
    if tested.any():
        adjusted[tested] = holm_adjusted(p_values[tested])
    return adjusted


def format_pairs(table: pd.DataFrame) -> str:
    """One line: which pairs the run separated, and which it could not."""
    if len(table) == 0:
        return ""
    unseparated = table[~table["separated"]]
    if len(unseparated) == 0:
        return (
            f"  all {len(table)} pairs separated at {CONFIDENCE:.0%} "
            "(Holm-corrected over all pairs; comparisons.csv)"
        )
    listed = ", ".join(
        f"{r.player} vs {r.opponent} ({r.diff:+.2f}, p_holm={p_value(r.p_holm)})"
        for r in unseparated.itertuples(index=False)
    )
    return (
        f"  not separated at {CONFIDENCE:.0%} (Holm-corrected over all {len(table)} pairs; "
        f"comparisons.csv): {listed}"
    )
