"""`mexsim replay`: the trace of one match of a config, as `mexsim run` would play it."""

from __future__ import annotations

from mexsim.errors import StrategyError
from mexsim.game.play import core_trace
from mexsim.jit.compile_notice import compiling
from mexsim.tournament.config import Config, PlayerSpec, config_schedule, seat_players
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
        "players": [_seated(s, config.players[i]) for s, i in enumerate(seats)],
        **({"variant": config.variant_names[variant]} if config.variants else {}),
        "rules": config.variant_rules(variant).to_dict(),
    }


def _seated(seat: int, player: PlayerSpec) -> dict:
    """A seat of the header: its player, strategy and parameters (when it has some)."""
    params = dict(player.params)
    return {
        "seat": seat,
        "player": player.name,
        "strategy": player.strategy,
        **({"params": params} if params else {}),
    }


def trace_match(
    config: Config, match: int, variant: int = 0, explained: bool = False
) -> list[dict]:
    """Every event of match ``match`` (docs/interface.md "Game trace"), played by the
    core under the rules of variant ``variant`` (the only one without variants), with
    what the strategies printed at their decisions. ``explained``: the strategies are
    asked why they chose (mexsim.strategy.access.explaining), and what they print says
    so; a strategy that then chooses otherwise than in the run is refused."""

    def play(explain: bool) -> list[dict]:
        with compiling("the engine's tracer"):
            return core_trace(
                config.variant_rules(variant),
                [p.explained() for p in match_policies(config, match)]
                if explain
                else match_policies(config, match),
                config.seed,
                match,
                header=match_header(config, match, variant),
                deal=config_schedule(config).deal_of(match),
                explained=explain,
            )

    played = play(False)
    if not explained:
        return played
    told = play(True)
    moves, told_moves = _moves(played), _moves(told)
    if moves != told_moves:
        raise StrategyError(_changed_its_mind(config, match, played, moves, told_moves))
    return told


def _moves(trace: list[dict]) -> list[dict]:
    return [ev for ev in trace if ev.get("event") != "print"]


def _changed_its_mind(
    config: Config, match: int, played: list[dict], moves: list[dict], told: list[dict]
) -> str:
    """The refusal of a replay whose explanations changed a move: who, and where."""
    k = next(i for i, (a, b) in enumerate(zip(moves, told, strict=False)) if a != b)
    event = moves[k]
    seat = event.get("seat", -1)
    names = {p["seat"]: p["player"] for p in played[0].get("players", [])}
    who = f"strategy '{names[seat]}' (seat {seat})" if seat in names else "a strategy"
    return (
        f"{who} chose otherwise in match {match}, round {event.get('round', '?')} when "
        "asked to explain (explaining(view) is true only in replay --moves): an "
        "explanation must not change the move; replay without --moves shows the run's"
    )
