"""The matches an environment deals, one after another: those `mexsim run` plays."""

from __future__ import annotations

from pathlib import Path

from mexsim.tournament.config import load_config
from mexsim.tournament.table import Game, check_playable


class MatchSource:
    """Match ``first`` of the config, then the next ones (0 after the last), under the
    config's seed or the one a reset gives."""

    def __init__(
        self, config: str | Path, first: int = 0, *, strategies: tuple[str | Path, ...] = ()
    ) -> None:
        self.config = load_config(config, strategy_dirs=strategies)
        check_playable(self.config, first)
        self.first = first
        self.seed = self.config.seed
        self.rules = self.config.variant_rules(0)
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
        return Game.of_config(self.config, match, seed=self.seed, given_deals=given_deals)
