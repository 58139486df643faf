"""A policy: a strategy plug-in together with the parameter values it plays with."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mexsim.strategy.registry import StrategyInfo, available_strategies


@dataclass(frozen=True)
class Policy:
    """A strategy and its parameter values, in the strategy's PARAMS order."""

    strategy: StrategyInfo
    params: tuple[float, ...]

    @property
    def name(self) -> str:
        return self.strategy.name

    @property
    def decide(self) -> Any:
        """The compiled decide that plays with these parameter values."""
        return self.strategy.decide_with(self.params)


PolicyLike = Policy | str


def resolve_policies(policies: Sequence[PolicyLike],
                     strategy_dirs: Sequence[str] = ()) -> list[Policy]:
    """Policies as given, strategy names taken with their default parameters."""
    names = any(isinstance(p, str) for p in policies)
    known = available_strategies(strategy_dirs) if names else {}
    return [
        p if isinstance(p, Policy) else Policy(known[p], tuple(known[p].params.values()))
        for p in policies
    ]
