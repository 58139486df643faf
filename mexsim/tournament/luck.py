"""The value model of a run's luck adjustment (``[analysis] luck = true``; docs/luck.md).

Before the run, a pilot block of ``PILOT_MATCHES`` matches is played with the run's
players, seated as the run's first matches are (mexsim/tournament/schedule.py), but
from deals no match of the run plays: pilot match k plays deal ``PILOT_DEAL_BASE + k``
(2**62 + k) with the run's seed, while a run's deals are numbered from 0 and a run
holds far fewer than 2**62 matches. The pilot gives, for every seat after every deal
and draw, the features of mexsim/game/luck.py and the seat's penalty in that round;
the model is the ridge least-squares fit of the penalty on the standardised features
(ridge 1.0, as in the study: benchmarks/luck_study.py), then fixed for the whole run,
so the luck it scores has mean zero and the adjusted totals are unbiased.

The pilot is played once, on the calling thread, in match order, and reduced to
integer sums of products (exact: the same in any order), from which the model is
solved in float64 by one small linear solve: the same weights for any worker count,
resume point or process.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pragma: no cover - typing only
    from mexsim.strategy.policy import Policy
    from mexsim.tournament.config import Config

PILOT_MATCHES = 512
PILOT_DEAL_BASE = 1 << 62
RIDGE = 1.0


@dataclass(frozen=True)
class LuckModel:
    """V_j = intercept + weights · x_j (x_j: mexsim/game/luck.py's features of seat j)."""

    weights: tuple[float, ...]
    intercept: float
    r2: float  # of the pilot's round penalties
    rows: int  # pilot (seat, chance event) rows fitted
    pilot_matches: int

    def to_dict(self) -> dict[str, Any]:
        """As run.json records it."""
        from mexsim.game.luck import FEATURE_NAMES

        return {
            "value_model": "linear",
            "pilot_matches": self.pilot_matches,
            "pilot_deals": f"{PILOT_DEAL_BASE} + k (k < {self.pilot_matches})",
            "pilot_rows": self.rows,
            "r2": round(self.r2, 6),
            "intercept": self.intercept,
            "weights": dict(zip(FEATURE_NAMES, self.weights, strict=True)),
        }


def solve(sums: np.ndarray, ridge: float = RIDGE) -> LuckModel:
    """The ridge fit from the pilot's sums of products of v = [1, x, y] (integers)."""
    s = [[int(v) for v in row] for row in sums]  # exact Python integers
    m = len(s) - 2  # features
    n = s[0][0]
    if n < 2:
        raise ValueError("the pilot gave fewer than two rows to fit")
    # n² · covariances, exact: n Σab - Σa Σb
    cov = np.array(
        [
            [(n * s[1 + a][1 + b] - s[0][1 + a] * s[0][1 + b]) / (n * n) for b in range(m + 1)]
            for a in range(m + 1)
        ]
    )
    var = np.diag(cov)[:m]
    sd = np.where(var > 0, np.sqrt(np.maximum(var, 0.0)), 1.0)
    zz = n * cov[:m, :m] / np.outer(sd, sd)
    zy = n * cov[:m, m] / sd
    beta = np.linalg.solve(zz + ridge * np.eye(m), zy)
    total = n * cov[m, m]
    residual = total - 2 * beta @ zy + beta @ zz @ beta
    weights = beta / sd
    mean = np.array([s[0][1 + a] / n for a in range(m + 1)])
    return LuckModel(
        tuple(float(v) for v in weights),
        float(mean[m] - weights @ mean[:m]),
        float(1 - residual / total) if total > 0 else 0.0,
        n,
        0,
    )


def fit_luck_model(config: Config, players: list[Policy], pilot: int = PILOT_MATCHES) -> LuckModel:
    """Play the pilot block of ``config`` and fit the model (see the module docstring)."""
    from dataclasses import replace

    from mexsim.game.play import play_scheduled_luck
    from mexsim.tournament.config import config_schedule

    seating = config_schedule(config).seating(0, pilot)
    ids = np.arange(pilot, dtype=np.int64)
    _, _, _, sums = play_scheduled_luck(
        config.rules, players, config.seed, ids, PILOT_DEAL_BASE + ids, seating, None
    )
    return replace(solve(sums), pilot_matches=pilot)
