"""The comparison table of a results directory: who wins, by how much, and how sure we are.

``summarize`` turns ``matches.parquet`` (one row per match × player) and ``rounds.parquet``
(one row per match × round × player) into one row per player; ``summarize_totals`` does
the same from the in-memory (match × player) totals of a run; ``format_summary`` prints
it for the terminal; ``load_results`` reads a results directory (docs/interface.md, "Results
directory").

Statistics, all at 95 %. The unit is the *deal* (mexsim/analysis/deals.py): each match, or under
duplicate deals the seat rotations of one deal averaged into one paired unit.

- ``win_rate`` is the player's share of the matches won, with a Wilson score interval
  (``wilson_interval`` in mexsim/analysis/stats.py). A k-way tie for the lowest total
  gives each of the k players ``1/k`` of a win (the ``win`` column), so ``wins`` is
  fractional and the interval is computed on that fractional count — the shares of all
  players then sum to one match per match. The Wilson interval is defined for every
  ``matches >= 1``, so it stays finite even for a single match. Under duplicate deals
  the matches of a deal are not independent: the interval is a t interval over the
  per-deal win shares instead, clipped to [0, 1].
- ``mean_total`` is the mean match total with a Student t interval (over deals).
- ``diff_vs_best`` is the mean of ``total(player) - total(best)`` over the deals both
  played, where *best* is the player with the lowest mean total. Players at one table
  play the same deals, so the difference is *paired*: the luck of the deal, shared by
  everyone at the table, cancels and the interval is much narrower than comparing two
  independent means. Its t interval and the paired t-test p-value (H0: no difference)
  come with it; the best player itself has 0, [0, 0] and a NaN p-value.
- In a pool (or whenever players did not all play the same deals) a pair shares only
  some deals, with different tables around them: players are then ranked by
  ``adjusted_total`` — the grand mean plus the intra-block least-squares player effect,
  deals as blocks (mexsim/analysis/adjusted.py) — and ``diff_vs_best`` is the difference of those
  effects with the model's t interval. Without a pool ``adjusted_total`` is
  ``mean_total`` and everything is as above.
- ``rating``, ``rating_sigma``, ``rating_lo``, ``rating_hi``: Bradley–Terry ratings on
  Elo's scale from every pair's results, with a jackknife interval over deals
  (mexsim/analysis/ratings.py).

With a single match no variance can be estimated: the t intervals and p-values are NaN
(no warning is raised). Everything is vectorised over a match × player matrix of
totals (NaN where a player of a pool sat a match out), so ten million match rows take
seconds.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from mexsim.analysis.accumulate import RunStatistics, accumulate
from mexsim.analysis.adjusted import (
    adjusted_differences,
    adjusted_totals,
    best_first,
    player_means,
)
from mexsim.analysis.formatting import MISSING, fixed_width, number, p_value
from mexsim.analysis.ratings import ratings_from_statistics
from mexsim.analysis.stats import CONFIDENCE, quiet_degenerate, t_interval, wilson_interval

#: The columns of ``summarize``'s result, in order (a superset of summary.csv's).
SUMMARY_COLUMNS = [
    "player",
    "strategy",
    "matches",
    "wins",
    "win_rate",
    "win_rate_lo",
    "win_rate_hi",
    "mean_total",
    "mean_total_lo",
    "mean_total_hi",
    "mean_round_penalty",
    "diff_vs_best",
    "diff_vs_best_lo",
    "diff_vs_best_hi",
    "diff_p_value",
    "deals",
    "adjusted_total",
    "rating",
    "rating_sigma",
    "rating_lo",
    "rating_hi",
]
RATING_FIELDS = ["rating", "rating_sigma", "rating_lo", "rating_hi"]
#: added after ``SUMMARY_COLUMNS`` when the run is luck-adjusted (docs/luck.md)
LUCK_COLUMNS = [
    "luck_adjusted_total",
    "luck_adjusted_diff_vs_best",
    "luck_adjusted_diff_vs_best_lo",
    "luck_adjusted_diff_vs_best_hi",
]


def _empty_summary() -> pd.DataFrame:
    frame = pd.DataFrame({column: pd.Series(dtype=float) for column in SUMMARY_COLUMNS})
    frame["player"] = frame["player"].astype(object)
    frame["strategy"] = frame["strategy"].astype(object)
    frame["matches"] = frame["matches"].astype(np.int64)
    return frame


def _pivot(matches: pd.DataFrame) -> tuple[np.ndarray, pd.Index, np.ndarray, np.ndarray]:
    """Totals as a (match × player) matrix, the column players, each row's column, and
    each row's match row (matrix rows in order of first appearance)."""
    match_codes, match_ids = pd.factorize(matches["match"], sort=False)
    player_codes, players = pd.factorize(matches["player"], sort=False)
    if (player_codes < 0).any():
        raise ValueError("matches has rows without a player")
    n_matches, n_players = len(match_ids), len(players)
    flat = match_codes.astype(np.int64) * n_players + player_codes
    if np.bincount(flat, minlength=n_matches * n_players).max(initial=0) > 1:
        raise ValueError("matches has more than one row for some (match, player) pair")
    totals = np.full(n_matches * n_players, np.nan)
    totals[flat] = matches["total"].to_numpy(dtype=float)
    players = pd.Index(np.asarray(players, dtype=object))
    return totals.reshape(n_matches, n_players), players, player_codes, match_codes


