"""A config's players as policies: each player's strategy with its parameter values."""

from __future__ import annotations

from collections.abc import Mapping

from mexsim.strategy.policy import Policy
from mexsim.strategy.registry import StrategyInfo, available_strategies
from mexsim.tournament.config import Config, seat_players


def player_policies(
    config: Config, known: Mapping[str, StrategyInfo] | None = None
) -> list[Policy]:
    """Each player's policy, in player order (before seat rotation), from ``known``
    (strategy name -> loaded strategy; default: every strategy of the config's folders,
    as the registry loads them)."""
    if known is None:
        known = available_strategies(config.strategy_dirs, {p.strategy for p in config.players})
    return [
        Policy(known[p.strategy], tuple(p.params[k] for k in known[p.strategy].params))
        for p in config.players
    ]


def match_policies(config: Config, match: int) -> list[Policy]:
    """The policies of match ``match``'s seats, after seat rotation."""
    players = player_policies(config)
    return [players[i] for i in seat_players(config, match)]
