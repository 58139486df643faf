"""Comparing players of a pool: deal-adjusted effects (intra-block least squares).

At a full table every player plays every deal, and the paired per-deal difference is
the fair comparison (mexsim/analysis/summary.py). In a pool, A and B share only some deals, and
the rest of the table differs between those: the paired difference over the shared
deals alone answers "when they met", uses a fraction of the data, and need not even
order the players consistently. Instead each deal is a *block*: a player's total at a
deal is modelled as deal effect + player effect + noise,

    y[d, i] = alpha[d] + beta[i] + e[d, i],

and beta is estimated within deals (the deal effects cancel when each total is centred
on its table's mean). This is the classical intra-block analysis of a balanced
incomplete block design — which the pool schedule is (mexsim/tournament/schedule.py). It uses
every deal for every comparison and is transitive. At a full table it reduces exactly to
the mean of the paired differences.

Intervals come from the model's pooled residual variance (t with the residual degrees
of freedom): the equal-variance assumption of the linear model. With strategies of
very different spread (random beside planners) they are approximate.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mexsim.analysis.accumulate import RunStatistics, accumulate
from mexsim.analysis.stats import CONFIDENCE, quiet_degenerate, t_quantile, t_upper_tail


def adjusted_effects(units: np.ndarray | RunStatistics) -> tuple[np.ndarray, np.ndarray, float]:
    """(beta, cov, df): the player effects (summing to 0), their covariance (residual
    variance times the pseudo-inverse of the information matrix) and the residual
    degrees of freedom — from a run's statistics, or from ``units[d, i]``, player i's
    result at deal d (NaN where i sat it out).

    The normal equations are summed deal by deal (mexsim/analysis/accumulate.py): the
    information matrix, the within-deal centred results ``q`` and their sum of squares,
    whose residual part is that sum less beta'q."""
    run = units if isinstance(units, RunStatistics) else accumulate(units)
    info_pinv = np.linalg.pinv(run.info)
    beta = info_pinv @ run.q
    df = run.block_df - (run.players - 1)
    residual = max(run.centred_squares - float(beta @ run.q), 0.0)
    sigma2 = residual / df if df > 0 else np.nan
    return beta, sigma2 * info_pinv, df


def adjusted_differences(
    units: np.ndarray | RunStatistics, columns: np.ndarray, reference: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """beta[c] - beta[reference] for each c of ``columns``, with its t interval and the
    two-sided p-value (H0: no difference)."""
    beta, cov, df = adjusted_effects(units)
    columns = np.asarray(columns)
    diff = beta[columns] - beta[reference]
    var = cov[columns, columns] + cov[reference, reference] - 2 * cov[columns, reference]
    with quiet_degenerate():
        se = np.sqrt(np.maximum(var, 0.0))
        half = t_quantile(0.5 + CONFIDENCE / 2, df) * se if df > 0 else np.nan * se
        p = 2.0 * t_upper_tail(np.abs(diff / se), df) if df > 0 else np.nan * se
    p = np.where(columns == reference, np.nan, p)
    return diff, diff - half, diff + half, p


def skill_measures(run: RunStatistics) -> tuple[float, float, float, float]:
    """How much who plays matters (docs/designers.md): (spread, share, share_lo, share_hi).

    ``spread``: the strongest player's effect minus the weakest's, in points a deal.
    ``share``: theta / (1 + theta), theta = sigma_p² / sigma_e², the variance of the
    players' true effects against the residual variance of a player's deal result
    beyond the deal: the share of that variance explained by who plays. Estimated by
    moments, sum(beta²) less its expected noise (the trace of beta's covariance), and
    clipped at 0; identical players give ≈ 0. Its 95 % interval is the classical one of
    a random-effects ANOVA: F = 1 + n·theta-hat is F(P - 1, df)-distributed up to the
    factor 1 + n·theta, with n the deals a player's effect rests on (exact at a full
    table, where n is the number of deals; in a pool, the effective n from the
    information matrix)."""
    players = run.players
    if players < 2 or run.block_df <= players - 1:
        return (np.nan,) * 4
    beta, cov, df = adjusted_effects(run)
    trace = float(np.trace(cov))
    if not np.isfinite(trace) or trace <= 0:
        return float(beta.max() - beta.min()), np.nan, np.nan, np.nan
    sigma2 = trace / float(np.trace(np.linalg.pinv(run.info)))
    n_eff = (players - 1) * sigma2 / trace
    ratio = float(beta @ beta) / trace  # the F statistic: 1 when players are identical
    from scipy import special

    def share(theta: float) -> float:
        theta = max(theta, 0.0)
        return theta / (1.0 + theta)

    upper = special.fdtri(players - 1, df, 0.5 + CONFIDENCE / 2)
    lower = special.fdtri(players - 1, df, 0.5 - CONFIDENCE / 2)
    return (
        float(beta.max() - beta.min()),
        share((ratio - 1.0) / n_eff),
        share((ratio / upper - 1.0) / n_eff),
        share((ratio / lower - 1.0) / n_eff),
    )


def player_means(run: RunStatistics) -> np.ndarray:
    """Each player's mean per-deal total (NaN for a player without deals)."""
    return np.where(run.totals.n > 0, run.totals.mean, np.nan)


def adjusted_totals(run: RunStatistics) -> np.ndarray:
    """Each player's mean total adjusted for the deals they played: the mean total itself
    when every player played every deal, else the grand mean plus the intra-block player
    effect (above) — what a pool's players are ranked by."""
    if run.complete or run.players < 2:
        return player_means(run)
    beta, _, _ = adjusted_effects(run)
    return run.grand_sum / run.grand_count + beta


def best_first(means: np.ndarray, names: Sequence[str]) -> np.ndarray:
    """Indices of ``means`` lowest first, the name breaking ties, so the order is stable:
    means tie to 1e-6, since gathered block by block they differ from the one-block
    means in the last bits, which must not reorder tied players."""
    return np.lexsort((np.asarray(names, dtype=object).astype(str), np.round(means, 6)))
