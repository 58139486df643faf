"""The comparison table of a results directory: who wins, by how much, and how sure we are.

``summarize`` turns ``matches.parquet`` (one row per match × player) and ``rounds.parquet``
(one row per match × round × player) into one row per player; ``summarize_totals`` does
the same from the in-memory (match × player) totals of a run; ``format_summary`` prints
it for the terminal; ``load_results`` reads a results directory (INTERFACE.md, "Results
directory").

Statistics, all at 95 %:

- ``win_rate`` is the player's share of the matches won, with a Wilson score interval
  (``statsmodels.stats.proportion.proportion_confint``). A k-way tie for the lowest total
  gives each of the k players ``1/k`` of a win (the ``win`` column), so ``wins`` is
  fractional and the interval is computed on that fractional count — the shares of all
  players then sum to one match per match. The Wilson interval is defined for every
  ``matches >= 1``, so it stays finite even for a single match.
- ``mean_total`` is the mean match total with a Student t interval.
- ``diff_vs_best`` is the mean of ``total(player) - total(best)`` over the matches both
  played, where *best* is the player with the lowest mean total. Every player plays the
  same matches (same deals), so the difference is *paired*: the luck of the deal, shared
  by everyone at the table, cancels and the interval is much narrower than comparing two
  independent means. Its t interval and the paired t-test p-value (H0: no difference)
  come with it; the best player itself has 0, [0, 0] and a NaN p-value.

With a single match no variance can be estimated: the t intervals and p-values are NaN
(no warning is raised). Everything is vectorised over a match × player matrix of totals,
so ten million match rows take seconds.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

#: Two-sided confidence level of every interval in the summary.
CONFIDENCE = 0.95

#: The columns of ``summarize``'s result, in order (a superset of summary.csv's).
SUMMARY_COLUMNS = [
    "player", "strategy", "matches", "wins", "win_rate", "win_rate_lo", "win_rate_hi",
    "mean_total", "mean_total_lo", "mean_total_hi", "mean_round_penalty",
    "diff_vs_best", "diff_vs_best_lo", "diff_vs_best_hi", "diff_p_value",
]


@contextmanager
def _quiet_degenerate() -> Iterator[None]:
    """Silence the warnings of degenerate statistics (n = 1, zero variance, n = 0).

    Those cases are expected here and already turn into NaN, which is the answer we want
    (for example a t interval from one match); the warnings would only alarm the user.
    The filter is local so that genuine warnings elsewhere still surface.
    """
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


def _t_interval(
    n: np.ndarray, mean: np.ndarray, var: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Student t interval and two-sided p-value (H0: mean = 0) from n, mean and variance.

    n < 2 gives NaN bounds and p-value (``t.ppf`` with 0 degrees of freedom is NaN).
    """
    df = n - 1.0
    df[df < 1] = np.nan
    se = np.sqrt(var / n)
    half = stats.t.ppf(0.5 + CONFIDENCE / 2, df) * se
    p_value = 2.0 * stats.t.sf(np.abs(mean / se), df)
    return mean - half, mean + half, p_value


