"""A game designer's questions of a run, per rule variant: how long rounds last, how
often they block, whether moving first is an advantage, how much skill matters — each
with its interval and, between variants, paired by match (docs/designers.md).

A variant run plays the same matches (deals, seats, random streams) under every variant
(mexsim/tournament/variants.py), so the difference of a match's facts between a variant
and the baseline is a paired difference: the luck of the deal cancels.

The per-match facts come from ``rounds.parquet``'s rows (``match_facts``); they are
folded as they arrive, block by block, so memory does not grow with the matches. The
unit is the deal (mexsim/analysis/deals.py): under duplicate deals a deal's rotations are
averaged into one unit first. The skill measures come from each variant's own players'
statistics (mexsim/analysis/adjusted.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from mexsim.analysis.accumulate import Moments, RunStatistics
from mexsim.analysis.adjusted import skill_measures
from mexsim.analysis.deals import split_last_deal, unit_means, unit_starts
from mexsim.analysis.formatting import fixed_width, number, p_value
from mexsim.analysis.stats import holm_adjusted, quiet_degenerate, t_interval

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pandas as pd

#: The per-match facts, in this order: a round's turns (all seats together), the share
#: of rounds blocked (R15), the first mover's penalty minus the mean of the others' in a
#: round, the first mover's share of the round's lowest penalty (ties split), and the
#: mean match total of a seat.
FACTS = ("turns_per_round", "blocked_share", "first_mover_edge", "first_mover_lowest", "mean_total")
#: The values each fact can take: its t interval is cut to them (an interval cut to
#: the parameter's range covers it as often; four deals of a share near 1 ran past
#: 100 %), and a difference between variants to the widths of these ranges.
FACT_RANGES = {
    "turns_per_round": (0.0, np.inf),
    "blocked_share": (0.0, 1.0),
    "first_mover_edge": (-np.inf, np.inf),
    "first_mover_lowest": (0.0, 1.0),
    "mean_total": (0.0, np.inf),
}
ROUND_COLUMNS = ("match", "seat", "penalty", "blocked", "first", "turns", "deal")
BASE = "base"  # the baseline's name when a run has no variants


@dataclass(frozen=True)
class MatchFacts:
    """A chunk of whole matches: their ids, deals, facts[match, FACTS], every round's
    turns (for the distribution of round lengths) and the seats at their table."""

    matches: np.ndarray
    deals: np.ndarray
    facts: np.ndarray
    round_turns: np.ndarray
    seats: int = 0

    @classmethod
    def empty(cls) -> MatchFacts:
        return cls(
            np.empty(0, np.int64), np.empty(0, np.int64), np.empty((0, len(FACTS))), np.empty(0)
        )

    def __len__(self) -> int:
        return len(self.matches)

    def paired_part(self, start: int = 0) -> MatchFacts:
        """Its matches from ``start`` on, as pairing holds them: without the round
        turns, which are counted as the chunk arrives."""
        return MatchFacts(
            self.matches[start:], self.deals[start:], self.facts[start:], self.round_turns[:0]
        )

    @staticmethod
    def joined(chunks: Sequence[MatchFacts]) -> MatchFacts:
        if not chunks:
            return MatchFacts.empty()
        return MatchFacts(
            np.concatenate([c.matches for c in chunks]),
            np.concatenate([c.deals for c in chunks]),
            np.concatenate([c.facts for c in chunks]),
            np.concatenate([c.round_turns for c in chunks]),
        )


def match_facts(columns: dict[str, np.ndarray]) -> MatchFacts:
    """The facts of whole matches from their rounds rows (``ROUND_COLUMNS``), ordered
    by match, round and seat, every round with a row per seat (as mexsim writes them)."""
    seat = np.asarray(columns["seat"])
    if len(seat) == 0:
        return MatchFacts.empty()
    seats = int(seat.max()) + 1
    if len(seat) % seats or np.any(seat.reshape(-1, seats) != np.arange(seats)):
        raise ValueError("rounds.parquet: a round without a row per seat, or rows out of order")

    def grid(name: str, kind: type = float) -> np.ndarray:
        return np.asarray(columns[name]).astype(kind).reshape(-1, seats)

    penalty, turns = grid("penalty"), grid("turns")
    first = grid("first", bool)
    blocked = grid("blocked", bool).any(axis=1)
    match = grid("match", np.int64)[:, 0]
    deal = grid("deal", np.int64)[:, 0]
    starter = (penalty * first).sum(axis=1)
    others = (penalty.sum(axis=1) - starter) / max(seats - 1, 1)
    low = penalty.min(axis=1, keepdims=True)
    lowest = penalty == low
    starter_low = (lowest & first).any(axis=1) / lowest.sum(axis=1)
    round_turns = turns.sum(axis=1)
    per_round = np.column_stack(
        [round_turns, blocked, starter - others, starter_low, penalty.mean(axis=1)]
    )
    starts = np.concatenate(([0], np.flatnonzero(match[1:] != match[:-1]) + 1))
    counts = np.diff(np.append(starts, len(match)))
    sums = np.add.reduceat(per_round, starts, axis=0)
    facts = sums / counts[:, None]
    facts[:, -1] = sums[:, -1]  # a match total: the sum of its rounds' mean penalties
    return MatchFacts(match[starts], deal[starts], facts, round_turns, seats)


class UnitMoments:
    """Moments of per-deal means of a matrix's columns, folded block by block; a block's
    last deal waits for the next block (its rotations may go on there)."""

    def __init__(self, columns: int) -> None:
        self.moments = Moments.zeros((columns,))
        self._held = np.empty((0, columns))
        self._held_deals = np.empty(0, dtype=np.int64)

    def add(self, values: np.ndarray, deals: np.ndarray) -> None:
        values = np.vstack([self._held, values])
        deals = np.concatenate([self._held_deals, np.asarray(deals, dtype=np.int64)])
        whole, whole_deals, self._held, self._held_deals = split_last_deal(values, deals)
        if len(whole_deals):
            self._fold(whole, whole_deals)

    def close(self) -> Moments:
        if len(self._held_deals):
            self._fold(self._held, self._held_deals)
            self._held, self._held_deals = self._held[:0], self._held_deals[:0]
        return self.moments

    def _fold(self, values: np.ndarray, deals: np.ndarray) -> None:
        self.moments.add_columns(unit_means(values, unit_starts(deals)))


@dataclass
class DesignerStatistics:
    """What ``designer_table`` needs: per variant (``names``, baseline first) the moments
    of every fact and of its paired difference from the baseline, the distribution of
    round lengths, and the players' statistics (``runs``, for the skill measures)."""

    names: list[str]
    seats: int
    moments: Moments  # [V*K facts, then (V-1)*K differences from the baseline]
    round_turns: np.ndarray  # [variant, turns]: rounds of that many turns
    runs: list[RunStatistics] = field(default_factory=list)
    rules: list[str] = field(default_factory=list)  # each variant's rules, in words


