"""`mexsim replay`: the trace of one match of a config, as `mexsim run` would play it."""

from __future__ import annotations

from mexsim.game.play import core_trace
from mexsim.jit.compile_notice import compiling
from mexsim.tournament.config import Config, config_schedule, seat_players
from mexsim.tournament.lineup import match_policies


def match_header(config: Config, match: int, variant: int = 0) -> dict:
    """The trace's first event: who sits where and the resolved rules (and, when
    duplicate deals make it differ from the match, the deal played; with rule variants,
    the variant played)."""
    seats = seat_players(config, match)
    deal = config_schedule(config).deal_of(match)
    return {
        "event": "match",
        "match": match,
        **({"deal": deal} if deal != match else {}),
        "seed": config.seed,
        "players": [
            {"seat": s, "player": config.players[i].name, "strategy": config.players[i].strategy}
            for s, i in enumerate(seats)
        ],
        **({"variant": config.variant_names[variant]} if config.variants else {}),
        "rules": config.variant_rules(variant).to_dict(),
    }


def trace_match(config: Config, match: int, variant: int = 0) -> list[dict]:
    """Every event of match ``match`` (docs/interface.md "Game trace"), played by the
    core under the rules of variant ``variant`` (the only one without variants)."""
    with compiling("the engine's tracer"):
        return core_trace(
            config.variant_rules(variant),
            match_policies(config, match),
            config.seed,
            match,
            header=match_header(config, match, variant),
            deal=config_schedule(config).deal_of(match),
        )