def _column_moments(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-column count, mean and sample variance (ddof 1) of a matrix, ignoring NaN.

    Done by hand rather than with ``np.nanvar`` so that n = 1 quietly gives NaN and the
    two passes (mean, then squared deviations) stay accurate where E[x²] - E[x]² would not.
    """
    present = ~np.isnan(values)
    n = present.sum(axis=0).astype(float)
    filled = np.where(present, values, 0.0)
    mean = filled.sum(axis=0) / n
    dev = np.where(present, values - mean, 0.0)
    var = (dev * dev).sum(axis=0) / (n - 1.0)
    var[n < 2] = np.nan
    return n, mean, var


def _empty_summary() -> pd.DataFrame:
    frame = pd.DataFrame({column: pd.Series(dtype=float) for column in SUMMARY_COLUMNS})
    frame["player"] = frame["player"].astype(object)
    frame["strategy"] = frame["strategy"].astype(object)
    frame["matches"] = frame["matches"].astype(np.int64)
    return frame


def _pivot(matches: pd.DataFrame) -> tuple[np.ndarray, pd.Index, np.ndarray]:
    """Totals as a (match × player) matrix, the column players, and each row's column."""
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
    return totals.reshape(n_matches, n_players), players, player_codes


def total_matrix(matches: pd.DataFrame) -> tuple[np.ndarray, pd.Index]:
    """The match totals as a (match × player) float matrix, NaN where a player sat out.

    Returns the matrix and the players of its columns (in order of first appearance).
    Built with ``factorize`` and one fancy-index assignment instead of ``pivot``: it is
    O(rows) and does not materialise a MultiIndex, which matters at ten million rows.
    Raises ``ValueError`` if a (match, player) pair appears twice.
    """
    totals, players, _ = _pivot(matches)
    return totals, players


def _mean_penalty(rounds: pd.DataFrame | None, players: pd.Index) -> np.ndarray:
    """Mean ``penalty`` per player over their rounds rows, aligned to ``players``."""
    if rounds is None or len(rounds) == 0:
        return np.full(len(players), np.nan)
    # Group on the column as stored (categorical codes are fast; casting 100 M rows to
    # object would not be) and align by name afterwards.
    penalty = rounds.groupby("player", observed=True, sort=False)["penalty"].mean()
    penalty.index = pd.Index(np.asarray(penalty.index, dtype=object))
    return penalty.reindex(players).to_numpy(dtype=float)


def summarize(matches: pd.DataFrame, rounds: pd.DataFrame | None) -> pd.DataFrame:
    """One row per player comparing the strategies (columns ``SUMMARY_COLUMNS``).

    ``matches`` needs ``match``, ``player``, ``strategy``, ``total`` and ``win``;
    ``rounds`` needs ``player`` and ``penalty`` (``None`` leaves ``mean_round_penalty``
    NaN). Rows are sorted by ``mean_total`` ascending (ties by player name), so the first
    row is the best player, against whom ``diff_vs_best`` is measured. See the module
    docstring for the statistics.
    """
    if len(matches) == 0:
        return _empty_summary()
    totals, players, player_codes = _pivot(matches)
    first_row = np.unique(player_codes, return_index=True)[1]
    strategies = np.asarray(matches["strategy"].iloc[first_row], dtype=object)
    wins = np.bincount(player_codes, weights=matches["win"].to_numpy(dtype=float),
                       minlength=len(players))
    return _summary_from_matrix(totals, players, strategies, wins,
                                _mean_penalty(rounds, players))


def summarize_totals(totals: np.ndarray, players: Sequence[str], strategies: Sequence[str],
                     rounds: int) -> pd.DataFrame:
    """``summarize`` straight from a complete (match × player) matrix of match totals.

    For ``mexsim run``, which holds the totals in memory and need not read the Parquet
    files back. Wins are derived from the totals as the run derives the ``win`` column
    (a k-way tie for the lowest total: 1/k each). Every player plays every one of the
    ``rounds`` rounds of every match and the round penalties add up to the total, so the
    mean penalty per round is exactly ``mean_total / rounds``. Gives the same table as
    ``summarize`` on the written results.
    """
    values = np.asarray(totals, dtype=float)
    if values.ndim != 2 or values.shape[1] != len(players) or len(players) != len(strategies):
        raise ValueError("totals must be (matches × players) with one name and strategy each")
    if values.shape[0] == 0:
        return _empty_summary()
    winners = values == values.min(axis=1, keepdims=True)
    wins = (winners / winners.sum(axis=1, keepdims=True)).sum(axis=0)
    summary = _summary_from_matrix(values, pd.Index(list(players), dtype=object),
                                   np.asarray(strategies, dtype=object), wins,
                                   np.full(len(players), np.nan))
    summary["mean_round_penalty"] = summary["mean_total"] / rounds
    return summary


def _summary_from_matrix(totals: np.ndarray, players: pd.Index, strategies: np.ndarray,
                         wins: np.ndarray, mean_penalty: np.ndarray) -> pd.DataFrame:
    """The statistics of ``summarize`` from the (match × player) totals (NaN: absent)."""
    with _quiet_degenerate():
        n, mean_total, var_total = _column_moments(totals)
        total_lo, total_hi, _ = _t_interval(n, mean_total, var_total)
        n_obs = n.astype(np.int64)
        win_lo, win_hi = proportion_confint(wins, n_obs, alpha=1 - CONFIDENCE,
                                            method="wilson")
        win_rate = wins / n_obs

        # Lowest mean total first; the name breaks exact ties so the order is stable.
        order = np.lexsort((np.asarray(players.astype(str)), mean_total))
        best = order[0]
        diffs = totals - totals[:, [best]]  # NaN where either player sat the match out
        _, diff, diff_var = _column_moments(diffs)
        n_pairs = (~np.isnan(diffs)).sum(axis=0).astype(float)
        diff_lo, diff_hi, diff_p = _t_interval(n_pairs, diff, diff_var)
    # The best player against itself: exactly zero, with nothing to test.
    diff[best], diff_lo[best], diff_hi[best], diff_p[best] = 0.0, 0.0, 0.0, np.nan

    summary = pd.DataFrame({
        "player": players.to_numpy(dtype=object),
        "strategy": strategies,
        "matches": n_obs,
        "wins": wins,
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
    })
    return summary.iloc[order].reset_index(drop=True)[SUMMARY_COLUMNS]


def _num(value: float, digits: int = 1, sign: bool = False) -> str:
    if value is None or not math.isfinite(value):
        return "n/a"
    return f"{value:+.{digits}f}" if sign else f"{value:.{digits}f}"


def _p_value(p: float) -> str:
    if p is None or not math.isfinite(p):
        return ""
    if p == 0.0:  # underflow: far below anything that matters
        return "<1e-300"
    return f"{p:.1e}" if p < 1e-3 else f"{p:.3f}"


def format_summary(summary: pd.DataFrame) -> str:
    """``summarize``'s result as a fixed-width table for the terminal.

    Columns: player (``*`` marks the best), strategy, matches, win share in % with its
    95 % interval, mean total ± the half-width of its interval, mean penalty per round,
    and the paired difference from the best player with its interval and p-value.
    """
    header = ["", "player", "strategy", "matches", "win %", "[95% CI]",
              "mean total", "± 95%", "pen/round", "vs best", "[95% CI]", "p"]
    right = {"matches", "win %", "mean total", "± 95%", "pen/round", "vs best", "p"}
    # The best player is the first with the lowest mean total (row 0 of ``summarize``'s
    # order, but found again so a re-sorted summary is still marked right).
    best = int(np.nanargmin(summary["mean_total"].to_numpy(dtype=float))) if (
        len(summary) and summary["mean_total"].notna().any()) else -1
    rows = []
    for i, row in enumerate(summary.itertuples(index=False)):
        half = (row.mean_total_hi - row.mean_total_lo) / 2
        if i == best:
            vs_best, vs_ci, p = "best", "", ""
        else:
            vs_best = _num(row.diff_vs_best, sign=True)
            lo, hi = _num(row.diff_vs_best_lo, sign=True), _num(row.diff_vs_best_hi, sign=True)
            vs_ci = "n/a" if lo == hi == "n/a" else f"[{lo}, {hi}]"
            p = _p_value(row.diff_p_value)
        rows.append([
            "*" if i == best else "", str(row.player), str(row.strategy), f"{row.matches:,}",
            _num(100 * row.win_rate),
            f"[{_num(100 * row.win_rate_lo)}, {_num(100 * row.win_rate_hi)}]",
            _num(row.mean_total, 2), _num(half, 2), _num(row.mean_round_penalty, 2),
            vs_best, vs_ci, p,
        ])
    widths = [max(len(r[c]) for r in [header, *rows]) for c in range(len(header))]

    def line(cells: list[str]) -> str:
        parts = [
            cell.rjust(w) if name in right else cell.ljust(w)
            for cell, w, name in zip(cells, widths, header, strict=True)
        ]
        return "  ".join(parts).rstrip()

    out = [line(header), line(["-" * w for w in widths])]
    out += [line(r) for r in rows]
    out.append("")
    out.append("* best = lowest mean total. win % counts a k-way tie as 1/k of a win "
               "(Wilson interval).")
    out.append("  vs best = paired per-match difference in total (t interval, paired t-test p).")
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
    matches = pd.read_parquet(paths["matches"])
    rounds = pd.read_parquet(paths["rounds"], columns=rounds_columns)
    return matches, rounds