def _deals_of(matches: pd.DataFrame, match_codes: np.ndarray, n_matches: int) -> np.ndarray:
    """Each matrix row's deal (the ``deal`` column; results without one: the match)."""
    column = "deal" if "deal" in matches.columns else "match"
    deals = np.empty(n_matches, dtype=np.int64)
    deals[match_codes] = matches[column].to_numpy(dtype=np.int64)
    return deals


def total_matrix(matches: pd.DataFrame) -> tuple[np.ndarray, pd.Index]:
    """The match totals as a (match × player) float matrix, NaN where a player sat out.

    Returns the matrix and the players of its columns (in order of first appearance).
    Built with ``factorize`` and one fancy-index assignment instead of ``pivot``: it is
    O(rows) and does not materialise a MultiIndex, which matters at ten million rows.
    Raises ``ValueError`` if a (match, player) pair appears twice.
    """
    totals, players, _, _ = _pivot(matches)
    return totals, players


def mean_round_penalty(rounds: pd.DataFrame | None, players: pd.Index) -> np.ndarray:
    """Mean ``penalty`` per player over their rounds rows, aligned to ``players``."""
    if rounds is None or len(rounds) == 0:
        return np.full(len(players), np.nan)
    # Group on the column as stored (categorical codes are fast; casting 100 M rows to
    # object would not be) and align by name afterwards.
    penalty = rounds.groupby("player", observed=True, sort=False)["penalty"].mean()
    penalty.index = pd.Index(np.asarray(penalty.index, dtype=object))
    return penalty.reindex(players).to_numpy(dtype=float)


def summarize(
    matches: pd.DataFrame, rounds: pd.DataFrame | None, ratings: bool = True
) -> pd.DataFrame:
    """One row per player comparing the strategies (columns ``SUMMARY_COLUMNS``).

    ``matches`` needs ``match``, ``player``, ``strategy``, ``total`` and ``win`` (and
    ``deal`` under duplicate deals); ``rounds`` needs ``player`` and ``penalty``
    (``None`` leaves ``mean_round_penalty`` NaN). Rows are sorted by ``mean_total``
    ascending (ties by player name), so the first row is the best player, against whom
    ``diff_vs_best`` is measured (in a pool: by ``adjusted_total``). See the module
    docstring for the statistics;
    ``ratings=False`` leaves the rating columns NaN.
    """
    if len(matches) == 0:
        return _empty_summary()
    matches = _by_match(matches)
    totals, players, player_codes, match_codes = _pivot(matches)
    first_row = np.unique(player_codes, return_index=True)[1]
    strategies = np.asarray(matches["strategy"].iloc[first_row], dtype=object)
    deals = _deals_of(matches, match_codes, len(totals))
    return summary_table(
        accumulate(totals, deals), players, strategies, mean_round_penalty(rounds, players), ratings
    )


