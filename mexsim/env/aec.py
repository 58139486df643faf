"""A PettingZoo AEC environment: every seat of a config's table is an agent.

    from mexsim.env import aec_env
    env = aec_env("configs/head-to-head.toml")
    env.reset()
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        action = None if terminated else env.action_space(agent).sample(obs["action_mask"])
        env.step(action)

Agents are ``"seat_0"``, ``"seat_1"``, …; the one to act is the seat to move. Actions
are mexsim/env/actions.py's (tile × train); the observation is a dict (the features,
the int64 view, the action mask: mexsim/env/observation.py). When a round ends, each
seat's reward is minus its round penalty (R16); the match ends after its rounds.

The first ``reset()`` deals match ``match`` of the config, the match ``mexsim run``
plays as that match; each later ``reset()`` the config's next match (after its last,
match 0 again). ``reset(seed=S)`` deals the same matches under the run seed S instead,
from ``match`` again: the same seed, the same deals.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from mexsim.env.actions import action_count, action_text, legal_actions, move_index
from mexsim.env.match_source import MatchSource
from mexsim.env.observation import observation_space, observe


class MexicanTrainAEC(AECEnv):
    metadata: ClassVar[dict[str, Any]] = {
        "name": "mexican_train_v0",
        "render_modes": ["ansi", "human"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        config: str | Path,
        match: int = 0,
        *,
        strategies: tuple[str | Path, ...] = (),
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self._source = MatchSource(config, match, strategies=strategies)
        rules = self._source.rules
        self.render_mode = render_mode
        self.possible_agents = [f"seat_{s}" for s in range(rules.players)]
        self._observation_space = observation_space(rules)
        self._action_space = spaces.Discrete(action_count(rules))
        self.game = self._source.game_of(self._source.first)  # until reset() deals

    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_space

    def _seat(self, agent: str) -> int:
        return self.possible_agents.index(agent)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return observe(self.game, self._seat(agent))

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.game = self._source.next_game(seed)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: self._info() for a in self.agents}
        self.agent_selection = self.possible_agents[self.game.to_move]

    def _info(self) -> dict[str, Any]:
        return {"match": self.game.match, "round": self.game.round}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to move: give an action, not None")
        i = move_index(self.game, action)
        if i < 0:
            raise ValueError(
                f"action {action} is not one of {agent}'s legal moves "
                f"{legal_actions(self.game)} (observation['action_mask'] marks them)"
            )
        before = self.game.totals()
        self.game.play(i)
        after = self.game.totals()
        self._cumulative_rewards[agent] = 0.0
        for s, a in enumerate(self.agents):
            self.rewards[a] = float(before[s] - after[s])
            self.infos[a] = self._info()
        self._accumulate_rewards()
        if self.game.is_over():
            self.terminations = {a: True for a in self.agents}
        else:
            self.agent_selection = self.possible_agents[self.game.to_move]
        if self.render_mode == "human":
            print(self.render())

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        seat = max(self.game.to_move, 0)
        return self.game.text(seat)

    def close(self) -> None:
        pass

    def action_text(self, action: int) -> str:
        """An action in words (``"12|7 on train 2"``)."""
        return action_text(self.game, action)


def aec_env(
    config: str | Path,
    match: int = 0,
    *,
    strategies: tuple[str | Path, ...] = (),
    render_mode: str | None = None,
) -> MexicanTrainAEC:
    """The PettingZoo AEC environment of a config's table, from match ``match``."""
    return MexicanTrainAEC(config, match, strategies=strategies, render_mode=render_mode)
