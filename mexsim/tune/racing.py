"""Racing: stop a trial once it is clearly worse than the best trial so far.

A trial plays its matches in rungs (successive halving's 1/8, 1/4, 1/2 and all of the
trial's matches). At each rung its per-match margins are compared with the best
finished trial's on the very same matches (every trial plays the same deals), and the
trial stops when the paired difference is above zero with one-sided confidence
``RACE_CONFIDENCE``: a strict level, because a trial is looked at up to three times and
a wrongly stopped good trial is lost for good.
"""

from __future__ import annotations

import math

import numpy as np

from mexsim.analysis.stats import CONFIDENCE, normal_upper_quantile, t_quantile

RACE_CONFIDENCE = 0.99
FIRST_RUNG = 8  # the first look after 1/8 of a trial's matches
LEAST_RUNG = 100  # no look at fewer matches: the interval is too rough


def rungs(matches: int, unit: int) -> list[int]:
    """The match counts a trial is looked at, the last its whole size; each a multiple
    of ``unit`` (a table's seat rotations)."""
    looks: list[int] = []
    part = FIRST_RUNG
    while part > 1:
        n = matches // part // unit * unit
        if n >= max(LEAST_RUNG, unit) and (not looks or n > looks[-1]):
            looks.append(n)
        part //= 2
    return [*looks, matches]


def paired_difference(a: np.ndarray, b: np.ndarray) -> tuple[float, float, float]:
    """mean(a - b) over the matches both have, with its two-sided ``CONFIDENCE``
    t interval: (diff, lo, hi); NaN bounds for fewer than two matches."""
    n = min(len(a), len(b))
    d = np.asarray(a[:n], dtype=float) - np.asarray(b[:n], dtype=float)
    if n == 0:
        return math.nan, math.nan, math.nan
    mean = float(d.mean())
    if n < 2:
        return mean, math.nan, math.nan
    half = float(t_quantile(0.5 + CONFIDENCE / 2, n - 1)) * float(d.std(ddof=1)) / math.sqrt(n)
    return mean, mean - half, mean + half


def clearly_worse(trial: np.ndarray, best: np.ndarray) -> bool:
    """Whether ``trial``'s margins are above ``best``'s on the same matches with
    one-sided confidence RACE_CONFIDENCE (lower margins are better)."""
    n = len(trial)
    if n < 2 or len(best) < n:
        return False
    d = np.asarray(trial, dtype=float) - np.asarray(best[:n], dtype=float)
    sd = float(d.std(ddof=1))
    if sd == 0.0:
        return bool(d.mean() > 0)
    z = float(normal_upper_quantile(1 - RACE_CONFIDENCE))
    return bool(d.mean() - z * sd / math.sqrt(n) > 0)
