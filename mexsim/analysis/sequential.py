"""Stop when decided: anytime-valid comparisons that may be looked at after every block.

A fixed-size confidence interval checked after every block and acted on as soon as it
excludes zero is wrong far more often than 5 %: each look is another chance. A
*confidence sequence* is a sequence of intervals, one per number of deals, that holds
at every number of deals at once with probability 1 - alpha, so a run may stop at any
look the data suggest. We use the asymptotic confidence sequence of Waudby-Smith,
Arnold, Wu, McAuliffe and Ramdas ("Time-uniform central limit theory and asymptotic
confidence sequences", 2024): around the running mean of n paired per-deal
differences with sample standard deviation s, the half-width is

    s * sqrt( 2 (n rho² + 1) / (n² rho²) * log( sqrt(n rho² + 1) / alpha ) ),

with rho² chosen so that it is tightest near ``TARGET_DEALS`` deals. It is valid for
any distribution with a finite variance (asymptotically, as the paired t interval is).

The question a run answers: is the best player (lowest mean total) *separated* from
every other player (the interval for the other's difference lies above zero), or,
for those it cannot separate, are they *equivalent* within ``margin`` points (the
interval lies inside [-margin, +margin])? The run is decided when every other player
is one or the other. The intervals of all pairs hold simultaneously (alpha is split
over the pairs, Bonferroni), so a data-dependent choice of the best is covered too.

The sums behind it (per pair: deals both played, sum and sum of squares of the
difference) are updated block by block with three matrix products: memory and time
per block do not grow with the run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

TARGET_DEALS = 10_000  # the boundary is tightest around here
MIN_DEALS = 30  # no verdict from fewer deals per pair: the variance is not yet known
DEFAULT_MARGIN = 1.0  # points of match total within which two players count as equal


def half_width(n: np.ndarray, sd: np.ndarray, alpha: float,
               target: int = TARGET_DEALS) -> np.ndarray:
    """The asymptotic confidence sequence's half-width after n observations."""
    log_term = -2.0 * np.log(alpha)
    rho2 = (log_term + np.log(log_term + 1.0)) / target
    n = np.asarray(n, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        radius = np.sqrt(2.0 * (n * rho2 + 1.0) / (n * n * rho2)
                         * np.log(np.sqrt(n * rho2 + 1.0) / alpha))
        return np.where(n >= 1, sd * radius, np.inf)


@dataclass(frozen=True)
class Verdict:
    """Where a sequential comparison stands after some deals."""

    decided: bool
    best: str
    deals: int
    # per player other than the best: "separated", "equivalent" or "open", and the
    # confidence sequence's current interval for (its total - the best's)
    states: dict[str, str]
    intervals: dict[str, tuple[float, float]]

    def describe(self) -> str:
        parts = [f"{name}: {state} [{lo:+.2f}, {hi:+.2f}]"
                 for (name, state), (lo, hi) in zip(self.states.items(),
                                                    self.intervals.values(), strict=True)]
        head = "decided" if self.decided else "not yet decided"
        return f"{head} after {self.deals:,} deals; best {self.best}; " + "; ".join(parts)


class SequentialComparison:
    """Running paired statistics of every pair of players, fed (deal × player) blocks of
    per-deal mean totals (NaN where a player sat a deal out)."""

    def __init__(self, players: Sequence[str], confidence: float = 0.95,
                 margin: float = DEFAULT_MARGIN) -> None:
        if not 0 < confidence < 1:
            raise ValueError(f"confidence {confidence} must be between 0 and 1")
        if not margin >= 0:
            raise ValueError(f"margin {margin} must be a number >= 0")
        self.players = list(players)
        self.margin = margin
        p = len(self.players)
        self.alpha = (1 - confidence) / max(p * (p - 1) // 2, 1)  # every pair at once
        self.count = np.zeros((p, p))  # deals both played
        self.total = np.zeros(p)  # sum of each player's per-deal totals
        self.seen = np.zeros(p)  # deals each player played
        self.sums = np.zeros((p, p))  # sum over rows of x_a * present_b
        self.squares = np.zeros((p, p))  # sum of x_a² * present_b
        self.cross = np.zeros((p, p))  # sum of x_a * x_b
        self.deals = 0

    def add(self, units: np.ndarray) -> None:
        """Fold in a block of whole deals (rows) of per-deal mean totals."""
        values = np.asarray(units, dtype=float)
        present = ~np.isnan(values)
        x = np.where(present, values, 0.0)
        m = present.astype(float)
        self.count += m.T @ m
        self.total += x.sum(axis=0)
        self.seen += m.sum(axis=0)
        self.sums += x.T @ m
        self.squares += (x * x).T @ m
        self.cross += x.T @ x
        self.deals += len(values)

    def difference(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per ordered pair (a, b): deals both played, the mean and the sample standard
        deviation of (total of b - total of a) over them."""
        n = self.count
        with np.errstate(divide="ignore", invalid="ignore"):
            total = self.sums.T - self.sums  # sum of x_b - x_a where both played
            square = self.squares + self.squares.T - 2 * self.cross
            mean = total / n
            var = (square - n * mean * mean) / (n - 1)
        return n, mean, np.sqrt(np.maximum(var, 0.0))

    def verdict(self) -> Verdict:
        """The best player so far and, for every other, whether it is separated from
        the best, equivalent to it within the margin, or still open."""
        with np.errstate(divide="ignore", invalid="ignore"):
            means = np.where(self.seen > 0, self.total / self.seen, np.inf)
        best = int(np.argmin(means))
        n, mean, sd = self.difference()
        states, intervals = {}, {}
        decided = self.deals > 0
        for other in range(len(self.players)):
            if other == best:
                continue
            pairs = n[best, other]
            half = half_width(pairs, sd[best, other], self.alpha)
            lo, hi = mean[best, other] - half, mean[best, other] + half
            if pairs < MIN_DEALS or not np.isfinite(half):
                state = "open"
            elif lo > 0:
                state = "separated"
            elif -self.margin < lo and hi < self.margin:
                state = "equivalent"
            else:
                state = "open"
            decided &= state != "open"
            states[self.players[other]] = state
            intervals[self.players[other]] = (float(lo), float(hi))
        return Verdict(bool(decided), self.players[best], self.deals, states, intervals)