def _by_match(matches: pd.DataFrame) -> pd.DataFrame:
    """Rows in match order (a deal's matches must be contiguous for its unit means)."""
    order = matches["match"].to_numpy()
    if len(order) > 1 and np.any(order[1:] < order[:-1]):
        return matches.sort_values("match", kind="stable")
    return matches


def summarize_totals(
    totals: np.ndarray,
    players: Sequence[str],
    strategies: Sequence[str],
    rounds: int,
    deals: np.ndarray | None = None,
    ratings: bool = True,
) -> pd.DataFrame:
    """``summarize`` straight from a (match × player) matrix of match totals (NaN where a
    player of a pool sat a match out) and each match's deal (default: its own).

    For ``mexsim run``, which holds the totals in memory and need not read the Parquet
    files back. Wins are derived from the totals as the run derives the ``win`` column
    (a k-way tie for the lowest total: 1/k each). Every player at a table plays every
    one of the ``rounds`` rounds and the round penalties add up to the total, so the
    mean penalty per round is exactly ``mean_total / rounds``. Gives the same table as
    ``summarize`` on the written results.
    """
    values = np.asarray(totals, dtype=float)
    if values.ndim != 2 or values.shape[1] != len(players) or len(players) != len(strategies):
        raise ValueError("totals must be (matches × players) with one name and strategy each")
    if values.shape[0] == 0:
        return _empty_summary()
    summary = summary_table(
        accumulate(values, deals),
        pd.Index(list(players), dtype=object),
        np.asarray(strategies, dtype=object),
        np.full(len(players), np.nan),
        ratings,
    )
    summary["mean_round_penalty"] = summary["mean_total"] / rounds
    return summary