class DesignerAccumulator:
    """Folds chunks of ``MatchFacts`` per variant. Every variant plays the same matches
    in the same order; the chunks of the variants are paired row by row (the k-th match
    of each), so the runner interleaves the variants' blocks and memory stays at a block
    or two per variant."""

    def __init__(self, variants: int) -> None:
        self.variants = variants
        k = len(FACTS)
        self.units = UnitMoments(variants * k + (variants - 1) * k)
        self.pending: list[list[MatchFacts]] = [[] for _ in range(variants)]
        self.round_turns = np.zeros((variants, 1), dtype=np.int64)
        self.seats = 0

    def add(self, variant: int, facts: MatchFacts) -> None:
        self.seats = max(self.seats, facts.seats)
        turns = facts.round_turns.astype(np.int64)
        if len(turns) and turns.max() >= self.round_turns.shape[1]:
            grow = int(turns.max()) + 1 - self.round_turns.shape[1]
            self.round_turns = np.pad(self.round_turns, ((0, 0), (0, grow)))
        # bincount, not np.add.at: ~20 × faster on a block's rounds (the fold's serial step)
        self.round_turns[variant] += np.bincount(turns, minlength=self.round_turns.shape[1])
        self.pending[variant].append(facts.paired_part())
        self._pair()

    def _pair(self) -> None:
        joined = [MatchFacts.joined(p) for p in self.pending]
        n = min(len(j) for j in joined)
        if n == 0:
            return
        base = joined[0].matches[:n]
        if any(not np.array_equal(j.matches[:n], base) for j in joined[1:]):
            raise ValueError("the variants' rows are not the same matches in the same order")
        values = np.stack([j.facts[:n] for j in joined], axis=1)  # [match, variant, fact]
        differences = values[:, 1:] - values[:, :1]
        self.units.add(
            np.hstack([values.reshape(n, -1), differences.reshape(n, -1)]), joined[0].deals[:n]
        )
        self.pending = [[j.paired_part(n)] if len(j) > n else [] for j in joined]

    def close(self, names: Sequence[str], runs: Sequence[RunStatistics]) -> DesignerStatistics:
        if any(self.pending):
            raise ValueError("the variants did not all play the same matches")
        return DesignerStatistics(
            list(names), self.seats, self.units.close(), self.round_turns, list(runs)
        )


