"""Small statistics shared by the summary, head-to-head and report: the confidence level
and t intervals, quiet in the degenerate cases (n < 2) that simply give NaN."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
from scipy import stats

#: Two-sided confidence level of every interval mexsim reports.
CONFIDENCE = 0.95


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
    half = stats.t.ppf(0.5 + CONFIDENCE / 2, df) * se
    p_value = 2.0 * stats.t.sf(np.abs(mean / se), df)
    return mean - half, mean + half, p_value
