"""A seat's player as the engine sees it: a compiled decide, the parameter values it plays
with, and what the strategy layer decided about it when it was loaded. The engine takes
any object of this shape (mexsim.strategy.policy.Policy is the one mexsim makes) and
knows nothing of strategy files, names or folders."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol


class Seat(Protocol):
    @property
    def name(self) -> str:
        """How messages name the strategy."""

    @property
    def params(self) -> tuple[float, ...]:
        """The parameter values, in the strategy's PARAMS order."""

    @property
    def memory(self) -> int:
        """Words of the view's NOTES block kept between its decisions."""

    @property
    def decide(self) -> Any:
        """The compiled decide that plays with these parameter values."""

    @property
    def decide_for_any_values(self) -> Any:
        """The strategy's own decide, which plays every parameter value alike (a built-in
        may have faster forms for given values: ``decide`` is then one of them)."""

    @property
    def trusted(self) -> bool:
        """``decide`` is a shipped strategy's: it writes nothing of the view but its
        random stream and notes, so nothing it wrote needs undoing."""

    def calling(self, decide: Any) -> int:
        """How the kernel asks ``decide``, one of this seat's forms (enums.Calling)."""


def seated(players: Sequence[Any]) -> tuple[Seat, ...]:
    """The players as given; a strategy's name is refused, since names are the strategy
    layer's to resolve (mexsim.strategy.policy.resolve_policies)."""
    if any(isinstance(p, str) for p in players):
        raise TypeError(
            "the engine seats policies, not names: resolve them with "
            "mexsim.strategy.policy.resolve_policies"
        )
    return tuple(players)
