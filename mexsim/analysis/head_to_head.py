"""Head-to-head: for every pair of players, how often A finished ahead of B.

Over the matches both played, A's *share* counts a match where A's total was lower
than B's as 1 and an equal total as 1/2 (R4 ranks ties equally), so share(A, B) +
share(B, A) = 1. The 95 % interval is Wilson's on that (fractional) count when matches
are independent; under duplicate deals it is a t interval over the per-deal shares
(the rotations of one deal are one unit, mexsim/analysis/deals.py), clipped to [0, 1].
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from mexsim.analysis.deals import unit_means, unit_starts
from mexsim.analysis.formatting import fixed_width
from mexsim.analysis.stats import CONFIDENCE, column_moments, quiet_degenerate, t_interval

HEAD_TO_HEAD_COLUMNS = ["player", "opponent", "matches", "ahead", "tied", "behind",
                        "share", "share_lo", "share_hi"]


def head_to_head(totals: np.ndarray, players: Sequence[str],
                 deals: np.ndarray | None = None) -> pd.DataFrame:
    """One row per ordered pair (player, opponent) of different players who met, in
    ``players`` order (columns ``HEAD_TO_HEAD_COLUMNS``)."""
    from statsmodels.stats.proportion import proportion_confint


    values = np.asarray(totals, dtype=float)
    starts = unit_starts(np.arange(len(values)) if deals is None else deals)
    rows = []
    for a, name in enumerate(players):
        mine = values[:, [a]]
        both = ~np.isnan(mine) & ~np.isnan(values)
        ahead = (both & (mine < values)).sum(axis=0)
        tied = (both & (mine == values)).sum(axis=0)
        met = both.sum(axis=0)
        score = np.where(both, (mine < values) + 0.5 * (mine == values), np.nan)
        with quiet_degenerate():
            share = (ahead + 0.5 * tied) / met
            if starts is None:
                lo, hi = proportion_confint(ahead + 0.5 * tied, met, alpha=1 - CONFIDENCE,
                                            method="wilson")
            else:
                n, mean, var = column_moments(unit_means(score, starts))
                lo, hi, _ = t_interval(n, mean, var)
                lo, hi = np.clip(lo, 0.0, 1.0), np.clip(hi, 0.0, 1.0)
        for b, other in enumerate(players):
            if b != a and met[b] > 0:
                rows.append((name, other, int(met[b]), int(ahead[b]), int(tied[b]),
                             int(met[b] - ahead[b] - tied[b]), float(share[b]),
                             float(np.asarray(lo)[b]), float(np.asarray(hi)[b])))
    return pd.DataFrame(rows, columns=HEAD_TO_HEAD_COLUMNS)


def format_head_to_head(table: pd.DataFrame, players: Sequence[str]) -> str:
    """The shares as a matrix for the terminal: row player ahead of column player, in %,
    players numbered in ``players`` order (the summary's, best first)."""
    number = {name: i + 1 for i, name in enumerate(players)}
    share = {(r.player, r.opponent): r.share for r in table.itertuples(index=False)}
    header = ["", "player"] + [str(i + 1) for i in range(len(players))]
    rows = []
    for a in players:
        cells = [str(number[a]), str(a)]
        for b in players:
            value = share.get((a, b))
            cells.append("-" if a == b or value is None else f"{100 * value:.1f}")
        rows.append(cells)
    out = fixed_width(header, rows, left=[1])  # the player's name
    out.append("head to head: % of shared matches the row player finished ahead of the "
               "column player (a tie counts 1/2); intervals in head_to_head.csv")
    return "\n".join(out)