def designer_table(stats: DesignerStatistics) -> pd.DataFrame:
    """One row per variant (variants.csv, docs/interface.md): each fact with its 95 % t
    interval over deals; for every variant but the baseline its paired difference from
    the baseline with interval, p-value and Holm's adjustment over the variants (one
    family per fact); the first mover's edge tested against 0 and its share of lowest
    penalties against 1/seats; and the skill measures."""
    import pandas as pd  # not for a run's start: the runner imports this module

    v, k = len(stats.names), len(FACTS)
    m = stats.moments
    rows: dict[str, list[Any]] = {"variant": list(stats.names)}
    if len(stats.rules) == v:
        rows["rules"] = list(stats.rules)
    rows["deals"] = [int(m.n[i * k]) for i in range(v)]
    with quiet_degenerate():
        for f, name in enumerate(FACTS):
            cols = np.arange(v) * k + f
            n, mean, var = m.n[cols], m.mean[cols], m.var[cols]
            lo, hi, p = t_interval(n.copy(), mean, var)
            least, most = FACT_RANGES[name]
            lo, hi = np.clip(lo, least, most), np.clip(hi, least, most)
            rows[name], rows[f"{name}_lo"], rows[f"{name}_hi"] = list(mean), list(lo), list(hi)
            if name == "first_mover_edge":
                rows["first_mover_edge_p"] = list(p)
            if name == "first_mover_lowest":
                even = 1.0 / max(stats.seats, 1)
                rows["first_mover_lowest_p"] = list(t_interval(n.copy(), mean - even, var)[2])
            if v > 1:
                dcols = v * k + np.arange(v - 1) * k + f
                dn, dmean, dvar = m.n[dcols], m.mean[dcols], m.var[dcols]
                dlo, dhi, dp = t_interval(dn.copy(), dmean, dvar)
                span = most - least
                dlo, dhi = np.clip(dlo, -span, span), np.clip(dhi, -span, span)
                finite = np.isfinite(dp)
                holm = np.full(v - 1, np.nan)
                holm[finite] = holm_adjusted(dp[finite])
                for key, values in (
                    ("diff", dmean),
                    ("diff_lo", dlo),
                    ("diff_hi", dhi),
                    ("diff_p", dp),
                    ("diff_p_holm", holm),
                ):
                    rows[f"{name}_{key}"] = [np.nan, *values]
        skill = [skill_measures(run) for run in stats.runs] or [(np.nan,) * 4] * v
        for i, key in enumerate(
            ("skill_spread", "skill_share", "skill_share_lo", "skill_share_hi")
        ):
            rows[key] = [s[i] for s in skill]
    return pd.DataFrame(rows)


