"""`mexsim play`: a new game or a kept one, the compiling done before the screen opens,
then the terminal interface; afterwards, where the game is kept."""

from __future__ import annotations

import sys
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

from mexsim.errors import ConfigError, StrategyError
from mexsim.person.session import Session


def play(
    config: Path | None,
    seat: int | None,
    match: int | None,
    record: Path | None,
    resume: Path | None,
    strategies: tuple[Path, ...],
    variant: str | None,
    compile_notice: Callable[[], AbstractContextManager],
) -> None:
    try:
        from mexsim.person.app import PlayApp
    except ImportError:
        raise ConfigError(
            "mexsim play needs Textual: pip install 'mexsim[play]' (or textual)"
        ) from None
    if (config is None) == (resume is None):
        raise ConfigError(
            "mexsim play takes a CONFIG for a new game, or --resume RECORD to continue one"
        )
    if resume is not None:
        given = [
            f
            for f, v in (
                ("--seat", seat),
                ("--match", match),
                ("--record", record),
                ("--variant", variant),
            )
            if v is not None
        ]
        if given:
            raise ConfigError(
                f"{given[0]} is a new game's: a kept game (--resume) goes on as it was "
                "started, in its own record"
            )
    with compile_notice():
        if resume is not None:
            session = Session.resume(resume, strategies)
        else:
            assert config is not None
            session = Session.start(config, seat or 0, match or 0, record, strategies, variant)
        if not (sys.stdin.isatty() and sys.stdout.isatty()):  # before anything is written
            raise ConfigError(
                "mexsim play needs a terminal (it reads your keys and draws the table): run "
                "it in one, without redirecting its input or output"
            )
        session.save()
        warm_hints(session)
    app = PlayApp(session)
    app.run()
    if app.failure is not None:
        kept = session.record
        raise StrategyError(f"{app.failure} (the game is kept in {kept})")
    if session.game.is_over():
        print(f"the match is over; its trace is in {session.record}")
    else:
        kept = session.record
        print(f"game kept in {kept}; continue it with: mexsim play --resume {kept}")


def warm_hints(session: Session) -> None:
    """Compile (or load) the forward model's rollouts now, not at the first hint."""
    from mexsim.strategy.move_values import world_penalties

    g = session.game
    if session.my_turn and g.move_count() > 0:
        world_penalties(g.view(session.seat), 1, True)
