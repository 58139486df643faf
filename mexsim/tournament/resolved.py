"""A config with every option spelled out, as run.json records it, and the identity of
the run it describes (mexsim/tournament/identity.py)."""

from __future__ import annotations

from typing import Any

from mexsim.strategy.registry import available_strategies
from mexsim.tournament.config import Config, config_schedule, played_strategies
from mexsim.tournament.identity import run_identity


def resolved_config(config: Config) -> dict:
    """Every option spelled out, as run.json records it (``analysis`` only when an
    option is on: a run without one keeps the identity and run.json it always had)."""
    return (
        {
            "run": {
                "matches": config.matches,
                "seed": config.seed,
                "out": config.out,
                "strategies": list(config.strategy_dirs),
            }
            # only when on: a run without it keeps the identity it always had
            | ({"decisions": list(config.decisions)} if config.decisions else {}),
            "rules": config.rules.to_dict(),
            "seating": {"rotate": config.rotate},
            "tournament": {
                "duplicate": config.duplicate,
                "table_size": config.table_size,
                "deals": config.deals,
                "schedule_cycle": config_schedule(config).cycle,
            },
            "players": [
                {"name": p.name, "strategy": p.strategy, "params": p.params}
                | ({"sweep": p.sweep, "swept": list(p.swept)} if p.sweep else {})
                for p in config.players
            ],
        }
        | ({"analysis": {"luck": True}} if config.luck else {})
        | _variants(config)
    )


def _variants(config: Config) -> dict[str, Any]:
    """Rule variants, each with its changes and its rules spelled out (none: nothing,
    so a run without variants keeps the identity it always had)."""
    if not config.variants:
        return {}
    return {
        "variants": [
            {"name": v.name, "changes": dict(v.changes), "rules": v.rules.to_dict()}
            for v in config.variants
        ]
    }


def config_identity(config: Config) -> dict[str, Any]:
    played = played_strategies(config.players)  # with those a parameter names
    known = available_strategies(config.strategy_dirs, played)
    used = {name: known[name].sources for name in played}
    return run_identity(resolved_config(config), used)
