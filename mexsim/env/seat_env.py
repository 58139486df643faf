"""A Gymnasium environment: one seat learns, the others play their configured strategies.

    from mexsim.env import SeatEnv
    env = SeatEnv("configs/head-to-head.toml", seat=0)
    obs, info = env.reset(seed=1)
    while True:
        action = env.action_space.sample(obs["action_mask"])
        obs, reward, terminated, truncated, info = env.step(action)
        if terminated:
            break

An episode is a match. The observation and the actions are the AEC environment's
(mexsim/env/observation.py, mexsim/env/actions.py); a step plays the seat's action,
then the other seats' decisions (each as its strategy in the config chooses, exactly as
`mexsim run` plays them) up to the seat's next decision or the match's end; the reward
is minus the seat's round penalties of the rounds that ended meanwhile. An action
outside the mask plays the seat's first legal move and says so in
``info["illegal_action"]`` (``illegal="raise"``: a ValueError instead). Matches are dealt
as the AEC environment deals them (``reset(seed=S)``: the run seed S, from ``match``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from mexsim.env.actions import action_count, move_index
from mexsim.env.match_source import MatchSource
from mexsim.env.observation import observation_space, observe


class SeatEnv(gym.Env):
    metadata = {"render_modes": ["ansi", "human"]}  # noqa: RUF012  (as gymnasium.Env declares it)

    def __init__(
        self,
        config: str | Path,
        seat: int = 0,
        *,
        match: int = 0,
        strategies: tuple[str | Path, ...] = (),
        illegal: str = "first",
        render_mode: str | None = None,
    ) -> None:
        if illegal not in ("first", "raise"):
            raise ValueError(f'illegal={illegal!r}: "first" or "raise"')
        self._source = MatchSource(config, match, strategies=strategies)
        rules = self._source.rules
        if not 0 <= seat < rules.players:
            raise ValueError(f"seat {seat} is not at the table (0..{rules.players - 1})")
        self.seat = seat
        self.illegal = illegal
        self.render_mode = render_mode
        self.observation_space = observation_space(rules)
        self.action_space = spaces.Discrete(action_count(rules))
        self.game = self._source.game_of(self._source.first)  # until reset() deals

    def _others_play(self) -> None:
        g = self.game
        while not g.is_over() and g.to_move != self.seat:
            g.play(g.suggest())

    def _info(self, illegal: bool = False) -> dict[str, Any]:
        return {"match": self.game.match, "round": self.game.round, "illegal_action": illegal}

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        self.game = self._source.next_game(seed)
        self._others_play()
        return observe(self.game, self.seat), self._info()

    def step(self, action: Any) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        g = self.game
        if g.is_over():
            raise ValueError("the match is over: reset() deals the next one")
        i = move_index(g, int(action))
        if i < 0 and self.illegal == "raise":
            raise ValueError(f"action {action} is not one of seat {self.seat}'s legal moves")
        before = g.totals()[self.seat]
        g.play(max(i, 0))
        self._others_play()
        reward = float(before - g.totals()[self.seat])
        if self.render_mode == "human":
            print(self.render())
        return observe(g, self.seat), reward, g.is_over(), False, self._info(i < 0)

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        return self.game.text(self.seat)
