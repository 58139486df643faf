"""A run's statistics gathered block by block, in memory that does not grow with matches.

Every table of the comparison (summary, every pair, head to head, sweeps, ratings) is a
function of a few sums: per player and per pair of players, counts, means and sums of
squared deviations of per-deal results; the normal equations of the pool's
intra-block model (mexsim/analysis/adjusted.py); and per jackknife group the pair
counts of the ratings. They are P or P × P numbers (P players), whatever the number of
matches, and they merge exactly: ``add`` folds in a block of matches, so ``mexsim run``
keeps the statistics up to date as blocks arrive, and ``mexsim report`` streams the
Parquet by row group. One block or many give the same statistics (the tests check it
over random splits): the batch functions of the other modules are this, in one block.

Means and squared deviations merge by Chan's parallel algorithm (no E[x²] - E[x]²
cancellation). A deal's matches must arrive together and in order (the runner writes
in match order); the last deal of a block is held back until the next block shows it
is complete.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np
from threadpoolctl import ThreadpoolController

from mexsim.analysis.deals import split_last_deal, unit_means, unit_starts

JACKKNIFE_GROUPS = 32  # the ratings' jackknife groups (mexsim/analysis/ratings.py)


@dataclass
class Moments:
    """Count, mean and sum of squared deviations of many series at once (any shape)."""

    n: np.ndarray
    mean: np.ndarray
    m2: np.ndarray

    @classmethod
    def zeros(cls, shape: tuple[int, ...]) -> Moments:
        return cls(np.zeros(shape), np.zeros(shape), np.zeros(shape))

    def merge(self, n: np.ndarray, mean: np.ndarray, m2: np.ndarray) -> None:
        """Fold in another sample's moments (Chan et al.'s pairwise update)."""
        total = self.n + n
        with np.errstate(divide="ignore", invalid="ignore"):
            delta = np.where(n > 0, mean - self.mean, 0.0)
            weight = np.where(total > 0, n / total, 0.0)
            self.mean = self.mean + delta * weight
            self.m2 = self.m2 + m2 + delta * delta * self.n * weight
        self.n = total

    def add_columns(self, values: np.ndarray) -> None:
        """Fold in the rows of a matrix, column by column, ignoring NaN."""
        present = ~np.isnan(values)
        n = present.sum(axis=0).astype(float)
        with np.errstate(divide="ignore", invalid="ignore"):
            mean = np.where(n > 0, np.where(present, values, 0.0).sum(axis=0) / n, 0.0)
        dev = np.where(present, values - mean, 0.0)
        self.merge(n, mean, (dev * dev).sum(axis=0))

    @property
    def var(self) -> np.ndarray:
        """Sample variance (ddof 1); NaN below two values."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(self.n >= 2, self.m2 / (self.n - 1), np.nan)