def format_designer(table: pd.DataFrame, seats: int) -> str:
    """The designer's lines under the players' table: one sentence without variants,
    a table per variant with them."""
    if len(table) == 1:
        r = table.iloc[0]
        return (
            f"  rules: {number(r.turns_per_round)} turns a round "
            f"[{number(r.turns_per_round_lo)}, {number(r.turns_per_round_hi)}], "
            f"{number(100 * r.blocked_share)} % of rounds blocked; the first mover scores "
            f"{_edge(r)} and has the round's lowest penalty in "
            f"{number(100 * r.first_mover_lowest)} % of rounds "
            f"[{number(100 * r.first_mover_lowest_lo)}, {number(100 * r.first_mover_lowest_hi)}]"
            f" (even: {number(100 / seats)} %); skill explains "
            f"{number(100 * r.skill_share, 0)} % [{number(100 * r.skill_share_lo, 0)}, "
            f"{number(100 * r.skill_share_hi, 0)}] of a player's total beyond the deal "
            "(variants.csv; docs/designers.md)"
        )
    header = [
        "variant",
        "turns/round",
        "blocked %",
        "first-mover edge",
        "first lowest %",
        "skill %",
        "mean total",
    ]
    body = []
    for r in table.itertuples():
        body.append(
            [
                str(r.variant),
                _cell(r, "turns_per_round", 1),
                _cell(r, "blocked_share", 100),
                _cell(r, "first_mover_edge", 1),
                _cell(r, "first_mover_lowest", 100),
                f"{number(100 * r.skill_share, 0)} [{number(100 * r.skill_share_lo, 0)}, "
                f"{number(100 * r.skill_share_hi, 0)}]",
                _cell(r, "mean_total", 1),
            ]
        )
    lines = ["", "Rule variants (each against the first, paired by match; * Holm p < 0.05):"]
    lines += fixed_width(header, body, left=[0])
    lines.append(
        f"  first-mover edge: the first mover's round penalty minus the others' mean (< 0: "
        f"an advantage); first lowest: its share of the rounds' lowest penalty (even: "
        f"{number(100 / seats)} %); skill: the share of a player's total beyond the deal "
        "that is who plays (docs/designers.md). variants.csv has every interval."
    )
    return "\n".join(lines)


def _edge(row: object) -> str:
    edge = float(row.first_mover_edge)  # type: ignore[attr-defined]
    lo, hi = float(row.first_mover_edge_lo), float(row.first_mover_edge_hi)  # type: ignore[attr-defined]
    if not np.isfinite(edge):
        return "n/a points"
    word = "fewer" if edge < 0 else "more"
    return (
        f"{number(abs(edge), 2)} points a round {word} than the others [{number(lo, 2, True)}, "
        f"{number(hi, 2, True)}] ({_p(row.first_mover_edge_p)})"  # type: ignore[attr-defined]
    )


def _p(p: float) -> str:
    """``p = 0.012``, or ``p < 1e-300`` when it underflows."""
    text = p_value(p)
    return f"p {text[0]} {text[1:]}" if text.startswith("<") else f"p = {text}"


def _cell(row: object, name: str, scale: float) -> str:
    value = float(getattr(row, name)) * scale
    text = number(value, 1)
    diff = getattr(row, f"{name}_diff", np.nan)
    if diff is None or not np.isfinite(diff):
        return text
    mark = "*" if getattr(row, f"{name}_diff_p_holm", 1.0) < 0.05 else ""
    return f"{text} ({number(float(diff) * scale, 1, True)}{mark})"
