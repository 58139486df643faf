"""A config's players as policies: each player's strategy with its parameter values."""

from __future__ import annotations

from collections.abc import Mapping

from mexsim.strategy.policy import Policy
from mexsim.strategy.registry import StrategyInfo, available_strategies
from mexsim.tournament.config import Config, PlayerSpec, played_strategies, seat_players

# where a parameter names a strategy, the number it stands at (the decide that plays the
# named strategy reads none: StrategyInfo.naming)
NAMED = -1.0


def player_policies(
    config: Config, known: Mapping[str, StrategyInfo] | None = None
) -> list[Policy]:
    """Each player's policy, in player order (before seat rotation), from ``known``
    (strategy name -> loaded strategy; default: every strategy of the config's folders
    the players play, their parameters' named ones too, as the registry loads them)."""
    if known is None:
        known = available_strategies(config.strategy_dirs, played_strategies(config.players))
    return [_policy(p, known) for p in config.players]


def _policy(player: PlayerSpec, known: Mapping[str, StrategyInfo]) -> Policy:
    info = known[player.strategy]
    named = player.params.get(info.named_param) if info.named_param else None
    if isinstance(named, str):
        info = info.naming(known[named])
    values = (player.params[k] for k in info.params)
    return Policy(info, tuple(NAMED if isinstance(v, str) else v for v in values))


def match_policies(config: Config, match: int) -> list[Policy]:
    """The policies of match ``match``'s seats, after seat rotation."""
    players = player_policies(config)
    return [players[i] for i in seat_players(config, match)]