def _pair_moments(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per ordered pair (a, b), over the rows where both are present: count, mean and
    squared deviations of values[:, b] - values[:, a] (three matrix products)."""
    present = ~np.isnan(values)
    x = np.where(present, values, 0.0)
    m = present.astype(float)
    n = m.T @ m
    sums = x.T @ m  # sums[a, b] = sum of x_a where b is present too
    squares = (x * x).T @ m
    cross = x.T @ x
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where(n > 0, (sums.T - sums) / n, 0.0)
    m2 = squares + squares.T - 2 * cross - n * mean * mean
    return n, mean, np.maximum(m2, 0.0)


@dataclass
class RunStatistics:
    """The sums behind every table of a run (see the module docstring)."""

    players: int
    matches: int = 0
    deals: int = 0
    duplicate: bool = False  # some deal was played in more than one match
    complete: bool = True  # every player played every deal (no pool)
    player_matches: np.ndarray = field(default=None)  # type: ignore[arg-type]
    win_sum: np.ndarray = field(default=None)  # type: ignore[arg-type]
    totals: Moments = field(default=None)  # type: ignore[assignment]  # per-deal totals
    wins: Moments = field(default=None)  # type: ignore[assignment]  # per-deal win shares
    pairs: Moments = field(default=None)  # type: ignore[assignment]  # per-deal differences
    shares: Moments = field(default=None)  # type: ignore[assignment]  # per-deal pair shares
    grand_sum: float = 0.0  # over every (deal, player) result
    grand_count: float = 0.0
    # the pool's intra-block normal equations (deals with two players or more)
    info: np.ndarray = field(default=None)  # type: ignore[arg-type]
    q: np.ndarray = field(default=None)  # type: ignore[arg-type]
    centred_squares: float = 0.0
    block_df: float = 0.0  # sum over those deals of (players at the deal - 1)
    # per jackknife group and ordered pair, over matches: finished ahead, tied, both played
    ahead: np.ndarray = field(default=None)  # type: ignore[arg-type]
    tied: np.ndarray = field(default=None)  # type: ignore[arg-type]
    met: np.ndarray = field(default=None)  # type: ignore[arg-type]
    # a luck-adjusted run ([analysis] luck = true, docs/luck.md): the same statistics of
    # the luck-adjusted totals
    luck_adjusted: RunStatistics | None = None
    # the designer's statistics of every rule variant (mexsim/analysis/run_fold.py)
    designer: Any = None

    def __post_init__(self) -> None:
        p, g = self.players, JACKKNIFE_GROUPS
        self.player_matches = np.zeros(p)
        self.win_sum = np.zeros(p)
        self.totals, self.wins = Moments.zeros((p,)), Moments.zeros((p,))
        self.pairs, self.shares = Moments.zeros((p, p)), Moments.zeros((p, p))
        self.info, self.q = np.zeros((p, p)), np.zeros(p)
        self.ahead, self.tied, self.met = (np.zeros((g, p, p)) for _ in range(3))


def win_shares(totals: np.ndarray) -> np.ndarray:
    """R4 win shares per (match, player): 1/k for each of k players tied for the lowest
    total at the table; NaN where a player sat the match out."""
    values = np.asarray(totals, dtype=float)
    with np.errstate(invalid="ignore"):
        low = np.nanmin(np.where(np.isnan(values), np.inf, values), axis=1, keepdims=True)
        winners = values == low
        share = winners / winners.sum(axis=1, keepdims=True)
    return np.where(np.isnan(values), np.nan, share)


class RunAccumulator:
    """Folds blocks of matches into :class:`RunStatistics`."""

    def __init__(self, players: int, luck: bool = False) -> None:
        self.stats = RunStatistics(players)
        # the luck-adjusted totals' statistics, folded beside (stats.luck_adjusted)
        self.luck = RunAccumulator(players) if luck else None
        if self.luck is not None:
            self.stats.luck_adjusted = self.luck.stats
        self._held_totals = np.empty((0, players))
        self._held_deals = np.empty(0, dtype=np.int64)

    def add(
        self, totals: np.ndarray, deals: np.ndarray, adjusted: np.ndarray | None = None
    ) -> None:
        """A block of matches in match order: totals[match, player] (NaN: sat out) and
        each match's deal. The block's last deal waits for the next block. ``adjusted``:
        the luck-adjusted totals, required when the accumulator was made with ``luck``."""
        if self.luck is not None:
            if adjusted is None:
                raise ValueError("a luck-adjusted run's block without its adjusted totals")
            self.luck.add(adjusted, deals)
        totals = np.vstack([self._held_totals, np.asarray(totals, dtype=float)])
        deals = np.concatenate([self._held_deals, np.asarray(deals, dtype=np.int64)])
        whole, whole_deals, self._held_totals, self._held_deals = split_last_deal(totals, deals)
        if len(whole_deals):
            self._fold(whole, whole_deals)

    def close(self) -> RunStatistics:
        """Fold in what is held back and return the statistics."""
        if self.luck is not None:
            self.luck.close()
        if len(self._held_deals):
            self._fold(self._held_totals, self._held_deals)
            self._held_totals = self._held_totals[:0]
            self._held_deals = self._held_deals[:0]
        return self.stats

    def settled(self) -> RunStatistics:
        """The statistics with the held-back deal folded in, the accumulator untouched
        (its later folds, and so the run's files, stay the same): a verdict between
        blocks that end at a whole deal counts every deal played."""
        return copy.deepcopy(self).close()

    def _fold(self, totals: np.ndarray, deals: np.ndarray) -> None:
        # One BLAS thread: the matrix products here are small (a block's matches × P),
        # yet OpenBLAS splits them over its threads, which spin for a core: 6-8 × the
        # CPU when the cores are busy (the run's play threads, other processes). A
        # 2,000,000-match report spent 86 of its 142 s in _fold_head_to_head so.
        with _blas().limit(limits=1, user_api="blas"):
            self._fold_block(totals, deals)

    def _fold_block(self, totals: np.ndarray, deals: np.ndarray) -> None:
        s = self.stats
        grouped = unit_starts(deals)  # None: a match per deal
        starts = np.arange(len(deals)) if grouped is None else grouped
        s.duplicate |= len(starts) < len(deals)
        present = ~np.isnan(totals)
        wins = win_shares(totals)
        s.matches += len(totals)
        s.deals += len(starts)
        s.player_matches += present.sum(axis=0)
        s.win_sum += np.nansum(wins, axis=0)
        units = unit_means(totals, grouped)
        s.complete &= not np.isnan(units).any()
        s.totals.add_columns(units)
        s.wins.add_columns(unit_means(wins, grouped))
        s.pairs.merge(*_pair_moments(units))
        s.grand_sum += float(np.nansum(units))
        s.grand_count += float((~np.isnan(units)).sum())
        self._fold_blocks(units)
        self._fold_head_to_head(totals, deals, starts)

    def _fold_blocks(self, units: np.ndarray) -> None:
        """The pool model's normal equations: information matrix, within-deal sums and
        the centred sum of squares (its residual sum of squares is that minus beta'q)."""
        s = self.stats
        present = ~np.isnan(units)
        k = present.sum(axis=1)
        keep = k >= 2
        units, present, k = units[keep], present[keep], k[keep]
        if len(units) == 0:
            return
        m = present.astype(float)
        row_mean = np.where(present, units, 0.0).sum(axis=1) / k
        centred = np.where(present, units - row_mean[:, None], 0.0)
        s.q += centred.sum(axis=0)
        s.info += np.diag(m.sum(axis=0)) - (m / k[:, None]).T @ m
        s.centred_squares += float((centred**2).sum())
        s.block_df += float((k - 1).sum())

    def _fold_head_to_head(self, totals: np.ndarray, deals: np.ndarray, starts: np.ndarray) -> None:
        """Per pair, over matches: ahead / tied / met by jackknife group; per deal, the
        pair's share of the deal's shared matches (for duplicate deals' intervals)."""
        s = self.stats
        present = ~np.isnan(totals)
        group_of = np.eye(JACKKNIFE_GROUPS)[deals % JACKKNIFE_GROUPS]  # one-hot rows
        unit_of = np.repeat(np.arange(len(starts)), np.diff(np.append(starts, len(deals))))
        for a in range(totals.shape[1]):
            rows = np.flatnonzero(present[:, a])
            if len(rows) == 0:
                continue
            mine = totals[rows, a][:, None]
            theirs = totals[rows]
            both = present[rows].astype(float)
            both[:, a] = 0.0
            ahead = both * (mine < theirs)
            tied = both * (mine == theirs)
            groups = group_of[rows].T  # per group, sums over its rows: one product each
            s.ahead[:, a, :] += groups @ ahead
            s.tied[:, a, :] += groups @ tied
            s.met[:, a, :] += groups @ both
            if s.duplicate:
                met = np.zeros((len(starts), totals.shape[1]))
                won = np.zeros_like(met)
                np.add.at(met, unit_of[rows], both)
                np.add.at(won, unit_of[rows], ahead + 0.5 * tied)
                with np.errstate(divide="ignore", invalid="ignore"):
                    share = np.where(met > 0, won / met, np.nan)
                block = Moments.zeros((totals.shape[1],))
                block.add_columns(share)
                n, mean, m2 = (np.zeros(s.shares.n.shape) for _ in range(3))
                n[a], mean[a], m2[a] = block.n, block.mean, block.m2
                s.shares.merge(n, mean, m2)


@cache
def _blas() -> ThreadpoolController:
    """The process's thread pools (threadpoolctl), found once: inspecting the loaded
    libraries costs more than a block's fold."""
    return ThreadpoolController()


def accumulate(totals: np.ndarray, deals: np.ndarray | None = None) -> RunStatistics:
    """The statistics of a whole (match × player) matrix of totals in one block."""
    values = np.asarray(totals, dtype=float)
    acc = RunAccumulator(values.shape[1])
    acc.add(values, np.arange(len(values)) if deals is None else deals)
    return acc.close()
