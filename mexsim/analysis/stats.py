"""Small statistics shared by the summary, head-to-head and report: the confidence level,
t intervals, Wilson score intervals and Holm-adjusted p-values, quiet in the degenerate
cases (n < 2, or n = 0 for Wilson) that simply give NaN.

``wilson_interval`` and ``holm_adjusted`` replace statsmodels' ``proportion_confint(...,
method="wilson")`` and ``multipletests(..., method="holm")[1]`` (statsmodels 0.14/0.15),
whose import cost more than everything else the summary needs. They follow statsmodels'
arithmetic step by step so that they give the very same floats, hence byte-identical
tables; tests/analysis/test_stats_formulas.py checks them against statsmodels.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
from scipy import special

#: Two-sided confidence level of every interval mexsim reports.
CONFIDENCE = 0.95


# Student's t and the normal distribution from scipy.special, the functions scipy.stats
# evaluates (the same floats: tests/analysis/test_stats_formulas.py): importing
# scipy.stats took 0.4-0.7 s of every `mexsim run`.
def t_quantile(q: Any, df: Any) -> Any:
    """``scipy.stats.t.ppf(q, df)``, its ends (q = 0, 1) and invalid arguments too."""
    q, df = np.asarray(q, dtype=float), np.asarray(df, dtype=float)
    valid = (df > 0) & (q >= 0) & (q <= 1)
    with np.errstate(invalid="ignore"):
        inner = special.stdtrit(df, q)
    out = np.where(valid, np.where(q == 0, -np.inf, np.where(q == 1, np.inf, inner)), np.nan)
    return out[()] if out.ndim == 0 else out


def t_upper_tail(x: Any, df: Any) -> Any:
    """``scipy.stats.t.sf(x, df)``: P(T > x)."""
    x, df = np.asarray(x, dtype=float), np.asarray(df, dtype=float)
    with np.errstate(invalid="ignore"):
        inner = special.stdtr(df, -x)
    out = np.where(df > 0, inner, np.nan)
    return out[()] if out.ndim == 0 else out


def normal_upper_quantile(a: Any) -> Any:
    """``scipy.stats.norm.isf(a)``: the z with P(Z > z) = a."""
    return -special.ndtri(a)


@contextmanager
def quiet_degenerate() -> Iterator[None]:
    """Silence the warnings of degenerate statistics (n = 1, zero variance, n = 0).

    Those cases are expected here and already turn into NaN, which is the answer we want
    (for example a t interval from one match); the warnings would only alarm the user.
    The filter is local so that genuine warnings elsewhere still surface.
    """
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


def t_interval(
    n: np.ndarray, mean: np.ndarray, var: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Student t interval and two-sided p-value (H0: mean = 0) from n, mean and variance.

    n < 2 gives NaN bounds and p-value (``t.ppf`` with 0 degrees of freedom is NaN).
    """
    df = n - 1.0
    df[df < 1] = np.nan
    se = np.sqrt(var / n)
    half = t_quantile(0.5 + CONFIDENCE / 2, df) * se
    p_value = 2.0 * t_upper_tail(np.abs(mean / se), df)
    return mean - half, mean + half, p_value


def wilson_interval(
    successes: np.ndarray | float, n: np.ndarray | float, confidence: float = CONFIDENCE
) -> tuple[np.ndarray, np.ndarray] | tuple[float, float]:
    """Two-sided Wilson score interval for a proportion ``successes / n``, clipped to [0, 1].

    Element-wise over arrays of any (broadcastable) shape; ``successes`` may be fractional
    (a k-way tie counts 1/k of a win). Two scalars give two Python floats, anything else
    two float arrays. ``n = 0`` gives NaN bounds, without a warning; with 0 or ``n``
    successes a bound can miss 0 or 1 by a rounding error (5.6e-17 for 0 of 7), as in
    statsmodels. Half of ``1 - confidence`` lies in each tail. The arithmetic is
    statsmodels' ``proportion_confint(successes, n, alpha=1 - confidence,
    method="wilson")``, step for step, so the floats are identical:

        z = Φ⁻¹(1 - α/2),  q = s / n,  d = 1 + z² / n
        centre = (q + z² / (2n)) / d,  half = z √(q (1 - q) / n + z² / (4 n²)) / d
    """
    scalar = np.isscalar(successes) and np.isscalar(n)
    count = np.asarray(successes, dtype=np.double)
    nobs = np.asarray(n, dtype=np.double)
    alpha = (1 - confidence) / 2.0
    with np.errstate(divide="ignore", invalid="ignore"):
        q = count / nobs
        crit = normal_upper_quantile(alpha)
        crit2 = crit**2
        denom = 1 + crit2 / nobs
        center = (q + crit2 / (2 * nobs)) / denom
        dist = crit * np.sqrt(q * (1.0 - q) / nobs + crit2 / (4.0 * nobs**2))
        dist /= denom
        lo = np.clip(center - dist, 0, 1)
        hi = np.clip(center + dist, 0, 1)
    if scalar:
        return float(lo), float(hi)
    return lo, hi


def holm_adjusted(p_values: np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values, in the order given.

    Sorted ascending, the i-th smallest of m p-values (i = 0, 1, ...) is multiplied by
    m - i; the running maximum makes the result monotone in p, and values above 1 are
    capped at 1. Tied p-values get the same adjusted value. Every entry counts as a test:
    NaN sorts last and, as in statsmodels, leaves itself NaN without touching the smaller
    p-values' results (but it does count in m) — callers that must not count NaN drop it
    first (mexsim/analysis/pairs.py ``holm``). The same floats as statsmodels'
    ``multipletests(p_values, method="holm")[1]``.
    """
    pvals = np.asarray(p_values, dtype=np.double)
    if pvals.ndim != 1:
        raise ValueError("p_values must be one-dimensional")
    order = np.argsort(pvals)
    ranked = np.take(pvals, order)
    adjusted_sorted = np.maximum.accumulate(ranked * np.arange(len(ranked), 0, -1))
    adjusted_sorted[adjusted_sorted > 1] = 1
    adjusted = np.empty_like(adjusted_sorted)
    adjusted[order] = adjusted_sorted
    return adjusted
