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
