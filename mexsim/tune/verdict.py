"""The study's honest verdict: its best parameters played again on fresh deals (another
seed) against the player's configured parameters and against each opponent, with
paired intervals — the numbers a user can quote, free of the optimism of having picked
the best of many trials on the study's own deals.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from mexsim.analysis.stats import CONFIDENCE, wilson_interval
from mexsim.tournament.config import MAX_SEED, with_overrides
from mexsim.tune.racing import paired_difference
from mexsim.tune.settings import ParamRange
from mexsim.tune.study import Trial, Tuning, params_text, policies_with
from mexsim.tune.trial_play import margins, player_totals


def validation_seed(seed: int) -> int:
    """The fresh deals' seed: derived from the study's, never one of its trials'."""
    digest = hashlib.sha256(f"mexsim-tune-validation:{seed}".encode()).digest()
    return int.from_bytes(digest[:8], "little") % (MAX_SEED + 1)


@dataclass(frozen=True)
class Opponent:
    name: str
    diff: tuple[float, float, float]  # the tuned player's total minus this one's
    ahead: tuple[float, float, float]  # share of matches ahead (a tie 1/2), interval


@dataclass(frozen=True)
class Validation:
    seed: int
    matches: int
    best: dict[str, float]
    configured: dict[str, float]
    vs_configured: tuple[float, float, float]  # margin with best minus with configured
    opponents: tuple[Opponent, ...]

    def as_dict(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "matches": self.matches,
            "best": self.best,
            "configured": self.configured,
            "vs_configured": list(self.vs_configured),
            "opponents": [
                {"name": o.name, "diff": list(o.diff), "ahead": list(o.ahead)}
                for o in self.opponents
            ],
        }


def validate(
    tuning: Tuning, best: Trial, progress: Callable[[int], None] = lambda n: None
) -> Validation:
    """Play ``settings.validate`` fresh matches twice on the same deals: with the best
    parameters, and with the player's configured ones."""
    seed = validation_seed(tuning.config.seed)
    config = with_overrides(tuning.config, matches=tuning.settings.validate, seed=seed)
    fresh = replace(tuning, config=config)
    tuned = tuning.tuned
    spec = config.players[tuned]
    configured = {p.name: float(spec.params[p.name]) for p in tuning.settings.params}

    def totals(params: dict[str, float]) -> np.ndarray:
        cfg, players = policies_with(fresh, params)
        return player_totals(
            cfg,
            players,
            0,
            cfg.matches,
            tuning.workers,
            progress,
            tuning.decision_limit,
            tuning.cluster,
        )

    with_best = totals(best.params)
    with_configured = totals(configured)
    unit = config.table_size if config.duplicate else 1
    vs = paired_difference(
        _per_deal(margins(with_best, tuned), unit), _per_deal(margins(with_configured, tuned), unit)
    )
    opponents = []
    for j, other in enumerate(config.players):
        if j == tuned:
            continue
        own, theirs = with_best[:, tuned], with_best[:, j]
        diff = paired_difference(_per_deal(own, unit), _per_deal(theirs, unit))
        share = float(np.sum(own < theirs) + 0.5 * np.sum(own == theirs))
        lo, hi = wilson_interval(share, len(own), CONFIDENCE)
        opponents.append(Opponent(other.name, diff, (share / len(own), float(lo), float(hi))))
    return Validation(
        seed,
        config.matches,
        {k: float(v) for k, v in best.params.items()},
        configured,
        vs,
        tuple(opponents),
    )


def _per_deal(values: np.ndarray, unit: int) -> np.ndarray:
    """Per-deal means under duplicate deals (a deal's rotations are one unit)."""
    return values if unit == 1 else values.reshape(-1, unit).mean(axis=1)


def count(n: int, noun: str) -> str:
    plural = noun + ("es" if noun.endswith("ch") else "s")
    return f"{n:,} {noun if n == 1 else plural}"


def _signed(triple: tuple[float, float, float]) -> str:
    d, lo, hi = triple
    return f"{d:+.2f} [{lo:+.2f}, {hi:+.2f}]"


def edge_advice(ranges: tuple[ParamRange, ...], best: dict[str, float]) -> list[str]:
    """A line for each best value at an end of its range that the strategy would let
    reach further, with the advice to widen it."""
    lines = []
    for p in ranges:
        end = p.at_edge(float(best[p.name]))
        lowest, highest = p.allowed
        if end == "low" and p.low > lowest:
            wider = max(p.low / 10 if p.log else p.low - (p.high - p.low), lowest)
            wider = math.floor(wider) if p.kind == "int" else wider
            if wider >= p.low or (p.log and wider <= 0):
                continue  # a log range reaches no lower
            bound = f"low = {wider:g}"
        elif end == "high" and p.high < highest:
            wider = min(p.high * 10 if p.log else p.high + (p.high - p.low), highest)
            wider = math.ceil(wider) if p.kind == "int" else wider
            bound = f"high = {wider:g}"
        else:
            continue
        lines.append(
            f"note: {p.name} = {best[p.name]:g} lies at the {end} end of its range "
            f"[{p.low:g}, {p.high:g}]: the best may lie beyond it; widen the range "
            f"({bound}) and tune again"
        )
    return lines


def verdict_lines(
    tuning: Tuning, trials: list[Trial], best: Trial, validation: Validation | None
) -> list[str]:
    pruned = sum(t.pruned for t in trials)
    played = sum(t.matches for t in trials)
    player = tuning.settings.player
    lines = [
        f"{count(len(trials), 'trial')} ({pruned} stopped early by racing), {played:,} matches; "
        f"best: trial {best.index}, {params_text(best.params)}",
        f"  on the study's deals: {best.value:+.2f} points a match against the table "
        "(the player's total minus the others' mean; lower is better)",
    ]
    if validation is None:
        lines.append("  no validation (validate = 0): the figure above is optimistic")
    else:
        lines += [
            f"validation on {count(validation.matches, 'fresh match')} (seed {validation.seed}), "
            f"{CONFIDENCE:.0%} intervals:",
            f"  {player} with the best parameters minus with its configured ones "
            f"({params_text(validation.configured)}): {_signed(validation.vs_configured)} "
            "points a match (below 0: the best is better)",
        ]
        if validation.vs_configured[1] > 0:
            lines.append(
                "  warning: on fresh deals the best trial plays worse than the configured "
                "parameters: its margin did not hold beyond the study's deals (their luck, "
                "or ranges that leave the configured values out); keep the configured ones, "
                "or tune again with more matches a trial or wider ranges"
            )
        for o in validation.opponents:
            share, lo, hi = o.ahead
            lines.append(
                f"  against {o.name}: ahead in {share:.1%} [{lo:.1%}, {hi:.1%}] of matches; "
                f"total minus theirs {_signed(o.diff)} points a match"
            )
    lines += edge_advice(tuning.settings.params, best.params)
    return lines
