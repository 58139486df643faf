"""The strategies a config may name, with their parameters and defaults.

The built-in strategies are compiled into the core by code (``STRATEGY_CODES``); the
plug-in system (loading files from ``strategies/``) will extend this registry.
"""

from __future__ import annotations

from dataclasses import dataclass, field

RANDOM = 0
GREEDY = 1


@dataclass(frozen=True)
class StrategyInfo:
    name: str
    code: int
    description: str
    params: dict[str, float] = field(default_factory=dict)


BUILTIN: dict[str, StrategyInfo] = {
    "random": StrategyInfo("random", RANDOM, "uniform choice among the legal moves"),
    "greedy": StrategyInfo(
        "greedy", GREEDY,
        "heaviest tile first (lowest tile number); ties: own train, Mexican, then clockwise",
    ),
}


def available_strategies() -> dict[str, StrategyInfo]:
    """Every strategy a config may name, by name."""
    return dict(BUILTIN)
