"""Ratings: a Bradley–Terry model fitted by maximum likelihood to every pair's results.

Every match says, for each two players at the table, who finished ahead (the lower
total, R4; equal totals count half to each). Bradley–Terry models that as player i
finishing ahead of j with probability π_i / (π_i + π_j); the maximum-likelihood π
(Hunter's MM iteration) are shown on Elo's scale, ``rating = 1500 + 400 log10 π``
centred on 1500, so a difference of D points means finishing ahead of the other in
1 / (1 + 10^(-D/400)) of shared matches — the head-to-head table's statistic, in one
number per player. The ratings therefore agree with the head-to-head shares, and
their uncertainty shrinks with the evidence (openskill's per-match ``tau``, used
before, kept its sigma from shrinking: pairs the paired statistics separated at
p < 1e-300 overlapped by ±3 sigma).

The interval is a grouped jackknife over deals: the deals fall into ``JACKKNIFE_GROUPS``
groups by number, the model is refitted without each group in turn, and the spread of
those fits gives the standard error. Grouping by deal keeps the seat rotations of a
duplicate deal, and the players of one match, in one group, so their correlation is
accounted for. Everything is computed from pair counts per group, which add up block by
block (mexsim/analysis/accumulate.py): no pass in match order, no per-match Python.

Half a pseudo-game each way between every two players who met keeps the estimate finite
when one player finished ahead of another in every shared match.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from mexsim.analysis.accumulate import RunStatistics, accumulate
from mexsim.analysis.stats import CONFIDENCE, t_quantile

RATING_COLUMNS = ["player", "rating", "rating_sigma", "rating_lo", "rating_hi"]
ELO_BASE = 1500.0
ELO_SCALE = 400.0 / np.log(10.0)  # rating points per unit of log-strength
PSEUDO_GAMES = 0.5  # each way, between two players who met
MAX_ITERATIONS = 10_000
TOLERANCE = 1e-10  # on log-strengths


def fit_strengths(score: np.ndarray, met: np.ndarray) -> np.ndarray:
    """Log-strengths (mean 0) of the Bradley–Terry model from pair totals (P × P)."""
    prior = np.where(met > 0, PSEUDO_GAMES, 0.0)
    wins = (score + prior).sum(axis=1)
    games = met + 2 * prior
    np.fill_diagonal(games, 0.0)
    played = games.sum(axis=1) > 0
    log_p = np.zeros(len(wins))
    p = np.ones(len(wins))
    for _ in range(MAX_ITERATIONS):
        denominator = (games / (p[:, None] + p[None, :])).sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            new = np.where(played, np.log(wins / denominator), 0.0)
        new -= new[played].mean() if played.any() else 0.0
        converged = np.max(np.abs(new - log_p)) < TOLERANCE
        log_p, p = new, np.exp(new)
        if converged:
            break
    return np.where(played, log_p, np.nan)


def rate(
    totals: np.ndarray, players: Sequence[str], deals: np.ndarray | None = None
) -> pd.DataFrame:
    """Bradley–Terry ratings (Elo scale) with jackknife intervals over deals, from a
    (match × player) matrix of totals (NaN: absent), one row per player in ``players``
    order (columns ``RATING_COLUMNS``). ``deals[m]`` is match m's deal (default: m)."""
    return ratings_from_statistics(accumulate(totals, deals), players)


def ratings_from_statistics(run: RunStatistics, players: Sequence[str]) -> pd.DataFrame:
    """The ratings from a run's pair counts per jackknife group
    (mexsim/analysis/accumulate.py)."""
    return ratings_from_counts(run.ahead + 0.5 * run.tied, run.met, players, run.deals)


def ratings_from_counts(
    score: np.ndarray, met: np.ndarray, players: Sequence[str], n_deals: int
) -> pd.DataFrame:
    """The ratings table from per-group pair counts (see :func:`pair_counts`)."""
    total_score, total_met = score.sum(axis=0), met.sum(axis=0)
    rating = ELO_BASE + ELO_SCALE * fit_strengths(total_score, total_met)
    used = [g for g in range(len(score)) if met[g].any()]
    sigma = np.full(len(players), np.nan)
    if len(used) >= 2 and n_deals >= 2:
        leave_out = (
            np.array([fit_strengths(total_score - score[g], total_met - met[g]) for g in used])
            * ELO_SCALE
        )
        k = len(used)
        sigma = np.sqrt((k - 1) / k * ((leave_out - leave_out.mean(axis=0)) ** 2).sum(axis=0))
    half = t_quantile(0.5 + CONFIDENCE / 2, max(len(used) - 1, 1)) * sigma
    return pd.DataFrame(
        {
            "player": list(players),
            "rating": rating,
            "rating_sigma": sigma,
            "rating_lo": rating - half,
            "rating_hi": rating + half,
        }
    )


def expected_share(rating_difference: float | np.ndarray) -> float | np.ndarray:
    """The share of shared matches a player rated ``rating_difference`` points above
    another is expected to finish ahead in (ties counting 1/2)."""
    return 1.0 / (1.0 + 10.0 ** (-np.asarray(rating_difference) / 400.0))
