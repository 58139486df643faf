"""A policy: a strategy plug-in together with the parameter values it plays with — what the
engine seats (mexsim/game/seat.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from mexsim.game.enums import Calling
from mexsim.strategy.registry import StrategyInfo, available_strategies


@dataclass(frozen=True)
class Policy:
    """A strategy and its parameter values, in the strategy's PARAMS order."""

    strategy: StrategyInfo
    params: tuple[float, ...]

    @property
    def name(self) -> str:
        """The strategy's name, with the strategy a parameter names ("search with rollout
        mine": what raised may be the named one's)."""
        named = self.strategy.named
        return f"{self.strategy.name} with {named}" if named else self.strategy.name

    @property
    def memory(self) -> int:
        return self.strategy.memory

    @property
    def decide(self) -> Any:
        """The compiled decide that plays with these parameter values."""
        return self.strategy.decide_with(self.params)

    @property
    def decide_for_any_values(self) -> Any:
        return self.strategy.decide

    @property
    def trusted(self) -> bool:
        return self.strategy.trusted  # every form of a shipped strategy is shipped too

    def explained(self) -> Policy:
        """The policy playing its strategy's form that prints why it chose (a
        built-in's ``explained_for``) for `replay --moves`; a strategy without one (a
        user's explains itself: mexsim.strategy.access.explaining) as it is."""
        form = self.strategy.explained_for
        if form is None:
            return self
        form_info = replace(self.strategy, decide=form(self.params), decide_for=None)
        return Policy(form_info, self.params)

    def calling(self, decide: Any) -> int:
        """The registry's decision for the strategy's own decide; another form of a
        built-in (longest_train's weighted one) is called as a built-in. Decided at load:
        no file path is looked at per block."""
        if decide is self.strategy.decide:
            return self.strategy.calling
        return Calling.builtin if self.strategy.trusted else Calling.user


PolicyLike = Policy | str


def resolve_policies(
    policies: Sequence[PolicyLike], strategy_dirs: Sequence[str] = ()
) -> list[Policy]:
    """Policies as given, strategy names taken with their default parameters."""
    names = {p for p in policies if isinstance(p, str)}
    known = available_strategies(strategy_dirs, names) if names else {}
    return [
        p if isinstance(p, Policy) else Policy(known[p], tuple(known[p].params.values()))
        for p in policies
    ]