def differences(
    run: RunStatistics, columns: np.ndarray, reference: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each column's difference in total from ``reference``, with its t interval and
    p-value: paired per deal when every player played every deal, else deal-adjusted
    (mexsim/analysis/adjusted.py)."""
    columns = np.asarray(columns)
    if not run.complete:
        return adjusted_differences(run, columns, reference)
    pairs = run.pairs
    with quiet_degenerate():
        mean = np.where(pairs.n[reference, columns] > 0, pairs.mean[reference, columns], np.nan)
        lo, hi, p = t_interval(
            pairs.n[reference, columns].copy(), mean, pairs.var[reference, columns]
        )
    return mean, lo, hi, p


def summary_table(
    run: RunStatistics,
    players: pd.Index,
    strategies: np.ndarray,
    mean_penalty: np.ndarray,
    ratings: bool = True,
) -> pd.DataFrame:
    """The summary (columns ``SUMMARY_COLUMNS``, best first) from a run's statistics
    (mexsim/analysis/accumulate.py) and the per-player extras."""
    n_matches = run.player_matches.astype(np.int64)
    with quiet_degenerate():
        mean_total = player_means(run)
        total_lo, total_hi, _ = t_interval(run.totals.n.copy(), mean_total, run.totals.var)
        win_rate = run.win_sum / n_matches
        if not run.duplicate:
            win_lo, win_hi = wilson_interval(run.win_sum, n_matches, CONFIDENCE)
        else:  # a deal's rotations are one unit: t interval on the per-deal win shares
            win_lo, win_hi, _ = t_interval(run.wins.n.copy(), run.wins.mean, run.wins.var)
            win_lo, win_hi = np.clip(win_lo, 0.0, 1.0), np.clip(win_hi, 0.0, 1.0)

    # Without a pool the adjusted total is the mean total itself.
    adjusted = adjusted_totals(run)
    order = best_first(adjusted, players)
    best = order[0]
    diff, diff_lo, diff_hi, diff_p = differences(run, np.arange(len(players)), best)
    # The best player against itself: exactly zero, with nothing to test.
    diff[best], diff_lo[best], diff_hi[best], diff_p[best] = 0.0, 0.0, 0.0, np.nan

    summary = pd.DataFrame(
        {
            "player": players.to_numpy(dtype=object),
            "strategy": strategies,
            "matches": n_matches,
            "wins": run.win_sum,
            "win_rate": win_rate,
            "win_rate_lo": np.asarray(win_lo, dtype=float),
            "win_rate_hi": np.asarray(win_hi, dtype=float),
            "mean_total": mean_total,
            "mean_total_lo": total_lo,
            "mean_total_hi": total_hi,
            "mean_round_penalty": mean_penalty,
            "diff_vs_best": diff,
            "diff_vs_best_lo": diff_lo,
            "diff_vs_best_hi": diff_hi,
            "diff_p_value": diff_p,
            "deals": run.totals.n.astype(np.int64),
            "adjusted_total": adjusted,
        }
    )
    rated = ratings_from_statistics(run, list(summary["player"])) if ratings else None
    for column in RATING_FIELDS:
        summary[column] = rated[column].to_numpy() if rated is not None else np.nan
    columns = SUMMARY_COLUMNS
    if run.luck_adjusted is not None:
        # the same comparison of the luck-adjusted totals, against the same best player
        # (the raw ranking's), so that each row's two differences answer one question
        luck = run.luck_adjusted
        summary["luck_adjusted_total"] = adjusted_totals(luck)
        ldiff, llo, lhi, _ = differences(luck, np.arange(len(players)), best)
        ldiff[best], llo[best], lhi[best] = 0.0, 0.0, 0.0
        summary["luck_adjusted_diff_vs_best"] = ldiff
        summary["luck_adjusted_diff_vs_best_lo"] = llo
        summary["luck_adjusted_diff_vs_best_hi"] = lhi
        columns = SUMMARY_COLUMNS + LUCK_COLUMNS
    return summary.iloc[order].reset_index(drop=True)[columns]


def format_summary(summary: pd.DataFrame) -> str:
    """``summarize``'s result as a fixed-width table for the terminal.

    Columns: player (``*`` marks the best), strategy, matches, win share in % with its
    95 % interval, mean total ± the half-width of its interval, mean penalty per round,
    and the paired difference from the best player with its interval and p-value.
    """
    pooled = "adjusted_total" in summary.columns and not np.allclose(
        summary["adjusted_total"].to_numpy(dtype=float),
        summary["mean_total"].to_numpy(dtype=float),
        equal_nan=True,
    )
    header = [
        "",
        "player",
        "strategy",
        "matches",
        "win %",
        "[95% CI]",
        "mean total",
        "± 95%",
        "pen/round",
        "vs best",
        "[95% CI]",
        "p",
    ]
    if pooled:
        header.insert(8, "adjusted")
    luck = "luck_adjusted_diff_vs_best" in summary.columns
    if luck:
        header += ["luck-adj.", "[95% CI]"]
    right = {
        "matches",
        "win %",
        "mean total",
        "± 95%",
        "pen/round",
        "vs best",
        "p",
        "adjusted",
        "luck-adj.",
    }
    # The best player is the first with the lowest mean total (row 0 of ``summarize``'s
    # order, but found again so a re-sorted summary is still marked right).
    rank_by = "adjusted_total" if pooled else "mean_total"
    best = (
        int(np.nanargmin(summary[rank_by].to_numpy(dtype=float)))
        if (len(summary) and summary[rank_by].notna().any())
        else -1
    )
    rows = []
    for i, row in enumerate(summary.itertuples(index=False)):
        half = (row.mean_total_hi - row.mean_total_lo) / 2
        if i == best:
            vs_best, vs_ci, p = "best", "", ""
        else:
            vs_best = number(row.diff_vs_best, sign=True)
            lo, hi = number(row.diff_vs_best_lo, sign=True), number(row.diff_vs_best_hi, sign=True)
            vs_ci = MISSING if lo == hi == MISSING else f"[{lo}, {hi}]"
            p = p_value(row.diff_p_value, missing="")
        cells = [
            "*" if i == best else "",
            str(row.player),
            str(row.strategy),
            f"{row.matches:,}",
            number(100 * row.win_rate),
            f"[{number(100 * row.win_rate_lo)}, {number(100 * row.win_rate_hi)}]",
            number(row.mean_total, 2),
            number(half, 2),
            number(row.mean_round_penalty, 2),
            vs_best,
            vs_ci,
            p,
        ]
        if pooled:
            cells.insert(8, number(row.adjusted_total, 2))
        if luck:
            if i == best:
                cells += ["best", ""]
            else:
                lo = number(row.luck_adjusted_diff_vs_best_lo, sign=True)
                hi = number(row.luck_adjusted_diff_vs_best_hi, sign=True)
                cells += [
                    number(row.luck_adjusted_diff_vs_best, sign=True),
                    MISSING if lo == hi == MISSING else f"[{lo}, {hi}]",
                ]
        rows.append(cells)
    out = fixed_width(header, rows, [i for i, name in enumerate(header) if name not in right])
    out.append("")
    # the interval summarize_statistics computed: under duplicate deals a deal's seat
    # rotations are one unit (the footnote said Wilson there too)
    duplicate = "deals" in summary.columns and bool(
        (summary["deals"].to_numpy() < summary["matches"].to_numpy()).any()
    )
    win_interval = (
        "t interval over deals, a deal's seat rotations one unit"
        if duplicate
        else "Wilson interval"
    )
    if pooled:
        out.append(
            "* best = lowest adjusted total: a pool's players did not all play the same "
            "deals, so totals are adjusted for the deal"
        )
        out.append(
            "  (intra-block least squares); vs best = difference of adjusted totals "
            "(t interval and p from that model)."
        )
        out.append(f"  win % counts a k-way tie as 1/k of a win ({win_interval}).")
    else:
        out.append(
            "* best = lowest mean total. win % counts a k-way tie as 1/k of a win "
            f"({win_interval})."
        )
        out.append("  vs best = paired per-deal difference in total (t interval, paired t-test p).")
    if luck:
        out.append(
            "  luck-adj. = the same difference of luck-adjusted totals (total minus "
            "the luck of the deals and draws, docs/luck.md)."
        )
    return "\n".join(out)


def load_results(
    directory: str | Path, rounds_columns: list[str] | None = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Read ``matches.parquet`` and ``rounds.parquet`` of a results directory.

    ``rounds.parquet`` may be one file or a directory of part files. ``rounds_columns``
    reads only those columns of it (the rounds table is the big one; ``summarize`` needs
    just ``player`` and ``penalty``). Raises ``FileNotFoundError`` naming a missing file.
    """
    directory = Path(directory)
    paths = {name: directory / f"{name}.parquet" for name in ("matches", "rounds")}
    for path in paths.values():
        if not path.exists():
            raise FileNotFoundError(f"{path}: not found (is {directory} a results directory?)")
    # pyarrow itself, so that every page's checksum is verified: pd.read_parquet given
    # the same option read a rounds.parquet with a flipped byte without a word
    matches = pq.read_table(paths["matches"], page_checksum_verification=True).to_pandas()
    rounds = pq.read_table(
        paths["rounds"], columns=rounds_columns, page_checksum_verification=True
    ).to_pandas()
    return matches, rounds
