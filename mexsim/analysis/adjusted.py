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
from scipy import stats

from mexsim.analysis.stats import CONFIDENCE, quiet_degenerate


def adjusted_effects(units: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """(beta, cov, df): the player effects (summing to 0), their covariance (residual
    variance times the pseudo-inverse of the information matrix) and the residual
    degrees of freedom. ``units[d, i]`` is player i's result at deal d, NaN where i
    sat it out."""
    present = ~np.isnan(units)
    k = present.sum(axis=1)
    keep = k >= 2  # a deal with one player compares nobody
    units, present, k = units[keep], present[keep], k[keep]
    m = present.astype(float)
    filled = np.where(present, units, 0.0)
    row_mean = filled.sum(axis=1) / k
    centred = np.where(present, units - row_mean[:, None], 0.0)
    q = centred.sum(axis=0)
    info = np.diag(m.sum(axis=0)) - (m / k[:, None]).T @ m
    info_pinv = np.linalg.pinv(info)
    beta = info_pinv @ q
    fitted = np.where(present, beta[None, :] - ((m @ beta) / k)[:, None], 0.0)
    residual = centred - fitted
    n_players = units.shape[1]
    df = float((k - 1).sum() - (n_players - 1))
    sigma2 = float((residual ** 2).sum() / df) if df > 0 else np.nan
    return beta, sigma2 * info_pinv, df


def adjusted_differences(units: np.ndarray, columns: np.ndarray, reference: int
                         ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """beta[c] - beta[reference] for each c of ``columns``, with its t interval and the
    two-sided p-value (H0: no difference)."""
    beta, cov, df = adjusted_effects(units)
    columns = np.asarray(columns)
    diff = beta[columns] - beta[reference]
    var = cov[columns, columns] + cov[reference, reference] - 2 * cov[columns, reference]
    with quiet_degenerate():
        se = np.sqrt(np.maximum(var, 0.0))
        half = stats.t.ppf(0.5 + CONFIDENCE / 2, df) * se if df > 0 else np.nan * se
        p = 2.0 * stats.t.sf(np.abs(diff / se), df) if df > 0 else np.nan * se
    p = np.where(columns == reference, np.nan, p)
    return diff, diff - half, diff + half, p
