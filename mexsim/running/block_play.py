"""Play one block of a run's matches: what a thread of ``mexsim run`` and a Dask worker
both do (mexsim/running/runner.py, cluster.py).

Apart from the runner so that a Dask worker imports only what play needs: the runner
brings pyarrow, the statistics and the results files, which a worker never uses when
the client writes (~0.2 s of every worker's start-up, measured).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from mexsim.game.play import play_scheduled, play_scheduled_luck
from mexsim.strategy.policy import Policy
from mexsim.tournament.config import Config, config_schedule

if TYPE_CHECKING:  # pragma: no cover - typing only
    from mexsim.tournament.luck import LuckModel


def play_block(config: Config, players: list[Policy], first: int, n: int) -> np.ndarray:
    """res[k, round, seat, field] of matches first … first+n-1, each with the seating
    and deal the config's schedule gives it (mexsim/tournament/schedule.py); under the
    rules of the variant ``first`` falls in (``Config.played_at``)."""
    schedule = config_schedule(config)
    variant, first = config.played_at(first)
    return play_scheduled(
        config.variant_rules(variant),
        players,
        config.seed,
        np.arange(first, first + n, dtype=np.int64),
        schedule.deals(first, n),
        schedule.seating(first, n),
    )


def play_luck_block(
    config: Config, players: list[Policy], first: int, n: int, model: LuckModel
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``play_block`` with the luck of every chance event scored by ``model`` on this
    thread (mexsim/game/luck.py): (res, deal_luck, draw_luck), the luck [k, round, seat]."""
    schedule = config_schedule(config)
    variant, first = config.played_at(first)
    res, deal_luck, draw_luck, _ = play_scheduled_luck(
        config.variant_rules(variant),
        players,
        config.seed,
        np.arange(first, first + n, dtype=np.int64),
        schedule.deals(first, n),
        schedule.seating(first, n),
        np.array(model.weights),
    )
    return res, deal_luck, draw_luck
