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

The moments behind it (per pair: deals both played, mean and squared deviations of
the difference) are the run's statistics, gathered block by block
(mexsim/analysis/accumulate.py): memory and time per block do not grow with the run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from mexsim.analysis.accumulate import RunStatistics
from mexsim.analysis.adjusted import adjusted_totals, best_first

TARGET_DEALS = 10_000  # the boundary is tightest around here
MIN_DEALS = 30  # no verdict from fewer deals per pair: the variance is not yet known
DEFAULT_MARGIN = 1.0  # points of match total within which two players count as equal


def half_width(
    n: np.ndarray, sd: np.ndarray, alpha: float, target: int = TARGET_DEALS
) -> np.ndarray:
    """The asymptotic confidence sequence's half-width after n observations."""
    log_term = -2.0 * np.log(alpha)
    rho2 = (log_term + np.log(log_term + 1.0)) / target
    n = np.asarray(n, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        radius = np.sqrt(
            2.0 * (n * rho2 + 1.0) / (n * n * rho2) * np.log(np.sqrt(n * rho2 + 1.0) / alpha)
        )
        return np.where(n >= 1, sd * radius, np.inf)


@dataclass(frozen=True)
class Verdict:
    """Where a sequential comparison stands after some deals."""

    decided: bool
    best: str
    deals: int
    # per player other than the best, in rank order (best first): "separated",
    # "equivalent" or "open", and the confidence sequence's current interval for (its
    # total - the best's)
    states: dict[str, str]
    intervals: dict[str, tuple[float, float]]
    # the mean differences the intervals are around (the players' table shows them
    # with its t intervals), and the confidence
    differences: dict[str, float] = field(default_factory=dict)
    confidence: float = 0.95
    # not every player at every deal (a pool): a pair's difference and interval are over
    # the deals the two shared, where the table's differences are deal-adjusted
    pool: bool = False
    # judged on the luck-adjusted totals ([analysis] luck): its best and differences are
    # the table's luck-adjusted column's, not its mean totals'
    luck: bool = False

    def describe(self, cap: int | None = None) -> str:
        """One paragraph: decided or not, after how many deals (it looks once a block),
        and for each other player, in rank order, its difference from the best with the
        sequential interval, labelled as such (the table beside it shows a
        narrower t interval for the same pair). ``cap``: the run played all of
        run.matches, this many, rather than being stopped by the verdict."""
        parts = []
        for name, state in self.states.items():
            lo, hi = self.intervals[name]
            diff = self.differences.get(name)
            if diff is None or not np.isfinite(diff):  # no deal shared with the best yet
                parts.append(f"{name} {state} (no deal shared with the best yet)")
            elif not (np.isfinite(lo) and np.isfinite(hi)):
                parts.append(f"{name} {diff:+.2f} points, {state} (too few deals for an interval)")
            else:
                parts.append(f"{name} {diff:+.2f} points, {state} [{lo:+.2f}, {hi:+.2f}]")
        after = f"after {self.deals:,} deal{'' if self.deals == 1 else 's'}"
        if cap is None:
            head = f"{'decided' if self.decided else 'not yet decided'} {after}"
            head += " (it looks once per block of matches)"
        elif self.decided:
            head = f"decided {after}: run.matches ({cap:,} matches) reached"
        else:
            head = (
                f"not decided {after}: run.matches ({cap:,} matches) reached; a run of more "
                "matches (run.matches or --matches) would tell more"
            )
        sequential = f"sequential {self.confidence:.0%} intervals"
        if self.pool:
            label = (
                "differences over the deals each shared with the best, where the table's "
                f"are deal-adjusted; {sequential}, valid at every look"
            )
        else:
            label = (
                f"{sequential}: valid at every look, so wider than the table's t intervals "
                "for the same differences"
            )
        if self.luck:
            label = "on the luck-adjusted totals, the table's luck-adj. column; " + label
        return f"{head}; best {self.best}; " + "; ".join(parts) + f" ({label})"


def verdict(
    run: RunStatistics,
    players: Sequence[str],
    confidence: float = 0.95,
    margin: float = DEFAULT_MARGIN,
) -> Verdict:
    """Where a run stands: the best player so far (lowest mean per-deal total) and, for
    every other, whether it is separated from the best, equivalent to it within
    ``margin`` points, or still open — from the statistics gathered block by block
    (mexsim/analysis/accumulate.py: per pair, the moments of the per-deal difference).

    A luck-adjusted run (``[analysis] luck = true``) is judged on its luck-adjusted
    totals: the same means in expectation, with the luck of the draws taken out
    (docs/luck.md)."""
    luck = run.luck_adjusted is not None
    if run.luck_adjusted is not None:  # (mypy narrows this, not ``luck``)
        run = run.luck_adjusted
    if not 0 < confidence < 1:
        raise ValueError(f"confidence {confidence} must be between 0 and 1")
    if not margin >= 0:
        raise ValueError(f"margin {margin} must be a number >= 0")
    p = len(players)
    alpha = (1 - confidence) / max(p * (p - 1) // 2, 1)  # every pair at once
    # the table's order (summary.py): a pool's players by their deal-adjusted totals,
    # which the deals each happened to play cannot reverse as they can raw means
    with np.errstate(divide="ignore", invalid="ignore"):
        adjusted = adjusted_totals(run) if run.deals > 0 else np.zeros(p)
    means = np.where(run.totals.n > 0, adjusted, np.inf)
    order = [int(k) for k in best_first(means, players)]
    best = order[0]
    pairs = run.pairs
    states, intervals, differences = {}, {}, {}
    decided = run.deals > 0
    for other in order[1:]:
        n = pairs.n[best, other]
        sd = np.sqrt(pairs.var[best, other]) if n >= 2 else np.inf
        half = float(half_width(np.array([n]), np.array([sd]), alpha)[0])
        mean = pairs.mean[best, other]
        lo, hi = mean - half, mean + half
        if n < MIN_DEALS or not np.isfinite(half):
            state = "open"
        elif lo > 0:
            state = "separated"
        elif -margin < lo and hi < margin:
            state = "equivalent"
        else:
            state = "open"
        decided &= state != "open"
        states[players[other]] = state
        intervals[players[other]] = (float(lo), float(hi))
        differences[players[other]] = float(mean) if n > 0 else float("nan")
    return Verdict(
        bool(decided),
        players[best],
        run.deals,
        states,
        intervals,
        differences,
        confidence,
        pool=not run.complete,
        luck=luck,
    )
