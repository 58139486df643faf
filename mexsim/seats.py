"""Who plays in each seat: a strategy plug-in and its parameter values."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mexsim.config import Config, seat_players
from mexsim.strategy_registry import StrategyInfo, available_strategies


@dataclass(frozen=True)
class Seat:
    """A seat's strategy and its parameters, in the strategy's PARAMS order."""

    strategy: StrategyInfo
    params: tuple[float, ...]

    @property
    def name(self) -> str:
        return self.strategy.name


SeatLike = Seat | str


def resolve_seats(seats: Sequence[SeatLike], strategy_dirs: Sequence[str] = ()) -> list[Seat]:
    """Seats as given, strategy names taken with their default parameters."""
    known = available_strategies(strategy_dirs) if any(isinstance(s, str) for s in seats) else {}
    return [
        s if isinstance(s, Seat) else Seat(known[s], tuple(known[s].params.values()))
        for s in seats
    ]


def config_seats(config: Config, match: int) -> list[Seat]:
    """The seats of match ``match`` of a config, after seat rotation."""
    known = available_strategies(config.strategy_dirs)
    seats = []
    for i in seat_players(config, match):
        spec = config.players[i]
        info = known[spec.strategy]
        seats.append(Seat(info, tuple(spec.params[k] for k in info.params)))
    return seats
