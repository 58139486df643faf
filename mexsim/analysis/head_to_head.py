"""Head-to-head: for every pair of players, how often A finished ahead of B.

Over the matches both played, A's *share* counts a match where A's total was lower
than B's as 1 and an equal total as 1/2 (R4 ranks ties equally), so share(A, B) +
share(B, A) = 1. The 95 % interval is Wilson's on that (fractional) count when matches
are independent; under duplicate deals it is a t interval over the per-deal shares
(the rotations of one deal are one unit, mexsim/analysis/deals.py), clipped to [0, 1].
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from mexsim.analysis.accumulate import RunStatistics, accumulate
from mexsim.analysis.formatting import fixed_width
from mexsim.analysis.stats import CONFIDENCE, quiet_degenerate, t_interval, wilson_interval

HEAD_TO_HEAD_COLUMNS = [
    "player",
    "opponent",
    "matches",
    "ahead",
    "tied",
    "behind",
    "share",
    "share_lo",
    "share_hi",
]


def head_to_head(
    totals: np.ndarray, players: Sequence[str], deals: np.ndarray | None = None
) -> pd.DataFrame:
    """One row per ordered pair (player, opponent) of different players who met, in
    ``players`` order (columns ``HEAD_TO_HEAD_COLUMNS``), from a (match × player)
    matrix of totals."""
    return head_to_head_table(accumulate(totals, deals), players, range(len(players)))


def head_to_head_table(
    run: RunStatistics, names: Sequence[str], order: Iterable[int]
) -> pd.DataFrame:
    """The head-to-head table from a run's statistics: rows for the players of columns
    ``order`` (in that order), ``names`` the name of each column."""
    order = list(order)
    ahead, tied, met = run.ahead.sum(axis=0), run.tied.sum(axis=0), run.met.sum(axis=0)
    with quiet_degenerate():
        share = (ahead + 0.5 * tied) / met
        if not run.duplicate:
            lo, hi = wilson_interval(ahead + 0.5 * tied, met, CONFIDENCE)
        else:  # the rotations of a deal are one unit: t interval over per-deal shares
            lo, hi, _ = t_interval(run.shares.n.copy(), run.shares.mean, run.shares.var)
            lo, hi = np.clip(lo, 0.0, 1.0), np.clip(hi, 0.0, 1.0)
    lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
    rows = [
        (
            names[a],
            names[b],
            int(met[a, b]),
            int(ahead[a, b]),
            int(tied[a, b]),
            int(met[a, b] - ahead[a, b] - tied[a, b]),
            float(share[a, b]),
            float(lo[a, b]),
            float(hi[a, b]),
        )
        for a in order
        for b in order
        if b != a and met[a, b] > 0
    ]
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
    out.append(
        "head to head: % of shared matches the row player finished ahead of the "
        "column player (a tie counts 1/2); intervals in head_to_head.csv"
    )
    return "\n".join(out)
