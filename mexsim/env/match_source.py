"""The matches an environment deals, one after another: those `mexsim run` plays."""

from __future__ import annotations

from pathlib import Path

from mexsim.errors import ConfigError
from mexsim.tournament.config import config_schedule, load_config
from mexsim.tournament.lineup import match_policies
from mexsim.tournament.replay import match_header
from mexsim.tournament.table import Game


class MatchSource:
    """Match ``first`` of the config, then the next ones (0 after the last), under the
    config's seed or the one a reset gives."""

    def __init__(
        self, config: str | Path, first: int = 0, *, strategies: tuple[str | Path, ...] = ()
    ) -> None:
        self.config = load_config(config, strategy_dirs=strategies)
        if not 0 <= first < self.config.matches:
            raise ConfigError(
                f"match {first} is out of range: {self.config.path} plays "
                f"{self.config.matches} matches (allowed: 0..{self.config.matches - 1})"
            )
        if self.config.seed_drawn:
            raise ConfigError(
                f'{self.config.path}: seed = "random" draws a new seed each run: give '
                "[run] a seed, so that an environment's deals can be played again"
            )
        self.first = first
        self.seed = self.config.seed
        self.rules = self.config.variant_rules(0)
        self._schedule = config_schedule(self.config)
        self._next = first

    def next_game(self, seed: int | None) -> Game:
        """The next match's game; with ``seed``, match ``first`` under that run seed."""
        if seed is not None:
            self.seed = int(seed)
            self._next = self.first
        match = self._next
        self._next = (match + 1) % self.config.matches
        return self.game_of(match)

    def game_of(self, match: int, *, given_deals: bool = False) -> Game:
        """Match ``match``'s game under the current seed (``given_deals``: each round
        waits for its deal, Game.deal_tiles)."""
        game = Game(
            self.rules,
            match_policies(self.config, match),
            self.seed,
            match,
            self._schedule.deal_of(match),
            given_deals=given_deals,
        )
        if self.seed == self.config.seed:
            game.header = match_header(self.config, match, 0)
        return game
