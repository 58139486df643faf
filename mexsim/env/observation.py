"""What a learning agent observes of the table: the seat's R17 view, as a strategy's
``decide`` gets it, its feature vector (mexsim/env/features.py) and the action mask."""

from __future__ import annotations

import numpy as np

from mexsim.env.actions import action_count, action_mask
from mexsim.env.features import feature_count, features
from mexsim.game import view as V
from mexsim.game.rules import Rules
from mexsim.tournament.table import Game


def observation_space(rules: Rules):  # -> gymnasium.spaces.Dict
    """``{"observation": features, "view": the int64 view, "action_mask": int8}``."""
    from gymnasium import spaces

    big = np.iinfo(np.int64)
    return spaces.Dict(
        {
            # every feature lies in [0, 1] but the totals / 100 (a match's stays far below)
            "observation": spaces.Box(0.0, 1000.0, shape=(feature_count(rules),), dtype=np.float32),
            "view": spaces.Box(big.min, big.max, shape=(V.SIZE,), dtype=np.int64),
            "action_mask": spaces.Box(0, 1, shape=(action_count(rules),), dtype=np.int8),
        }
    )


def observe(game: Game, seat: int) -> dict[str, np.ndarray]:
    """``seat``'s observation now: its view (its legal moves when it is to move), the
    view's features and its action mask."""
    v = game.view(seat)
    return {
        "observation": features(v, game.rules),
        "view": v,
        "action_mask": action_mask(game, seat),
    }
